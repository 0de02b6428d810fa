"""One file checked alone reports what a check of its whole project reports for it.

A finding judged across modules (examples/relay_era/passes.py's helper, whose callers are in
compile_model.py) used to appear only when its callers' files were named in the same run.
These tests run the command line on a copy of that project (and on small ones of their own):
one file, several files, a buffer on stdin, each against the whole-tree check.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest
from helpers import REPO, run_cli, run_main, write_tree

from tvmlint.run.config import SettingsResolver
from tvmlint.run.runner import check_paths

QUICK = "def quick(mod):\n    return fold_scales(mod)"
QUICK_UNDER_LEVEL_3 = "def quick(mod):\n    with tvm.transform.PassContext(opt_level=3):\n        return fold_scales(mod)"
HELPER = "from tvm import relay\n\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n"
CALLER = "import tvm\nfrom helper import fold\n\nmod = fold(tvm.IRModule())\n"


@pytest.fixture
def relay_era(tmp_path) -> Path:
    """A copy of examples/relay_era (its pyproject.toml makes it a project) under tmp_path."""
    shutil.copytree(REPO / "examples" / "relay_era", tmp_path / "relay_era")
    return tmp_path / "relay_era"


def findings(*args: str, cwd: Path) -> List[dict]:
    done = run_main("check", "--format", "json", *args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def on(path: str, found: List[dict]) -> List[dict]:
    return [finding for finding in found if finding["path"] == path]


def test_each_file_alone_reports_what_its_project_reports(relay_era):
    cwd = relay_era.parent
    whole = findings("relay_era", cwd=cwd)
    # the case of the issue: the helper's finding comes from its callers in compile_model.py
    [helper] = on("relay_era/passes.py", whole)
    assert helper["code"] == "TVM101" and "compile_model.py:18" in helper["message"], helper
    files = sorted(p.name for p in relay_era.iterdir() if p.suffix in (".py", ".ipynb"))
    assert len(files) >= 6
    for name in files:
        alone = findings(f"relay_era/{name}", cwd=cwd)
        # the same findings, and none of the other files' (they were read, not reported on)
        assert alone == on(f"relay_era/{name}", whole), name
    # a few files named, as pre-commit hands them over: each gets its whole-tree findings
    two = findings("relay_era/passes.py", "relay_era/fast_math_build.py", cwd=cwd)
    assert two == on("relay_era/fast_math_build.py", whole) + on("relay_era/passes.py", whole)


def test_named_from_elsewhere_and_by_absolute_path(relay_era, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    [finding] = findings(str(relay_era / "passes.py"), cwd=elsewhere)
    assert finding["code"] == "TVM101" and finding["path"] == str(relay_era / "passes.py")


def test_a_changed_caller_changes_the_answer_and_only_it_is_read_again(relay_era):
    cwd = relay_era.parent
    assert [f["code"] for f in findings("relay_era/passes.py", cwd=cwd)] == ["TVM101"]
    caller = relay_era / "compile_model.py"
    original = caller.read_text(encoding="utf-8")
    caller.write_text(original.replace(QUICK, QUICK_UNDER_LEVEL_3), encoding="utf-8")
    # both callers now enter opt_level 3: the helper's passes run
    assert findings("relay_era/passes.py", cwd=cwd) == []
    assert on("relay_era/passes.py", findings("relay_era", cwd=cwd)) == []
    caller.write_text(original, encoding="utf-8")
    assert [f["code"] for f in findings("relay_era/passes.py", cwd=cwd)] == ["TVM101"]

    # the project's facts come from the result cache: a change to one caller reads that file again
    caller.write_text(original.replace(QUICK, QUICK_UNDER_LEVEL_3) + "\n", encoding="utf-8")
    report = check_paths([relay_era / "passes.py"], SettingsResolver(cwd=cwd), jobs=1, project=True)
    assert (report.files_seen, report.context_files) == (1, 6)
    assert report.findings == [] and report.cache_hits == 6  # every file but compile_model.py


def test_after_its_own_edit_a_file_that_reads_its_project_reports_what_the_whole_tree_does(relay_era):
    # pre-commit's and an editor's case: the project's index is warm, the file itself changed.
    # Each answer against a check of the whole tree without the cache
    cwd = relay_era.parent
    findings("relay_era", cwd=cwd)
    helper = relay_era / "passes.py"
    original = helper.read_text(encoding="utf-8")
    under_its_own = original.replace("from tvm import relay\n", "import tvm\nfrom tvm import relay\n").replace(
        "    return relay.transform.FoldScaleAxis()(mod)",
        "    with tvm.transform.PassContext(opt_level=3):\n        return relay.transform.FoldScaleAxis()(mod)")
    for text, codes in ((original + "\n# edited\n", ["TVM101"]), (under_its_own, []), (original, ["TVM101"])):
        helper.write_text(text, encoding="utf-8")
        alone = findings("relay_era/passes.py", cwd=cwd)
        assert alone == on("relay_era/passes.py", findings("--no-cache", "relay_era", cwd=cwd))
        assert [f["code"] for f in alone] == codes
    helper.write_text(original + "\n# edited again\n", encoding="utf-8")
    report = check_paths([helper], SettingsResolver(cwd=cwd), jobs=1, project=True)
    assert (report.files_seen, report.context_files) == (1, 6) and [f.code for f in report.findings] == ["TVM101"]
    assert report.cache_hits >= 6  # the other files' results came from the index


def test_a_file_that_read_its_project_last_time_goes_to_it_at_once(relay_era, monkeypatch):
    # passes.py is then analysed once, in its project, not first alone as well
    from tvmlint.run import runner

    resolver = SettingsResolver(cwd=relay_era.parent)
    helper, caller = relay_era / "passes.py", relay_era / "compile_model.py"
    runs = []
    real = runner.check_files
    monkeypatch.setattr(runner, "check_files", lambda named, *a, **k: runs.append(bool(k.get("context"))) or real(named, *a, **k))
    first = check_paths([helper], resolver, jobs=1, project=True)
    assert runs == [False, True] and [f.code for f in first.findings] == ["TVM101"]
    helper.write_text(helper.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    runs.clear()
    again = check_paths([helper], resolver, jobs=1, project=True)
    assert runs == [True] and again.context_files == 6
    assert [(f.code, f.message) for f in again.findings] == [(f.code, f.message) for f in first.findings]
    # a file that settled alone is still checked alone first
    runs.clear()
    check_paths([caller], resolver, jobs=1, project=True)
    check_paths([caller], resolver, jobs=1, project=True)
    assert runs == [False, False]
    # without the cache there is nothing to go by
    runs.clear()
    check_paths([helper], resolver, jobs=1, use_cache=False, project=True)
    assert runs == [False, True]


def test_a_buffer_that_read_its_project_last_time_goes_to_it_at_once(relay_era, monkeypatch):
    # the editor's case: a buffer's check opens no store, so the language server's process
    # remembers which buffers read their project; the next check of one is not done alone first
    from tvmlint.run import runner
    from tvmlint.run.runner import check_text_in_project

    monkeypatch.setattr(runner, "_BUFFERS_READING_PROJECT", set())
    resolver = SettingsResolver(cwd=relay_era.parent)
    helper, caller = relay_era / "passes.py", relay_era / "compile_model.py"
    runs = []
    real = runner.check_files
    monkeypatch.setattr(runner, "check_files", lambda named, *a, **k: runs.append(bool(k.get("context"))) or real(named, *a, **k))
    text = helper.read_text(encoding="utf-8")
    first = check_text_in_project(text, helper, resolver, jobs=1)
    assert runs == [False, True] and [f.code for f in first] == ["TVM101"]
    runs.clear()
    typed = check_text_in_project(text + "\n# typed\n", helper, resolver, jobs=1)
    assert runs == [True]
    assert [(f.code, f.message, f.start) for f in typed] == [(f.code, f.message, f.start) for f in first]
    # fixed in the buffer: its project's run says it is clean, as its check alone would
    fixed = text.replace("from tvm import relay", "import tvm\nfrom tvm import relay").replace(
        "    return relay.transform.FoldScaleAxis()(mod)",
        "    with tvm.transform.PassContext(opt_level=3):\n        return relay.transform.FoldScaleAxis()(mod)")
    assert check_text_in_project(fixed, helper, resolver, jobs=1) == []
    # a buffer that settles alone is still checked alone first
    runs.clear()
    caller_text = caller.read_text(encoding="utf-8")
    check_text_in_project(caller_text, caller, resolver, jobs=1)
    check_text_in_project(caller_text, caller, resolver, jobs=1)
    assert runs == [False, False]


def test_only_a_file_whose_findings_wait_on_others_reads_the_project(relay_era):
    resolver = SettingsResolver(cwd=relay_era.parent)
    # compile_model.py's findings are its own: checked alone (the project gate off), it settles
    own = check_paths([relay_era / "compile_model.py"], resolver, jobs=1, project=True)
    assert own.settled and own.context_files == 0 and {f.code for f in own.findings} == {"TVM103", "TVM108"}
    # passes.py's finding is judged by its callers: the project's six other files are read
    helper = check_paths([relay_era / "passes.py"], resolver, jobs=1, project=True)
    assert helper.context_files == 6 and [f.code for f in helper.findings] == ["TVM101"]


def test_without_project_the_api_judges_the_named_files_alone(relay_era):
    # check_paths' default, for callers that mean the files they name and nothing else
    report = check_paths([relay_era / "passes.py"], SettingsResolver(cwd=relay_era.parent), jobs=1, use_cache=False)
    assert report.findings == [] and report.context_files == 0


def test_an_excluded_caller_does_not_count(relay_era):
    cwd = relay_era.parent
    settings = relay_era / "pyproject.toml"
    settings.write_text(settings.read_text(encoding="utf-8") + 'extend-exclude = ["compile_model.py"]\n', encoding="utf-8")
    assert on("relay_era/passes.py", findings("relay_era", cwd=cwd)) == []
    assert findings("relay_era/passes.py", cwd=cwd) == []


def test_a_caller_git_ignores_does_not_count(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    caller = CALLER.replace("from helper", "from pkg.helper")
    write_tree(root, {"jobs/caller.py": caller, "pkg/__init__.py": "", "pkg/helper.py": HELPER, "pkg/caller.py": caller})
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    # no settings file: the git work tree is the project; its callers in jobs/ and pkg/ count
    for named in ("pkg/helper.py", str(root / "pkg" / "helper.py")):
        [finding] = findings(named, "--target-version", "0.19", cwd=root)
        assert finding["code"] == "TVM101" and "caller.py:4" in finding["message"], finding
    (root / ".gitignore").write_text("jobs/\npkg/caller.py\n", encoding="utf-8")
    assert on("pkg/helper.py", findings(".", "--target-version", "0.19", cwd=root)) == []
    assert findings("pkg/helper.py", "--target-version", "0.19", cwd=root) == []


def test_a_script_outside_any_project_reads_its_own_folder(tmp_path):
    folder = tmp_path / "scripts"
    write_tree(folder, {"helper.py": HELPER, "caller.py": CALLER})
    [finding] = findings("helper.py", "--target-version", "0.19", cwd=folder)
    assert finding["code"] == "TVM101" and "caller.py:4" in finding["message"]
    assert findings("helper.py", "--target-version", "0.19", cwd=folder) == findings(".", "--target-version", "0.19", cwd=folder)
    # a caller that enters opt_level 3 beside it: nothing to report
    (folder / "caller.py").write_text(
        "import tvm\nfrom helper import fold\n\nwith tvm.transform.PassContext(opt_level=3):\n    mod = fold(tvm.IRModule())\n",
        encoding="utf-8")
    assert findings("helper.py", "--target-version", "0.19", cwd=folder) == []


def test_stdin_stands_for_its_file_in_the_project(relay_era):
    cwd = relay_era.parent
    text = (relay_era / "passes.py").read_text(encoding="utf-8")
    same = run_main("check", "--format", "json", "--stdin-filename", "relay_era/passes.py", "-", cwd=cwd, stdin=text)
    assert json.loads(same.stdout) == findings("relay_era/passes.py", cwd=cwd)
    # the buffer, not the file on disk: a helper that enters opt_level 3 itself is clean
    fixed = text.replace("from tvm import relay", "import tvm\nfrom tvm import relay").replace(
        "    return relay.transform.FoldScaleAxis()(mod)",
        "    with tvm.transform.PassContext(opt_level=3):\n        return relay.transform.FoldScaleAxis()(mod)")
    clean = run_main("check", "--format", "json", "--stdin-filename", "relay_era/passes.py", "-", cwd=cwd, stdin=fixed)
    assert clean.returncode == 0 and json.loads(clean.stdout) == [], clean.stdout + clean.stderr
    # and the buffer's own calls count for the others' facts: a caller buffer calling under opt_level 3
    caller = (relay_era / "compile_model.py").read_text(encoding="utf-8")
    calls = run_main("check", "--format", "json", "--stdin-filename", "relay_era/compile_model.py", "-", cwd=cwd,
                    stdin=caller.replace(QUICK, QUICK_UNDER_LEVEL_3))
    assert [f["code"] for f in json.loads(calls.stdout)] == ["TVM103", "TVM108"], calls.stdout


def test_show_settings_says_where_callers_are_read_from(relay_era, tmp_path):
    shown = run_main("check", "--show-settings", "relay_era/passes.py", cwd=relay_era.parent)
    assert f"Callers read from: {relay_era.resolve()} (the folder of its settings file)" in shown.stdout, shown.stdout
    write_tree(tmp_path / "loose", {"job.py": CALLER})
    loose = run_main("check", "--show-settings", "job.py", cwd=tmp_path / "loose")
    assert f"Callers read from: {(tmp_path / 'loose').resolve()} (its own folder, without subfolders" in loose.stdout
    if shutil.which("git") is not None:
        subprocess.run(["git", "init", "-q"], cwd=tmp_path / "loose", check=True)
        (tmp_path / "loose" / "sub").mkdir()
        os.replace(tmp_path / "loose" / "job.py", tmp_path / "loose" / "sub" / "job.py")
        tree = run_main("check", "--show-settings", "sub/job.py", cwd=tmp_path / "loose")
        assert f"Callers read from: {(tmp_path / 'loose').resolve()} (the git work tree it is in)" in tree.stdout


def test_a_directory_named_is_judged_with_the_rest_of_its_project(tmp_path):
    root = tmp_path / "proj"
    caller = CALLER.replace("from helper", "from pkg.helper")
    write_tree(root, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n',
                      "pkg/__init__.py": "", "pkg/helper.py": HELPER, "jobs/caller.py": caller})
    whole = findings(".", cwd=root)
    [finding] = on("pkg/helper.py", whole)
    assert finding["code"] == "TVM101" and "jobs/caller.py:4" in finding["message"]
    assert findings("pkg", cwd=root) == [finding]
    assert findings("pkg/", "jobs/caller.py", cwd=root) == [finding] + on("jobs/caller.py", whole)


def test_a_check_of_the_whole_project_is_an_ordinary_run(relay_era, monkeypatch):
    # naming the project's folder needs no file beyond it: the run is gated and its findings kept
    # whole as before, not checked file by file first as a lone file is
    from tvmlint.run import gate

    gated = []
    real = gate.withheld_codes
    monkeypatch.setattr(gate, "withheld_codes", lambda *args, **kwargs: gated.append(1) or real(*args, **kwargs))
    resolver = SettingsResolver(cwd=relay_era.parent)
    first = check_paths([relay_era], resolver, jobs=1, project=True)
    assert gated and first.context_files == 0 and first.files_seen == 7
    again = check_paths([relay_era], resolver, jobs=1, project=True)
    assert again.findings == first.findings and len(gated) == 1  # the stored run answered: no gate asked
    # a lone file asks the gate only in its project's run, after it was found not to settle alone
    gated.clear()
    check_paths([relay_era / "compile_model.py"], resolver, jobs=1, project=True)
    assert not gated


def test_a_fifo_and_a_broken_link_in_the_project_neither_block_nor_show(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n', "helper.py": HELPER, "caller.py": CALLER})
    os.mkfifo(tmp_path / "pipe.py")  # a read would wait for a writer forever
    os.symlink(tmp_path / "missing", tmp_path / "broken.py")
    done = run_cli("check", "--format", "json", "helper.py", cwd=tmp_path, timeout=120)
    assert done.returncode == 1, done.stderr
    # the caller's finding, and nothing about the project's unreadable files, which were not named
    assert [(f["path"], f["code"]) for f in json.loads(done.stdout)] == [("helper.py", "TVM101")]
    assert "pipe.py" not in done.stderr and "broken.py" not in done.stderr
