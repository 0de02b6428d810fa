"""A finding's pass tree as the installed TVM has it, for the rules' confirmations.

The tree a rule judged holds each pass's level from the tables at the finding's release;
rebuilt here, each pass TVM registers carries its own level and members instead, so the
gate (`contexts.gate`) can be asked again with TVM's facts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, List, Optional, Set, Tuple

from tvmlint.analysis.contexts import Gated, and_list
from tvmlint.knowledge.target import get_knowledge

if TYPE_CHECKING:
    from tvmlint.base.versions import Version
    from tvmlint.checks.confirmation import LiveTVM, RegisteredPass


def live_gated(live: RegisteredPass, label: Optional[str] = None) -> Gated:
    return Gated(live.name, live.opt_level, tuple(live_gated(m) for m in live.members), label)


def levels(members: Iterable[Gated]) -> str:
    shown = dict.fromkeys(f"{m.name} (opt_level {m.opt_level})" for m in members)  # a pass nested twice, once
    return and_list(shown)


def flatten(members: Iterable[Gated]) -> List[Gated]:
    out: List[Gated] = []
    for member in members:
        out.append(member)
        out.extend(flatten(member.children))
    return out


class LiveTree:
    """A finding's pass tree with each registered pass's level and members as the installed TVM has them."""

    def __init__(self, tvm: LiveTVM, target: Optional[Version], members: Tuple[Gated, ...]):
        self.tvm = tvm
        self.known = get_knowledge(target).registered_names() if target else frozenset()
        self.missing: List[str] = []  # names tvmlint knows for the target that TVM does not register
        self.from_tvm: Set[str] = set()
        self.tree = self.rebuild(members)

    def rebuild(self, members: Tuple[Gated, ...]) -> Tuple[Gated, ...]:
        out = []
        for member in members:
            if member.label == "Sequential":  # built in the checked code: its own level stands
                out.append(Gated(member.name, member.opt_level, self.rebuild(member.children), member.label))
                continue
            live = self.tvm.by_name.get(member.name)
            if live is None:
                if member.name in self.known:
                    self.missing.append(member.name)
                out.append(member)  # defined in the checked code
                continue
            self.from_tvm.update(found.name for found in live.walk())
            out.append(live_gated(live, member.label))
        return tuple(out)
