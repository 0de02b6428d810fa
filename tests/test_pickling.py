"""Results cross from workers and the cache as their constructors' arguments."""

from __future__ import annotations

import pickle
import sys
from dataclasses import dataclass, field

import pytest

from tvmlint.analysis.contexts import FromCall, Inherited, PassCtx
from tvmlint.analysis.results import CallFact, Deferred, FileResult
from tvmlint.base.diagnostics import Edit, Finding, Fix, Position
from tvmlint.base.pickling import by_fields
from tvmlint.run.compact import LazyFacts

WHERE = Position(3, 7)


def _finding(message: str = "`tvm.relay` does not exist in TVM 0.27") -> Finding:
    fix = Fix("rename", (Edit(WHERE, Position(3, 12), "relax"),), False)
    return Finding("pkg/a.py", WHERE, Position(3, 12), "TVM201", "error", message, fix, facts=LazyFacts(pickle.dumps({"a": 1})))


def _result() -> FileResult:
    result = FileResult("pkg/a.py", "pkg.a", (0, 27), frozenset({"TVM201"}))
    result.findings = [_finding()]
    result.deferred = [Deferred("TVM101", WHERE, WHERE, FromCall("pkg.a.ctx", Inherited("pkg.a.f"), 4), ("payload", 1))]
    result.callsites = [CallFact("pkg.b.g", PassCtx(3, frozenset(), None, "here", config=(("k", 1),)), 4)]
    result.noqa = {3: frozenset({"TVM201"})}
    return result


def test_round_trip_keeps_every_field():
    result = _result()
    back = pickle.loads(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == result
    assert back.findings[0].fix == result.findings[0].fix
    assert dict(back.findings[0].facts) == {"a": 1}  # not part of equality: compared here
    assert back.deferred[0].ctx.outer == Inherited("pkg.a.f")


@pytest.mark.parametrize("value", [WHERE, _finding(), _result(), _result().deferred[0], _result().callsites[0]])
def test_pickled_as_a_constructor_call(value):
    rebuild, arguments = value.__reduce__()
    assert rebuild is type(value) and rebuild(*arguments) == value


def test_equal_messages_share_one_string_after_unpickling():
    # each file's result is a pickle of its own: without interning every copy stays
    first, second = (pickle.loads(pickle.dumps(_finding("x" * 200 + suffix))) for suffix in ("", ""))
    assert first.message == second.message and first.message is second.message
    assert first.code is second.code


@pytest.mark.skipif(sys.version_info < (3, 11), reason="attributes are kept inline from CPython 3.11")
def test_unpickled_instances_have_no_dictionary_of_their_own():
    import gc

    back = pickle.loads(pickle.dumps(_finding()))
    # a dictionary filled by pickle would be one of the instance's referents
    assert not any(isinstance(ref, dict) for ref in gc.get_referents(back))


def test_fields_left_out_of_init_are_refused():
    with pytest.raises(TypeError, match="__init__"):

        @by_fields
        @dataclass
        class Counted:
            name: str
            count: int = field(default=0, init=False)
