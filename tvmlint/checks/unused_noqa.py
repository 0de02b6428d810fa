"""TVM002: a `# noqa: TVMxxx` that suppresses nothing (ruff's RUF100, for tvmlint's own codes).

Which directives are used is known only once a run has judged and suppressed its
findings, so the runner asks `unused_noqa` after its noqa step (tvmlint.run.runner);
the rule itself never analyses a module.
"""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Set, Tuple

from tvmlint.analysis.catalog import rule_info
from tvmlint.base.diagnostics import Edit, Finding, Fix, Position
from tvmlint.base.noqa import UNUSED_NOQA, Directive, directives, noqa_lines, written_codes
from tvmlint.checks.rule import Case, Rule
from tvmlint.base.source import split_lines

HEAD = "import tvm\n"
# TVM303 (opt_level out of range) and TVM106 run beside TVM002 in the cases: TVM002 judges only selected codes
BESIDE = {"pyproject.toml": '[tool.tvmlint]\nextend-select = ["TVM303", "TVM106", "TVM101"]\n'}
CLEAN = "with tvm.transform.PassContext(opt_level=3):"
WRONG = "with tvm.transform.PassContext(opt_level=10):"


class UnusedNoqa(Rule):
    code = UNUSED_NOQA
    VALID = [
        Case(HEAD + WRONG + "  # noqa: TVM303\n    pass\n", files=BESIDE),
        Case(HEAD + WRONG + "  # NOQA:TVM303\n    pass\n", files=BESIDE),
        Case(HEAD + "x = 1  # noqa: E501\n", files=BESIDE),  # not tvmlint's code: left alone
        Case(HEAD + "x = 1  # noqa\n", files=BESIDE),  # a bare noqa may be another tool's
        Case(HEAD + "x = 1  # noqa: TVM401\n", files=BESIDE),  # TVM401 is not selected: not judged
        Case(HEAD + "x = 1  # noqa: TVM002\n", files=BESIDE),
        # TVM101's verdict waits on the callers of `fold`, which other files may hold: not judged here
        Case("import tvm\nfrom tvm import relay\n\n\ndef fold(mod):\n"
             "    return relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101\n", files=BESIDE),
        # used, beside another tool's code
        Case(HEAD + WRONG + "  # noqa: TVM303, E501\n    pass\n", files=BESIDE),
        # the finding's line continues with a backslash: the directive where the statement ends stands for it
        Case(HEAD + "with tvm.transform.PassContext(opt_level=10) as c, \\\n        open('x'):  # noqa: TVM303\n    pass\n",
             files=BESIDE),
    ]
    INVALID = [
        Case(HEAD + CLEAN + "  # noqa: TVM303\n    pass\n", files=BESIDE, expect="TVM303 reports nothing on this line",
             fixed=HEAD + CLEAN + "\n    pass\n"),
        Case(HEAD + CLEAN + "  # noqa: TVM303, E501\n    pass\n", files=BESIDE, fixed=HEAD + CLEAN + "  # noqa: E501\n    pass\n"),
        Case(HEAD + WRONG + "  # noqa: TVM106, TVM303\n    pass\n", files=BESIDE, expect="TVM106 reports nothing",
             fixed=HEAD + WRONG + "  # noqa: TVM303\n    pass\n"),
        Case(HEAD + CLEAN + "  # noqa: TVM303 (kept for the old build)\n    pass\n", files=BESIDE,
             fixed=HEAD + CLEAN + "  # (kept for the old build)\n    pass\n"),
        Case(HEAD + CLEAN + "  # type: ignore  # noqa: TVM303,TVM106\n    pass\n", files=BESIDE,
             expect="TVM303, TVM106 report nothing", fixed=HEAD + CLEAN + "  # type: ignore\n    pass\n"),
        # a file that uses no TVM at all
        Case("x = 1  # noqa: TVM303\n", files=BESIDE, fixed="x = 1\n"),
        # (issue #29) a comment after the directive that is a comment of its own keeps its one `#`
        Case("x = 1  # noqa: TVM303  # other\n", files=BESIDE, fixed="x = 1  # other\n"),
        # "# noqa" inside a string is not a directive; the comment after it is, and is unused
        Case(HEAD + 's = "# noqa: TVM303"  # noqa: TVM303\n', files=BESIDE, fixed=HEAD + 's = "# noqa: TVM303"\n'),
    ]

    @classmethod
    def triggers(cls, knowledge):
        return frozenset()  # never analyses a module: the runner asks `unused_noqa` after suppressing


def unused_noqa(
    text: str,
    shown: str,
    codes: FrozenSet[str],
    used: Set[Tuple[int, str]],
    unsure: Callable[[int, str], bool] = lambda line, code: False,
) -> List[Finding]:
    """TVM002's findings in one module: each directive naming selected tvmlint codes (`codes`, the
    file's) that suppressed nothing, given the (line, code) pairs that suppressed a finding.
    `unsure(line, code)`: whether a finding of `code` may still arise on `line` from other files."""
    out: List[Finding] = []
    if "noqa" not in text.lower() or written_codes(text)[1].isdisjoint(codes - {UNUSED_NOQA}):
        return out  # no directive can name a selected code: nothing to tokenize for
    lines = None
    severity = rule_info(UNUSED_NOQA).severity
    found = directives(text)
    # a directive also stands for the lines of a multi-line string or backslash continuation it ends
    standing: Dict[int, List[int]] = {}
    if any(not d.bare for d in found):
        for line, target in noqa_lines(text).items():
            standing.setdefault(target, []).append(line)
    for directive in found:
        if directive.bare or UNUSED_NOQA in directive.code_set:
            continue  # a directive that names TVM002 keeps its own finding quiet
        covered = (directive.line, *standing.get(directive.line, ()))
        unused = [
            code for code, _, _ in directive.codes
            if code in codes and not any((line, code) in used or unsure(line, code) for line in covered)
        ]
        if not unused:
            continue
        if lines is None:
            lines = split_lines(text)
        names = ", ".join(dict.fromkeys(unused))
        verb = "reports" if len(set(unused)) == 1 else "report"
        out.append(Finding(
            shown, Position(directive.line, directive.start + 1), Position(directive.line, directive.end + 1),
            UNUSED_NOQA, severity,
            f"Unused `noqa` directive: {names} {verb} nothing on this line, so the suppression hides nothing "
            "today and would hide the next real finding here; remove it.",
            _removal(directive, set(unused), lines[directive.line - 1]),
        ))
    return out


def _removal(directive: Directive, unused: Set[str], line: str) -> Fix:
    kept = [code for code in directive.codes if code[0] not in unused]
    number = directive.line
    if kept:
        first, last = directive.codes[0][1], directive.codes[-1][2]
        # keep the codes as written, separated as the first two were
        separator = ", "
        if len(directive.codes) > 1:
            separator = line[directive.codes[0][2]:directive.codes[1][1]]
        content = separator.join(line[start:end] for _, start, end in kept)
        edit = Edit(Position(number, first + 1), Position(number, last + 1), content)
        return Fix(f"Remove {', '.join(sorted(unused))} from the noqa directive", (edit,), True)
    rest = line[directive.end:directive.comment_end]
    if directive.start == directive.comment_start and rest.strip():
        # the comment goes on after the directive (a reason): keep it as a comment; one that is
        # a comment of its own already (`# noqa: TVM101  # other`) keeps its own `#`
        blanks = len(rest) - len(rest.lstrip())
        opening = "" if rest.lstrip().startswith("#") else "# "
        edit = Edit(Position(number, directive.start + 1), Position(number, directive.end + 1 + blanks), opening)
        return Fix("Remove the unused noqa directive", (edit,), True)
    # the directive ends the comment, or is all of it: remove it with the blanks before it
    start = directive.start
    while start > 0 and line[start - 1] in " \t":
        start -= 1
    end = directive.end if rest.strip() else directive.comment_end
    edit = Edit(Position(number, start + 1), Position(number, end + 1), "")
    return Fix("Remove the unused noqa directive", (edit,), True)
