"""Print numerics.toml's [[te_keep_dtype]] rows from apache/tvm's source at release tags.

Usage: python tools/dtype_keeping_ops_from_source.py GIT_DIR [--write rules/numerics.toml] [--releases 0.4,...]

Without --write the rows go to stdout; with it they replace the [[te_keep_dtype]] rows of the
file, and nothing else in it changes.

A TIR math function such as `exp(x)` returns `call_intrin(x.dtype, "tir.exp", x)`: its value
has its first argument's dtype, so `te.compute(..., lambda i: tir.exp(src[i]))` over a float16
`src` is a float16 tensor. This reads each tag's op module and lists the functions of one
or more arguments whose every return is `call_intrin`/`call_pure_intrin` with the first
argument's `.dtype` (at head `_primexpr_ty(x)`, the type of x), with the line, for the namespaces that expose them at that release.
"""
import argparse
import ast
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import releases  # noqa: E402

GIT = "."
TABLE = "[[te_keep_dtype]]"

# (tags, op module, the names under which its functions are called at those releases, since, until);
# the open-ended layout is read at the newest tagged release (tools/releases.py), whose module the
# release after it will most likely keep.
LAYOUTS = [
    (["v0.6.0"], "python/tvm/intrin.py", ["tvm", "tvm.intrin"], None, "0.7"),
    (["v0.8.0", "v0.18.0"], "python/tvm/tir/op.py", ["tvm.tir", "tvm.tir.op", "tvm.te"], "0.7", "0.24"),
    (None, "python/tvm/tirx/op.py", ["tvm.tirx", "tvm.tirx.op", "tvm.te"], "0.24", None),
]


def show(tag: str, path: str) -> str:
    ref = tag if tag == "HEAD" else f"refs/tags/{tag}"
    return subprocess.run(["git", "-C", GIT, "show", f"{ref}:{path}"], capture_output=True, text=True, check=True).stdout


def keeping(text: str):
    """(name, line) of each function that returns an intrinsic of its first argument's dtype."""
    for node in ast.parse(text).body:
        if not isinstance(node, ast.FunctionDef) or not node.args.args or node.name.startswith("_"):
            continue
        first = node.args.args[0].arg
        returns = [r for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None]
        if returns and all(
            isinstance(r.value, ast.Call)
            and ast.unparse(r.value.func).rsplit(".", 1)[-1] in ("call_intrin", "call_pure_intrin")
            and r.value.args and ast.unparse(r.value.args[0]) in (f"{first}.dtype", f"_primexpr_ty({first})")
            for r in returns
        ):
            yield node.name, node.lineno


def rows(chosen) -> str:
    tagged = releases.tagged(GIT, chosen)
    out = []
    for tags, path, namespaces, since, until in LAYOUTS:
        if tags is None:
            newest = [tag for release, tag in tagged if release in releases.between([release], since, until)]
            if not newest:
                raise SystemExit(f"no tagged release from {since} in {GIT}")
            tags = newest[-1:]
        per_tag = {tag: dict(keeping(show(tag, path))) for tag in tags}
        names = sorted(set.intersection(*(set(found) for found in per_tag.values())))
        out.append(TABLE)
        out.append(f"names = {names!r}".replace("'", '"'))
        out.append(f"namespaces = {namespaces!r}".replace("'", '"'))
        if since:
            out.append(f'since = "{since}"')
        if until:
            out.append(f'until = "{until}"')
        cited = "; ".join(f"{tag}:{path}#L{per_tag[tag][names[0]]} ({names[0]}) .. #L{per_tag[tag][names[-1]]} ({names[-1]})"
                          for tag in tags)
        out.append(f'source = "{cited}: each returns call_intrin(x.dtype, ...)"')
        out.append("")
    return "\n".join(out) + "\n"


def splice(text: str, generated: str) -> str:
    """`text` with its run of [[te_keep_dtype]] rows (each to the blank line that ends it) replaced."""
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if line.strip() == TABLE), None)
    if first is None:
        raise SystemExit(f"no {TABLE} rows to replace")
    end = first
    while end < len(lines) and (lines[end].strip() == TABLE or not lines[end].startswith("[")):
        end += 1
    while end > first and lines[end - 1].startswith("#"):
        end -= 1  # a comment right above the next table belongs to it
    return "".join(lines[:first]) + generated + "".join(lines[end:])


def main(argv=None) -> int:
    global GIT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("--write", type=Path, metavar="FILE")
    parser.add_argument("--releases", help="comma-separated releases (default: rules/versions.toml's)")
    args = parser.parse_args(argv)
    GIT = args.git_dir
    generated = rows(releases.releases(args.releases))
    if args.write:
        old = args.write.read_text(encoding="utf-8")
        new = splice(old, generated)
        if new != old:
            args.write.write_text(new, encoding="utf-8")
    else:
        sys.stdout.write(generated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
