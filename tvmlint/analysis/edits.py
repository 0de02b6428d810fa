"""Text edits: building the common ones from libcst nodes, and applying them.

Fixes are expressed as text edits (what LSP, SARIF and JSON output carry); the
replacement text is rendered by libcst so formatting and comments survive.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from tvmlint.analysis.lazy import cst
from tvmlint.base.diagnostics import Edit, Position
from tvmlint.base.source import split_lines


def offsets(text: str) -> List[int]:
    """Start offset of each line (index 0 is line 1)."""
    starts = [0]
    for line in split_lines(text):
        starts.append(starts[-1] + len(line))
    return starts


def to_offset(starts: Sequence[int], position: Position) -> int:
    line = min(position.line, len(starts) - 1)
    return starts[line - 1] + position.column - 1


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits; overlapping later ones are dropped."""
    starts = offsets(text)
    spans = sorted(
        ((to_offset(starts, e.start), to_offset(starts, e.end), e.content) for e in edits),
        key=lambda span: (span[0], span[1]),
    )
    out: List[str] = []
    cursor = 0
    for begin, end, content in spans:
        if begin < cursor:
            continue
        out.append(text[cursor:begin])
        out.append(content)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def line_end(lines: Sequence[str], line: int) -> Position:
    """The position just before the newline that ends `line` (1-based)."""
    content = lines[line - 1] if line - 1 < len(lines) else ""
    stripped = content.rstrip("\r\n")
    return Position(line, len(stripped) + 1)


def newline_of(module: cst.Module) -> str:
    return module.default_newline


def tvm_import_edit(module: cst.Module, module_bindings: dict, positions, lines) -> Tuple[Optional[Edit], bool]:
    """An edit adding `import tvm` when `tvm` is not bound at module level.

    Returns (edit or None, possible). `possible` is False when the name `tvm`
    is bound to something else, so a fix must not use it.
    """
    from tvmlint.analysis.module import ImportBinding

    binding = module_bindings.get("tvm")
    if isinstance(binding, ImportBinding):
        return None, binding.qualname == "tvm"
    if binding is not None:
        return None, False
    newline = module.default_newline
    last_import = None
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine) and all(
            isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
        ):
            last_import = statement
        elif isinstance(statement, cst.SimpleStatementLine) and _is_docstring(statement) and last_import is None:
            last_import = statement
        else:
            break
    if last_import is None:
        return Edit(Position(1, 1), Position(1, 1), "import tvm" + newline), True
    end = positions[last_import].end.line
    where = line_end(lines, end)
    return Edit(where, where, newline + "import tvm"), True


def _is_docstring(statement: cst.SimpleStatementLine) -> bool:
    return (
        len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def wrap_in_with(module: cst.Module, statement: cst.CSTNode, positions, lines, header: str) -> Optional[Edit]:
    """Wrap one simple statement in `with <header>:` keeping its comments and layout."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    where = positions[statement]
    indent = lines[where.start.line - 1][: where.start.column]
    if indent.strip():
        return None  # the statement shares its line with other code
    if _has_multiline_string(statement):
        return None  # re-indenting would change the string's value
    body = module.code_for_node(statement.with_changes(leading_lines=())).rstrip("\r\n")
    newline = module.default_newline
    unit = module.default_indent
    inner = [unit + line if line.strip() else line for line in body.split(newline)]
    # continuation lines of the statement keep their place relative to its first line
    text = f"with {header}:" + newline + newline.join(indent + line for line in inner)
    return Edit(
        Position(where.start.line, where.start.column + 1),
        line_end(lines, where.end.line),
        text,
    )


def _has_multiline_string(node: cst.CSTNode) -> bool:
    import libcst.matchers as m

    strings = m.findall(node, m.SimpleString() | m.FormattedString())
    return any("\n" in cst.Module([]).code_for_node(s) for s in strings)
