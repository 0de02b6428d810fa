"""The pre-commit hooks, run by pre-commit itself (from PyPI) on temporary git repositories.

pre-commit installs this repository into its own virtualenv with pip, so these
tests need a reachable package index: `-m "not network"` leaves them out.
The hooks repository is a snapshot of this working tree (tracked and untracked,
not ignored files) committed in a temporary repository, so the tests see the
tree as it is, clean checkout or not.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest
import yaml
from helpers import REPO

PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
# every test here on one worker, in one pre-commit home: see pre_commit_home
pytestmark = pytest.mark.xdist_group("pre-commit")
SILENT_FOLD = "import tvm\nfrom tvm import relay\n\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n\nmod = fold(mod)\n"
CLEAN = (
    "import tvm\nfrom tvm import relay\n\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n\n"
    "with tvm.transform.PassContext(opt_level=3):\n    mod = fold(mod)\n"
)
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "tvmlint tests", "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "tvmlint tests", "GIT_COMMITTER_EMAIL": "tests@example.invalid",
}


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **GIT_IDENTITY}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory) -> Dict[str, str]:
    """This working tree committed in a fresh repository: (path, commit)."""
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=REPO, capture_output=True)
    if listing.returncode != 0:
        pytest.skip("not a git checkout: pre-commit installs hooks from a git repository")
    snapshot = tmp_path_factory.mktemp("hooks-repo")
    for name in listing.stdout.decode().split("\0"):
        source = REPO / name
        if name and source.is_file():
            target = snapshot / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    git("init", "-q", cwd=snapshot)
    git("add", "-A", cwd=snapshot)
    git("commit", "-q", "-m", "snapshot", cwd=snapshot)
    return {"path": str(snapshot), "rev": git("rev-parse", "HEAD", cwd=snapshot).strip()}


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    # shared by the tests here (one xdist worker runs them all: pytestmark), so pre-commit
    # builds the hook's environment once, as it does for a user, and reuses it after
    return tmp_path_factory.mktemp("pre-commit-home")


def project(root: Path, files: Dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git("init", "-q", cwd=root)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, **GIT_IDENTITY, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run([*PRE_COMMIT, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900)


def run_hook(hook_id: str, *files: str, cwd: Path, hooks_repo: Dict[str, str], home: Path) -> subprocess.CompletedProcess:
    """`pre-commit run` of one hook of the snapshot on `files`, from a configuration outside the
    project (`pre-commit try-repo` would do the same, but in a store of its own each time:
    it would build the hook's environment again for every call)."""
    config = cwd.parent / f"{cwd.name}-pre-commit-config.yaml"
    hooks = [{"id": hook_id}]
    config.write_text(yaml.safe_dump({"repos": [{"repo": hooks_repo["path"], "rev": hooks_repo["rev"], "hooks": hooks}]}),
                      encoding="utf-8")
    return pre_commit("run", "--config", str(config), hook_id, "--files", *files, cwd=cwd, home=home)


@pytest.mark.network
def test_the_hook_fails_on_a_silent_fold_and_passes_a_clean_file(tmp_path, hooks_repo, pre_commit_home):
    root = project(tmp_path / "work", {
        "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n',
        "bad.py": SILENT_FOLD,
        "good.py": CLEAN,
    })
    git("add", "-A", cwd=root)
    bad = run_hook("tvmlint", "bad.py", cwd=root, hooks_repo=hooks_repo, home=pre_commit_home)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "TVM101" in bad.stdout and "bad.py" in bad.stdout
    good = run_hook("tvmlint", "good.py", "pyproject.toml", cwd=root, hooks_repo=hooks_repo, home=pre_commit_home)
    assert good.returncode == 0, good.stdout + good.stderr
    assert re.search(r"^tvmlint\.+Passed$", good.stdout, re.M), good.stdout


@pytest.mark.network
def test_a_staged_notebook_is_checked_by_the_hook(tmp_path, hooks_repo, pre_commit_home):
    # types_or [python, jupyter]: pre-commit hands the hook a notebook, reported at its cell
    import json

    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["import tvm\n", "from tvm import relay\n"]},
             {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["mod = relay.transform.FoldScaleAxis()(mod)\n"]}]
    document = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    root = project(tmp_path / "work", {
        "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n',
        "fold.ipynb": json.dumps(document, sort_keys=True, indent=1) + "\n",
    })
    git("add", "-A", cwd=root)
    done = run_hook("tvmlint", "fold.ipynb", cwd=root, hooks_repo=hooks_repo, home=pre_commit_home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cell 2:1:7 TVM101" in done.stdout, done.stdout


def readme_pre_commit_config() -> dict:
    """The .pre-commit-config.yaml the README tells users to write."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", readme, re.S)
    configs = [yaml.safe_load(block) for block in blocks if "repos:" in block and "id: tvmlint" in block]
    assert len(configs) == 1, "the README should show one pre-commit configuration"
    return configs[0]


@pytest.mark.network
def test_readme_snippet_blocks_a_bad_commit_and_lets_a_clean_one_through(tmp_path, hooks_repo, pre_commit_home):
    config = readme_pre_commit_config()
    [entry] = config["repos"]
    assert entry["repo"].startswith("https://") and [hook["id"] for hook in entry["hooks"]] == ["tvmlint"]
    # the snippet's target version comes through args: no pyproject.toml in this project
    assert "--target-version" in entry["hooks"][0].get("args", [])
    entry.update(repo=hooks_repo["path"], rev=hooks_repo["rev"])
    root = project(tmp_path / "work", {".pre-commit-config.yaml": yaml.safe_dump(config), "job.py": SILENT_FOLD})
    installed = pre_commit("install", cwd=root, home=pre_commit_home)
    assert installed.returncode == 0, installed.stderr

    git("add", "-A", cwd=root)
    blocked = subprocess.run(["git", "commit", "-m", "a silent fold"], cwd=root, capture_output=True, text=True,
                             env={**os.environ, **GIT_IDENTITY, "PRE_COMMIT_HOME": str(pre_commit_home)}, timeout=900)
    assert blocked.returncode != 0, blocked.stdout + blocked.stderr
    assert "TVM101" in blocked.stdout + blocked.stderr
    assert subprocess.run(["git", "rev-parse", "--verify", "HEAD"], cwd=root, capture_output=True).returncode != 0

    (root / "job.py").write_text(CLEAN, encoding="utf-8")
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "the fold under opt_level 3", cwd=root)  # the hook runs, and passes
    assert git("log", "--format=%s", cwd=root).strip() == "the fold under opt_level 3"


@pytest.mark.network
def test_args_pass_through_and_no_files_checks_nothing(tmp_path, hooks_repo, pre_commit_home):
    hook = {"id": "tvmlint", "args": ["--target-version", "0.19", "--select", "TVM103"]}
    config = {"repos": [{"repo": hooks_repo["path"], "rev": hooks_repo["rev"], "hooks": [hook]}]}
    root = project(tmp_path / "work", {
        ".pre-commit-config.yaml": yaml.safe_dump(config), "job.py": SILENT_FOLD, "notes.txt": "prose, not Python: (\n",
    })
    git("add", "-A", cwd=root)
    # --select TVM103 leaves TVM101 out
    selected = pre_commit("run", "--files", "job.py", cwd=root, home=pre_commit_home)
    assert selected.returncode == 0, selected.stdout + selected.stderr

    # always_run with no Python file among those given: the hook gets no file names (notes.txt,
    # given to tvmlint, would be a TVM001 parse error), and must not check the whole
    # repository (where job.py would fail at 0.19)
    hook.update(args=["--target-version", "0.19"], always_run=True)
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git("add", "-A", cwd=root)
    nothing = pre_commit("run", "--files", "notes.txt", cwd=root, home=pre_commit_home)
    assert nothing.returncode == 0, nothing.stdout + nothing.stderr
    # ... while the same hook on job.py fails: the target came through
    failing = pre_commit("run", "--files", "job.py", cwd=root, home=pre_commit_home)
    assert failing.returncode == 1 and "TVM101" in failing.stdout, failing.stdout + failing.stderr


HELPER = "from tvm import relay\n\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n"
CALLER = "import tvm\nfrom helper import fold\n\nmod = fold(tvm.IRModule())\n"


@pytest.mark.network
def test_a_staged_helper_gets_what_its_project_reports(tmp_path, hooks_repo, pre_commit_home):
    # the helper's finding comes from its caller, a file that is not staged: the hook reads it too
    import json

    from helpers import run_cli

    root = project(tmp_path / "work", {
        "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n', "helper.py": HELPER, "caller.py": CALLER,
    })
    git("add", "helper.py", "pyproject.toml", cwd=root)
    whole = [f for f in json.loads(run_cli("check", "--format", "json", ".", cwd=root).stdout) if f["path"] == "helper.py"]
    assert [f["code"] for f in whole] == ["TVM101"] and "caller.py:4" in whole[0]["message"]
    staged = run_hook("tvmlint", "helper.py", cwd=root, hooks_repo=hooks_repo, home=pre_commit_home)
    assert staged.returncode == 1, staged.stdout + staged.stderr
    assert "helper.py" in staged.stdout and "TVM101" in staged.stdout and "caller.py:4" in staged.stdout, staged.stdout
    assert "caller.py\n" not in staged.stdout  # read for its calls, not reported on
    # the caller (still unstaged) now enters opt_level 3: the helper passes
    (root / "caller.py").write_text(
        "import tvm\nfrom helper import fold\n\nwith tvm.transform.PassContext(opt_level=3):\n    mod = fold(tvm.IRModule())\n",
        encoding="utf-8")
    passed = run_hook("tvmlint", "helper.py", cwd=root, hooks_repo=hooks_repo, home=pre_commit_home)
    assert passed.returncode == 0, passed.stdout + passed.stderr


DEPRECATED = 'import tvm\nfrom tvm import relay\n\nwith relay.build_config(opt_level=3):\n    lib = relay.build(mod, target="llvm")\n'


@pytest.mark.network
def test_fix_hook_rewrites_and_then_passes(tmp_path, hooks_repo, pre_commit_home):
    root = project(tmp_path / "work", {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n', "job.py": DEPRECATED})
    git("add", "-A", cwd=root)
    first = run_hook("tvmlint-fix", "job.py", cwd=root, hooks_repo=hooks_repo, home=pre_commit_home)
    # the safe TVM202 fix is applied; pre-commit fails the run because a file changed
    assert first.returncode == 1, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout
    assert (root / "job.py").read_text(encoding="utf-8") == DEPRECATED.replace("relay.build_config", "tvm.transform.PassContext")
    git("add", "-A", cwd=root)
    second = run_hook("tvmlint-fix", "job.py", cwd=root, hooks_repo=hooks_repo, home=pre_commit_home)
    assert second.returncode == 0, second.stdout + second.stderr


def test_only_python_files_and_notebooks_are_passed():
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for hook in manifest}
    assert set(hooks) == {"tvmlint", "tvmlint-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["types_or"] == ["python", "jupyter"] and "types" not in hook
        assert hook["entry"].split()[:2] in (["tvmlint", "check"], ["tvmlint", "fix"])


def _daemons(directory: Path, message: dict) -> list:
    """What every daemon with a socket in `directory` answers (the hook's runs from pre-commit's
    own virtualenv, whose interpreter names a socket of its own)."""
    from tvmlint.frontends.daemon import client, protocol

    replies = []
    for path in directory.glob("*.sock"):
        connection = client.connect(path)
        if connection is None:
            continue
        with connection:
            try:
                protocol.send(connection, message)
                replies.append(protocol.receive(connection))
            except OSError:
                pass
    return [reply for reply in replies if reply is not None]


@pytest.mark.network
def test_the_hook_with_daemon_does_not_hold_the_commit_and_is_served(tmp_path, hooks_repo, pre_commit_home, monkeypatch):
    import tempfile
    import time

    directory = Path(tempfile.mkdtemp(prefix="tvd", dir="/tmp"))  # short: a socket path holds about 100 bytes
    monkeypatch.setenv("TVMLINT_DAEMON_DIR", str(directory))
    hook = {"id": "tvmlint", "args": ["--target-version", "0.19", "--daemon"]}
    config = {"repos": [{"repo": hooks_repo["path"], "rev": hooks_repo["rev"], "hooks": [hook]}]}
    root = project(tmp_path / "work", {".pre-commit-config.yaml": yaml.safe_dump(config), "job.py": SILENT_FOLD})
    git("add", "-A", cwd=root)
    try:
        # no daemon yet: this run checks alone and starts one, which must not keep pre-commit
        # waiting on the hook's output (it would until the daemon's idle timeout, an hour)
        first = pre_commit("run", "--files", "job.py", cwd=root, home=pre_commit_home)
        assert first.returncode == 1 and "TVM101" in first.stdout, first.stdout + first.stderr
        deadline = time.monotonic() + 30
        while not _daemons(directory, {"kind": "status"}) and time.monotonic() < deadline:
            time.sleep(0.1)
        [status] = _daemons(directory, {"kind": "status"})
        assert status["served"] == 0
        second = pre_commit("run", "--files", "job.py", cwd=root, home=pre_commit_home)
        # (the first run may also install the hook's environment: pre-commit's [INFO] lines)
        def report(done):
            return done.returncode, [line for line in done.stdout.splitlines() if not line.startswith("[INFO]")]

        assert report(second) == report(first)
        [status] = _daemons(directory, {"kind": "status"})
        assert status["served"] == 1
    finally:
        _daemons(directory, {"kind": "stop"})
        time.sleep(0.5)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.network
def test_an_excluded_file_pre_commit_names_is_not_reported(tmp_path, hooks_repo, pre_commit_home):
    """pre-commit names every staged file: the hook's --force-exclude keeps exclude patterns in force."""
    hook = {"id": "tvmlint"}
    config = {"repos": [{"repo": hooks_repo["path"], "rev": hooks_repo["rev"], "hooks": [hook]}]}
    root = project(tmp_path / "work", {
        ".pre-commit-config.yaml": yaml.safe_dump(config),
        "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\nextend-exclude = ["generated"]\n',
        "job.py": CLEAN,
    })
    (root / "generated").mkdir()
    (root / "generated" / "g.py").write_text(SILENT_FOLD, encoding="utf-8")
    git("add", "-A", cwd=root)
    passed = pre_commit("run", "--all-files", cwd=root, home=pre_commit_home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"^tvmlint\.+Passed$", passed.stdout, re.M), passed.stdout
    # the same file is reported once the hook's args turn force-exclude off
    hook["args"] = ["--no-force-exclude"]
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git("add", "-A", cwd=root)
    failed = pre_commit("run", "--all-files", cwd=root, home=pre_commit_home)
    assert failed.returncode == 1 and "generated/g.py" in failed.stdout and "TVM101" in failed.stdout, failed.stdout
