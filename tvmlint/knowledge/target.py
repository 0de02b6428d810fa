"""rules/passes.toml, contexts.toml, runners.toml, executors.toml and pipelines.toml,
seen from one target TVM version.

Code asks this module what a pass, a context factory or a runner is; it never
hard-codes a pass name, a level or a release.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple, Union

from tvmlint.base.versions import Version, format_version, in_range
from tvmlint.knowledge.api_history import old_roots, star_reexports
from tvmlint.knowledge.location import rules_dir
from tvmlint.knowledge.tables import cached, load_from, load_table


def pass_levels() -> Tuple[int, int]:
    """The lowest and highest opt_level of any pass or Sequential member, at any release."""
    return _pass_levels(str(rules_dir()))


@functools.lru_cache(maxsize=None)
def _pass_levels(directory: str) -> Tuple[int, int]:
    levels: List[int] = []
    rows = list(load_from(directory, "passes.toml")["pass"])
    while rows:
        row = rows.pop()
        levels.append(int(row["opt_level"]))
        rows.extend(row.get("members", []))
    return (min(levels), max(levels)) if levels else (0, 0)


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


@dataclass(frozen=True)
class BuildPipeline:
    """rules/pipelines.toml: what a relax build runs at one release, a module pass (`wrapper`)
    that always runs and whose Sequential gates each member by the caller's PassContext."""

    name: str
    api: Tuple[str, ...]
    wrapper: Member
    runs: Tuple[Member, ...]
    kinds: Tuple[Tuple[str, str], ...]  # (member name, pass kind)
    source: str


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


def _build_pipelines(release: str) -> Dict[str, BuildPipeline]:
    # a relax build's pipeline is recorded per release (tools/relax_pipeline_from_source.py)
    pipelines: Dict[str, BuildPipeline] = {}
    for raw in load_table("pipelines.toml").get("pipeline", []):
        if raw["release"] == release:
            wrapper = raw["wrapper"]
            spec = BuildPipeline(
                raw["name"], tuple(raw["api"]), Member(wrapper["name"], int(wrapper["opt_level"])),
                tuple(Member(m["name"], int(m["opt_level"])) for m in raw["members"]),
                tuple((m["name"], m["kind"]) for m in raw["members"]), raw["source"],
            )
            for api in spec.api:
                pipelines[api] = spec
    return pipelines


class Knowledge:
    """Every table, filtered to what exists at one TVM release."""

    def __init__(self, version: Version):
        self.version = version
        self.version_text = format_version(version)
        self._api_prefixes: Optional[FrozenSet[str]] = None
        self._pipelines: Optional[Dict[str, BuildPipeline]] = None
        passes = load_table("passes.toml")
        self.default_opt_level: int = int(passes["meta"]["default_opt_level"])

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
                api=tuple(entry["api"]),
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
                    tuple(raw["params"]),
                    int(raw["default_opt_level"]),
                    raw["default_name"],
                )
                for api in spec.api:
                    self.sequential_classes[api] = spec

        self.decorators: Dict[str, PassDecorator] = {}
        for raw in passes.get("decorator", []):
            if _entry_applies(raw, version):
                spec = PassDecorator(
                    tuple(raw["api"]),
                    raw["kind"],
                    tuple(raw["params"]),
                )
                for api in spec.api:
                    self.decorators[api] = spec

        contexts = load_table("contexts.toml")
        self.context_factories: Dict[str, ContextFactory] = {}
        for raw in contexts.get("context", []):
            if _entry_applies(raw, version):
                spec = ContextFactory(
                    tuple(raw["api"]),
                    tuple(raw["params"]),
                    int(raw["default_opt_level"]),
                    bool(raw.get("kwargs_passthrough", False)),
                )
                for api in spec.api:
                    self.context_factories[api] = spec
        # how a message and a fix spell "enter a context at level N" at this release
        # (before the oldest row's release, the newest spelling)
        suggestions = contexts["suggest"]
        suggest = next((raw for raw in suggestions if _entry_applies(raw, version)), suggestions[-1])
        self.context_text: str = suggest["text"]
        self.context_fix: str = suggest["fix"]
        # context managers that are no PassContext (qconfig, apply_history_best): api -> how to name it
        self.scope_objects: Dict[str, str] = {
            api: raw["what"]
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
                    raw["report"],
                    _members(raw["runs"], version),
                    raw["source"],
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
                    self.executor_signatures[api] = (tuple(raw["params"]), raw["default_kind"])

    def what_runs(self, qualname: str) -> Union[Runner, BuildPipeline, None]:
        """What a call of `qualname` runs under the PassContext active at it: a runner
        (rules/runners.toml, judged by the rule its `report` names), a build's pipeline
        (rules/pipelines.toml), or None. Explain, its hover and the companion ask here; the
        analysis's runner events (TVM101, TVM108) read the runners, the first half of the same
        answer, so a check never loads the build pipelines only explain shows."""
        return self.runners.get(qualname) or self.pipelines.get(qualname)

    @property
    def pipelines(self) -> Dict[str, BuildPipeline]:
        """rules/pipelines.toml at this release, by API (read when first asked)."""
        if self._pipelines is None:
            self._pipelines = _build_pipelines(self.version_text)
        return self._pipelines

    def runner_apis(self, code: str) -> FrozenSet[str]:
        """The runners' APIs whose gating the rule `code` reports."""
        return frozenset(api for api, runner in self.runners.items() if runner.report == code)

    def pass_for_api(self, qualname: str) -> Optional[PassSpec]:
        return self.passes_by_api.get(qualname)

    def registered_names(self) -> FrozenSet[str]:
        return frozenset(self.passes_by_name)

    @property
    def star_reexports(self) -> Dict[str, str]:
        """rules/api_history.toml [star_reexports]: the TVM module a name brought by a star
        import of a project module stands for (`relay` -> `tvm.relay`)."""
        return star_reexports()

    def api_prefixes(self) -> FrozenSet[str]:
        """Every qualified name the gating analysis cares about (computed once: it is on the hot path)."""
        if self._api_prefixes is None:
            names = set(self.passes_by_api)
            names.update(self.sequential_classes, self.decorators, self.context_factories)
            names.update(self.current_context_apis, self.runners, self.executors)
            # packages the API history knows that are not TVM's any more (nnvm): their roots count too
            names.update(old_roots())
            self._api_prefixes = frozenset(names)
        return self._api_prefixes


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


# rows as the tables write them, for `registry --verify`, which checks every field a row gives
# against the installed TVM (the typed views above keep only what the rules use)


def pass_rows(version: Version) -> List[dict]:
    """passes.toml's [[pass]] rows that exist at `version`, history applied."""
    return entries_at(load_table("passes.toml")["pass"], version)


@cached
def pass_constructors() -> Dict[str, Dict[str, str]]:
    """Every pass API any release has, with how to build it where a bare call cannot: `args`
    (Python source) and `target`, from the rows' build_args and build_target."""
    found: Dict[str, Dict[str, str]] = {}
    for entry in load_table("passes.toml")["pass"]:
        recipe = {key: entry[field] for key, field in (("args", "build_args"), ("target", "build_target")) if field in entry}
        for api in entry["api"]:
            if recipe:
                found[api] = recipe  # the last row that gives one
            else:
                found.setdefault(api, {})
    return found


def sequential_class_rows(version: Version) -> List[dict]:
    return entries_at(load_table("passes.toml")["sequential_class"], version)


def default_opt_level_row() -> Tuple[int, str]:
    """PassContext's default opt_level and where the table has it from."""
    meta = load_table("passes.toml")["meta"]
    return int(meta["default_opt_level"]), meta["default_opt_level_source"]


@functools.lru_cache(maxsize=None)
def pass_kinds(knowledge: Knowledge) -> Dict[str, str]:
    """The kind of each pass this release registers (module, function, sequential...), members
    of Sequentials and of build pipelines included, where the tables say."""
    kinds: Dict[str, str] = {}
    rows = entries_at(load_table("passes.toml")["pass"], knowledge.version)
    for row in rows:
        kinds[row["name"]] = row["kind"]
    while rows:
        row = rows.pop()
        for member in row.get("members", []):
            if member.get("kind"):
                kinds.setdefault(member["name"], member["kind"])
            rows.append(member)
    for pipeline in knowledge.pipelines.values():
        for name, kind in pipeline.kinds:
            kinds.setdefault(name, kind)
    return kinds


@cached
def instruments_since() -> str:
    """The first release whose PassContext takes `instruments` (contexts.toml): what the
    companion's tracer needs."""
    return str(load_table("contexts.toml")["instruments"]["since"])


def build_apis() -> FrozenSet[str]:
    """Every API a relax build pipeline is recorded for, at any release (rules/pipelines.toml)."""
    return frozenset(api for raw in load_table("pipelines.toml").get("pipeline", []) for api in raw["api"])


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
    levels = [int(load_from(directory, "passes.toml")["meta"]["default_opt_level"])]
    levels.extend(int(raw["default_opt_level"]) for raw in load_from(directory, "contexts.toml")["context"])
    return max(levels)
