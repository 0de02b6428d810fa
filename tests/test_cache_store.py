"""The result cache's store: files vouched for by their status, whole runs kept, concurrent runs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from helpers import CASE_TARGET, run_cli, write_tree

import tvmlint.run.cache as cache_module
from tvmlint.base import filestate
from tvmlint.run.cache import ResultCache
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.runner import check_paths

GATED = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
# the same length, with a pass no Sequential gates
ENTERED = GATED.replace("FoldScaleAxis()", "FoldConstant() ")
HELPERS = "from tvm import relay\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n"
APP = "from helpers import fold\nmod = fold(mod)\n"


def _run(root: Path):
    resolver = SettingsResolver(Overrides(target_version=CASE_TARGET), cwd=root)
    return check_paths([root], resolver, jobs=1, use_cache=True)


def _shown(report):
    return [(f.path, f.start, f.code, f.message, f.detail) for f in report.findings]  # the detail survives the cache too


@pytest.fixture
def reads(monkeypatch):
    """Every file tvmlint reads for the cache (to hash it or to check it)."""
    seen = []
    real = cache_module.read_signed

    def counting(path):
        seen.append(os.path.basename(path))
        return real(path)

    monkeypatch.setattr(cache_module, "read_signed", counting)
    return seen


def test_files_whose_status_vouches_for_them_are_not_read_again(tmp_path, monkeypatch, reads):
    # the files were just written: with the real margin their status vouches for nothing yet
    monkeypatch.setattr(filestate, "RACY_NS", 0)
    write_tree(tmp_path, {"a.py": GATED, "b.py": "x = 1\n"})
    first = _run(tmp_path)
    assert sorted(set(reads)) == ["a.py", "b.py"]
    reads.clear()
    second = _run(tmp_path)
    assert reads == []
    assert _shown(second) == _shown(first) and first.findings
    write_tree(tmp_path, {"b.py": "x = 22\n"})
    third = _run(tmp_path)
    assert set(reads) == {"b.py"}
    assert _shown(third) == _shown(first)


def test_a_rewrite_that_keeps_size_and_mtime_is_noticed(tmp_path, monkeypatch):
    monkeypatch.setattr(filestate, "RACY_NS", 0)  # so the status alone would decide
    write_tree(tmp_path, {"a.py": GATED})
    assert [f.code for f in _run(tmp_path).findings] == ["TVM101"]
    path = tmp_path / "a.py"
    before = path.stat()
    path.write_text(ENTERED)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as rsync -t or cp -p leave it
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert _run(tmp_path).findings == []


TICK = 1_700_000_000 * 10**9


class _CoarseClock:
    """A file system with a one-second clock and no change time, a clock of our own, and
    a.py last written at TICK."""

    def __init__(self, monkeypatch, root: Path):
        self.now = 0
        monkeypatch.setattr(cache_module, "now_ns", lambda: self.now)
        monkeypatch.setattr(
            cache_module, "signature",
            lambda status: (status.st_size, status.st_mtime_ns // 10**9 * 10**9, 0, status.st_ino, status.st_dev),
        )
        self.cache = ResultCache(root / "cache")
        self.path = root / "a.py"
        self.write(GATED)

    def write(self, text: str) -> None:
        self.path.write_text(text)
        os.utime(self.path, ns=(TICK, TICK))

    def digest(self, now: int) -> str:
        self.now = now
        return self.cache.digest(str(self.path))


def test_a_same_size_write_in_the_same_tick_is_noticed(tmp_path, monkeypatch, reads):
    clock = _CoarseClock(monkeypatch, tmp_path)
    first = clock.digest(TICK + 500_000_000)  # read in the tick of the last write
    clock.write(ENTERED)  # a second write in that tick: the same size and mtime
    assert clock.digest(TICK + 10 * 10**9) != first
    assert reads == ["a.py", "a.py"]


def test_a_status_taken_well_after_the_last_write_is_trusted(tmp_path, monkeypatch, reads):
    clock = _CoarseClock(monkeypatch, tmp_path)
    first = clock.digest(TICK + 5 * 10**9)
    assert clock.digest(TICK + 6 * 10**9) == first
    assert reads == ["a.py"]


def test_a_run_where_nothing_changed_imports_no_rule_and_no_libcst(tmp_path):
    write_tree(tmp_path, {"helpers.py": HELPERS, "app.py": APP, "other.py": GATED})
    args = ["check", ".", "--format", "json", "--target-version", CASE_TARGET]
    first = run_cli(*args, cwd=tmp_path)
    assert first.returncode == 1, first.stderr
    probe = (
        "import json, sys\n"
        "from tvmlint.frontends.cli import main\n"
        f"code = main({args!r})\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'libcst' or m.startswith('tvmlint.checks'))))\n"
    )
    done = _python(probe, tmp_path)
    assert done.returncode == 0, done.stderr
    *output, last = done.stdout.rstrip("\n").split("\n")
    findings = json.loads("\n".join(output))
    assert findings == json.loads(first.stdout)
    assert any("app.py:2" in finding["message"] for finding in findings)  # judged across modules
    assert json.loads(last) == []


def _python(code: str, cwd: Path):
    import subprocess

    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_a_kept_run_still_has_each_findings_facts(tmp_path):
    write_tree(tmp_path, {"helpers.py": HELPERS, "app.py": APP})
    first = _run(tmp_path)
    second = _run(tmp_path)
    assert second.cache_hits == 2
    assert [dict(f.facts) for f in second.findings] == [dict(f.facts) for f in first.findings]
    assert first.findings and all(f.facts for f in first.findings)


def test_a_changed_helper_is_not_answered_by_a_kept_run(tmp_path):
    write_tree(tmp_path, {"helpers.py": HELPERS, "app.py": APP})
    assert [f.path for f in _run(tmp_path).findings] == ["helpers.py"]
    write_tree(tmp_path, {"helpers.py": "def fold(mod):\n    return mod\n"})
    assert _run(tmp_path).findings == []


def test_concurrent_runs_keep_each_others_results(tmp_path):
    one, two = ResultCache(tmp_path), ResultCache(tmp_path)
    one.put("k1", b"one")
    two.put("k2", b"two")
    one.save()
    two.save()
    again = ResultCache(tmp_path)
    assert again.get("k1") == b"one" and again.get("k2") == b"two"


def test_a_damaged_store_is_started_afresh(tmp_path):
    write_tree(tmp_path, {"a.py": GATED})
    first = _run(tmp_path)
    (store,) = (tmp_path / ".tvmlint_cache").glob("store-*.pickle")
    store.write_bytes(b"not a pickle")
    assert _shown(_run(tmp_path)) == _shown(first)
    assert _run(tmp_path).cache_hits == 1


def test_other_builds_stores_and_the_old_layout_go(tmp_path):
    directory = tmp_path / "cache"
    (directory / "results" / "ab").mkdir(parents=True)
    (directory / "results" / "ab" / "cdef").write_bytes(b"old")
    (directory / "CACHEDIR.TAG").write_text(cache_module.TAG)  # an older tvmlint's cache
    for number in range(8):
        old = directory / f"store-{number:020x}.pickle"
        old.write_bytes(b"x")
        os.utime(old, (1_000_000 + number, 1_000_000 + number))
    cache = ResultCache(directory)
    cache.put("k", b"v")
    cache.save()
    left = sorted(path.name for path in directory.glob("store-*.pickle"))
    assert cache.path.name in left
    assert len(left) == cache_module.KEEP_STORES + 1
    assert f"store-{7:020x}.pickle" in left and f"store-{0:020x}.pickle" not in left  # the newest stay
    assert not (directory / "results").exists()


def test_results_unused_for_a_month_go(tmp_path):
    cache = ResultCache(tmp_path)
    cache.put("old", b"1")
    cache.save()
    later = ResultCache(tmp_path)
    later._today += cache_module.STALE_DAYS + 1
    later.put("new", b"2")
    later.save()
    assert set(ResultCache(tmp_path).results) == {"new"}


def test_a_run_on_one_file_keeps_the_trees_results(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "SPARE_RESULTS", 0)
    write_tree(tmp_path, {"a.py": GATED, "b.py": "x = 1\n", "c.py": "y = 2\n"})
    _run(tmp_path)
    directory = tmp_path / ".tvmlint_cache"
    before = set(ResultCache(directory).results)
    resolver = SettingsResolver(Overrides(target_version=CASE_TARGET), cwd=tmp_path)
    write_tree(tmp_path, {"b.py": "x = 11\n"})
    check_paths([tmp_path / "b.py"], resolver, jobs=1, use_cache=True)
    after = set(ResultCache(directory).results)
    assert before < after and len(after) == len(before) + 1


def test_past_the_limit_the_least_recently_used_results_go(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "SPARE_RESULTS", 2)
    cache = ResultCache(tmp_path)
    cache.record(str(tmp_path / "a.py"), ((1, 2, 3, 4, 5), cache_module.now_ns(), "digest"))
    for number in range(8):
        cache.put(f"old{number}", b"x")
    cache.save()
    later = ResultCache(tmp_path)
    later._today += 1
    assert later.get("old3") == b"x"
    later.put("new", b"y")
    later.save()
    kept = set(ResultCache(tmp_path).results)
    assert len(kept) == cache_module.RESULTS_PER_FILE + 2
    assert {"old3", "new"} <= kept


class _Planted:
    """Unpickling this runs a command: what a store committed to a hostile repository can hold."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"echo ran > '{self.marker}'",))


def test_a_store_that_came_with_the_tree_is_never_unpickled(tmp_path):
    """The store sits in the checked tree (.tvmlint_cache, or wherever its pyproject.toml's
    cache-dir says), and its name follows from tvmlint's build: a repository can ship one.
    Unpickling it ran its code; a store is now trusted only with the user's own key's seal."""
    import pickle

    write_tree(tmp_path, {"a.py": GATED, "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n'})
    marker = tmp_path.parent / f"{tmp_path.name}-MARKER"
    store = ResultCache(tmp_path / ".tvmlint_cache").path  # the name the run will read
    store.parent.mkdir()
    store.write_bytes(pickle.dumps(_Planted(marker)))
    (store.parent / "CACHEDIR.TAG").write_text(cache_module.TAG)  # as tvmlint's own cache has
    result = run_cli("check", "--format", "concise", ".", cwd=tmp_path)
    assert not marker.exists(), "the planted store was unpickled"
    assert result.returncode == 1 and "a.py:3:7: TVM101" in result.stdout, result.stdout + result.stderr
    again = run_cli("check", "--format", "concise", ".", cwd=tmp_path)  # the run's own store is read back
    assert again.stdout == result.stdout and not marker.exists()
    assert store.read_bytes() != pickle.dumps(_Planted(marker))


def test_a_cache_dir_that_holds_other_files_is_left_alone(tmp_path):
    """`cache-dir = "."` (or a build/ or out/ of the project): the cleanup of the old layout
    deleted the directory's results/ with everything in it, and the cache's .gitignore (`*`)
    and CACHEDIR.TAG told git and backup tools to skip the whole project."""
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\ncache-dir = "."\n',
        "a.py": GATED,
        "results/run1.csv": "precious\n",
        "store-mine.pickle": "a file of the user's that looks like an old store\n",
    })
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = run_cli("check", "--format", "concise", ".", cwd=tmp_path)
    assert result.returncode == 1 and "a.py:3:7: TVM101" in result.stdout
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert (tmp_path / "results" / "run1.csv").read_text() == "precious\n"
    assert result.stderr.strip() == (
        f"tvmlint: {tmp_path}: not used for the result cache: it holds files that are not tvmlint's "
        "(cache-dir must name a directory of its own)"
    )


# -- a long-lived process keeps its stores (the daemon: cache.keep_stores) ----------------------

@pytest.fixture
def kept_stores(monkeypatch):
    monkeypatch.setattr(cache_module, "_KEPT", None)
    cache_module.keep_stores()


def _store_of(root: Path):
    return cache_module.open_store(root / cache_module.DEFAULT_DIR)


def test_a_kept_store_is_handed_to_the_next_run_while_its_files_are_unchanged(tmp_path, kept_stores, monkeypatch):
    write_tree(tmp_path, {"a.py": GATED})
    first = _run(tmp_path)
    store = _store_of(tmp_path)
    read = []
    monkeypatch.setattr(cache_module.ResultCache, "_read", lambda self: read.append(self) or None)
    assert _store_of(tmp_path) is store and not read  # not read again
    second = _run(tmp_path)
    assert _shown(second) == _shown(first) and first.findings
    assert second.cache_hits == 1 and not read  # the whole run's findings, from the store in memory


def test_a_store_another_run_wrote_is_read_again(tmp_path, kept_stores):
    write_tree(tmp_path, {"a.py": GATED, "b.py": "x = 1\n"})
    _run(tmp_path)
    store = _store_of(tmp_path)
    other = ResultCache(tmp_path / cache_module.DEFAULT_DIR)  # another process's run
    other.record(str(tmp_path / "c.py"), store.files[str(tmp_path / "a.py")])
    other.save()
    again = _store_of(tmp_path)
    assert again is not store and str(tmp_path / "c.py") in again.files


def test_a_long_lived_process_keeps_the_latest_few_stores(tmp_path, kept_stores, monkeypatch):
    monkeypatch.setattr(cache_module, "KEEP_OPEN", 2)
    roots = []
    for name in ("one", "two", "three"):
        root = tmp_path / name
        write_tree(root, {"a.py": GATED})
        _run(root)
        roots.append(root)
    assert len(cache_module._KEPT) == 2
    assert {directory for directory, _key in cache_module._KEPT} == {
        roots[1] / cache_module.DEFAULT_DIR, roots[2] / cache_module.DEFAULT_DIR}


@pytest.mark.parametrize("what", ["tag", "store"])  # (the facts file is read as the store is)
def test_a_fifo_or_a_device_in_the_cache_directory_is_not_waited_on(tmp_path, what):
    # a tree can ship its .tvmlint_cache: what is not a regular file there is not read
    write_tree(tmp_path, {"a.py": GATED})
    first = _run(tmp_path)
    directory = tmp_path / cache_module.DEFAULT_DIR
    store = ResultCache(directory)
    target = {"tag": directory / cache_module.TAG_NAME, "store": store.path}[what]
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    done = run_cli("check", "a.py", "--target-version", CASE_TARGET, cwd=tmp_path, timeout=60)
    assert done.returncode == 1 and "TVM101" in done.stdout, done.stderr
    assert _shown(_run(tmp_path)) == _shown(first)
    target.unlink()
    target.symlink_to("/dev/zero")
    assert _shown(_run(tmp_path)) == _shown(first)
