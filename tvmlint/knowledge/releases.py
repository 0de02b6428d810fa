"""rules/versions.toml: the TVM releases the tables know."""

from __future__ import annotations

from typing import List

from tvmlint.base.versions import Version, parse_version
from tvmlint.knowledge.tables import load_table


def known_releases() -> List[str]:
    return list(load_table("versions.toml")["releases"])


def newest_release() -> Version:
    return parse_version(load_table("versions.toml")["newest"])
