"""The runtime companion against the real apache-tvm (the `test` extra installs it).

Every test runs the real `tvmlint` command; TVM is imported only by the
companion's child process. Tests that need TVM are marked `tvm` and skip when
no child can import it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import REPO, run_cli, tvm_importable, write_tree

from tvmlint.base.processes import alive

RELAX_AT_0 = (
    "import tvm\nfrom tvm import relax\n\n"
    "def lower(mod):\n"
    "    with tvm.transform.PassContext(opt_level=0):\n"
    "        mod = relax.transform.CanonicalizeBindings()(mod)\n"
    "        mod = relax.transform.FuseTIR()(mod)\n"
    "    return mod\n\n"
    "lower(tvm.IRModule())\n"
)
RELAY_FOLD = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


needs_tvm = pytest.mark.skipif(not tvm_importable(), reason="apache-tvm is not importable (pip install -e '.[test]')")
tvm_test = [pytest.mark.tvm, needs_tvm]


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    """One registry cache for the session: the first test pays for the import, the rest read it."""
    return tmp_path_factory.mktemp("tvmlint-cache")


def tvmlint(*args: str, cwd: Path, cache: Path, env: dict = None) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=cwd, env={"TVMLINT_CACHE_DIR": str(cache), **(env or {})})


def rules_copy(tmp_path: Path, old: str, new: str, anchor: str) -> Path:
    """A copy of rules/ with one edit: the first `old` after `anchor` in passes.toml becomes `new`."""
    copy = tmp_path / "rules"
    shutil.copytree(REPO / "rules", copy)
    path = copy / "passes.toml"
    text = path.read_text(encoding="utf-8")
    start = text.index(anchor)
    at = text.index(old, start)
    path.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    return copy


def findings_json(done: subprocess.CompletedProcess) -> list:
    return json.loads(done.stdout)


# -- tvmlint registry ---------------------------------------------------------------------

@pytest.mark.tvm
@needs_tvm
def test_registry_lists_relax_tirx_s_tir_passes_with_the_levels_tvm_reports(tmp_path, cache_dir):
    done = tvmlint("registry", "--format", "json", cwd=tmp_path, cache=cache_dir)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    by_api = {row["api"]: row for row in data["passes"]}
    for family in ("tvm.relax.transform.", "tvm.tirx.transform.", "tvm.s_tir.transform."):
        assert sum(api.startswith(family) for api in by_api) >= 10, family
    canon = by_api["tvm.relax.transform.CanonicalizeBindings"]
    assert canon["kind"] == "sequential"
    assert [(m["name"], m["opt_level"]) for m in canon["members"]] == [
        ("CanonicalizeTIRVariables", 1), ("CanonicalizeRelaxBindings", 1)
    ]
    # read every level back from TVM itself, independently of the companion
    plain = sorted(api for api, row in by_api.items() if "error" not in row)
    script = (
        "import json, sys, tvm, tvm.relax, tvm.tirx, tvm.s_tir\n"
        "out = {}\n"
        "for api in json.load(sys.stdin):\n"
        "    mod, name = api.rsplit('.', 1)\n"
        "    obj = tvm\n"
        "    for part in mod.split('.')[1:]:\n"
        "        obj = getattr(obj, part)\n"
        "    try:\n"
        "        out[api] = getattr(obj, name)().info.opt_level\n"
        "    except Exception:\n"
        "        pass\n"
        "print(json.dumps(out))\n"
    )
    readback = subprocess.run([sys.executable, "-c", script], input=json.dumps(plain), capture_output=True, text=True, timeout=300)
    levels = json.loads(readback.stdout.strip().splitlines()[-1])
    assert len(levels) > 100
    assert {api: by_api[api]["opt_level"] for api in levels} == {api: int(level) for api, level in levels.items()}
    assert "tirx.enable_fast_math" in {row["key"] for row in data["configs"]}
    assert data["tvm"]["version"].startswith("0.")


@pytest.mark.tvm
@needs_tvm
def test_registry_at_opt_level_0_marks_what_a_sequential_skips(tmp_path, cache_dir):
    done = tvmlint("registry", "--opt-level", "0", "--pass", "CanonicalizeBindings", cwd=tmp_path, cache=cache_dir)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[2]: line for line in done.stdout.splitlines() if "└" in line}
    assert rows["CanonicalizeTIRVariables"].rstrip().endswith("skipped")
    assert rows["CanonicalizeRelaxBindings"].rstrip().endswith("skipped")
    required = tvmlint(
        "registry", "--opt-level", "0", "--required", "CanonicalizeTIRVariables", "--pass", "CanonicalizeBindings",
        "--format", "json", cwd=tmp_path, cache=cache_dir,
    )
    members = json.loads(required.stdout)["passes"][0]["members"]
    assert [m["at_setting"] for m in members] == ["runs", "skipped"]


@pytest.mark.tvm
@needs_tvm
def test_registry_caches_the_snapshot_per_install(tmp_path):
    cache = tmp_path / "cache"
    first = tvmlint("registry", "--pass", "FuseTIR", cwd=tmp_path, cache=cache)
    second = tvmlint("registry", "--pass", "FuseTIR", cwd=tmp_path, cache=cache)
    assert "saved to" in first.stdout and "read from" in second.stdout
    assert len(list((cache / "registry").glob("*.json"))) == 1


@pytest.mark.tvm
@needs_tvm
def test_a_pass_that_cannot_be_built_is_listed(tmp_path, cache_dir):
    rules = rules_copy(tmp_path, 'build_args = "\\"main\\", {}"\n', "", 'api = ["tvm.relax.transform.BindParams"]')
    env = {"TVMLINT_RULES_DIR": str(rules)}
    listing = tvmlint("registry", cwd=tmp_path, cache=cache_dir, env=env)
    assert "Could not be built" in listing.stdout
    assert "tvm.relax.transform.BindParams: TypeError" in listing.stdout
    verify = tvmlint("registry", "--verify", cwd=tmp_path, cache=cache_dir, env=env)
    assert verify.returncode == 1
    assert "tvm.relax.transform.BindParams: cannot be built without arguments" in verify.stdout


# -- tvmlint registry --verify ---------------------------------------------------------------

@pytest.mark.tvm
@needs_tvm
def test_verify_passes_on_the_shipped_tables(tmp_path, cache_dir):
    done = tvmlint("registry", "--verify", cwd=tmp_path, cache=cache_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rules/ agrees with TVM" in done.stdout


@pytest.mark.tvm
@needs_tvm
def test_verify_fails_when_a_level_in_a_copy_of_the_table_is_changed(tmp_path, cache_dir):
    rules = rules_copy(
        tmp_path, 'name = "CanonicalizeTIRVariables", opt_level = 1', 'name = "CanonicalizeTIRVariables", opt_level = 2',
        'api = ["tvm.relax.transform.CanonicalizeBindings"]',
    )
    done = tvmlint("registry", "--verify", "--format", "json", cwd=tmp_path, cache=cache_dir, env={"TVMLINT_RULES_DIR": str(rules)})
    assert done.returncode == 1
    problems = [(d["subject"], d["problem"]) for d in json.loads(done.stdout)["differences"]]
    assert problems == [(
        "tvm.relax.transform.CanonicalizeBindings",
        "tvm.relax.transform.CanonicalizeBindings member CanonicalizeTIRVariables has opt_level 1 in TVM, 2 in rules/",
    )]


@pytest.mark.tvm
@needs_tvm
def test_verify_reports_a_config_key_tvm_does_not_register(tmp_path, cache_dir):
    rules = tmp_path / "rules"
    shutil.copytree(REPO / "rules", rules)
    with (rules / "config_keys.toml").open("a", encoding="utf-8") as out:
        out.write('\n[[key]]\nname = "relax.made_up_key"\ntype = "bool"\ntvm_type = "bool"\nsince = "0.16"\nsource = "test"\n')
    done = tvmlint("registry", "--verify", cwd=tmp_path, cache=cache_dir, env={"TVMLINT_RULES_DIR": str(rules)})
    assert done.returncode == 1
    assert "relax.made_up_key: rules/ lists this config key, the installed TVM does not register it" in done.stdout


# -- tvmlint check --confirm ---------------------------------------------------------------

@pytest.mark.tvm
@needs_tvm
def test_confirm_tvm101_for_relax_sequentials_by_a_real_run(tmp_path, cache_dir):
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    done = tvmlint("check", "--confirm", "--target-version", "0.27", "--format", "json", "lower.py", cwd=tmp_path, cache=cache_dir)
    assert done.returncode == 1, done.stderr
    found = findings_json(done)
    assert [(f["code"], f["line"], f["confirmed"]) for f in found] == [("TVM101", 6, True), ("TVM101", 7, True)]
    canon, fuse = (f["confirmation"] for f in found)
    assert "CanonicalizeTIRVariables (opt_level 1) and CanonicalizeRelaxBindings (opt_level 1)" in canon
    for reason, api in ((canon, "CanonicalizeBindings"), (fuse, "FuseTIR")):
        assert f"a real run of relax.transform.{api} on a probe module leaves it unchanged at opt_level 0 and changes it at opt_level 1" in reason


@pytest.mark.tvm
@needs_tvm
def test_confirm_refutes_a_finding_planted_through_a_wrong_table_entry(tmp_path, cache_dir):
    # rules/ copy claims relax DeadCodeElimination is level 3: tvmlint then reports it skipped at the default 2
    rules = rules_copy(tmp_path, "opt_level = 1", "opt_level = 3", 'api = ["tvm.relax.transform.DeadCodeElimination"]')
    code = "import tvm\nfrom tvm import relax\nmod = tvm.transform.Sequential([relax.transform.DeadCodeElimination()])(mod)\n"
    write_tree(tmp_path, {"dce.py": code})
    env = {"TVMLINT_RULES_DIR": str(rules)}
    static = tvmlint("check", "--target-version", "0.27", "--format", "json", "dce.py", cwd=tmp_path, cache=cache_dir, env=env)
    assert [f["code"] for f in findings_json(static)] == ["TVM101"]
    done = tvmlint("check", "--confirm", "--target-version", "0.27", "--format", "json", "dce.py", cwd=tmp_path, cache=cache_dir, env=env)
    assert findings_json(done) == []
    assert done.returncode == 0
    assert "1 finding refuted by the installed TVM and dropped" in done.stderr
    assert "dce.py:3:7: TVM101 the installed TVM" in done.stderr
    assert "DeadCodeElimination (opt_level 1): its gate runs them at opt_level 2" in done.stderr
    verify = tvmlint("registry", "--verify", cwd=tmp_path, cache=cache_dir, env=env)
    assert "tvm.relax.transform.DeadCodeElimination: tvm.relax.transform.DeadCodeElimination has opt_level 1 in TVM, 3 in rules/" in verify.stdout


@pytest.mark.tvm
@needs_tvm
def test_confirm_gives_null_with_a_reason_for_a_relay_finding(tmp_path, cache_dir):
    write_tree(tmp_path, {"fold.py": RELAY_FOLD})
    done = tvmlint("check", "--confirm", "--target-version", "0.19", "--format", "json", "fold.py", cwd=tmp_path, cache=cache_dir)
    (finding,) = findings_json(done)
    assert finding["code"] == "TVM101" and finding["confirmed"] is None
    assert "has no Relay (removed in 0.20)" in finding["confirmation"]
    assert "BackwardFoldScaleAxis and ForwardFoldScaleAxis" in finding["confirmation"]


@pytest.mark.tvm
@needs_tvm
def test_confirm_tvm104_by_the_names_absence(tmp_path, cache_dir):
    code = "import tvm\nwith tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOP']):\n    pass\n"
    write_tree(tmp_path, {"names.py": code})
    done = tvmlint("check", "--confirm", "--target-version", "0.27", "--select", "TVM104", "--format", "json", "names.py",
                   cwd=tmp_path, cache=cache_dir)
    (finding,) = findings_json(done)
    assert finding["code"] == "TVM104" and finding["confirmed"] is True
    assert "builds a pass named 'FuseOP'" in finding["confirmation"]


@pytest.mark.tvm
@needs_tvm
def test_confirm_tvm107_tvm105_and_tvm302_config(tmp_path, cache_dir):
    code = (
        "import tvm\nfrom tvm import relax\n"
        "with tvm.transform.PassContext(opt_level=0, required_pass=['CanonicalizeBindings'], config={'tir.disable_vectorize': True}):\n"
        "    mod = relax.transform.FoldConstant()(mod)\n"
        "with tvm.transform.PassContext(opt_level=3, config={'tirx.enable_fast_math': True}):\n"
        "    ex = tvm.compile(mod, target='llvm')\n"
    )
    write_tree(tmp_path, {"keys.py": code})
    done = tvmlint("check", "--confirm", "--target-version", "0.27", "--select", "TVM105,TVM107,TVM302", "--format", "json",
                   "keys.py", cwd=tmp_path, cache=cache_dir)
    found = {f["code"]: f for f in findings_json(done)}
    assert {code: f["confirmed"] for code, f in found.items()} == {"TVM105": True, "TVM107": True, "TVM302": True}
    assert "raises in the installed TVM" in found["TVM107"]["confirmation"]
    assert "Invalid config option 'tir.disable_vectorize'" in found["TVM107"]["confirmation"]
    assert "as a Sequential of CanonicalizeTIRVariables (opt_level 1)" in found["TVM105"]["confirmation"]


@pytest.mark.tvm
@needs_tvm
@pytest.mark.parametrize("encode", [
    lambda text: ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + text).encode("latin-1"),
    lambda text: ("\x0c\n" + text).encode(),  # a form feed: str.splitlines ends a line there, Python does not
    lambda text: text.replace("\n", "\r").encode(),
], ids=["latin1", "formfeed", "cr"])
def test_confirm_reads_the_key_as_python_reads_the_file(tmp_path, cache_dir, encode):
    """The key a TVM107 finding is about is read back from the file: it was read as UTF-8 with
    str.splitlines, so a coding cookie or a form feed left it "could not tell which config key"."""
    (tmp_path / "keys.py").write_bytes(encode("import tvm\nwith tvm.transform.PassContext(config={'tir.disable_vectorize': True}):\n    pass\n"))
    done = tvmlint("check", "--confirm", "--target-version", "0.27", "--select", "TVM107", "--format", "json",
                   "keys.py", cwd=tmp_path, cache=cache_dir)
    [finding] = findings_json(done)
    assert finding["confirmed"] is True, finding["confirmation"]
    assert "Invalid config option 'tir.disable_vectorize'" in finding["confirmation"]


@pytest.mark.tvm
@needs_tvm
def test_confirm_text_output_says_confirmed(tmp_path, cache_dir):
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    done = tvmlint("check", "--confirm", "--target-version", "0.27", "lower.py", cwd=tmp_path, cache=cache_dir)
    assert done.stdout.count("confirmed by the installed TVM:") == 2


# -- failures: one line, and the static results ----------------------------------------------

def _fake_python(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fake-python"
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _static_and_one_line(done: subprocess.CompletedProcess, expect: str) -> None:
    assert done.returncode == 1  # the static finding is still reported
    assert [f["code"] for f in findings_json(done)] == ["TVM101", "TVM101"]
    assert all("confirmed" not in f for f in findings_json(done))
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("tvmlint: --confirm skipped: ") and expect in lines[0]


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands in for the interpreter")
def test_a_hanging_companion_is_stopped_and_the_static_results_print(tmp_path, cache_dir):
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    fake = _fake_python(tmp_path, "exec sleep 30")
    done = tvmlint("check", "--confirm", "--tvm-python", str(fake), "--tvm-timeout", "1", "--target-version", "0.27",
                   "--format", "json", "lower.py", cwd=tmp_path, cache=cache_dir)
    _static_and_one_line(done, "gave no answer within 1s")


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands in for the interpreter")
def test_a_companion_that_forks_is_stopped_with_its_grandchild(tmp_path, cache_dir):
    # (#29) the grandchild held the pipes open: the run waited on it, and it was left running
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    marker = tmp_path / "grandchild.pid"
    fake = _fake_python(tmp_path, f"sleep 300 & echo $! > {marker}; wait")
    started = time.monotonic()
    done = tvmlint("check", "--confirm", "--tvm-python", str(fake), "--tvm-timeout", "1", "--target-version", "0.27",
                   "--format", "json", "lower.py", cwd=tmp_path, cache=cache_dir)
    assert time.monotonic() - started < 60
    _static_and_one_line(done, "gave no answer within 1s")
    grandchild = int(marker.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and alive(grandchild):
        time.sleep(0.1)
    assert not alive(grandchild)


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands in for the interpreter")
def test_a_crashing_companion_gives_one_line(tmp_path, cache_dir):
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    fake = _fake_python(tmp_path, "kill -SEGV $$")
    done = tvmlint("check", "--confirm", "--tvm-python", str(fake), "--target-version", "0.27", "--format", "json",
                   "lower.py", cwd=tmp_path, cache=cache_dir)
    _static_and_one_line(done, "crashed (SIGSEGV)")


def test_an_interpreter_without_tvm_gives_one_line(tmp_path, cache_dir):
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True, timeout=300)
    bare = tmp_path / "bare" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    done = tvmlint("check", "--confirm", "--tvm-python", str(bare), "--target-version", "0.27", "--format", "json",
                   "lower.py", cwd=tmp_path, cache=cache_dir)
    _static_and_one_line(done, "no TVM is installed for")


def test_a_tvm_that_fails_to_import_gives_one_line(tmp_path, cache_dir):
    """An install whose native library is missing: `import tvm` raises, as a broken build does."""
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "broken")], check=True, timeout=300)
    python = tmp_path / "broken" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    write_tree(Path(site), {"tvm/__init__.py": "raise OSError('libtvm.so: cannot open shared object file')\n"})
    done = tvmlint("check", "--confirm", "--tvm-python", str(python), "--target-version", "0.27", "--format", "json",
                   "lower.py", cwd=tmp_path, cache=cache_dir)
    _static_and_one_line(done, "OSError: libtvm.so: cannot open shared object file")
    registry = tvmlint("registry", "--tvm-python", str(python), cwd=tmp_path, cache=cache_dir)
    assert registry.returncode == 2 and registry.stdout == ""
    assert registry.stderr.strip().splitlines() == [
        f"tvmlint: error: the TVM companion ({python}): OSError: libtvm.so: cannot open shared object file"
    ]


def test_a_missing_interpreter_gives_one_line(tmp_path, cache_dir):
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    done = tvmlint("check", "--confirm", "--tvm-python", str(tmp_path / "nowhere"), "--target-version", "0.27",
                   "--format", "json", "lower.py", cwd=tmp_path, cache=cache_dir)
    _static_and_one_line(done, "could not be started")


def test_registry_without_tvm_is_an_error_line(tmp_path, cache_dir):
    done = tvmlint("registry", "--tvm-python", str(tmp_path / "nowhere"), cwd=tmp_path, cache=cache_dir)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""


@pytest.mark.tvm
@needs_tvm
def test_the_checking_process_never_imports_tvm(tmp_path, cache_dir):
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    script = (
        "import sys\nfrom tvmlint.frontends.cli import main\n"
        "code = main(['check', '--confirm', '--target-version', '0.27', '--format', 'json', 'lower.py'])\n"
        "assert 'tvm' not in sys.modules, 'the parent imported tvm'\n"
        "sys.exit(code)\n"
    )
    env = dict(os.environ, TVMLINT_CACHE_DIR=str(tmp_path / "fresh-cache"))
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 1, done.stderr
    assert all(f["confirmed"] is True for f in json.loads(done.stdout))


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands in for the interpreter")
@pytest.mark.parametrize("body, expect", [("exec sleep 30", "gave no answer within 1s"), ("kill -SEGV $$", "crashed (SIGSEGV)")])
def test_the_long_lived_child_is_bounded_too(tmp_path, body, expect):
    from tvmlint.companion import CompanionError
    from tvmlint.companion.process import ChildSession

    session = ChildSession(str(_fake_python(tmp_path, body)), timeout=1)
    started = time.monotonic()
    with pytest.raises(CompanionError, match=re.escape(expect)):
        session.ask({"op": "locate"})
    # a child that overran its time is killed then, not given more time to end (it was 5 s more)
    assert time.monotonic() - started < 4
    session.close()


@pytest.mark.tvm
@needs_tvm
def test_the_long_lived_child_answers_many_questions(tmp_path):
    from tvmlint.companion.process import ChildSession

    session = ChildSession(sys.executable, timeout=300)
    try:
        keys = [session.ask({"op": "config", "items": [[key, True]]})["results"][0] for key in ("tirx.disable_vectorize", "tir.nope")]
    finally:
        session.close()
    assert [k["raised"] for k in keys] == [False, True]


@pytest.mark.tvm
@needs_tvm
def test_verify_checks_the_default_levels(tmp_path, cache_dir):
    rules = rules_copy(tmp_path, "default_opt_level = 2", "default_opt_level = 3", "[meta]")
    done = tvmlint("registry", "--verify", cwd=tmp_path, cache=cache_dir, env={"TVMLINT_RULES_DIR": str(rules)})
    assert done.returncode == 1
    assert "PassContext(): has opt_level 2 in TVM, 3 in rules/" in done.stdout


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands in for the interpreter")
def test_after_a_hang_the_other_findings_do_not_wait_again(tmp_path):
    from tvmlint.base.diagnostics import Finding, Position
    from tvmlint.companion.confirm import Confirmer
    from tvmlint.companion.registry import Snapshot

    starts = tmp_path / "starts"
    fake = _fake_python(tmp_path, f"echo started >> {starts}\nexec sleep 30")
    snapshot = Snapshot.from_answer({"python": str(fake), "location": "/nowhere/tvm", "version": "0.27.0", "configs": {}})
    findings = [
        Finding("keys.py", Position(line, 1), Position(line, 9), "TVM107", "error", "unknown key",
                facts={"key": f"tir.nope{line}", "target": (0, 27)})
        for line in (1, 2, 3)
    ]
    kept, refuted = Confirmer(snapshot, str(fake), timeout=1).confirm_all(findings)
    assert refuted == [] and [f.confirmed for f in kept] == [None, None, None]
    assert all("gave no answer within 1s" in f.confirmation for f in kept)
    assert starts.read_text().count("started") == 1


@pytest.mark.tvm
@needs_tvm
def test_config_key_confirmation_on_constructed_findings(cache_dir, monkeypatch):
    from tvmlint.base.diagnostics import Finding, Position
    from tvmlint.companion.confirm import Confirmer
    from tvmlint.companion.registry import load_snapshot

    monkeypatch.setenv("TVMLINT_CACHE_DIR", str(cache_dir))
    snapshot = load_snapshot(None, 300)
    confirmer = Confirmer(snapshot, sys.executable, 300)

    def finding(key, target=(0, 27)):
        return Finding("k.py", Position(1, 1), Position(1, 5), "TVM107", "error", "m", facts={"key": key, "target": target})

    kept, refuted = confirmer.confirm_all([finding("tir.disable_vectorize"), finding("tirx.disable_vectorize"), finding("x.y", (0, 19))])
    assert [f.confirmed for f in kept] == [True, None]
    assert "Invalid config option 'tir.disable_vectorize'" in kept[0].confirmation
    assert "about TVM 0.19" in kept[1].confirmation
    assert [f.confirmed for f in refuted] == [False]
    assert "accepts PassContext(config={'tirx.disable_vectorize': ...})" in refuted[0].confirmation


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0"])
def test_a_time_limit_that_is_no_time_limit_is_a_usage_error(tmp_path, cache_dir, value):
    """inf and nan ended in an internal error, -1 and 0 in "no answer within -1s"."""
    write_tree(tmp_path, {"lower.py": RELAX_AT_0})
    for command in (["check", "--confirm", "lower.py"], ["registry"]):
        done = tvmlint(*command, "--tvm-timeout", value, cwd=tmp_path, cache=cache_dir)
        assert done.returncode == 2 and done.stdout == "", done.stdout
        # one line, ending with the command's short usage
        (line,) = done.stderr.strip().splitlines()
        assert f"argument --tvm-timeout: expected a positive number of seconds, got {value!r} (usage: tvmlint " in line
    done = tvmlint("check", "--confirm", "--target-version", "0.27", "--format", "json", "lower.py", cwd=tmp_path, cache=cache_dir,
                   env={"TVMLINT_TVM_TIMEOUT": value})
    _static_and_one_line(done, f"$TVMLINT_TVM_TIMEOUT is not a positive number of seconds: {value!r}")
