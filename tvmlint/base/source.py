"""Reading a file's bytes into text the way Python would, remembering how to write it back."""

from __future__ import annotations

import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, List, Optional, Tuple


@dataclass(frozen=True)
class SourceText:
    text: str
    encoding: str  # as declared (BOM / coding cookie) or utf-8
    bom: bool

    def encode(self, text: str) -> bytes:
        data = text.encode(self.encoding)
        if self.bom and not data.startswith(b"\xef\xbb\xbf"):
            data = b"\xef\xbb\xbf" + data
        return data


def common_ends(before: str, after: str) -> Tuple[int, int]:
    """How many characters two texts share at the start, and then at the end (not overlapping)."""
    limit = min(len(before), len(after))
    prefix = 0
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    return prefix, suffix


class NotByteExact(ValueError):
    """An edit that would change bytes outside the text it edits: the file's encoding does not
    give back its own bytes (cp932's duplicate codes, utf-7's optional escapes)."""


def edited_bytes(source: SourceText, original: bytes, new_text: str) -> bytes:
    """`new_text` as the file's bytes, where every byte outside the edited stretch of text is the
    original's own. Raises NotByteExact when the encoding cannot promise it, UnicodeEncodeError
    when the new text has a character the encoding lacks."""
    own = getattr(source, "edited_bytes", None)
    if own is not None:  # a notebook writes its cells back itself (tvmlint.base.notebook)
        return own(original, new_text)
    old_text = source.text
    try:
        # a decoder may take bytes its encoder refuses (iso-2022-jp passes b"\x87" through as
        # "\x87"): such a file's text does not give back its bytes, whatever the edit
        exact = source.encode(old_text) == original
    except UnicodeEncodeError:
        exact = False
    if exact:
        head, tail = common_ends(old_text, new_text)
        new_data = source.encode(new_text)
        before = source.encode(old_text[:head])
        after = old_text[len(old_text) - tail:].encode(source.encoding) if tail else b""
        exact = (original.startswith(before) and new_data.startswith(before)
                 and original.endswith(after) and new_data.endswith(after)
                 and len(before) + len(after) <= min(len(original), len(new_data)))
    if not exact:
        raise NotByteExact(f"its encoding ({source.encoding}) does not give back the file's own bytes for its text, "
                           "so writing the edit would change bytes it does not mean to")
    return new_data


class TooLarge(OSError):
    """A file over the size its reader was given."""


def read_file(path, limit: Optional[int] = None) -> bytes:
    """A regular file's bytes. Anything else named like source (a FIFO, a device, a
    directory) raises OSError instead of blocking or reading forever; a file over `limit`
    bytes (None: no limit) raises TooLarge without being read."""
    return read_file_stat(path, limit)[0]


def read_stream(stream: BinaryIO, limit: Optional[int] = None) -> bytes:
    """A stream's bytes (stdin), read no further than `limit` bytes (None: no limit): raises
    TooLarge past it, so `< /dev/zero` is not read until memory runs out."""
    if limit is None:
        return stream.read()
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(0, f"larger than {limit / 2**20:.4g} MB", "<stdin>")
    return data


def read_file_stat(path, limit: Optional[int] = None) -> Tuple[bytes, os.stat_result]:
    """`read_file`, with the file's status taken just before its bytes were read."""
    # O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            mode = status.st_mode
            kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
            raise OSError(0, f"not a regular file ({kind})", str(path))
        if limit is None:
            return handle.read(), status
        # st_size first; the bounded read covers a file that grows meanwhile (or a /proc file, size 0)
        data = handle.read(limit + 1) if status.st_size <= limit else b""
        if status.st_size > limit or len(data) > limit:
            raise TooLarge(0, f"larger than {limit / 2**20:.4g} MB (max-file-size)", str(path))
        return data, status


def decode(data: bytes) -> Tuple[Optional[SourceText], Optional[str]]:
    """(source, None), or (None, why it cannot be decoded)."""
    if b"\x00" in data:
        return None, "the file contains a NUL byte: it is not Python source"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        return None, f"cannot determine the encoding: {error.msg if hasattr(error, 'msg') else error}"
    bom = data.startswith(b"\xef\xbb\xbf")
    if encoding == "utf-8-sig":
        encoding = "utf-8"
        data = data[3:] if bom else data
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        return None, f"cannot decode the file as {encoding}: {error}"
    return SourceText(text, encoding, bom), None


def undecodable_at(data: bytes) -> Tuple[int, int]:
    """Where `decode` gave up on `data`: the (line, column) of the first NUL byte or of the first
    byte that does not decode in the declared encoding, lines ended as Python ends them and
    columns in characters; (1, 1) when the encoding itself is at fault (an unknown cookie)."""
    offset = data.find(b"\x00")
    start = 0
    if offset < 0:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:
            return 1, 1
        encoding = "utf-8" if encoding == "utf-8-sig" else encoding
        start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
        try:
            data[start:].decode(encoding)
            return 1, 1
        except UnicodeDecodeError as error:
            offset = start + error.start
        except LookupError:
            return 1, 1
    before = data[start:offset]
    line = before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1
    line_start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
    return line, len(before[line_start:].decode("utf-8", errors="replace")) + 1


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> List[str]:
    """Lines as Python's tokenizer, libcst and LSP count them: ended by \\n, \\r\\n or \\r, each with its ending.

    str.splitlines also ends a line at a form feed (\\x0c, an old page break) and
    other separators, which would shift every position after one.
    """
    return _LINE.findall(text)


def replace_file(target: Path, data: bytes, prepare: Callable[[str], None]) -> None:
    """Write `data` to a temporary file beside `target`, let `prepare` set it up (mode, owner,
    a last check), then rename it over `target`: a reader sees the old file or the whole new
    one, and nothing is left behind when any step fails."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tvmlint")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        prepare(temporary)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
