"""The speed machinery must not change a result: cheap stage, worker processes, result cache."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import CASE_TARGET, REPO, prefiltered, run_cli, write_tree

from tvmlint.checks import all_rules
from tvmlint.checks.rule import Case
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.runner import check_paths
from tvmlint.run.task import Task


def _findings(root: Path, cheap: bool, jobs: int = 1, select=("ALL",), target=CASE_TARGET, use_cache=False, cwd=None):
    resolver = SettingsResolver(Overrides(target_version=target, select=tuple(select)), cwd=cwd or root)
    return check_paths([root], prefiltered(resolver, cheap), jobs=jobs, use_cache=use_cache)


def _shown(report):
    return [(f.path, f.start, f.end, f.code, f.message, f.fix) for f in report.findings]


def _all_cases():
    for code, rule in all_rules().items():
        for kind in ("VALID", "INVALID"):
            for index, case in enumerate(getattr(rule, kind)):
                yield f"{code}-{kind.lower()}-{index}", case if isinstance(case, Case) else Case(case)


BLANKED_CALLER = (
    "import tvm\nfrom tvm import relay\n\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n\n"
    "def main(mod):\n    return fold(mod)\n\n\nout = main(mod)\n"
)


@pytest.mark.long
def test_the_speed_machinery_changes_no_finding(tmp_path):
    # The one equivalence property of the speed machinery. Every rule case, and the examples,
    # checked with the pre-filter wing switched off (`--no-prefilter`, Overrides.prefilter:
    # every file through libcst with every selected rule, no pruning, no gate, no low
    # contexts, no later rounds; and no cache, one process) give exactly what they give with
    # all of it on: the wing with its rounds, the result cache (cold, then warm) and, for the
    # examples, worker processes and the command line itself. A case of one file also gives it
    # as one buffer (check_text: stdin and the editor), whose wing blanks a caller only its
    # own rounds bring back.
    differ, analysed, found = [], [0, 0], 0
    cases = [*_all_cases(), ("blanked-caller", Case(BLANKED_CALLER))]
    for number, (name, case) in enumerate(cases):
        root = tmp_path / str(number)
        write_tree(root, {case.path: case.code, **case.files})
        target = case.target or CASE_TARGET
        off = _findings(root, cheap=False, target=target)
        runs = {
            "cheap": _findings(root, cheap=True, target=target, use_cache=True),
            "cached": _findings(root, cheap=True, target=target, use_cache=True),
        }
        shown = {how: _shown(report) for how, report in runs.items()}
        if not case.files:
            from tvmlint.run.runner import check_text

            resolver = SettingsResolver(Overrides(target_version=target, select=("ALL",)), cwd=root)
            path = root / case.path
            buffer = check_text(case.code, path, resolver.for_path(path), shown=case.path)
            shown["buffer"] = [(f.start, f.end, f.code, f.message, f.fix) for f in buffer]
        expected = _shown(off)
        for how, got in shown.items():
            want = [item[1:] for item in expected] if how == "buffer" else expected
            if got != want:
                differ.append(f"{name} ({how}): {got} != {want}")
        if runs["cached"].cache_hits != off.files_seen:
            differ.append(f"{name}: {runs['cached'].cache_hits} of {off.files_seen} files from the cache")
        analysed[0] += runs["cheap"].files_analysed
        analysed[1] += off.files_analysed
        found += len(off.findings)
    # the examples: each directory has its own pyproject.toml (its TVM release), no overrides
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    resolver = SettingsResolver(Overrides(select=("ALL",)), cwd=tmp_path)
    off = check_paths([tmp_path / "examples"], prefiltered(resolver, False), jobs=1, use_cache=False)
    assert off.findings, "the examples hold findings"
    for how, jobs in (("examples, 2 workers", 2), ("examples, cached", 1)):
        on = check_paths([tmp_path / "examples"], prefiltered(resolver, True), jobs=jobs, use_cache=True)
        if _shown(on) != _shown(off):
            differ.append(f"{how}: {_shown(on)} != {_shown(off)}")
        if on.files_analysed > off.files_analysed:
            differ.append(f"{how}: {on.files_analysed} files through libcst, {off.files_analysed} without the machinery")
    # the switch as users give it: the same report, byte for byte
    cli = {flag: run_cli("check", "--no-cache", "--select", "ALL", "--format", "json", *flag, "examples", cwd=tmp_path)
           for flag in ((), ("--no-prefilter",))}
    assert cli[()].returncode == cli[("--no-prefilter",)].returncode == 1, cli[()].stderr
    if cli[()].stdout != cli[("--no-prefilter",)].stdout:
        differ.append("examples, tvmlint check: the report differs with --no-prefilter")
    assert not differ, "\n".join(differ)
    assert found > len(cases) // 2, "the cases hold findings"
    # and the machinery does spare work: fewer files go through libcst
    assert analysed[0] < analysed[1]


def test_cheap_stage_skips_files_no_rule_can_fire_in(tmp_path):
    write_tree(tmp_path, {
        "plain.py": "import os\nprint(os.getcwd())\n",
        # TVM, but only a context entered right in its `with` and no Sequential: nothing to find
        "entered.py": "import tvm\nwith tvm.transform.PassContext(opt_level=3):\n    lib = tvm.build(f)\n",
        "gated.py": "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n",
    })
    report = _findings(tmp_path, cheap=True, select=("TVM001", "TVM101", "TVM102", "TVM103"))
    assert report.files_seen == 3
    assert report.files_analysed == 1
    assert [f.path for f in report.findings] == ["gated.py"]


def test_a_caller_without_tvm_is_followed_into_its_helper(tmp_path):
    # app.py names no TVM at all; only its call decides that fold's pass is skipped
    files = {
        "helpers.py": "from tvm import relay\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        "app.py": "from helpers import fold\nmod = fold(mod)\n",
    }
    write_tree(tmp_path, files)
    on = _findings(tmp_path, cheap=True, select=("TVM101",))
    off = _findings(tmp_path, cheap=False, select=("TVM101",))
    assert _shown(on) == _shown(off)
    assert [f.path for f in on.findings] == ["helpers.py"]
    assert "app.py:2" in on.findings[0].message


def test_a_rule_with_no_triggers_sees_every_tvm_module():
    import ast

    from tvmlint.analysis.used_names import UsedNames, roots_of
    from tvmlint.base.versions import parse_version
    from tvmlint.checks.rule import Rule
    from tvmlint.knowledge.target import get_knowledge
    from tvmlint.prefilter.view import view_of

    class Anything(Rule):
        code = "TVM999"

    knowledge = get_knowledge(parse_version(CASE_TARGET))
    roots = roots_of(knowledge)
    view = view_of(Anything, knowledge)
    assert view.tokens == roots
    uses = UsedNames(ast.parse("import tvm.relay as r\nr.foo()\n"), "m", False, roots)
    assert view.wants(uses)
    inside = UsedNames(ast.parse("from . import _ffi_api\n"), "tvm.relay.op", False, roots)
    assert view.wants(inside)  # relative imports inside TVM's own package
    plain = UsedNames(ast.parse("import numpy\nnumpy.zeros(3)\n"), "m", False, roots)
    assert not view.wants(plain)


def _many_files(root: Path, count: int) -> None:
    body = "import tvm\nfrom tvm import relay\n" + "x = 1\n" * 3
    files = {}
    for number in range(count):
        files[f"pkg{number % 4}/m{number:03d}.py"] = body + (
            "mod = relay.transform.FoldScaleAxis()(mod)\n" * (1 + number % 3)
            + "tvm.transform.PassContext(opt_level=3)\n"
        )
    files["broken.py"] = "def f(:\n"
    write_tree(root, files)


def test_output_order_is_the_same_with_any_number_of_workers(tmp_path):
    _many_files(tmp_path, 40)
    one = _findings(tmp_path, cheap=True, jobs=1)
    three = _findings(tmp_path, cheap=True, jobs=3)
    assert len(one.findings) > 40
    assert _shown(one) == _shown(three)
    keys = [f.sort_key for f in three.findings]
    assert keys == sorted(keys)


def test_cli_jobs_gives_the_same_json(tmp_path):
    _many_files(tmp_path, 24)
    outputs = []
    for jobs in ("1", "2", "4"):
        done = run_cli("check", ".", "--format", "json", "--target-version", "0.19", "--no-cache", "--jobs", jobs, cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1] == outputs[2]
    bad = run_cli("check", ".", "--jobs", "0", cwd=tmp_path)
    assert bad.returncode == 2


# -- the result cache ----------------------------------------------------------------


HELPER_GOOD = "def fold(mod):\n    return mod\n"
HELPER_BAD = "from tvm import relay\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n"


def _cached_run(root: Path, **kwargs):
    resolver = SettingsResolver(Overrides(target_version=kwargs.pop("target", CASE_TARGET)), cwd=root)
    return check_paths([root], resolver, jobs=1, use_cache=True, **kwargs)


def test_cache_is_used_and_holds_a_gitignore(tmp_path):
    write_tree(tmp_path, {"a.py": "import tvm\ntvm.transform.PassContext(opt_level=3)\n", "b.py": "x = 1\n"})
    first = _cached_run(tmp_path)
    second = _cached_run(tmp_path)
    assert first.cache_hits == 0
    assert second.cache_hits == 2
    assert _shown(first) == _shown(second) and first.findings
    assert (tmp_path / ".tvmlint_cache" / ".gitignore").read_text().strip().endswith("*")


def test_cache_notices_a_changed_file(tmp_path):
    write_tree(tmp_path, {"a.py": "import tvm\ntvm.transform.PassContext(opt_level=3)\n", "b.py": "x = 1\n"})
    assert len(_cached_run(tmp_path).findings) == 1
    write_tree(tmp_path, {"a.py": "import tvm\nwith tvm.transform.PassContext(opt_level=3):\n    pass\n"})
    again = _cached_run(tmp_path)
    assert again.findings == []
    assert again.cache_hits == 1  # b.py only


def test_cache_notices_a_changed_config(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": "[tool.tvmlint]\ntarget-version = \"0.19\"\n",
        "a.py": "from tvm import relay\nlib = relay.build(mod, 'llvm')\n",
    })
    resolver = lambda: SettingsResolver(Overrides(), cwd=tmp_path)  # noqa: E731
    assert check_paths([tmp_path], resolver(), jobs=1).findings == []  # TVM108 is not selected by default
    (tmp_path / "pyproject.toml").write_text("[tool.tvmlint]\ntarget-version = \"0.19\"\nextend-select = [\"TVM108\"]\n")
    report = check_paths([tmp_path], resolver(), jobs=1)
    assert [f.code for f in report.findings] == ["TVM108"]
    assert report.cache_hits == 0


def test_cache_dir_comes_from_the_config(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.tvmlint]\ncache-dir = \"build-cache/tvmlint\"\n", "a.py": "x = 1\n"})
    check_paths([tmp_path], SettingsResolver(Overrides(target_version="0.19"), cwd=tmp_path), jobs=1)
    assert (tmp_path / "build-cache" / "tvmlint" / ".gitignore").is_file()
    assert not (tmp_path / ".tvmlint_cache").exists()


def test_cache_notices_changed_rules_data(tmp_path):
    from tvmlint.knowledge.location import rules_dir

    rules = tmp_path / "rules"
    shutil.copytree(rules_dir(), rules)
    project = tmp_path / "project"
    write_tree(project, {"a.py": "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"})
    env = {"TVMLINT_RULES_DIR": str(rules)}

    def messages():
        done = run_cli("check", ".", "--format", "json", "--target-version", "0.19", cwd=project, env=env)
        return [finding["message"] for finding in json.loads(done.stdout)]

    assert "BackwardFoldScaleAxis and ForwardFoldScaleAxis (opt_level 3)" in messages()[0]
    # the same knowledge with a different level for one member
    passes = rules / "passes.toml"
    text = passes.read_text()
    changed = text.replace('name = "BackwardFoldScaleAxis", opt_level = 3', 'name = "BackwardFoldScaleAxis", opt_level = 4')
    assert changed != text
    passes.write_text(changed)
    assert "BackwardFoldScaleAxis (opt_level 4)" in messages()[0]


def test_cache_notices_a_new_tvmlint(tmp_path, monkeypatch):
    import tvmlint
    import tvmlint.run.cache

    write_tree(tmp_path, {"a.py": "x = 1\n"})
    _cached_run(tmp_path)
    assert _cached_run(tmp_path).cache_hits == 1
    monkeypatch.setattr(tvmlint, "__version__", tvmlint.__version__ + ".post1")
    assert _cached_run(tmp_path).cache_hits == 0


def test_a_changed_helper_changes_its_callers_findings(tmp_path):
    write_tree(tmp_path, {"helpers.py": HELPER_GOOD, "app.py": "import tvm\nfrom helpers import fold\nmod = fold(mod)\n"})
    assert _cached_run(tmp_path).findings == []
    write_tree(tmp_path, {"helpers.py": HELPER_BAD})
    report = _cached_run(tmp_path)
    assert [f.path for f in report.findings] == ["helpers.py"]
    assert "app.py:3" in report.findings[0].message
    # and now the caller enters a context: app.py changes, the helper's finding goes
    write_tree(tmp_path, {"app.py": "import tvm\nfrom helpers import fold\nwith tvm.transform.PassContext(opt_level=3):\n    mod = fold(mod)\n"})
    report = _cached_run(tmp_path)
    assert report.findings == []
    assert report.cache_hits >= 1  # helpers.py came from the cache


def test_no_cache_writes_nothing(tmp_path):
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    done = run_cli("check", ".", "--no-cache", "--target-version", "0.19", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / ".tvmlint_cache").exists()
    done = run_cli("check", ".", "--target-version", "0.19", cwd=tmp_path)
    assert (tmp_path / ".tvmlint_cache").is_dir()


def test_files_never_resolved_are_asked_only_when_they_may_name_a_followed_helper(tmp_path):
    # app.py, unrelated.py and words.py name no TVM: the cheap stage never resolves their
    # names. The later round asks those that spell both `helpers` and `fold`.
    from tvmlint.run import runner

    files = {
        "helpers.py": "from tvm import relay\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        "app.py": "import helpers\nmod = helpers.fold(mod)\n",
        "unrelated.py": "import os\nfold = os.getcwd()\n",
        # holds both words, yet names no helpers.fold: asked, resolved, and left out
        "words.py": "helpers = fold = None\n",
    }
    write_tree(tmp_path, files)
    asked = []
    original = runner._may_mention

    def spy(entries, *args):
        found = original(entries, *args)
        asked.append(sorted(Path(entry.path).name for entry in found))
        return found

    runner._may_mention = spy
    try:
        on = _findings(tmp_path, cheap=True, select=("TVM101",))
    finally:
        runner._may_mention = original
    off = _findings(tmp_path, cheap=False, select=("TVM101",))
    assert _shown(on) == _shown(off)
    assert "app.py:2" in on.findings[0].message
    assert asked[0] == ["app.py", "words.py"]
    assert on.files_analysed == 2  # helpers.py, then app.py in the later round


def test_may_mention_asks_for_every_part_of_a_name(tmp_path):
    from tvmlint.run.config import Overrides, SettingsResolver
    from tvmlint.run.runner import _Entry, _may_mention
    from tvmlint.run.tasks import Planner

    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/inner.py": "from .tools import run\nrun()\n",  # `pkg` comes from its package
        "spelled.py": "from pkg.tools import run\n",
        "partial.py": "run = 1\n",  # `run`, but never pkg.tools
        "pkg/tools.py": "def run():\n    pass\n",
    })
    planner = Planner(SettingsResolver(Overrides(), cwd=tmp_path))
    entries = [_Entry(str(tmp_path / name)) for name in ("pkg/inner.py", "spelled.py", "partial.py", "pkg/tools.py")]

    def names(callers_of, defined=frozenset()):
        return sorted(Path(e.path).name for e in _may_mention(entries, set(callers_of), set(defined), planner))

    assert names({"pkg.tools.run"}) == ["inner.py", "spelled.py", "tools.py"]
    assert names({"pkg.tools.run.<locals>.step"}) == []  # no module names a local function
    assert names(set(), {"pkg.tools.run"}) == ["tools.py"]  # defined only under its own module
    assert names(set()) == []


def test_a_cached_caller_whose_names_were_never_resolved_is_still_followed(tmp_path):
    # app.py names no TVM, so its cached result holds no mentions: when helpers.py changes,
    # the later round must still read app.py and find its call
    files = {
        "helpers.py": "from tvm import relay\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        "app.py": "import helpers\nmod = helpers.fold(mod)\n",
    }
    write_tree(tmp_path, files)
    first = _findings(tmp_path, cheap=True, select=("TVM101",), use_cache=True)
    (tmp_path / "helpers.py").write_text(files["helpers.py"] + "# changed\n")
    second = _findings(tmp_path, cheap=True, select=("TVM101",), use_cache=True)
    assert second.cache_hits >= 1  # app.py came from the cache
    assert [f.message for f in second.findings] == [f.message for f in first.findings]
    assert "app.py:2" in second.findings[0].message
    (tmp_path / "app.py").write_text("import helpers\n")  # no call any more: nothing to report
    third = _findings(tmp_path, cheap=True, select=("TVM101",), use_cache=True)
    assert third.findings == []


@pytest.mark.parametrize("example", ["relax_era/fp16_conv2d.py", "relay_era/fold_scale_axis.py"])
def test_a_check_leaves_no_cycle_holding_its_trees(example):
    # A check runs with the cycle collector paused; what it leaves in cycles (both parsers'
    # trees, through the analysis) would wait for a collection that walks all of it.
    import gc

    from tvmlint.run.engine import check_module, module_name_for

    path = REPO / "examples" / example
    settings = SettingsResolver(Overrides(target_version=CASE_TARGET), cwd=REPO).for_path(path)
    text = path.read_text()
    name, package = module_name_for(path)
    args = (text, Task(str(path), name, settings.codes_for(path), settings.target_version, package))
    check_module(*args)  # the first check of a process fills caches (imports, knowledge) that last
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        checked = check_module(*args)
        assert checked.analysed and (checked.result.findings or checked.result.deferred)
        # the analysis made tens of thousands of objects; a few small closures may stay in cycles
        assert gc.collect() < 300
        assert len(gc.get_objects()) - before < 1000
    finally:
        gc.enable()


@pytest.mark.parametrize("code, broken", [
    ("import os\nprint(os.sep)\n", False),
    ("def f(:\n    pass\n", True),  # no rule wants it, and it still does not parse
    ("nonlocal x\nimport os\n", False),  # only CPython's symbol table objects: the parser accepts it
    ("x = '\\d'\n", False),  # a warning, not an error
])
def test_a_file_no_rule_wants_gets_the_parsers_verdict_without_a_tree(code, broken):
    from tvmlint.analysis import used_names
    from tvmlint.run.engine import check_module

    settings = SettingsResolver(Overrides(target_version=CASE_TARGET), cwd=REPO).for_path(REPO / "m.py")
    checked = check_module(code, Task("m.py", "m", settings.codes_for(REPO / "m.py"), settings.target_version))
    assert [finding.code for finding in checked.result.findings] == (["TVM001"] if broken else [])
    assert (used_names.parse(code)[0] is None) == broken and not checked.analysed
