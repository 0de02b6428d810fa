"""rules/ against the live registry: every difference, for `tvmlint registry --verify`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Sequence

from tvmlint.base.versions import Version
from tvmlint.companion.registry import LivePass, Snapshot
from tvmlint.knowledge.registry import config_key_rows
from tvmlint.knowledge.target import (
    default_opt_level_row,
    pass_rows,
    sequential_class_rows,
)


@dataclass(frozen=True)
class Difference:
    subject: str  # the API path or config key
    problem: str  # what differs, table vs live
    source: str = ""  # where rules/ says the fact came from

    def to_json(self) -> dict:
        return {"subject": self.subject, "problem": self.problem, "source": self.source}


def _member_rows(rows: Iterable[dict]) -> List[dict]:
    return [row for row in rows if not row.get("optional")]


def _compare_members(where: str, table: Sequence[dict], live: Sequence[LivePass]) -> List[str]:
    table = _member_rows(table)
    problems: List[str] = []
    table_names = [row["name"] for row in table]
    live_names = [member.name for member in live]
    if table_names != live_names:
        return [f"{where} members are {_names(table_names)} in rules/ but {_names(live_names)} in TVM"]
    for row, member in zip(table, live):
        inner = f"{where} member {member.name}"
        problems.extend(_compare_fields(inner, row, member))
        if row.get("members") or member.members:
            problems.extend(_compare_members(inner, row.get("members", ()), member.members))
    return problems


def _names(names: Sequence[str]) -> str:
    return "[" + ", ".join(names) + "]" if names else "none"


def _compare_fields(where: str, row: dict, live: LivePass) -> List[str]:
    problems = []
    if row.get("name", live.name) != live.name:
        problems.append(f"{where} is registered as {live.name!r}, rules/ says {row['name']!r}")
    if "opt_level" in row and int(row["opt_level"]) != live.opt_level:
        problems.append(f"{where} has opt_level {live.opt_level} in TVM, {row['opt_level']} in rules/")
    if "kind" in row and row["kind"] != live.kind:
        problems.append(f"{where} is a {live.kind} pass in TVM, {row['kind']} in rules/")
    if "required" in row and tuple(row["required"]) != live.required:
        problems.append(f"{where} requires {_names(live.required)} in TVM, {_names(row['required'])} in rules/")
    return problems


def verify_passes(snapshot: Snapshot, version: Version) -> List[Difference]:
    differences: List[Difference] = []
    covered = set()
    for entry in pass_rows(version):
        source = entry.get("source", "")
        for api in entry.get("api", ()):
            covered.add(api)
            if not snapshot.module_present(api):
                why = snapshot.modules.get(api.rsplit(".", 1)[0], "it was not looked at")
                differences.append(Difference(api, f"rules/ lists it at {version[0]}.{version[1]}, but its module cannot be imported: {why}", source))
                continue
            live = snapshot.by_api.get(api)
            if live is None:
                differences.append(Difference(api, "rules/ lists it, the installed TVM has no such pass constructor", source))
                continue
            if live.error:
                args = entry.get("build_args")
                how = f" with build_args ({args})" if args else " without arguments (rules/ gives no build_args)"
                differences.append(Difference(api, f"cannot be built{how}: {live.error}", source))
                continue
            problems = _compare_fields(api, entry, live)
            if entry.get("members") or live.members:
                problems += _compare_members(api, entry.get("members", ()), live.members)
            differences.extend(Difference(api, problem, source) for problem in problems)
    for live in snapshot.passes:
        if live.api and live.api not in covered and not covered.intersection(live.aliases):
            state = f"cannot be built: {live.error}" if live.error else f"{live.name}, {live.kind}, opt_level {live.opt_level}"
            differences.append(Difference(live.api, f"the installed TVM has it ({state}); rules/ does not list it"))
    return differences


def verify_configs(snapshot: Snapshot, version: Version) -> List[Difference]:
    differences: List[Difference] = []
    if "__error__" in snapshot.configs:
        return [Difference("PassContext.list_configs()", snapshot.configs["__error__"])]
    listed = set()
    for entry in config_key_rows(version):
        key, source = entry["name"], entry.get("source", "")
        listed.add(key)
        if key not in snapshot.configs:
            if entry.get("backend"):
                continue  # registered only in builds with that backend
            differences.append(Difference(key, "rules/ lists this config key, the installed TVM does not register it", source))
            continue
        expected = entry.get("tvm_type")
        live_type = snapshot.configs[key]
        if expected and live_type and not _same_type(expected, live_type):
            differences.append(Difference(key, f"registered with type {live_type}, rules/ says {expected}", source))
    for key in sorted(set(snapshot.configs) - listed):
        differences.append(Difference(key, f"the installed TVM registers this config key ({snapshot.configs[key]}); rules/ does not list it at {version[0]}.{version[1]}"))
    return differences


def _same_type(table: str, live: str) -> bool:
    # the wheel reports "ffi::String" / "String" / "Bool" / "bool" for the same C++ types
    def norm(text: str) -> str:
        return text.replace("ffi::", "").replace("runtime::", "").lower()

    return norm(table) == norm(live)


def verify_defaults(snapshot: Snapshot, version: Version) -> List[Difference]:
    """The levels a context and a Sequential get when the code gives none."""
    live = snapshot.defaults
    if "error" in live or not live:
        return [Difference("defaults", f"could not be read: {live.get('error', 'not reported')}")]
    level, source = default_opt_level_row()
    differences: List[Difference] = []
    if level != live["pass_context_opt_level"]:
        differences.append(Difference(
            "PassContext()", f"has opt_level {live['pass_context_opt_level']} in TVM, {level} in rules/", source,
        ))
    for entry in sequential_class_rows(version):
        api = entry["api"][0]
        if int(entry["default_opt_level"]) != live["sequential_opt_level"]:
            differences.append(Difference(
                api, f"defaults to opt_level {live['sequential_opt_level']} in TVM, {entry.get('default_opt_level')} in rules/",
                entry.get("source", ""),
            ))
        if entry["default_name"] != live["sequential_name"]:
            differences.append(Difference(
                api, f"defaults to the name {live['sequential_name']!r} in TVM, {entry['default_name']!r} in rules/",
                entry.get("source", ""),
            ))
    return differences


def verify(snapshot: Snapshot, version: Version) -> List[Difference]:
    return verify_passes(snapshot, version) + verify_configs(snapshot, version) + verify_defaults(snapshot, version)
