"""The project gate: rules that no file of a run can set off are left out of it.

Some rules report only under a context written out as a literal that nothing
else can stand for (`Rule.project_pattern`: TVM302 at a target where no
pipeline holds FastMath needs a config dict that sets tirx.enable_fast_math to
True). A helper that calls `tvm.compile` can be reported only when a caller
somewhere writes that, so the cheap stage cannot leave the helper's file out on
its own: it sees one file. The run can: when no file of it matches, the rule
cannot fire anywhere and its files need not go to libcst for it. Every run is
gated, down to one file (the pre-commit case): reading the files once more costs
far less than one file libcst need not analyse.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from tvmlint.base.versions import Version
from tvmlint.run.config import SettingsResolver
from tvmlint.run.discovery import is_regular_file


def withheld_codes(
    paths: Iterable[str], resolver: SettingsResolver, texts: Optional[Dict[str, str]] = None,
) -> Dict[Version, FrozenSet[str]]:
    """For each target release in the run, the selected codes whose pattern no file matches.
    `texts`: path -> an editor's buffer, read in place of its file."""
    paths = list(paths)
    selected: Dict[Version, Set[str]] = {}
    for path in paths:
        settings = resolver.for_path(path)
        selected.setdefault(settings.target_version, set()).update(settings.codes_for(path))
    # The rules (and their patterns) are imported once a file names TVM: a run of files that
    # never do, a script's pre-commit hook, need not import them at all. Files read before
    # that are searched then.
    roots = [root.encode() for version in selected for root in _roots(version)]
    compiled = None
    gated: Set[Tuple[Version, str]] = set()
    passed: List[str] = []
    for path in paths:
        data = _read(path, texts)
        if data is None:
            continue
        if compiled is None:
            if not any(root in data for root in roots):
                passed.append(path)
                continue
            compiled = _patterns(selected)
            gated = {pair for pairs in compiled.values() for pair in pairs}
            for earlier in passed:
                gated -= _matched(compiled, _read(earlier, texts))
        gated -= _matched(compiled, data)
        if not compiled:
            break
    withheld: Dict[Version, Set[str]] = {}
    for version, code in gated:
        withheld.setdefault(version, set()).add(code)
    return {version: frozenset(codes) for version, codes in withheld.items()}


def _roots(version: Version) -> FrozenSet[str]:
    from tvmlint.analysis.used_names import roots_of
    from tvmlint.knowledge.target import get_knowledge

    return roots_of(get_knowledge(version))


def _read(path: str, texts: Optional[Dict[str, str]] = None) -> Optional[bytes]:
    if texts and path in texts:
        return texts[path].encode("utf-8", "surrogatepass")
    if not is_regular_file(path):
        return None  # a FIFO would block the read; a link is read where it leads, by its own task
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None  # a file that cannot be read writes no context


def _matched(compiled: Dict["re.Pattern[bytes]", Set[Tuple[Version, str]]], data: Optional[bytes]) -> Set[Tuple[Version, str]]:
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
    compiled = _patterns({version: set(codes)})
    data = text.encode("utf-8", "surrogateescape")
    return frozenset(code for pattern, pairs in compiled.items() if not pattern.search(data) for _, code in pairs)


def _patterns(selected: Dict[Version, Set[str]]) -> Dict["re.Pattern[bytes]", Set[Tuple[Version, str]]]:
    """Each selected rule's project pattern, compiled, with the (release, code) pairs it keeps."""
    from tvmlint.checks import all_rules
    from tvmlint.knowledge.target import get_knowledge

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
