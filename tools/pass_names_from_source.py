"""Regenerate rules/pass_names.toml from apache/tvm's source at every release tag.

Usage: python tools/pass_names_from_source.py GIT_DIR SITE_PACKAGES/tvm > rules/pass_names.toml

GIT_DIR is a clone (bare is fine) of apache/tvm with its tags; the second path
is an installed apache-tvm wheel's package directory (the 0.27 names). Reads
Create*Pass/Sequential calls with a literal name in C++ and pass decorators and
Sequential(name=...) in Python; writes the names passes.toml does not list.
Run from the repository root with tvmlint importable.
"""
import ast
import json
import re
import subprocess
import sys

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
# How this was built (tools/pass_names_from_source.py): at every release tag v0.6.0 .. v0.26.0 of apache/tvm, every
# Create{Function,Module,PrimFunc,DataflowBlock}Pass(..., "Name", ...) and Sequential(..., "Name")
# call with a literal name under src/ include/ vta/ apps/, and every pass decorator call
# (name=..., else the decorated function's or class's name) and Sequential(name=...) under
# python/ (tests excluded). 0.27: the apache-tvm 0.27.0.post1 wheel's Python files, plus the C++
# names at v0.26.0 and at main (the wheel's commit is not under a tag; main is newer, so a name
# there that 0.27 lacks is tolerated, never reported). Names built at run time (`"relay.ext." + name`)
# cannot be listed; TVM104 only judges names it can compare.
# `since`/`until` as in README.md; `source` is the first registration (and the last, for a range).

"""


def collect(wheel_root):
    import glob
    tags = [f"v0.{i}.0" for i in range(6, 27)]
    found = {}
    for tag in tags + ["main"]:
        names = cpp_names(tag, tag)
        for k, v in py_names(tag, tag).items():
            names.setdefault(k, v)
        found[tag] = names
    wheel = {}
    for path in sorted(glob.glob(wheel_root + "/**/*.py", recursive=True)):
        rel = "tvm" + path[len(wheel_root):]
        for k, v in py_names_from_text(open(path, encoding="utf-8").read(), "0.27.0.post1 wheel:" + rel).items():
            wheel.setdefault(k, v)
    # 0.27: the wheel's Python, plus C++ names at v0.26.0 and main (the wheel's commit has no tag)
    newest = dict(wheel)
    for source in (found["main"], found["v0.26.0"]):
        for k, v in source.items():
            newest.setdefault(k, v)
    found["0.27"] = newest
    return tags + ["0.27"], found


def main():
    from tvmlint.base.versions import parse_version
    from tvmlint.knowledge.target import get_knowledge
    order, d = collect(sys.argv[2])
    ver = {t: (t.lstrip('v').rsplit('.', 1)[0] if t.startswith('v') else t) for t in order}
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
    out = [HEADER]
    for e in entries:
        out.append('[[name]]')
        for k in ('name', 'since', 'until', 'source'):
            if k in e:
                out.append(f'{k} = {q(e[k])}')
        out.append('')
    sys.stdout.write('\n'.join(out))


if __name__ == "__main__":
    main()
