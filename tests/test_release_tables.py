"""versions.toml's newest release is the highest release any table of rules/ names, and every
release a table names is one versions.toml knows: a table regenerated for a newer release without
versions.toml (or versions.toml moved on without the tables) fails here. How a release is added:
CONTRIBUTING, "Adding a TVM release" (tools/add_release.py)."""

from __future__ import annotations

import re

import tomllib
from helpers import REPO

# the keys whose value is a release ("MAJOR.MINOR") or a list of them, in every table
RELEASE_KEYS = ("release", "since", "removed", "until", "back", "deprecated", "new_since", "config_since",
                "identical_in", "version")
# a fact cited from a tag: "v0.26.0:python/tvm/..."
CITED_TAG = re.compile(r"\bv(\d+)\.(\d+)\.\d+:")


def _named_releases(value, where: str, out: list, cited: list) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in RELEASE_KEYS:
                for release in inner if isinstance(inner, list) else [inner]:
                    if isinstance(release, str) and re.fullmatch(r"\d+\.\d+", release):
                        out.append((release, f"{where}.{key}"))
            _named_releases(inner, f"{where}.{key}", out, cited)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _named_releases(inner, f"{where}[{index}]", out, cited)
    elif isinstance(value, str):
        cited.extend((f"{major}.{minor}", where) for major, minor in CITED_TAG.findall(value))


def _as_tuple(text: str):
    return tuple(int(part) for part in text.split("."))


def release_problems(tables: dict) -> list:
    """What is wrong between versions.toml and the other tables ({name: parsed table})."""
    versions = tables["versions.toml"]
    known = versions["releases"]
    problems = []
    if known != sorted(known, key=_as_tuple) or versions["newest"] != known[-1]:
        problems.append(f"versions.toml: releases not oldest first, or newest {versions['newest']} not the last of them")
    named, cited = [], []
    for name, table in tables.items():
        if name != "versions.toml":
            _named_releases(table, name, named, cited)
    problems += [f"{where} names {release}, which versions.toml does not know" for release, where in named if release not in known]
    problems += [f"{where} cites a tag of {release}, past the newest release" for release, where in cited
                 if _as_tuple(release) > _as_tuple(versions["newest"])]
    highest = max((release for release, _ in named), key=_as_tuple, default=None)
    if highest != versions["newest"]:
        problems.append(f"the highest release a table names is {highest}, versions.toml's newest is {versions['newest']}")
    return problems


def _tables() -> dict:
    return {path.relative_to(REPO / "rules").as_posix(): tomllib.loads(path.read_text(encoding="utf-8"))
            for path in sorted((REPO / "rules").rglob("*.toml"))}


def test_the_newest_release_is_the_highest_any_table_names_and_every_named_release_is_known():
    tables = _tables()
    named, cited = [], []
    for name, table in tables.items():
        _named_releases(table, name, named, cited)
    assert len(named) > 1000 and len(cited) > 1000  # the walk does reach the tables' releases and citations
    assert release_problems(tables) == []


def test_versions_moved_on_without_the_tables_fails():
    tables = _tables()
    versions = tables["versions.toml"]
    newest = versions["newest"]
    versions["releases"] = [*versions["releases"], "0.99"]
    versions["newest"] = "0.99"
    assert release_problems(tables) == [f"the highest release a table names is {newest}, versions.toml's newest is 0.99"]


def test_a_table_regenerated_for_a_newer_release_without_versions_fails():
    tables = _tables()
    newest = tables["versions.toml"]["newest"]
    pipelines = tables["pipelines.toml"]["pipeline"]
    pipelines.append(dict(pipelines[-1], release="0.99", source="v0.99.0:python/tvm/relax/pipeline.py#L1"))
    where = f"pipelines.toml.pipeline[{len(pipelines) - 1}]"
    assert release_problems(tables) == [
        f"{where}.release names 0.99, which versions.toml does not know",
        f"{where}.source cites a tag of 0.99, past the newest release",
        f"the highest release a table names is 0.99, versions.toml's newest is {newest}",
    ]
