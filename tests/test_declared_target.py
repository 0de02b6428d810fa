"""A project that sets no target-version is checked against the TVM it declares (as ruff reads
`requires-python`), through the command line: the answer does not depend on which TVM is
installed where tvmlint runs, `--show-settings` says where the target came from, and a guess
is said once per run."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli, run_main

FOLD = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
GUESS = "no target-version is set or declared"


def project(root: Path, files: dict) -> Path:
    for name, text in {"fold.py": FOLD, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def target_line(root: Path, path: str = "fold.py") -> str:
    shown = run_main("check", "--show-settings", path, cwd=root)
    assert shown.returncode == 0, shown.stderr
    return next(line for line in shown.stdout.splitlines() if line.startswith("target-version"))


@pytest.mark.parametrize("files, release, source", [
    ({"requirements.txt": "numpy\napache-tvm==0.18.0  # the wheel we deploy\n"}, "0.18",
     "declared: apache-tvm==0.18.0 in requirements.txt"),
    ({"requirements-gpu.txt": "tlcpack-nightly-cu116==0.14.dev170\n"}, "0.14",
     "declared: tlcpack-nightly-cu116==0.14.dev170 in requirements-gpu.txt"),
    ({"pyproject.toml": '[project]\nname = "m"\ndependencies = ["apache-tvm>=0.16,<0.20"]\n'}, "0.16",
     "declared: apache-tvm>=0.16,<0.20 in pyproject.toml"),
    ({"pyproject.toml": '[project]\nname = "m"\n[project.optional-dependencies]\ntvm = ["apache-tvm~=0.12.0"]\n'},
     "0.12", "declared: apache-tvm~=0.12.0 in pyproject.toml"),
])
def test_the_declared_release_is_the_target(tmp_path, files, release, source):
    root = project(tmp_path, files)
    line = target_line(root)
    assert f'target-version = "{release}"' in line and source in line, line
    done = run_main("check", "--no-cache", "--format", "concise", "fold.py", cwd=root)
    # a Relay-era release: the skipped passes, not "relay does not exist" (what the installed 0.27 says)
    assert "TVM101" in done.stdout and "TVM201" not in done.stdout, done.stdout
    assert GUESS not in done.stderr


def test_a_configured_target_wins_over_the_declared_one(tmp_path):
    root = project(tmp_path, {
        "pyproject.toml": '[project]\nname = "m"\ndependencies = ["apache-tvm==0.18.0"]\n'
                          '[tool.tvmlint]\ntarget-version = "0.8"\n',
    })
    assert 'target-version = "0.8"' in target_line(root)
    assert '"0.14"' in run_main("check", "--show-settings", "--target-version", "0.14", "fold.py", cwd=root).stdout


def test_a_subproject_declares_its_own(tmp_path):
    # the nearest pyproject.toml's requirement, with or without [tool.tvmlint]
    root = project(tmp_path, {
        "requirements.txt": "apache-tvm==0.18.0\n",
        "legacy/pyproject.toml": '[project]\nname = "old"\ndependencies = ["tlcpack==0.8.0"]\n',
        "legacy/fold.py": FOLD,
    })
    assert '"0.18"' in target_line(root, "fold.py")
    assert '"0.8"' in target_line(root, "legacy/fold.py")


def test_a_release_tvmlint_does_not_know_is_said_not_mapped(tmp_path):
    root = project(tmp_path, {"requirements.txt": "apache-tvm==0.31.0\n"})
    line = target_line(root)
    assert "apache-tvm==0.31.0 in requirements.txt names TVM 0.31, which tvmlint does not know" in line, line
    done = run_main("check", "--no-cache", "fold.py", cwd=root)
    assert done.returncode == 1
    assert done.stderr.count(GUESS) == 1 and "0.31" in done.stderr


def test_a_guess_is_said_once_and_not_with_quiet(tmp_path):
    root = project(tmp_path, {"other.py": FOLD, "sub/more.py": FOLD})
    done = run_main("check", "--no-cache", ".", cwd=root)
    assert done.stderr.count(GUESS) == 1, done.stderr
    assert GUESS not in run_main("check", "--no-cache", "-q", ".", cwd=root).stderr
    assert GUESS not in run_main("check", "--no-cache", "--target-version", "0.19", ".", cwd=root).stderr
    fixed = run_main("fix", "--no-cache", ".", cwd=root)
    assert fixed.stderr.count(GUESS) == 1, fixed.stderr


def test_a_requirements_file_that_is_a_fifo_is_not_waited_on(tmp_path):
    import os

    root = project(tmp_path, {})
    os.mkfifo(root / "requirements.txt")
    done = run_cli("check", "--no-cache", "--format", "concise", "fold.py", cwd=root, timeout=60)
    assert done.returncode == 1 and "fold.py" in done.stdout
