"""The GitHub Actions workflow in examples/ci/ (and the README): it parses, and its tvmlint steps
work when run locally, the way the runner runs them (bash, from the checkout's root)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import REPO, write_tree
from packaging.requirements import Requirement
from test_ci_formats import validate

WORKFLOW = REPO / "examples" / "ci" / "tvmlint.yml"
SILENT_FOLD = "import tvm\nfrom tvm import relay\n\nmod = relay.transform.FoldScaleAxis()(mod)\n"


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def steps() -> list:
    [job] = workflow()["jobs"].values()
    return job["steps"]


def test_the_docs_show_the_shipped_workflow():
    page = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    assert f"```yaml\n{WORKFLOW.read_text(encoding='utf-8')}```" in page


def test_workflow_shape():
    data = workflow()
    # YAML 1.1 reads the key `on` as True
    triggers = data.get("on", data.get(True))
    assert set(triggers) == {"push", "pull_request"}
    assert data["permissions"]["security-events"] == "write"
    uses = [step["uses"].split("@")[0] for step in steps() if "uses" in step]
    assert uses == ["actions/checkout", "actions/setup-python", "github/codeql-action/upload-sarif"]
    upload = steps()[-1]
    assert upload["with"]["sarif_file"] == "tvmlint.sarif"
    [install] = [step["run"] for step in steps() if step.get("run", "").startswith("pip install")]
    requirement = Requirement(re.match(r'pip install "([^"]+)"', install).group(1))
    assert requirement.name == "tvmlint"


def run_step(command: str, cwd: Path) -> subprocess.CompletedProcess:
    # `tvmlint` resolves to this environment's script, as it would after the install step
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    return subprocess.run(["bash", "-e", "-c", command], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


def tvmlint_steps() -> dict:
    found = {step["name"]: step["run"] for step in steps() if step.get("run", "").startswith("tvmlint ")}
    assert set(found) == {"Annotate the pull request", "Write SARIF"}
    return found


@pytest.mark.parametrize("bad", [True, False], ids=["findings", "clean"])
def test_tvmlint_steps_run_locally(tmp_path, bad):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n',
        "scripts/compile.py": SILENT_FOLD if bad else "import tvm\n",
    })
    commands = tvmlint_steps()
    annotate = run_step(commands["Annotate the pull request"], tmp_path)
    if bad:
        # the step fails the job, and says where
        assert annotate.returncode == 1, annotate.stderr
        assert re.search(r"^::error file=scripts/compile\.py,line=4,col=7,.*title=TVM101::", annotate.stdout, re.M)
    else:
        assert annotate.returncode == 0 and "::" not in annotate.stdout, annotate.stdout + annotate.stderr

    sarif = run_step(commands["Write SARIF"], tmp_path)
    assert sarif.returncode == 0, sarif.stderr  # runs after a failed step (if: always()) and must not fail itself
    log = json.loads((tmp_path / "tvmlint.sarif").read_text(encoding="utf-8"))
    validate(log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == (["TVM101"] if bad else [])
