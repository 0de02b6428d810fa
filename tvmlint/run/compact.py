"""What a run keeps of each file's result until its end, and what the cache stores of it.

A run holds every file's `Checked` (tvmlint.run.engine) until the project step, and
most files of a large tree carry nothing for it: no finding, no deferred
finding, no fact the cross-module step reads. Those keep only what the later
rounds ask (whether libcst saw the file, the names it mentions), and only the
names that can be a project function, so a run's memory grows with what it
found rather than with the files it read.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from dataclasses import MISSING, fields, replace
from types import MappingProxyType
from typing import AbstractSet, Any, Dict, FrozenSet, Iterable, Iterator, List, Tuple

from tvmlint.analysis.results import FileResult
from tvmlint.base.diagnostics import Finding
from tvmlint.base.versions import Version
from tvmlint.run.engine import UNKNOWN_MENTIONS, Checked

# FileResult fields every task fixes (and every cache key covers): rebuilt, never stored
_FROM_TASK = ("path", "module_name", "version", "codes")
# read only for a file's own findings and deferred findings
_NOQA = "noqa"


def carries(result: FileResult) -> bool:
    """Whether the end of the run reads anything of this result: a finding, a deferred
    finding, or a fact of the project step (functions, calls, returned contexts...)."""
    return any(getattr(result, f.name) for f in fields(result) if f.name not in _FROM_TASK and f.name != _NOQA)


_EMPTY: Dict[Tuple[Version, FrozenSet[str]], FileResult] = {}
# One instance of each value many files share: each result crosses from a worker with
# its own copy of the selected codes (a set of twenty strings) and of its version.
_SHARED: Dict[Any, Any] = {}


_NONE: Mapping = MappingProxyType({})
_MAPPINGS = ("context_returns", "noqa", "runner_entries", "constants", "option_defaults")
_CONTAINERS = ("findings", "deferred", "callsites", "escaped", "functions", "defined_passes") + _MAPPINGS


def _shared(value: Any) -> Any:
    try:
        return _SHARED.setdefault(value, value)
    except TypeError:  # a value holding a list or a dict (a context's config) stays its own
        return value


def kept(checked: Checked, roots: AbstractSet[str]) -> Checked:
    """What a run holds of a file until its end: a result that carries nothing is replaced
    by one shared empty result (never handed to the project step), and the mentions keep
    only names under `roots`, the project's top-level modules."""
    result = checked.result
    mentions = checked.mentions
    if mentions and mentions != UNKNOWN_MENTIONS:
        mentions = project_mentions(mentions, roots)
    if not carries(result):
        shared = (_shared(result.version), _shared(result.codes))
        if shared not in _EMPTY:
            _EMPTY[shared] = FileResult("", "", *shared)
        return replace(checked, result=_EMPTY[shared], mentions=mentions)
    result.version, result.codes = _shared(result.version), _shared(result.codes)
    for fact in (*result.deferred, *result.callsites):
        fact.ctx = _shared(fact.ctx)  # most are the same context: the default one, or a caller's
    if not (result.findings or result.deferred):
        result.noqa = _NONE
    if not result.deferred:
        # nothing adds to a result once its deferred findings are settled: empty fields can share
        for name in _CONTAINERS:
            if not getattr(result, name):
                setattr(result, name, _NONE if name in _MAPPINGS else ())
    return replace(checked, mentions=mentions) if mentions != checked.mentions else checked


def is_placeholder(result: FileResult) -> bool:
    """Whether `result` is the shared empty one `kept` put in place of a result that carried nothing."""
    return _EMPTY.get((result.version, result.codes)) is result


def project_mentions(mentions: str, roots: AbstractSet[str]) -> str:
    """Of tvmlint.analysis.used_names.mentions' lines, those naming what can be a function of the project's
    own: a helper is a function some checked file defines, so it lives under one of their roots.
    (A line `=name` says the module defines `name`.)"""
    lines = [line for line in mentions.split("\n") if line and line.lstrip("=").partition(".")[0] in roots]
    return "\n" + "\n".join(lines) + "\n" if lines else ""


def mentions_any(mentions: str, names: AbstractSet[str] = frozenset(), defined: AbstractSet[str] = frozenset()) -> bool:
    """Whether a module (its tvmlint.analysis.used_names.mentions) names any of `names`, or defines any of
    `defined` (a line `=name`): one set lookup per line, where a substring search per name
    and file took seconds on a large tree."""
    for line in mentions.split("\n"):
        if line and (line in names or (line[0] == "=" and line[1:] in defined)):
            return True
    return False


def _stored(instance, skip: Iterable[str]) -> Dict[str, Any]:
    """The fields of a dataclass instance that differ from their defaults."""
    out = {}
    for f in fields(instance):
        if f.name in skip:
            continue
        value = getattr(instance, f.name)
        if f.default is not MISSING and value == f.default:
            continue
        if f.default_factory is not MISSING and value == f.default_factory():
            continue
        out[f.name] = value
    return out


def pack(checked: Checked) -> bytes:
    """A file's result for the cache: the fields its task does not fix, and not the empty ones."""
    result = checked.result
    skip = _FROM_TASK if result.findings or result.deferred else _FROM_TASK + (_NOQA,)
    return pickle.dumps((_stored(checked, ("result",)), _stored(result, skip)), protocol=pickle.HIGHEST_PROTOCOL)


def unpack(blob: bytes, task) -> Checked:
    outer, inner = pickle.loads(blob)
    result = FileResult(task.shown, task.module_name, task.version, task.codes, **inner)
    return Checked(result, **outer)


class LazyFacts(Mapping):
    """A finding's facts (tvmlint.base.diagnostics.Finding.facts) as the cache keeps them: pickled,
    read only when asked (`--confirm`). Reading them imports the rule that made the payload,
    and with it libcst, which a run that only prints findings never needs."""

    def __init__(self, blob: bytes):
        self._blob = blob
        self._data = None

    def _loaded(self) -> dict:
        if self._data is None:
            self._data = pickle.loads(self._blob)
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._loaded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def __reduce__(self):
        return LazyFacts, (self._blob,)


def pack_findings(findings: List[Finding], analysed: int) -> bytes:
    stored = [
        replace(f, facts=LazyFacts(f.facts._blob if isinstance(f.facts, LazyFacts) else pickle.dumps(dict(f.facts))))
        if f.facts is not None else f
        for f in findings
    ]
    return pickle.dumps((stored, analysed), protocol=pickle.HIGHEST_PROTOCOL)


def unpack_findings(blob: bytes) -> Tuple[List[Finding], int]:
    return pickle.loads(blob)
