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
@dataclass(frozen=True)
class ParamRef:
    """An argument that is the calling function's own parameter, passed on: its value is what
    that function's callers give it (or its literal default)."""

    function: str
    name: str
    position: Optional[int]  # among the positional parameters; None for a keyword-only one
    default: object  # a string or integer literal, else None


@by_fields
@dataclass(frozen=True)
class OptionRef:
    """An argument that is a command-line option another function parses (`ARGS.out_dtype`
    after `ARGS = parse_args()`): its value is that option's default, where `function` (as the
    calling file names it) declares it (FileResult.option_defaults)."""

    function: str
    dest: str


# CallFact.args key of a call whose arguments hide behind `*args` or `**kwargs`
HIDDEN = "*"


@by_fields
@dataclass
class CallFact:
    callee: str
    ctx: ContextRef
    line: int
    # what the call passes: (position or keyword, a string or integer literal, a tuple of the strings
    # it may be, a ParamRef, an OptionRef, or False for a value the calling file cannot tell); (HIDDEN, True) when
    # `*args`/`**kwargs` may pass anything
    args: Tuple[Tuple[object, object], ...] = ()

    def argument(self, position: Optional[int], name: str) -> object:
        """What the call gives a parameter: a string, a ParamRef, False (something tvmlint cannot
        read), None where it gives nothing (the parameter keeps its default), or HIDDEN."""
        for key, value in self.args:
            if key == name or (position is not None and key == position):
                return value
        if any(key == HIDDEN for key, _ in self.args):
            return HIDDEN
        return None


@by_fields
@dataclass
class ArgumentWait:
    """A finding that is a mistake wherever `function`'s parameter `param` is given one of
    `wanted` (a kernel builder's dtype given "float16"). The project step reads what the calls
    pass (CallFact.args) and fills the message's {value} and {where}."""

    function: str
    param: str
    position: Optional[int]
    default: Optional[str]
    wanted: FrozenSet[str]
    message: str
    detail: str = ""  # Said.detail, with the same {value} and {where}


@by_fields
@dataclass
class ConstantWait:
    """A finding that is a mistake when the module-level name a module imports (`DTYPE` after
    `from config import *`) is bound to one of `wanted` where it is defined. `names`: what the
    name may stand for, qualified (`config.DTYPE`), the first that some module of the project
    defines counting. The project step reads the modules' constants (FileResult.constants)
    and fills the message's {value} and {where}."""

    names: Tuple[str, ...]
    wanted: FrozenSet[str]
    message: str
    detail: str = ""  # Said.detail, with the same {value} and {where}


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
    # module-level names bound once, to a string or integer literal: name -> (value, line),
    # for other modules that import them (ConstantWait)
    constants: Dict[str, Tuple[object, int]] = field(default_factory=dict)
    # module-level functions that parse a command line: function name -> {dest: string default}
    option_defaults: Dict[str, Dict[str, str]] = field(default_factory=dict)


# the function an OwnTreeWait is deferred to: none of the project's, so no caller is followed
OWN_TREE = "<the project's own TVM tree>"


@by_fields
@dataclass(frozen=True)
class OwnTreeWait:
    """A removed-API finding in a project that carries TVM's package itself (a fork's tree):
    made unless that package, at `directory`, still defines `qualname` (the project step asks
    tvmlint.analysis.own_tree). `made_if_defined`: the other way round, for a call of a
    deprecated shim, made only if the package has `qualname`, the module that replaced it."""

    qualname: str
    directory: str
    message: str
    detail: str = ""
    made_if_defined: bool = False


# the payload attribute naming a pass whose definition anywhere in the project drops the finding
UNLESS_DEFINED = "unless_defined"


def unless_defined(deferred: "Deferred") -> Optional[str]:
    """The pass name a deferred finding is dropped for when some module of the project
    defines a pass by that name (Rule.reads_defined_passes), or None."""
    return getattr(deferred.payload, UNLESS_DEFINED, None)
