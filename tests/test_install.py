"""Install without a checkout, as the README's Install section says: a wheel built with
`python -m build` and `pip install "tvmlint @ git+URL@v0.1.0"`, each into a fresh virtualenv (no system
site-packages), then tvmlint run from outside the checkout. The wheel carries rules/ as
tvmlint/rules_data and tvmlint reads it from there.

These build and install with pip from the package index: `-m "not network"` leaves them out."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import REPO

# a wheel built, virtualenvs made and pip run: started first (tests/conftest.py)
pytestmark = [pytest.mark.network, pytest.mark.long]

VERSION_LINE = next(
    line for line in (REPO / "pyproject.toml").read_text(encoding="utf-8").splitlines() if line.startswith("version = ")
)
VERSION = VERSION_LINE.split('"')[1]


def _env() -> dict:
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "TVMLINT_RULES_DIR", "PYTHONHOME")}
    env["NO_COLOR"] = "1"
    return env


def _run(args, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


def _fresh_venv(where: Path) -> Path:
    result = _run([sys.executable, "-m", "venv", where], cwd=where.parent)
    assert result.returncode == 0, result.stderr
    assert "include-system-site-packages = false" in (where / "pyvenv.cfg").read_text()
    return where / ("Scripts" if os.name == "nt" else "bin")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    result = _run([sys.executable, "-m", "build", "--wheel", "--outdir", out, REPO], cwd=out)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (built,) = out.glob("tvmlint-*.whl")
    return built


def test_the_wheel_carries_rules(wheel):
    assert wheel.name == f"tvmlint-{VERSION}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    rules = {
        "tvmlint/rules_data/" + path.relative_to(REPO / "rules").as_posix()
        for path in (REPO / "rules").rglob("*") if path.is_file() and "__pycache__" not in path.parts
    }
    assert rules and rules <= names, sorted(rules - names)[:5]
    assert "tvmlint/companion/child.py" in names


def _check_installed(bin_dir: Path, work: Path) -> None:
    """tvmlint from the fresh environment, run where no checkout is, reads its own rules_data."""
    python = bin_dir / "python"
    where = _run([python, "-c", "import tvmlint.knowledge.location as r; print(r.rules_dir())"], cwd=work)
    assert where.returncode == 0, where.stderr
    rules = Path(where.stdout.strip())
    assert rules.name == "rules_data" and "site-packages" in rules.parts and REPO not in rules.parents

    shutil.copy(REPO / "examples" / "relay_era" / "fold_scale_axis.py", work / "fold_scale_axis.py")
    check = _run([bin_dir / "tvmlint", "check", "--no-cache", "--target-version", "0.8", "--format", "concise",
                  "fold_scale_axis.py"], cwd=work)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "fold_scale_axis.py:12:13: TVM101 " in check.stdout

    rule = _run([bin_dir / "tvmlint", "rule", "TVM101"], cwd=work)
    assert rule.returncode == 0 and rule.stdout.startswith("# TVM101 gated-pass-skipped"), rule.stdout[:200]

    # the knowledge is the wheel's copy: moving it away breaks tvmlint, so nothing else was read
    hidden = rules.with_name("rules_data.hidden")
    rules.rename(hidden)
    try:
        broken = _run([bin_dir / "tvmlint", "rule", "TVM101"], cwd=work)
        assert broken.returncode != 0
    finally:
        hidden.rename(rules)


def test_the_wheel_in_a_fresh_venv(wheel, tmp_path):
    bin_dir = _fresh_venv(tmp_path / "env")
    install = _run([bin_dir / "python", "-m", "pip", "install", "-q", wheel], cwd=tmp_path)
    assert install.returncode == 0, install.stderr[-2000:]
    work = tmp_path / "work"
    work.mkdir()
    _check_installed(bin_dir, work)


def test_pip_install_from_a_git_url_at_a_commit(tmp_path):
    # the README's `pip install "tvmlint @ git+URL@COMMIT"`, with a clone of this repository as URL
    # (file://localhost/...: pip reads a named requirement's file:/// URL as a path) and its HEAD
    # as COMMIT: no release tag exists, so the README pins a commit
    clone = tmp_path / "tvmlint.git"
    assert _run(["git", "clone", "-q", "--no-local", REPO, clone], cwd=tmp_path).returncode == 0
    tag = _run(["git", "rev-parse", "HEAD"], cwd=clone).stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{40}", tag)
    bin_dir = _fresh_venv(tmp_path / "env")
    install = _run([bin_dir / "python", "-m", "pip", "install", "-q", f"tvmlint @ git+file://localhost{clone.as_posix()}@{tag}"],
                   cwd=tmp_path)
    assert install.returncode == 0, install.stderr[-2000:]
    work = tmp_path / "work"
    work.mkdir()
    _check_installed(bin_dir, work)
