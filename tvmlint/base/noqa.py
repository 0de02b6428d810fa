"""`# noqa` and `# noqa: TVM101, TVM202` suppressions, read from the comments of a module.

Comments are found with the tokenizer, so a `"# noqa"` inside a string suppresses
nothing. A directive may follow other text in its comment (`# type: ignore  # noqa: X`),
as ruff reads it. `add_noqa_to_text` writes directives (`check --add-noqa`).
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from tvmlint.base.source import split_lines

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")
_START = re.compile(r"#\s*noqa", re.IGNORECASE)
ALL = frozenset({"*"})


@dataclass(frozen=True)
class Directive:
    """One `# noqa` comment. Columns are 0-based, in characters of the line."""

    line: int
    start: int  # the directive's `#`
    end: int  # after its last code (or after `noqa` when bare)
    codes: Tuple[Tuple[str, int, int], ...]  # (code in capitals, start, end), as written
    comment_start: int  # the comment's `#` (before the directive when the comment says more first)
    comment_end: int  # the comment's end (before the line ending)

    @property
    def bare(self) -> bool:
        return not self.codes

    @property
    def code_set(self) -> FrozenSet[str]:
        return ALL if self.bare else frozenset(code for code, _, _ in self.codes)


def _directive(line: int, comment: str, column: int) -> Optional[Directive]:
    match = _NOQA.search(comment)
    if match is None:
        return None
    codes: List[Tuple[str, int, int]] = []
    end = match.end()
    if match.group("codes") is not None:
        offset = match.start("codes")
        for code in _CODE.finditer(match.group("codes")):
            codes.append((code.group().upper(), column + offset + code.start(), column + offset + code.end()))
    return Directive(line, column + match.start(), column + end, tuple(codes), column, column + len(comment.rstrip()))


@functools.lru_cache(maxsize=4)
def _scan(text: str, through: Optional[int] = None
          ) -> Tuple[Tuple[Tuple[int, int, str], ...], Optional[int], Optional[FrozenSet[int]], int]:
    """One pass of the tokenizer: (line, column, text) of each comment; the line after which it
    gave up (None when it read the whole text); the lines a NEWLINE, NL or COMMENT token ends,
    where a comment can go (None when it gave up); the last line tokens reach. `through`: a
    line past which nothing is asked; the pass stops at the first line end after it (a string or
    a continued line that holds it ends there), which keeps `--add-noqa` on a finding near the
    top of a file of megabytes from tokenizing all of it."""
    found: List[Tuple[int, int, str]] = []
    ends: Set[int] = set()
    last = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            last = max(last, token.end[0])
            kind = token.type
            if kind == tokenize.COMMENT:
                found.append((token.start[0], token.start[1], token.string))
                ends.add(token.start[0])
            elif kind == tokenize.NEWLINE or kind == tokenize.NL:
                ends.add(token.start[0])
                if through is not None and token.start[0] > through:
                    break
    except (tokenize.TokenError, SyntaxError):  # IndentationError too; the module does not parse
        return tuple(found), last, None, last
    return tuple(found), None, frozenset(ends), last


def _comments(text: str, through: Optional[int] = None) -> Tuple[Tuple[Tuple[int, int, str], ...], Optional[int]]:
    found, gave_up_after, _ends, _last = _scan(text, through)
    return found, gave_up_after


def _line_ends(text: str, through: Optional[int] = None) -> Optional[Tuple[FrozenSet[int], int]]:
    """The lines whose end can take a comment (not inside a string, not continued with a
    backslash) and the last line tokens reach; None when the tokenizer cannot read the module."""
    _found, _gave_up, ends, last = _scan(text, through)
    return None if ends is None else (ends, last)


def written_codes(text: str) -> Tuple[bool, FrozenSet[str]]:
    """Whether any `# noqa` of `text` may be bare, and every code one may name: read from the raw
    lines at each `#...noqa`, so a superset of what the comments hold (the tokenizer is slow,
    and most files' directives name other tools' codes only)."""
    bare = False
    codes: Set[str] = set()
    for line in split_lines(text):
        if "noqa" not in line.lower():
            continue
        body = line.rstrip("\r\n")
        for start in _START.finditer(body):
            match = _NOQA.match(body, start.start())
            if match.group("codes") is None:
                bare = True
            else:
                codes.update(code.upper() for code in _CODE.findall(match.group("codes")))
    return bare, frozenset(codes)


def noqa_lines(text: str, through: Optional[int] = None) -> Dict[int, int]:
    """Lines that cannot hold a comment (inside a multi-line string, continued with a backslash)
    -> the line whose `# noqa` stands for them: where that string or continuation ends, as ruff
    maps them. `through`: only lines up to it are asked about (`_scan`)."""
    found = _line_ends(text, through)
    if found is None:
        return {}
    ends, last = found
    mapping: Dict[int, int] = {}
    pending: List[int] = []
    for line in range(1, last + 1):
        if line in ends:
            for waiting in pending:
                mapping[waiting] = line
            pending = []
        else:
            pending.append(line)
    return mapping


def directives(text: str, through: Optional[int] = None) -> List[Directive]:
    """Every `# noqa` directive of `text`, in order of lines (`through`: up to that line at least)."""
    if "noqa" not in text.lower():
        return []
    out: List[Directive] = []
    comments, gave_up_after = _comments(text, through)
    for line, column, comment in comments:
        directive = _directive(line, comment, column)
        if directive is not None:
            out.append(directive)
    if gave_up_after is not None:
        # a module the tokenizer cannot read (it holds a syntax error, reported as TVM001): its
        # remaining lines are read as they stand, as every line was before comments were told apart
        for number, line_text in enumerate(split_lines(text), start=1):
            if number <= gave_up_after or "#" not in line_text:
                continue
            hash_at = line_text.find("#")
            body = line_text.rstrip("\r\n")
            directive = _directive(number, body[hash_at:], hash_at)
            if directive is not None:
                out.append(directive)
    return out


def suppressions(text: str) -> Dict[int, FrozenSet[str]]:
    """Line number -> codes suppressed there (ALL for a bare `# noqa`). A line inside a
    multi-line string or continued with a backslash has the codes of the line that ends it.
    Only directives that can suppress a tvmlint finding (bare, or naming a TVM code) count."""
    found: Dict[int, FrozenSet[str]] = {}
    if "noqa" not in text.lower():
        return found
    bare, codes = written_codes(text)
    if not bare and not any(code.startswith("TVM") for code in codes):
        return found  # other tools' codes only: nothing to tokenize for
    for directive in directives(text):
        codes = directive.code_set
        known = found.get(directive.line)
        found[directive.line] = codes if known is None or codes is ALL else (known if known is ALL else known | codes)
    if found:
        for line, target in noqa_lines(text).items():
            if target in found and line not in found:
                found[line] = found[target]
    return found


def is_suppressed(table: Dict[int, FrozenSet[str]], line: int, code: str) -> bool:
    codes: Optional[FrozenSet[str]] = table.get(line)
    return codes is not None and (codes is ALL or "*" in codes or code in codes)


# -- `check --add-noqa` ------------------------------------------------------------------------


class NoqaWriter:
    """What writing `# noqa` directives into one text needs, read from it once: the lines whose
    end can take a comment, the line that stands for each one that cannot, the directives
    already there. `check --add-noqa` writes many lines with one; the editor asks it line by line."""

    def __init__(self, text: str, through: Optional[int] = None) -> None:
        """`through`: the last line a directive will be asked for; the text is read only as far
        as it takes to know about the lines up to it (None: all of it)."""
        found = _line_ends(text, through)
        self.readable = found is not None  # False: the module does not tokenize, nothing is written
        self.allowed: FrozenSet[int] = found[0] if found is not None else frozenset()
        self.mapping = noqa_lines(text, through)
        self.by_line: Dict[int, Directive] = {}
        for directive in directives(text, through):
            self.by_line.setdefault(directive.line, directive)
        self.lines = split_lines(text)

    def line_for(self, number: int) -> int:
        """The line a noqa for line `number` goes on: where a string or continuation ends."""
        return self.mapping.get(number, number)

    def can_take(self, number: int) -> bool:
        return self.readable and number <= len(self.lines) and number in self.allowed

    def with_codes(self, number: int, wanted: Iterable[str]) -> Optional[str]:
        """Line `number` (which `can_take`) with `# noqa` for `wanted`, merged into a noqa comment
        already there; None when that comment suppresses them all already."""
        line = self.lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        directive = self.by_line.get(number)
        if directive is not None:
            if directive.bare:
                return None  # suppresses every code already
            missing = sorted(set(wanted) - directive.code_set)
            if not missing:
                return None
            last_end = directive.codes[-1][2]
            body = body[:last_end] + "".join(f", {code}" for code in missing) + body[last_end:]
        else:
            body = body.rstrip() + f"  # noqa: {', '.join(sorted(wanted))}"
        return body + ending


def add_noqa_to_text(text: str, codes_by_line: Dict[int, Set[str]]) -> Tuple[str, int, List[int]]:
    """`text` with `# noqa: CODES` on each line of `codes_by_line` (merged into a noqa comment
    already there), how many lines were given one, and the lines that cannot take a comment.
    A line inside a multi-line string or continued with a backslash gets it where that ends."""
    writer = NoqaWriter(text, max(codes_by_line, default=0))
    if not writer.readable:
        return text, 0, sorted(codes_by_line)
    moved: Dict[int, Set[str]] = {}
    for number, wanted in codes_by_line.items():
        moved.setdefault(writer.line_for(number), set()).update(wanted)
    lines = list(writer.lines)
    added, skipped = 0, []
    for number, wanted in sorted(moved.items()):
        if not writer.can_take(number):
            skipped.append(number)
            continue
        line = writer.with_codes(number, wanted)
        if line is not None:
            lines[number - 1] = line
            added += 1
    return "".join(lines), added, skipped


UNUSED_NOQA = "TVM002"


def codes_to_add(findings: Iterable) -> Dict[int, Set[str]]:
    """The codes `add_noqa_to_text` should write for `findings`, by their first line (what
    `check --add-noqa` and the editor's "add noqa" action both ask for)."""
    wanted: Dict[int, Set[str]] = {}
    for finding in findings:
        if finding.code == UNUSED_NOQA:
            continue  # an unused directive is removed (its fix), not suppressed
        wanted.setdefault(finding.start.line, set()).add(finding.code)
    return wanted
