"""TVM103 pass-context-not-entered: a PassContext that is created and never entered."""

from __future__ import annotations

from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Case, Rule

HEAD = "import tvm\nfrom tvm import relay\n"


class PassContextNotEntered(Rule):
    code = "TVM103"
    prefilter = Prefilter(triggers=("context_factories", "scope_objects"), wants="created_outside_with")

    VALID = [
        # entered, or handed on, they act
        HEAD + "with relay.quantize.qconfig(global_scale=8.0):\n    mod = relay.quantize.quantize(mod, params)\n",
        HEAD + "cfg = relay.quantize.qconfig(global_scale=8.0)\nwith cfg:\n    mod = relay.quantize.quantize(mod, params)\n",
        "import tvm\nfrom tvm import autotvm\ndef dispatch(log):\n    return autotvm.apply_history_best(log)\n",
        # a class attribute another module enters as `with model.interp_lower_config:`
        HEAD + "class Model:\n    interp_lower_config = tvm.transform.PassContext(opt_level=3, disabled_pass={'AlterOpLayout'})\n",
        HEAD + "with tvm.transform.PassContext(opt_level=3):\n    lib = relay.build(mod, 'llvm')\n",
        HEAD + "ctx = tvm.transform.PassContext(opt_level=3)\nwith ctx:\n    lib = relay.build(mod, 'llvm')\n",
        HEAD + "ctx = tvm.transform.PassContext(opt_level=3)\nctx.__enter__()\n",
        # handed on or returned: someone else may enter it
        HEAD + "def make():\n    return tvm.transform.PassContext(opt_level=3)\n",
        HEAD + "def make():\n    ctx = relay.build_config(opt_level=3)\n    return ctx\n",
        HEAD + "run_with(tvm.transform.PassContext(opt_level=3))\n",
        # chosen on two paths, then entered
        HEAD + "if fast:\n    ctx = tvm.transform.PassContext(opt_level=3)\nelse:\n"
        "    ctx = tvm.transform.PassContext(opt_level=2)\nwith ctx:\n    lib = relay.build(mod)\n",
        # not TVM's
        "class PassContext:\n    pass\nPassContext()\n",
        # inspected: made to read its settings back (tests/python/ir/test_node_reflection.py, test_pass_config)
        HEAD + "def test_pass_config():\n    cfg = tvm.transform.PassContext(opt_level=1, config={'tir.UnrollLoop': {'auto_max_step': 10}})\n"
        "    assert cfg.config['tir.UnrollLoop'].auto_max_step == 10\n",
        # made to see it raise (the same test: invalid config keys)
        HEAD + "import pytest\ndef test_pass_config():\n    with pytest.raises(AttributeError):\n"
        "        cfg = tvm.transform.PassContext(config={'inavlid-opt': True})\n",
        HEAD + "import unittest\nclass T(unittest.TestCase):\n    def test_bad(self):\n"
        "        with self.assertRaises(AttributeError):\n            tvm.transform.PassContext(config={'x': 1})\n",
        HEAD + "try:\n    tvm.transform.PassContext(config={'tir.UnrollLoop': 1})\nexcept AttributeError:\n    pass\n",
        # made only to reach a static method (python/tvm/auto_scheduler/measure.py#L632 at v0.12.0,
        # python/tvm/relay/backend/contrib/uma/api/lower.py#L96)
        HEAD + "with tvm.transform.PassContext().current():\n    func = tvm.build(sch, args)\n",
        HEAD + "curr_ctxt = tvm.transform.PassContext().current()\nassert 'tir.add_lower_pass' not in curr_ctxt.config\n",
    ]
    INVALID = [
        # `with A and B:` enters only B (a context is truthy, so `and` gives its right side); `or`, only A
        Case(HEAD + "with tvm.transform.PassContext(opt_level=3) and tvm.target.Target('llvm'):\n"
             "    lib = relay.build(mod, 'llvm')\n", expect="tvm.transform.PassContext(opt_level=3) is created but never entered"),
        Case(HEAD + "with tvm.target.Target('llvm') or tvm.transform.PassContext(opt_level=3):\n"
             "    lib = relay.build(mod, 'llvm')\n", expect="never entered"),
        # context managers that are no PassContext act only where entered: a qconfig made as a statement
        # (a user's quantize script: the next line quantizes with the default config), an autotvm log
        # context bound and never entered, NNVM's build_config
        Case(HEAD + "relay.quantize.qconfig(calibrate_mode='global_scale', global_scale=8.0)\n"
             "mod = relay.quantize.quantize(mod, params)\n", expect="makes a quantization config but it is never entered"),
        Case("import tvm\nfrom tvm import autotvm, relay\nbest = autotvm.apply_history_best('tune.log')\n"
             "with tvm.transform.PassContext(opt_level=3):\n    lib = relay.build(mod, target)\n",
             expect="tuning-log dispatch context"),
        Case("import nnvm.compiler\nnnvm.compiler.build_config(opt_level=3)\n"
             "graph, lib, params = nnvm.compiler.build(sym, 'llvm', shape)\n", target="0.5", expect="NNVM build config"),
        Case(HEAD + "relay.build_config(opt_level=3)\nlib = relay.build(mod, 'llvm')\n", expect="never entered"),
        Case(HEAD + "tvm.transform.PassContext(opt_level=3)\n", expect="opt_level=3"),
        Case(HEAD + "ctx = tvm.transform.PassContext(opt_level=3)\nlib = relay.build(mod, 'llvm')\n",
             expect="never entered"),
        # in a test, made and forgotten outside any block that expects an error
        Case(HEAD + "import pytest\ndef test_build():\n    with pytest.raises(ValueError):\n        check(mod)\n"
             "    tvm.transform.PassContext(opt_level=3)\n    relay.build(mod, 'llvm')\n", expect="never entered"),
        Case("from tvm.ir.transform import PassContext\ndef f():\n    ctx = PassContext(opt_level=3)\n"
             "    return relay.build(mod)\n", expect="never entered"),
    ]

    def finish(self) -> None:
        for value in self.file.analysis.contexts:
            if value.state not in ("discarded", "bound", "created") or value.expects_raise:
                continue
            if value.other is not None:
                self.report(
                    value.node,
                    f"{value.display} makes a {value.other} but it is never entered with `with`, so it has no effect",
                    detail=(
                        "What runs after it still runs with the settings in force before it. "
                        f"Write `with {value.display}:` around the calls it is meant for."
                    ),
                )
                continue
            self.report(
                value.node,
                f"{value.display} is created but never entered with `with`, so it has no effect",
                detail=(
                    "A PassContext applies only inside `with`: what runs after it still runs under the default "
                    "context (opt_level 2, no required or disabled passes). "
                    f"Write `with {value.display}:` around the passes or build it is meant for."
                ),
            )
