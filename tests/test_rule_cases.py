"""Every rule's own VALID and INVALID cases, run through the real engine, and the catalog's two fix
axes held to them through the real `tvmlint fix`."""

from __future__ import annotations

import pytest
from helpers import CASE_TARGET, check_tree, run_main, write_tree
from test_messages import shape_problems

from tvmlint.analysis.edits import apply_edits
from tvmlint.checks import all_rules
from tvmlint.checks.rule import Case, Invalid, Valid


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


def test_a_case_block_is_dedented_and_shares_its_head_with_its_fixed_form():
    case = Invalid("import tvm\n", """
        if ready:
            x = 1  # kept
    """, fixed="""
        x = 2
    """, files={"other.py": """
        y = 3
    """})
    assert (case.code, case.fixed, case.files) == (
        "import tvm\nif ready:\n    x = 1  # kept\n", "import tvm\nx = 2\n", {"other.py": "y = 3\n"})
    assert Valid("x = 1\n").code == "x = 1\n"  # an ordinary string is a block with nothing to strip
    with pytest.raises(TypeError, match="expect"):
        Valid("x = 1\n", expect="nothing")  # a valid case reports nothing


def _fixes(root, code: str, case: Case, unsafe: bool) -> bool:
    """Whether `tvmlint fix` changes the case's files, with only this rule's fixes applied."""
    files = {case.path: case.code, **case.files}
    write_tree(root, files)
    flags = ["--unsafe-fixes"] if unsafe else []
    done = run_main("fix", "--no-cache", "--select", ",".join([code, *case.beside]), "--fixable", code,
                    "--target-version", case.target or CASE_TARGET, *flags, ".", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    return any((root / name).read_text(encoding="utf-8") != text for name, text in files.items())


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_fix_axes_hold_on_the_cases(tmp_path, code):
    """The catalog's two fix axes (ruff's availability and safety), held to the rule's INVALID
    cases through the real `tvmlint fix`: "always", every case is fixed; "never", none is;
    "sometimes", some are and some are not. "safe", each fixed case is fixed without
    --unsafe-fixes; "unsafe", only with it; "mixed", some of each."""
    from tvmlint.knowledge.catalog import rule_info

    info = rule_info(code)
    safe, unsafe, unfixed = [], [], []
    for index, case in enumerate(all_rules()[code].INVALID):
        name = f"{code}-invalid-{index}"
        if _fixes(tmp_path / name / "plain", code, case, unsafe=False):
            safe.append(name)
        elif _fixes(tmp_path / name / "unsafe", code, case, unsafe=True):
            unsafe.append(name)
        else:
            unfixed.append(name)
    fixed = safe + unsafe
    availability = {"always": unfixed == [], "never": fixed == [], "sometimes": bool(fixed) and bool(unfixed)}
    assert availability[info.fix_availability], (
        f"fix_availability = {info.fix_availability!r}, but fixed: {fixed}, not fixed: {unfixed}")
    if fixed:
        safety = {"safe": unsafe == [], "unsafe": safe == [], "mixed": bool(safe) and bool(unsafe)}
        assert safety[info.fix_safety], (
            f"fix_safety = {info.fix_safety!r}, but fixed without --unsafe-fixes: {safe}, only with it: {unsafe}")


def test_rules_doc_shows_each_rules_fix_axes():
    # docs/rules.md's table: every rule, with the catalog's two axes as users read them
    import re

    from helpers import REPO

    from tvmlint.knowledge.catalog import load_catalog

    table = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    shown = dict(re.findall(r"^\| (TVM\d{3}) \| [^|]+ \| (?:yes|no) \| ([^|]+?) \|", table, re.M))
    assert shown == {code: ", ".join(filter(None, (info.fix_availability, info.fix_safety)))
                     for code, info in load_catalog().items()}


def test_every_rule_has_cases_and_docs():
    from tvmlint.knowledge.catalog import load_catalog

    catalog = load_catalog()
    for code, rule in all_rules().items():
        assert code in catalog, f"{code} has no rules/catalog/{code}.toml"
        assert rule.VALID and rule.INVALID, f"{code} needs valid and invalid cases"
        info = catalog[code]
        assert info.what and info.why and info.example and info.instead, f"{code} docs are incomplete"
    assert set(catalog) <= set(all_rules()), "a catalog entry has no rule"
