"""The project gate, over a run's files: rules that no file of the run can set off are left out.

What each rule's pattern is, and which rules a text keeps, is the pre-filter wing's
(`tvmlint.prefilter.project_gate`); this module reads the run's files for it. Every run is
gated, down to one file (the pre-commit case): reading the files once more costs far less
than one file libcst need not analyse.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from tvmlint.base.versions import Version
from tvmlint.prefilter.project_gate import Patterns, matched, patterns
from tvmlint.run.config import SettingsResolver
from tvmlint.run.discovery import is_regular_file
from tvmlint.run.words import Words


def withheld_codes(
    paths: Iterable[str], resolver: SettingsResolver, texts: Optional[Dict[str, str]] = None,
    words: Optional[Words] = None,
) -> Dict[Version, FrozenSet[str]]:
    """For each target release in the run, the selected codes whose pattern no file matches.
    `texts`: path -> an editor's buffer, read in place of its file. `words`: the run's words
    (tvmlint.run.words), with its result cache: an unchanged file's answers are read there."""
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
    passed: List[_File] = []
    for path in paths:
        file = _File(path, texts, words, resolver.is_regular_file)
        if compiled is None:
            named = file.holds_any(roots)
            if not named:
                if named is not None:
                    passed.append(file)
                continue
            compiled = patterns(selected)
            gated = {pair for pairs in compiled.values() for pair in pairs}
            for earlier in passed:
                gated -= earlier.matched(compiled)
        gated -= file.matched(compiled)
        if not compiled:
            break
    withheld: Dict[Version, Set[str]] = {}
    for version, code in gated:
        withheld.setdefault(version, set()).add(code)
    return {version: frozenset(codes) for version, codes in withheld.items()}


class _File:
    """One file as the gate asks of it: read at most once, and not at all when the result
    cache knows the answers for its content (a buffer is always its text)."""

    def __init__(self, path: str, texts: Optional[Dict[str, str]], words: Optional[Words],
                 is_regular: Callable[[str], bool] = is_regular_file):
        self.path = path
        self.is_regular = is_regular
        self.buffer = texts.get(path) if texts else None
        self.words = words if self.buffer is None else None
        cache = words.cache if words is not None else None
        self.cache = cache if self.buffer is None else None
        self.digest = words.digests.get(path) if self.cache is not None else None
        self._data: Optional[bytes] = None
        self._read = False
        self._regular: Optional[bool] = None

    def regular(self) -> bool:
        if self._regular is None:
            self._regular = self.buffer is not None or self.is_regular(self.path)
        return self._regular

    def data(self) -> Optional[bytes]:
        if not self._read:
            self._data, self._read = _read(self.path, {self.path: self.buffer} if self.buffer is not None else None), True
        return self._data

    def holds_any(self, needles: List[bytes]) -> Optional[bool]:
        """Whether one of `needles` is in the file; None when it is not read (not a regular
        file: a FIFO would block the read; a link is read where it leads, by its own task)."""
        if not self.regular():
            return None
        if self.words is not None and self.digest is not None:
            return self.words.holds_any(self.path, needles)
        data = self.data()
        return None if data is None else any(needle in data for needle in needles)

    def matched(self, compiled: Patterns) -> Set[Tuple[Version, str]]:
        """`project_gate.matched`, each pattern's answer for this content kept in the cache."""
        if self.cache is None or self.digest is None or not self.regular():
            return matched(compiled, self.data())
        kept: Set[Tuple[Version, str]] = set()
        for pattern in list(compiled):
            question = _question(pattern)
            answer = self.cache.get_fact(self.digest, question)
            if answer is None:
                data = self.data()
                if data is None:
                    continue
                answer = pattern.search(data) is not None
                self.cache.put_fact(self.digest, question, answer)
            if answer:
                kept |= compiled.pop(pattern)
        return kept


@functools.lru_cache(maxsize=None)
def _question(pattern: "re.Pattern[bytes]") -> str:
    return "gate " + hashlib.blake2b(pattern.pattern, digest_size=16).hexdigest()


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
