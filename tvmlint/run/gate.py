"""The project gate, over a run's files: rules that no file of the run can set off are left out.

What each rule's pattern is, and which rules a text keeps, is the pre-filter wing's
(`tvmlint.prefilter.project_gate`); this module reads the run's files for it. Every run is
gated, down to one file (the pre-commit case): reading the files once more costs far less
than one file libcst need not analyse.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from tvmlint.base.versions import Version
from tvmlint.prefilter.project_gate import matched, patterns
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
            compiled = patterns(selected)
            gated = {pair for pairs in compiled.values() for pair in pairs}
            for earlier in passed:
                gated -= matched(compiled, _read(earlier, texts))
        gated -= matched(compiled, data)
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
