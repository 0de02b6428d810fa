"""The README's Guarantees name the tests that back them (#29): each named test and test file
exists, so a guarantee cannot outlive the test it rests on."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _guarantees() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("## Guarantees")
    return text[start:text.index("\n## ", start + 1)]


def test_every_test_the_guarantees_name_exists():
    section = _guarantees()
    files = set(re.findall(r"tests/(test_\w+\.py)", section))
    names = set(re.findall(r"`(test_\w+)`", section))
    assert files and names
    for name in files:
        assert (REPO / "tests" / name).is_file(), name
    defined = {match for path in (REPO / "tests").glob("test_*.py")
               for match in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M)}
    assert names <= defined, names - defined
