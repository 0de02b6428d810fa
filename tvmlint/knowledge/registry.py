"""What a TVM release registers by name: pass names and PassContext config keys.

`required_pass`/`disabled_pass` entries are matched against registered pass names
(passes.toml plus pass_names.toml); `config` keys against config_keys.toml. Both
are read per target release, like everything in `tvmlint.knowledge`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Tuple

from tvmlint.base.versions import Version, format_version, in_range, parse_version
from tvmlint.knowledge.releases import known_releases
from tvmlint.knowledge.tables import load_table
from tvmlint.knowledge.target import entries_at, get_knowledge


@functools.lru_cache(maxsize=None)
def pass_names(version: Version) -> FrozenSet[str]:
    """Every pass name TVM registers at `version`."""
    extra = {
        row["name"]
        for row in load_table("pass_names.toml").get("name", [])
        if in_range(version, row.get("since"), row.get("until"))
    }
    return get_knowledge(version).registered_names() | frozenset(extra)


@functools.lru_cache(maxsize=None)
def pass_name_releases() -> Dict[str, Tuple[str, ...]]:
    """For each pass name any known release registers, those releases, oldest first."""
    found: Dict[str, List[str]] = {}
    for release in known_releases():
        for name in pass_names(parse_version(release)):
            found.setdefault(name, []).append(release)
    return {name: tuple(releases) for name, releases in found.items()}


def release_span(releases: Tuple[str, ...]) -> str:
    """'0.7', '0.7 to 0.19' (the releases are contiguous in practice)."""
    return releases[0] if len(releases) == 1 else f"{releases[0]} to {releases[-1]}"


@dataclass(frozen=True)
class ConfigKey:
    name: str
    since: Optional[str]
    until: Optional[str]
    renamed_to: Optional[str]
    backend: Optional[str]
    type: Optional[str]  # the Python type a value must have, where the table says


@functools.lru_cache(maxsize=None)
def config_keys() -> Dict[str, ConfigKey]:
    return {
        row["name"]: ConfigKey(
            row["name"], row.get("since"), row.get("until"), row.get("renamed_to"), row.get("backend"), row.get("type"),
        )
        for row in load_table("config_keys.toml").get("key", [])
    }


def config_key_rows(version: Version) -> List[dict]:
    """config_keys.toml's rows at `version` as the table writes them (`registry --verify`)."""
    return entries_at(load_table("config_keys.toml")["key"], version)


@functools.lru_cache(maxsize=None)
def config_namespaces() -> FrozenSet[str]:
    """The first dotted part of every key TVM ever registered ('tir', 'relax', 'cuda', ...)."""
    return frozenset(name.split(".")[0] for name in config_keys())


@dataclass(frozen=True)
class KeyVerdict:
    """Why `key` is not registered at the target, and what to write instead."""

    key: str
    reason: str
    replacement: Optional[str] = None


def config_key_verdict(version: Version, key: str) -> Optional[KeyVerdict]:
    """None when `key` is registered at `version` (or may be: a backend-only key, a foreign namespace)."""
    keys = config_keys()
    entry = keys.get(key)
    if entry is None:
        if key.split(".")[0] not in config_namespaces():
            return None  # a key an out-of-tree extension may register: not tvmlint's to judge
        return KeyVerdict(key, "TVM never registered it")
    if in_range(version, entry.since, entry.until):
        return None
    target = format_version(version)
    if entry.since is not None and version < parse_version(entry.since):
        return KeyVerdict(key, f"it is registered only from {entry.since}", _predecessor_at(version, key))
    successor = _successor_at(version, entry)
    if successor is not None:
        return KeyVerdict(key, f"it was renamed in {entry.until}", successor)
    return KeyVerdict(key, f"it was removed in {entry.until}" if entry.until else f"it is not registered at {target}")


def _successor_at(version: Version, entry: ConfigKey) -> Optional[str]:
    """Follow `renamed_to` until a key registered at `version` (None when the chain ends first)."""
    keys = config_keys()
    seen = {entry.name}
    current = entry
    while current.renamed_to and current.renamed_to not in seen:
        seen.add(current.renamed_to)
        following = keys.get(current.renamed_to)
        if following is None:
            return None
        if in_range(version, following.since, following.until):
            return following.name
        current = following
    return None


def _predecessor_at(version: Version, key: str) -> Optional[str]:
    """The older key, registered at `version`, whose renames lead to `key` (tirx.X -> tir.X at 0.19)."""
    for entry in config_keys().values():
        if in_range(version, entry.since, entry.until) and entry.renamed_to:
            chain, current = set(), entry
            while current is not None and current.renamed_to and current.renamed_to not in chain:
                chain.add(current.renamed_to)
                current = config_keys().get(current.renamed_to)
            if key in chain:
                return entry.name
    return None


def keys_at(version: Version) -> List[str]:
    return sorted(name for name, entry in config_keys().items() if in_range(version, entry.since, entry.until))
