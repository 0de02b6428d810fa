"""PassContext settings that read well and do something else (written for tvmlint).

- opt_level 4 "for speed" also turns on FastMath, which swaps exp/tanh/erf for
  approximations: a transformer's outputs change.
- required_pass names the FoldScaleAxis wrapper, whose two folding passes stay
  gated at opt_level 2.
- FoldConstant is both required and disabled: disabled wins.
"""
import tvm
from tvm import relay


def build_fast(mod, params, target="llvm"):
    with tvm.transform.PassContext(opt_level=4):
        return relay.build(mod, target=target, params=params)


def build_folded(mod, params, target="llvm"):
    with tvm.transform.PassContext(opt_level=2, required_pass=["FoldScaleAxis"]):
        return relay.build(mod, target=target, params=params)


def build_without_folding(mod, params, target="llvm"):
    with tvm.transform.PassContext(
        opt_level=3, required_pass=["FoldConstant"], disabled_pass=["AlterOpLayout", "FoldConstant"]
    ):
        return relay.build(mod, target=target, params=params)


def build_exact(mod, params, target="llvm"):
    # what the three above meant: level 4's fusion without its approximate math,
    # and the scale folding asked for by its members' names
    with tvm.transform.PassContext(
        opt_level=4,
        required_pass=["BackwardFoldScaleAxis", "ForwardFoldScaleAxis"],
        disabled_pass=["FastMath"],
    ):
        return relay.build(mod, target=target, params=params)


if __name__ == "__main__":
    from tvm.relay import testing

    net, net_params = testing.mlp.get_workload(batch_size=1)
    for build in (build_fast, build_folded, build_without_folding, build_exact):
        build(net, net_params)
