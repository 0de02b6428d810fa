"""A pass named as users write it, found in the installed TVM's registry snapshot.

`tvm.relax.transform.CanonicalizeBindings`, `relax.transform.CanonicalizeBindings`,
`transform.CanonicalizeBindings`, `CanonicalizeBindings` and the name the pass registers
(what `required_pass` and `disabled_pass` take, which may differ from its constructor's)
all name one pass: every name-taking option of `tvmlint registry` reads them alike. A name
that names nothing is answered with the closest names the registry has (difflib).
"""

from __future__ import annotations

import difflib
from typing import Iterable, Iterator, List, Sequence, Set

from tvmlint.companion.registry import LivePass, Snapshot


def _paths(live: LivePass) -> Iterator[str]:
    for api in (live.api, *live.aliases):
        if api:
            yield api


def spellings(live: LivePass) -> Set[str]:
    """Every way of writing the pass: its API paths, each with leading packages left off
    (`relax.transform.X`, `transform.X`, `X`), and its registered name."""
    found = {live.name} if live.name else set()
    for api in _paths(live):
        parts = api.split(".")
        found.update(".".join(parts[start:]) for start in range(len(parts)))
    return found


def find(snapshot: Snapshot, wanted: str) -> List[LivePass]:
    """The passes `wanted` names: constructors first; else the members of a Sequential that
    register that name (a pass no constructor of its own builds)."""
    wanted = wanted.strip()
    if not wanted:
        return []
    exact = [live for live in snapshot.passes if wanted in spellings(live)]
    if exact:
        return exact
    return [live for live in snapshot.passes if not live.error and any(m.name == wanted for m in live.walk())]


def registered_name(snapshot: Snapshot, wanted: str) -> str:
    """The name PassContext's required_pass/disabled_pass compare with; NameNotFound when
    the registry has no such pass, ambiguous when two passes of different names answer."""
    found = find(snapshot, wanted)
    names = sorted({member.name for live in found for member in live.walk() if wanted.strip() in spellings(member)})
    if not names:
        raise NameNotFound(unknown(snapshot, wanted))
    if len(names) > 1:
        raise NameNotFound(f"{wanted!r} names several passes ({', '.join(names)}): give one")
    return names[0]


class NameNotFound(ValueError):
    """A pass name the registry does not have; the message names the closest ones."""


def _vocabulary(snapshot: Snapshot, wanted: str) -> Set[str]:
    # compare like with like: `FuseTIRR` with bare names, `relax.transform.FuseTIRR` with paths
    # of as many parts
    depth = wanted.count(".")
    words: Set[str] = set()
    for live in snapshot.passes:
        for member in live.walk():
            if member.name and depth == 0:
                words.add(member.name)
            for api in _paths(member):
                parts = api.split(".")
                if depth < len(parts):
                    words.add(".".join(parts[len(parts) - depth - 1:]))
    return words


def closest(snapshot: Snapshot, wanted: str, others: Iterable[str] = ()) -> List[str]:
    """The registry's names nearest to `wanted`, best first (with `others`, such as pipeline names)."""
    return difflib.get_close_matches(wanted.strip(), sorted(_vocabulary(snapshot, wanted) | set(others)), n=5, cutoff=0.6)


def unknown(snapshot: Snapshot, wanted: str, others: Sequence[str] = ()) -> str:
    near = closest(snapshot, wanted, others)
    hint = f"; the closest: {', '.join(near)}" if near else ""
    return f"the installed {snapshot.describe} has no pass {wanted!r}{hint}"
