"""`tvmlint trace` (#30) on real scripts with the installed apache-tvm, and `check --trace` on its file.

No TVM is mocked: the example is run as a user runs it, through the command, and
the trace it leaves is read back as a user's tools would read it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from helpers import REPO, run_cli, run_main

EXAMPLE = "examples/relax_era/traced_build.py"

SOURCE = (REPO / EXAMPLE).read_text(encoding="utf-8").splitlines()


def line_of(fragment: str) -> int:
    return next(number for number, text in enumerate(SOURCE, 1) if fragment in text)


COMPILE, CANONICALIZE = line_of("return tvm.compile("), line_of("CanonicalizeBindings()(mod)")
BUILT, CLEANUP, OUTSIDE = line_of("cleanup = tvm.transform.Sequential("), line_of("mod = cleanup(mod)"), line_of("FuseTIR()(model)")
ENTERED, AT_ZERO, AT_THREE = line_of("PassContext(opt_level=level)"), line_of("build(model, 0)"), line_of("build(model, 3)")

pytestmark = pytest.mark.skipif(shutil.which("true") is None, reason="needs a POSIX system")


def _tvm() -> bool:
    import importlib.util

    return importlib.util.find_spec("tvm") is not None


needs_tvm = pytest.mark.skipif(not _tvm(), reason="apache-tvm is not installed (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """The example traced once, as JSON, with the IR after FuseTIR written."""
    if not _tvm():
        pytest.skip("apache-tvm is not installed")
    root = tmp_path_factory.mktemp("traced")
    shutil.copytree(REPO / "examples", root / "examples")
    done = run_cli("trace", "--format", "json", "-o", "trace.json", "--print-ir-after", "relax.transform.FuseTIR",
                   "--ir-dir", "ir", "--", sys.executable, EXAMPLE, cwd=root)
    assert done.returncode == 0, done.stderr
    return root, json.loads((root / "trace.json").read_text(encoding="utf-8"))


def _site(doc: dict, line: int) -> dict:
    found = [site for site in doc["sites"] if site["file"] and site["file"].endswith("traced_build.py") and site["line"] == line]
    assert found, [(site["file"], site["line"]) for site in doc["sites"]]
    return found[0]


def _names(rows, state):
    out = []
    for row in rows:
        if row["state"] == state:
            out.append(row["name"])
        out += _names(row.get("children", ()), state)
    return out


@needs_tvm
def test_the_trace_names_the_lines_that_ran_pipelines(traced):
    _root, doc = traced
    assert doc["schema"] == "tvmlint-trace" and doc["version"] == 1
    assert doc["exit"] == {"code": 0, "signal": None, "timed_out": False, "interrupted": False}
    assert doc["tvm"]["version"].startswith("0.")
    lines = sorted(site["line"] for site in doc["sites"])
    assert lines == [COMPILE, CANONICALIZE, CLEANUP, OUTSIDE]  # tvm.compile, CanonicalizeBindings, the Sequential, FuseTIR outside a context


@needs_tvm
def test_tvm_compile_at_two_levels_is_two_contexts_at_one_line(traced):
    _root, doc = traced
    compile_site = _site(doc, COMPILE)
    assert "tvm.compile" in compile_site["code"] and compile_site["function"] == "build"
    levels = {run["context"]["opt_level"] for run in compile_site["runs"]}
    assert levels == {0, 3}
    callers = {run["stack"][1]["line"] for run in compile_site["runs"]}
    assert callers == {AT_ZERO, AT_THREE}  # build(model, 0) and build(model, 3)
    entered = {run["context"]["entered_at"]["line"] for run in compile_site["runs"]}
    assert entered == {ENTERED}
    at_zero = [run for run in compile_site["runs"] if run["context"]["opt_level"] == 0]
    at_three = [run for run in compile_site["runs"] if run["context"]["opt_level"] == 3]
    skipped_at_zero = {row["name"] for run in at_zero for row in run["skipped"]}
    assert {"CanonicalizeRelaxBindings", "DeadCodeElimination"} <= skipped_at_zero
    assert not [row for run in at_three for row in run["skipped"]]
    ran_at_three = {name for run in at_three for name in _names(run["passes"], "ran")}
    assert {"FuseOps", "FuseTIR", "CanonicalizeRelaxBindings", "DeadCodeElimination"} <= ran_at_three


@needs_tvm
def test_gated_passes_skipped_with_why(traced):
    _root, doc = traced
    (run,) = _site(doc, CANONICALIZE)["runs"]
    assert run["context"]["opt_level"] == 0 and not run["context"]["default"]
    assert _names(run["passes"], "ran") == ["CanonicalizeBindings"]
    assert {(row["name"], row["why"], row["sequential"]) for row in run["skipped"]} == {
        ("CanonicalizeTIRVariables", "opt_level 1 > 0", "CanonicalizeBindings"),
        ("CanonicalizeRelaxBindings", "opt_level 1 > 0", "CanonicalizeBindings"),
    }
    (cleanup,) = _site(doc, CLEANUP)["runs"]
    assert [row["name"] for row in cleanup["skipped"]] == ["DeadCodeElimination"]
    assert cleanup["passes"][0]["built_at"]["line"] == BUILT  # where the Sequential was built


@needs_tvm
def test_a_pass_outside_any_context_runs_in_the_default_one(traced):
    _root, doc = traced
    (run,) = _site(doc, OUTSIDE)["runs"]
    assert run["context"]["default"] and run["context"]["opt_level"] == 2 and run["context"]["entered_at"] is None
    assert run["passes"][0]["name"] == "FuseTIR" and run["status"] == "finished"


@needs_tvm
def test_the_ir_after_a_chosen_pass_is_written_per_run(traced):
    root, doc = traced
    files = sorted((root / "ir").iterdir())
    named = [path.name for path in files]
    assert named and all("FuseTIR" in name for name in named), named
    assert any(f"traced_build.py-{OUTSIDE}" in name for name in named) and any(f"traced_build.py-{COMPILE}" in name for name in named)
    assert named[0].startswith("0001_")
    text = files[0].read_text(encoding="utf-8")
    assert text.startswith("# IR after FuseTIR") and "def main" in text
    recorded = [row["file"] for site in doc["sites"] for run in site["runs"] for row in run["ir_after"]]
    assert sorted(Path(path).name for path in recorded) == named


@needs_tvm
def test_check_trace_confirms_the_static_findings(traced):
    root, _doc = traced
    done = run_main("check", "--trace", "trace.json", "--format", "json", "--no-cache", EXAMPLE, cwd=root)
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    gating = [f for f in findings if f["code"] in ("TVM101", "TVM102")]
    assert {(f["line"], f["code"]) for f in gating} == {(CANONICALIZE, "TVM101"), (BUILT, "TVM102"), (CLEANUP, "TVM101")}
    assert all(f["trace"]["verdict"] == "confirmed" for f in gating), gating
    text = run_main("check", "--trace", "trace.json", "--no-cache", EXAMPLE, cwd=root)
    assert "confirmed by the trace: run " in text.stdout and "skipped DeadCodeElimination here at opt_level 0" in text.stdout


@needs_tvm
def test_check_trace_refutes_and_says_not_reached(traced, tmp_path):
    import copy

    root, doc = traced[0], copy.deepcopy(traced[1])
    # the same lines, as a run where the gate ran everything: the static claim is refuted
    for site in doc["sites"]:
        for run in site["runs"]:
            _all_ran(run["passes"])
            run["skipped"] = []
    (root / "ran.json").write_text(json.dumps(doc), encoding="utf-8")
    done = run_main("check", "--trace", "ran.json", "--format", "json", "--no-cache", EXAMPLE, cwd=root)
    verdicts = {f["line"]: f["trace"] for f in json.loads(done.stdout) if "trace" in f}
    assert verdicts[CANONICALIZE]["verdict"] == "refuted" and "static analysis was wrong" in verdicts[CANONICALIZE]["note"]
    doc["sites"] = []
    (root / "empty.json").write_text(json.dumps(doc), encoding="utf-8")
    done = run_main("check", "--trace", "empty.json", EXAMPLE, "--no-cache", cwd=root)
    assert "not reached in the trace: no pass ran from this line" in done.stdout


def _all_ran(rows):
    for row in rows:
        row["state"] = "ran"
        _all_ran(row.get("children", ()))


@needs_tvm
def test_timing_sums_time_per_pass(tmp_path):
    script = tmp_path / "two.py"
    script.write_text(
        "import tvm\nfrom tvm import relax\nmod = tvm.IRModule()\n"
        "for _ in range(3):\n    relax.transform.FuseTIR()(mod)\n",
        encoding="utf-8",
    )
    done = run_cli("trace", "--timing", "--", sys.executable, "two.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Time per pass" in done.stdout
    line = next(line for line in done.stdout.splitlines() if line.strip().endswith(" FuseTIR") and " x" in line)
    assert "x3" in line
    assert "two.py:5 in <module>: relax.transform.FuseTIR()(mod)" in done.stdout


MODULE = '''import tvm
from tvm import relax
from tvm.script import relax as R


def model():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((4,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(relax.op.add(x, x)))
        bb.emit_func_output(out)
    return bb.get()


with tvm.transform.PassContext(opt_level=3, disabled_pass=["CanonicalizeRelaxBindings"],
                               config={"relax.FuseOps.max_depth": 5}):
    relax.build(model(), "llvm")
    relax.transform.CanonicalizeBindings()(model())
'''


@needs_tvm
def test_python_m_relax_build_disabled_pass_config_and_ir_after_all(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "build.py").write_text(MODULE, encoding="utf-8")
    done = run_cli("trace", "--format", "json", "--print-ir-after-all", "--ir-dir", "all", "--",
                   sys.executable, "-m", "pkg.build", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [site["line"] for site in doc["sites"]] == [18, 19]
    build, canonicalize = doc["sites"]
    assert "relax.build" in build["code"] and build["file"] == str(tmp_path / "pkg" / "build.py")
    context = build["runs"][0]["context"]
    assert context["opt_level"] == 3 and context["disabled"] == ["CanonicalizeRelaxBindings"]
    assert context["config"] == {"relax.FuseOps.max_depth": 5} and context["entered_at"]["line"] == 16
    (run,) = canonicalize["runs"]
    assert [(row["name"], row["why"]) for row in run["skipped"]] == [("CanonicalizeRelaxBindings", "disabled_pass")]
    written = sorted((tmp_path / "all").iterdir())
    recorded = [row for site in doc["sites"] for run in site["runs"] for row in run["ir_after"]]
    assert len(written) == len(recorded) > 20  # every pass of the build, one numbered file each


@needs_tvm
def test_python_c_and_a_thread(tmp_path):
    code = (
        "import threading, tvm\nfrom tvm import relax\n"
        "def work():\n    with tvm.transform.PassContext(opt_level=0):\n"
        "        relax.transform.CanonicalizeBindings()(tvm.IRModule())\n"
        "    relax.transform.FoldConstant()(tvm.IRModule())\n"
        "t = threading.Thread(target=work)\nt.start()\nt.join()\n"
        "relax.transform.FuseTIR()(tvm.IRModule())\n"
    )
    done = run_cli("trace", "--format", "json", "--", sys.executable, "-c", code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [(site["file"], site["line"]) for site in doc["sites"]] == [("<string>", 5), ("<string>", 6), ("<string>", 10)]
    thread_run = doc["sites"][0]["runs"][0]
    assert thread_run["context"]["opt_level"] == 0 and len(thread_run["skipped"]) == 2
    # the thread's own default context (a pass outside any `with`) gets the instrument too
    (outside,) = doc["sites"][1]["runs"]
    assert outside["context"]["default"] and outside["passes"][0]["name"] == "FoldConstant"


def test_help_says_it_runs_your_code(tmp_path):
    done = run_cli("trace", "--help", cwd=tmp_path)
    assert done.returncode == 0 and "the one tvmlint command that executes your code" in " ".join(done.stdout.split())


@needs_tvm
def test_the_tree_on_a_terminal_and_in_plain_text(traced):
    import io

    from tvmlint.output.trace_tree import render

    _root, doc = traced
    for color in (True, False):
        out = io.StringIO()
        render(doc, out, timing=True, color=color)
        text = out.getvalue()
        # rich wraps at its width (80 off a terminal), anywhere in a path: compare without the spaces
        squeezed = "".join(text.replace("│", " ").split())
        for shown in (f"traced_build.py:{CANONICALIZE} in tidy", "Time per pass", "IR after FuseTIR",
                      "CanonicalizeTIRVariables (function, opt_level 1): opt_level 1 > 0"):
            assert "".join(shown.split()) in squeezed, shown


def test_print_ir_after_takes_the_names_users_write():
    from tvmlint.base.versions import parse_version
    from tvmlint.companion.trace_names import registered_names, same_pass

    at = parse_version("0.27")
    assert "AttachExternalModules" in registered_names(["relax.transform.AttachExternModules"], at)
    for written in ("FuseTIR", "relax.transform.FuseTIR", "transform.FuseTIR", "tvm.relax.transform.FuseTIR"):
        assert any(same_pass("FuseTIR", name) for name in registered_names([written], at)), written
    assert any(same_pass("tirx.LowerIntrin", name) for name in registered_names(["LowerIntrin"], at))
    assert not any(same_pass("FuseOps", name) for name in registered_names(["FuseTIR"], at))


@needs_tvm
def test_print_ir_after_a_pass_that_never_ran_says_why(traced, tmp_path):
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    done = run_cli("trace", "-o", "/dev/null", "--print-ir-after", "NoSuchPass", "--print-ir-after",
                   "CanonicalizeRelaxBindings", "--", sys.executable, EXAMPLE, cwd=tmp_path)
    assert done.returncode == 0
    assert "tvmlint: --print-ir-after NoSuchPass: no pass of that name ran" in done.stderr
    assert "CanonicalizeRelaxBindings" not in done.stderr  # it ran at opt_level 3: its files are there
    assert any("CanonicalizeRelaxBindings" in path.name for path in (tmp_path / ".tvmlint" / "ir").iterdir())


OTHER_PYTHONS = [path for path in os.environ.get("TVMLINT_TRACE_PYTHONS", "").split(os.pathsep) if path]


@pytest.mark.skipif(not OTHER_PYTHONS, reason="set TVMLINT_TRACE_PYTHONS to interpreters with other apache-tvm releases")
@pytest.mark.parametrize("python", OTHER_PYTHONS)
def test_the_example_traces_alike_on_other_releases(python, tmp_path):
    """The same lines, contexts and skipped passes under another release's interpreter (0.25, 0.26)."""
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    done = run_cli("trace", "--format", "json", "--", python, EXAMPLE, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert sorted(site["line"] for site in doc["sites"]) == [COMPILE, CANONICALIZE, CLEANUP, OUTSIDE]
    (run,) = _site(doc, CANONICALIZE)["runs"]
    assert {row["name"] for row in run["skipped"]} == {"CanonicalizeTIRVariables", "CanonicalizeRelaxBindings"}
    check = run_main("check", "--trace", ".tvmlint/trace.json", "--format", "json", "--no-cache", EXAMPLE, cwd=tmp_path)
    assert all(f["trace"]["verdict"] == "confirmed" for f in json.loads(check.stdout) if f["code"] in ("TVM101", "TVM102"))


@needs_tvm
def test_a_second_trace_numbers_its_ir_files_after_the_first(tmp_path):
    (tmp_path / "s.py").write_text("import tvm\nfrom tvm import relax\nrelax.transform.FuseTIR()(tvm.IRModule())\n",
                                   encoding="utf-8")
    for _ in range(2):
        done = run_cli("trace", "--print-ir-after", "FuseTIR", "-o", "/dev/null", "--", sys.executable, "s.py", cwd=tmp_path)
        assert done.returncode == 0 and "could not be written" not in done.stderr, done.stderr
    names = sorted(path.name for path in (tmp_path / ".tvmlint" / "ir").iterdir())
    assert names == ["0001_s.py-3_FuseTIR.py", "0002_s.py-3_FuseTIR.py"]


def test_the_verdict_in_json_json_lines_and_sarif():
    import io

    from tvmlint.base.diagnostics import Finding, Position
    from tvmlint.output import renderer

    finding = Finding("m.py", Position(3, 5), Position(3, 20), "TVM101", "error", "skips X", traced="refuted",
                      trace_note="run 2 ran X here at opt_level 3: the static analysis was wrong at this line")
    for name in ("json", "json-lines", "sarif"):
        out = io.StringIO()
        renderer(name)([finding], 1, out)
        text = out.getvalue()
        assert '"verdict": "refuted"' in text and "the static analysis was wrong at this line" in text, name


@needs_tvm
def test_trace_m_module_without_naming_python(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "run.py").write_text(
        "import sys\nimport tvm\nfrom tvm import relax\nassert sys.argv[1:] == ['--epochs', '1'], sys.argv\n"
        "relax.transform.FuseTIR()(tvm.IRModule())\n", encoding="utf-8")
    for command in (["-m", "pkg.run", "--", "--epochs", "1"], ["--", "-m", "pkg.run", "--epochs", "1"]):
        done = run_cli("trace", "--format", "json", *command, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert [site["line"] for site in json.loads(done.stdout)["sites"]] == [5]
