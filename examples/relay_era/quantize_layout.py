"""Seed 004: quantizing a model and wondering why AlterOpLayout never shows NCHWc.

AlterOpLayout only runs when the build is at opt_level 3; quantize's own
prerequisite optimisation runs FoldScaleAxis and CanonicalizeOps under the
caller's context.
"""
from tvm import relay


def quantize_and_build(mod, params, target):
    with relay.quantize.qconfig(skip_conv_layers=[0]):
        mod = relay.quantize.quantize(mod, params)
    lib = relay.build(mod, target=target)
    return lib


if __name__ == "__main__":
    import tvm

    model, weights = relay.testing.resnet.get_workload(num_layers=18)
    quantize_and_build(model, weights, tvm.target.Target("llvm"))
