"""Text that came from the checked files, made safe to print.

A file (or its name) can hold terminal control sequences: ESC sequences that clear
the screen, set the window title or recolour what follows, and bidirectional
overrides that make a line read differently from what it holds ("Trojan Source").
Quoted lines, messages (which name keys and passes from the source) and paths
show such characters; they never send them.
"""

from __future__ import annotations

import re

# C0 controls but tab (and newline, which a quoted line never holds and a message may),
# DEL, C1 controls, the bidirectional embeddings, overrides and isolates
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_NAMES = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def quoted(line: str) -> str:
    """A source line for display: each unsafe character becomes one U+FFFD, so the caret
    under a column still points at it."""
    return _UNSAFE.sub("\ufffd", line)


def printable(text: str) -> str:
    """A message for display: each unsafe character written as its escape (`\\x1b`, `\\u202e`)."""
    return _UNSAFE.sub(_escape, text)


def printable_path(path: str) -> str:
    """A path for display, newlines escaped too: a name holding one must not start a line of its own."""
    return _UNSAFE_IN_NAMES.sub(_escape, path)


def _escape(match: "re.Match[str]") -> str:
    return ascii(match.group())[1:-1]


# -- the streams ------------------------------------------------------------------------

ERRORS = "tvmlint.output"


def _bytes_or_escape(error: UnicodeError):
    """A file name that is not valid in the file system's encoding reaches Python as lone
    surrogates (os.fsdecode): they go out as the bytes they stand for, as `ls` prints them;
    a character the stream's encoding lacks (a cp1252 pipe on Windows) goes out as its escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = bytearray()
    for char in error.object[error.start : error.end]:
        code = ord(char)
        out += bytes([code - 0xDC00]) if 0xDC80 <= code <= 0xDCFF else ascii(char)[1:-1].encode("ascii")
    return bytes(out), error.end


def encode_anything(*streams) -> None:
    """Let `streams` write any text: a strict stream (a UTF-8 locale's stdout) would otherwise
    stop the run with UnicodeEncodeError at the first such file name."""
    import codecs

    codecs.register_error(ERRORS, _bytes_or_escape)
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors=ERRORS)
            except (ValueError, OSError):  # a replaced or closed stream: leave it as it is
                pass


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(text: str) -> str:
    """JSON with lone surrogates (file names that are not UTF-8) written as `\\udcXX` escapes:
    the document stays valid UTF-8, and Python's json with os.fsencode gives the name back."""
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
