"""Seed 002: FoldScaleAxis called directly gives a different module than under opt_level 3.

FoldScaleAxis is a Sequential of BackwardFoldScaleAxis (3), ForwardFoldScaleAxis (3)
and FoldConstant (2): outside PassContext(opt_level=3) it only folds constants.
FoldConstant and CanonicalizeOps are function passes and run either way.
"""
import tvm
from tvm import relay


def compare(mod):
    mod_0 = relay.transform.FoldScaleAxis()(mod)  # silently does only FoldConstant

    with tvm.transform.PassContext(opt_level=3):
        mod_1 = relay.transform.FoldScaleAxis()(mod)

    seq = tvm.ir.transform.Sequential([relay.transform.FoldScaleAxis()])
    with tvm.transform.PassContext(opt_level=3):
        mod_2 = seq(mod)

    folded = relay.transform.FoldConstant()(mod)  # a function pass: runs
    canonical = relay.transform.CanonicalizeOps()(mod)  # level 3, but called directly: runs
    return mod_0, mod_1, mod_2, folded, canonical


def canonicalize_in_sequence(mod):
    # the same CanonicalizeOps, now gated: skipped at the default level 2
    seq = tvm.transform.Sequential([relay.transform.CanonicalizeOps()], opt_level=3)
    return seq(mod)


if __name__ == "__main__":
    module = tvm.IRModule()
    compare(module)
    canonicalize_in_sequence(module)
