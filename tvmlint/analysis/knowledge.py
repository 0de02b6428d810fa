"""The knowledge in rules/*.toml, seen from one target TVM version.

Code asks this module what a pass, a context factory or a runner is; it never
hard-codes a pass name, a level or a release.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

# where the data is found is a module of its own: the daemon's client asks without loading it
from tvmlint.analysis.rules_location import RULES_DIR_ENV, rules_dir  # noqa: F401
from tvmlint.analysis.tables import load_toml
from tvmlint.base.versions import Version, format_version, in_range, parse_version


@functools.lru_cache(maxsize=None)
def _load(directory: str, name: str) -> dict:
    path = Path(directory) / name
    if not path.exists():
        return {}
    return load_toml(path)


def load_table(name: str) -> dict:
    return _load(str(rules_dir()), name)


def pass_levels() -> Tuple[int, int]:
    """The lowest and highest opt_level of any pass or Sequential member, at any release."""
    return _pass_levels(str(rules_dir()))


@functools.lru_cache(maxsize=None)
def _pass_levels(directory: str) -> Tuple[int, int]:
    levels: List[int] = []
    rows = list(_load(directory, "passes.toml").get("pass", []))
    while rows:
        row = rows.pop()
        levels.append(int(row.get("opt_level", 0)))
        rows.extend(row.get("members", []))
    return (min(levels), max(levels)) if levels else (0, 0)


def data_fingerprint() -> str:
    """A hash of every rules/ file, so caches notice when the knowledge changes."""
    import hashlib  # only the result cache asks; loading OpenSSL costs a run on one file 2 ms

    digest = hashlib.sha256()
    root = rules_dir()
    for path in sorted(root.rglob("*.toml")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def known_releases() -> List[str]:
    return list(load_table("versions.toml").get("releases", []))


def newest_release() -> Version:
    return parse_version(load_table("versions.toml").get("newest", "0.27"))


@dataclass(frozen=True)
class Member:
    """A pass as a Sequential sees it: its registered name and level."""

    name: str
    opt_level: int
    via: Optional[str] = None  # the wrapper Sequential it sits in, when flattened
    members: Tuple["Member", ...] = ()  # when the member is itself a Sequential (FuseTIR's ExpandTupleArguments)

    @property
    def highest_level(self) -> int:
        """The highest level in this member and the Sequentials nested in it."""
        return max([self.opt_level, *(member.highest_level for member in self.members)])


@dataclass(frozen=True)
class PassSpec:
    name: str
    kind: str
    opt_level: int
    api: Tuple[str, ...]
    members: Tuple[Member, ...] = ()
    required: Tuple[str, ...] = ()
    source: str = ""

    @property
    def is_sequential(self) -> bool:
        return self.kind == "sequential"


@dataclass(frozen=True)
class ContextFactory:
    api: Tuple[str, ...]
    params: Tuple[str, ...]
    default_opt_level: int
    kwargs_passthrough: bool = False


@dataclass(frozen=True)
class SequentialClass:
    api: Tuple[str, ...]
    params: Tuple[str, ...]
    default_opt_level: int
    default_name: str


@dataclass(frozen=True)
class PassDecorator:
    api: Tuple[str, ...]
    kind: str
    params: Tuple[str, ...]


@dataclass(frozen=True)
class Runner:
    api: Tuple[str, ...]
    report: str
    runs: Tuple[Member, ...]
    source: str = ""


def _entry_applies(entry: dict, version: Version) -> bool:
    return in_range(version, entry.get("since"), entry.get("until"))


def _with_history(entry: dict, version: Version) -> dict:
    """Apply an entry's `history` rows (older levels or kinds) for `version`."""
    resolved = dict(entry)
    for row in entry.get("history", []):
        if in_range(version, row.get("since"), row.get("until")):
            resolved.update({k: v for k, v in row.items() if k not in ("since", "until", "source")})
    return resolved


def entries_at(rows: Iterable[dict], version: Version) -> List[dict]:
    """The raw table rows that exist at `version`, with their `history` applied."""
    return [_with_history(row, version) for row in rows if _entry_applies(row, version)]


def _members(rows: Iterable[dict], version: Optional[Version] = None) -> Tuple[Member, ...]:
    # `optional` steps run only when the user opts in (auto_scheduler, meta_schedule layout rewrites);
    # a member with `since`/`until` is in the pipeline only at those releases (FastMath from 0.7)
    return tuple(
        Member(row["name"], int(row["opt_level"]), row.get("via"), _members(row.get("members", ()), version))
        for row in rows
        if not row.get("optional") and (version is None or _entry_applies(row, version))
    )


class Knowledge:
    """Every table, filtered to what exists at one TVM release."""

    def __init__(self, version: Version):
        self.version = version
        self.version_text = format_version(version)
        self._api_prefixes: Optional[FrozenSet[str]] = None
        self._star_reexports: Optional[Dict[str, str]] = None
        passes = load_table("passes.toml")
        self.default_opt_level: int = int(passes.get("meta", {}).get("default_opt_level", 2))

        self.passes_by_api: Dict[str, PassSpec] = {}
        self.passes_by_name: Dict[str, PassSpec] = {}
        for raw in passes.get("pass", []):
            if not _entry_applies(raw, version):
                continue
            entry = _with_history(raw, version)
            spec = PassSpec(
                name=entry["name"],
                kind=entry["kind"],
                opt_level=int(entry["opt_level"]),
                api=tuple(entry.get("api", [])),
                members=_members(entry.get("members", [])),
                required=tuple(entry.get("required", [])),
                source=entry.get("source", ""),
            )
            for api in spec.api:
                self.passes_by_api[api] = spec
            self.passes_by_name.setdefault(spec.name, spec)
            for member in spec.members:
                self.passes_by_name.setdefault(
                    member.name, PassSpec(member.name, "function", member.opt_level, ())
                )

        self.sequential_classes: Dict[str, SequentialClass] = {}
        for raw in passes.get("sequential_class", []):
            if _entry_applies(raw, version):
                spec = SequentialClass(
                    tuple(raw["api"]),
                    tuple(raw.get("params", ["passes", "opt_level", "name", "required"])),
                    int(raw.get("default_opt_level", 0)),
                    raw.get("default_name", "sequential"),
                )
                for api in spec.api:
                    self.sequential_classes[api] = spec

        self.decorators: Dict[str, PassDecorator] = {}
        for raw in passes.get("decorator", []):
            if _entry_applies(raw, version):
                spec = PassDecorator(
                    tuple(raw["api"]),
                    raw.get("kind", "module"),
                    tuple(raw.get("params", ["pass_func", "opt_level", "name", "required"])),
                )
                for api in spec.api:
                    self.decorators[api] = spec

        contexts = load_table("contexts.toml")
        self.context_factories: Dict[str, ContextFactory] = {}
        for raw in contexts.get("context", []):
            if _entry_applies(raw, version):
                spec = ContextFactory(
                    tuple(raw["api"]),
                    tuple(raw.get("params", ["opt_level", "required_pass", "disabled_pass"])),
                    int(raw.get("default_opt_level", self.default_opt_level)),
                    bool(raw.get("kwargs_passthrough", False)),
                )
                for api in spec.api:
                    self.context_factories[api] = spec
        # how a message and a fix spell "enter a context at level N" at this release
        suggest = next((raw for raw in contexts.get("suggest", []) if _entry_applies(raw, version)), {})
        self.context_text: str = suggest.get("text", "tvm.transform.PassContext")
        self.context_fix: str = suggest.get("fix", self.context_text)
        # context managers that are no PassContext (qconfig, apply_history_best): api -> how to name it
        self.scope_objects: Dict[str, str] = {
            api: raw.get("what", "context")
            for raw in contexts.get("scope_object", [])
            if _entry_applies(raw, version)
            for api in raw["api"]
        }
        self.current_context_apis: FrozenSet[str] = frozenset(
            api
            for raw in contexts.get("current", [])
            if _entry_applies(raw, version)
            for api in raw["api"]
        )

        self.runners: Dict[str, Runner] = {}
        for raw in load_table("runners.toml").get("runner", []):
            if _entry_applies(raw, version):
                spec = Runner(
                    tuple(raw["api"]),
                    raw.get("report", "TVM101"),
                    _members(raw.get("runs", []), version),
                    raw.get("source", ""),
                )
                for api in spec.api:
                    self.runners[api] = spec
        # relay.create_executor's kinds: the runner each one's executor runs, and when
        # (rules/executors.toml: "create" at the call, "evaluate" at its evaluate())
        self.executors: Dict[str, Dict[str, Tuple[Runner, str]]] = {}
        # create_executor's parameters and the kind it makes when given none, by API
        self.executor_signatures: Dict[str, Tuple[Tuple[str, ...], Optional[str]]] = {}
        for raw in load_table("executors.toml").get("executor", []):
            runner = self.runners.get(raw["runs"])
            if runner is not None and _entry_applies(raw, version):
                for api in raw["api"]:
                    self.executors.setdefault(api, {})[raw["kind"]] = (runner, raw["at"])
                    self.executor_signatures[api] = (tuple(raw.get("params", ("kind",))), raw.get("default_kind"))

    def pass_for_api(self, qualname: str) -> Optional[PassSpec]:
        return self.passes_by_api.get(qualname)

    def registered_names(self) -> FrozenSet[str]:
        return frozenset(self.passes_by_name)

    @property
    def star_reexports(self) -> Dict[str, str]:
        """rules/api_history.toml [star_reexports]: the TVM module a name brought by a star
        import of a project module stands for (`relay` -> `tvm.relay`)."""
        if self._star_reexports is None:
            self._star_reexports = dict(load_table("api_history.toml").get("star_reexports", {}).get("modules", {}))
        return self._star_reexports

    def api_prefixes(self) -> FrozenSet[str]:
        """Every qualified name the gating analysis cares about (computed once: it is on the hot path)."""
        if self._api_prefixes is None:
            names = set(self.passes_by_api)
            names.update(self.sequential_classes, self.decorators, self.context_factories)
            names.update(self.current_context_apis, self.runners, self.executors)
            # packages the API history knows that are not TVM's any more (nnvm): their roots count too
            names.update(raw["old"].split(".")[0] for raw in load_table("api_history.toml").get("symbol", []))
            self._api_prefixes = frozenset(names)
        return self._api_prefixes


@dataclass(frozen=True)
class Harness:
    """rules/harness.toml: how test runners call code nothing else calls by name."""

    test_file_prefixes: Tuple[str, ...]
    test_file_suffixes: Tuple[str, ...]
    test_class_prefix: str
    test_function_prefix: str
    unittest_bases: FrozenSet[str]
    unittest_method_prefix: str
    keep_context_decorators: Tuple[str, ...]  # qualified-name prefixes
    harmless_fixtures: FrozenSet[str]
    fixture_decorators: FrozenSet[str]
    parameter_factories: FrozenSet[str]
    raise_with_calls: FrozenSet[str]
    raise_with_methods: FrozenSet[str]
    # [deliberate_skip]: how near a comment must be, and what it must say, for a skip to be on purpose
    skip_lines_above: int = 4
    skip_lines_below: int = 8
    skip_about: Tuple[str, ...] = ()
    skip_says: Tuple[str, ...] = ()

    def says_skip_on_purpose(self, comments: str, skipped_names) -> bool:
        """Whether comment text speaks of the level (or a skipped pass) and says something does not run."""
        text = comments.lower()
        about = any(word in text for word in self.skip_about) or any(n.lower() in text for n in skipped_names)
        return about and any(word in text for word in self.skip_says)

    def is_test_module(self, module_name: str) -> bool:
        stem = module_name.rpartition(".")[2]
        return stem.startswith(self.test_file_prefixes) or stem.endswith(self.test_file_suffixes)

    def keeps_context(self, decorator: str) -> bool:
        return decorator.startswith(self.keep_context_decorators)


def harness() -> Harness:
    return _harness(str(rules_dir()))


@functools.lru_cache(maxsize=None)
def _harness(directory: str) -> Harness:
    raw = _load(directory, "harness.toml")
    pytest, unittest = raw.get("pytest", {}), raw.get("unittest", {})
    fixtures, raises = raw.get("fixtures", {}), raw.get("expect_raise", {})
    deliberate = raw.get("deliberate_skip", {})
    return Harness(
        tuple(pytest.get("file_prefixes", ())), tuple(pytest.get("file_suffixes", ())),
        pytest.get("class_prefix", "Test"), pytest.get("function_prefix", "test"),
        frozenset(unittest.get("bases", ())), unittest.get("method_prefix", "test"),
        tuple(raw.get("decorators", {}).get("keep_context", ())),
        frozenset(fixtures.get("harmless", ())), frozenset(fixtures.get("decorators", ())),
        frozenset(fixtures.get("parameters", ())),
        frozenset(raises.get("with_calls", ())), frozenset(raises.get("with_methods", ())),
        int(deliberate.get("lines_above", 4)), int(deliberate.get("lines_below", 8)),
        tuple(deliberate.get("about", ())), tuple(deliberate.get("says_skipped", ())),
    )


@functools.lru_cache(maxsize=None)
def knowledge_for(version: Version, directory: Optional[str] = None) -> Knowledge:
    # `directory` keys the cache so a changed $TVMLINT_RULES_DIR is honoured.
    return Knowledge(version)


def get_knowledge(version: Version) -> Knowledge:
    return knowledge_for(version, str(rules_dir()))


@functools.lru_cache(maxsize=None)
def default_levels(knowledge: Knowledge) -> List[int]:
    """The levels a context can have at this release when none is written: the default one,
    and each factory's own."""
    return [knowledge.default_opt_level, *(f.default_opt_level for f in knowledge.context_factories.values())]


def lowest_default_level(knowledge: Knowledge) -> int:
    """The lowest level a context has at this release when none is written."""
    return min(default_levels(knowledge))


@functools.lru_cache(maxsize=None)
def tutorial_build_level() -> int:
    """The level TVM's own tutorials build a model at (contexts.toml): what TVM108 suggests, and
    a level explain takes a build's higher passes to be left out at on purpose."""
    return int(load_table("contexts.toml")["tutorial_build_level"])


@functools.lru_cache(maxsize=None)
def highest_gated_level(knowledge: Knowledge) -> int:
    """The highest level a Sequential can gate at this release without a level the project
    writes itself: TVM's passes and the passes inside them, the passes runners hold, and the
    level a Sequential has when it is given none."""
    levels = [spec.opt_level for spec in knowledge.passes_by_api.values()]
    levels.extend(member.highest_level for spec in knowledge.passes_by_api.values() for member in spec.members)
    levels.extend(member.highest_level for runner in knowledge.runners.values() for member in runner.runs)
    levels.extend(spec.default_opt_level for spec in knowledge.sequential_classes.values())
    return max(levels, default=0)


@functools.lru_cache(maxsize=None)
def level_positions(knowledge: Knowledge) -> Dict[str, Optional[int]]:
    """The last names of what a project makes its own passes with (TVM's pass decorators, its
    Sequentials), each with where the level goes without a keyword (-1: anywhere, a decorator
    being called with or without the function first)."""
    positions: Dict[str, Optional[int]] = {}
    for api in knowledge.decorators:
        positions[api.rsplit(".", 1)[-1]] = -1
    for api, spec in knowledge.sequential_classes.items():
        last = api.rsplit(".", 1)[-1]
        at = spec.params.index("opt_level") if "opt_level" in spec.params else None
        positions[last] = at if positions.get(last, at) == at else -1
    return positions


def highest_default_level() -> int:
    """The highest level a context has when none is written, at any release the data knows."""
    return _highest_default_level(str(rules_dir()))


@functools.lru_cache(maxsize=None)
def _highest_default_level(directory: str) -> int:
    levels = [int(_load(directory, "passes.toml").get("meta", {}).get("default_opt_level", 2))]
    levels.extend(int(raw.get("default_opt_level", levels[0])) for raw in _load(directory, "contexts.toml").get("context", []))
    return max(levels)
