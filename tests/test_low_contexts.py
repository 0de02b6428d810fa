"""tvmlint.run.low_contexts: a waiting finding that no low context can reach is not followed, and
no finding is lost for it."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from helpers import CASE_TARGET, REPO, grouped_by_rule, prefiltered, write_tree

from tvmlint.analysis.module import ModuleAnalysis
from tvmlint.analysis.walk import walk
from tvmlint.base.versions import parse_version
from tvmlint.checks import all_rules
from tvmlint.checks.rule import Case
from tvmlint.knowledge.target import get_knowledge
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.low_contexts import Factories, lowest_written_level
from tvmlint.run.runner import check_paths
from tvmlint.run.task import Task

RELEASES = ("0.8", "0.19", "0.27")
FACTORIES = Factories.of(get_knowledge(parse_version(release)) for release in RELEASES)


def _lowest(code: str, below: int = 2):
    return lowest_written_level(code, FACTORIES, below)


@pytest.mark.parametrize("code, level", [
    ("import tvm\nwith tvm.transform.PassContext(opt_level=0):\n    pass\n", 0),
    ("import tvm\nwith tvm.transform.PassContext(\n    # as low as it goes\n    0):\n    pass\n", 0),
    ("import tvm\nctx = tvm.transform.PassContext(opt_level=(1), disabled_pass=['A'])\n", 1),
    ("import tvm\nctx = tvm.transform.PassContext(opt_level = \\\n    -1)\n", -1),
    ("from tvm.ir.transform import PassContext as PC\nwith PC(0):\n    pass\n", 0),
    ("import tvm\nPC = tvm.transform.PassContext\nLOW = PC\nwith LOW(opt_level=1):\n    pass\n", 1),
    ("import tvm\nif (PC := tvm.transform.PassContext):\n    PC(opt_level=0)\n", 0),
    ("from tvm import relay\nwith relay.build_config(opt_level=0):\n    pass\n", 0),
    ("import vta\nwith vta.build_config(opt_level=1, debug_flag=0):\n    pass\n", 1),
])
def test_a_low_literal_given_to_a_context_is_found(code, level):
    assert _lowest(code) == level


@pytest.mark.parametrize("code", [
    "import tvm\nwith tvm.transform.PassContext(opt_level=3):\n    pass\n",
    "import tvm\nwith tvm.transform.PassContext(opt_level=level):\n    pass\n",
    "import tvm\nwith tvm.transform.PassContext(opt_level=False):\n    pass\n",  # not an int to libcst
    "import tvm\nwith tvm.transform.PassContext(**{'opt_level': 0}):\n    pass\n",
    "import tvm\nwith tvm.transform.PassContext(*levels, 0):\n    pass\n",
    # a pass's own level, a Sequential's, a default: not a context
    "import tvm\n@tvm.transform.module_pass(opt_level=0)\ndef p(mod, ctx):\n    return mod\n"
    "with tvm.transform.PassContext():\n    pass\n",
    "import tvm\nseq = tvm.transform.Sequential([], opt_level=0)\nctx = tvm.transform.PassContext\n",
    "class Sequential:\n    def __init__(self, passes=None, opt_level=0):\n        PassContext.current()\n",
    "import tvm\nwith tvm.transform.PassContext(opt_level=0\n",  # does not parse: never analysed
    "import os\nos.makedirs(path, 0)\n",
])
def test_nothing_else_is(code):
    assert _lowest(code) is None


def _sources():
    for code, rule in all_rules().items():
        for kind in ("VALID", "INVALID"):
            for index, case in enumerate(getattr(rule, kind)):
                case = case if isinstance(case, Case) else Case(case)
                for name, text in {case.path: case.code, **case.files}.items():
                    yield pytest.param(text, case.target or CASE_TARGET, id=f"{code}-{kind.lower()}-{index}-{name}")
    for path in sorted((REPO / "examples").rglob("*.py")):
        for target in RELEASES:
            yield pytest.param(path.read_text(), target, id=f"{path.relative_to(REPO)}@{target}")


def _low_context_found(code: str, target: str) -> bool:
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return True  # not analysed
    analysis = ModuleAnalysis(get_knowledge(parse_version(target)), "case")
    walk(module, analysis)
    levels = [value.ctx.opt_level for value in analysis.contexts if value.ctx.opt_level is not None]
    low = [level for level in levels if level < FACTORIES.lowest_default]
    return not low or _lowest(code, FACTORIES.lowest_default) == min(low)


@pytest.mark.parametrize("sources", grouped_by_rule(_sources()))
def test_every_low_context_the_analysis_makes_is_found(sources):
    # the text screen and the parse together never miss a context the analysis gives a level
    # below the default, whatever its spelling
    assert [name for name, code, target in sources if not _low_context_found(code, target)] == []


HELPER = "import tvm\nfrom tvm import relax\n\ndef lift(mod):\n    return relax.transform.LiftTransformParams()(mod)\n"
DEFAULT_CALLER = "import helper\nmod = helper.lift(mod)\n"
LOW_CALLER = "import tvm\nimport helper\nwith tvm.transform.PassContext(opt_level=0):\n    mod = helper.lift(mod)\n"


def _run(root: Path, cheap: bool):
    resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM101",)), cwd=root)
    report = check_paths([root], prefiltered(resolver, cheap), jobs=1, use_cache=False)
    return report, [(f.path, f.start.line, f.message) for f in report.findings]


def test_a_helper_no_low_context_reaches_is_not_analysed(tmp_path):
    # LiftTransformParams' passes sit at level 1: only a context below it skips one, and no
    # file writes one, so neither the helper nor its caller is analysed
    write_tree(tmp_path, {"helper.py": HELPER, "app.py": DEFAULT_CALLER})
    on, found = _run(tmp_path, cheap=True)
    off, found_off = _run(tmp_path, cheap=False)
    assert found == found_off == []
    assert on.files_analysed == 0


def test_a_low_context_that_cannot_reach_the_helper_does_not_make_it_analysed(tmp_path):
    # the low context runs code that names neither the helper nor its caller
    write_tree(tmp_path, {
        "helper.py": HELPER, "app.py": DEFAULT_CALLER,
        "tuning.py": "import tvm\nwith tvm.transform.PassContext(opt_level=0):\n    lib = tvm.compile(mod)\n",
    })
    on, found = _run(tmp_path, cheap=True)
    assert found == _run(tmp_path, cheap=False)[1] == []
    assert on.files_analysed == 0


def test_a_waiting_finding_whose_caller_was_analysed_is_not_followed_further(tmp_path):
    # helper.py is analysed for the low context it writes itself; the finding in lift waits on
    # callers, and no file that names lift can run under that context
    helper = HELPER + "\nwith tvm.transform.PassContext(opt_level=0):\n    lib = tvm.compile(mod)\n"
    write_tree(tmp_path, {"helper.py": helper, "app.py": DEFAULT_CALLER})
    on, found = _run(tmp_path, cheap=True)
    assert found == _run(tmp_path, cheap=False)[1] == []
    assert on.files_analysed == 1  # helper.py, not app.py


@pytest.mark.parametrize("code", [
    "import tvm\n@tvm.transform.module_pass(opt_level=3)\ndef mine(mod, ctx):\n    return mod\n\n"
    "mod = tvm.transform.Sequential([mine])(mod)\n",
    # the level given without its keyword
    "from tvm import transform\n@transform.module_pass(3)\ndef mine(mod, ctx):\n    return mod\n\n"
    "mod = transform.Sequential([mine])(mod)\n",
    # a Sequential nested at level 3
    "import tvm\nfrom tvm import relax\ninner = tvm.transform.Sequential([relax.transform.FoldConstant()], opt_level=3)\n"
    "mod = tvm.transform.Sequential([inner])(mod)\n",
])
def test_a_level_the_module_writes_above_the_default_is_judged_without_a_low_context(tmp_path, code):
    write_tree(tmp_path, {"case.py": code})
    on, found = _run(tmp_path, cheap=True)
    assert found == _run(tmp_path, cheap=False)[1]
    assert [path for path, _, _ in found] == ["case.py"] and "opt_level 3" in found[0][2]


@pytest.mark.parametrize("files", [
    {"app.py": LOW_CALLER},
    # through a function of another module that the low context calls
    {"mid.py": "import helper\n\ndef go(mod):\n    return helper.lift(mod)\n",
     "app.py": "import tvm\nimport mid\nwith tvm.transform.PassContext(opt_level=0):\n    mid.go(mod)\n"},
    # a context a helper of a third module returns
    {"contexts.py": "import tvm\n\ndef low():\n    return tvm.transform.PassContext(opt_level=0)\n",
     "app.py": "import contexts\nimport helper\nwith contexts.low():\n    helper.lift(mod)\n"},
    # an alias of the factory, and the level given without its keyword
    {"app.py": "from tvm.ir.transform import PassContext as PC\nfrom helper import lift\nwith PC(0):\n    lift(mod)\n"},
])
def test_a_helper_a_low_context_reaches_is_judged_under_it(tmp_path, files):
    write_tree(tmp_path, {"helper.py": HELPER, "other.py": DEFAULT_CALLER, **files})
    on, found = _run(tmp_path, cheap=True)
    assert found == _run(tmp_path, cheap=False)[1]
    assert [(path, line) for path, line, _ in found] == [("helper.py", 5)]
    assert "at opt_level 0" in found[0][2] and "app.py:" in found[0][2]


def test_a_bound_above_the_default_is_always_followed(tmp_path):
    # FoldScaleAxis' passes sit at level 3: the default context skips them, no literal needed
    write_tree(tmp_path, {
        "helper.py": "from tvm import relay\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        "app.py": "import helper\nmod = helper.fold(mod)\n",
    })
    resolver = SettingsResolver(Overrides(target_version="0.19", select=("TVM101",)), cwd=tmp_path)
    on = check_paths([tmp_path], prefiltered(resolver, True), jobs=1, use_cache=False)
    assert [f.path for f in on.findings] == ["helper.py"] and "app.py:2" in on.findings[0].message


def _left_runs_nothing_the_default_skips(code: str, target: str) -> bool:
    import ast

    from tvmlint.checks.tvm101_gated_pass_skipped import GatedPassSkipped, _highest
    from tvmlint.knowledge.target import lowest_default_level
    from tvmlint.prefilter.view import view_of

    try:
        tree = ast.parse(code)
        module = cst.parse_module(code)
    except (SyntaxError, cst.ParserSyntaxError):
        return True  # not analysed
    knowledge = get_knowledge(parse_version(target))
    if not view_of(GatedPassSkipped, knowledge).needs_low_context(tree, code):
        return True
    analysis = ModuleAnalysis(knowledge, "case")
    walk(module, analysis)
    default = lowest_default_level(knowledge)
    return all(_highest(member) <= default for run in analysis.runs for member in run.members)


@pytest.mark.parametrize("sources", grouped_by_rule(_sources()))
def test_a_module_left_for_a_low_context_has_no_run_the_default_skips(sources):
    # TVM101's low-context predicate (Prefilter.low_context) is asked before libcst: whenever it says yes, every run the
    # analysis finds gates only passes at or below the default level
    assert [name for name, code, target in sources if not _left_runs_nothing_the_default_skips(code, target)] == []


def test_a_function_under_tvm_is_followed_only_in_its_own_module(tmp_path):
    # to the analysis, tvm.a.fold is TVM's API: a call from another module never gives it a
    # context, so no other module is read for one, and nothing is lost
    write_tree(tmp_path, {
        "tvm/__init__.py": "",
        "tvm/a.py": "from tvm import relay\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n"
                    "def run(mod):\n    return fold(mod)\n\nrun(mod)\n",
        "user.py": "from tvm.a import fold\nmod = fold(mod)\n",
    })
    resolver = SettingsResolver(Overrides(target_version="0.19", select=("TVM101",)), cwd=tmp_path)
    on = check_paths([tmp_path], prefiltered(resolver, True), jobs=1, use_cache=False)
    off = check_paths([tmp_path], prefiltered(resolver, False), jobs=1, use_cache=False)
    assert [(f.path, f.start.line, f.message) for f in on.findings] == [(f.path, f.start.line, f.message) for f in off.findings]
    assert [f.path for f in on.findings] == [str(Path("tvm/a.py"))] and "when run is called on line 9" in on.findings[0].message
    assert "when run is called from tvm/a.py:9" in on.findings[0].detail
    assert on.files_analysed == 1


def test_a_cached_helper_is_analysed_once_a_low_context_appears_elsewhere(tmp_path):
    # helper.py's cached result says it waits for a low context; when app.py starts writing
    # one around its call, the next run must analyse helper.py and report the skipped pass
    write_tree(tmp_path, {"helper.py": HELPER, "app.py": DEFAULT_CALLER})
    resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM101",)), cwd=tmp_path)
    first = check_paths([tmp_path], resolver, jobs=1, use_cache=True)
    assert first.findings == [] and first.files_analysed == 0
    (tmp_path / "app.py").write_text(LOW_CALLER)
    second = check_paths([tmp_path], resolver, jobs=1, use_cache=True)
    assert [(f.path, f.start.line) for f in second.findings] == [("helper.py", 5)]
    assert "app.py:4" in second.findings[0].message
    (tmp_path / "app.py").write_text(DEFAULT_CALLER)
    assert check_paths([tmp_path], resolver, jobs=1, use_cache=True).findings == []


def test_a_first_round_leaves_out_only_files_that_write_no_low_context(tmp_path):
    # a file that writes one can reach itself: it is analysed at once, not asked for again;
    # outside a run's first round (the editor, a later round) nothing is recorded or left out
    from tvmlint.run.engine import check_module

    version, codes = parse_version("0.27"), frozenset({"TVM101"})
    waiting = check_module(HELPER, Task("helper.py", "helper", codes, version, defer_low=True))
    assert waiting.awaits_low and not waiting.analysed and waiting.low_level is None
    writes = HELPER + "\nwith tvm.transform.PassContext(opt_level=0):\n    mod = lift(mod)\n"
    written = check_module(writes, Task("helper.py", "helper", codes, version, defer_low=True))
    assert written.analysed and not written.awaits_low and written.low_level == 0
    editor = check_module(writes, Task("helper.py", "helper", codes, version))
    assert editor.analysed and editor.low_level is None
    assert check_module(HELPER, Task("helper.py", "helper", codes, version)).analysed
