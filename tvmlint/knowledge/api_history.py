"""rules/api_history.toml, asked about one target release.

A [[symbol]] entry covers its own path and, for modules and classes, every path
under it. The most specific entry that says something at the target wins: at
0.8 `tvm.relay.build_config` is deprecated although `tvm.relay` still exists,
at 0.20 both are gone and the message is the build_config one.

A replacement is only offered where the target has it: the `new` path must
exist there (`new_since`) and must not itself be covered by an entry that
removed it (graph_runtime -> graph_executor holds for 0.8-0.19 only).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Tuple

from tvmlint.base.versions import Version, in_range, parse_version
from tvmlint.knowledge.location import rules_dir
from tvmlint.knowledge.tables import load_from

REMOVED, DEPRECATED = "removed", "deprecated"


def _status(deprecated: Optional[str], removed: Optional[str], version: Version) -> Optional[str]:
    """REMOVED from `removed` on, DEPRECATED from `deprecated` on, else None."""
    if removed is not None and version >= parse_version(removed):
        return REMOVED
    if deprecated is not None and version >= parse_version(deprecated):
        return DEPRECATED
    return None


@dataclass(frozen=True)
class Symbol:
    old: str
    kind: str
    advice: str
    new: Optional[str] = None
    new_since: Optional[str] = None
    deprecated: Optional[str] = None
    removed: Optional[str] = None
    fix: Optional[str] = None
    fix_when: Optional[str] = None
    fix_positional: Optional[int] = None
    fix_keywords: Optional[Tuple[str, ...]] = None
    source: str = ""
    # the functions of a deprecated module's shim that warn when called: each call is a line to report
    warning_calls: Tuple[str, ...] = ()

    def covers(self, qualname: str) -> bool:
        if qualname == self.old:
            return True
        return self.kind in ("module", "class") and qualname.startswith(self.old + ".")

    def status(self, version: Version) -> Optional[str]:
        return _status(self.deprecated, self.removed, version)

    @property
    def conditional(self) -> bool:
        """The fix depends on how a call passes its arguments."""
        return self.fix_when is not None


@dataclass(frozen=True)
class Method:
    """A method of a TVM object that a release deprecates or removes ([[method]])."""

    name: str
    owner: str
    advice: str
    new: Optional[str] = None
    deprecated: Optional[str] = None
    removed: Optional[str] = None
    unless_imports: FrozenSet[str] = frozenset()
    source: str = ""

    def status(self, version: Version) -> Optional[str]:
        return _status(self.deprecated, self.removed, version)


@dataclass(frozen=True)
class Keyword:
    """A keyword argument a release renamed ([[keyword]]): from `removed` on, the old one is a TypeError."""

    api: FrozenSet[str]
    old: str
    new: str
    removed: str
    source: str = ""


@dataclass(frozen=True)
class MovedModule:
    old: str
    candidates: Tuple[str, ...]
    removed: str
    source: str = ""


@dataclass(frozen=True)
class LegacyBuildTuple:
    api: FrozenSet[str]
    deprecated: str
    removed: str
    advice: str
    json_getters: Tuple[dict, ...]
    source: str = ""

    def json_getter(self, version: Version) -> Optional[str]:
        for row in self.json_getters:
            if in_range(version, row.get("since"), row.get("until")):
                return row["name"]
        return None


@dataclass(frozen=True)
class Use:
    """What the history says about one qualified name at the target."""

    qualname: str
    symbol: Symbol
    status: str
    replacement: Optional[str]  # the path that replaces `replaced` at the target, if any
    replaced: Optional[str]  # the prefix of `qualname` the replacement stands for
    fixable: bool  # the history allows a mechanical rename


class History:
    def __init__(self, table: dict):
        self.symbols: List[Symbol] = [
            Symbol(
                old=raw["old"], kind=raw["kind"], advice=raw.get("advice", ""), new=raw.get("new"),
                new_since=raw.get("new_since"), deprecated=raw.get("deprecated"), removed=raw.get("removed"),
                fix=raw.get("fix"), fix_when=raw.get("fix_when"), fix_positional=raw.get("fix_positional"),
                fix_keywords=tuple(raw["fix_keywords"]) if "fix_keywords" in raw else None,
                source=raw.get("source", ""), warning_calls=tuple(raw.get("warning_calls", ())),
            )
            for raw in table.get("symbol", [])
        ]
        # longest first: the most specific entry is found first
        self.symbols.sort(key=lambda s: -len(s.old))
        self._uses: Dict[Tuple[str, Version], Optional[Use]] = {}
        self.by_old: Dict[str, List[Symbol]] = {}
        for symbol in self.symbols:
            self.by_old.setdefault(symbol.old, []).append(symbol)
        self.moved_modules = sorted(
            (MovedModule(m["old"], tuple(m["candidates"]), m["removed"], m.get("source", "")) for m in table.get("moved_module", [])),
            key=lambda m: -len(m.old),
        )
        self.members: Dict[str, FrozenSet[str]] = {
            name: frozenset(names) for name, names in table.get("module_members", {}).items()
        }
        self.members_version: Optional[Version] = (
            parse_version(table["module_members_meta"]["version"]) if "module_members_meta" in table else None
        )
        raw_tuple = table.get("legacy_build_tuple")
        self.build_tuple: Optional[LegacyBuildTuple] = (
            LegacyBuildTuple(
                frozenset(raw_tuple["api"]), raw_tuple["deprecated"], raw_tuple["removed"], raw_tuple.get("advice", ""),
                tuple(raw_tuple.get("json_getter", [])), raw_tuple.get("source", ""),
            )
            if raw_tuple
            else None
        )
        self.not_modules: FrozenSet[str] = frozenset(table.get("not_modules", {}).get("paths", []))
        self.methods: Dict[str, Method] = {
            raw["name"]: Method(
                raw["name"], raw["owner"], raw.get("advice", ""), raw.get("new"), raw.get("deprecated"),
                raw.get("removed"), frozenset(raw.get("unless_imports", ())), raw.get("source", ""),
            )
            for raw in table.get("method", [])
        }
        self.keywords: Dict[str, List[Keyword]] = {}
        for raw in table.get("keyword", []):
            keyword = Keyword(frozenset(raw["api"]), raw["old"], raw["new"], raw["removed"], raw.get("source", ""))
            for api in keyword.api:
                self.keywords.setdefault(api, []).append(keyword)
        self.roots: FrozenSet[str] = frozenset(s.old.split(".")[0] for s in self.symbols)

    # -- symbols -----------------------------------------------------------------

    def entry(self, qualname: str, version: Version) -> Optional[Tuple[Symbol, str]]:
        """The most specific entry covering `qualname` that has a status at `version`."""
        parts = qualname.split(".")
        for length in range(len(parts), 0, -1):  # longest prefix first
            for symbol in self.by_old.get(".".join(parts[:length]), ()):
                if symbol.covers(qualname):
                    status = symbol.status(version)
                    if status is not None:
                        return symbol, status
        return None

    def exists(self, qualname: str, version: Version) -> bool:
        """False when an entry says `qualname` is gone at `version`."""
        found = self.entry(qualname, version)
        return not (found and found[1] == REMOVED)

    def replacement(self, symbol: Symbol, version: Version) -> Optional[str]:
        if symbol.new is None:
            return None
        if symbol.new_since is not None and version < parse_version(symbol.new_since):
            return None
        return symbol.new if self.exists(symbol.new, version) else None

    def moved(self, qualname: str, version: Version) -> Optional[Tuple[MovedModule, str]]:
        """(moved module, where the name under it went) for a split module such as tvm.tir.

        Only names the member lists know are placed, and only at the release the
        lists were read from: earlier releases of the split exported other names.
        """
        if self.members_version is None or version != self.members_version:
            return None
        if any(module.old == qualname for module in self.moved_modules):
            return None  # the module itself went to several places
        for module in self.moved_modules:
            if not qualname.startswith(module.old + ".") or version < parse_version(module.removed):
                continue
            name = qualname[len(module.old) + 1:].split(".")[0]
            for candidate in module.candidates:
                if name in self.members.get(candidate, ()):
                    return module, candidate
            return None
        return None

    def use(self, qualname: str, version: Version) -> Optional[Use]:
        key = (qualname, version)
        if key not in self._uses:
            self._uses[key] = self._use(qualname, version)
        return self._uses[key]

    def _use(self, qualname: str, version: Version) -> Optional[Use]:
        found = self.entry(qualname, version)
        if found is None:
            return None
        symbol, status = found
        new = self.replacement(symbol, version)
        if new is not None:
            return Use(qualname, symbol, status, new, symbol.old, symbol.fix is not None)
        moved = self.moved(qualname, version)
        if moved is not None and status == REMOVED:
            module, candidate = moved
            return Use(qualname, symbol, status, candidate, module.old, True)
        return Use(qualname, symbol, status, None, None, False)


@functools.lru_cache(maxsize=None)
def _history(directory: str) -> History:
    return History(load_from(directory, "api_history.toml"))


def get_history() -> History:
    return _history(str(rules_dir()))


@functools.lru_cache(maxsize=None)
def _roots(directory: str) -> FrozenSet[str]:
    return frozenset(raw["old"].split(".")[0] for raw in load_from(directory, "api_history.toml").get("symbol", []))


@functools.lru_cache(maxsize=None)
def _star_reexports(directory: str) -> Dict[str, str]:
    return dict(load_from(directory, "api_history.toml").get("star_reexports", {}).get("modules", {}))


def star_reexports() -> Dict[str, str]:
    """[star_reexports]: the TVM module a name brought by a star import of a project module
    stands for (`relay` -> `tvm.relay`)."""
    return _star_reexports(str(rules_dir()))


def old_roots() -> FrozenSet[str]:
    """The top-level packages of every path the history knows (`History.roots`), without building
    the history: the gating analysis asks on runs that check no API use."""
    return _roots(str(rules_dir()))
