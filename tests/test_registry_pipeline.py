"""`tvmlint registry --pipeline`: an instrumented run of a pipeline in the installed TVM.

Every test runs the real command; the pipeline runs in the companion's child
process on tvmlint's own small module. Tests needing TVM are marked `tvm`.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest
from helpers import run_cli, tvm_importable

needs_tvm = pytest.mark.skipif(not tvm_importable(), reason="apache-tvm is not importable (pip install -e '.[test]')")
CANON = "tvm.relax.transform.CanonicalizeBindings"
CANON_MEMBERS = ["CanonicalizeTIRVariables", "CanonicalizeRelaxBindings"]


def registry(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_cli("registry", *args, cwd=cwd, env={"TVMLINT_CACHE_DIR": str(cwd / "cache")})


def as_json(*args: str, cwd: Path) -> dict:
    done = registry(*args, "--format", "json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def plain_rows(stdout: str) -> list:
    """(state, pass name) per row of the plain tree."""
    rows = []
    for line in stdout.splitlines():
        state = line[:8].strip()
        if state in ("ran", "skipped"):
            name = line[9:].lstrip(" │├└─").split(" (")[0]
            rows.append((state, name))
    return rows


@pytest.mark.tvm
@needs_tvm
def test_at_opt_level_0_canonicalize_bindings_skips_its_level_1_members(tmp_path):
    done = registry("--pipeline", CANON, "--opt-level", "0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert plain_rows(done.stdout) == [("ran", "CanonicalizeBindings")] + [("skipped", m) for m in CANON_MEMBERS]
    assert "PassContext(opt_level=0): 1 pass ran, 2 skipped by a Sequential's gate" in done.stdout
    assert "CanonicalizeTIRVariables (function, opt_level 1): opt_level 1 > 0" in done.stdout
    data = as_json("--pipeline", CANON, "--opt-level", "0", cwd=tmp_path)
    assert [row["name"] for row in data["ran"]] == ["CanonicalizeBindings"]
    assert [(row["name"], row["why"], row["sequential"]) for row in data["skipped"]] == [
        (m, "opt_level 1 > 0", "CanonicalizeBindings") for m in CANON_MEMBERS
    ]


@pytest.mark.tvm
@needs_tvm
def test_at_opt_level_1_its_members_run_and_are_timed(tmp_path):
    data = as_json("--pipeline", CANON, "--opt-level", "1", cwd=tmp_path)
    assert [row["name"] for row in data["ran"]] == ["CanonicalizeBindings"] + CANON_MEMBERS
    assert data["skipped"] == []
    assert all(isinstance(row["seconds"], float) and row["seconds"] >= 0 for row in data["ran"])
    assert data["setting"] == {"opt_level": 1, "required": [], "disabled": []}


@pytest.mark.tvm
@needs_tvm
def test_required_and_disabled_say_why(tmp_path):
    data = as_json("--pipeline", CANON, "--opt-level", "0", "--required", "CanonicalizeRelaxBindings", cwd=tmp_path)
    assert [row["name"] for row in data["skipped"]] == ["CanonicalizeTIRVariables"]
    (member,) = [row for row in data["passes"][0]["children"] if row["state"] == "ran"]
    assert member["name"] == "CanonicalizeRelaxBindings" and member["why"] == "required_pass"
    data = as_json("--pipeline", CANON, "--opt-level", "3", "--disabled", "CanonicalizeTIRVariables", cwd=tmp_path)
    assert [(row["name"], row["why"]) for row in data["skipped"]] == [("CanonicalizeTIRVariables", "disabled_pass")]


@pytest.mark.tvm
@needs_tvm
def test_the_default_pipeline_is_what_tvm_compile_runs(tmp_path):
    # `default` names what tvm.compile / relax.build run for relax_pipeline="default" on the target
    # (llvm here: the generic relax:default, v0.26.0:python/tvm/relax/vm_build.py#L258-L265), not the
    # target-specific relax.get_default_pipeline, which tvm.compile does not run on a CPU (#32)
    data = as_json("--pipeline", "default", "--opt-level", "2", cwd=tmp_path)
    ran = [row["name"] for row in data["ran"]]
    compiled = [row["name"] for row in as_json("--pipeline", "tvm.compile", "--opt-level", "2", cwd=tmp_path)["ran"]]
    assert ran == compiled[:len(ran)] and compiled[len(ran)].startswith("tirx.")  # then the TIR pipeline
    assert ran.index("LegalizeOps") < ran.index("VMShapeLower")
    assert data["skipped"] == []
    assert data["resolved"].startswith("tvm.relax.get_pipeline('default'), as tvm.compile runs it")


@pytest.mark.tvm
@needs_tvm
def test_get_default_pipeline_lists_what_ran_in_order(tmp_path):
    data = as_json("--pipeline", "relax.get_default_pipeline", "--opt-level", "2", cwd=tmp_path)
    ran = [row["name"] for row in data["ran"]]
    for name in ("LegalizeOps", "FuseOps", "FuseTIR", "DeadCodeElimination", "VMShapeLower"):
        assert name in ran
    assert ran.index("LegalizeOps") < ran.index("FuseOps") < ran.index("FuseTIR") < ran.index("VMShapeLower")
    assert data["skipped"] == []
    assert data["resolved"].startswith("tvm.relax.get_default_pipeline")
    # at 0 the same pipeline's FuseTIR skips its level-1 DeadCodeElimination
    low = as_json("--pipeline", "relax.get_default_pipeline", "--opt-level", "0", cwd=tmp_path)
    assert ("DeadCodeElimination", "FuseTIR") in {(row["name"], row["sequential"]) for row in low["skipped"]}


@pytest.mark.tvm
@needs_tvm
def test_tvm_compile_runs_the_relax_and_the_tir_pipelines(tmp_path):
    data = as_json("--pipeline", "tvm.compile", "--opt-level", "2", cwd=tmp_path)
    ran = [row["name"] for row in data["ran"]]
    assert "LegalizeOps" in ran and "VMShapeLower" in ran  # relax
    assert "tirx.MakePackedAPI" in ran and ran.index("VMShapeLower") < ran.index("tirx.MakePackedAPI")  # then TIR


@pytest.mark.long
@pytest.mark.tvm
@needs_tvm
def test_print_ir_after_prints_the_module_after_that_pass(tmp_path):
    done = registry("--pipeline", CANON, "--opt-level", "1", "--print-ir-after", "CanonicalizeRelaxBindings", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = done.stdout.split("# IR after CanonicalizeRelaxBindings\n", 1)[1]
    assert "@R.function" in after and "def main(" in after
    # the rebinding `lv4 = lv3` tvmlint's module holds is gone once the bindings are canonicalized
    assert "= lv3\n" not in after
    skipped = registry("--pipeline", CANON, "--opt-level", "0", "--print-ir-after", "CanonicalizeRelaxBindings", cwd=tmp_path)
    assert skipped.returncode == 2
    assert "--print-ir-after CanonicalizeRelaxBindings: it did not run here (opt_level 1 > 0)" in skipped.stderr
    data = as_json("--pipeline", CANON, "--opt-level", "1", "--print-ir-after", "CanonicalizeRelaxBindings", cwd=tmp_path)
    assert [row["pass"] for row in data["ir_after"]] == ["CanonicalizeRelaxBindings"]


@pytest.mark.tvm
@needs_tvm
@pytest.mark.parametrize("name, expect", [
    ("nosuch", "no pipeline named 'nosuch'"),
    ("tvm.relax.transform.NoSuchPass", "tvm.relax.transform has no 'NoSuchPass'"),
])
def test_an_unknown_name_exits_2_with_one_line(tmp_path, name, expect):
    done = registry("--pipeline", name, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tvmlint: error: ") and expect in lines[0]


def test_without_tvm_it_exits_2_with_one_line(tmp_path):
    done = registry("--pipeline", "default", "--tvm-python", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "could not be started" in done.stderr


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands in for the interpreter")
def test_a_hanging_child_is_stopped(tmp_path):
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\nexec sleep 30\n", encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    done = registry("--pipeline", "default", "--tvm-python", str(fake), "--tvm-timeout", "1", cwd=tmp_path)
    assert done.returncode == 2
    assert "gave no answer within 1s" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_pipeline_options_are_checked(tmp_path):
    done = registry("--pipeline", "default", "--verify", cwd=tmp_path)
    assert done.returncode == 2 and "--pipeline cannot be combined" in done.stderr
    done = registry("--print-ir-after", "FuseTIR", cwd=tmp_path)
    assert done.returncode == 2 and "go with --pipeline" in done.stderr


# -- check --confirm: the same instrument, and Relay said once ---------------------------------

RELAX_AT_0 = (
    "import tvm\nfrom tvm import relax\n\n"
    "def lower(mod):\n"
    "    with tvm.transform.PassContext(opt_level=0):\n"
    "        mod = relax.transform.CanonicalizeBindings()(mod)\n"
    "        mod = tvm.transform.Sequential([relax.transform.DeadCodeElimination(), relax.transform.FoldConstant()])(mod)\n"
    "    return mod\n\n"
    "lower(tvm.IRModule())\n"
)
RELAY = (
    "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
    "with tvm.transform.PassContext(opt_level=2):\n    mod = relay.transform.FoldScaleAxis()(mod)\n"
)


def check(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_cli("check", "--confirm", *args, cwd=cwd, env={"TVMLINT_CACHE_DIR": str(cwd / "cache")})


@pytest.mark.tvm
@needs_tvm
def test_confirm_runs_the_pass_and_a_checked_code_sequential_under_the_instrument(tmp_path):
    (tmp_path / "lower.py").write_text(RELAX_AT_0, encoding="utf-8")
    done = check("--target-version", "0.27", "--format", "json", "lower.py", cwd=tmp_path)
    canon, seq = json.loads(done.stdout)
    assert canon["confirmed"] is True and seq["confirmed"] is True
    assert ("an instrumented run of relax.transform.CanonicalizeBindings() (`tvmlint registry --pipeline`) skipped "
            "CanonicalizeTIRVariables and CanonicalizeRelaxBindings: a PassInstrument never saw them start") in canon["confirmation"]
    assert ("an instrumented run of tvm.transform.Sequential([relax.transform.DeadCodeElimination(), "
            "relax.transform.FoldConstant()]) (`tvmlint registry --pipeline`) skipped DeadCodeElimination") in seq["confirmation"]


@pytest.mark.tvm
@needs_tvm
def test_confirm_says_once_that_relay_findings_are_not_confirmable(tmp_path):
    (tmp_path / "fold.py").write_text(RELAY, encoding="utf-8")
    done = check("--target-version", "0.19", "fold.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.count("TVM101") == 2 and "by the installed TVM" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "2 findings (TVM101 x2) not confirmable with the installed TVM" in lines[0]
    assert "(Relay was removed in 0.20)" in lines[0]
    # JSON keeps each finding's null and reason for tools
    data = json.loads(check("--target-version", "0.19", "--format", "json", "fold.py", cwd=tmp_path).stdout)
    assert [f["confirmed"] for f in data] == [None, None]


@pytest.mark.tvm
@needs_tvm
def test_confirm_says_once_which_findings_no_registry_can_check(tmp_path):
    # TVM303 and TVM106 are static only; TVM104 the installed TVM (0.27) confirms; a file at another
    # target is about a release the installed TVM cannot speak for
    (tmp_path / "now.py").write_text(
        "import tvm\nwith tvm.transform.PassContext(opt_level=7, required_pass=['FoldConstant'],\n"
        "                                disabled_pass=['FuseOP', 'FoldConstant']):\n    pass\n", encoding="utf-8")
    (tmp_path / "old" / "pyproject.toml").parent.mkdir()
    (tmp_path / "old" / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.26"\n', encoding="utf-8")
    (tmp_path / "old" / "names.py").write_text(
        "import tvm\nwith tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOP']):\n    pass\n", encoding="utf-8")
    done = check("--target-version", "0.27", "now.py", cwd=tmp_path)
    assert done.returncode == 1
    assert sorted(re.findall(r"^  \d+:\d+ (TVM\d+) ", done.stdout, re.M)) == ["TVM104", "TVM106", "TVM303"], done.stdout
    # said once on stderr, not under each finding; what could be checked keeps its line
    assert "unconfirmed by the installed TVM" not in done.stdout
    assert done.stdout.count("confirmed by the installed TVM:") == 1
    assert done.stderr.splitlines() == [
        "tvmlint: --confirm: 2 findings (TVM106, TVM303) not confirmable: the pass registry can check only TVM101, "
        "TVM104, TVM105, TVM107 and TVM302, so the other rules' findings are static only"], done.stderr
    other = check("old/names.py", cwd=tmp_path)
    assert "unconfirmed by the installed TVM" not in other.stdout
    said = [line for line in other.stderr.splitlines() if line.startswith("tvmlint: --confirm:")]
    assert len(said) == 1 and "1 finding (TVM104) not confirmable: they are about another TVM release" in said[0], other.stderr
    # JSON keeps each finding's null and reason for tools
    data = {f["code"]: f for f in json.loads(check("--target-version", "0.27", "--format", "json", "now.py", cwd=tmp_path).stdout)}
    assert data["TVM303"]["confirmed"] is None and "is not a rule the pass registry can check" in data["TVM303"]["confirmation"]
    assert data["TVM104"]["confirmed"] is True
