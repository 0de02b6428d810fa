"""`tvmlint explain`: through the command line on every seed situation in examples/, and its verdict
against TVM101's on every one of the rule's cases (the two must never disagree)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import CASE_TARGET, REPO, check_tree, run_main, tvm_importable

from tvmlint.checks.rule import Case
from tvmlint.checks.tvm101_gated_pass_skipped import GatedPassSkipped
from tvmlint.frontends.explain import explain_all
from tvmlint.run.config import Overrides, SettingsResolver

EXAMPLES = sorted((REPO / "examples").glob("*/*.py"))
FOLD = REPO / "examples" / "relay_era" / "fold_scale_axis.py"


def _sites(path: Path):
    cwd = os.getcwd()
    os.chdir(REPO)  # as the CLI runs below: callers are shown relative to the repository
    try:
        return explain_all(path.relative_to(REPO), SettingsResolver(cwd=REPO))
    finally:
        os.chdir(cwd)


def _example_sites():
    for path in EXAMPLES:
        for explanation in _sites(path):
            yield pytest.param(path, explanation, id=f"{path.parent.name}/{path.name}:{explanation.line}")


def test_every_seed_has_sites():
    # every example that drives TVM's passes has something to explain (the NNVM one predates PassContext)
    with_sites = {path.name for path in EXAMPLES if _sites(path)}
    assert with_sites >= {
        "fold_scale_axis.py", "passes.py", "compile_model.py", "fast_math_build.py", "quantize_layout.py",
        "port_from_nnvm.py", "canonicalize_at_opt0.py", "pass_settings.py",
    }


@pytest.mark.parametrize("path, expected", list(_example_sites()))
def test_cli_on_every_example_site(path, expected):
    place = f"{path.relative_to(REPO)}:{expected.line}:{expected.column}"
    done = run_main("explain", place, "--format", "json", cwd=REPO)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["line"], data["column"], data["kind"]) == (expected.line, expected.column, expected.kind)
    assert data["skips"] == expected.skips
    assert data["outcomes"], data
    text = run_main("explain", place, cwd=REPO)  # a pipe: plain text
    assert text.returncode == 0, text.stderr
    assert "Verdict:" in text.stdout and "\x1b[" not in text.stdout


def test_fold_scale_axis_report():
    done = run_main("explain", "examples/relay_era/fold_scale_axis.py:12", cwd=REPO)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "the default context: no PassContext is entered here" in out
    assert "when compare is called from examples/relay_era/fold_scale_axis.py:34" in out
    assert "BackwardFoldScaleAxis (function, opt_level 3): SKIPPED: opt_level 3 > context 2" in out
    assert "FoldConstant (function, opt_level 2): runs" in out
    # under the `with` two lines below, everything runs
    done = run_main("explain", "examples/relay_era/fold_scale_axis.py:15", cwd=REPO)
    assert "PassContext(opt_level=3) on line 14" in done.stdout and "Verdict: every member runs." in done.stdout
    # a pass called directly is never gated
    done = run_main("explain", "examples/relay_era/fold_scale_axis.py:22", cwd=REPO)
    assert "a pass called directly is never gated" in done.stdout


def test_relax_build_pipeline():
    done = run_main("explain", "examples/relax_era/pass_settings.py:11", "--format", "json", cwd=REPO)
    data = json.loads(done.stdout)
    assert data["kind"] == "build" and "v0.26.0" not in data["source"] and "pipeline.py" in data["source"]
    members = [node["name"] for node in data["outcomes"][0]["pipeline"][0]["children"]]
    assert members[0] == "DispatchSampling" and members[-1] == "AttachGlobalSymbol"
    older = run_main("explain", "examples/relax_era/pass_settings.py:11", "--target-version", "0.20", "--format", "json",
                    cwd=REPO)
    assert "v0.20.0:python/tvm/relax/pipeline.py" in json.loads(older.stdout)["source"]


def test_a_build_at_the_tutorials_level_names_what_turns_fast_math_on(tmp_path):
    # the pass and its level come from the tables (numerics.toml's fast_math pass, runners.toml's
    # relay.build), not from the explanation's code
    (tmp_path / "b.py").write_text(
        "import tvm\nfrom tvm import relay\nwith tvm.transform.PassContext(opt_level=3):\n"
        "    lib = relay.build(mod, target='llvm')\n", encoding="utf-8"
    )
    done = run_main("explain", "b.py:4", "--target-version", "0.8", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "the build runs at opt_level 3, the level TVM's tutorials build at" in done.stdout
    assert "(opt_level 4 would turn on FastMath, which changes numerics: TVM302)" in done.stdout


def test_unknown_context_shows_both_outcomes(tmp_path):
    (tmp_path / "lib.py").write_text(
        "from tvm import relay\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n", encoding="utf-8"
    )
    done = run_main("explain", "lib.py:4", "--target-version", "0.19", "--format", "json", cwd=tmp_path)
    data = json.loads(done.stdout)
    assert data["context_known"] is False and "no call tvmlint sees gives lib.fold a context" in data["note"]
    assert [o["context"]["opt_level"] for o in data["outcomes"]] == [2, 3]
    assert [o["verdict"] for o in data["outcomes"]] == ["skips", "runs"]
    assert data["skips"] is False  # only assumed contexts skip: TVM101 reports nothing


def test_caller_in_another_module(tmp_path):
    (tmp_path / "helpers.py").write_text(
        "from tvm import relay\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n", encoding="utf-8"
    )
    (tmp_path / "app.py").write_text(
        "import tvm\nfrom helpers import fold\nwith tvm.transform.PassContext(opt_level=3):\n    good = fold(m)\n"
        "bad = fold(m)\n", encoding="utf-8"
    )
    done = run_main("explain", "helpers.py:4:12", "--target-version", "0.19", cwd=tmp_path)
    assert "when helpers.fold is called from app.py:4" in done.stdout
    assert "when helpers.fold is called from app.py:5" in done.stdout
    assert done.stdout.count("Verdict:") == 2


def test_not_a_pass_call(tmp_path):
    (tmp_path / "x.py").write_text("import tvm\nx = 1\n", encoding="utf-8")
    done = run_main("explain", "x.py:2", cwd=tmp_path)
    assert done.returncode == 2
    assert "x.py:2: no pass call, Sequential run or build here" in done.stderr
    assert run_main("explain", "x.py", cwd=tmp_path).returncode == 2  # no line
    assert run_main("explain", "missing.py:1", cwd=tmp_path).returncode == 2


def test_a_line_with_findings_and_no_pass_call_shows_each_in_full(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.27"\n', encoding="utf-8")
    (tmp_path / "x.py").write_text("import tvm\nwith tvm.transform.PassContext(opt_level=7, disabled_pass=['FuseOP']):\n"
                                   "    pass\n", encoding="utf-8")
    done = run_main("explain", "x.py:2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    checked = json.loads(run_main("check", "--format", "json", "x.py", cwd=tmp_path).stdout)
    assert [f["code"] for f in checked] == ["TVM303", "TVM104"]
    text = " ".join(done.stdout.split())
    assert text.startswith("Findings here:")
    for finding in checked:  # what check says of the line: each message, then its detail
        assert f"{finding['code']} {finding['severity']} {finding['message']} {finding['detail']}" in text
    as_json = json.loads(run_main("explain", "--format", "json", "x.py:2", cwd=tmp_path).stdout)
    assert as_json == {"findings": checked}


def _as_case(case) -> Case:
    return case if isinstance(case, Case) else Case(case)


def _rule_cases():
    for kind in ("VALID", "INVALID"):
        for index, case in enumerate(getattr(GatedPassSkipped, kind)):
            yield pytest.param(_as_case(case), id=f"TVM101-{kind.lower()}-{index}")


@pytest.mark.parametrize("case", list(_rule_cases()))
def test_verdict_agrees_with_tvm101(tmp_path, case):
    files = {case.path: case.code, **case.files}
    target = case.target or CASE_TARGET
    findings = check_tree(tmp_path, files, select=["TVM101"], target=target)
    def shown(path: str) -> str:
        # the module's path from the tree's root, as explain is asked about it (folders matter:
        # two scripts of one name in two folders are two modules)
        return Path(path).resolve().relative_to(tmp_path.resolve()).as_posix() if Path(path).is_absolute() else path

    reported = {(shown(f.path), f.start.line, f.start.column) for f in findings if f.code == "TVM101"}
    resolver = SettingsResolver(Overrides(target_version=target), cwd=tmp_path)
    skipping = set()
    for name in files:
        for explanation in explain_all(tmp_path / name, resolver, shown=name, root=tmp_path):
            if explanation.reported:
                skipping.add((name, explanation.line, explanation.column))
    assert skipping == reported


def test_the_docs_show_the_real_output():
    page = (REPO / "docs" / "usage.md").read_text(encoding="utf-8")
    done = run_main("explain", "examples/relay_era/fold_scale_axis.py:12", cwd=REPO)
    assert f"$ tvmlint explain examples/relay_era/fold_scale_axis.py:12\n{done.stdout}```" in page


# --- against the installed TVM: explain's tree and an instrumented run of the same pipeline ---------


needs_tvm = pytest.mark.skipif(not tvm_importable(), reason="apache-tvm is not importable (pip install -e '.[test]')")


def _compare(explained, ran, where):
    """Each explained pass against the pass of the same name and place in the instrumented run."""
    names = [node["name"] for node in ran]
    assert [node["name"] for node in explained] == names, where
    for mine, theirs in zip(explained, ran):
        expected = {"runs": "ran", "skipped": "skipped"}[mine["status"]]
        assert theirs["state"] == expected, (where, mine, theirs)
        if mine["children"] and mine["status"] == "runs":
            _compare(mine["children"], theirs.get("children", []), where + "/" + mine["name"])


def _instrumented(tmp_path, pipeline, context):
    args = ["registry", "--pipeline", pipeline, "--opt-level", str(context["opt_level"]), "--format", "json"]
    if context["required"]:
        args += ["--required", ",".join(context["required"])]
    if context["disabled"]:
        args += ["--disabled", ",".join(context["disabled"])]
    done = run_main(*args, cwd=tmp_path, env={"TVMLINT_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["passes"]


RELAX_SITES = [
    # (the file, its line, the pipeline `registry --pipeline` runs for it)
    ("examples/relax_era/canonicalize_at_opt0.py", 10, "tvm.relax.transform.CanonicalizeBindings"),
    ("examples/relax_era/canonicalize_at_opt0.py", 11, "tvm.relax.transform.FuseTIR"),
    ("examples/relax_era/pass_settings.py", 11, "tvm.compile"),
]
RELAX_CASES = [
    ("PassContext(opt_level=1)", "CanonicalizeBindings"),
    ("PassContext(opt_level=0, required_pass=['CanonicalizeRelaxBindings'])", "CanonicalizeBindings"),
    ("PassContext(opt_level=2, disabled_pass=['CanonicalizeTIRVariables'])", "CanonicalizeBindings"),
    ("PassContext(opt_level=0, disabled_pass=['DeadCodeElimination'])", "FuseTIR"),
    ("PassContext(opt_level=3)", "FuseTIR"),
]


@needs_tvm
@pytest.mark.parametrize("case", range(len(RELAX_SITES) + len(RELAX_CASES)))
def test_explain_agrees_with_the_installed_tvm(tmp_path, case):
    if case < len(RELAX_SITES):
        name, line, pipeline = RELAX_SITES[case]
        done = run_main("explain", f"{name}:{line}", "--format", "json", cwd=REPO)
    else:
        context, constructor = RELAX_CASES[case - len(RELAX_SITES)]
        (tmp_path / "job.py").write_text(
            f"import tvm\nfrom tvm import relax\nwith tvm.transform.{context}:\n"
            f"    mod = relax.transform.{constructor}()(mod)\n", encoding="utf-8",
        )
        pipeline = f"tvm.relax.transform.{constructor}"
        done = run_main("explain", "job.py:4", "--target-version", "0.27", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["target"] == "0.27" and data["context_known"]
    (outcome,) = data["outcomes"]
    ran = _instrumented(tmp_path, pipeline, outcome["context"])
    (root,) = outcome["pipeline"]
    theirs = ran[0]
    assert theirs["state"] == "ran"
    children = theirs.get("children", [])
    if [child["name"] for child in children] == ["sequential"]:  # a module pass building its Sequential
        children = children[0].get("children", [])
    _compare(root["children"], children, pipeline)


def test_two_calls_on_one_line(tmp_path):
    (tmp_path / "two.py").write_text(
        "import tvm\nfrom tvm import relay\n"
        "a = relay.transform.FoldScaleAxis()(m); b = relay.transform.FoldConstant()(m)\n", encoding="utf-8"
    )
    first = run_main("explain", "two.py:3", "--target-version", "0.19", cwd=tmp_path)
    assert first.stdout.startswith("two.py:3:5: relay.transform.FoldScaleAxis()")
    assert "Also on this line (give its column to explain it): relay.transform.FoldConstant() at two.py:3:45." in first.stdout
    second = run_main("explain", "two.py:3:60", "--target-version", "0.19", cwd=tmp_path)
    assert second.stdout.startswith("two.py:3:45: relay.transform.FoldConstant()") and "Also" not in second.stdout


def test_a_level_another_module_or_a_caller_sets_is_where_explain_says_it_comes_from(tmp_path):
    # the context of a PassContext(opt_level=NAME) is resolved as the run resolves it (LevelFrom):
    # another module's constant, or what the visible call gives the parameter
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.8"\n', encoding="utf-8")
    (tmp_path / "config.py").write_text("OPT_LEVEL = 2\n", encoding="utf-8")
    (tmp_path / "run.py").write_text(
        "import tvm\nfrom tvm import relay\nfrom config import *\n\n"
        "with tvm.transform.PassContext(opt_level=OPT_LEVEL):\n    mod = relay.transform.FoldScaleAxis()(mod)\n\n"
        "def fold(mod, level=2):\n    with tvm.transform.PassContext(opt_level=level):\n"
        "        return relay.transform.FoldScaleAxis()(mod)\n\nfold(m)\n", encoding="utf-8")
    done = run_main("explain", "run.py:6", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "from OPT_LEVEL = 2 in config.py:1" in done.stdout and "SKIPPED" in done.stdout, done.stdout
    done = run_main("explain", "run.py:10", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "level=2 when fold is called" in done.stdout and "SKIPPED" in done.stdout, done.stdout
