"""The project gate: rules that no file of a run can set off are left out of it.

Some rules report only under a context written out as a literal that nothing
else can stand for (`Rule.project_pattern`: TVM302 at a target where no
pipeline holds FastMath needs a config dict that sets tirx.enable_fast_math to
True). A helper that calls `tvm.compile` can be reported only when a caller
somewhere writes that, so the cheap stage cannot leave the helper's file out on
its own: it sees one file. The run can: when no file of it matches, the rule
cannot fire anywhere and its files need not go to libcst for it. Reading every
file once more only pays in a large run.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, Iterable, Set, Tuple

from tvmlint.config import SettingsResolver
from tvmlint.discovery import is_regular_file
from tvmlint.versions import Version

# below this many files a run reads too little for the gate to save anything
MIN_FILES = 50


def withheld_codes(paths: Iterable[str], resolver: SettingsResolver) -> Dict[Version, FrozenSet[str]]:
    """For each target release in the run, the selected codes whose pattern no file matches."""
    paths = list(paths)
    selected: Dict[Version, Set[str]] = {}
    for path in paths:
        settings = resolver.for_path(path)
        selected.setdefault(settings.target_version, set()).update(settings.codes_for(path))
    compiled = _patterns(selected)
    gated = {pair for pairs in compiled.values() for pair in pairs}
    for path in paths:
        if not compiled:
            break
        if not is_regular_file(path):
            continue  # a FIFO would block the read; a link is read where it leads, by its own task
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue  # a file that cannot be read writes no context
        for pattern in [pattern for pattern in compiled if pattern.search(data)]:
            gated -= compiled.pop(pattern)
    withheld: Dict[Version, Set[str]] = {}
    for version, code in gated:
        withheld.setdefault(version, set()).add(code)
    return {version: frozenset(codes) for version, codes in withheld.items()}


def withheld_in(text: str, codes: FrozenSet[str], version: Version) -> FrozenSet[str]:
    """The codes no context in this one buffer can set off: for the editor and stdin, where
    contexts are followed within the buffer only, it is the whole project."""
    compiled = _patterns({version: set(codes)})
    data = text.encode("utf-8", "surrogateescape")
    return frozenset(code for pattern, pairs in compiled.items() if not pattern.search(data) for _, code in pairs)


def _patterns(selected: Dict[Version, Set[str]]) -> Dict["re.Pattern[bytes]", Set[Tuple[Version, str]]]:
    """Each selected rule's project pattern, compiled, with the (release, code) pairs it keeps."""
    from tvmlint.checks import all_rules
    from tvmlint.knowledge import get_knowledge

    rules = all_rules()
    patterns: Dict[str, Set[Tuple[Version, str]]] = {}
    for version, codes in selected.items():
        knowledge = get_knowledge(version)
        for code in codes:
            rule = rules.get(code)
            pattern = rule.project_pattern(knowledge) if rule is not None else None
            if pattern is not None:
                patterns.setdefault(pattern, set()).add((version, code))
    return {re.compile(pattern.encode()): pairs for pattern, pairs in patterns.items()}
