"""The limits every entry point applies before it analyses a text: check, fix, explain, LSP
hover, inlay hints and code actions all come through here, so no path reaches libcst or the
recursive analysis with a file too large or too deep for them.

Each guard says why in one line (TVM001's message for check; explain and the LSP show it as
the reason nothing is explained)."""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from dataclasses import dataclass
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


# A file's analysis that runs past its budget (`max-analysis-time`, tvmlint.run.budget) is stopped:
# its TVM001 starts so, and the commands that see one exit 2 (the verdict is the machine's, not the code's)
_OVER_TIME = "The file could not be analysed: its analysis took longer than "


def over_time(seconds: float) -> str:
    """TVM001's message for a file whose analysis ran past `max-analysis-time` (seconds)."""
    return (
        f"{_OVER_TIME}{seconds:g} s (max-analysis-time); "
        "set max-analysis-time in [tool.tvmlint] or --max-analysis-time (0: no limit) to give it longer"
    )


def timed_out(findings) -> list:
    """The findings among `findings` that say a file's analysis ran past its budget."""
    return [finding for finding in findings if finding.code == "TVM001" and finding.message.startswith(_OVER_TIME)]


def over_time_line(finding) -> str:
    """The one-line error a command prints for such a finding: the file and how long it was given."""
    return f"{finding.path}: its analysis took longer than {finding.message[len(_OVER_TIME):].split(';', 1)[0]}"


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


def too_deep_or_large(depth: int, count: int, counted_all: bool = True) -> Optional[str]:
    """Why a module of this shape (`tree_shape`) is not analysed, or None. `counted_all`: False when
    counting stopped past the limit (`count` is where it stopped)."""
    if depth > MAX_NESTING:
        return f"it is too deeply nested ({depth} levels; tvmlint analyses up to {MAX_NESTING})"
    if count > MAX_NODES:
        counted = f"{count:,}" if counted_all else "over " + f"{MAX_NODES:,}"
        return f"it is too large ({counted} syntax nodes; tvmlint analyses up to {MAX_NODES:,}); only its syntax was checked"
    return None


def shape_problem(tree: "ast.Module") -> Optional[str]:
    """Why a parsed module is too deep or too large to analyse, or None."""
    return too_deep_or_large(*tree_shape(tree))


# The stdlib parser's tree takes about 400 MB per MB of short statements (800,000 `x = 1` lines:
# 1.9 GB, and a failing parse twice that): a text longer than PARTS_FROM characters is parsed
# PART characters at a time first, each part's tree counted and dropped, so that one too large
# to analyse, or that does not parse, is known without ever holding its whole tree.
PARTS_FROM = 256 << 10
PART = 128 << 10
# a part that does not parse on its own is joined to the next (it ended inside a statement: a
# string, brackets, an `else:`) this many times before the rest of the text is parsed whole
JOINS = 4
# a line at column 0 that continues the statement above it: never the first line of a part
_CLAUSES = ("else", "elif", "except", "finally")


@dataclass
class Measured:
    """A text's shape as `tree_shape` gives it, or its first syntax error (line, column, message)."""

    depth: int = 0
    nodes: int = 0
    error: Optional[Tuple[int, int, str]] = None
    counted_all: bool = True  # False: counting stopped once past MAX_NODES
    # (line, characters) of one statement too large to parse (`_huge_statement`): never parsed
    unparsed: Optional[Tuple[int, int]] = None

    def problem(self) -> Optional[str]:
        """Why the text cannot be analysed (it does not parse, or it is too deep or too large), or None."""
        if self.error is not None:
            line, _column, message = self.error
            return f"{message} (line {line})"
        too_big = self.too_big()
        return f"The file could not be analysed: {too_big}" if too_big else None

    def too_big(self) -> Optional[str]:
        if self.unparsed is not None:
            line, size = self.unparsed
            return (f"it is too large: the statement on line {line} ({size / 2**20:.1f} MB) holds over {MAX_NODES:,} "
                    f"syntax nodes (tvmlint analyses up to {MAX_NODES:,}); it was not parsed")
        return too_deep_or_large(self.depth, self.nodes, self.counted_all)


def measure_in_parts(text: str, shape: bool = True) -> Optional[Measured]:
    """A text longer than PARTS_FROM characters, parsed a part at a time: its shape, or its first
    syntax error, at the place the whole text's parse gives it. None for a shorter text (its whole
    tree is cheap), or one whose parts do not stand alone (a `from __future__ import
    barry_as_FLUFL` changes how later parts parse). Parts end after a \n, so a text whose lines
    all end in a lone CR is one part.

    Parts end before a line at column 0 that starts a statement, so that text before a part is
    whole statements and the part parses, or fails, as it would in the whole text. Once the
    count is past MAX_NODES, the verdict is made and only the syntax of the rest matters: its
    parts are checked without building their trees. `shape` False: only the syntax is asked
    (and whether a statement is too large to parse), for a text that is not analysed: no part's
    tree is built, and the depth and node count say nothing."""
    import gc

    if len(text) <= PARTS_FROM or "barry_as_FLUFL" in text:
        return None
    collecting = gc.isenabled()
    gc.disable()  # the trees' millions of objects go by reference counting: a collection would walk them all
    try:
        return _measure(text, shape)
    finally:
        if collecting:
            gc.enable()


def _measure(text: str, shape: bool = True) -> Measured:
    from tvmlint.analysis.used_names import parse

    measured = Measured()
    start, line, parts = 0, 0, 0
    while start < len(text):
        counting = shape and measured.nodes <= MAX_NODES
        end = _part_end(text, start)
        for _ in range(JOINS + 1):
            # a part far longer than PART holds a long statement: one past MAX_NODES is never
            # parsed (the parser takes about 300 MB per MB of it, a 4.9 MB list of numbers 1.6 GB,
            # even to say whether it parses)
            huge = _huge_statement(text, start, end) if end - start > 2 * PART else None
            if huge is not None:
                measured.unparsed = (line + _lines_in(text, start, huge[0]) + 1, huge[1])
                return measured
            verdict = _part_verdict(text[start:end], counting)
            if verdict is not None or end == len(text):
                break
            end = _part_end(text, end)
        if verdict is None:
            huge = _huge_statement(text, start, len(text))
            if huge is not None:
                measured.unparsed = (line + _lines_in(text, start, huge[0]) + 1, huge[1])
                return measured
        if verdict is None:  # a real error, or a statement longer than the parts joined: the rest, whole
            # after as many empty lines as went before, so that the error's lines (its message may
            # name one too) are the whole text's; the tokenizer passes over them at no cost
            tree, error = parse("\n" * line + text[start:])
            if tree is None:
                measured.error = error
                return measured
            verdict = tree_shape(tree)
            del tree
            end = len(text)
        if verdict is True:
            measured.counted_all = False
        else:
            depth, nodes = verdict
            measured.depth = max(measured.depth, depth)
            measured.nodes += nodes
            parts += 1
        line += _lines_in(text, start, end)
        start = end
    measured.nodes -= parts - 1  # one Module node, not one per part
    return measured


# What each part said, by its text: None (it does not parse on its own), its (depth, nodes)
# when counted, True when only its syntax was asked. The daemon checks a large file again after
# every edit, and so does the language server (a change's check in a child it forks, which
# starts from what the server's own checks, on open and save, kept), and an edit leaves most of
# a file's parts as they were. A pure function of the part's text, kept for the most recent
# parts up to _REMEMBERED characters; only by a process that asked (`remember_parts`): one that
# checks a tree once would only hold them.
_PART_VERDICTS: "Optional[OrderedDict[Tuple[str, bool], object]]" = None
_REMEMBERED = 8 << 20
_remembered = [0]
_UNKNOWN = object()


def remember_parts() -> None:
    """Keep what each part of a large file said for this process's later checks (the daemon,
    the language server)."""
    global _PART_VERDICTS
    if _PART_VERDICTS is None:
        _PART_VERDICTS = OrderedDict()


def _part_verdict(part: str, counting: bool):
    """Whether a part parses on its own, with its shape when `counting`. Past the count, only
    whether it parses: a part that does not is joined to the next, and the rest parsed whole
    gives the verdict (where the symbol-table pass alone objects, `parses`, too)."""
    from tvmlint.analysis.used_names import parse, parses

    memo = _PART_VERDICTS
    key = (part, counting)
    known = memo.get(key, _UNKNOWN) if memo is not None else _UNKNOWN
    if known is not _UNKNOWN:
        memo.move_to_end(key)
        return known
    if counting:
        tree = parse(part)[0]
        verdict = None if tree is None else tree_shape(tree)
        del tree
    else:
        verdict = True if parses(part) else None
    if memo is not None and len(part) <= _REMEMBERED:
        memo[key] = verdict
        _remembered[0] += len(part)
        while _remembered[0] > _REMEMBERED:
            (oldest, _), _verdict = memo.popitem(last=False)
            _remembered[0] -= len(oldest)
    return verdict


# What `_logical_line_end` steps over: strings (whatever their prefix: it changes no extent),
# comments, brackets, a backslash continuation, and line ends. A quote left unmatched ends the scan.
# (each loop unrolled: a repeated alternation keeps a backtracking entry per character, hundreds
# of megabytes for a string of megabytes)
_STRING = (r"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''" r'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
           r"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'" r'|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"')
_SCAN = re.compile(_STRING + r"|#[^\r\n]*|[\[\](){}]|\\\r?\n|\r\n?|\n|['\"]", re.DOTALL)
_STRINGS_AND_COMMENTS = re.compile(_STRING + r"|#[^\r\n]*", re.DOTALL)
# a number's first digit (one per literal: `1.5e3`, `0x1f` and `x1` count once or not at all)
_NUMBER = re.compile(r"(?<![\w.])[0-9]")


def _huge_statement(text: str, start: int, end: int) -> Optional[Tuple[int, int]]:
    """(where, characters) of the first logical line in text[start:end] that alone holds more than
    MAX_NODES syntax nodes, or None. One pass over strings, comments, brackets and line ends; the
    nodes are counted so as never to overstate them (`_over_max_nodes`)."""
    depth, line_start = 0, start
    for match in _SCAN.finditer(text, start, end):
        token = match.group()
        first = token[0]
        if first in "([{":
            depth += 1
        elif first in ")]}":
            depth = max(0, depth - 1)
        elif first in "\r\n":
            if depth == 0:
                if match.end() - line_start > MAX_NODES and _over_max_nodes(text[line_start:match.end()]):
                    return line_start, match.end() - line_start
                line_start = match.end()
        elif first in "'\"" and len(token) == 1:  # an open quote: the parser will say what it is
            return None
    if end - line_start > MAX_NODES and _over_max_nodes(text[line_start:end]):
        return line_start, end - line_start
    return None


def _over_max_nodes(statement: str) -> bool:
    """Whether one logical line holds more than MAX_NODES nodes, by a count that never overstates
    them: each number is a node, and each comma follows a node of its own (an element, an
    argument, an alias), except in `global` and `nonlocal`, whose names are none."""
    code = _STRINGS_AND_COMMENTS.sub(" ", statement)
    commas = 0 if code.lstrip().startswith(("global", "nonlocal")) else code.count(",")
    return max(commas, len(_NUMBER.findall(code))) > MAX_NODES  # one-character strings: shared objects


def _lines_in(text: str, start: int, end: int) -> int:
    """The lines that text[start:end] ends, as Python ends them: \n, \r\n or a lone \r."""
    newlines = text.count("\n", start, end)
    returns = text.count("\r", start, end)
    return newlines + (returns - text.count("\r\n", start, end) if returns else 0)


def _part_end(text: str, start: int) -> int:
    """Where a part from `start` ends: the start of the first line, PART characters on or more, at
    column 0 that may begin a statement (the end of the text if none)."""
    at = start + PART
    while True:
        newline = text.find("\n", at)
        if newline < 0 or newline + 1 == len(text):
            return len(text)
        at = newline + 1
        first = text[at]
        if (first.isalpha() or first in "_@") and not (text.startswith(_CLAUSES, at) and _clause_at(text, at)):
            return at


def _clause_at(text: str, at: int) -> bool:
    word_end = at
    while word_end < len(text) and (text[word_end].isalnum() or text[word_end] == "_"):
        word_end += 1
    return text[at:word_end] in _CLAUSES


@functools.lru_cache(maxsize=2)
def _problem_in_parts(text: str) -> Optional[str]:
    # kept: the language server asks again for each hover and inlay hint on the same buffer
    measured = measure_in_parts(text)
    return measured.problem() if measured is not None else None


def admit(text: str, limit: Optional[int]) -> Tuple[Optional["ast.Module"], Optional[str]]:
    """(stdlib tree, None) when `text` may be analysed; (None, why) when it is over `limit`
    bytes (None: no limit), not Python, or too deep or too large. The order is the cheap one
    first: the size before the parser, the parser (iterative in CPython, and bounded by its
    own nesting limit) before any recursive walk."""
    from tvmlint.analysis.used_names import parse

    why = too_large(len(text.encode("utf-8", "surrogatepass")), limit)
    if why:
        return None, why
    why = _problem_in_parts(text)
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
