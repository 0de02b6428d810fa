"""The tables behind TVM104/TVM107/TVM302/TVM401: consistent with each other and with what the rules assume."""

from __future__ import annotations

import pytest

from tvmlint.base.versions import parse_version
from tvmlint.knowledge.registry import (
    config_key_verdict,
    config_keys,
    keys_at,
    pass_name_releases,
    pass_names,
)
from tvmlint.knowledge.releases import known_releases
from tvmlint.knowledge.tables import load_table
from tvmlint.knowledge.target import get_knowledge

RELEASES = [parse_version(r) for r in known_releases()]


def test_every_rename_points_at_a_key_that_follows_it():
    keys = config_keys()
    for key in keys.values():
        if key.renamed_to:
            successor = keys.get(key.renamed_to)
            assert successor is not None, f"{key.name} -> {key.renamed_to}: no such key"
            assert key.until is not None and successor.since is not None, key.name
            assert parse_version(successor.since) <= parse_version(key.until), (key.name, successor.name)


@pytest.mark.parametrize("version", RELEASES, ids=known_releases())
def test_registered_keys_are_never_reported(version):
    assert [k for k in keys_at(version) if config_key_verdict(version, k)] == []


@pytest.mark.parametrize("version", RELEASES, ids=known_releases())
def test_a_reported_key_offers_only_keys_of_the_target(version):
    registered = set(keys_at(version))
    for name in config_keys():
        verdict = config_key_verdict(version, name)
        if verdict is not None and verdict.replacement is not None:
            assert verdict.replacement in registered, (name, verdict)


def test_pass_names_extend_the_pass_table():
    rows = load_table("pass_names.toml").get("name", [])
    assert rows, "pass_names.toml is empty"
    for row in rows:
        assert row.get("source") and row.get("since"), row
    for version in RELEASES:
        assert get_knowledge(version).registered_names() <= pass_names(version)


def test_release_spans_agree_with_the_per_release_sets():
    spans = pass_name_releases()
    for version, text in zip(RELEASES, known_releases()):
        for name in pass_names(version):
            assert text in spans[name]


def test_numerics_facts_name_a_registered_pass_and_key():
    facts = load_table("numerics.toml")
    fast = facts["fast_math"]
    relay = parse_version("0.19")
    assert fast["pass"] in get_knowledge(relay).registered_names()
    runner_members = {m.name for runner in get_knowledge(relay).runners.values() for m in runner.runs}
    assert fast["pass"] in runner_members, "no runner pipeline holds the fast-math pass"
    key = config_keys()[fast["config_key"]]
    assert key.since == fast["config_since"]
    assert set(facts["accumulation"]["low_precision"]) and facts["tvmscript"] and facts["buffer_decl"]


def test_relax_seed_gets_no_fast_math_finding():
    """examples/relax_era/pass_settings.py: opt_level 7 around relax passes, but nothing there contains FastMath."""
    import json

    from helpers import REPO, run_cli

    result = run_cli("check", "examples/relax_era/pass_settings.py", "--format", "json", "--no-cache", cwd=REPO)
    codes = sorted(f["code"] for f in json.loads(result.stdout))
    assert "TVM302" not in codes
    assert {"TVM104", "TVM107", "TVM303"} <= set(codes), codes
