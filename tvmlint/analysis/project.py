"""Following contexts across the project's own functions and modules.

A pass run inside a function with no `with` of its own runs under its callers'
contexts. A function is judged under every context some call of it provides;
a function that nothing in the analysed code calls by name (a public API, a
callback handed to TVM, a decorated hook) has an unknown context and is not
judged at all: precision first.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import replace
from typing import (
    AbstractSet,
    Callable,
    Dict,
    Iterable,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from tvmlint.analysis.contexts import ContextRef, FromCall, LevelFrom, PassCtx
from tvmlint.analysis.module_aliases import ModuleAliases
from tvmlint.analysis.own_tree import OwnTree
from tvmlint.analysis.results import (
    ArgumentWait,
    CallFact,
    ConstantWait,
    Deferred,
    FileResult,
    OptionRef,
    OwnTreeWait,
    ParamRef,
    unless_defined,
)
from tvmlint.base.diagnostics import Finding
from tvmlint.knowledge.catalog import rule_info

# (context, the chain of calls that brought it: "fold is called from app.py:12")
Reached = Tuple[PassCtx, Tuple[str, ...]]


def method_classes(names: Iterable[str], modules: Callable[[], AbstractSet[str]] = frozenset) -> Set[str]:
    """The classes of followed methods: the part of each name before its last dot
    (`parameters.Proc` of `parameters.Proc.run`) that `modules()` does not name as a module. A
    file naming the class may call the method through an instance (`Proc(...).run()`), so the
    later rounds of a run, and explain, follow it too. Asked without `modules`, every such part
    is taken (more files read, none missed)."""
    owners = {name.rpartition(".")[0] for name in names if "." in name}
    if not owners:
        return set()
    known = modules()
    return {owner for owner in owners if owner and owner not in known}


class Project:
    def __init__(self, results: Sequence[FileResult]):
        self.results = results
        owners: Dict[str, List[str]] = defaultdict(list)
        for result in results:
            for function in result.functions:
                owners[function].append(result.path)
        # a name defined by two files (two scripts called tune.py in two folders) cannot be
        # resolved to one of them from elsewhere; from inside one of them, it is that file's own
        self.functions = {name for name, paths in owners.items() if len(paths) == 1}
        self.owners: Dict[str, List[str]] = owners
        self.escaped: Set[str] = {name for result in results for name in result.escaped}
        self.aliases = ModuleAliases((result.path, result.module_name) for result in results)
        self.calls: Dict[str, List[Tuple[FileResult, CallFact]]] = defaultdict(list)
        for result in results:
            for call in result.callsites:
                callee = call.callee if call.callee in owners else self.aliases.canonical(call.callee, result.path)
                if callee in owners:
                    self.calls[callee].append((result, call))
        self.returns: Dict[str, List[PassCtx]] = {}
        for result in results:
            self.returns.update(result.context_returns)
        self.runner_entries: Dict[str, PassCtx] = {}
        for result in results:
            self.runner_entries.update(result.runner_entries)
        self._memo: Dict[Tuple[str, Optional[str]], List[Reached]] = {}
        self.own_tree = OwnTree()  # the TVM package a fork carries, read only when a finding asks
        # a pass-list entry naming a pass some module of the project defines is not unknown
        self.defined_passes: Set[str] = {name for result in results for name in result.defined_passes}
        # module-level constants by qualified name, with every file that defines that name
        # (two scripts' folders may each hold a config.py)
        self.constants: Dict[str, List[Tuple[FileResult, str, int]]] = defaultdict(list)
        for result in results:
            for name, (value, line) in result.constants.items():
                self.constants[f"{result.module_name}.{name}"].append((result, value, line))
        # functions that parse a command line, by qualified name: {dest: default}
        self.options: Dict[str, List[Tuple[FileResult, Dict[str, str]]]] = defaultdict(list)
        for result in results:
            for function, defaults in result.option_defaults.items():
                self.options[f"{result.module_name}.{function}"].append((result, defaults))

    def reach(self, ctx: ContextRef, seen: frozenset = frozenset(), home: Optional[str] = None) -> List[Reached]:
        """The contexts that reach `ctx`; `home`: the path of the file it is in."""
        if isinstance(ctx, PassCtx):
            return [(ctx, ())]
        if isinstance(ctx, FromCall):
            returned = self.returns.get(ctx.function) or self.returns.get(self.aliases.canonical(ctx.function, home))
            if returned:
                return [(c, ()) for c in returned]
            return self.reach(ctx.outer, seen, home)
        if isinstance(ctx, LevelFrom):
            return self._levels(ctx, seen, home)
        return self._callers_of(ctx.function, seen, home)

    def _levels(self, ctx: LevelFrom, seen: frozenset, home: Optional[str]) -> List[Reached]:
        """The contexts a PassContext whose opt_level is a parameter or another module's constant
        is: one per level a call gives it (the call in the chain), or the one the constant sets.
        A level nothing visible gives is not known: no context, nothing judged."""
        if ctx.names:
            found = self._constant_site(ctx.names, home) if home is not None else None
            if found is None or type(found[0]) is not int:
                return []
            level, path, line = found
            origin = f"{ctx.ctx.origin} from {ctx.written} = {level} in {path}:{line}"
            return [(replace(ctx.ctx, opt_level=level, origin=origin), ())]
        reached: List[Reached] = []
        for level, where in self.argument_values(ParamRef(ctx.function, ctx.written, ctx.position, ctx.default),
                                                 home, seen, kind=int):
            if not ctx.allows(level):
                continue  # `if opt_level == 5:` around the context: this call does not reach it
            # the call that decides (the outermost) in the message, each call in the detail
            calls = where.split("; ")
            reached.append((replace(ctx.ctx, opt_level=level), (f"{ctx.written}={level} {calls[0]}", *calls[1:])))
        return reached

    def _calls_of(self, function: str, seen: frozenset, home: Optional[str],
                  escaped_too: bool = False) -> Optional[List[Tuple[FileResult, CallFact]]]:
        """The calls that reach `function` by name, seen from the file `home`; None where which
        function is meant is not known, or calls nobody can see reach it (handed on, escaped).
        `escaped_too`: a function handed on still gets what its visible calls give it (a value
        one of them passes is a value it runs with), though not only those."""
        if function in seen or function not in self.owners or (function in self.escaped and not escaped_too):
            return None
        if function in self.functions:
            return self.calls.get(function, [])
        if home not in self.owners[function]:
            return None  # defined by several files, and not by this one: which is meant is not known
        return [(result, call) for result, call in self.calls.get(function, ()) if result.path == home]

    def _callers_of(self, function: str, seen: frozenset, home: Optional[str]) -> List[Reached]:
        calls = self._calls_of(function, seen, home)
        if calls is None:
            return []
        key = (function, home if function not in self.functions else None)
        if key in self._memo:
            return self._memo[key]
        reached: List[Reached] = []
        for result, call in calls:
            link = f"when {self._display(function, result.module_name)} is called from {result.path}:{call.line}"
            for found, chain in self.reach(call.ctx, seen | {function}, result.path):
                reached.append((found, (link,) + chain))
        if not reached and not self.calls.get(function) and function in self.runner_entries:
            # a test function nothing in the checked code calls: a test runner named on its file runs it
            reached.append((self.runner_entries[function], ()))
        self._memo[key] = reached
        return reached

    @staticmethod
    def _display(function: str, caller_module: str) -> str:
        # the module part is noise when the caller is in the same module
        prefix = caller_module + "."
        return function[len(prefix):] if function.startswith(prefix) else function

    def findings(self, judges) -> Dict[str, List[Finding]]:
        """Deferred findings judged under every context that reaches them, per file."""
        out: Dict[str, List[Finding]] = defaultdict(list)
        for result in self.results:
            for deferred in result.deferred:
                if isinstance(deferred.payload, (ArgumentWait, ConstantWait)):
                    finding = self._value_finding(result, deferred)
                    if finding is not None:
                        out[result.path].append(finding)
                    continue
                if isinstance(deferred.payload, OwnTreeWait):
                    wait = deferred.payload
                    if self.own_tree.defines(wait.qualname, wait.directory) == wait.made_if_defined:
                        out[result.path].append(_finding(result, deferred, wait.message, deferred.fix,
                                                         noqa_lines=deferred.noqa_lines, detail=wait.detail))
                    continue
                if unless_defined(deferred) in self.defined_passes:
                    continue
                finding = judged(result, deferred, judges, self.reach(deferred.ctx, home=result.path))
                if finding is not None:
                    out[result.path].append(finding)
        return out

    def argument_values(self, param: ParamRef, home: Optional[str], seen: frozenset = frozenset(),
                        kind: type = str) -> List[Tuple[object, str]]:
        """The literals of `kind` (strings: dtypes; integers: opt_levels) the project's calls give
        a function's parameter, each with where from ("called from app.py:12"), following callers
        that pass their own parameter on. A function nothing calls by name gives none; one handed
        on too (escaped: a table of workloads) gives what its visible calls give; the one defined
        several times gives what calls from its own file give (as `_calls_of` tells)."""
        function, default = param.function, param.default
        found: List[Tuple[object, str]] = []
        for result, call in self._calls_of(function, seen, home, escaped_too=True) or ():
            given = call.argument(param.position, param.name)
            where = f"when {self._display(function, result.module_name)} is called from {result.path}:{call.line}"
            if given is None and type(default) is kind:
                found.append((default, f"{where}, which keeps its default"))
            elif type(given) is kind:
                found.append((given, where))
            elif isinstance(given, ParamRef):
                for value, further in self.argument_values(given, result.path, seen | {function}, kind):
                    found.append((value, f"{where}; {further}"))
            elif kind is str and isinstance(given, tuple):  # one of several strings, as the calling function may set it
                found.extend((value, f"{where} (one of the values it passes)") for value in given)
            elif kind is str and isinstance(given, OptionRef):
                option = self.option_default(given, result.path)
                if option is not None:
                    found.append((option[0], f"{where}, whose command line defaults it ({option[1]})"))
        return found

    def option_default(self, ref: OptionRef, home: str) -> Optional[Tuple[str, str]]:
        """The default of the command-line option an argument reads (`ARGS.out_dtype`), with
        where it is declared, when one function of the project parses it (as `constant_value`
        tells which file a module name means)."""
        found = _one_beside(self.options.get(ref.function) or self.options.get(self.aliases.canonical(ref.function, home)), home)
        if found is None:
            return None
        result, defaults = found
        if ref.dest not in defaults:
            return None
        return defaults[ref.dest], f"{ref.function.rpartition('.')[2]}() in {result.path}"

    def constant_value(self, names: Sequence[str], home: str) -> Optional[Tuple[str, str]]:
        """What a name a module imports is bound to where it is defined, with where ("as
        config.py:3 sets it"): the first of `names` (its qualified candidates) that a module of
        the project defines as a constant. A module name two files have is the one beside
        `home` (a script's folder comes first on sys.path), else not known."""
        found = self._constant_site(names, home)
        return None if found is None else (found[0], f"as {found[1]}:{found[2]} sets it")

    def _constant_site(self, names: Sequence[str], home: str) -> Optional[Tuple[object, str, int]]:
        """`constant_value`'s value, with the path and line that bind it."""
        for name in names:
            defining = self.constants.get(name) or self.constants.get(self.aliases.canonical(name, home))
            if defining:
                found = _one_beside(defining, home)
                if found is None:
                    return None
                result, value, line = found
                return value, result.path, line
        return None

    def _value_finding(self, result: FileResult, deferred: Deferred) -> Optional[Finding]:
        wait = deferred.payload
        if isinstance(wait, ConstantWait):
            found = self.constant_value(wait.names, result.path)
            values = [found] if found is not None else []
        else:
            values = self.argument_values(ParamRef(wait.function, wait.param, wait.position, wait.default), result.path)
        for value, where in values:
            if value in wait.wanted:
                filled = [text.replace("{value}", value).replace("{where}", where) for text in (wait.message, wait.detail)]
                return _finding(result, deferred, filled[0], deferred.fix, noqa_lines=deferred.noqa_lines,
                                detail=filled[1])
        return None


def _one_beside(defining, home: str):
    """Of the files defining one qualified name (entries whose first item is a FileResult), the one
    meant from `home`: the only one, else the one in `home`'s folder (a script's folder comes first
    on sys.path); None when none or several could be."""
    if not defining:
        return None
    if len(defining) > 1:
        folder = os.path.dirname(os.path.normpath(home))
        defining = [entry for entry in defining if os.path.dirname(os.path.normpath(entry[0].path)) == folder]
    return defining[0] if len(defining) == 1 else None


def judged(result: FileResult, deferred: Deferred, judges, reached: Sequence[Reached]) -> Optional[Finding]:
    """The finding a deferred one makes under the first context that gets it wrong (one per site), or None."""
    judge = judges.get(deferred.code)
    if judge is None:
        return None
    for ctx, chain in reached:
        said = judge(deferred.payload, ctx)
        if said is None:
            continue
        message, detail = said
        if chain:
            message, detail = _with_chain(message, detail, chain, result.path)
        fix = deferred.fix if isinstance(deferred.ctx, PassCtx) else None
        return _finding(result, deferred, message, fix, detail=detail,
                        facts={"payload": deferred.payload, "ctx": ctx, "target": result.version})
    return None


def _with_chain(message: str, detail: str, chain: Sequence[str], path: str) -> Tuple[str, str]:
    """The calls that brought the context: the last (where the context is decided) in the
    message, which stays one sentence, and all of them in the detail. A call in the finding's
    own file is "on line 34" in the message (a notebook's lines are the output's to place)."""
    more = len(chain) - 1
    further = f", via {more} more call{'s' if more > 1 else ''}" if more else ""
    deciding = chain[-1]
    here = f" is called from {path}:"
    if here in deciding and not path.endswith(".ipynb"):
        deciding = deciding.replace(here, " is called on line ", 1)
    called = f"{deciding}{further}"
    # "(the default context)" and the call that gives it: one parenthesis
    message = f"{message[:-1]}, {called})" if message.endswith(")") else f"{message} ({called})"
    calls = "; ".join(chain)
    return message, f"{detail} The context comes from the callers: {calls}.".lstrip()


def _finding(result: FileResult, deferred: Deferred, message: str, fix, **extra) -> Finding:
    return Finding(result.path, deferred.start, deferred.end, deferred.code, rule_info(deferred.code).severity,
                   message, fix, **extra)


def settle(result: FileResult, judges) -> None:
    """Judge now what needs nothing from other files: a deferred finding whose context the
    file itself knows (a PassCtx), unless it waits for the pass names the project defines.
    The project step would judge it the same; until then it would hold its payload (whole
    pass lists) in memory, for every file of the run."""
    waiting = []
    for deferred in result.deferred:
        if isinstance(deferred.ctx, PassCtx) and unless_defined(deferred) is None:
            finding = judged(result, deferred, judges, [(deferred.ctx, ())])
            if finding is not None:
                result.findings.append(finding)
        else:
            waiting.append(deferred)
    result.deferred = waiting
