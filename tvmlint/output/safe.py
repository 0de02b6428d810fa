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
