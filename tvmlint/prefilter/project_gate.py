"""The project gate's patterns: rules that no file of a run can set off leave the run.

Some rules report only under a context written out as a literal that nothing else can
stand for (`Prefilter.project_pattern`: TVM302 at a target where no pipeline holds
FastMath needs a config dict that sets tirx.enable_fast_math to True). A helper that calls
`tvm.compile` can be reported only when a caller somewhere writes that, so a file alone
cannot leave the helper's file out; the run can (`tvmlint.run.gate` reads its files and
asks here): when no file of it matches, the rule cannot fire anywhere.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, Optional, Set, Tuple

from tvmlint.base.versions import Version

Patterns = Dict["re.Pattern[bytes]", Set[Tuple[Version, str]]]


def patterns(selected: Dict[Version, Set[str]]) -> Patterns:
    """Each selected rule's project pattern, compiled, with the (release, code) pairs it keeps."""
    from tvmlint.checks import all_rules
    from tvmlint.knowledge.target import get_knowledge
    from tvmlint.prefilter.view import view_of

    rules = all_rules()
    found: Dict[str, Set[Tuple[Version, str]]] = {}
    for version, codes in selected.items():
        knowledge = get_knowledge(version)
        for code in codes:
            rule = rules.get(code)
            pattern = view_of(rule, knowledge).project_pattern if rule is not None else None
            if pattern is not None:
                found.setdefault(pattern, set()).add((version, code))
    return {re.compile(pattern.encode()): pairs for pattern, pairs in found.items()}


def matched(compiled: Patterns, data: Optional[bytes]) -> Set[Tuple[Version, str]]:
    """The (release, code) pairs `data` keeps in the run; their patterns are searched no more."""
    kept: Set[Tuple[Version, str]] = set()
    if data is None:
        return kept
    for pattern in [pattern for pattern in compiled if pattern.search(data)]:
        kept |= compiled.pop(pattern)
    return kept


def withheld_in(text: str, codes: FrozenSet[str], version: Version) -> FrozenSet[str]:
    """The codes no context in this one buffer can set off: for the editor and stdin, where
    contexts are followed within the buffer only, it is the whole project."""
    compiled = patterns({version: set(codes)})
    data = text.encode("utf-8", "surrogateescape")
    return frozenset(code for pattern, pairs in compiled.items() if not pattern.search(data) for _, code in pairs)
