"""Pass names as users write them (#32): every name-taking option of `tvmlint registry`
(`--pipeline`, `--pass`, `--required`, `--disabled`, `--print-ir-after`) reads
`tvm.relax.transform.X`, `relax.transform.X`, `transform.X`, `X` and the registered name
alike, and an unknown name is answered with the closest names the installed TVM has.
Every test runs the real command against the installed apache-tvm."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import run_main, tvm_importable

# the module's runs share one registry snapshot (`cache`): all of them start first (tests/conftest.py)
pytestmark = [pytest.mark.tvm, pytest.mark.long,
              pytest.mark.skipif(not tvm_importable(), reason="apache-tvm is not importable (pip install -e '.[test]')")]

CANON = "tvm.relax.transform.CanonicalizeBindings"
SPELLINGS = [CANON, "relax.transform.CanonicalizeBindings", "transform.CanonicalizeBindings", "CanonicalizeBindings"]
# a constructor whose pass registers another name: what required_pass compares with
INPLACE, INPLACE_REGISTERED = "tvm.relax.transform.DataflowUseInplaceCalls", "DataflowInsertInPlaceCalls"


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("registry-cache")  # one registry snapshot for the module's runs


def registry(cache: Path, *args: str) -> subprocess.CompletedProcess:
    # the command's main in this process (helpers.run_main); the installed TVM answers in its child
    return run_main("registry", *args, cwd=cache, env={"TVMLINT_CACHE_DIR": str(cache)})


def as_json(cache: Path, *args: str) -> dict:
    done = registry(cache, *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_pipeline_runs_the_same_pass_whichever_way_it_is_written(cache):
    runs = [as_json(cache, "--pipeline", name, "--opt-level", "1") for name in SPELLINGS]
    assert {run["resolved"] for run in runs} == {f"{CANON}()"}
    ran = [[row["name"] for row in run["ran"]] for run in runs]  # names: each run has its own timings
    assert all(names == ran[0] for names in ran)
    assert ran[0] == ["CanonicalizeBindings", "CanonicalizeTIRVariables", "CanonicalizeRelaxBindings"]


def test_pass_shows_the_same_pass_whichever_way_it_is_written(cache):
    shown = [as_json(cache, "--pass", name)["passes"] for name in [*SPELLINGS]]
    assert all(passes == shown[0] for passes in shown) and [p["api"] for p in shown[0]] == [CANON]
    inplace = [as_json(cache, "--pass", name)["passes"] for name in
               (INPLACE, "relax.transform.DataflowUseInplaceCalls", "DataflowUseInplaceCalls", INPLACE_REGISTERED)]
    assert all([p["api"] for p in passes] == [INPLACE] for passes in inplace)


def test_required_and_disabled_become_the_registered_names(cache):
    data = as_json(cache, "--pass", INPLACE, "--opt-level", "0", "--required", "relax.transform.DataflowUseInplaceCalls",
                   "--disabled", "transform.CanonicalizeBindings")
    assert data["setting"]["required"] == [INPLACE_REGISTERED] and data["setting"]["disabled"] == ["CanonicalizeBindings"]
    # through a run: a member required by its registered name, or its Sequential's spelling
    run = as_json(cache, "--pipeline", "CanonicalizeBindings", "--opt-level", "0", "--required", "CanonicalizeRelaxBindings")
    assert "CanonicalizeRelaxBindings" in [row["name"] for row in run["ran"]]


def test_print_ir_after_takes_the_same_spellings(cache):
    for name in ("relax.transform.CanonicalizeBindings", "CanonicalizeBindings"):
        data = as_json(cache, "--pipeline", CANON, "--opt-level", "1", "--print-ir-after", name)
        assert [row["pass"] for row in data["ir_after"]] == ["CanonicalizeBindings"]


@pytest.mark.parametrize("args, closest", [
    (("--pipeline", "CanonicalizeBindngs"), "the closest: CanonicalizeBindings"),
    (("--pipeline", "relax.transform.CanonicalizeBindngs"), "the closest: relax.transform.CanonicalizeBindings"),
    (("--pipeline", "tvm.relax.transform.CanonicalizeBindngs"), "the closest: tvm.relax.transform.CanonicalizeBindings"),
    (("--pipeline", "defualt"), "the closest: default"),
    (("--pass", "FuseTIRR"), "the closest: FuseTIR"),
    (("--opt-level", "1", "--required", "CanonicalizeBinding"), "the closest: CanonicalizeBindings"),
    (("--pipeline", CANON, "--opt-level", "1", "--print-ir-after", "CanonicalizeRelaxBinding"),
     "the closest: CanonicalizeRelaxBindings"),
])
def test_an_unknown_name_names_the_closest(cache, args, closest):
    done = registry(cache, *args)
    assert done.returncode == 2
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("tvmlint: ") and closest in line, done.stderr
