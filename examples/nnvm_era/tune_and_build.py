"""Seed 000: an auto-tuned CNN built with NNVM at opt_level 3 lost accuracy (93% -> 62%).

NNVM's FoldScaleAxis, enabled from opt_level 3, also folded negative scales.
The user then edited OPT_PASS_LEVEL by hand to find the culprit.
"""
import nnvm.compiler
import nnvm.compiler.build_module as build_module
from tvm import autotvm


def compile_tuned(net, target, input_shapes, params, dtype, log_file):
    with autotvm.apply_history_best(log_file):
        with nnvm.compiler.build_config(opt_level=3):
            graph, lib, params = nnvm.compiler.build(
                net, target=target, shape=input_shapes, params=params, dtype=dtype
            )
    return graph, lib, params


def bisect_passes():
    # changes every later build in this process
    build_module.OPT_PASS_LEVEL["FoldScaleAxis"] = 2
    build_module.OPT_PASS_LEVEL["AlterOpLayout"] = 3


def save(params, path):
    with open(path, "wb") as handle:
        handle.write(nnvm.compiler.save_param_dict(params))
