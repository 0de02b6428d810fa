"""Derive rules/executors.toml from TVM's Python source at each release tag.

`relay.create_executor(kind, mod, ...)` returns an executor object; the pass pipeline runs
later, when the object compiles the module: in `_make_executor`, which `Executor.evaluate()`
calls, or (for some kinds at some releases) already in the executor's `__init__`. Which
class each kind makes, and which of the two methods calls `build` or `compile`, is read here
from python/tvm/relay/build_module.py and python/tvm/relay/backend/vm.py at every tag.

    python tools/executors_from_source.py GIT_DIR [--write rules/executors.toml] [--releases 0.6,0.7,...]

GIT_DIR: an apache/tvm clone with its release tags (e.g. the bare mirror `fetch` brings). The
releases are rules/versions.toml's (tools/releases.py), each read at its tag; one without a tag
(a release read from its wheel) has no Relay and is left out.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import releases  # noqa: E402

BUILD_MODULE = "python/tvm/relay/build_module.py"
VM_MODULE = "python/tvm/relay/backend/vm.py"
INTERPRETER = "python/tvm/relay/backend/interpreter.py"
# what each module's bare `build` / `compile` is (the runners.toml entries TVM108 reports)
RUNS = {BUILD_MODULE: {"build": "tvm.relay.build_module.build"}, VM_MODULE: {"compile": "tvm.relay.backend.vm.compile"}}
API = ["tvm.relay.create_executor", "tvm.relay.build_module.create_executor"]
WHEN = {"__init__": "create", "_make_executor": "evaluate"}
# create_executor is read from v0.6.0 on: the relay.build pipelines runners.toml lists start there
FIRST = "0.6"


def show(git: str, tag: str, path: str) -> Optional[str]:
    done = subprocess.run(["git", "--git-dir", git, "show", f"refs/tags/{tag}:{path}"], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def signature_of(tree: ast.Module) -> Tuple[List[str], Optional[str]]:
    """create_executor's positional parameters and the default of its `kind`."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "create_executor":
            names = [arg.arg for arg in node.args.args]
            defaults = dict(zip(names[len(names) - len(node.args.defaults):], node.args.defaults))
            kind = defaults.get("kind")
            return names, kind.value if isinstance(kind, ast.Constant) else None
    return [], None


def kinds_of(tree: ast.Module) -> Dict[str, Tuple[str, int]]:
    """create_executor's `if kind == "X": return Cls(...)` branches: kind -> (class, line)."""
    found: Dict[str, Tuple[str, int]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "create_executor":
            for branch in ast.walk(node):
                if not (isinstance(branch, ast.If) and isinstance(branch.test, ast.Compare)):
                    continue
                test = branch.test
                if not (isinstance(test.left, ast.Name) and test.left.id == "kind" and len(test.comparators) == 1
                        and isinstance(test.comparators[0], ast.Constant)):
                    continue
                for statement in branch.body:
                    if (isinstance(statement, ast.Return) and isinstance(statement.value, ast.Call)
                            and isinstance(statement.value.func, (ast.Name, ast.Attribute))):
                        func = statement.value.func
                        name = func.id if isinstance(func, ast.Name) else func.attr
                        found[test.comparators[0].value] = (name, statement.lineno)
    return found


def pipeline_method(tree: ast.Module, cls: str, path: str) -> Optional[Tuple[str, str, int]]:
    """(method, runner api, line) where class `cls` calls its module's build/compile."""
    bare = RUNS[path]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and method.name in WHEN:
                    for call in ast.walk(method):
                        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in bare:
                            return method.name, bare[call.func.id], call.lineno
    return None


def evaluate_calls_make_executor(source: str) -> Optional[int]:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "evaluate":
            for call in ast.walk(node):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr == "_make_executor"):
                    return call.lineno
    return None


def facts_at(git: str, tag: str) -> Dict[str, dict]:
    build = show(git, tag, BUILD_MODULE)
    vm = show(git, tag, VM_MODULE)
    interpreter = show(git, tag, INTERPRETER)
    if build is None or vm is None or interpreter is None:
        return {}
    trees = {BUILD_MODULE: ast.parse(build), VM_MODULE: ast.parse(vm)}
    evaluate_line = evaluate_calls_make_executor(interpreter)
    params, default_kind = signature_of(trees[BUILD_MODULE])
    out: Dict[str, dict] = {}
    for kind, (cls, line) in sorted(kinds_of(trees[BUILD_MODULE]).items()):
        for path, tree in trees.items():
            found = pipeline_method(tree, cls, path)
            if found is None:
                continue
            method, runs, at_line = found
            when = WHEN[method]
            if when == "evaluate" and evaluate_line is None:
                continue
            source = (f"{BUILD_MODULE}#L{line} (kind == \"{kind}\": {cls}); {path}#L{at_line} "
                      f"({cls}.{method} calls {runs.rpartition('.')[2]})")
            if when == "evaluate":
                source += f"; {INTERPRETER}#L{evaluate_line} (evaluate calls _make_executor)"
            out[kind] = {"kind": kind, "runs": runs, "at": when, "source": source,
                         "params": params, "default_kind": default_kind}
    return out


def render(rows: List[dict]) -> str:
    lines = [
        "# tvmlint rules: executors.toml",
        "# relay.create_executor(kind, ...) returns an executor whose pass pipeline (a runners.toml entry)",
        "# runs under the context active when it compiles: at `evaluate()` (its _make_executor) or, for",
        "# some kinds at some releases, already at create_executor (its __init__). The \"debug\" kind (the",
        "# interpreter, create_executor's default) compiles no pipeline of runners.toml and is not listed.",
        "# `params`: create_executor's positional parameters; `default_kind`: its kind when none is given.",
        "#",
        "# GENERATED by tools/executors_from_source.py from apache/tvm's release tags; do not edit by hand:",
        "#   python tools/executors_from_source.py GIT_DIR --write rules/executors.toml",
        "",
    ]
    for row in rows:
        lines.append("[[executor]]")
        lines.append("api = [" + ", ".join(f'"{api}"' for api in API) + "]")
        for key in ("kind", "runs", "at", "since", "until", "default_kind"):
            if row.get(key) is not None:
                lines.append(f'{key} = "{row[key]}"')
        lines.append("params = [" + ", ".join(f'"{name}"' for name in row["params"]) + "]")
        source = (row["source_tag"] + ":" + row["source"]).replace('"', "'")
        lines.append(f'source = "{source}"')
        lines.append("")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("--write", metavar="FILE")
    parser.add_argument("--releases", help="comma-separated releases (default: rules/versions.toml's)")
    args = parser.parse_args(argv)
    chosen = releases.between(releases.releases(args.releases), since=FIRST)
    per_tag = [(version, tag, facts_at(args.git_dir, tag)) for version, tag in releases.tagged(args.git_dir, chosen)]
    rows: List[dict] = []
    open_rows: Dict[str, dict] = {}  # kind -> the row its range is still growing
    for version, tag, facts in per_tag:
        for kind in list(open_rows):
            row = open_rows[kind]
            now = facts.get(kind)
            if now is None or (now["runs"], now["at"], now["params"]) != (row["runs"], row["at"], row["params"]):
                row["until"] = version
                del open_rows[kind]
        for kind, now in facts.items():
            if kind not in open_rows:
                row = dict(now, since=version, source_tag=tag)
                rows.append(row)
                open_rows[kind] = row
            else:
                # cite the newest tag a range holds at
                open_rows[kind].update(source=now["source"], source_tag=tag)
    text = render(rows)
    if args.write:
        with open(args.write, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
