"""Check rules/config_keys.toml against the PassContext config keys TVM's C++ registers at each release tag.

Usage: python tools/config_keys_from_source.py GIT_DIR [--releases 0.7,...]

At the tag of every release of rules/versions.toml (or --releases; tools/releases.py) it reads each
`TVM_REGISTER_PASS_CONFIG_OPTION(key, Type)` under src/ and include/ (what the table's header cites
as `git grep -n TVM_REGISTER_PASS_CONFIG_OPTION refs/tags/<tag> -- src include`), a key given as a
C++ constant (`kUSMPEnableOption`) resolved to the string it is defined as at that tag, and prints
every key the table places at that release that the tag does not register, and every one it
registers that the table does not place there. Exit 1 when there is any. A release with no tag (the
one read from its wheel) is `tvmlint registry --verify`'s to check. The table's types, backends and
renames stay written by hand: the tag says which keys exist, not what a user may pass.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set

sys.path.insert(0, str(Path(__file__).resolve().parent))
import releases  # noqa: E402

REGISTER = "TVM_REGISTER_PASS_CONFIG_OPTION"
_CALL = re.compile(REGISTER + r'\(\s*(?:"([^"]+)"|([A-Za-z_][\w:]*))\s*,')
_CONSTANT = re.compile(r'\b(k\w+)\s*(?:\[\])?\s*=\s*"([^"]+)"')
# the config keys existed from v0.7.0: PassContext(config=...) is new there
FIRST = "0.7"


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True).stdout


def registered(git_dir: str, tag: str) -> Dict[str, str]:
    """key -> `tag:path#Lline` of each registration at the tag."""
    ref = f"refs/tags/{tag}"
    constants: Dict[str, str] = {}
    for line in _git(git_dir, "grep", "-h", "-E", r'\bk\w+\s*(\[\])?\s*=\s*"', ref, "--", "src", "include").splitlines():
        for name, value in _CONSTANT.findall(line):
            constants.setdefault(name, value)
    found: Dict[str, str] = {}
    for entry in _git(git_dir, "grep", "-l", REGISTER, ref, "--", "src", "include").split():
        path = entry.split(":", 1)[1]
        text = _git(git_dir, "show", f"{ref}:{path}")
        for match in _CALL.finditer(text):
            line_start = text.rfind("\n", 0, match.start()) + 1
            if text[line_start:match.start()].lstrip().startswith(("#define", "//", "*")):
                continue
            name = match.group(2) and match.group(2).rsplit("::", 1)[-1]
            # a constant defined in the same file may span lines; one elsewhere is found by the grep above
            key = match.group(1) or dict(_CONSTANT.findall(text)).get(name) or constants.get(name)
            if key is None:
                releases.warn(f"{tag}:{path}: {match.group(2)} is no string constant this tag defines")
                continue
            found.setdefault(key, f"{tag}:{path}#L{text.count(chr(10), 0, match.start()) + 1}")
    return found


def placed(rows: List[dict], release: str) -> Set[str]:
    """The keys the table says the release registers."""
    out = set()
    for row in rows:
        since, until = row.get("since"), row.get("until")
        if releases.between([release], since, until):
            out.add(row["name"])
    return out


def differences(git_dir: str, chosen: List[str], table: Path) -> List[str]:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    rows = tomllib.loads(table.read_text(encoding="utf-8")).get("key", [])
    out = []
    for release, tag in releases.tagged(git_dir, releases.between(chosen, FIRST)):
        at_tag = registered(git_dir, tag)
        listed = placed(rows, release)
        for key in sorted(listed - set(at_tag)):
            out.append(f"{release}: rules/config_keys.toml places {key}, {tag} does not register it")
        for key in sorted(set(at_tag) - listed):
            out.append(f"{release}: {tag} registers {key} ({at_tag[key]}), rules/config_keys.toml does not place it there")
    return out


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("--releases", help="comma-separated releases (default: rules/versions.toml's)")
    parser.add_argument("--table", type=Path, default=releases.REPO / "rules" / "config_keys.toml")
    args = parser.parse_args(argv)
    found = differences(args.git_dir, releases.releases(args.releases), args.table)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
