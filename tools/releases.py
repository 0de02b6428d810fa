"""The TVM releases the generators in tools/ read, and where each one's source is.

One place for the release list (rules/versions.toml, or a `--releases` argument) and for how a
release is found: a tag of an apache/tvm clone (`v0.4`, `v0.6.0`, ...), or, for a release whose
commit is under no tag (0.27: apache-tvm 0.27.0.post1 was built from a commit past v0.26.0), an
installed apache-tvm wheel of that release, read as text and never imported.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
VERSIONS = REPO / "rules" / "versions.toml"
# where `fetch github:apache/tvm` puts its bare clone
MIRROR = Path("/work/.mirror/apache+tvm/repo")


def key(release: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def known(path: Path = VERSIONS) -> List[str]:
    """versions.toml's releases, oldest first."""
    return list(tomllib.loads(path.read_text(encoding="utf-8"))["releases"])


def releases(argument: Optional[str] = None) -> List[str]:
    """The releases a generator covers: `--releases 0.6,0.7,...` when given, else versions.toml's."""
    chosen = [part.strip() for part in argument.split(",") if part.strip()] if argument else known()
    return sorted(chosen, key=key)


def between(chosen: Sequence[str], since: Optional[str] = None, until: Optional[str] = None) -> List[str]:
    """The releases in [since, until)."""
    return [r for r in chosen if (since is None or key(r) >= key(since)) and (until is None or key(r) < key(until))]


def tags(git_dir: str) -> Dict[str, str]:
    """release -> its tag in the clone: `v0.6.0` for 0.6 (`v0.4` for the two releases tagged so);
    rc, dev and post tags are not releases."""
    out = subprocess.run(["git", "--git-dir", git_dir, "tag", "-l", "v*"], capture_output=True, text=True, check=True).stdout
    found: Dict[str, str] = {}
    for tag in out.split():
        match = re.fullmatch(r"v(\d+)\.(\d+)(\.0)?", tag)
        if match:
            release = f"{match.group(1)}.{match.group(2)}"
            # `v0.6.0` wins over a bare `v0.6` if a clone has both
            if release not in found or match.group(3):
                found[release] = tag
    return found


def tagged(git_dir: str, chosen: Sequence[str]) -> List[Tuple[str, str]]:
    """(release, tag) for each chosen release the clone has a tag for, oldest first."""
    found = tags(git_dir)
    return [(release, found[release]) for release in chosen if release in found]


def wheel_version(tvm_dir: Path) -> Optional[str]:
    """The apache-tvm version an installed `tvm/` directory belongs to, from its dist-info beside it."""
    for info in sorted(Path(tvm_dir).parent.glob("apache_tvm-*.dist-info")):
        match = re.fullmatch(r"apache_tvm-(.+)\.dist-info", info.name)
        if match:
            return match.group(1)
    return None


def release_of(version: str) -> str:
    """`0.27.0.post1` -> `0.27`."""
    return ".".join(version.split(".")[:2])


def wheel_label(tvm_dir: Path) -> str:
    """How a fact read from the wheel is cited: `0.27.0.post1 wheel`."""
    return f"{wheel_version(tvm_dir) or 'unknown'} wheel"


def installed_tvm() -> Optional[Path]:
    """The `tvm/` directory of the apache-tvm installed beside this interpreter (found, not imported)."""
    import sysconfig

    for key_name in ("purelib", "platlib"):
        candidate = Path(sysconfig.get_paths()[key_name]) / "tvm"
        if candidate.is_dir() and wheel_version(candidate):
            return candidate
    return None


def warn(message: str) -> None:
    print(message, file=sys.stderr)
