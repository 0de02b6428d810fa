"""ruff run beside tvmlint on the same `# noqa: TVM101`, with the real ruff (a test dependency).

What the README says about ruff and tvmlint's codes, checked against the installed ruff:
RUF100 (unused-noqa) leaves an unknown code such as TVM101 alone, with or without
`lint.external`; RUF102 (invalid-rule-code) reports it, and its fix removes the directive,
unless `lint.external = ["TVM"]` tells ruff the codes belong to another tool."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ruff")

SOURCE = (
    "import tvm\n"
    "from tvm import relay\n"
    "\n"
    "mod = tvm.IRModule()\n"
    "mod = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101\n"
)
EXTERNAL = '[tool.ruff.lint]\nexternal = ["TVM"]\n'


def _ruff(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *args, "model.py"],
        cwd=cwd, capture_output=True, text=True, timeout=60,
    )


def _tvmlint(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tvmlint", "check", "--no-cache", "--target-version", "0.19",
         "--format", "concise", "model.py"],
        cwd=cwd, capture_output=True, text=True, timeout=60,
    )


@pytest.fixture(params=["plain", "external"])
def project(request, tmp_path):
    (tmp_path / "model.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        EXTERNAL if request.param == "external" else "[tool.ruff]\n", encoding="utf-8"
    )
    return request.param, tmp_path


def test_ruf100_leaves_a_tvmlint_code_alone_with_or_without_external(project):
    _, root = project
    result = _ruff(root, "--select", "RUF100")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "RUF100" not in result.stdout
    fixed = _ruff(root, "--select", "RUF100", "--fix")
    assert fixed.returncode == 0
    assert (root / "model.py").read_text(encoding="utf-8") == SOURCE
    assert _tvmlint(root).returncode == 0  # the directive still suppresses TVM101


def test_ruf102_strips_a_tvmlint_code_unless_external(project):
    kind, root = project
    result = _ruff(root, "--select", "RUF102")
    if kind == "external":
        assert result.returncode == 0, result.stdout
        assert "RUF102" not in result.stdout
    else:
        assert result.returncode == 1
        assert "model.py:5:" in result.stdout and "RUF102" in result.stdout and "TVM101" in result.stdout
    _ruff(root, "--select", "RUF100,RUF102", "--fix")
    text = (root / "model.py").read_text(encoding="utf-8")
    after = _tvmlint(root)
    if kind == "external":
        assert text == SOURCE
        assert after.returncode == 0, after.stdout
    else:
        # ruff removed the directive, so tvmlint's finding comes back
        assert "# noqa" not in text
        assert after.returncode == 1 and "model.py:5:7: TVM101" in after.stdout
