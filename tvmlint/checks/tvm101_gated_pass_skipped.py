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
from tvmlint.checks.rule import Case, Rule

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
        Case("from parameters import Process\n\ndef main():\n    proc = Process(mod)\n"
             "    with tvm.transform.PassContext(opt_level=3):\n        proc.quantize()\n\n"
             "if __name__ == '__main__':\n    main()\n", path="quant/tvm/quantize_tvm.py",
             files={"quant/tvm/__init__.py": "",
                    "quant/tvm/parameters.py": FOLD + "class Process:\n    def __init__(self, mod):\n        self.mod = mod\n\n"
                    "    def quantize(self):\n        with relay.quantize.qconfig(global_scale=8.0):\n"
                    "            return relay.quantize.quantize(self.mod, None)\n"}, target="0.14"),
        # a function pass called directly always runs, whatever its level
        FOLD + "mod = relay.transform.CanonicalizeOps()(mod)\n",
        FOLD + "mod = relay.transform.FoldConstant()(mod)\n",
        FOLD + "mod = relay.transform.AlterOpLayout()(mod)\n",
        FOLD + "with tvm.transform.PassContext(opt_level=3):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        FOLD + "with relay.build_config(opt_level=3):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        FOLD + "ctx = tvm.transform.PassContext(opt_level=3)\nwith ctx:\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        # the level is not a literal: no guessing
        FOLD + "with tvm.transform.PassContext(opt_level=level):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        # members named in required_pass run
        FOLD + "with tvm.transform.PassContext(required_pass=['BackwardFoldScaleAxis', 'ForwardFoldScaleAxis']):\n"
        "    mod = relay.transform.FoldScaleAxis()(mod)\n",
        # the code's own words say the skip is shown on purpose (v0.12.0:gallery/how_to/extend_tvm/
        # use_pass_infra.py#L142-L162: the text after the cell explains it)
        FOLD + "seq = tvm.transform.Sequential([relay.transform.FoldConstant(), relay.transform.EliminateCommonSubexpr()])\n"
        "mod1 = seq(mod)\nprint(mod1)\n\n####\n# there are still two identical additions: EliminateCommonSubexpr\n"
        "# was not actually performed, since only passes of optimization level <= 2 run by default\n"
        "with tvm.transform.PassContext(opt_level=3):\n    mod2 = seq(mod)\n",
        FOLD + "# FoldScaleAxis is skipped at the default opt_level: we compare with the folded module below\n"
        "unfolded = relay.transform.FoldScaleAxis()(mod)\n",
        # a name bound twice (here, once more after the function) is not fixed: no guessing
        FOLD + "OPT = 2\ndef run(mod):\n    with tvm.transform.PassContext(opt_level=OPT):\n"
        "        return relay.transform.FoldScaleAxis()(mod)\nOPT = 3\nrun(mod0)\n",
        FOLD + "OPT = 2\ndef setup():\n    global OPT\n    OPT = 3\n"
        "with tvm.transform.PassContext(opt_level=OPT):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        FOLD + "def run(mod, fast):\n    level = 2\n    if fast:\n        level = 3\n"
        "    with tvm.transform.PassContext(opt_level=level):\n        return relay.transform.FoldScaleAxis()(mod)\nrun(m, f)\n",
        FOLD + "OPT = 3\nwith tvm.transform.PassContext(opt_level=OPT):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        # a local name that looks like TVM's is not TVM's
        "class relay:\n    class transform:\n        FoldScaleAxis = object\n"
        "mod = relay.transform.FoldScaleAxis()(mod)\n",
        "def run(relay, mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        # a helper whose every caller enters opt_level 3
        FOLD + "def fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n"
        "with tvm.transform.PassContext(opt_level=3):\n    mod = fold(mod)\n",
        # tests that a decorator or fixture may run under a context of their own: unknown
        Case(FOLD + "import pytest\n@pytest.fixture\ndef opt3():\n    with tvm.transform.PassContext(opt_level=3):\n"
             "        yield\ndef test_fold(opt3):\n    mod = relay.transform.FoldScaleAxis()(mod0)\n",
             path="test_fold.py"),
        Case(FOLD + "from helpers import with_opt3\n@with_opt3\ndef test_fold():\n"
             "    mod = relay.transform.FoldScaleAxis()(mod0)\n", path="test_fold.py"),
        Case(FOLD + "def test_fold(conftest_fixture):\n    mod = relay.transform.FoldScaleAxis()(mod0)\n",
             path="test_fold.py"),
        # a test function in a file pytest does not collect, that a fixture could fill or that the
        # module calls itself, is a helper like any other
        FOLD + "def test_fold(mod0):\n    mod = relay.transform.FoldScaleAxis()(mod0)\n",
        FOLD + "def test_fold():\n    mod = relay.transform.FoldScaleAxis()(mod0)\n\n"
        "with tvm.transform.PassContext(opt_level=3):\n    test_fold()\n",
        # a test class with a set-up method may enter a context around each test
        Case(FOLD + "class TestFold:\n    def setup_method(self):\n        self.ctx = tvm.transform.PassContext(opt_level=3)\n"
             "        self.ctx.__enter__()\n    def test_fold(self):\n        mod = relay.transform.FoldScaleAxis()(mod0)\n",
             path="test_fold.py"),
        # a list made and grown in one branch, run in that branch: certain there, and run at level 3
        FOLD + "if fold:\n    passes = [relay.transform.FoldConstant()]\n"
        "    passes.append(relay.transform.FoldScaleAxis())\n    with tvm.transform.PassContext(opt_level=3):\n"
        "        mod = tvm.transform.Sequential(passes)(mod)\n",
        # appended in a function to a module's list: not followed into the module's value
        FOLD + "PASSES = [relay.transform.FoldConstant()]\ndef add():\n    PASSES.append(relay.transform.AlterOpLayout())\n"
        "mod = tvm.transform.Sequential(PASSES)(mod)\n",
        # a pass added under an `if` that the context runs anyway
        FOLD + "passes = [relay.transform.FoldConstant()]\nif fast:\n    passes.append(relay.transform.FastMath())\n"
        "with tvm.transform.PassContext(opt_level=4):\n    mod = tvm.transform.Sequential(passes)(mod)\n",
        # a helper with no visible caller has an unknown context
        FOLD + "def fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        # a codegen hook TVM calls from inside relay.build
        FOLD + "@tvm.register_func('relay.ext.mine.optimize')\ndef hook(mod):\n"
        "    return relay.transform.FoldScaleAxis()(mod)\n",
        # a context handed in by the caller, or chosen on two paths: not seen, not judged
        FOLD + "def run(mod, ctx):\n    with ctx:\n        return relay.transform.FoldScaleAxis()(mod)\n\n"
        "run(mod, tvm.transform.PassContext(opt_level=3))\n",
        FOLD + "if fast:\n    ctx = tvm.transform.PassContext(opt_level=3)\nelse:\n"
        "    ctx = tvm.transform.PassContext(opt_level=2)\nwith ctx:\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        FOLD + "from settings import BUILD_CONTEXT\nwith BUILD_CONTEXT:\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        # a function handed on and kept (a partial, a registry's value) or handed to TVM (which may
        # call it inside a pass, under that pass's context): its context is not seen
        FOLD + "import functools\ndef main(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n"
        "run = functools.partial(main, mod)\nwith tvm.transform.PassContext(opt_level=3):\n    run()\n",
        FOLD + "def main(mod, ctx):\n    return relay.transform.FoldScaleAxis()(mod)\n\n"
        "tvm.transform.module_pass(main, opt_level=0)\n",
        # ... and one handed to a runner inside a context runs under it
        FOLD + "def main(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n"
        "with tvm.transform.PassContext(opt_level=3):\n    invoke_main(main, 'mod')\n",
        # ... and the same star import, called inside a context
        Case("import tvm\nfrom q_utils import *\nwith tvm.transform.PassContext(opt_level=3):\n    mod = quantize(mod, params)\n",
             files={"q_utils.py": FOLD + "def quantize(mod, params):\n    with relay.quantize.qconfig(global_scale=8.0):\n"
                    "        return relay.quantize.quantize(mod, params)\n"}, target="0.7"),
        # ... the same method called inside a context; and an object of the project entered with
        # `with` may be a context manager that enters a PassContext: not seen, not judged
        Case("import tvm\nfrom process import Process\nproc = Process(mod)\nwith tvm.transform.PassContext(opt_level=3):\n    proc.run()\n",
             files={"process.py": FOLD + "class Process:\n    def __init__(self, mod):\n        self.mod = mod\n\n"
                    "    def run(self):\n        with relay.quantize.qconfig(global_scale=8.0):\n"
                    "            return relay.quantize.quantize(self.mod, None)\n"}, target="0.14"),
        FOLD + "class Build:\n    def __enter__(self):\n        self.ctx = tvm.transform.PassContext(opt_level=3)\n"
        "        return self.ctx.__enter__()\n\n    def __exit__(self, *a):\n        self.ctx.__exit__(*a)\n\n"
        "env = Build()\nwith env:\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        # a module-level test function the script itself calls, inside a context: not a runner's entry
        Case(FOLD + "def verify(mod):\n    return tvm.transform.Sequential([relay.transform.EliminateCommonSubexpr()])(mod)\n\n"
             "def test_resnet18():\n    verify(mod)\n\nwith tvm.transform.PassContext(opt_level=3):\n    test_resnet18()\n",
             path="integration_tests.py", target="0.8"),
        # relax at the default level: nothing built in is above level 1
        "import tvm\nfrom tvm import relax\nmod = relax.transform.CanonicalizeBindings()(mod)\n",
        # a Sequential whose members are all at level 0 runs them at any level from 0
        Case("import tvm\nmod = tvm.tirx.transform.LowerTIRx()(mod)\n", target="0.27"),
        # a level below 0 skips every member: TVM303 reports that level, and what it skips
        FOLD + "with tvm.transform.PassContext(opt_level=-1):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        # the relay table does not apply to 0.27, where relay is gone (TVM201 says so)
        Case(FOLD + "mod = relay.transform.FoldScaleAxis()(mod)\n", target="0.27"),
        # partition_for_tensorrt (a runner rules/runners.toml derives from TVM's source) under opt_level 3
        Case("import tvm\nfrom tvm.relay.op.contrib import tensorrt\nwith tvm.transform.PassContext(opt_level=3):\n"
             "    mod = tensorrt.partition_for_tensorrt(mod, params=params, target=trt_target)\n", target="0.12"),
        # ... and at 0.9, when it still entered its own PassContext(opt_level=3)
        Case("import tvm\nfrom tvm.relay.op.contrib import tensorrt\n"
             "mod, config = tensorrt.partition_for_tensorrt(mod, params=params)\n", target="0.9"),
        # ... but a visible caller's context wins: it is called inside PassContext(opt_level=3)
        Case(FOLD + "class Optimizer:\n    def optimize(self, mod, params):\n        mod = self._quantize(mod, params)\n"
             "        with tvm.transform.PassContext(opt_level=3):\n            return relay.build(mod, 'llvm', params=params)\n\n"
             "    @staticmethod\n    def _quantize(mod, params):\n        with relay.quantize.qconfig(global_scale=8.0):\n"
             "            return relay.quantize.quantize(mod, params)\n\n"
             "opt = Optimizer()\nwith tvm.transform.PassContext(opt_level=3):\n    opt.optimize(m, p)\n", target="0.9"),
        # TVM's own functions are API: callers give them their contexts
        Case("import tvm\nfrom tvm import relay\n\ndef quantize(mod, params):\n    mod = relay.transform.FoldScaleAxis()(mod)\n"
             "    with tvm.transform.PassContext(opt_level=3):\n        return relay.build(mod, 'llvm')\n",
             path="tvm/relay/myquant.py", files={"tvm/__init__.py": "", "tvm/relay/__init__.py": ""}, target="0.9"),
        # an opt_level a parameter holds: the callers give 3, or nothing calls the function (unknown)
        Case(FOLD + "def fold(mod, level):\n    with tvm.transform.PassContext(opt_level=level):\n"
             "        return relay.transform.FoldScaleAxis()(mod)\n\nfold(m, 3)\nfold(m, level=3)\n"),
        FOLD + "def fold(mod, level=2):\n    with tvm.transform.PassContext(opt_level=level):\n"
        "        return relay.transform.FoldScaleAxis()(mod)\n",
        # ... a call whose level the `if` around the context turns away does not reach it
        FOLD + "def fold(mod, level):\n    if level >= 3:\n        with tvm.transform.PassContext(opt_level=level):\n"
        "            return relay.transform.FoldScaleAxis()(mod)\n    return mod\n\nfold(m, 3)\nfold(m, 1)\n",
        # ... a parameter the function sets again is no longer what the callers gave
        FOLD + "def fold(mod, level=2):\n    level = 3\n    with tvm.transform.PassContext(opt_level=level):\n"
        "        return relay.transform.FoldScaleAxis()(mod)\n\nfold(m)\n",
        # an opt_level another module of the project sets high enough
        Case(FOLD + "from config import *\nwith tvm.transform.PassContext(opt_level=OPT_LEVEL):\n"
             "    mod = relay.transform.FoldScaleAxis()(mod)\n", files={"config.py": "OPT_LEVEL = 3\n"}),
        # ... or sets twice: not one value
        Case(FOLD + "from config import OPT_LEVEL\nwith tvm.transform.PassContext(opt_level=OPT_LEVEL):\n"
             "    mod = relay.transform.FoldScaleAxis()(mod)\n",
             files={"config.py": "OPT_LEVEL = 2\nif fast:\n    OPT_LEVEL = 3\n"}),
    ]

    INVALID = [
        Case(
            FOLD + "mod = relay.transform.FoldScaleAxis()(mod)\n",
            expect="BackwardFoldScaleAxis and ForwardFoldScaleAxis (opt_level 3)",
            fixed=FOLD + "with tvm.transform.PassContext(opt_level=3):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
        ),
        # aliases of every shape
        Case("import tvm.relay as rl\nmod = rl.transform.FoldScaleAxis()(mod)\n", expect="opt_level 2"),
        Case("from tvm.relay import transform as T\nmod = T.FoldScaleAxis()(mod)\n", expect="ForwardFoldScaleAxis"),
        Case(
            "from tvm.relay.transform import FoldScaleAxis as F\nmod = F()(mod)\n",
            detail="only FoldConstant runs",
            fixed="from tvm.relay.transform import FoldScaleAxis as F\nimport tvm\n"
            "with tvm.transform.PassContext(opt_level=3):\n    mod = F()(mod)\n",
        ),
        # the same function pass that runs directly is skipped inside a Sequential
        Case(FOLD + "seq = tvm.transform.Sequential([relay.transform.CanonicalizeOps()])\nmod = seq(mod)\n",
             expect="CanonicalizeOps (opt_level 3)"),
        Case(FOLD + "seq = tvm.ir.transform.Sequential([relay.transform.FoldScaleAxis()])\nmod = seq(mod)\n",
             expect="BackwardFoldScaleAxis"),
        # lists and pass objects held in variables
        Case(FOLD + "passes = [relay.transform.AlterOpLayout(), relay.transform.FoldConstant()]\n"
             "mod = tvm.transform.Sequential(passes)(mod)\n", expect="AlterOpLayout (opt_level 3)"),
        Case(FOLD + "p = relay.transform.FoldScaleAxis()\nmod = p(mod)\n", expect="FoldScaleAxis"),
        # an explicit context that is too low, and nesting (innermost wins)
        Case(FOLD + "with tvm.transform.PassContext(opt_level=2):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
             detail="PassContext(opt_level=2)"),
        Case(FOLD + "with tvm.transform.PassContext(opt_level=3):\n"
             "    with tvm.transform.PassContext(opt_level=1):\n        mod = relay.transform.FoldScaleAxis()(mod)\n",
             expect="opt_level 1"),
        Case(FOLD + "import contextlib\nwith contextlib.suppress(Exception), tvm.transform.PassContext(opt_level=2):\n"
             "    mod = relay.transform.FoldScaleAxis()(mod)\n", expect="opt_level 2"),
        # a `with` that is plainly not a PassContext does not hide the default
        Case(FOLD + "with open('log.txt', 'w') as log:\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
             expect="default context"),
        Case(FOLD + "with tvm.target.Target('llvm'):\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
             expect="default context"),
        # linear reassignment is followed: the second context is the one entered
        Case(FOLD + "ctx = tvm.transform.PassContext(opt_level=3)\nwith ctx:\n    a = relay.transform.FoldScaleAxis()(mod)\n"
             "ctx = tvm.transform.PassContext(opt_level=2)\nwith ctx:\n    b = relay.transform.FoldScaleAxis()(mod)\n",
             detail="PassContext(opt_level=2) on line 6"),
        # required_pass names the wrapper, which the gate does not look at for members
        Case(FOLD + "with tvm.transform.PassContext(required_pass=['FoldScaleAxis']):\n"
             "    mod = relay.transform.FoldScaleAxis()(mod)\n", expect="names the wrapper"),
        # BatchingOps is a no-op below level 4
        Case(FOLD + "mod = relay.transform.BatchingOps()(mod)\n", detail="nothing runs"),
        # PassContext.current() outside any with is the default context
        Case(FOLD + "with tvm.transform.PassContext.current():\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
             expect="default"),
        # a helper called once inside and once outside a context
        Case(FOLD + "def fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n"
             "with tvm.transform.PassContext(opt_level=3):\n    good = fold(mod)\nbad = fold(mod)\n",
             expect="when fold is called on line"),
        # (issue #28) a script's main handed to a runner as a statement of its own runs there, under
        # no context (uwsampl/relay-bench experiments/relay_to_vta/run.py: invoke_main(main, ...)
        # runs build_model's relay.quantize.quantize under only a qconfig)
        Case(FOLD + "def build_model(mod, params):\n    with relay.quantize.qconfig(global_scale=8.0):\n"
             "        return relay.quantize.quantize(mod, params=params)\n\n"
             "def main(config_dir):\n    return build_model(load(config_dir), None)\n\n"
             "if __name__ == '__main__':\n    invoke_main(main, 'config_dir')\n", target="0.6",
             expect="when main is called on line 11"),
        # (issue #28) a file of test functions run by naming it to pytest (AndrewZhaoLuo/TVM-Sandbox
        # fp16_pass/integration_tests.py): nothing calls its tests, so a test runner does, and the
        # helper they call runs at the default context
        Case(FOLD + "def test_fold():\n    mod = relay.transform.FoldScaleAxis()(mod0)\n",
             detail="nothing in the checked code calls test_fold"),
        Case(FOLD + "def verify(mod):\n    return tvm.transform.Sequential([relay.transform.EliminateCommonSubexpr()])(mod)\n\n"
             "def test_resnet18():\n    verify(mod)\n", path="integration_tests.py", target="0.8",
             expect="when verify is called on line 7"),
        # (issue #28) a project function reached through a star import (kalyan416/nn_tvm
        # tutorials/frontend/test_nano.py: `from torch_q_utils import *`, then quantize(...) at
        # module level, whose relay.quantize.quantize runs under only a qconfig)
        Case("from q_utils import *\nmod = quantize(mod, params)\n",
             files={"q_utils.py": FOLD + "def quantize(mod, params):\n    with relay.quantize.qconfig(global_scale=8.0):\n"
                    "        return relay.quantize.quantize(mod, params)\n"}, target="0.7",
             expect="when q_utils.quantize is called from case.py:2"),
        # (issue #28) a method reached through an instance of a project class, from another module
        # (itlab-vision/dl-benchmark src/quantization/tvm: proc = TVMQuantizationProcess(...);
        # proc.quantization_tvm() from main, whose relay.quantize.quantize runs under a qconfig only)
        Case("from process import Process\n\ndef main():\n    proc = Process(mod)\n    proc.run()\n\nmain()\n",
             files={"process.py": FOLD + "class Process:\n    def __init__(self, mod):\n        self.mod = mod\n\n"
                    "    def quantize(self):\n        with relay.quantize.qconfig(global_scale=8.0):\n"
                    "            return relay.quantize.quantize(self.mod, None)\n\n"
                    "    def run(self):\n        return self.quantize()\n"}, target="0.14",
             detail="when process.Process.run is called from case.py:5"),
        # (issue #28) a module named by another name than its own. A script's sibling, in a folder
        # that is a package named `tvm` (itlab-vision/dl-benchmark src/quantization/tvm:
        # `from parameters import TVMQuantizationProcess` in quantization_tvm.py, whose module name
        # is tvm.parameters), and a zero-argument call of the script's own main:
        Case("from parameters import Process\n\ndef main():\n    proc = Process(mod)\n    proc.quantize()\n\n"
             "if __name__ == '__main__':\n    main()\n", path="quant/tvm/quantize_tvm.py",
             files={"quant/tvm/__init__.py": "", "quant/parameters.py": "class Process:\n    pass\n",
                    "quant/tvm/parameters.py": FOLD + "class Process:\n    def __init__(self, mod):\n        self.mod = mod\n\n"
                    "    def quantize(self):\n        with relay.quantize.qconfig(global_scale=8.0):\n"
                    "            return relay.quantize.quantize(self.mod, None)\n"}, target="0.14",
             detail="when tvm.parameters.Process.quantize is called from quant/tvm/quantize_tvm.py:5"),
        # a namespace package, a folder with no __init__.py (luludak/MutateNN:
        # `from mutators.generators import model as model_generator` in main.py)
        Case("from mutators.generators import model as gen\nmod = gen.mutate(mod)\n",
             files={"mutators/__init__.py": "",
                    "mutators/generators/model.py": FOLD + "def mutate(mod):\n"
                    "    return tvm.transform.Sequential([relay.transform.ConvertLayout({})])(mod)\n"}, target="0.13",
             expect="when model.mutate is called from case.py:2"),
        # (issue #28) a method nothing in the checked code calls, which enters a PassContext of
        # its own for the build: what it runs outside that `with` runs at the default level, and
        # a staticmethod is still the project's own function (nebuly-ai/nebullvm
        # optimizers/tvm.py: _quantize before `with PassContext(opt_level=3)` around relay.build)
        Case(FOLD + "class Optimizer:\n    def optimize(self, mod, params):\n        mod = self._quantize(mod, params)\n"
             "        with tvm.transform.PassContext(opt_level=3):\n            return relay.build(mod, 'llvm', params=params)\n\n"
             "    @staticmethod\n    def _quantize(mod, params):\n        with relay.quantize.qconfig(global_scale=8.0):\n"
             "            return relay.quantize.quantize(mod, params)\n", target="0.9",
             detail="nothing in the checked code calls optimize, which enters a PassContext of its own on line 6"),
        # a package's inner name, as a script run from inside the project imports it
        # (anijain2305/tvm_autoq: `from common.quantize_helper import quantize` in mxnet/test.py,
        # whose root folder has an __init__.py, so the helper's module is tvm_autoq.common.quantize_helper)
        Case("from common.helper import fold\nmod = fold(mod)\n", path="proj/scripts/run.py",
             files={"proj/__init__.py": "", "proj/common/__init__.py": "",
                    "proj/common/helper.py": FOLD + "def fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n"},
             expect="when proj.common.helper.fold is called from proj/scripts/run.py:2"),
        # two scripts of one name in two folders (tvmt/tune.py, arm/tune.py: both module `tune`): a
        # call inside one of them is to its own function
        Case("", files={
            "tvmt/tune.py": FOLD + "def get_tasks(mod):\n    return relay.quantize.quantize(mod, params)\n\nget_tasks(m)\n",
            "arm/tune.py": FOLD + "def get_tasks(mod):\n    with tvm.transform.PassContext(opt_level=3):\n"
            "        return relay.quantize.quantize(mod, params)\n\nget_tasks(m)\n",
        }, expect="when get_tasks is called on line 6"),
        # ... and across modules
        Case(
            "from helpers import fold\nmod = fold(mod)\n",
            files={"helpers.py": FOLD + "def fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n"},
            expect="when helpers.fold is called from",
        ),
        # values the code fixes once: a module constant, a local assigned once, a pass list in a name
        Case(FOLD + "OPT_LEVEL = 2\n\ndef run(mod):\n    with tvm.transform.PassContext(opt_level=OPT_LEVEL):\n"
             "        return relay.transform.FoldScaleAxis()(mod)\n\nrun(mod0)\n", detail="opt_level=OPT_LEVEL"),
        Case(FOLD + "def run(mod):\n    level = 1\n    with tvm.transform.PassContext(opt_level=level):\n"
             "        return relay.transform.FoldScaleAxis()(mod)\n\nrun(mod0)\n", expect="at opt_level 1"),
        Case(FOLD + "KEEP = ['ForwardFoldScaleAxis']\nwith tvm.transform.PassContext(required_pass=KEEP):\n"
             "    mod = relay.transform.FoldScaleAxis()(mod)\n", expect="BackwardFoldScaleAxis"),
        Case("import tvm\nfrom tvm import relax\nLEVEL = 0\nwith tvm.transform.PassContext(opt_level=LEVEL):\n"
             "    mod = relax.transform.CanonicalizeBindings()(mod)\n", expect="opt_level 0", target="0.27"),
        # a pass list that only grows keeps its first passes (renesas-rz/rzv_drp-ai_tvm,
        # tutorials/compile_cpu_only_onnx_model.py: the list is extended under an `if`)
        Case(FOLD + "passes = [relay.transform.FoldConstant(), relay.transform.AlterOpLayout()]\n"
             "if use_fp16:\n    passes += [relay.transform.ToMixedPrecision()]\n"
             "mod = tvm.transform.Sequential(passes)(mod)\n", expect="AlterOpLayout (opt_level 3)"),
        # pass lists built step by step: append, extend, insert, `+` (the shapes of users' fq2i and
        # fp16 scripts: `passes = []`, then one `passes.append(...)` per pass, then Sequential(passes))
        Case(FOLD + "passes = []\npasses.append(relay.transform.InferType())\n"
             "passes.append(relay.transform.EliminateCommonSubexpr())\nseq = tvm.transform.Sequential(passes)\n"
             "mod = seq(mod)\n", expect="skips EliminateCommonSubexpr (opt_level 3)"),
        Case(FOLD + "passes = [relay.transform.InferType()]\npasses.extend([relay.transform.CombineParallelDense()])\n"
             "mod = tvm.transform.Sequential(passes)(mod)\n", expect="CombineParallelDense (opt_level 4)"),
        Case(FOLD + "passes = [relay.transform.FoldConstant()]\npasses.insert(0, relay.transform.CanonicalizeOps())\n"
             "mod = tvm.transform.Sequential(passes)(mod)\n", expect="CanonicalizeOps (opt_level 3)"),
        Case(FOLD + "base = [relay.transform.FoldConstant()]\npasses = base + [relay.transform.AlterOpLayout()]\n"
             "mod = tvm.transform.Sequential(passes)(mod)\n", expect="AlterOpLayout (opt_level 3)"),
        # two pass lists in names, added: not a constant of pass names
        Case(FOLD + "common = [relay.transform.FoldConstant()]\nextra = [relay.transform.AlterOpLayout()]\n"
             "passes = common + extra\nmod = tvm.transform.Sequential(passes)(mod)\n", expect="AlterOpLayout (opt_level 3)"),
        # ... in a function, where the list is made: every path
        Case(FOLD + "def optimize(mod):\n    passes = []\n    passes.append(relay.transform.FoldConstant())\n"
             "    passes.append(relay.transform.EliminateCommonSubexpr())\n"
             "    return tvm.ir.transform.Sequential(passes)(mod)\n\noptimize(m)\n",
             expect="when optimize is called on line"),
        # added under an `if` only: the gate may skip it, and the message says so
        Case(FOLD + "passes = [relay.transform.FoldConstant()]\nif fast:\n"
             "    passes.append(relay.transform.FastMath())\nmod = tvm.transform.Sequential(passes)(mod)\n",
             detail="may skip FastMath (opt_level 4, when the list holds it: it is added on some paths only)"),
        Case(FOLD + "passes = [relay.transform.FoldConstant()]\nfor p in extra:\n"
             "    passes += [relay.transform.CombineParallelConv2D()]\nmod = tvm.transform.Sequential(passes)(mod)\n",
             expect="may skip"),
        # a qconfig, a Target or an autotvm context held in a name is no PassContext either
        Case(FOLD + "qconfig = relay.quantize.qconfig(skip_conv_layers=[0], nbit_input=8)\nwith qconfig:\n"
             "    mod = relay.quantize.quantize(mod, params)\n", expect="default context"),
        Case(FOLD + "target = tvm.target.Target('llvm')\nwith target:\n    mod = relay.transform.FoldScaleAxis()(mod)\n",
             expect="default context"),
        # entry points: pytest calls a test function (or a Test class's method) at the default context
        Case(FOLD + "import pytest\n@pytest.mark.parametrize('dtype', ['float32'])\ndef test_fold(dtype, target):\n"
             "    mod = relay.transform.FoldScaleAxis()(mod0)\n", path="test_fold.py", detail="the test runner calls test_fold"),
        Case(FOLD + "@tvm.testing.requires_llvm\ndef test_fold():\n    mod = relay.transform.FoldScaleAxis()(mod0)\n",
             path="test_fold.py", expect="opt_level 2"),
        Case(FOLD + "class TestFold:\n    def test_fold(self):\n        mod = relay.transform.FoldScaleAxis()(mod0)\n",
             path="fold_test.py", detail="test_fold"),
        Case(FOLD + "import unittest\nclass Fold(unittest.TestCase):\n    def test_fold(self):\n"
             "        mod = relay.transform.FoldScaleAxis()(mod0)\n", path="test_fold.py", detail="test_fold"),
        # a helper of a test, called from the test
        Case(FOLD + "def fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\ndef test_fold():\n    fold(mod0)\n",
             path="test_fold.py", expect="when fold is called on line 7"),
        # quantize runs FoldScaleAxis under the caller's context
        Case(FOLD + "mod = relay.quantize.quantize(mod, params)\n", expect="CanonicalizeOps"),
        # at 0.6 the advice and the fix spell the context 0.6 has
        Case(FOLD + "mod = relay.transform.FoldScaleAxis()(mod)\n", target="0.6",
             detail="run it inside `with relay.build_config(opt_level=3):`",
             fixed=FOLD + "with tvm.relay.build_config(opt_level=3):\n    mod = relay.transform.FoldScaleAxis()(mod)\n"),
        # ... in a test too: a test skips the same passes a script does (v0.8.0:tests/python/relay/
        # test_pass_auto_quantize.py#L116, the calibrate tests)
        Case(FOLD + "def test_quantize():\n    mod = relay.quantize.quantize(mod0, params)\n", path="test_quantize.py",
             expect="CanonicalizeOps"),
        # running it again under a context, or asserting that the results differ, is not intent
        # (seed 002: the user did exactly that while asking whether the skip was expected)
        Case(FOLD + "seq = tvm.transform.Sequential([relay.transform.FoldConstant(), relay.transform.EliminateCommonSubexpr()])\n"
             "mod1 = seq(mod)\nwith tvm.transform.PassContext(opt_level=3):\n    mod2 = seq(mod)\n"
             "assert not tvm.ir.structural_equal(mod1, mod2)\n", expect="EliminateCommonSubexpr (opt_level 3)"),
        # a comment that names the pass but does not say it is skipped is no word of intent
        Case(FOLD + "# fold the scales into the convolutions\nmod = relay.transform.FoldScaleAxis()(mod)\n",
             expect="BackwardFoldScaleAxis"),
        # a pass the project defines itself, at level 3, inside a Sequential
        Case(FOLD + "@tvm.transform.module_pass(opt_level=3)\ndef my_pass(mod, ctx):\n    return mod\n\n"
             "mod = tvm.transform.Sequential([my_pass])(mod)\n", expect="my_pass (opt_level 3)"),
        # FuseTIR's nested Sequentials are followed: ExpandTupleArguments holds CanonicalizeBindings
        Case("import tvm\nfrom tvm import relax\nwith tvm.transform.PassContext(opt_level=0):\n"
             "    mod = relax.transform.FuseTIR()(mod)\n", detail="CanonicalizeTIRVariables (opt_level 1, in CanonicalizeBindings)",
             target="0.27"),
        # relax at opt_level 0 skips the level-1 members of CanonicalizeBindings
        Case("import tvm\nfrom tvm import relax\nwith tvm.transform.PassContext(opt_level=0):\n"
             "    mod = relax.transform.CanonicalizeBindings()(mod)\n", expect="opt_level 0", target="0.27"),
        # runners derived from TVM's source (tools/runners_from_source.py): partition_for_tensorrt runs
        # ConvertLayout (level 3) under the caller's context since 0.10 (test_tensorrt.py's shape)
        Case("import tvm\nfrom tvm.relay.op.contrib import tensorrt\n"
             "mod = tensorrt.partition_for_tensorrt(mod, params=params, target=trt_target)\n",
             expect="ConvertLayout (opt_level 3)", target="0.12"),
        # partition_for_bnns runs FoldScaleAxis and AlterOpLayout the same way
        Case("import tvm\nfrom tvm.relay.op.contrib.bnns import partition_for_bnns\n"
             "mod = partition_for_bnns(mod, params)\n", expect="AlterOpLayout (opt_level 3)", target="0.18"),
        # an opt_level a parameter holds, as each visible call gives it (or its default)
        Case(FOLD + "def fold(mod, level=2):\n    with tvm.transform.PassContext(opt_level=level):\n"
             "        return relay.transform.FoldScaleAxis()(mod)\n\nfold(m)\n",
             expect="level=2 when fold is called on line 7, which keeps its default"),
        Case(FOLD + "def fold(mod, level):\n    with tvm.transform.PassContext(opt_level=level):\n"
             "        return relay.transform.FoldScaleAxis()(mod)\n\ndef main(m, opt=3):\n    return fold(m, opt)\n\n"
             "main(m)\nmain(m, opt=1)\n", expect="at opt_level 1"),
        # an opt_level another module of the project sets (`from config import *`, `import config`)
        Case(FOLD + "from config import *\nwith tvm.transform.PassContext(opt_level=OPT_LEVEL):\n"
             "    mod = relay.transform.FoldScaleAxis()(mod)\n", files={"config.py": "OPT_LEVEL = 2\n"},
             expect="set on line 4 from OPT_LEVEL = 2 in config.py:1"),
        Case(FOLD + "import settings\n\ndef run(mod):\n    with tvm.transform.PassContext(opt_level=settings.OPT):\n"
             "        return relay.transform.FoldScaleAxis()(mod)\n\nrun(m)\n", files={"settings.py": "OPT = 1\n"},
             expect="at opt_level 1"),
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
