"""Jupyter notebooks, read as ruff reads them: the code cells, in order, as one module.

The module text holds each code cell's source, a boundary comment line between cells, and
IPython's own syntax made plain Python without changing a line's number: a line magic or
shell escape (`%time f()`, `!pip install`, `x = !ls`, `obj?`) becomes `pass` at its
indentation, and a cell that a cell magic makes something else than Python (`%%bash`,
`%%writefile`) contributes empty lines. A finding's line in that text is a cell (counted
among all cells, markdown included, from 1, as ruff and Jupyter count them) and a line in
it.

A fix edits the module text; `NotebookSource.edited_bytes` writes each changed cell back
into the notebook, restoring its magics, and refuses (NotByteExact) where that would change
other bytes: a notebook not written as Jupyter writes it, or a fix that crosses a cell
boundary.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from tvmlint.base.source import NotByteExact, SourceText, decode

SUFFIX = ".ipynb"
BOUNDARY = "# tvmlint: notebook cell boundary"
_MAGIC_MARK = "# tvmlint: notebook magic "
# cell magics whose body is Python, run by IPython as Python (the rest are another language)
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "python", "python3", "pypy"})
_LINE_MAGIC = re.compile(r"^(\s*)(?:[%!?]|[\w.\[\]]+\s*=\s*[%!])")
# IPython's help, `obj?` or `x = f??`: a line ending in `?` with no quote or comment on it (a
# line inside a string may end in `?` too; one holding a quote could open or close it)
_HELP = re.compile(r"^(\s*)[^'\"#\n]*\?{1,2}\s*$")


# how much larger than max-file-size a notebook's file may be: its outputs (images, tables)
# are read and dropped, its code cells are held to max-file-size themselves
FILE_ALLOWANCE = 16


# what output and explain read a notebook again up to, without the run's settings: past any
# file_bound of the default max-file-size (a larger one was not checked whole anyway)
REREAD_BOUND = 256 << 20


def file_bound(limit: Optional[int]) -> Optional[int]:
    return None if limit is None else limit * FILE_ALLOWANCE


def is_notebook(path: Any) -> bool:
    return str(path).endswith(SUFFIX)


class NotANotebook(ValueError):
    """The bytes are no Jupyter notebook tvmlint can read."""


@dataclass(frozen=True)
class _Cell:
    number: int  # among all cells, from 1
    start: int  # its first line in the module text, from 1
    lines: int  # how many lines it has there
    text: str  # its lines there, as the module text holds them
    unparsed: str = ""  # a cell that does not parse: its own text (the module text holds blank lines)


@dataclass(frozen=True)
class NotebookSource(SourceText):
    cells: Tuple[_Cell, ...] = ()
    magics: Tuple[str, ...] = ()  # original lines a `pass` stands for, by the number in its mark
    broken: Tuple[Tuple[int, int, str], ...] = ()  # cells that do not parse: (number, line in it, why)

    def parse_errors(self) -> List[Tuple[int, str]]:
        """(line of the module text, why) of each cell that does not parse, for TVM001."""
        starts = {cell.number: cell.start for cell in self.cells}
        return [(starts[number] + line - 1, f"The cell could not be parsed: {why} (the notebook's other cells "
                 "are checked; Jupyter runs none of this one)") for number, line, why in self.broken]

    def parse_error_lines(self, text: str) -> List[int]:
        """The lines of `text` (this notebook's module text, as a fix may have edited it: the
        boundaries are kept) that `parse_errors` names, each cell where the edited text has it."""
        starts, line = {}, 1
        for cell, piece in zip(self.cells, _split(text)):
            starts[cell.number] = line
            line += piece.count("\n") + 1  # the piece, then its boundary line
        return [starts[number] + line_in - 1 for number, line_in, _why in self.broken if number in starts]

    def where(self, line: int) -> Tuple[Optional[int], int]:
        """(cell number, line in the cell) of a line of the module text; (None, line) for one
        outside every cell (a boundary)."""
        for cell in reversed(self.cells):
            if cell.start <= line:
                if line < cell.start + max(cell.lines, 1):
                    return cell.number, line - cell.start + 1
                break
        return None, line

    def cell_text(self, number: int) -> Optional[str]:
        for cell in self.cells:
            if cell.number == number:
                return cell.unparsed or _restore(cell.text, self.magics)
        return None

    def edited_bytes(self, original: bytes, new_text: str) -> bytes:
        if not self.cells:
            return original  # no code cell (or another kernel's notebook): nothing to write
        # worked out here, not when read: a check that fixes nothing never serialises the notebook
        document = json.loads(original.decode("utf-8-sig"))
        key_order = _written_by_jupyter(document, original)
        if key_order is None:
            raise NotByteExact("the notebook's JSON is not laid out as Jupyter writes it (indent 1, one key "
                               "order, a final newline), so writing a cell back would change bytes it does not mean to")
        pieces = _split(new_text)
        if len(pieces) != len(self.cells):
            raise NotByteExact("the fix would move code across a notebook cell boundary")
        changed = False
        for cell, piece in zip(self.cells, pieces):
            if piece == cell.text:
                continue
            if not set(_marks(cell.text)) <= set(_marks(piece)):
                raise NotByteExact(f"the fix would remove an IPython line of cell {cell.number}")
            changed = True
            source = document["cells"][cell.number - 1]
            old = source["source"]
            joined = "".join(old) if isinstance(old, list) else old
            if "\r" in joined:
                raise NotByteExact(f"cell {cell.number} ends its lines with CR, which the module text does not keep")
            text = _restore(piece, self.magics)
            if not joined.endswith("\n") and text.endswith("\n"):
                text = text[:-1]
            source["source"] = text.splitlines(keepends=True) if isinstance(old, list) else text
        if not changed:
            return original
        return _serialise(document, key_order).encode("utf-8")


def read_notebook(data: bytes) -> NotebookSource:
    """The notebook's code cells as one module. Raises NotANotebook with a one-line reason."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as error:
        raise NotANotebook(f"not a Jupyter notebook: {type(error).__name__}: {_first_line(error)}") from None
    except RecursionError:  # json's decoder recurses per nested array or object
        raise NotANotebook("not a Jupyter notebook: its JSON is nested too deeply to read") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotANotebook("not a Jupyter notebook: no list of cells (nbformat 4)")
    language = _language(document)
    if language is not None and language != "python":
        # another kernel's code (R, Julia): nothing of it is Python, as ruff skips it
        return NotebookSource("", "utf-8", False)
    sources = []
    for number, cell in enumerate(document["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(piece, str) for piece in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotANotebook(f"not a Jupyter notebook: cell {number} has no text source")
        sources.append((number, source))
    text, cells, magics, broken = _module(sources)
    return NotebookSource(text, "utf-8", False, cells, magics, broken)


def cells_as_module(sources: List[Tuple[int, str]]) -> NotebookSource:
    """Code cells given as (cell number, source), as one module: an editor's open notebook,
    which has no file's bytes to write back into."""
    text, cells, magics, broken = _module(sources)
    return NotebookSource(text, "utf-8", False, cells, magics, broken)


def _module(sources: List[Tuple[int, str]]):
    """(module text, cells, magics' original lines, cells that do not parse: (number, line, why))."""
    text: List[str] = []
    cells: List[_Cell] = []
    magics: List[str] = []
    broken: List[Tuple[int, int, str]] = []
    line = 1
    for number, source in sources:
        body = _plain(source, magics)
        why = _unparsable(body)
        unparsed = ""
        if why is not None:
            unparsed = source if source.endswith("\n") else source + "\n"
            # Jupyter compiles each cell on its own: one that does not parse never runs, and the
            # others are still checked (its lines are kept blank; `broken` says why)
            broken.append((number, why[0], why[1]))
            body = "\n" * body.count("\n")
        if cells:
            text.append(BOUNDARY + "\n")
            line += 1
        count = body.count("\n")
        cells.append(_Cell(number, line, count, body, unparsed))
        text.append(body)
        line += count
    return "".join(text), tuple(cells), tuple(magics), tuple(broken)


def _unparsable(body: str) -> Optional[Tuple[int, str]]:
    import ast

    try:
        body.encode("utf-8")
    except UnicodeEncodeError as error:  # JSON's "\ud800": a lone surrogate no file can hold
        return body.count("\n", 0, error.start) + 1, "it holds an unpaired surrogate (\\u%04x), which is no text" % ord(
            body[error.start])
    try:
        ast.parse(body)
    except SyntaxError as error:
        return max(error.lineno or 1, 1), error.msg or "invalid syntax"
    except (RecursionError, MemoryError, ValueError):
        return 1, "too deeply nested to parse"
    return None


def _plain(source: str, magics: List[str]) -> str:
    lines = source.splitlines(keepends=True)
    first = lines[0].lstrip() if lines else ""
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            return "\n" * len(lines)  # another language: no Python, every line kept
        lines[0] = _stand_in(lines[0], "", magics)
    for index, line in enumerate(lines):
        match = _LINE_MAGIC.match(line) or _HELP.match(line)
        if match is not None:
            lines[index] = _stand_in(line, match.group(1), magics)
    return "".join(line.rstrip("\r\n") + "\n" for line in lines)


def _stand_in(line: str, indent: str, magics: List[str]) -> str:
    magics.append(line.rstrip("\r\n"))
    return f"{indent}pass  {_MAGIC_MARK}{len(magics) - 1}\n"


_MARKED = re.compile(r"^\s*pass  " + re.escape(_MAGIC_MARK) + r"(\d+)$")


def _marks(text: str) -> List[int]:
    return [int(m.group(1)) for m in (_MARKED.match(line) for line in text.split("\n")) if m]


def _restore(text: str, magics: Tuple[str, ...]) -> str:
    out = []
    for line in text.split("\n"):
        match = _MARKED.match(line)
        out.append(magics[int(match.group(1))] if match and int(match.group(1)) < len(magics) else line)
    return "\n".join(out)


def _split(text: str) -> List[str]:
    pieces: List[str] = []
    current: List[str] = []
    for line in text.splitlines(keepends=True):
        if line.rstrip("\r\n") == BOUNDARY:
            pieces.append("".join(current))
            current = []
        else:
            current.append(line)
    pieces.append("".join(current))
    return pieces


def _language(document: Dict[str, Any]) -> Optional[str]:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return None
    for key in ("language_info", "kernelspec"):
        value = metadata.get(key)
        name = value.get("name" if key == "language_info" else "language") if isinstance(value, dict) else None
        if isinstance(name, str) and name:
            return name.lower()
    return None


def _serialise(document: Any, sort_keys: bool) -> str:
    # as nbformat writes a notebook (nbformat.v4.nbjson.JSONWriter: indent 1, sorted keys, no
    # ASCII escapes, a final newline); a notebook written otherwise is refused, not rewritten
    return json.dumps(document, sort_keys=sort_keys, indent=1, ensure_ascii=False) + "\n"


def _written_by_jupyter(document: Any, data: bytes) -> Optional[bool]:
    """Which key order gives the file's own bytes back (True: sorted), or None."""
    for sort_keys in (True, False):
        # an unpaired surrogate (JSON's "\ud800") has no UTF-8: such a notebook is never rewritten
        if _serialise(document, sort_keys).encode("utf-8", "surrogatepass") == data:
            return sort_keys
    return None


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else ""


def decode_file(path: Any, data: bytes) -> Tuple[Optional[SourceText], Optional[str]]:
    """tvmlint.base.source.decode, for a notebook its code cells as one module."""
    if not is_notebook(path):
        return decode(data)
    try:
        return read_notebook(data), None
    except NotANotebook as error:
        return None, str(error)
