"""TVM002: a `# noqa: TVMxxx` that suppresses nothing (ruff's RUF100, for tvmlint's own codes):
a selected code that reports nothing on its line, or a TVM code no rule has (`TVM999`).
Every other code is another tool's, as ruff's `lint.external` makes a prefix, and left alone.

Which directives are used is known only once a run has judged and suppressed its
findings, so the rule judges after the noqa step (`stage = "noqa"` in its catalog entry:
the runner asks its `after_noqa`); it never analyses a module.
"""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Set, Tuple

from tvmlint.base.diagnostics import Edit, Finding, Fix, Position, Said
from tvmlint.base.noqa import (
    UNUSED_NOQA,
    Directive,
    directives,
    noqa_lines,
    written_codes,
)
from tvmlint.base.source import split_lines
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, NoqaStep, Rule, Valid
from tvmlint.knowledge.catalog import load_catalog, rule_info

HEAD = "import tvm\n"
OURS = "TVM"  # the codes' namespace: a code under it that no rule has is a mistake, not another tool's
# TVM303 (opt_level out of range), TVM106 and TVM101 run beside TVM002 in the cases: TVM002 judges only selected codes
BESIDE = ("TVM303", "TVM106", "TVM101")


class UnusedNoqa(Rule):
    code = UNUSED_NOQA
    prefilter = Prefilter(triggers=())  # never analyses a module: the runner asks `after_noqa` after suppressing

    @classmethod
    def after_noqa(cls, step: NoqaStep) -> List[Finding]:
        return unused_noqa(step.text, step.path, step.codes, step.used, step.unsure)

    VALID = [
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=10):  # noqa: TVM303
                pass
        """, beside=BESIDE),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=10):  # NOQA:TVM303
                pass
        """, beside=BESIDE),
        Valid(HEAD, """
            x = 1  # noqa: E501
        """, beside=BESIDE),  # not tvmlint's code: left alone
        Valid(HEAD, """
            x = 1  # noqa
        """, beside=BESIDE),  # a bare noqa may be another tool's
        Valid(HEAD, """
            x = 1  # noqa: TVM401
        """, beside=BESIDE),  # TVM401 is not selected: not judged
        Valid(HEAD, """
            x = 1  # noqa: TVM002
        """, beside=BESIDE),
        # TVM101's verdict waits on the callers of `fold`, which other files may hold: not judged here
        Valid("""
            import tvm
            from tvm import relay


            def fold(mod):
                return relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101
        """, beside=BESIDE),
        # used, beside another tool's code
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=10):  # noqa: TVM303, E501
                pass
        """, beside=BESIDE),
        # the finding's line continues with a backslash: the directive where the statement ends stands for it
        Valid(HEAD, r"""
            with tvm.transform.PassContext(opt_level=10) as c, \
                    open('x'):  # noqa: TVM303
                pass
        """, beside=BESIDE),
    ]
    INVALID = [
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):  # noqa: TVM303
                pass
        """, beside=BESIDE, expect="TVM303 reports nothing on this line", fixed="""
            with tvm.transform.PassContext(opt_level=3):
                pass
        """),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):  # noqa: TVM303, E501
                pass
        """, beside=BESIDE, fixed="""
            with tvm.transform.PassContext(opt_level=3):  # noqa: E501
                pass
        """),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=10):  # noqa: TVM106, TVM303
                pass
        """, beside=BESIDE, expect="TVM106 reports nothing", fixed="""
            with tvm.transform.PassContext(opt_level=10):  # noqa: TVM303
                pass
        """),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):  # noqa: TVM303 (kept for the old build)
                pass
        """, beside=BESIDE, fixed="""
            with tvm.transform.PassContext(opt_level=3):  # (kept for the old build)
                pass
        """),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):  # type: ignore  # noqa: TVM303,TVM106
                pass
        """, beside=BESIDE, expect="TVM303, TVM106 report nothing", fixed="""
            with tvm.transform.PassContext(opt_level=3):  # type: ignore
                pass
        """),
        # a file that uses no TVM at all
        Invalid("""
            x = 1  # noqa: TVM303
        """, beside=BESIDE, fixed="""
            x = 1
        """),
        # (issue #29) a comment after the directive that is a comment of its own keeps its one `#`
        Invalid("""
            x = 1  # noqa: TVM303  # other
        """, beside=BESIDE, fixed="""
            x = 1  # other
        """),
        # "# noqa" inside a string is not a directive; the comment after it is, and is unused
        Invalid(HEAD, """
            s = "# noqa: TVM303"  # noqa: TVM303
        """, beside=BESIDE, fixed="""
            s = "# noqa: TVM303"
        """),
        # a code no rule has, as ruff's RUF100 reports an unknown code; another tool's code stays
        Invalid(HEAD, """
            x = 1  # noqa: TVM999
        """, beside=BESIDE, expect="TVM999 is an unknown rule code", fixed="""
            x = 1
        """),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=10):  # noqa: TVM303,TVM999 ,E501
                pass
        """, beside=BESIDE, detail="No tvmlint rule has that code", fixed="""
            with tvm.transform.PassContext(opt_level=10):  # noqa: TVM303,E501
                pass
        """),
        # only the unused and unknown codes go, every other byte of the comment stays as written
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):  # NOQA:E501 ,  TVM303,TVM1,F401
                pass
        """, beside=BESIDE, expect="TVM303 reports nothing on this line and TVM1 is an unknown rule code", fixed="""
            with tvm.transform.PassContext(opt_level=3):  # NOQA:E501 ,  F401
                pass
        """),
        # TVM101 pending elsewhere (fold's callers are unknown), and a definition the cheap stage
        # blanks: this module-level line was analysed all the same
        Invalid("""
            import tvm
            from tvm import relay

            x = 1  # noqa: TVM101


            def fold(mod):
                return relay.transform.FoldScaleAxis()(mod)


            def other():
                return 3
        """, beside=BESIDE, expect="TVM101 reports nothing", fixed="""
            import tvm
            from tvm import relay

            x = 1


            def fold(mod):
                return relay.transform.FoldScaleAxis()(mod)


            def other():
                return 3
        """),
    ]

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
    if "noqa" not in text.lower():
        return out
    catalog = load_catalog()
    written = written_codes(text)[1]
    unknown_written = {code for code in written if _unknown(code, catalog)}
    if written.isdisjoint(codes - {UNUSED_NOQA}) and not unknown_written:
        return out  # no directive can name a selected or unknown code: nothing to tokenize for
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
        unknown = [code for code, _, _ in directive.codes if _unknown(code, catalog)]
        if not unused and not unknown:
            continue
        if lines is None:
            lines = split_lines(text)
        said = _message(list(dict.fromkeys(unused)), list(dict.fromkeys(unknown)))
        out.append(Finding(
            shown, Position(directive.line, directive.start + 1), Position(directive.line, directive.end + 1),
            UNUSED_NOQA, severity, said.message,
            _removal(directive, set(unused) | set(unknown), lines[directive.line - 1]), detail=said.detail,
        ))
    return out


def _unknown(code: str, catalog) -> bool:
    return code.startswith(OURS) and code not in catalog


def _message(unused: List[str], unknown: List[str]) -> Said:
    def named(codes: List[str]) -> str:
        return ", ".join(codes)

    unused_part = f"{named(unused)} {'reports' if len(unused) == 1 else 'report'} nothing on this line"
    unknown_part = f"{named(unknown)} {'is an unknown rule code' if len(unknown) == 1 else 'are unknown rule codes'}"
    if unused and unknown:
        return Said(f"Unused `noqa` directive ({unused_part} and {unknown_part})",
                    "None of these codes suppresses anything here: remove them.")
    if unknown:
        return Said(f"Unused `noqa` directive ({unknown_part})",
                    "No tvmlint rule has that code, so it suppresses nothing: remove it or write the code you meant "
                    "(`tvmlint rules` lists them).")
    return Said(f"Unused `noqa` directive ({unused_part})",
                "The suppression hides nothing today and would hide the next real finding here: remove it.")


def _removal(directive: Directive, unused: Set[str], line: str) -> Fix:
    kept = [code for code in directive.codes if code[0] not in unused]
    number = directive.line
    if kept:
        # only the removed codes go, each with one separator beside it: the one after it while a
        # kept code follows, else the one before; every other character stays as written
        spans = directive.codes
        edits = []
        for index, (code, start, end) in enumerate(spans):
            if code not in unused:
                continue
            if any(later[0] not in unused for later in spans[index + 1:]):
                end = spans[index + 1][1]
            else:
                start = spans[index - 1][2]
            edits.append(Edit(Position(number, start + 1), Position(number, end + 1), ""))
        return Fix(f"Remove {', '.join(sorted(unused))} from the noqa directive", tuple(edits), True)
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
