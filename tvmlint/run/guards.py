"""The limits every entry point applies before it analyses a text: check, fix, explain, LSP
hover, inlay hints and code actions all come through here, so no path reaches libcst or the
recursive analysis with a file too large or too deep for them.

Each guard says why in one line (TVM001's message for check; explain and the LSP show it as
the reason nothing is explained)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Tuple

if TYPE_CHECKING:
    import ast


def too_large(size: int, limit: Optional[int]) -> Optional[str]:
    """TVM001's message for a file of `size` bytes over the `max-file-size` limit (bytes; None: no
    limit), or None. Such a file is not parsed at all: the stdlib parser alone takes about 150 MB
    of memory per MB of source, so a generated 50 MB module would take gigabytes."""
    if limit is None or size <= limit:
        return None
    megabytes, most = size / 2**20, limit / 2**20
    shown = f"{megabytes:.1f}" if round(megabytes, 1) > round(most, 1) else f"{megabytes:.4g}"
    return (
        f"The file could not be analysed: too large to analyse ({shown} MB, limit {most:.4g} MB); "
        "set max-file-size in [tool.tvmlint] or --max-file-size (0: no limit) to check it"
    )


def too_large_stream(limit: int) -> str:
    """TVM001's message for a stream (stdin) that goes on past the `max-file-size` limit: it is
    read no further, so only the limit is known."""
    return (
        f"The input could not be analysed: too large to analyse (more than the limit of {limit / 2**20:.4g} MB); "
        "set max-file-size in [tool.tvmlint] or --max-file-size (0: no limit) to check it"
    )


# libcst's parser slows down with the square of the nesting and crashes the process
# (a native stack overflow) a few thousand levels down, and the analysis (recursive
# visitors) gives up with RecursionError at a few hundred: deeper files never reach it.
MAX_NESTING = 500
# libcst and the analysis take about a millisecond and some kilobytes per statement:
# a generated 10 MB module would take many minutes and gigabytes. Larger files get
# the stdlib parser's syntax check and a note that they were not analysed.
MAX_NODES = 250_000


def tree_shape(tree) -> Tuple[int, int]:
    """(depth, node count) of a stdlib syntax tree, as `ast.iter_child_nodes` counts them, iteratively:
    it may be deeper than the stack. Contexts and operators are counted, not walked: they have no children."""
    import ast

    from tvmlint.analysis.used_names import LEAVES

    deepest = count = 0
    stack = [(tree, 1)]
    pop, push = stack.pop, stack.append
    known = {}
    node_type = ast.AST
    while stack:
        node, depth = pop()
        count += 1
        if depth > deepest:
            deepest = depth
        kind = type(node)
        fields = known.get(kind)
        if fields is None:
            fields = known[kind] = kind._fields
        below = depth + 1
        for name in fields:
            value = getattr(node, name, None)
            for item in value if type(value) is list else (value,):
                if not isinstance(item, node_type):
                    continue
                if isinstance(item, LEAVES):
                    count += 1
                    if below > deepest:
                        deepest = below
                else:
                    push((item, below))
    return deepest, count


def _too_big(depth: int, count: int) -> Optional[str]:
    if depth > MAX_NESTING:
        return f"it is too deeply nested ({depth} levels; tvmlint analyses up to {MAX_NESTING})"
    if count > MAX_NODES:
        return f"it is too large ({count:,} syntax nodes; tvmlint analyses up to {MAX_NODES:,}); only its syntax was checked"
    return None


def shape_problem(tree: "ast.Module") -> Optional[str]:
    """Why a parsed module is too deep or too large to analyse, or None."""
    return _too_big(*tree_shape(tree))


def admit(text: str, limit: Optional[int]) -> Tuple[Optional["ast.Module"], Optional[str]]:
    """(stdlib tree, None) when `text` may be analysed; (None, why) when it is over `limit`
    bytes (None: no limit), not Python, or too deep or too large. The order is the cheap one
    first: the size before the parser, the parser (iterative in CPython, and bounded by its
    own nesting limit) before any recursive walk."""
    from tvmlint.analysis.used_names import parse

    why = too_large(len(text.encode("utf-8", "surrogatepass")), limit)
    if why:
        return None, why
    tree, error = parse(text)
    if tree is None:
        line, _column, message = error
        return None, f"{message} (line {line})"
    problem = shape_problem(tree)
    if problem:
        return None, f"The file could not be analysed: {problem}"
    return tree, None


# Interpreters whose scripts are sometimes named .py (a shell launcher in an apps/ folder), and
# Cython's own statements (a .pyi or .py holding Cython): a file that starts so, and that Python
# cannot parse, is not Python, and a parse error on it would be a false finding.
_OTHER_INTERPRETERS = ("sh", "bash", "zsh", "ksh", "dash", "fish", "csh", "tcsh", "perl", "ruby", "node", "Rscript", "lua")
_CYTHON_STATEMENTS = ("ctypedef ", "cdef ", "cpdef ", "cimport ", "from libc", "from libcpp")


def not_python(text: str) -> bool:
    """Whether text that Python could not parse is plainly another language's: a shebang naming
    another interpreter, or Cython's own statements at the start of a line."""
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        words = first[2:].split()
        program = words[0].rsplit("/", 1)[-1] if words else ""
        if program == "env":  # `#!/usr/bin/env bash`, `#!/usr/bin/env -S bash -e`
            program = next((word for word in words[1:] if not word.startswith("-")), "")
        if program in _OTHER_INTERPRETERS:
            return True
    return any(line.startswith(_CYTHON_STATEMENTS) for line in text.splitlines())
