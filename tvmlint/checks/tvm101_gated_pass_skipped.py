"""TVM101 gated-pass-skipped: a Sequential's gate skips a pass where it runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Optional, Tuple

from tvmlint.analysis.contexts import Gated, PassCtx, and_list, gate, leaves
from tvmlint.analysis.edits import tvm_import_edit, wrap_in_with
from tvmlint.analysis.on_purpose import said_on_purpose
from tvmlint.base.diagnostics import Finding, Fix, Said
from tvmlint.checks import words
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid

if TYPE_CHECKING:
    from tvmlint.base.versions import Version
    from tvmlint.checks.confirmation import LiveTVM, Verdict


@dataclass(frozen=True)
class GatedRunPayload:
    members: Tuple[Gated, ...]
    display: str
    wrapper: Optional[str]
    enter: str = "tvm.transform.PassContext"  # how the target release spells a context (contexts.toml suggest)


FOLD = "from tvm import relay\nimport tvm\n"


class GatedPassSkipped(Rule):
    code = "TVM101"
    prefilter = Prefilter(triggers=("sequential_classes", "gated_wrappers", "reporting_runners"),
                          low_context="gated_above_default")

    VALID = [
        # (issue #28) a script's sibling module (see INVALID), run under a context that keeps every member
        Valid("""
            from parameters import Process

            def main():
                proc = Process(mod)
                with tvm.transform.PassContext(opt_level=3):
                    proc.quantize()

            if __name__ == '__main__':
                main()
        """, path="quant/tvm/quantize_tvm.py", files={
            'quant/tvm/__init__.py': "",
            'quant/tvm/parameters.py': """
                from tvm import relay
                import tvm
                class Process:
                    def __init__(self, mod):
                        self.mod = mod

                    def quantize(self):
                        with relay.quantize.qconfig(global_scale=8.0):
                            return relay.quantize.quantize(self.mod, None)
            """,
        }, target="0.14"),
        # a function pass called directly always runs, whatever its level
        Valid(FOLD, """
            mod = relay.transform.CanonicalizeOps()(mod)
        """),
        Valid(FOLD, """
            mod = relay.transform.FoldConstant()(mod)
        """),
        Valid(FOLD, """
            mod = relay.transform.AlterOpLayout()(mod)
        """),
        Valid(FOLD, """
            with tvm.transform.PassContext(opt_level=3):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        Valid(FOLD, """
            with relay.build_config(opt_level=3):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        Valid(FOLD, """
            ctx = tvm.transform.PassContext(opt_level=3)
            with ctx:
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # the level is not a literal: no guessing
        Valid(FOLD, """
            with tvm.transform.PassContext(opt_level=level):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # members named in required_pass run
        Valid(FOLD, """
            with tvm.transform.PassContext(required_pass=['BackwardFoldScaleAxis', 'ForwardFoldScaleAxis']):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # the code's own words say the skip is shown on purpose (v0.12.0:gallery/how_to/extend_tvm/
        # use_pass_infra.py#L142-L162: the text after the cell explains it)
        Valid(FOLD, """
            seq = tvm.transform.Sequential([relay.transform.FoldConstant(), relay.transform.EliminateCommonSubexpr()])
            mod1 = seq(mod)
            print(mod1)

            ####
            # there are still two identical additions: EliminateCommonSubexpr
            # was not actually performed, since only passes of optimization level <= 2 run by default
            with tvm.transform.PassContext(opt_level=3):
                mod2 = seq(mod)
        """),
        Valid(FOLD, """
            # FoldScaleAxis is skipped at the default opt_level: we compare with the folded module below
            unfolded = relay.transform.FoldScaleAxis()(mod)
        """),
        # a name bound twice (here, once more after the function) is not fixed: no guessing
        Valid(FOLD, """
            OPT = 2
            def run(mod):
                with tvm.transform.PassContext(opt_level=OPT):
                    return relay.transform.FoldScaleAxis()(mod)
            OPT = 3
            run(mod0)
        """),
        Valid(FOLD, """
            OPT = 2
            def setup():
                global OPT
                OPT = 3
            with tvm.transform.PassContext(opt_level=OPT):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        Valid(FOLD, """
            def run(mod, fast):
                level = 2
                if fast:
                    level = 3
                with tvm.transform.PassContext(opt_level=level):
                    return relay.transform.FoldScaleAxis()(mod)
            run(m, f)
        """),
        Valid(FOLD, """
            OPT = 3
            with tvm.transform.PassContext(opt_level=OPT):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # a local name that looks like TVM's is not TVM's
        Valid("""
            class relay:
                class transform:
                    FoldScaleAxis = object
            mod = relay.transform.FoldScaleAxis()(mod)
        """),
        Valid("""
            def run(relay, mod):
                return relay.transform.FoldScaleAxis()(mod)
        """),
        # a helper whose every caller enters opt_level 3
        Valid(FOLD, """
            def fold(mod):
                return relay.transform.FoldScaleAxis()(mod)

            with tvm.transform.PassContext(opt_level=3):
                mod = fold(mod)
        """),
        # tests that a decorator or fixture may run under a context of their own: unknown
        Valid(FOLD, """
            import pytest
            @pytest.fixture
            def opt3():
                with tvm.transform.PassContext(opt_level=3):
                    yield
            def test_fold(opt3):
                mod = relay.transform.FoldScaleAxis()(mod0)
        """, path="test_fold.py"),
        Valid(FOLD, """
            from helpers import with_opt3
            @with_opt3
            def test_fold():
                mod = relay.transform.FoldScaleAxis()(mod0)
        """, path="test_fold.py"),
        Valid(FOLD, """
            def test_fold(conftest_fixture):
                mod = relay.transform.FoldScaleAxis()(mod0)
        """, path="test_fold.py"),
        # a test function in a file pytest does not collect, that a fixture could fill or that the
        # module calls itself, is a helper like any other
        Valid(FOLD, """
            def test_fold(mod0):
                mod = relay.transform.FoldScaleAxis()(mod0)
        """),
        Valid(FOLD, """
            def test_fold():
                mod = relay.transform.FoldScaleAxis()(mod0)

            with tvm.transform.PassContext(opt_level=3):
                test_fold()
        """),
        # a test class with a set-up method may enter a context around each test
        Valid(FOLD, """
            class TestFold:
                def setup_method(self):
                    self.ctx = tvm.transform.PassContext(opt_level=3)
                    self.ctx.__enter__()
                def test_fold(self):
                    mod = relay.transform.FoldScaleAxis()(mod0)
        """, path="test_fold.py"),
        # a list made and grown in one branch, run in that branch: certain there, and run at level 3
        Valid(FOLD, """
            if fold:
                passes = [relay.transform.FoldConstant()]
                passes.append(relay.transform.FoldScaleAxis())
                with tvm.transform.PassContext(opt_level=3):
                    mod = tvm.transform.Sequential(passes)(mod)
        """),
        # appended in a function to a module's list: not followed into the module's value
        Valid(FOLD, """
            PASSES = [relay.transform.FoldConstant()]
            def add():
                PASSES.append(relay.transform.AlterOpLayout())
            mod = tvm.transform.Sequential(PASSES)(mod)
        """),
        # a pass added under an `if` that the context runs anyway
        Valid(FOLD, """
            passes = [relay.transform.FoldConstant()]
            if fast:
                passes.append(relay.transform.FastMath())
            with tvm.transform.PassContext(opt_level=4):
                mod = tvm.transform.Sequential(passes)(mod)
        """),
        # a helper with no visible caller has an unknown context
        Valid(FOLD, """
            def fold(mod):
                return relay.transform.FoldScaleAxis()(mod)
        """),
        # a codegen hook TVM calls from inside relay.build
        Valid(FOLD, """
            @tvm.register_func('relay.ext.mine.optimize')
            def hook(mod):
                return relay.transform.FoldScaleAxis()(mod)
        """),
        # a context handed in by the caller, or chosen on two paths: not seen, not judged
        Valid(FOLD, """
            def run(mod, ctx):
                with ctx:
                    return relay.transform.FoldScaleAxis()(mod)

            run(mod, tvm.transform.PassContext(opt_level=3))
        """),
        Valid(FOLD, """
            if fast:
                ctx = tvm.transform.PassContext(opt_level=3)
            else:
                ctx = tvm.transform.PassContext(opt_level=2)
            with ctx:
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        Valid(FOLD, """
            from settings import BUILD_CONTEXT
            with BUILD_CONTEXT:
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # a function handed on and kept (a partial, a registry's value) or handed to TVM (which may
        # call it inside a pass, under that pass's context): its context is not seen
        Valid(FOLD, """
            import functools
            def main(mod):
                return relay.transform.FoldScaleAxis()(mod)

            run = functools.partial(main, mod)
            with tvm.transform.PassContext(opt_level=3):
                run()
        """),
        Valid(FOLD, """
            def main(mod, ctx):
                return relay.transform.FoldScaleAxis()(mod)

            tvm.transform.module_pass(main, opt_level=0)
        """),
        # ... and one handed to a runner inside a context runs under it
        Valid(FOLD, """
            def main(mod):
                return relay.transform.FoldScaleAxis()(mod)

            with tvm.transform.PassContext(opt_level=3):
                invoke_main(main, 'mod')
        """),
        # ... and the same star import, called inside a context
        Valid("""
            import tvm
            from q_utils import *
            with tvm.transform.PassContext(opt_level=3):
                mod = quantize(mod, params)
        """, files={
            'q_utils.py': """
                from tvm import relay
                import tvm
                def quantize(mod, params):
                    with relay.quantize.qconfig(global_scale=8.0):
                        return relay.quantize.quantize(mod, params)
            """,
        }, target="0.7"),
        # ... the same method called inside a context; and an object of the project entered with
        # `with` may be a context manager that enters a PassContext: not seen, not judged
        Valid("""
            import tvm
            from process import Process
            proc = Process(mod)
            with tvm.transform.PassContext(opt_level=3):
                proc.run()
        """, files={
            'process.py': """
                from tvm import relay
                import tvm
                class Process:
                    def __init__(self, mod):
                        self.mod = mod

                    def run(self):
                        with relay.quantize.qconfig(global_scale=8.0):
                            return relay.quantize.quantize(self.mod, None)
            """,
        }, target="0.14"),
        Valid(FOLD, """
            class Build:
                def __enter__(self):
                    self.ctx = tvm.transform.PassContext(opt_level=3)
                    return self.ctx.__enter__()

                def __exit__(self, *a):
                    self.ctx.__exit__(*a)

            env = Build()
            with env:
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # a module-level test function the script itself calls, inside a context: not a runner's entry
        Valid(FOLD, """
            def verify(mod):
                return tvm.transform.Sequential([relay.transform.EliminateCommonSubexpr()])(mod)

            def test_resnet18():
                verify(mod)

            with tvm.transform.PassContext(opt_level=3):
                test_resnet18()
        """, path="integration_tests.py", target="0.8"),
        # relax at the default level: nothing built in is above level 1
        Valid("""
            import tvm
            from tvm import relax
            mod = relax.transform.CanonicalizeBindings()(mod)
        """),
        # a Sequential whose members are all at level 0 runs them at any level from 0
        Valid("""
            import tvm
            mod = tvm.tirx.transform.LowerTIRx()(mod)
        """, target="0.27"),
        # a level below 0 skips every member: TVM303 reports that level, and what it skips
        Valid(FOLD, """
            with tvm.transform.PassContext(opt_level=-1):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # the relay table does not apply to 0.27, where relay is gone (TVM201 says so)
        Valid(FOLD, """
            mod = relay.transform.FoldScaleAxis()(mod)
        """, target="0.27"),
        # partition_for_tensorrt (a runner rules/runners.toml derives from TVM's source) under opt_level 3
        Valid("""
            import tvm
            from tvm.relay.op.contrib import tensorrt
            with tvm.transform.PassContext(opt_level=3):
                mod = tensorrt.partition_for_tensorrt(mod, params=params, target=trt_target)
        """, target="0.12"),
        # ... and at 0.9, when it still entered its own PassContext(opt_level=3)
        Valid("""
            import tvm
            from tvm.relay.op.contrib import tensorrt
            mod, config = tensorrt.partition_for_tensorrt(mod, params=params)
        """, target="0.9"),
        # ... but a visible caller's context wins: it is called inside PassContext(opt_level=3)
        Valid(FOLD, """
            class Optimizer:
                def optimize(self, mod, params):
                    mod = self._quantize(mod, params)
                    with tvm.transform.PassContext(opt_level=3):
                        return relay.build(mod, 'llvm', params=params)

                @staticmethod
                def _quantize(mod, params):
                    with relay.quantize.qconfig(global_scale=8.0):
                        return relay.quantize.quantize(mod, params)

            opt = Optimizer()
            with tvm.transform.PassContext(opt_level=3):
                opt.optimize(m, p)
        """, target="0.9"),
        # TVM's own functions are API: callers give them their contexts
        Valid("""
            import tvm
            from tvm import relay

            def quantize(mod, params):
                mod = relay.transform.FoldScaleAxis()(mod)
                with tvm.transform.PassContext(opt_level=3):
                    return relay.build(mod, 'llvm')
        """, path="tvm/relay/myquant.py", files={
            'tvm/__init__.py': "",
            'tvm/relay/__init__.py': "",
        }, target="0.9"),
        # an opt_level a parameter holds: the callers give 3, or nothing calls the function (unknown)
        Valid(FOLD, """
            def fold(mod, level):
                with tvm.transform.PassContext(opt_level=level):
                    return relay.transform.FoldScaleAxis()(mod)

            fold(m, 3)
            fold(m, level=3)
        """),
        Valid(FOLD, """
            def fold(mod, level=2):
                with tvm.transform.PassContext(opt_level=level):
                    return relay.transform.FoldScaleAxis()(mod)
        """),
        # ... a call whose level the `if` around the context turns away does not reach it
        Valid(FOLD, """
            def fold(mod, level):
                if level >= 3:
                    with tvm.transform.PassContext(opt_level=level):
                        return relay.transform.FoldScaleAxis()(mod)
                return mod

            fold(m, 3)
            fold(m, 1)
        """),
        # ... a parameter the function sets again is no longer what the callers gave
        Valid(FOLD, """
            def fold(mod, level=2):
                level = 3
                with tvm.transform.PassContext(opt_level=level):
                    return relay.transform.FoldScaleAxis()(mod)

            fold(m)
        """),
        # an opt_level another module of the project sets high enough
        Valid(FOLD, """
            from config import *
            with tvm.transform.PassContext(opt_level=OPT_LEVEL):
                mod = relay.transform.FoldScaleAxis()(mod)
        """, files={
            'config.py': """
                OPT_LEVEL = 3
            """,
        }),
        # ... or sets twice: not one value
        Valid(FOLD, """
            from config import OPT_LEVEL
            with tvm.transform.PassContext(opt_level=OPT_LEVEL):
                mod = relay.transform.FoldScaleAxis()(mod)
        """, files={
            'config.py': """
                OPT_LEVEL = 2
                if fast:
                    OPT_LEVEL = 3
            """,
        }),
    ]

    INVALID = [
        Invalid(FOLD, """
            mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="BackwardFoldScaleAxis and ForwardFoldScaleAxis (opt_level 3)", fixed="""
            with tvm.transform.PassContext(opt_level=3):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # aliases of every shape
        Invalid("""
            import tvm.relay as rl
            mod = rl.transform.FoldScaleAxis()(mod)
        """, expect="opt_level 2"),
        Invalid("""
            from tvm.relay import transform as T
            mod = T.FoldScaleAxis()(mod)
        """, expect="ForwardFoldScaleAxis"),
        Invalid("""
            from tvm.relay.transform import FoldScaleAxis as F
            mod = F()(mod)
        """, detail="only FoldConstant runs", fixed="""
            from tvm.relay.transform import FoldScaleAxis as F
            import tvm
            with tvm.transform.PassContext(opt_level=3):
                mod = F()(mod)
        """),
        # the same function pass that runs directly is skipped inside a Sequential
        Invalid(FOLD, """
            seq = tvm.transform.Sequential([relay.transform.CanonicalizeOps()])
            mod = seq(mod)
        """, expect="CanonicalizeOps (opt_level 3)"),
        Invalid(FOLD, """
            seq = tvm.ir.transform.Sequential([relay.transform.FoldScaleAxis()])
            mod = seq(mod)
        """, expect="BackwardFoldScaleAxis"),
        # lists and pass objects held in variables
        Invalid(FOLD, """
            passes = [relay.transform.AlterOpLayout(), relay.transform.FoldConstant()]
            mod = tvm.transform.Sequential(passes)(mod)
        """, expect="AlterOpLayout (opt_level 3)"),
        Invalid(FOLD, """
            p = relay.transform.FoldScaleAxis()
            mod = p(mod)
        """, expect="FoldScaleAxis"),
        # an explicit context that is too low, and nesting (innermost wins)
        Invalid(FOLD, """
            with tvm.transform.PassContext(opt_level=2):
                mod = relay.transform.FoldScaleAxis()(mod)
        """, detail="PassContext(opt_level=2)"),
        Invalid(FOLD, """
            with tvm.transform.PassContext(opt_level=3):
                with tvm.transform.PassContext(opt_level=1):
                    mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="opt_level 1"),
        Invalid(FOLD, """
            import contextlib
            with contextlib.suppress(Exception), tvm.transform.PassContext(opt_level=2):
                mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="opt_level 2"),
        # a `with` that is plainly not a PassContext does not hide the default
        Invalid(FOLD, """
            with open('log.txt', 'w') as log:
                mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="default context"),
        Invalid(FOLD, """
            with tvm.target.Target('llvm'):
                mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="default context"),
        # linear reassignment is followed: the second context is the one entered
        Invalid(FOLD, """
            ctx = tvm.transform.PassContext(opt_level=3)
            with ctx:
                a = relay.transform.FoldScaleAxis()(mod)
            ctx = tvm.transform.PassContext(opt_level=2)
            with ctx:
                b = relay.transform.FoldScaleAxis()(mod)
        """, detail="PassContext(opt_level=2) on line 6"),
        # required_pass names the wrapper, which the gate does not look at for members
        Invalid(FOLD, """
            with tvm.transform.PassContext(required_pass=['FoldScaleAxis']):
                mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="names the wrapper"),
        # BatchingOps is a no-op below level 4
        Invalid(FOLD, """
            mod = relay.transform.BatchingOps()(mod)
        """, detail="nothing runs"),
        # PassContext.current() outside any with is the default context
        Invalid(FOLD, """
            with tvm.transform.PassContext.current():
                mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="default"),
        # a helper called once inside and once outside a context
        Invalid(FOLD, """
            def fold(mod):
                return relay.transform.FoldScaleAxis()(mod)

            with tvm.transform.PassContext(opt_level=3):
                good = fold(mod)
            bad = fold(mod)
        """, expect="when fold is called on line"),
        # (issue #28) a script's main handed to a runner as a statement of its own runs there, under
        # no context (uwsampl/relay-bench experiments/relay_to_vta/run.py: invoke_main(main, ...)
        # runs build_model's relay.quantize.quantize under only a qconfig)
        Invalid(FOLD, """
            def build_model(mod, params):
                with relay.quantize.qconfig(global_scale=8.0):
                    return relay.quantize.quantize(mod, params=params)

            def main(config_dir):
                return build_model(load(config_dir), None)

            if __name__ == '__main__':
                invoke_main(main, 'config_dir')
        """, target="0.6", expect="when main is called on line 11"),
        # (issue #28) a file of test functions run by naming it to pytest (AndrewZhaoLuo/TVM-Sandbox
        # fp16_pass/integration_tests.py): nothing calls its tests, so a test runner does, and the
        # helper they call runs at the default context
        Invalid(FOLD, """
            def test_fold():
                mod = relay.transform.FoldScaleAxis()(mod0)
        """, detail="nothing in the checked code calls test_fold"),
        Invalid(FOLD, """
            def verify(mod):
                return tvm.transform.Sequential([relay.transform.EliminateCommonSubexpr()])(mod)

            def test_resnet18():
                verify(mod)
        """, path="integration_tests.py", target="0.8", expect="when verify is called on line 7"),
        # (issue #28) a project function reached through a star import (kalyan416/nn_tvm
        # tutorials/frontend/test_nano.py: `from torch_q_utils import *`, then quantize(...) at
        # module level, whose relay.quantize.quantize runs under only a qconfig)
        Invalid("""
            from q_utils import *
            mod = quantize(mod, params)
        """, files={
            'q_utils.py': """
                from tvm import relay
                import tvm
                def quantize(mod, params):
                    with relay.quantize.qconfig(global_scale=8.0):
                        return relay.quantize.quantize(mod, params)
            """,
        }, target="0.7", expect="when q_utils.quantize is called from case.py:2"),
        # (issue #28) a method reached through an instance of a project class, from another module
        # (itlab-vision/dl-benchmark src/quantization/tvm: proc = TVMQuantizationProcess(...);
        # proc.quantization_tvm() from main, whose relay.quantize.quantize runs under a qconfig only)
        Invalid("""
            from process import Process

            def main():
                proc = Process(mod)
                proc.run()

            main()
        """, files={
            'process.py': """
                from tvm import relay
                import tvm
                class Process:
                    def __init__(self, mod):
                        self.mod = mod

                    def quantize(self):
                        with relay.quantize.qconfig(global_scale=8.0):
                            return relay.quantize.quantize(self.mod, None)

                    def run(self):
                        return self.quantize()
            """,
        }, target="0.14", detail="when process.Process.run is called from case.py:5"),
        # (issue #28) a module named by another name than its own. A script's sibling, in a folder
        # that is a package named `tvm` (itlab-vision/dl-benchmark src/quantization/tvm:
        # `from parameters import TVMQuantizationProcess` in quantization_tvm.py, whose module name
        # is tvm.parameters), and a zero-argument call of the script's own main:
        Invalid("""
            from parameters import Process

            def main():
                proc = Process(mod)
                proc.quantize()

            if __name__ == '__main__':
                main()
        """, path="quant/tvm/quantize_tvm.py", files={
            'quant/tvm/__init__.py': "",
            'quant/parameters.py': """
                class Process:
                    pass
            """,
            'quant/tvm/parameters.py': """
                from tvm import relay
                import tvm
                class Process:
                    def __init__(self, mod):
                        self.mod = mod

                    def quantize(self):
                        with relay.quantize.qconfig(global_scale=8.0):
                            return relay.quantize.quantize(self.mod, None)
            """,
        }, target="0.14", detail="when tvm.parameters.Process.quantize is called from quant/tvm/quantize_tvm.py:5"),
        # a namespace package, a folder with no __init__.py (luludak/MutateNN:
        # `from mutators.generators import model as model_generator` in main.py)
        Invalid("""
            from mutators.generators import model as gen
            mod = gen.mutate(mod)
        """, files={
            'mutators/__init__.py': "",
            'mutators/generators/model.py': """
                from tvm import relay
                import tvm
                def mutate(mod):
                    return tvm.transform.Sequential([relay.transform.ConvertLayout({})])(mod)
            """,
        }, target="0.13", expect="when model.mutate is called from case.py:2"),
        # (issue #28) a method nothing in the checked code calls, which enters a PassContext of
        # its own for the build: what it runs outside that `with` runs at the default level, and
        # a staticmethod is still the project's own function (nebuly-ai/nebullvm
        # optimizers/tvm.py: _quantize before `with PassContext(opt_level=3)` around relay.build)
        Invalid(FOLD, """
            class Optimizer:
                def optimize(self, mod, params):
                    mod = self._quantize(mod, params)
                    with tvm.transform.PassContext(opt_level=3):
                        return relay.build(mod, 'llvm', params=params)

                @staticmethod
                def _quantize(mod, params):
                    with relay.quantize.qconfig(global_scale=8.0):
                        return relay.quantize.quantize(mod, params)
        """, target="0.9", detail="nothing in the checked code calls optimize, which enters a PassContext of its own on line 6"),
        # a package's inner name, as a script run from inside the project imports it
        # (anijain2305/tvm_autoq: `from common.quantize_helper import quantize` in mxnet/test.py,
        # whose root folder has an __init__.py, so the helper's module is tvm_autoq.common.quantize_helper)
        Invalid("""
            from common.helper import fold
            mod = fold(mod)
        """, path="proj/scripts/run.py", files={
            'proj/__init__.py': "",
            'proj/common/__init__.py': "",
            'proj/common/helper.py': """
                from tvm import relay
                import tvm
                def fold(mod):
                    return relay.transform.FoldScaleAxis()(mod)
            """,
        }, expect="when proj.common.helper.fold is called from proj/scripts/run.py:2"),
        # two scripts of one name in two folders (tvmt/tune.py, arm/tune.py: both module `tune`): a
        # call inside one of them is to its own function
        Invalid("", files={
            'tvmt/tune.py': """
                from tvm import relay
                import tvm
                def get_tasks(mod):
                    return relay.quantize.quantize(mod, params)

                get_tasks(m)
            """,
            'arm/tune.py': """
                from tvm import relay
                import tvm
                def get_tasks(mod):
                    with tvm.transform.PassContext(opt_level=3):
                        return relay.quantize.quantize(mod, params)

                get_tasks(m)
            """,
        }, expect="when get_tasks is called on line 6"),
        # ... and across modules
        Invalid("""
            from helpers import fold
            mod = fold(mod)
        """, files={
            'helpers.py': """
                from tvm import relay
                import tvm
                def fold(mod):
                    return relay.transform.FoldScaleAxis()(mod)
            """,
        }, expect="when helpers.fold is called from"),
        # values the code fixes once: a module constant, a local assigned once, a pass list in a name
        Invalid(FOLD, """
            OPT_LEVEL = 2

            def run(mod):
                with tvm.transform.PassContext(opt_level=OPT_LEVEL):
                    return relay.transform.FoldScaleAxis()(mod)

            run(mod0)
        """, detail="opt_level=OPT_LEVEL"),
        Invalid(FOLD, """
            def run(mod):
                level = 1
                with tvm.transform.PassContext(opt_level=level):
                    return relay.transform.FoldScaleAxis()(mod)

            run(mod0)
        """, expect="at opt_level 1"),
        Invalid(FOLD, """
            KEEP = ['ForwardFoldScaleAxis']
            with tvm.transform.PassContext(required_pass=KEEP):
                mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="BackwardFoldScaleAxis"),
        Invalid("""
            import tvm
            from tvm import relax
            LEVEL = 0
            with tvm.transform.PassContext(opt_level=LEVEL):
                mod = relax.transform.CanonicalizeBindings()(mod)
        """, expect="opt_level 0", target="0.27"),
        # a pass list that only grows keeps its first passes (renesas-rz/rzv_drp-ai_tvm,
        # tutorials/compile_cpu_only_onnx_model.py: the list is extended under an `if`)
        Invalid(FOLD, """
            passes = [relay.transform.FoldConstant(), relay.transform.AlterOpLayout()]
            if use_fp16:
                passes += [relay.transform.ToMixedPrecision()]
            mod = tvm.transform.Sequential(passes)(mod)
        """, expect="AlterOpLayout (opt_level 3)"),
        # pass lists built step by step: append, extend, insert, `+` (the shapes of users' fq2i and
        # fp16 scripts: `passes = []`, then one `passes.append(...)` per pass, then Sequential(passes))
        Invalid(FOLD, """
            passes = []
            passes.append(relay.transform.InferType())
            passes.append(relay.transform.EliminateCommonSubexpr())
            seq = tvm.transform.Sequential(passes)
            mod = seq(mod)
        """, expect="skips EliminateCommonSubexpr (opt_level 3)"),
        Invalid(FOLD, """
            passes = [relay.transform.InferType()]
            passes.extend([relay.transform.CombineParallelDense()])
            mod = tvm.transform.Sequential(passes)(mod)
        """, expect="CombineParallelDense (opt_level 4)"),
        Invalid(FOLD, """
            passes = [relay.transform.FoldConstant()]
            passes.insert(0, relay.transform.CanonicalizeOps())
            mod = tvm.transform.Sequential(passes)(mod)
        """, expect="CanonicalizeOps (opt_level 3)"),
        Invalid(FOLD, """
            base = [relay.transform.FoldConstant()]
            passes = base + [relay.transform.AlterOpLayout()]
            mod = tvm.transform.Sequential(passes)(mod)
        """, expect="AlterOpLayout (opt_level 3)"),
        # two pass lists in names, added: not a constant of pass names
        Invalid(FOLD, """
            common = [relay.transform.FoldConstant()]
            extra = [relay.transform.AlterOpLayout()]
            passes = common + extra
            mod = tvm.transform.Sequential(passes)(mod)
        """, expect="AlterOpLayout (opt_level 3)"),
        # ... in a function, where the list is made: every path
        Invalid(FOLD, """
            def optimize(mod):
                passes = []
                passes.append(relay.transform.FoldConstant())
                passes.append(relay.transform.EliminateCommonSubexpr())
                return tvm.ir.transform.Sequential(passes)(mod)

            optimize(m)
        """, expect="when optimize is called on line"),
        # added under an `if` only: the gate may skip it, and the message says so
        Invalid(FOLD, """
            passes = [relay.transform.FoldConstant()]
            if fast:
                passes.append(relay.transform.FastMath())
            mod = tvm.transform.Sequential(passes)(mod)
        """, detail="may skip FastMath (opt_level 4, when the list holds it: it is added on some paths only)"),
        Invalid(FOLD, """
            passes = [relay.transform.FoldConstant()]
            for p in extra:
                passes += [relay.transform.CombineParallelConv2D()]
            mod = tvm.transform.Sequential(passes)(mod)
        """, expect="may skip"),
        # a qconfig, a Target or an autotvm context held in a name is no PassContext either
        Invalid(FOLD, """
            qconfig = relay.quantize.qconfig(skip_conv_layers=[0], nbit_input=8)
            with qconfig:
                mod = relay.quantize.quantize(mod, params)
        """, expect="default context"),
        Invalid(FOLD, """
            target = tvm.target.Target('llvm')
            with target:
                mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="default context"),
        # entry points: pytest calls a test function (or a Test class's method) at the default context
        Invalid(FOLD, """
            import pytest
            @pytest.mark.parametrize('dtype', ['float32'])
            def test_fold(dtype, target):
                mod = relay.transform.FoldScaleAxis()(mod0)
        """, path="test_fold.py", detail="the test runner calls test_fold"),
        Invalid(FOLD, """
            @tvm.testing.requires_llvm
            def test_fold():
                mod = relay.transform.FoldScaleAxis()(mod0)
        """, path="test_fold.py", expect="opt_level 2"),
        Invalid(FOLD, """
            class TestFold:
                def test_fold(self):
                    mod = relay.transform.FoldScaleAxis()(mod0)
        """, path="fold_test.py", detail="test_fold"),
        Invalid(FOLD, """
            import unittest
            class Fold(unittest.TestCase):
                def test_fold(self):
                    mod = relay.transform.FoldScaleAxis()(mod0)
        """, path="test_fold.py", detail="test_fold"),
        # a helper of a test, called from the test
        Invalid(FOLD, """
            def fold(mod):
                return relay.transform.FoldScaleAxis()(mod)

            def test_fold():
                fold(mod0)
        """, path="test_fold.py", expect="when fold is called on line 7"),
        # quantize runs FoldScaleAxis under the caller's context
        Invalid(FOLD, """
            mod = relay.quantize.quantize(mod, params)
        """, expect="CanonicalizeOps"),
        # at 0.6 the advice and the fix spell the context 0.6 has
        Invalid(FOLD, """
            mod = relay.transform.FoldScaleAxis()(mod)
        """, target="0.6", detail="run it inside `with relay.build_config(opt_level=3):`", fixed="""
            with tvm.relay.build_config(opt_level=3):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # ... in a test too: a test skips the same passes a script does (v0.8.0:tests/python/relay/
        # test_pass_auto_quantize.py#L116, the calibrate tests)
        Invalid(FOLD, """
            def test_quantize():
                mod = relay.quantize.quantize(mod0, params)
        """, path="test_quantize.py", expect="CanonicalizeOps"),
        # running it again under a context, or asserting that the results differ, is not intent
        # (seed 002: the user did exactly that while asking whether the skip was expected)
        Invalid(FOLD, """
            seq = tvm.transform.Sequential([relay.transform.FoldConstant(), relay.transform.EliminateCommonSubexpr()])
            mod1 = seq(mod)
            with tvm.transform.PassContext(opt_level=3):
                mod2 = seq(mod)
            assert not tvm.ir.structural_equal(mod1, mod2)
        """, expect="EliminateCommonSubexpr (opt_level 3)"),
        # a comment that names the pass but does not say it is skipped is no word of intent
        Invalid(FOLD, """
            # fold the scales into the convolutions
            mod = relay.transform.FoldScaleAxis()(mod)
        """, expect="BackwardFoldScaleAxis"),
        # a pass the project defines itself, at level 3, inside a Sequential
        Invalid(FOLD, """
            @tvm.transform.module_pass(opt_level=3)
            def my_pass(mod, ctx):
                return mod

            mod = tvm.transform.Sequential([my_pass])(mod)
        """, expect="my_pass (opt_level 3)"),
        # FuseTIR's nested Sequentials are followed: ExpandTupleArguments holds CanonicalizeBindings
        Invalid("""
            import tvm
            from tvm import relax
            with tvm.transform.PassContext(opt_level=0):
                mod = relax.transform.FuseTIR()(mod)
        """, detail="CanonicalizeTIRVariables (opt_level 1, in CanonicalizeBindings)", target="0.27"),
        # relax at opt_level 0 skips the level-1 members of CanonicalizeBindings
        Invalid("""
            import tvm
            from tvm import relax
            with tvm.transform.PassContext(opt_level=0):
                mod = relax.transform.CanonicalizeBindings()(mod)
        """, expect="opt_level 0", target="0.27"),
        # runners derived from TVM's source (tools/runners_from_source.py): partition_for_tensorrt runs
        # ConvertLayout (level 3) under the caller's context since 0.10 (test_tensorrt.py's shape)
        Invalid("""
            import tvm
            from tvm.relay.op.contrib import tensorrt
            mod = tensorrt.partition_for_tensorrt(mod, params=params, target=trt_target)
        """, expect="ConvertLayout (opt_level 3)", target="0.12"),
        # partition_for_bnns runs FoldScaleAxis and AlterOpLayout the same way
        Invalid("""
            import tvm
            from tvm.relay.op.contrib.bnns import partition_for_bnns
            mod = partition_for_bnns(mod, params)
        """, expect="AlterOpLayout (opt_level 3)", target="0.18"),
        # an opt_level a parameter holds, as each visible call gives it (or its default)
        Invalid(FOLD, """
            def fold(mod, level=2):
                with tvm.transform.PassContext(opt_level=level):
                    return relay.transform.FoldScaleAxis()(mod)

            fold(m)
        """, expect="level=2 when fold is called on line 7, which keeps its default"),
        Invalid(FOLD, """
            def fold(mod, level):
                with tvm.transform.PassContext(opt_level=level):
                    return relay.transform.FoldScaleAxis()(mod)

            def main(m, opt=3):
                return fold(m, opt)

            main(m)
            main(m, opt=1)
        """, expect="at opt_level 1"),
        # an opt_level another module of the project sets (`from config import *`, `import config`)
        Invalid(FOLD, """
            from config import *
            with tvm.transform.PassContext(opt_level=OPT_LEVEL):
                mod = relay.transform.FoldScaleAxis()(mod)
        """, files={
            'config.py': """
                OPT_LEVEL = 2
            """,
        }, expect="set on line 4 from OPT_LEVEL = 2 in config.py:1"),
        Invalid(FOLD, """
            import settings

            def run(mod):
                with tvm.transform.PassContext(opt_level=settings.OPT):
                    return relay.transform.FoldScaleAxis()(mod)

            run(m)
        """, files={
            'settings.py': """
                OPT = 1
            """,
        }, expect="at opt_level 1"),
    ]

    def start(self) -> None:
        analysis = self.file.analysis
        for run in analysis.runs:
            if run.runner is not None and run.runner.report != self.code:
                continue
            if self.said_on_purpose(run):
                continue
            payload = GatedRunPayload(run.members, run.display, run.wrapper_name, self.file.knowledge.context_text)
            fix = None
            if isinstance(run.ctx, PassCtx) and run.ctx.is_default:
                skipped = gate(run.members, run.ctx)
                if skipped:
                    fix = self._wrap_fix(run.statement, max(s.member.opt_level for s in skipped))
            self.defer(run.node, run.ctx, payload, fix)

    def said_on_purpose(self, run) -> bool:
        def lines_of(node):
            if node not in self.file.positions:
                return None
            start, end = self.file.span(node)
            return start.line, end.line

        return said_on_purpose(run, self.file.lines, lines_of, self.file.analysis.harness)

    def _wrap_fix(self, statement, level: int) -> Optional[Fix]:
        file = self.file
        import_edit, possible = tvm_import_edit(
            file.module, file.analysis.module_scope().bindings, file.positions, file.lines
        )
        if not possible or statement is None:
            return None
        enter = f"{file.knowledge.context_fix}(opt_level={level})"
        wrap = wrap_in_with(file.module, statement, file.positions, file.lines, enter)
        if wrap is None:
            return None
        edits = (import_edit, wrap) if import_edit else (wrap,)
        return Fix(f"Run it inside `with {enter}:`", edits, safe=False)

    @classmethod
    def needs_level_below(cls, payload: GatedRunPayload) -> Optional[int]:
        # the gate skips a pass only under a level below the pass's own (nested ones included)
        return max((_highest(member) for member in payload.members), default=None)

    @classmethod
    def judge(cls, payload: GatedRunPayload, ctx: PassCtx) -> Optional[Said]:
        skipped = gate(payload.members, ctx)
        if not skipped:
            return None
        needed = max(s.member.opt_level for s in skipped)
        skipped_names = {s.member.name for s in skipped}
        listed = and_list(
            s.shown for s in skipped
        )
        ran = [
            leaf.shown
            for leaf in leaves(payload.members)
            if leaf.name not in skipped_names and leaf.name not in (ctx.disabled or ())
            and not any(s.member.children and leaf in s.member.children for s in skipped)
        ]
        outcome = f"only {and_list(ran)} {'runs' if len(ran) == 1 else 'run'}" if ran else "nothing runs"
        where = ctx.where
        if all(s.member.maybe for s in skipped):
            # every skipped member is in the list on some paths only: say what may happen
            outcome = "on those paths it does not run"
        skips = "may skip" if all(s.member.maybe for s in skipped) else "skips"
        message = f"{payload.display} {skips} {words.skipped(skipped)} at opt_level {ctx.opt_level} ({words.context_named(ctx)})"
        detail = (
            f"It runs its passes through a Sequential, whose opt_level gate {skips} {listed} at opt_level "
            f"{ctx.opt_level} ({where}): {outcome}. It needs opt_level {needed}: run it inside "
            f"`with {payload.enter}(opt_level={needed}):`."
        )
        if payload.wrapper and ctx.required and payload.wrapper in ctx.required:
            message += f", though required_pass names the wrapper '{payload.wrapper}'"
            detail += f" required_pass names the wrapper '{payload.wrapper}', but the gate checks each member's own name."
        return Said(message, detail)

    @classmethod
    def confirm(cls, finding: Finding, tvm: LiveTVM) -> Verdict:
        """The installed TVM's own levels and members put through the gate again at the finding's
        context; where it runs the pass, an instrumented run and a probe module say more."""
        from tvmlint.checks.confirmation import Verdict
        from tvmlint.checks.live_tree import LiveTree, flatten, levels

        facts = finding.facts or {}
        payload, ctx = facts.get("payload"), facts.get("ctx")
        if payload is None or not isinstance(ctx, PassCtx):
            return Verdict(None, "the finding carries no pass facts to check")
        target = tvm.target(finding)
        static_skipped = gate(payload.members, ctx) or []
        silent = tvm.cannot_speak(finding, [s.member.name for s in static_skipped])
        if silent:
            return silent
        live = LiveTree(tvm, target, payload.members)
        if live.missing:
            return Verdict(None, f"the installed {tvm.tvm} registers no pass named {and_list(sorted(set(live.missing)))}")
        tree, from_tvm = live.tree, live.from_tvm
        skipped = gate(tree, ctx)
        if skipped is None:
            return Verdict(None, "the active context is not fully known")
        by_tvm = [s.member for s in skipped if s.member.name in from_tvm]
        where = f"opt_level {ctx.opt_level}" + (f", required_pass {sorted(ctx.required)}" if ctx.required else "") + (
            f", disabled_pass {sorted(ctx.disabled)}" if ctx.disabled else ""
        )
        if skipped and not by_tvm:
            return Verdict(None, f"the skipped passes ({levels(s.member for s in skipped)}) are defined in the checked code, not registered in TVM")
        if not skipped:
            checked = [s.member.name for s in static_skipped]
            shown = levels(m for m in flatten(tree) if m.name in checked) or and_list(checked)
            return Verdict(
                False,
                f"the installed {tvm.tvm} registers {shown}: its gate runs them at {where}; "
                "the table in rules/ is wrong here (`tvmlint registry --verify` lists the difference)",
            )
        reason = f"the installed {tvm.tvm} registers {levels(by_tvm)}: its Sequential gate skips them at {where}"
        unmentioned = sorted({m.name for m in by_tvm} - {s.member.name for s in static_skipped})
        if unmentioned:  # nested members the table does not gate on their own
            reason += f" ({and_list(unmentioned)} beyond what the message names)"
        ran_anyway, note = _instrument_note(tvm, payload, ctx, [m.name for m in by_tvm], where)
        if ran_anyway:
            return Verdict(False, note)
        return Verdict(True, reason + note + _probe_note(tvm, payload, ctx, max(m.opt_level for m in by_tvm), target))


def _highest(member: Gated) -> int:
    return max([member.opt_level, *(_highest(child) for child in member.children)])


# -- check --confirm: what more the installed TVM can show than its registry --------------------
def _instrumented_subject(tvm: LiveTVM, payload: GatedRunPayload) -> Tuple[Optional[str], List[str]]:
    """What to run instrumented for a finding: the wrapper's API path, or the API paths of the members of a
    Sequential the checked code builds (when each is a pass constructor of the installed TVM); else nothing."""
    wrapper = getattr(payload, "wrapper", None)
    if wrapper:
        live = tvm.by_name.get(wrapper)
        api = next((p.api for p in tvm.passes if p.api and not p.error and p.name == wrapper), None)
        return (api, []) if live is not None and api else (None, [])
    apis = []
    for member in payload.members:
        if member.label == "Sequential":
            return None, []
        api = next((p.api for p in tvm.passes if p.api and not p.error and p.name == member.name), None)
        if api is None:
            return None, []
        apis.append(api)
    return None, apis


def _instrument_note(tvm: LiveTVM, payload: GatedRunPayload, ctx: PassCtx, expected: List[str],
                     where: str) -> Tuple[bool, str]:
    """(whether the run contradicts the gate, what to add to the reason): the pass run on tvmlint's own small
    module under a PassInstrument at the finding's context, as `tvmlint registry --pipeline` runs it."""
    from tvmlint.checks.confirmation import NoAnswer

    api, members = _instrumented_subject(tvm, payload)
    if api is None and not members:
        return False, ""
    try:
        run = tvm.instrumented(api, members, ctx)
    except NoAnswer as error:
        return False, f" (the instrumented run failed: {error})"
    seen_skipped = set(run.skipped_names())
    ran = {row["name"] for row in run.ran()}
    resolved = run.resolved
    shown = resolved if resolved.startswith("tvm.transform.") else resolved.replace("tvm.", "", 1)
    contradicted = sorted(set(expected) & ran - seen_skipped)
    if contradicted:
        return True, (
            f"an instrumented run of {shown} in the installed {tvm.tvm} at {where} ran {and_list(contradicted)}: "
            "the gate does not skip them here"
        )
    confirmed = [name for name in dict.fromkeys(expected) if name in seen_skipped]
    if not confirmed:
        return False, ""
    return False, (
        f"; an instrumented run of {shown} (`tvmlint registry --pipeline`) skipped {and_list(confirmed)}: "
        "a PassInstrument never saw them start"
    )


def _probe_note(tvm: LiveTVM, payload: GatedRunPayload, ctx: PassCtx, needed: int, target: Optional[Version]) -> str:
    from tvmlint.checks.confirmation import NoAnswer
    from tvmlint.knowledge.target import get_knowledge

    wrapper = getattr(payload, "wrapper", None)
    spec = get_knowledge(target).passes_by_name.get(wrapper) if (wrapper and target) else None
    api = next((a for a in (spec.api if spec else ()) if tvm.can_probe(a)), None)
    if api is None:
        return ""
    try:
        at_active, at_needed = tvm.probe(api, ctx, [ctx.opt_level, needed])
    except NoAnswer as error:
        return f" (the probe run failed: {error})"
    short = api.replace("tvm.", "", 1)
    if not at_active and at_needed:
        return (
            f"; a real run of {short} on a probe module leaves it unchanged at opt_level {ctx.opt_level} "
            f"and changes it at opt_level {needed}"
        )
    return (
        f"; a real run of {short} on a probe module was {'changed' if at_active else 'unchanged'} at opt_level "
        f"{ctx.opt_level} and {'changed' if at_needed else 'unchanged'} at {needed}, which shows nothing either way"
    )
