"""Print numerics.toml's [[te_keep_dtype]] rows from apache/tvm's source at release tags.

Usage: python tools/dtype_keeping_ops_from_source.py GIT_DIR >> rules/numerics.toml (then
tidy by hand: the rows replace the old ones).

A TIR math function such as `exp(x)` returns `call_intrin(x.dtype, "tir.exp", x)`: its value
has its first argument's dtype, so `te.compute(..., lambda i: tir.exp(src[i]))` over a float16
`src` is a float16 tensor. This reads each tag's op module and lists the functions of one
or more arguments whose every return is `call_intrin`/`call_pure_intrin` with the first
argument's `.dtype` (at head `_primexpr_ty(x)`, the type of x), with the line, for the namespaces that expose them at that release.
"""
import ast
import subprocess
import sys

GIT = sys.argv[1] if len(sys.argv) > 1 else "."

# (tags, op module, the names under which its functions are called at those releases)
LAYOUTS = [
    (["v0.6.0"], "python/tvm/intrin.py", ["tvm", "tvm.intrin"], None, "0.7"),
    (["v0.8.0", "v0.18.0"], "python/tvm/tir/op.py", ["tvm.tir", "tvm.tir.op", "tvm.te"], "0.7", "0.24"),
    (["v0.26.0"], "python/tvm/tirx/op.py", ["tvm.tirx", "tvm.tirx.op", "tvm.te"], "0.24", None),
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


def main() -> None:
    for tags, path, namespaces, since, until in LAYOUTS:
        per_tag = {tag: dict(keeping(show(tag, path))) for tag in tags}
        names = sorted(set.intersection(*(set(found) for found in per_tag.values())))
        print("[[te_keep_dtype]]")
        print(f"names = {names!r}".replace("'", '"'))
        print(f"namespaces = {namespaces!r}".replace("'", '"'))
        if since:
            print(f'since = "{since}"')
        if until:
            print(f'until = "{until}"')
        cited = "; ".join(f"{tag}:{path}#L{per_tag[tag][names[0]]} ({names[0]}) .. #L{per_tag[tag][names[-1]]} ({names[-1]})"
                          for tag in tags)
        print(f'source = "{cited}: each returns call_intrin(x.dtype, ...)"')
        print()


if __name__ == "__main__":
    main()
