"""The Guarantees name the tests that back them (#29): docs/guarantees.md names a test for each
guarantee, and each named test and test file exists, so a guarantee cannot outlive the test it
rests on. The README's Guarantees section is their summary: each of its bullets is one of
docs/guarantees.md's, and it links there."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start:] if end == -1 else text[start:end]


def _guarantees() -> str:
    return (REPO / "docs" / "guarantees.md").read_text(encoding="utf-8")


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


def test_every_guarantee_names_a_test():
    bullets = re.split(r"\n(?=- \*\*)", _guarantees())[1:]
    assert bullets
    for bullet in bullets:
        assert re.search(r"`test_\w+`|tests/test_\w+\.py", bullet), bullet[:80]


def test_the_readme_summarises_them_and_links_there():
    summary = _section((REPO / "README.md").read_text(encoding="utf-8"), "## Guarantees")
    assert "(docs/guarantees.md)" in summary
    headings = [re.sub(r"\W+", " ", h).strip().lower() for h in re.findall(r"^- \*\*(.+?)\*\*", _guarantees(), re.M)]
    joined = " ".join(headings)
    for bullet in re.findall(r"^- \*\*(.+?)\*\*", summary, re.M):
        words = re.sub(r"\W+", " ", bullet).strip().lower()
        # a summary bullet opens with a guarantee's own heading (or the start of it)
        parts = [part.strip() for part in words.split(" and ")]
        assert all(any(h.startswith(part) or part.startswith(h) or part in joined for h in headings) for part in parts), bullet
