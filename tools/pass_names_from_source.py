"""Regenerate rules/pass_names.toml from apache/tvm's source at every release tag.

Usage: python tools/pass_names_from_source.py GIT_DIR SITE_PACKAGES/tvm [--releases 0.6,...] > rules/pass_names.toml

GIT_DIR is a clone (bare is fine) of apache/tvm with its tags; the second path
is an installed apache-tvm wheel's package directory (the names of the release
that has no tag, 0.27). The releases are rules/versions.toml's from 0.6 on (or
--releases; tools/releases.py). Reads
Create*Pass/Sequential calls with a literal name in C++ and pass decorators and
Sequential(name=...) in Python; writes the names passes.toml does not list.
Run from the repository root with tvmlint importable.
"""
import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import releases  # noqa: E402

G = sys.argv[1] if len(sys.argv) > 1 else "."
CPP_CALL = re.compile(r"\b(Create(?:Function|Module|PrimFunc|DataflowBlock)Pass|(?:transform::)?Sequential)\s*\(")

def git(*args):
    return subprocess.run(["git", "-C", G, *args], capture_output=True, text=True).stdout

def split_args(text, start):
    """Top-level arguments of the call whose '(' is at text[start-1]."""
    depth, args, cur, i = 0, [], [], start
    while i < len(text):
        c = text[i]
        if c in '"\'':
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1]); i = j + 1; continue
        if text.startswith("//", i):
            j = text.find("\n", i); i = len(text) if j < 0 else j; continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur).strip()); return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(cur).strip()); cur = []; i += 1; continue
        cur.append(c); i += 1
    return None

STR = re.compile(r'^"([A-Za-z0-9_.\-]+)"$')

def cpp_names(tag, prefix):
    files = git("grep", "-l", "-E", r"Create(Function|Module|PrimFunc|DataflowBlock)Pass|Sequential\(", tag, "--", "src", "include", "vta", "apps").split()
    out = {}
    for entry in files:
        path = entry.split(":", 1)[1]
        text = git("show", f"{tag}:{path}")
        for m in CPP_CALL.finditer(text):
            args = split_args(text, m.end())
            if not args:
                continue
            kind = m.group(1)
            index = 1 if "Sequential" in kind else 2
            if len(args) > index:
                s = STR.match(re.sub(r"/\*.*?\*/", "", args[index], flags=re.S).strip())
                if s:
                    line = text.count("\n", 0, m.start()) + 1
                    out.setdefault(s.group(1), f"{prefix}:{path}#L{line}")
    return out

DECOS = {"module_pass", "function_pass", "prim_func_pass", "dataflowblock_pass"}

def _callee(node):
    f = node.func if isinstance(node, ast.Call) else node
    if isinstance(f, ast.Attribute): return f.attr
    if isinstance(f, ast.Name): return f.id
    return None

def py_names_from_text(text, cite):
    out = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return out
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                if _callee(d) in DECOS:
                    name = node.name
                    if isinstance(d, ast.Call):
                        for kw in d.keywords:
                            if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                                name = kw.value.value
                    out.setdefault(name, f"{cite}#L{node.lineno}")
        if isinstance(node, ast.Call) and _callee(node) in DECOS | {"Sequential"}:
            for kw in node.keywords:
                if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    out.setdefault(kw.value.value, f"{cite}#L{node.lineno}")
            if _callee(node) in DECOS and node.args and len(node.args) >= 3 and isinstance(node.args[2], ast.Constant):
                out.setdefault(node.args[2].value, f"{cite}#L{node.lineno}")
    return out

def py_names(tag, prefix):
    files = git("grep", "-l", "-E", r"module_pass|function_pass|prim_func_pass|dataflowblock_pass|Sequential\(", tag, "--", "python", "nnvm/python", "vta/python", "topi/python").split()
    out = {}
    for entry in files:
        path = entry.split(":", 1)[1]
        if not path.endswith(".py") or "/tests/" in path or path.startswith("tests"):
            continue
        for k, v in py_names_from_text(git("show", f"{tag}:{path}"), f"{prefix}:{path}").items():
            out.setdefault(k, v)
    return out


HEADER = """# tvmlint rules: pass_names.toml
# Registered pass names (PassInfo.name) that passes.toml does not list: passes built inside C++
# pipelines (ManifestAllocImpl, tir.BindParams), contrib/BYOC passes, passes TVM's own Python
# library defines with module_pass/function_pass/prim_func_pass, and named Sequentials. Together
# with the names in passes.toml they are every name a required_pass/disabled_pass entry can
# match at a release (TVM104 unknown-pass-name); nothing else reads this file.
#
# How this was built (tools/pass_names_from_source.py): at every release tag {first} .. {last} of apache/tvm, every
# Create{{Function,Module,PrimFunc,DataflowBlock}}Pass(..., "Name", ...) and Sequential(..., "Name")
# call with a literal name under src/ include/ vta/ apps/, and every pass decorator call
# (name=..., else the decorated function's or class's name) and Sequential(name=...) under
# python/ (tests excluded). {wheel_release}: the apache-tvm {wheel_version} wheel's Python files, plus the C++
# names at {last} and at main (the wheel's commit is not under a tag; main is newer, so a name
# there that {wheel_release} lacks is tolerated, never reported). Names built at run time (`"relay.ext." + name`)
# cannot be listed; TVM104 only judges names it can compare.
# `since`/`until` as in README.md; `source` is the first registration (and the last, for a range).

"""


# pass names are read from v0.6.0, the first release with Relay's pass infrastructure
FIRST = "0.6"


def names_at(tag):
    names = cpp_names(tag, tag)
    for k, v in py_names(tag, tag).items():
        names.setdefault(k, v)
    return names


def collect(wheel_root, chosen):
    """The releases read, in order (a tag, or a release read from the wheel), and each one's names."""
    import glob
    tagged = dict(releases.tagged(G, chosen))
    wheel_release = releases.release_of(releases.wheel_version(Path(wheel_root)) or "?")
    order, found = [], {}
    for release in chosen:
        if release in tagged:
            tag = tagged[release]
            found[tag] = names_at(tag)
            order.append(tag)
        elif release == wheel_release and order:
            # the wheel's Python, plus C++ names at the newest tag before it and at main (its commit has no tag)
            label = releases.wheel_label(Path(wheel_root))
            wheel = {}
            for path in sorted(glob.glob(wheel_root + "/**/*.py", recursive=True)):
                rel = "tvm" + path[len(wheel_root):]
                for k, v in py_names_from_text(open(path, encoding="utf-8").read(), f"{label}:" + rel).items():
                    wheel.setdefault(k, v)
            newest = dict(wheel)
            for source in (names_at("main"), found[order[-1]]):
                for k, v in source.items():
                    newest.setdefault(k, v)
            found[release] = newest
            order.append(release)
        else:
            releases.warn(f"{release}: no tag in {G} and not the wheel's release: left out")
    return order, found


def header(order, wheel_root):
    tags = [t for t in order if t.startswith("v")]
    return HEADER.format(first=tags[0], last=tags[-1], wheel_release=releases.release_of(releases.wheel_version(Path(wheel_root)) or "?"),
                         wheel_version=releases.wheel_version(Path(wheel_root)))


def main():
    from tvmlint.base.versions import parse_version
    from tvmlint.knowledge.target import get_knowledge
    global G
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("wheel", help="an installed apache-tvm's tvm/ directory (read, never imported)")
    parser.add_argument("--releases", help="comma-separated releases (default: rules/versions.toml's)")
    args = parser.parse_args()
    G = args.git_dir
    chosen = releases.between(releases.releases(args.releases), FIRST)
    order, d = collect(args.wheel, chosen)
    ver = {t: releases.release_of(t.lstrip('v')) for t in order}
    table = {t: get_knowledge(parse_version(ver[t])).registered_names() for t in order}
    names = sorted({n for t in order for n in d[t]})
    entries = []
    for name in names:
        run = []
        def flush():
            if run and any(name not in table[t] for t in run):
                e = {'name': name, 'since': ver[run[0]]}
                idx = order.index(run[-1])
                if idx + 1 < len(order):
                    e['until'] = ver[order[idx + 1]]
                first, last = d[run[0]][name], d[run[-1]][name]
                e['source'] = first if first == last or run[0] == run[-1] else f"{first}; last at {last}"
                entries.append(e)
        for t in order:
            if name in d[t]:
                run.append(t)
            else:
                flush(); run = []
        flush()
    def q(s): return json.dumps(s)
    out = [header(order, args.wheel)]
    for e in entries:
        out.append('[[name]]')
        for k in ('name', 'since', 'until', 'source'):
            if k in e:
                out.append(f'{k} = {q(e[k])}')
        out.append('')
    sys.stdout.write('\n'.join(out))


if __name__ == "__main__":
    main()
