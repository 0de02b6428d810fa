"""Calls the helper in passes.py once under opt_level 3 and once without a context."""
import tvm
from tvm import relay

from passes import fold_scales


def optimized(mod):
    with tvm.transform.PassContext(opt_level=3):
        return fold_scales(mod)


def quick(mod):
    return fold_scales(mod)  # the helper's FoldScaleAxis is skipped here


ctx = tvm.transform.PassContext(opt_level=3)  # created, never entered
lib = relay.build(quick(tvm.IRModule()), target="llvm")
