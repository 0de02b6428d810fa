"""Seed 000, reply #5: the same model ported from NNVM to Relay.

The port keeps NNVM habits: relay.build_config, unpacking relay.build into three
values, and relay.save_param_dict.
"""
from tvm import relay
from tvm.contrib import graph_runtime


def build(mx_sym, arg_params, aux_params, target):
    relay_sym, relay_params = relay.frontend.from_mxnet(
        mx_sym, shape={"data": (1, 3, 224, 224)}, dtype="float32",
        arg_params=arg_params, aux_params=aux_params,
    )
    with relay.build_config(opt_level=3):
        graph, lib, params = relay.build(relay_sym, target, params=relay_params)
    with open("model.params", "wb") as handle:
        handle.write(relay.save_param_dict(params))
    return graph_runtime.create(graph, lib, target)
