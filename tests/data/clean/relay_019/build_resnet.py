"""Correct TVM 0.19 Relay code: passes under the level they need, the factory-module API."""
import tvm
from tvm import relay
from tvm.contrib import graph_executor


def fold(mod):
    with tvm.transform.PassContext(opt_level=3):
        return relay.transform.FoldScaleAxis()(mod)


def simplify(mod):
    # function passes called directly run at any level
    mod = relay.transform.InferType()(mod)
    mod = relay.transform.FoldConstant()(mod)
    return relay.transform.CanonicalizeOps()(mod)


def layout(mod):
    seq = tvm.transform.Sequential(
        [relay.transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]}), relay.transform.FoldConstant()]
    )
    with tvm.transform.PassContext(opt_level=3):
        return seq(mod)


def build(mod, params, target="llvm"):
    mod = layout(fold(simplify(mod)))
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]):
        lib = relay.build(mod, target=target, params=params)
    device = tvm.device(target, 0)
    module = graph_executor.GraphModule(lib["default"](device))
    with open("params.bin", "wb") as handle:
        handle.write(tvm.runtime.save_param_dict(lib.get_params()))
    return module


def quantized(mod, params):
    with tvm.transform.PassContext(opt_level=3):
        with relay.quantize.qconfig(calibrate_mode="global_scale", global_scale=8.0):
            return relay.quantize.quantize(mod, params)


if __name__ == "__main__":
    from tvm.relay import testing

    model, weights = testing.resnet.get_workload(num_layers=18)
    build(quantized(model, weights), weights)
