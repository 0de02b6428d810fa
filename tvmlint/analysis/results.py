"""What checking one file gives the run: its findings, the findings that wait on a context
(`Deferred`), and the facts the project step joins across files (`CallFact`). Plain data,
so that it crosses processes and caches."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from tvmlint.analysis.contexts import ContextRef, PassCtx
from tvmlint.base.diagnostics import Finding, Fix, Position
from tvmlint.base.pickling import by_fields
from tvmlint.base.versions import Version


@by_fields
@dataclass
class Deferred:
    """A finding that depends on the context `ctx` resolves to."""

    code: str
    start: Position
    end: Position
    ctx: ContextRef
    payload: Any
    fix: Optional[Fix] = None
    noqa_lines: Tuple[int, ...] = ()  # Finding.noqa_lines of the finding it becomes


@by_fields
@dataclass
class CallFact:
    callee: str
    ctx: ContextRef
    line: int


@by_fields
@dataclass
class FileResult:
    """What one file contributes to a run; plain data, so it can cross processes and caches."""

    path: str
    module_name: str
    version: Version
    codes: FrozenSet[str]
    findings: List[Finding] = field(default_factory=list)
    deferred: List[Deferred] = field(default_factory=list)
    callsites: List[CallFact] = field(default_factory=list)
    escaped: List[str] = field(default_factory=list)
    functions: List[str] = field(default_factory=list)
    context_returns: Dict[str, List[PassCtx]] = field(default_factory=dict)
    noqa: Dict[int, FrozenSet[str]] = field(default_factory=dict)
    defined_passes: List[str] = field(default_factory=list)  # pass names the module defines itself
    # module-level test functions of a module that is no test module, with the context a test
    # runner gives them: used where nothing in the project calls them
    runner_entries: Dict[str, PassCtx] = field(default_factory=dict)


# the payload attribute naming a pass whose definition anywhere in the project drops the finding
UNLESS_DEFINED = "unless_defined"


def unless_defined(deferred: "Deferred") -> Optional[str]:
    """The pass name a deferred finding is dropped for when some module of the project
    defines a pass by that name (Rule.reads_defined_passes), or None."""
    return getattr(deferred.payload, UNLESS_DEFINED, None)
