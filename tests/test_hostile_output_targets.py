"""Hostile output targets (issue #29): `--output-file` writes a path as what it is, and `fix`
leaves a read-only file alone, also as root (CI containers run as root)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from tests.helpers import run_cli

SOURCE = "import tvm\nwith tvm.transform.PassContext(opt_level=7):\n    pass\n"


@pytest.fixture
def job(tmp_path: Path) -> Path:
    (tmp_path / "job.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_a_device_stays_a_device(job: Path):
    device = job / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
    done = run_cli("check", "-o", str(device), "job.py", cwd=job)
    assert done.returncode == 1, done.stderr
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert os.major(os.lstat(device).st_rdev) == 1 and os.minor(os.lstat(device).st_rdev) == 3
    assert not [p.name for p in job.iterdir() if p.name.startswith(".null.")]  # no temporary left


def test_a_fifo_is_written_through_and_stays_a_fifo(job: Path):
    fifo = job / "report"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = run_cli("check", "-o", str(fifo), "job.py", cwd=job)
    reader.join(10)
    assert done.returncode == 1, done.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert b"TVM303" in received[0]


def test_a_symlink_is_followed_and_kept(job: Path):
    (job / "out").mkdir()
    link = job / "latest.txt"
    link.symlink_to(Path("out") / "report.txt")
    done = run_cli("check", "-o", "latest.txt", "job.py", cwd=job)
    assert done.returncode == 1, done.stderr
    assert link.is_symlink() and os.readlink(link) == os.path.join("out", "report.txt")
    assert "TVM303" in (job / "out" / "report.txt").read_text(encoding="utf-8")


def test_stdout_by_name_is_the_stream(job: Path):
    done = run_cli("check", "-o", "/dev/stdout", "job.py", cwd=job)
    assert done.returncode == 1, done.stderr
    assert "TVM303" in done.stdout


@pytest.mark.parametrize("paths", [["job.py"], ["."], []])
def test_a_checked_file_is_never_the_report(job: Path, paths):
    done = run_cli("check", "-o", "job.py", *paths, cwd=job)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"tvmlint: error: --output-file job.py is one of the files checked ({paths[0] if paths else '.'}): "
        "the report would overwrite it"
    ]
    assert (job / "job.py").read_text(encoding="utf-8") == SOURCE


def test_a_regular_report_keeps_its_mode(job: Path):
    report = job / "report.txt"
    report.write_text("old\n", encoding="utf-8")
    report.chmod(0o640)
    done = run_cli("check", "-o", "report.txt", "job.py", cwd=job)
    assert done.returncode == 1, done.stderr
    assert stat.S_IMODE(report.stat().st_mode) == 0o640
    assert "TVM303" in report.read_text(encoding="utf-8")


def test_fix_leaves_a_read_only_file_alone_even_as_root(tmp_path: Path):
    path = tmp_path / "job.py"
    original = "from tvm.contrib import graph_runtime\nm = graph_runtime.create(1, 2, 3)\n"
    path.write_text(original, encoding="utf-8")
    path.chmod(0o444)
    try:
        done = run_cli("fix", "--target-version", "0.8", "job.py", cwd=tmp_path)
        assert path.read_text(encoding="utf-8") == original
        assert "left untouched" in done.stderr and "read-only" in done.stderr
        assert stat.S_IMODE(path.stat().st_mode) == 0o444
    finally:
        path.chmod(0o644)


def test_fix_writes_through_a_symlink_and_gives_a_hard_link_a_file_of_its_own(tmp_path: Path):
    original = "from tvm.contrib import graph_runtime\nm = graph_runtime.create(1, 2, 3)\n"
    real = tmp_path / "real.py"
    real.write_text(original, encoding="utf-8")
    (tmp_path / "link.py").symlink_to("real.py")
    os.link(real, tmp_path / "hard.py")
    done = run_cli("fix", "--no-cache", "--target-version", "0.8", "link.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert os.readlink(tmp_path / "link.py") == "real.py"
    assert "graph_executor" in real.read_text(encoding="utf-8")
    assert (tmp_path / "hard.py").read_text(encoding="utf-8") == original  # the other name keeps the old text
    assert not real.samefile(tmp_path / "hard.py")
