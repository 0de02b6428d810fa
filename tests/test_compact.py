"""What a run keeps of each file's result, and what the cache stores of it."""

from __future__ import annotations

import pickle
from dataclasses import fields

import pytest

from tvmlint.analysis.contexts import Inherited, PassCtx
from tvmlint.analysis.results import CallFact, Deferred, FileResult
from tvmlint.base.diagnostics import Finding, Fix, Position
from tvmlint.run.compact import (
    LazyFacts,
    carries,
    is_placeholder,
    kept,
    mentions_any,
    pack,
    pack_findings,
    project_mentions,
    unpack,
    unpack_findings,
)
from tvmlint.run.engine import Checked
from tvmlint.run.task import Task

VERSION = (0, 19)
CODES = frozenset({"TVM101", "TVM108"})
WHERE = Position(3, 7)
TASK = Task("pkg/a.py", "pkg.a", CODES, VERSION, path="pkg/a.py")
FROM_TASK = {"path", "module_name", "version", "codes"}


def _finding(code: str = "TVM101") -> Finding:
    return Finding("pkg/a.py", WHERE, WHERE, code, "error", "a message", Fix("fix it", (), True))


def _full() -> Checked:
    result = FileResult("pkg/a.py", "pkg.a", VERSION, CODES)
    result.findings = [_finding()]
    result.deferred = [Deferred("TVM108", WHERE, WHERE, Inherited("pkg.a.f"), ("payload", 1))]
    result.callsites = [CallFact("pkg.b.g", PassCtx(3, None, None, "here"), 4)]
    result.escaped = ["pkg.a.h"]
    result.functions = ["pkg.a.f", "pkg.a.h"]
    result.context_returns = {"pkg.a.ctx": [PassCtx(2, frozenset(), frozenset(), "there")]}
    result.noqa = {3: frozenset({"TVM108"})}
    result.defined_passes = ["MyPass"]
    result.runner_entries = {"pkg.a.test_f": PassCtx(2, frozenset(), frozenset(), "a test runner")}
    result.constants = {"DTYPE": ("float16", 3)}
    result.option_defaults = {"parse_args": {"out_dtype": "float16"}}
    return Checked(result, True, "\nos.path\npkg.b.g\n")


def test_pack_and_unpack_give_the_same_result():
    checked = _full()
    assert unpack(pack(checked), TASK) == checked


def test_empty_fields_are_not_stored_and_come_back_empty():
    result = FileResult("pkg/a.py", "pkg.a", VERSION, CODES)
    result.functions = ["pkg.a.f"]
    result.noqa = {1: frozenset({"TVM101"})}  # read only for the file's own findings: none here
    back = unpack(pack(Checked(result, True)), TASK)
    assert back.result.functions == ["pkg.a.f"]
    assert back.result.noqa == {} and back.result.findings == [] and back.mentions == ""
    assert b"pkg.a" not in pack(Checked(FileResult("pkg/a.py", "pkg.a", VERSION, CODES), False))


@pytest.mark.parametrize("name", [f.name for f in fields(FileResult) if f.name not in FROM_TASK | {"noqa"}])
def test_any_finding_or_fact_makes_a_result_worth_keeping(name):
    result = FileResult("pkg/a.py", "pkg.a", VERSION, CODES)
    assert not carries(result)
    setattr(result, name, getattr(_full().result, name))
    assert carries(result)


def test_a_result_that_carries_nothing_is_replaced_by_a_shared_one():
    result = FileResult("pkg/a.py", "pkg.a", VERSION, CODES)
    result.noqa = {2: frozenset({"TVM101"})}
    one = kept(Checked(result, False, "\npkg.helpers.fold\nnumpy.zeros\n"), frozenset({"pkg"}))
    two = kept(Checked(FileResult("pkg/b.py", "pkg.b", VERSION, CODES), True), frozenset({"pkg"}))
    assert is_placeholder(one.result) and one.result is two.result
    assert one.mentions == "\npkg.helpers.fold\n" and not one.analysed and two.analysed
    full = kept(_full(), frozenset({"pkg"}))
    assert not is_placeholder(full.result) and full.result.noqa  # its findings may need it
    facts_only = FileResult("pkg/c.py", "pkg.c", VERSION, CODES)
    facts_only.functions, facts_only.noqa = ["pkg.c.f"], {1: frozenset({"TVM101"})}
    assert kept(Checked(facts_only, True), frozenset({"pkg"})).result.noqa == {}


def test_mentions_keep_only_names_under_the_projects_modules():
    mentions = "\nnumpy.zeros\npkg.helpers.fold\npkgx.f\nrun.main\ntvm.relay.build\n=run.main\n=other.g\n"
    kept_names = project_mentions(mentions, frozenset({"pkg", "run"}))
    assert kept_names == "\npkg.helpers.fold\nrun.main\n=run.main\n"
    assert project_mentions(mentions, frozenset({"elsewhere"})) == ""
    assert mentions_any(kept_names, {"run.main", "x"})
    assert mentions_any(kept_names, defined={"run.main"})
    assert not mentions_any(kept_names, {"pkg.helpers", "pkg.helpers.fold.x", ""})
    assert not mentions_any(kept_names, defined={"pkg.helpers.fold"})  # named, not defined here
    assert not mentions_any("", {""})


def test_a_kept_runs_facts_are_read_only_when_asked():
    facts = {"payload": ("members", 3), "ctx": PassCtx(2, None, None, "here"), "target": VERSION}
    findings = [Finding("a.py", WHERE, WHERE, "TVM101", "error", "m", facts=facts), _finding("TVM108")]
    back, analysed = unpack_findings(pack_findings(findings, 7))
    assert analysed == 7 and back == findings
    lazy = back[0].facts
    assert isinstance(lazy, LazyFacts) and lazy._data is None
    assert dict(lazy) == facts and back[1].facts is None
    again = pickle.loads(pickle.dumps(lazy))
    assert dict(again) == facts
    assert unpack_findings(pack_findings(back, 7))[0] == findings  # kept again as they are


def _copied(checked: Checked) -> Checked:
    return pickle.loads(pickle.dumps(checked))  # as a result crosses from a worker: every value its own


def test_kept_results_share_equal_codes_versions_and_contexts():
    first, second = _copied(_full()), _copied(_full())
    assert first.result.codes is not second.result.codes
    first, second = kept(first, {"pkg"}).result, kept(second, {"pkg"}).result
    assert first.codes is second.codes and first.version is second.version
    assert first.callsites[0].ctx is second.callsites[0].ctx and first.deferred[0].ctx is second.deferred[0].ctx
    assert first.findings == [_finding()] and first.functions == ["pkg.a.f", "pkg.a.h"]


def test_kept_results_with_nothing_deferred_share_their_empty_fields():
    only_calls, deferring = _copied(_full()), _copied(_full())
    only_calls.result.deferred, only_calls.result.findings, only_calls.result.escaped = [], [], []
    deferring.result.findings = []
    calls, waiting = kept(only_calls, {"pkg"}).result, kept(deferring, {"pkg"}).result
    assert calls.findings == () and calls.escaped == () and dict(calls.noqa) == {}
    # a result whose deferred findings the project step may still settle keeps a list to add to
    assert waiting.findings == [] and isinstance(waiting.findings, list)
