"""Every release a table of rules/ names is one versions.toml knows, and versions.toml's newest is
the highest any table names: adding a TVM release (CONTRIBUTING, "Adding a TVM release") cannot
leave a table ahead of or outside the releases tvmlint targets."""

from __future__ import annotations

import re

import tomllib
from helpers import REPO

RELEASE_KEYS = ("release", "since", "removed", "until", "back")


def _named_releases(value, where: str, out: list) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in RELEASE_KEYS and isinstance(inner, str) and re.fullmatch(r"\d+\.\d+", inner):
                out.append((inner, f"{where}.{key}"))
            else:
                _named_releases(inner, f"{where}.{key}", out)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _named_releases(inner, f"{where}[{index}]", out)


def _as_tuple(text: str):
    return tuple(int(part) for part in text.split("."))


def test_tables_name_only_known_releases_and_none_past_the_newest():
    versions = tomllib.loads((REPO / "rules" / "versions.toml").read_text(encoding="utf-8"))
    known = versions["releases"]
    assert versions["newest"] == max(known, key=_as_tuple) == known[-1]
    assert known == sorted(known, key=_as_tuple)
    named = []
    for path in sorted((REPO / "rules").rglob("*.toml")):
        _named_releases(tomllib.loads(path.read_text(encoding="utf-8")), path.relative_to(REPO).as_posix(), named)
    assert len(named) > 1000  # the tables do name releases: the walk found them
    unknown = [(release, where) for release, where in named if release not in known]
    assert unknown == []
    highest = max((release for release, _where in named), key=_as_tuple)
    assert _as_tuple(highest) <= _as_tuple(versions["newest"])
