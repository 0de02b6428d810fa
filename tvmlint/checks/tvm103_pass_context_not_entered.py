"""TVM103 pass-context-not-entered: a PassContext that is created and never entered."""

from __future__ import annotations

from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid

HEAD = "import tvm\nfrom tvm import relay\n"


class PassContextNotEntered(Rule):
    code = "TVM103"
    prefilter = Prefilter(triggers=("context_factories", "scope_objects"), wants="created_outside_with")

    VALID = [
        # entered, or handed on, they act
        Valid(HEAD, """
            with relay.quantize.qconfig(global_scale=8.0):
                mod = relay.quantize.quantize(mod, params)
        """),
        Valid(HEAD, """
            cfg = relay.quantize.qconfig(global_scale=8.0)
            with cfg:
                mod = relay.quantize.quantize(mod, params)
        """),
        Valid("""
            import tvm
            from tvm import autotvm
            def dispatch(log):
                return autotvm.apply_history_best(log)
        """),
        # a class attribute another module enters as `with model.interp_lower_config:`
        Valid(HEAD, """
            class Model:
                interp_lower_config = tvm.transform.PassContext(opt_level=3, disabled_pass={'AlterOpLayout'})
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):
                lib = relay.build(mod, 'llvm')
        """),
        Valid(HEAD, """
            ctx = tvm.transform.PassContext(opt_level=3)
            with ctx:
                lib = relay.build(mod, 'llvm')
        """),
        Valid(HEAD, """
            ctx = tvm.transform.PassContext(opt_level=3)
            ctx.__enter__()
        """),
        # handed on or returned: someone else may enter it
        Valid(HEAD, """
            def make():
                return tvm.transform.PassContext(opt_level=3)
        """),
        Valid(HEAD, """
            def make():
                ctx = relay.build_config(opt_level=3)
                return ctx
        """),
        Valid(HEAD, """
            run_with(tvm.transform.PassContext(opt_level=3))
        """),
        # chosen on two paths, then entered
        Valid(HEAD, """
            if fast:
                ctx = tvm.transform.PassContext(opt_level=3)
            else:
                ctx = tvm.transform.PassContext(opt_level=2)
            with ctx:
                lib = relay.build(mod)
        """),
        # not TVM's
        Valid("""
            class PassContext:
                pass
            PassContext()
        """),
        # inspected: made to read its settings back (tests/python/ir/test_node_reflection.py, test_pass_config)
        Valid(HEAD, """
            def test_pass_config():
                cfg = tvm.transform.PassContext(opt_level=1, config={'tir.UnrollLoop': {'auto_max_step': 10}})
                assert cfg.config['tir.UnrollLoop'].auto_max_step == 10
        """),
        # made to see it raise (the same test: invalid config keys)
        Valid(HEAD, """
            import pytest
            def test_pass_config():
                with pytest.raises(AttributeError):
                    cfg = tvm.transform.PassContext(config={'inavlid-opt': True})
        """),
        Valid(HEAD, """
            import unittest
            class T(unittest.TestCase):
                def test_bad(self):
                    with self.assertRaises(AttributeError):
                        tvm.transform.PassContext(config={'x': 1})
        """),
        Valid(HEAD, """
            try:
                tvm.transform.PassContext(config={'tir.UnrollLoop': 1})
            except AttributeError:
                pass
        """),
        # made only to reach a static method (python/tvm/auto_scheduler/measure.py#L632 at v0.12.0,
        # python/tvm/relay/backend/contrib/uma/api/lower.py#L96)
        Valid(HEAD, """
            with tvm.transform.PassContext().current():
                func = tvm.build(sch, args)
        """),
        Valid(HEAD, """
            curr_ctxt = tvm.transform.PassContext().current()
            assert 'tir.add_lower_pass' not in curr_ctxt.config
        """),
    ]
    INVALID = [
        # `with A and B:` enters only B (a context is truthy, so `and` gives its right side); `or`, only A
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3) and tvm.target.Target('llvm'):
                lib = relay.build(mod, 'llvm')
        """, expect="tvm.transform.PassContext(opt_level=3) is created but never entered"),
        Invalid(HEAD, """
            with tvm.target.Target('llvm') or tvm.transform.PassContext(opt_level=3):
                lib = relay.build(mod, 'llvm')
        """, expect="never entered"),
        # context managers that are no PassContext act only where entered: a qconfig made as a statement
        # (a user's quantize script: the next line quantizes with the default config), an autotvm log
        # context bound and never entered, NNVM's build_config
        Invalid(HEAD, """
            relay.quantize.qconfig(calibrate_mode='global_scale', global_scale=8.0)
            mod = relay.quantize.quantize(mod, params)
        """, expect="makes a quantization config but it is never entered"),
        Invalid("""
            import tvm
            from tvm import autotvm, relay
            best = autotvm.apply_history_best('tune.log')
            with tvm.transform.PassContext(opt_level=3):
                lib = relay.build(mod, target)
        """, expect="tuning-log dispatch context"),
        Invalid("""
            import nnvm.compiler
            nnvm.compiler.build_config(opt_level=3)
            graph, lib, params = nnvm.compiler.build(sym, 'llvm', shape)
        """, target="0.5", expect="NNVM build config"),
        Invalid(HEAD, """
            relay.build_config(opt_level=3)
            lib = relay.build(mod, 'llvm')
        """, expect="never entered"),
        Invalid(HEAD, """
            tvm.transform.PassContext(opt_level=3)
        """, expect="opt_level=3"),
        Invalid(HEAD, """
            ctx = tvm.transform.PassContext(opt_level=3)
            lib = relay.build(mod, 'llvm')
        """, expect="never entered"),
        # in a test, made and forgotten outside any block that expects an error
        Invalid(HEAD, """
            import pytest
            def test_build():
                with pytest.raises(ValueError):
                    check(mod)
                tvm.transform.PassContext(opt_level=3)
                relay.build(mod, 'llvm')
        """, expect="never entered"),
        Invalid("""
            from tvm.ir.transform import PassContext
            def f():
                ctx = PassContext(opt_level=3)
                return relay.build(mod)
        """, expect="never entered"),
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
