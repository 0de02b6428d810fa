"""tools/executors_from_source.py: which kind of relay.create_executor compiles where, read from a
small made-up TVM history with two release tags; and rules/executors.toml names runners that
rules/runners.toml has."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import executors_from_source as E  # noqa: E402

BUILD = """
from .backend import interpreter as _interpreter
from .backend.vm import VMExecutor

def build(mod, target=None):
    pass

class GraphExecutor(_interpreter.Executor):
    def __init__(self, mod, device, target):
        self.mod = mod

    def _make_executor(self, expr=None):
        mod = build(self.mod, target=self.target)
        return mod

def create_executor(kind="debug", mod=None, device=None, target="llvm"):
    if kind == "debug":
        return _interpreter.Interpreter(mod, device, target)
    if kind == "graph":
        return GraphExecutor(mod, device, target)
    if kind == "vm":
        return VMExecutor(mod, device, target)
    raise RuntimeError("unknown")
"""
VM_COMPILES_AT_INIT = """
def compile(mod, target=None):
    pass

class VMExecutor:
    def __init__(self, mod, device, target):
        self.executable = compile(mod, target)

    def _make_executor(self, expr=None):
        return self.executable
"""
VM_COMPILES_AT_EVALUATE = """
def compile(mod, target=None):
    pass

class VMExecutor:
    def __init__(self, mod, device, target):
        self.mod = mod

    def _make_executor(self, expr=None):
        self.executable = compile(self.mod, self.target)
        return self.executable
"""
INTERPRETER = """
class Executor:
    def evaluate(self, expr=None, binds=None):
        if expr is None:
            return self._make_executor()
        return self._make_executor(expr)
"""


def _history(tmp_path: Path) -> str:
    work = tmp_path / "tvm"
    (work / "python/tvm/relay/backend").mkdir(parents=True)

    def commit(vm: str, tag: str) -> None:
        (work / E.BUILD_MODULE).write_text(BUILD)
        (work / E.VM_MODULE).write_text(vm)
        (work / E.INTERPRETER).write_text(INTERPRETER)
        git = ["git", "-C", str(work), "-c", "user.email=t@t", "-c", "user.name=t"]
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", tag], check=True)
        subprocess.run([*git, "tag", tag], check=True)

    subprocess.run(["git", "init", "-q", str(work)], check=True)
    commit(VM_COMPILES_AT_INIT, "v0.6.0")
    commit(VM_COMPILES_AT_EVALUATE, "v0.8.0")
    return str(work / ".git")


def test_each_kind_compiles_where_its_class_calls_build_or_compile(tmp_path):
    git = _history(tmp_path)
    out = tmp_path / "executors.toml"
    assert E.main([git, "--write", str(out)]) == 0
    rows = tomllib.loads(out.read_text())["executor"]
    got = [(row["kind"], row["runs"], row["at"], row["since"], row.get("until")) for row in rows]
    assert got == [
        ("graph", "tvm.relay.build_module.build", "evaluate", "0.6", None),
        ("vm", "tvm.relay.backend.vm.compile", "create", "0.6", "0.8"),
        ("vm", "tvm.relay.backend.vm.compile", "evaluate", "0.8", None),
    ]
    # the interpreter ("debug") compiles no runners.toml pipeline: not a row
    assert all(row["kind"] != "debug" for row in rows)
    assert "v0.8.0:python/tvm/relay/build_module.py#L" in rows[-1]["source"]
    # where the kind is, and what it is when none is given, come from create_executor's own def
    assert {(tuple(row["params"]), row["default_kind"]) for row in rows} == {(("kind", "mod", "device", "target"), "debug")}


def test_every_executor_row_names_a_runner_the_runners_table_has():
    runners = {api for row in tomllib.loads((ROOT / "rules/runners.toml").read_text())["runner"] for api in row["api"]}
    rows = tomllib.loads((ROOT / "rules/executors.toml").read_text())["executor"]
    assert rows
    for row in rows:
        assert row["runs"] in runners, row
        assert row["at"] in ("create", "evaluate"), row
