"""tvmlint's findings and fixes as LSP diagnostics, text edits and code actions.

tvmlint counts lines from 1 and columns in characters from 1; LSP counts both
from 0 and columns in the code units the client negotiated (UTF-16 unless it
asked for another). The conversion needs the lines of the text that was checked,
which the caller keeps next to the findings.
"""

from __future__ import annotations

import bisect
import re
from typing import List, Optional, Sequence, Tuple

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from tvmlint.base.diagnostics import Edit, Finding, Fix, Position
from tvmlint.base.noqa import NoqaWriter, codes_to_add
from tvmlint.base.source import common_ends
from tvmlint.knowledge.catalog import load_catalog

SOURCE = "tvmlint"
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


def lsp_position(position: Position, lines: Sequence[str], codec: PositionCodec) -> types.Position:
    line, character = position.line - 1, position.column - 1
    if line >= len(lines):  # the end of the text (an edit that appends)
        return types.Position(line=len(lines), character=0)
    return codec.position_to_client_units(lines, ServerTextPosition(line, character))


def lsp_range(start: Position, end: Position, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    return types.Range(start=lsp_position(start, lines, codec), end=lsp_position(end, lines, codec))


def diagnostic(finding: Finding, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    info = load_catalog().get(finding.code)
    return types.Diagnostic(
        range=lsp_range(finding.start, finding.end, lines, codec),
        message=finding.message,
        severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=types.CodeDescription(href=info.url) if info else None,
        source=SOURCE,
    )


def text_edits(edits: Sequence[Edit], lines: Sequence[str], codec: PositionCodec) -> List[types.TextEdit]:
    return [types.TextEdit(range=lsp_range(e.start, e.end, lines, codec), new_text=e.content) for e in edits]


def fix_title(finding: Finding, fix: Fix) -> str:
    label = "" if fix.safe else " (unsafe: check the result)"
    return f"{finding.code}: {fix.message}{label}"


def quick_fix(uri: str, finding: Finding, lines: Sequence[str], codec: PositionCodec) -> Optional[types.CodeAction]:
    if finding.fix is None:
        return None
    return types.CodeAction(
        title=fix_title(finding, finding.fix),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic(finding, lines, codec)],
        is_preferred=finding.fix.safe,
        edit=types.WorkspaceEdit(changes={uri: text_edits(finding.fix.edits, lines, codec)}),
    )


def noqa_action(uri: str, finding: Finding, writer: NoqaWriter, codec: PositionCodec) -> Optional[types.CodeAction]:
    """`# noqa: CODE` on the finding's line, merged into a noqa comment already there, as
    `check --add-noqa` writes it (`writer` holds the buffer, read once for every finding); None
    where it writes nothing (a line that cannot take a comment, a directive that suppresses the
    code already, TVM002). The edit is the characters the line gains, and nothing else."""
    wanted = codes_to_add([finding])
    if not wanted:
        return None
    [(line, codes)] = wanted.items()
    number = writer.line_for(line)
    after = writer.with_codes(number, codes) if writer.can_take(number) else None
    if after is None:
        return None
    before = writer.lines[number - 1]
    prefix, suffix = common_ends(before, after)
    edit = types.TextEdit(
        range=lsp_range(Position(number, prefix + 1), Position(number, len(before) - suffix + 1), writer.lines, codec),
        new_text=after[prefix:len(after) - suffix],
    )
    return types.CodeAction(
        title=f"{finding.code}: add `# noqa: {finding.code}` on this line",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic(finding, writer.lines, codec)],
        is_preferred=False,
        edit=types.WorkspaceEdit(changes={uri: [edit]}),
    )


def whole_change(uri: str, before: str, after: str, lines: Sequence[str], codec: PositionCodec) -> types.WorkspaceEdit:
    """One edit turning `before` into `after`: the span between their common prefix and suffix.

    A single small edit keeps the editor's cursor and undo history where they
    were, which replacing the whole buffer would not.
    """
    prefix, suffix = common_ends(before, after)
    # never cut a \r\n in two: LSP has no position between them
    if 0 < prefix < len(before) and before[prefix - 1] == "\r" and before[prefix] == "\n":
        prefix -= 1
    end = len(before) - suffix
    if 0 < end < len(before) and before[end - 1] == "\r" and before[end] == "\n":
        end += 1
        suffix -= 1
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edit = types.TextEdit(
        range=lsp_range(_position_at(starts, lines, prefix), _position_at(starts, lines, end), lines, codec),
        new_text=after[prefix:len(after) - suffix],
    )
    return types.WorkspaceEdit(changes={uri: [edit]})


def _position_at(starts: Sequence[int], lines: Sequence[str], offset: int) -> Position:
    """The 1-based position of a character offset, given each line's start offset."""
    index = bisect.bisect_right(starts, offset) - 1
    if index == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
        index -= 1  # the end of a last line that has no line ending
    return Position(index + 1, offset - starts[index] + 1)


# --- hover and inlay hints ------------------------------------------------------------------

_NOQA_CODES = re.compile(r"#\s*noqa\s*:\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*)", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")


def noqa_code_at(line: str, character: int) -> Optional[Tuple[str, int, int]]:
    """The rule code under `character` (0-based, in characters) in a `# noqa: CODE, ...` comment
    of `line`, with its start and end; None when the cursor is on no such code."""
    for found in _NOQA_CODES.finditer(line):
        start = found.start("codes")
        for code in _CODE.finditer(found.group("codes")):
            begin, end = start + code.start(), start + code.end()
            if begin <= character <= end:
                return code.group().upper(), begin, end
    return None


def rule_hover(code: str, line: int, begin: int, end: int, lines: Sequence[str], codec: PositionCodec) -> Optional[types.Hover]:
    info = load_catalog().get(code)
    if info is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=info.render_markdown()),
        range=lsp_range(Position(line + 1, begin + 1), Position(line + 1, end + 1), lines, codec),
    )


def findings_markdown(findings: Sequence[Finding]) -> str:
    """Each finding's code and one-sentence message, then its detail (why, and what to do)."""
    parts = []
    for finding in findings:
        parts.append(f"**{finding.code}** {finding.message}" + (f"\n\n{finding.detail}" if finding.detail else ""))
    return "\n\n---\n\n".join(parts)


def findings_hover(findings: Sequence[Finding], lines: Sequence[str], codec: PositionCodec) -> Optional[types.Hover]:
    """The hover over findings where nothing is explained (not a pass call): their detail."""
    if not findings:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=findings_markdown(findings)),
        range=lsp_range(findings[0].start, findings[0].end, lines, codec),
    )


def explanation_hover(explanation, lines: Sequence[str], codec: PositionCodec, traced: Optional[str] = None,
                      findings: str = "") -> types.Hover:
    """The findings there (`findings`, markdown), the static explanation, and what a traced run did
    there when a trace is kept (`traced`, markdown)."""
    from tvmlint.frontends.explain import render_markdown

    text = (f"{findings}\n\n---\n\n" if findings else "") + render_markdown(explanation) + (f"\n\n{traced}" if traced else "")
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
        range=lsp_range(
            Position(explanation.line, explanation.column), Position(explanation.end_line, explanation.end_column),
            lines, codec,
        ),
    )


def skipped_hint(explanation, lines: Sequence[str], codec: PositionCodec) -> Optional[types.InlayHint]:
    """A hint at the end of the call's first line when the gate skips members there."""
    skipping = [o for o in explanation.outcomes if o.verdict == "skips" and o.context.assumed is None]
    if not skipping:
        return None
    names = []
    for outcome in skipping:
        for shown in outcome.skipped:
            name = shown.split(" (")[0]
            if name not in names:
                names.append(name)
    levels = sorted({o.context.opt_level for o in skipping})
    text = f"skips {', '.join(names)} at opt_level {', '.join(str(level) for level in levels)}"
    line = explanation.line - 1
    content = lines[line].rstrip("\r\n") if line < len(lines) else ""
    end = lsp_position(Position(explanation.line, len(content) + 1), lines, codec)
    return types.InlayHint(
        position=end, label=f"  # {text}", padding_left=True,
        tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown, value=skipping[0].summary + "."),
    )
