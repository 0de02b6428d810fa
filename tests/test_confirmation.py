"""A rule's confirmation lives beside it (`Rule.confirm`), written against `checks.confirmation.LiveTVM`;
the companion finds it through the rules table. The real `--confirm` runs are in test_companion.py;
these need no TVM: the snapshot is built by hand, so it can say what the installed TVM never would."""

from __future__ import annotations

import sys

from tvmlint.base.diagnostics import Finding, Position
from tvmlint.checks import all_rules, confirming_rules
from tvmlint.checks.confirmation import LiveTVM, Verdict
from tvmlint.companion.confirm import Confirmer
from tvmlint.companion.live import NOT_CHECKABLE, Live
from tvmlint.companion.registry import Snapshot

RELEASE = (0, 27)


def snapshot(*passes: dict) -> Snapshot:
    return Snapshot.from_answer({"python": sys.executable, "location": "/by/hand/tvm", "version": "0.27.0",
                                 "passes": list(passes), "configs": {}})


def finding(code: str, **facts) -> Finding:
    return Finding("by_hand.py", Position(1, 1), Position(1, 9), code, "error", "m", facts={"target": RELEASE, **facts})


def confirmed(snap: Snapshot, *findings: Finding):
    kept, refuted = Confirmer(snap, sys.executable, timeout=5).confirm_all(findings)
    return {f.code: (f.confirmed, f.confirmation) for f in (*kept, *refuted)}


def test_the_companion_finds_a_confirmation_through_the_rules_table(monkeypatch):
    # what the message lists is what the rules write, not a list of codes kept elsewhere
    assert sorted(confirming_rules()) == ["TVM101", "TVM104", "TVM105", "TVM107", "TVM302"]
    verdict = Confirmer(snapshot(), sys.executable, timeout=5).verdict(finding("TVM303"))
    assert verdict.said_once == NOT_CHECKABLE and verdict.confirmed is None
    assert verdict.reason == ("TVM303 is not a rule the pass registry can check "
                              "(those are TVM101, TVM104, TVM105, TVM107 and TVM302)")
    # a rule that writes a confirm is asked, with the installed TVM's facts and nothing else
    seen = []

    def confirm(cls, found, tvm):
        seen.append((cls.code, found.code, type(tvm)))
        return Verdict(True, f"{tvm.tvm} agrees")

    monkeypatch.setattr(all_rules()["TVM303"], "confirm", classmethod(confirm))
    assert "TVM303" in confirming_rules()
    assert confirmed(snapshot(), finding("TVM303")) == {"TVM303": (True, "TVM 0.27.0 agrees")}
    assert seen == [("TVM303", "TVM303", Live)]


def test_a_confirmation_is_given_the_live_facts_and_not_the_session():
    # every public name of what a rule is given is one LiveTVM declares: no snapshot, session or cache
    declared = {name for name in vars(LiveTVM) if not name.startswith("_")}
    given = {name for name in dir(Live) if not name.startswith("_")}
    assert given == declared, given ^ declared
    live = Live(snapshot(), ask=lambda request: {}, target_for=lambda f: None)
    assert {name for name in vars(live) if not name.startswith("_")} == set()


def test_a_snapshot_that_contradicts_the_table_refutes_the_finding():
    wrapper = {"name": "SimplifyInference", "kind": "function", "opt_level": 0, "api": "tvm.x.SimplifyInference"}
    sequential = {"name": "Wrap", "kind": "sequential", "opt_level": 0, "api": "tvm.x.Wrap",
                  "members": [{"name": "Inner", "kind": "function", "opt_level": 2}]}
    said = confirmed(snapshot(wrapper, sequential),
                     finding("TVM105", name="SimplifyInference"), finding("TVM104", name="Inner"))
    assert said["TVM105"] == (False, "the installed TVM 0.27.0 registers 'SimplifyInference' as a function pass, "
                                     "not a Sequential wrapper")
    # a member of a Sequential is a registered pass name too
    assert said["TVM104"] == (False, "the installed TVM 0.27.0 registers a pass named 'Inner' (function, opt_level 2)")
    said = confirmed(snapshot(sequential), finding("TVM105", name="Wrap"), finding("TVM104", name="Nowhere"))
    assert said["TVM105"] == (True, "the installed TVM 0.27.0 builds 'Wrap' as a Sequential of Inner (opt_level 2): "
                                    "the gate checks each member's own name")
    assert said["TVM104"][0] is True and "none of the 1 pass constructors" in said["TVM104"][1]
