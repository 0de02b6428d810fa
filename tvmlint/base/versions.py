"""TVM release numbers: parsing, comparison and ranges."""

from __future__ import annotations

import re
from typing import Optional, Tuple

Version = Tuple[int, int]

_VERSION_RE = re.compile(r"^\s*v?(\d+)\.(\d+)")


def parse_version(text: str) -> Version:
    """'0.18', 'v0.19.0', '0.27.0.post1' -> (0, 18) ... Raises ValueError otherwise."""
    match = _VERSION_RE.match(str(text))
    if not match:
        raise ValueError(f"not a TVM release number: {text!r} (expected something like \"0.18\")")
    return int(match.group(1)), int(match.group(2))


def format_version(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def in_range(version: Version, since: Optional[str], until: Optional[str]) -> bool:
    """True when `since <= version < until`; a missing bound is open."""
    if since is not None and version < parse_version(since):
        return False
    if until is not None and version >= parse_version(until):
        return False
    return True


def release_of_package(text: str) -> Optional[Version]:
    """A Python package's version (PEP 440, read with packaging: '0.27.0.post1',
    '0.19.dev123+g1a2b', '0.20.0rc1') -> its TVM release (0, 27); None when it is not one."""
    from packaging.version import InvalidVersion
    from packaging.version import Version as PackageVersion

    try:
        release = PackageVersion(text).release
    except InvalidVersion:
        return None
    if len(release) < 2:
        return None
    return release[0], release[1]
