"""Candidate rules/api_history.toml entries, read from apache/tvm's Python source at every release tag.

Usage: python tools/api_history_from_source.py GIT_DIR [--wheel SITE_PACKAGES/tvm] [--out FILE] [--usage]

GIT_DIR is a clone (bare is fine) of apache/tvm with its tags. At each release of
rules/versions.toml or --releases (tools/releases.py: v0.4, v0.5, v0.6.0 ... v0.26.0;
the newest, 0.27, from an installed apache-tvm wheel's package directory when --wheel
is given and is that release) it reads:

- the modules: `git ls-tree` of python/tvm (and topi/python/topi, nnvm/python/nnvm
  while they exist);
- each module's public names with `ast`: top-level def/class/assignments, names
  imported from TVM's own modules (`from .x import y`, `from .x import *` through
  the other module's names or its __all__), so `tvm.lower` is the name
  python/tvm/__init__.py re-exports from driver/build_module.py;
- deprecations: a function, class or module whose body calls
  warnings.warn(..., DeprecationWarning | FutureWarning | PendingDeprecationWarning)
  or warnings.warn("... deprecated ...") with the default category, or that is
  decorated with a `deprecated(...)` decorator.

A path present at release N and absent at N+1 is "removed" at N+1 (only the
outermost: a removed module stands for what was under it); `back` names a later
release that has it again (the 0.27 wheel is not built from the v0.26.0 line:
relax.TensorStructInfo is gone at v0.26.0 and there in the wheel), which an
entry's since/removed range cannot say. A path whose
definition warns is "deprecated" from the first release where it does. Each
candidate cites the tag, file and line it was read from, and says whether
rules/api_history.toml already covers it (tvmlint's own History: the path is
gone, or deprecated, at that release). --usage counts, for uncovered removals,
the uses of the name as code writes it (`te.create_schedule`: its module's
last component and the name) in TVM's own tests, tutorials,
gallery and apps at the last release that had it: what real code used.

Writes JSON (a list of candidates) to --out (default: stdout) and a summary of
the uncovered ones to stderr. Run from the repository root with tvmlint importable.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import releases as release_sources  # noqa: E402

ROOTS = (("python/tvm", "tvm"), ("topi/python/topi", "topi"), ("nnvm/python/nnvm", "nnvm"))
WARNINGS = {"DeprecationWarning", "FutureWarning", "PendingDeprecationWarning"}
USAGE_PATHS = ("tests/python", "tutorials", "gallery", "apps", "vta/tutorials", "topi/tests", "nnvm/tests", "nnvm/tutorials")


def tag_of(release: str, git_dir: str) -> str:
    for tag in (f"v{release}", f"v{release}.0"):
        ref = f"refs/tags/{tag}"
        if subprocess.run(["git", "-C", git_dir, "rev-parse", "-q", "--verify", ref], capture_output=True).returncode == 0:
            return ref
    raise SystemExit(f"no tag for release {release} in {git_dir}")


class Source:
    """The Python files of one release: a tag of the git mirror, or an installed package directory."""

    def __init__(self, label: str, files: Dict[str, str]):
        self.label = label  # "v0.8.0" or "0.27.0.post1 wheel"
        self.files = files  # module name -> repository path
        self._texts: Dict[str, str] = {}

    def text(self, module: str) -> str:
        return self._texts.get(module, "")


def from_git(git_dir: str, ref: str) -> Source:
    names = subprocess.run(["git", "-C", git_dir, "ls-tree", "-r", "--name-only", ref, "--", *[r for r, _ in ROOTS]],
                           capture_output=True, text=True, check=True).stdout.split()
    files = {}
    for path in names:
        module = _module_name(path)
        if module is not None:
            files[module] = path
    source = Source(ref.rsplit("/", 1)[-1], files)
    # one `git cat-file --batch` for every file of the release
    request = "".join(f"{ref}:{path}\n" for path in files.values())
    out = subprocess.run(["git", "-C", git_dir, "cat-file", "--batch"], input=request.encode(), capture_output=True, check=True).stdout
    position = 0
    for module in files:
        header_end = out.index(b"\n", position)
        header = out[position:header_end].split()
        if len(header) < 3 or header[1] != b"blob":
            position = header_end + 1
            continue
        size = int(header[2])
        source._texts[module] = out[header_end + 1: header_end + 1 + size].decode("utf-8", "replace")
        position = header_end + 1 + size + 1
    return source


def from_directory(package: Path, label: str) -> Source:
    files, texts = {}, {}
    for path in sorted(package.rglob("*.py")):
        rel = "python/tvm/" + path.relative_to(package).as_posix()
        module = _module_name(rel)
        if module is not None:
            files[module] = rel
            texts[module] = path.read_text(encoding="utf-8", errors="replace")
    source = Source(label, files)
    source._texts = texts
    return source


def _module_name(path: str) -> Optional[str]:
    if not path.endswith(".py"):
        return None
    for root, package in ROOTS:
        if path.startswith(root + "/"):
            parts = path[len(root) + 1: -3].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if any(not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p) for p in parts):
                return None
            return ".".join([package, *parts])
    return None


# -- one release's API --------------------------------------------------------------------


class Api:
    """Public paths of one release: path -> (kind, module where defined, line, deprecated-line or None)."""

    def __init__(self, source: Source):
        self.source = source
        self.trees: Dict[str, Optional[ast.Module]] = {}
        self.exports_memo: Dict[str, Dict[str, tuple]] = {}
        self.module_warns: Dict[str, int] = {}
        self.paths: Dict[str, tuple] = {}
        for module in source.files:
            if _private(module):
                continue
            self.paths[module] = ("module", module, 1, self._module_deprecated(module))
            for name, info in self.exports(module, ()).items():
                if not name.startswith("_"):
                    self.paths.setdefault(f"{module}.{name}", info)

    def tree(self, module: str) -> Optional[ast.Module]:
        if module not in self.trees:
            try:
                self.trees[module] = ast.parse(self.source.text(module))
            except (SyntaxError, ValueError):
                self.trees[module] = None
        return self.trees[module]

    def _module_deprecated(self, module: str) -> Optional[int]:
        tree = self.tree(module)
        if tree is None:
            return None
        for statement in _top_level(tree.body):
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                line = _warns(statement)
                if line is not None:
                    return line
        return None

    def exports(self, module: str, stack: Tuple[str, ...]) -> Dict[str, tuple]:
        """name -> (kind, defining module, line, deprecation line)."""
        if module in self.exports_memo:
            return self.exports_memo[module]
        if module in stack:
            return {}
        tree = self.tree(module)
        out: Dict[str, tuple] = {}
        if tree is None:
            self.exports_memo[module] = out
            return out
        is_package = self.source.files.get(module, "").endswith("__init__.py")
        package = module if is_package else module.rpartition(".")[0]
        for statement in _top_level(tree.body):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[statement.name] = ("function", module, statement.lineno, _deprecated_def(statement))
            elif isinstance(statement, ast.ClassDef):
                out[statement.name] = ("class", module, statement.lineno, _deprecated_def(statement))
            elif isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if isinstance(target, ast.Name) and target.id != "__all__":
                        out.setdefault(target.id, ("attribute", module, statement.lineno, None))
            elif isinstance(statement, ast.ImportFrom):
                origin = _resolve(statement, package)
                if origin is None or origin.split(".")[0] not in {p for _, p in ROOTS}:
                    continue
                for alias in statement.names:
                    if alias.name == "*":
                        star = self.exports(origin, stack + (module,))
                        allowed = self._all(origin)
                        for name, info in star.items():
                            if (allowed is None and not name.startswith("_")) or (allowed is not None and name in allowed):
                                out.setdefault(name, info)
                        continue
                    if not is_package:
                        continue  # a plain module's imports are its own business, not its API
                    local = alias.asname or alias.name
                    submodule = f"{origin}.{alias.name}"
                    if submodule in self.source.files:
                        if origin == module or origin.startswith(module + "."):  # `from .op import nn`, not `from .. import tir`
                            out[local] = ("module", submodule, 1, self._module_deprecated(submodule))
                    else:
                        info = self.exports(origin, stack + (module,)).get(alias.name)
                        out[local] = info or ("attribute", module, statement.lineno, None)
        self.exports_memo[module] = out
        return out

    def _all(self, module: str) -> Optional[Set[str]]:
        tree = self.tree(module)
        for statement in tree.body if tree else ():
            if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets):
                try:
                    return set(ast.literal_eval(statement.value))
                except ValueError:
                    return None
        return None


def _private(path: str) -> bool:
    return any(part.startswith("_") for part in path.split("."))


def _top_level(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Top-level statements, looking into `if`/`try` at module level (optional imports)."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _top_level(statement.body)
            for handler in statement.handlers:
                yield from _top_level(handler.body)
        else:
            yield statement


def _resolve(node: ast.ImportFrom, package: str) -> Optional[str]:
    if not node.level:
        return node.module
    parts = package.split(".")
    if node.level > 1:
        parts = parts[: len(parts) - (node.level - 1)]
    if not parts:
        return None
    return ".".join(parts + ([node.module] if node.module else []))


def _name_of(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _name_of(node.func)
    return None


def _warns(node: ast.AST) -> Optional[int]:
    """Line of a warnings.warn(..., <deprecation category>) in `node`, or of a warnings.warn whose
    message says "deprecat" (tvm.target.create warned with the default UserWarning)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and _name_of(sub.func) == "warn":
            categories = list(sub.args[1:2]) + [k.value for k in sub.keywords if k.arg == "category"]
            if any(_name_of(c) in WARNINGS for c in categories):
                return sub.lineno
            if sub.args and "deprecat" in _text(sub.args[0]).lower():
                return sub.lineno
    return None


def _text(node: ast.AST) -> str:
    """The literal text of a message argument (str, f-string or concatenation), as far as it is literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(value) for value in node.values)
    if isinstance(node, ast.BinOp):
        return _text(node.left) + _text(node.right)
    return ""


def _deprecated_def(node: ast.AST) -> Optional[int]:
    for decorator in getattr(node, "decorator_list", ()):
        if _name_of(decorator) == "deprecated":
            return decorator.lineno
    if isinstance(node, ast.ClassDef):
        for item in node.body:  # a class that warns when built
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in ("__init__", "__new__"):
                return _warns(item)
        return None
    return _warns(node)


# -- comparing releases --------------------------------------------------------------------


def candidates(releases: List[str], sources: Dict[str, Source]) -> List[dict]:
    apis = {release: Api(sources[release]) for release in releases if release in sources}
    out: List[dict] = []
    known = [r for r in releases if r in apis]
    for before, after in zip(known, known[1:]):
        old, new = apis[before], apis[after]
        gone = set(old.paths) - set(new.paths)
        for path in sorted(gone):
            parent = path.rpartition(".")[0]
            if parent in gone:
                continue  # the parent's removal stands for it
            kind, module, line, _ = old.paths[path]
            candidate = {
                "old": path, "kind": kind, "status": "removed", "removed": after, "last": before,
                "source": f"{old.source.label}:{old.source.files.get(module, module)}#L{line}",
                "absent": new.source.label,
            }
            back = [r for r in known[known.index(after) + 1:] if path in apis[r].paths]
            if back:
                candidate["back"] = back[0]  # not a removal a range can say: gone at `removed`, there again at `back`
            out.append(candidate)
    first_deprecated: Dict[str, dict] = {}
    for release in known:
        api = apis[release]
        for path, (kind, module, _line, warn_line) in api.paths.items():
            if warn_line is not None and path not in first_deprecated:
                first_deprecated[path] = {
                    "old": path, "kind": kind, "status": "deprecated", "deprecated": release,
                    "source": f"{api.source.label}:{api.source.files.get(module, module)}#L{warn_line}",
                }
    for path, entry in sorted(first_deprecated.items()):
        parent = path.rpartition(".")[0]
        if parent in first_deprecated and first_deprecated[parent]["deprecated"] == entry["deprecated"]:
            continue
        later = [c for c in out if c["status"] == "removed" and (c["old"] == path or path.startswith(c["old"] + "."))
                 and known.index(c["removed"]) > known.index(entry["deprecated"])]
        if later:
            entry["removed"] = later[0]["removed"]
        out.append(entry)
    return out


def mark_covered(found: List[dict]) -> None:
    from tvmlint.base.versions import parse_version
    from tvmlint.knowledge.api_history import DEPRECATED, REMOVED, get_history

    history = get_history()
    for candidate in found:
        if candidate["status"] == "removed":
            use = history.use(candidate["old"], parse_version(candidate["removed"]))
            candidate["covered"] = use is not None and use.status == REMOVED
        else:
            use = history.use(candidate["old"], parse_version(candidate["deprecated"]))
            candidate["covered"] = use is not None and use.status in (DEPRECATED, REMOVED)
        if use is not None:
            candidate["entry"] = use.symbol.old


def count_usage(git_dir: str, found: List[dict], tags: Dict[str, str]) -> None:
    """Uses of each uncovered removal's last name in TVM's own tests/tutorials at its last release."""
    by_release: Dict[str, List[dict]] = {}
    for candidate in found:
        if candidate["status"] == "removed" and not candidate["covered"]:
            by_release.setdefault(candidate["last"], []).append(candidate)
    for release, group in by_release.items():
        names = sorted({_tail(c["old"]) for c in group})
        counts: Dict[str, int] = {}
        for start in range(0, len(names), 200):
            chunk = names[start:start + 200]
            pattern = r"\b(" + "|".join(re.escape(n) for n in chunk) + r")\b"
            done = subprocess.run(["git", "-C", git_dir, "grep", "-h", "-o", "-E", pattern, tags[release], "--", *USAGE_PATHS],
                                  capture_output=True, text=True)
            for match in done.stdout.splitlines():
                counts[match.strip()] = counts.get(match.strip(), 0) + 1
        for candidate in group:
            candidate["uses"] = counts.get(_tail(candidate["old"]), 0)


def _tail(path: str) -> str:
    """How code writes the name: its module's last component and the name (`tvm.lower`, `te.create_schedule`)."""
    return ".".join(path.split(".")[-2:])


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir")
    parser.add_argument("--wheel", type=Path, help="an installed apache-tvm package directory: the 0.27 release")
    parser.add_argument("--wheel-label", help="how facts read from the wheel are cited (default: '<its version> wheel (live)')")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--usage", action="store_true", help="count uses of uncovered removals in TVM's tests/tutorials")
    parser.add_argument("--releases", help="comma-separated releases (default: rules/versions.toml's)")
    args = parser.parse_args(argv)

    releases = release_sources.releases(args.releases)
    wheel_release = release_sources.release_of(release_sources.wheel_version(args.wheel) or "?") if args.wheel else None
    sources: Dict[str, Source] = {}
    tags: Dict[str, str] = {}
    for release in releases:
        if release == releases[-1] and release == wheel_release:
            label = args.wheel_label or f"{release_sources.wheel_label(args.wheel)} (live)"
            sources[release] = from_directory(args.wheel, label)
            continue
        try:
            tags[release] = tag_of(release, args.git_dir)
        except SystemExit as error:
            print(error, file=sys.stderr)
            continue
        sources[release] = from_git(args.git_dir, tags[release])
        print(f"read {release} ({len(sources[release].files)} modules)", file=sys.stderr)
    found = candidates(releases, sources)
    mark_covered(found)
    if args.usage:
        count_usage(args.git_dir, found, tags)
    text = json.dumps(found, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    missing = [c for c in found if not c["covered"]]
    print(f"{len(found)} candidates, {len(missing)} not covered by rules/api_history.toml "
          f"({sum(c['status'] == 'removed' for c in missing)} removed, {sum(c['status'] == 'deprecated' for c in missing)} deprecated)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
