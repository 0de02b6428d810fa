"""Correct TVM 0.27 code: a relax module built with an explicit pipeline."""
import numpy as np

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class MLP:
    @R.function
    def main(x: R.Tensor((1, 4), "float32"), w: R.Tensor((4, 4), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.nn.relu(y)
            R.output(z)
        return z


def optimize(mod):
    seq = tvm.transform.Sequential(
        [
            relax.transform.LegalizeOps(),
            relax.transform.AnnotateTIROpPattern(),
            relax.transform.FuseOps(),
            relax.transform.FuseTIR(),
            relax.transform.CanonicalizeBindings(),
        ]
    )
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["DeadCodeElimination"]):
        return seq(mod)


def run():
    mod = optimize(MLP)
    with tvm.transform.PassContext(opt_level=3):
        executable = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(executable, tvm.cpu())
    x = tvm.runtime.tensor(np.ones((1, 4), "float32"))
    w = tvm.runtime.tensor(np.eye(4, dtype="float32"))
    return vm["main"](x, w).numpy()


if __name__ == "__main__":
    print(run())
