"""rules/numerics.toml: FastMath (TVM302) and low-precision accumulation (TVM303)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Tuple

from tvmlint.base.versions import Version, in_range, parse_version
from tvmlint.knowledge.tables import cached, load_table


def _table() -> dict:
    return load_table("numerics.toml")


def _at(rows, version: Version):
    return [row for row in rows if in_range(version, row.get("since"), row.get("until"))]


@dataclass(frozen=True)
class FastMath:
    """The pass that turns fast math on inside a pipeline, and the config key that does it in
    a build (from `config_since`)."""

    pass_name: str
    config_key: str
    config_since: Version


@cached
def fast_math() -> FastMath:
    raw = _table()["fast_math"]
    return FastMath(raw["pass"], raw["config_key"], parse_version(raw["config_since"]))


@cached
def fast_math_builds(version: Version) -> FrozenSet[str]:
    """The builds the config key acts on at `version` (none before the key exists)."""
    if version < fast_math().config_since:
        return frozenset()
    return frozenset(api for row in _at(_table()["fast_math_build"], version) for api in row["api"])


@dataclass(frozen=True)
class Accumulation:
    """[accumulation]: which dtypes are low-precision and how a sum's dtype changes."""

    low_precision: FrozenSet[str]
    low_precision_order: Tuple[str, ...]  # as the table lists them (a pattern is built from them)
    cast_methods: FrozenSet[str]
    cast_calls: FrozenSet[str]
    reduction_scopes: Tuple[str, ...]


@cached
def accumulation() -> Accumulation:
    raw = _table()["accumulation"]
    return Accumulation(
        frozenset(raw["low_precision"]), tuple(raw["low_precision"]), frozenset(raw["cast_methods"]),
        frozenset(raw["cast_calls"]), tuple(raw["reduction_scopes"]),
    )


@cached
def tvmscript_namespaces() -> Tuple[str, ...]:
    """Every module TVMScript's TIR builder was reachable as, at any release."""
    return tuple(row["namespace"] for row in _table()["tvmscript"])


@dataclass(frozen=True)
class Declaration:
    """A buffer declaration or a tensor: its parameters and the dtype it has when given none."""

    params: Tuple[str, ...]
    default_dtype: str


def _declaration(row: dict) -> Declaration:
    return Declaration(tuple(row["params"]), row["default_dtype"])


@cached
def declarations(version: Version) -> Tuple[FrozenSet[str], Dict[str, Declaration], Dict[str, Declaration]]:
    """What a dtype is read from at a release: the buffer types, and the buffer declarations
    and tensors by API."""
    namespaces = tvmscript_namespaces()
    buffer_types = frozenset(f"{ns}.Buffer" for ns in namespaces)
    decls = {f"{ns}.{row['name']}": _declaration(row) for ns in namespaces for row in _table()["buffer_decl"]}
    tensors = {api: _declaration(row) for row in _at(_table()["te_tensor"], version) for api in row["api"]}
    return buffer_types, decls, tensors


@cached
def low_default() -> bool:
    """Whether some declaring API's default dtype is low-precision."""
    rows = [*_table()["buffer_decl"], *_table()["te_tensor"]]
    return any(row["default_dtype"] in accumulation().low_precision for row in rows)


@cached
def _apis(table: str, version: Version) -> FrozenSet[str]:
    return frozenset(api for row in _at(_table()[table], version) for api in row["api"])


def sum_apis(version: Version) -> FrozenSet[str]:
    """The te.sum spellings at a release."""
    return _apis("te_sum", version)


def compute_apis(version: Version) -> FrozenSet[str]:
    return _apis("te_compute", version)


def select_apis(version: Version) -> FrozenSet[str]:
    return _apis("te_select", version)


@cached
def keep_dtype(version: Version) -> FrozenSet[str]:
    """The TIR math functions whose value has their first argument's dtype (`tir.exp`), by the
    names they are called under at a release."""
    return frozenset(
        f"{namespace}.{name}" for row in _at(_table()["te_keep_dtype"], version)
        for namespace in row["namespaces"] for name in row["names"]
    )


@cached
def kernel_runners() -> FrozenSet[str]:
    """What builds or runs a kernel."""
    return frozenset(api for row in _table()["kernel_run"] for api in row["api"])


@cached
def kernel_inserters() -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """What puts a kernel into a model that runs it: APIs, methods."""
    rows = _table()["kernel_insert"]
    return (frozenset(api for row in rows for api in row["api"]),
            frozenset(name for row in rows for name in row.get("methods", ())))


@cached
def workload_calls(version: Version) -> Tuple[dict, ...]:
    """The calls through which a tuner calls a kernel builder with an args tuple, at a release
    (rows as the table writes them: `api`, `func`, `args`, optional `templates`)."""
    return tuple(_at(_table()["workload_call"], version))
