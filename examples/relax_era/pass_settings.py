"""PassContext settings TVM accepts without a word: a misspelt disabled pass,
opt_level 7, opt_level 4's fast math, and a config key renamed in 0.24."""
import tvm
from tvm import relax


def build(mod):
    with tvm.transform.PassContext(opt_level=7, disabled_pass=["FuseOP"]):
        mod = relax.transform.FuseOps()(mod)
    with tvm.transform.PassContext(opt_level=3, config={"tir.disable_vectorize": True}):
        exe = tvm.compile(mod, target="llvm")
    return exe


if __name__ == "__main__":
    build(tvm.IRModule())
