"""The installed TVM's pass registry, as the child reports it (cached per install)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

from tvmlint.base.versions import Version, format_version, parse_version
from tvmlint.companion import CompanionError, cache
from tvmlint.companion.process import default_timeout, interpreter, run_child
from tvmlint.knowledge.target import pass_constructors


@dataclass(frozen=True)
class LivePass:
    """A pass as the installed TVM builds it: PassInfo and, for a Sequential, its members."""

    name: str
    kind: str
    opt_level: int
    required: Tuple[str, ...] = ()
    members: Tuple["LivePass", ...] = ()
    api: Optional[str] = None
    aliases: Tuple[str, ...] = ()
    error: Optional[str] = None  # the constructor raised: the pass could not be built

    @classmethod
    def from_json(cls, row: dict) -> "LivePass":
        return cls(
            name=row.get("name", ""),
            kind=row.get("kind", ""),
            opt_level=int(row.get("opt_level", 0)),
            required=tuple(row.get("required", ())),
            members=tuple(cls.from_json(m) for m in row.get("members", ())),
            api=row.get("api"),
            aliases=tuple(row.get("aliases", ())),
            error=row.get("error"),
        )

    def walk(self) -> Iterable["LivePass"]:
        yield self
        for member in self.members:
            yield from member.walk()


@dataclass
class Snapshot:
    python: str
    location: str
    version: str
    passes: List[LivePass]
    configs: Dict[str, str]
    modules: Dict[str, object]  # module path -> True, or why it could not be imported
    has_relay: bool
    defaults: Dict[str, object] = field(default_factory=dict)  # PassContext() and Sequential([]) as built
    cache_file: Optional[str] = None
    from_cache: bool = False
    by_api: Dict[str, LivePass] = field(default_factory=dict)
    by_name: Dict[str, LivePass] = field(default_factory=dict)

    def __post_init__(self):
        for live in self.passes:
            for api in (live.api,) + live.aliases:
                if api:
                    self.by_api[api] = live
            if live.error:
                continue
            for found in live.walk():
                self.by_name.setdefault(found.name, found)

    @property
    def release(self) -> Optional[Version]:
        try:
            return parse_version(self.version)
        except ValueError:
            return None

    @property
    def describe(self) -> str:
        return f"TVM {self.version} ({self.location})"

    def module_present(self, api: str) -> bool:
        return self.modules.get(api.rsplit(".", 1)[0]) is True

    @classmethod
    def from_answer(cls, answer: dict) -> "Snapshot":
        return cls(
            python=answer.get("python", ""),
            location=answer.get("location", ""),
            version=answer.get("version") or answer.get("tvm_version") or "unknown",
            passes=[LivePass.from_json(row) for row in answer.get("passes", ())],
            configs=dict(answer.get("configs", {})),
            modules=dict(answer.get("modules", {})),
            has_relay=bool(answer.get("has_relay")),
            defaults=dict(answer.get("defaults", {})),
        )


def snapshot_request() -> dict:
    """What to ask the child, read from rules/passes.toml: the modules to list and how to build passes."""
    constructors = pass_constructors()
    modules = {api.rsplit(".", 1)[0] for api in constructors}
    known = set(constructors)
    build = {api: dict(recipe) for api, recipe in constructors.items() if recipe}
    # tvm.transform first: its passes are listed under that name, not tvm.ir.transform
    order = sorted(modules, key=lambda m: (m != "tvm.transform", m))
    return {"op": "snapshot", "modules": order, "known": sorted(known), "build": build}


def build_recipe(api: str) -> Optional[dict]:
    return snapshot_request()["build"].get(api)


def load_snapshot(tvm_python: Optional[str] = None, timeout: Optional[float] = None, use_cache: bool = True) -> Snapshot:
    """The installed TVM's registry: from the cache when this install was seen, else from the child."""
    python = interpreter(tvm_python)
    limit = timeout if timeout is not None else default_timeout()
    where = run_child(python, {"op": "locate"}, limit)
    if not where.get("found"):
        raise CompanionError(f"no TVM is installed for {where.get('python') or python} (`import tvm` would fail)")
    request = snapshot_request()
    key = cache.cache_key(where, request)
    answer = cache.read(key) if use_cache else None
    from_cache = answer is not None
    if answer is None:
        answer = run_child(python, request, limit)
        stored = cache.write(key, answer)
    else:
        stored = cache.cache_root() / f"{key}.json"
    snapshot = Snapshot.from_answer(answer)
    snapshot.from_cache = from_cache
    snapshot.cache_file = str(stored) if stored else None
    return snapshot


def version_text(snapshot: Snapshot) -> str:
    release = snapshot.release
    return format_version(release) if release else snapshot.version
