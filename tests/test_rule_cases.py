"""Every rule's own VALID and INVALID cases, run through the real engine."""

from __future__ import annotations

import pytest
from helpers import CASE_TARGET, check_tree
from test_messages import shape_problems

from tvmlint.analysis.edits import apply_edits
from tvmlint.checks import all_rules
from tvmlint.checks.rule import Case


def _as_case(case) -> Case:
    return case if isinstance(case, Case) else Case(case)


def _cases(kind: str):
    for code, rule in all_rules().items():
        for index, case in enumerate(getattr(rule, kind)):
            yield pytest.param(code, _as_case(case), id=f"{code}-{kind.lower()}-{index}")


@pytest.mark.parametrize("code, case", list(_cases("VALID")))
def test_valid(tmp_path, code, case):
    findings = check_tree(tmp_path, {case.path: case.code, **case.files}, select=[code, *case.beside], target=case.target or CASE_TARGET)
    assert [f for f in findings if f.code == code] == []


@pytest.mark.parametrize("code, case", list(_cases("INVALID")))
def test_invalid(tmp_path, code, case):
    findings = check_tree(tmp_path, {case.path: case.code, **case.files}, select=[code, *case.beside], target=case.target or CASE_TARGET)
    found = [f for f in findings if f.code == code]
    assert len(found) == case.count, [f.message for f in found]
    # one sentence of at most LONGEST characters, with the detail beside it (test_messages)
    assert [problem for f in found for problem in shape_problems(code, f)] == []
    if case.expect:
        for finding in found:
            assert case.expect in finding.message, finding.message
    if case.detail:
        for finding in found:
            assert case.detail in finding.detail, finding.detail
    if case.fixed is not None:
        edits = [edit for f in found if f.path == case.path and f.fix for edit in f.fix.edits]
        assert edits, "the case expects a fix but none was offered"
        assert apply_edits(case.code, edits) == case.fixed


def test_every_rule_has_cases_and_docs():
    from tvmlint.knowledge.catalog import load_catalog

    catalog = load_catalog()
    for code, rule in all_rules().items():
        assert code in catalog, f"{code} has no rules/catalog/{code}.toml"
        assert rule.VALID and rule.INVALID, f"{code} needs valid and invalid cases"
        info = catalog[code]
        assert info.what and info.why and info.example and info.instead, f"{code} docs are incomplete"
    assert set(catalog) <= set(all_rules()), "a catalog entry has no rule"
