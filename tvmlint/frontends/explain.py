"""What runs at a pass call, a Sequential run or a build: the PassContext there and the pipeline under it.

`explain_at(path, (line, column), resolver)` answers `tvmlint explain FILE:LINE[:COL]` and the
language server's hover. The site and its context come from the same analysis the rules use
(`tvmlint.analysis.module`: `runs`, `context_at`); a context a function inherits from its callers is
followed across the project with `tvmlint.analysis.project.Project.reach`, over results the engine makes
the way a run's later rounds do (`check_module` with the followed names; `ProjectView`). Each member's verdict
is the Sequential gate of `tvmlint.analysis.contexts` (the one TVM101 judges with), so the two cannot
disagree: `Outcome.verdict` is "skips" exactly where `contexts.gate` returns skipped members.

Where the context is unknown (a function nobody visible calls, a level that is not a literal),
the explanation says so and shows two outcomes: at the default level and at the level the
members need.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from tvmlint.analysis.contexts import (
    ContextRef,
    Gated,
    Inherited,
    PassCtx,
    and_list,
    depends_on,
    gate,
)
from tvmlint.base.versions import Version
from tvmlint.knowledge.numerics import fast_math
from tvmlint.knowledge.target import (
    BuildPipeline,
    get_knowledge,
    pass_kinds,
    pass_levels,
    tutorial_build_level,
)
from tvmlint.run.config import Settings, SettingsResolver

CODES = frozenset({"TVM101"})  # the rule whose verdict an explanation must match


class NotASite(Exception):
    """No pass call, Sequential run or build at the place asked about."""


# --- what an explanation holds (plain data: JSON, text, Markdown) ------------------------


@dataclass
class PassNode:
    name: str  # the registered PassInfo name
    shown: str
    kind: str
    opt_level: Optional[int]
    status: str  # runs | skipped | not reached
    why: str
    children: List["PassNode"] = field(default_factory=list)


@dataclass
class ContextInfo:
    origin: str
    opt_level: Optional[int]
    required: Optional[List[str]]
    disabled: Optional[List[str]]
    config: Optional[List[Tuple[str, str]]]
    chain: List[str] = field(default_factory=list)  # the calls that bring it: "when f is called from a.py:3"
    assumed: Optional[str] = None  # set when the real context is unknown and this one is supposed


@dataclass
class Outcome:
    context: ContextInfo
    pipeline: List[PassNode]
    verdict: str  # skips | runs | unjudged
    summary: str
    skipped: List[str] = field(default_factory=list)  # what the gate skips (contexts.gate), as shown


@dataclass
class Explanation:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    kind: str  # pass | sequential | build
    display: str
    target: str
    how: str  # one sentence: how this call runs its passes
    context_known: bool
    note: Optional[str]
    outcomes: List[Outcome]
    rule: Optional[str] = None  # the rule that judges this site (TVM101, TVM108), if any
    source: Optional[str] = None  # where the pipeline comes from (a build's), tag and file
    on_purpose: bool = False  # the code's own words next to it say the skip is meant
    also: List[str] = field(default_factory=list)  # other sites on the line asked about ("display at L:C")
    cell: Optional[int] = None  # in a notebook: the cell that `line` and `end_line` are lines of

    @property
    def reported(self) -> bool:
        """Whether TVM101 reports this site: its gate skips a member under a known context, and
        no comment next to it says the skip is meant (on purpose)."""
        return self.rule == "TVM101" and self.skips and not self.on_purpose

    @property
    def skips(self) -> bool:
        """Whether the gate skips a member under a context that is known (TVM101's question)."""
        return any(o.verdict == "skips" and o.context.assumed is None for o in self.outcomes)

    def to_json(self) -> dict:
        data = asdict(self)
        data["skips"] = self.skips
        data["reported"] = self.reported
        return data


# --- the sites of one module -------------------------------------------------------------


@dataclass
class Site:
    node: object
    kind: str
    display: str
    ctx: ContextRef
    members: Tuple[Gated, ...]
    root: Optional[Gated]  # the pass called (a wrapper such as FoldScaleAxis), or None
    rule: Optional[str] = None
    source: Optional[str] = None
    how: str = ""
    on_purpose: bool = False  # TVM101 leaves it alone: the code's own words say the skip is meant


def _analysis_class():
    from tvmlint.analysis.module import ModuleAnalysis, PassValue

    class ExplainAnalysis(ModuleAnalysis):
        """The rules' analysis, also noting direct calls of passes that are no Sequential and
        relax builds (rules/pipelines.toml), which no rule needs as events."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.direct: List[Tuple[object, object, ContextRef]] = []
            self.builds: List[Tuple[object, str, BuildPipeline, ContextRef]] = []

        def visit_Call(self, node):
            result = super().visit_Call(node)
            ctx = self.context_at.get(node)
            qualname = self.qualnames.get(node.func)
            runs = self.k.what_runs(qualname) if qualname is not None else None
            if isinstance(runs, BuildPipeline):
                self.builds.append((node, qualname, runs, ctx))
            elif node.args and runs is None:
                callee = self.value_of(node.func)
                if isinstance(callee, PassValue) and not callee.runs_children:
                    self.direct.append((node, callee, ctx))
            return result

    return ExplainAnalysis


class ModuleSites:
    """One module analysed: its sites with their places."""

    def __init__(self, text: str, path: str, version: Version, module_name: str, is_package: bool):
        import libcst as cst

        from tvmlint.analysis.on_purpose import said_on_purpose
        from tvmlint.analysis.positions import LazyPositions, parse_quietly
        from tvmlint.analysis.walk import walk

        self.knowledge = get_knowledge(version)
        try:
            module = cst.parse_module(text)
        except cst.ParserSyntaxError as error:
            raise NotASite(f"{path}: cannot be parsed ({error.message.strip()} at line {error.raw_line})") from None
        except RecursionError:
            raise NotASite(f"{path}: too deeply nested to analyse") from None
        analysis = _analysis_class()(self.knowledge, module_name, is_package)
        positions = LazyPositions(
            module, text, lambda: parse_quietly(text), analysis, exact=True,
        )
        analysis.positions = positions
        walk(module, analysis)
        self.analysis = analysis
        self.positions = positions
        self.sites: List[Site] = []
        self.built: List[Tuple[object, Site]] = []  # (a Sequential's construction, the site that runs it)
        from tvmlint.base.source import split_lines

        lines = split_lines(text)

        def lines_of(node):
            span = self.span(node) if node in positions else None
            return (span[0], span[2]) if span else None

        for run in analysis.runs:
            on_purpose = said_on_purpose(run, lines, lines_of, analysis.harness)
            if run.runner is not None:
                self.sites.append(Site(
                    run.node, "build" if run.runner.report != "TVM101" else "sequential", run.display, run.ctx,
                    run.members, None, run.runner.report, run.runner.source,
                    f"{run.display} runs a pipeline of passes in a Sequential under the caller's PassContext, "
                    "which gates each one by its opt_level",
                    on_purpose=on_purpose,
                ))
            elif run.sequential is not None:
                self.sites.append(Site(
                    run.node, "sequential", run.display, run.ctx, run.members, run.sequential.gated, "TVM101",
                    how="A Sequential called directly: its own opt_level does not matter, and it gates each "
                        "member by the active PassContext",
                    on_purpose=on_purpose,
                ))
                if run.sequential.node is not run.node:  # built on one line, run on another (TVM102 reports the first)
                    self.built.append((run.sequential.node, self.sites[-1]))
            else:
                name = run.wrapper_name or run.display
                spec = self.knowledge.passes_by_name.get(name)
                wrapper = Gated(name, spec.opt_level if spec is not None else 0, run.members)
                self.sites.append(Site(
                    run.node, "sequential", run.display, run.ctx, run.members, wrapper, "TVM101",
                    how=f"{run.wrapper_name or run.display} is a Sequential: called directly it always runs, "
                        "and it gates each of its members by the active PassContext",
                    on_purpose=on_purpose,
                ))
        for node, value, ctx in analysis.direct:
            root = value.gated or Gated(value.display, -1)
            self.sites.append(Site(
                node, "pass", value.display, ctx, (), root, None,
                how="A pass called directly always runs: only a Sequential gates passes by opt_level",
            ))
        for node, qualname, pipeline, ctx in analysis.builds:
            members = tuple(Gated(m.name, m.opt_level) for m in pipeline.runs)
            self.sites.append(Site(
                node, "build", analysis.short(qualname) + "(...)", ctx, members,
                Gated(pipeline.wrapper.name, pipeline.wrapper.opt_level, members, pipeline.name),
                None, pipeline.source,
                f"{analysis.short(qualname)} runs {pipeline.name}: a module pass that always "
                "runs, whose Sequential gates each member by the caller's PassContext (the TIR functions are then "
                "built by the TIR pipeline, not shown)",
            ))

        self.sites.sort(key=lambda site: self.span(site.node)[:2])

    def built_at(self, line: int) -> Optional[Site]:
        """The run of a Sequential whose construction spans `line`, when that is not where it runs."""
        for node, site in self.built:
            start_line, _, end_line, _ = self.span(node)
            if start_line <= line <= end_line:
                return site
        return None

    def span(self, node) -> Tuple[int, int, int, int]:
        where = self.positions[node]
        return where.start.line, where.start.column + 1, where.end.line, where.end.column + 1

    def at(self, line: int, column: Optional[int]) -> Optional[Site]:
        """The innermost site whose span holds (line, column); with no column, the first site
        that starts on the line, else the innermost one spanning it."""
        holding = []
        for site in self.sites:
            start_line, start_col, end_line, end_col = self.span(site.node)
            if column is None:
                inside = start_line <= line <= end_line
            else:
                inside = (start_line, start_col) <= (line, column) <= (end_line, end_col)
            if inside:
                size = (end_line - start_line, (end_col - start_col) if end_line == start_line else end_col)
                if column is None:  # the first that starts on the line, else the innermost around it
                    key = (0, 0, start_col) if start_line == line else (1, *size)
                else:
                    key = (0, *size)
                holding.append((key, site))
        if not holding:
            return None
        holding.sort(key=lambda item: item[0])
        return holding[0][1]


# --- contexts across the project -------------------------------------------------------


def _chain_names(ctx: ContextRef) -> Tuple[Set[str], Set[str]]:
    callers, defined = set(), set()
    for name, by_callers in depends_on(ctx):
        (callers if by_callers else defined).add(name)
    return callers, defined


def project_root(path: Path, settings: Settings, cwd: Optional[Path] = None) -> Path:
    """Where a file's callers are looked for: its project, as a check of the file alone reads
    it (tvmlint.run.project_scope). `cwd` is not needed: kept for callers that pass it."""
    from tvmlint.run.project_scope import project_root as root_of

    return root_of(path, settings).path


class ProjectView:
    """The files of a project, as far as following one module's contexts needs them: read and
    checked once, whatever number of sites of the module are explained."""

    def __init__(self, path: Path, shown: str, text: str, resolver: SettingsResolver, root: Path):
        self.path, self.shown, self.text, self.resolver, self.root = path, shown, text, resolver, root
        self._files: Optional[List[str]] = None
        self._texts: Dict[str, Tuple[bytes, str]] = {}
        self._own = None
        self._checked: Dict[Tuple[str, tuple], object] = {}

    def files(self) -> List[str]:
        if self._files is None:
            from tvmlint.run.discovery import discover
            from tvmlint.run.project_scope import project_files
            from tvmlint.run.project_scope import project_root as root_of

            if os.path.abspath(self.root) == os.path.abspath(root_of(self.path, self.resolver.for_path(self.path)).path):
                # the file's own project: the files a check of the file alone reads, walked alike
                self._files = project_files([os.fspath(self.path)], self.resolver)
                return self._files
            here = os.path.normcase(os.path.abspath(self.path))
            self._files = [
                f for f in discover([self.root], lambda p: self.resolver.for_path(p).is_excluded(p)).files
                if os.path.normcase(os.path.abspath(f)) != here
            ]
        return self._files

    def text_of(self, file: str) -> Tuple[bytes, str]:
        if file not in self._texts:
            from tvmlint.base.notebook import decode_file, file_bound, is_notebook
            from tvmlint.base.source import read_file

            limit = self.resolver.for_path(file).max_file_bytes
            try:
                data = read_file(file, file_bound(limit) if is_notebook(file) else limit)
            except OSError:  # unreadable, not a regular file, or over max-file-size: it calls nothing here
                data = b""
            source, _ = decode_file(file, data)
            self._texts[file] = (data, source.text if source is not None else "")
        return self._texts[file]

    def own(self):
        if self._own is None:
            from tvmlint.run.engine import check_module, module_name_for
            from tvmlint.run.task import Task

            module_name, is_package = module_name_for(self.path)
            version = self.resolver.for_path(self.path).target_version
            self._own = check_module(self.text, Task(self.shown, module_name, CODES, version, is_package, prefilter=False)).result
        return self._own

    def checked(self, file: str, follow: tuple):
        key = (file, follow)
        if key not in self._checked:
            from tvmlint.run.engine import check_module, module_name_for
            from tvmlint.run.task import Task
            from tvmlint.run.tasks import display_path

            _, content = self.text_of(file)
            name, package = module_name_for(Path(file))
            result = check_module(content, Task(
                display_path(file, self.resolver.cwd), name, CODES, self.resolver.for_path(file).target_version,
                package, follow=follow,
            ))
            self._checked[key] = result.result if result.analysed else None
        return self._checked[key]

    def aliases(self):
        """The other names of the project's modules (tvmlint.analysis.module_aliases), its
        files named as a run shows them."""
        from tvmlint.analysis.module_aliases import ModuleAliases
        from tvmlint.run.engine import module_name_for
        from tvmlint.run.tasks import display_path

        files = [(self.shown, self.path)] + [(display_path(file, self.resolver.cwd), Path(file)) for file in self.files()]
        return ModuleAliases((shown, module_name_for(path)[0]) for shown, path in files)

    def reach(self, ctx: ContextRef) -> List[Tuple[PassCtx, Tuple[str, ...]]]:
        """The contexts that reach `ctx` (with the chain of calls that bring each), as the project
        step of a run finds them: tvmlint.analysis.project.Project.reach over the files of the root, each
        analysed the way a run's later rounds analyse it (`check_module` with the followed names)."""
        if isinstance(ctx, PassCtx):
            return [(ctx, ())]
        from tvmlint.analysis.project import Project, method_classes
        from tvmlint.run.words import words_of

        own = self.own()
        aliases = self.aliases()
        callers, defined = _chain_names(ctx)
        results: Dict[str, object] = {}
        while True:
            wanted = {name.rsplit(".", 1)[-1].encode() for name in callers | defined if "<" not in name}
            named = callers | method_classes(callers)
            # a module by another name than its own, as the run's later rounds follow it
            for name in list(named):
                anywhere, beside = aliases.spellings(name)
                named.update(anywhere)
                named.update(spelled for _folder, spelled in beside)
            follow = (frozenset(named), frozenset(defined))
            for file in self.files():
                data, content = self.text_of(file)
                if not content or not wanted & words_of(data):
                    continue
                result = self.checked(file, follow)
                if result is not None:
                    results[file] = result
            more_callers, more_defined = set(callers), set(defined)
            for result in [own, *results.values()]:
                for call in result.callsites:
                    if call.callee in callers or aliases.canonical(call.callee, result.path) in callers:
                        found_callers, found_defined = _chain_names(call.ctx)
                        more_callers |= found_callers
                        more_defined |= found_defined
            if more_callers == callers and more_defined == defined:
                break
            callers, defined = more_callers, more_defined
        return Project([own, *results.values()]).reach(ctx, home=own.path)


# --- gating, member by member -------------------------------------------------------------


def _node(member: Gated, ctx: PassCtx, kinds: Dict[str, str], user: Dict[str, int]) -> PassNode:
    kind = kinds.get(member.name) or ("defined in this project" if member.name in user else "")
    if member.children and not kind:
        kind = "sequential"
    node = PassNode(member.name, member.shown, kind, member.opt_level, "runs", "")
    disabled, required = ctx.disabled or frozenset(), ctx.required or frozenset()
    if member.name in disabled:
        node.status, node.why = "skipped", "named in disabled_pass"
    elif member.name in required:
        node.why = "named in required_pass"
    elif member.opt_level > ctx.opt_level:
        node.status, node.why = "skipped", f"opt_level {member.opt_level} > context {ctx.opt_level}"
    else:
        node.why = f"opt_level {member.opt_level} <= context {ctx.opt_level}"
    for child in member.children:
        inner = _node(child, ctx, kinds, user)
        if node.status != "runs":
            _unreached(inner)
        node.children.append(inner)
    return node


def _unreached(node: PassNode) -> None:
    node.status, node.why = "not reached", "its Sequential is skipped"
    for child in node.children:
        _unreached(child)


def _context_info(ctx: PassCtx, chain: Sequence[str], assumed: Optional[str] = None) -> ContextInfo:
    def names(values):
        return None if values is None else sorted(values)

    config = [] if ctx.config is None and ctx.is_default else None if ctx.config is None else [
        (str(key), "?" if value is None else repr(value)) for key, value in ctx.config
    ]
    return ContextInfo(ctx.origin, ctx.opt_level, names(ctx.required), names(ctx.disabled), config, list(chain), assumed)


def _highest(member: Gated) -> int:
    return max([member.opt_level, *(_highest(child) for child in member.children)])


def outcome(site: Site, ctx: PassCtx, chain: Sequence[str], kinds, user, assumed: Optional[str] = None) -> Outcome:
    info = _context_info(ctx, chain, assumed)
    members = site.members
    if site.root is not None and site.kind != "build" and not members:
        # a pass called directly: never gated
        root = PassNode(site.root.name, site.root.shown, kinds.get(site.root.name, ""),
                        site.root.opt_level if site.root.opt_level >= 0 else None, "runs",
                        "called directly: only a Sequential gates passes")
        return Outcome(info, [root], "runs", f"{site.root.shown} runs: a pass called directly is never gated")
    children = [_node(member, ctx, kinds, user) for member in members]
    if site.root is not None:
        tree = [PassNode(site.root.name, site.root.shown, "sequential" if site.kind != "build" else "module",
                         site.root.opt_level, "runs", "called directly: it always runs", children)]
    else:
        tree = children
    if ctx.opt_level is None or ctx.required is None or ctx.disabled is None:
        return Outcome(info, [], "unjudged", "the context's settings are not known here")
    skipped = gate(members, ctx)
    if skipped is None:
        return Outcome(
            info, tree, "unjudged",
            f"opt_level {ctx.opt_level} is below every pass's level: the gate skips even the level-0 "
            "members (TVM303 reports the level)",
        )
    shown = [s.shown for s in skipped]
    if not skipped:
        return Outcome(info, tree, "runs", "every member runs" if members else "nothing is gated")
    needed = max(s.member.opt_level for s in skipped)
    usual = tutorial_build_level()
    if site.kind == "build" and ctx.opt_level >= usual and all(s.member.opt_level > usual for s in skipped):
        # the level TVM's tutorials build at: its level-4 passes are left out as meant, not missed
        name = fast_math().pass_name
        fast = [s.member.opt_level for s in skipped if name in s.shown]
        fast_math_note = f" (opt_level {fast[0]} would turn on {name}, which changes numerics: TVM302)" if fast else ""
        return Outcome(
            info, tree, "runs",
            f"the build runs at opt_level {ctx.opt_level}, the level TVM's tutorials build at; it leaves out "
            f"{and_list(shown)}, which only opt_level {needed} turns on{fast_math_note}",
        )
    return Outcome(
        info, tree, "skips",
        f"the gate skips {and_list(shown)} at opt_level {ctx.opt_level}; they need opt_level {needed}",
        shown,
    )


def explain_site(modules: ModuleSites, site: Site, project: ProjectView) -> Explanation:
    knowledge = modules.knowledge
    kinds = pass_kinds(knowledge)
    user = dict(modules.analysis.user_passes)
    shown = project.shown
    reached = project.reach(site.ctx)
    start_line, start_col, end_line, end_col = modules.span(site.node)
    outcomes: List[Outcome] = []
    note = None
    known = [(ctx, chain) for ctx, chain in reached if ctx.opt_level is not None and ctx.required is not None
             and ctx.disabled is not None]
    for ctx, chain in known:
        outcomes.append(outcome(site, ctx, chain, kinds, user))
    unknown = [(ctx, chain) for ctx, chain in reached if (ctx, chain) not in known]
    if not reached or unknown:
        if not reached:
            function = site.ctx.function if isinstance(site.ctx, Inherited) else None
            note = (
                f"the context is unknown: no call tvmlint sees gives {function} a context (nothing calls it, "
                "or the functions that call it, by name: a public API, a callback handed to TVM), so it runs "
                "under whatever context its callers enter"
                if function else "the context is unknown here"
            )
        else:
            note = f"the context is unknown: {unknown[0][0].origin}"
        base = unknown[0][0] if unknown else None
        required = (base.required if base is not None and base.required is not None else frozenset())
        disabled = (base.disabled if base is not None and base.disabled is not None else frozenset())
        level = knowledge.default_opt_level
        default = PassCtx(level, required, disabled, "the default context, if its callers enter none", True)
        outcomes.append(outcome(site, default, (), kinds, user, assumed=f"the default level {level}"))
        needed = max((_highest(m) for m in site.members), default=None)
        if needed is not None and needed != level and needed >= pass_levels()[0]:
            enough = PassCtx(needed, required, disabled, f"PassContext(opt_level={needed}), if its callers enter one")
            outcomes.append(outcome(site, enough, (), kinds, user, assumed=f"the level its members need, {needed}"))
    recorded = re.match(r"v(\d+)\.(\d+)\.\d+:", site.source or "")
    if recorded and site.rule is not None and f"{recorded.group(1)}.{recorded.group(2)}" != knowledge.version_text:
        at = f"v{recorded.group(1)}.{recorded.group(2)}"
        older = (
            f"rules/runners.toml records this pipeline as at {at}; at {knowledge.version_text} some members "
            "or levels may differ (the file's notes say how)"
        )
        note = f"{note}; {older}" if note else older
    return Explanation(
        shown, start_line, start_col, end_line, end_col, site.kind, site.display, knowledge.version_text,
        site.how, not (not reached or unknown), note, outcomes, site.rule, site.source, site.on_purpose,
    )


def explain_at(
    path: Path, at: Tuple[int, Optional[int]], resolver: SettingsResolver, text: Optional[str] = None,
    shown: Optional[str] = None, root: Optional[Path] = None,
) -> Explanation:
    """The explanation of the site at `at`, (line, column or None), of `path` (`text`: the buffer,
    when it is not the file on disk). NotASite when no pass call, Sequential run or build is
    there, or when the explanation takes longer than `max-analysis-time`."""
    shown = shown or str(path)
    return _within_budget(resolver.for_path(path), shown,
                          lambda: _explained_at(path, at, resolver, text, shown, root))


def _within_budget(settings: Settings, shown: str, work):
    """`work()` in `max-analysis-time`, the budget a check of the file has; NotASite past it."""
    from tvmlint.run.budget import within
    from tvmlint.run.guards import over_time

    def stopped():
        raise NotASite(f"{shown}: {over_time(settings.analysis_seconds).split(': ', 1)[1]}")

    return within(settings.analysis_seconds, work, stopped)


def _explained_at(path: Path, at: Tuple[int, Optional[int]], resolver: SettingsResolver, text: Optional[str],
                  shown: str, root: Optional[Path]) -> Explanation:
    line, column = at
    settings = resolver.for_path(path)
    modules, project = _module_and_project(path, resolver, text, shown, root)
    site = modules.at(line, column)
    run_line = None
    if site is None:
        site = modules.built_at(line)  # the line TVM102 reports: where the Sequential is built
        run_line = modules.span(site.node)[0] if site is not None else None
    if site is None:
        where = f"{shown}:{line}" + (f":{column}" if column else "")
        raise NotASite(f"{where}: no pass call, Sequential run or build here (at TVM {settings.target_text})")
    explanation = explain_site(modules, site, project)
    if run_line is not None:
        built = f"the Sequential built on line {line} is run on line {run_line}, under that line's context"
        explanation.note = f"{built}; {explanation.note}" if explanation.note else built
    if column is None:
        for other in modules.sites:
            start_line, start_col = modules.span(other.node)[:2]
            if other is not site and start_line == line:
                explanation.also.append(f"{other.display} at {shown}:{start_line}:{start_col}")
    return explanation


def explain_all(path: Path, resolver: SettingsResolver, text: Optional[str] = None, shown: Optional[str] = None,
                root: Optional[Path] = None) -> List[Explanation]:
    """Every site of a module, explained (tests compare them with TVM101's findings)."""
    shown = shown or str(path)

    def explained() -> List[Explanation]:
        modules, project = _module_and_project(path, resolver, text, shown, root)
        return [explain_site(modules, site, project) for site in modules.sites]

    return _within_budget(resolver.for_path(path), shown, explained)


def _module_and_project(path: Path, resolver: SettingsResolver, text: Optional[str], shown: str,
                        root: Optional[Path]) -> Tuple["ModuleSites", "ProjectView"]:
    """The module's sites at its settings' release (`text`: the buffer, else the file), and the
    project its calls are followed through."""
    from tvmlint.run.engine import module_name_for
    from tvmlint.run.guards import admit

    settings = resolver.for_path(path)
    if text is None:
        text = read_text(path, settings.max_file_bytes)
    _tree, why = admit(text, settings.max_file_bytes)
    if why:
        raise NotASite(f"{shown}: {why}")
    module_name, is_package = module_name_for(path)
    modules = ModuleSites(text, shown, settings.target_version, module_name, is_package)
    return modules, ProjectView(path, shown, text, resolver, root or project_root(path, settings, resolver.cwd))


def read_text(path: Path, limit: Optional[int] = None) -> str:
    from tvmlint.base.notebook import decode_file, file_bound, is_notebook
    from tvmlint.base.source import read_file

    try:
        data = read_file(str(path), file_bound(limit) if is_notebook(path) else limit)
    except OSError as error:
        raise NotASite(f"{path}: {error.strerror or error}") from None
    source, why = decode_file(path, data)
    if source is None:
        raise NotASite(f"{path}: {why}")
    return source.text


# --- rendering --------------------------------------------------------------------------------


ON_PURPOSE = (
    "a comment next to this run says the skip is meant: TVM101 does not report it"
)


def _listed(values: Optional[Iterable[str]]) -> str:
    if values is None:
        return "not known"
    values = list(values)
    return ", ".join(values) if values else "none"


def _config(config) -> str:
    if config is None:
        return "none given as a literal"
    return ", ".join(f"{key}={value}" for key, value in config) if config else "none"


def _origin(context: ContextInfo) -> str:
    """The context's origin, naming the caller's file when the context is entered in another one."""
    origin = context.origin
    if context.chain and " on line " in origin:
        found = re.search(r"called from (.+):\d+$", context.chain[-1])
        if found:
            origin = f"{origin} of {found.group(1)}"
    return f"assumed {context.assumed}: {origin}" if context.assumed else origin


def _context_lines(context: ContextInfo) -> List[str]:
    head = _origin(context)
    lines = [head]
    lines.extend(f"  {link}" for link in context.chain)
    level = "not known" if context.opt_level is None else str(context.opt_level)
    lines.append(
        f"  opt_level {level}; required_pass: {_listed(context.required)}; "
        f"disabled_pass: {_listed(context.disabled)}; config: {_config(context.config)}"
    )
    return lines


def _node_label(node: PassNode) -> str:
    facts = ", ".join(part for part in (node.kind, None if node.opt_level is None else f"opt_level {node.opt_level}") if part)
    name = node.shown if node.shown == node.name or node.shown.startswith(node.name + " ") else f"{node.shown} [{node.name}]"
    status = node.status.upper() if node.status != "runs" else "runs"
    return f"{name} ({facts}): {status}: {node.why}" if facts else f"{name}: {status}: {node.why}"


def _plain_tree(nodes: Sequence[PassNode], prefix: str = "") -> List[str]:
    lines = []
    for index, node in enumerate(nodes):
        last = index == len(nodes) - 1
        lines.append(f"{prefix}{'`-- ' if last else '|-- '}{_node_label(node)}")
        lines.extend(_plain_tree(node.children, prefix + ("    " if last else "|   ")))
    return lines


def _header(explanation: Explanation) -> List[str]:
    lines = [
        f"{explanation.path}:{'' if explanation.cell is None else f'cell {explanation.cell}:'}"
        f"{explanation.line}:{explanation.column}: {explanation.display} "
        f"({explanation.kind}, TVM {explanation.target})",
        explanation.how + ".",
    ]
    if explanation.source:
        lines.append(f"Pipeline from rules/: {explanation.source}")
    if explanation.note:
        lines.append(f"Note: {explanation.note}{'' if explanation.context_known else '; both outcomes follow'}.")
    if explanation.on_purpose:
        lines.append(f"Note: {ON_PURPOSE}.")
    if explanation.also:
        lines.append(f"Also on this line (give its column to explain it): {'; '.join(explanation.also)}.")
    return lines


def render_text(explanation: Explanation) -> str:
    lines = _header(explanation)
    for outcome_ in explanation.outcomes:
        lines.append("")
        lines.append("Context: " + "\n".join(_context_lines(outcome_.context)))
        if outcome_.pipeline:
            lines.append("Pipeline:")
            lines.extend(_plain_tree(outcome_.pipeline))
        lines.append(f"Verdict: {outcome_.summary}.")
    return "\n".join(lines) + "\n"


def render_rich(explanation: Explanation, console) -> None:
    from rich.markup import escape
    from rich.tree import Tree

    header = _header(explanation)
    console.print(f"[bold]{escape(header[0])}[/bold]")
    for line in header[1:]:
        console.print(escape(line))
    for outcome_ in explanation.outcomes:
        console.print()
        context = _context_lines(outcome_.context)
        console.print(f"[bold]Context:[/bold] {escape(context[0])}")
        for line in context[1:]:
            console.print(escape(line))
        if outcome_.pipeline:
            tree = Tree("[bold]Pipeline[/bold]")

            def add(branch, nodes):
                for node in nodes:
                    style = {"runs": "green", "skipped": "bold red", "not reached": "yellow"}[node.status]
                    child = branch.add(f"[{style}]{escape(_node_label(node))}[/{style}]")
                    add(child, node.children)

            add(tree, outcome_.pipeline)
            console.print(tree)
        style = {"skips": "bold red", "runs": "green"}.get(outcome_.verdict, "yellow")
        console.print(f"[{style}]Verdict:[/{style}] {escape(outcome_.summary)}.")


def _markdown_tree(nodes: Sequence[PassNode], depth: int = 0) -> List[str]:
    lines = []
    for node in nodes:
        facts = ", ".join(p for p in (node.kind, None if node.opt_level is None else f"opt_level {node.opt_level}") if p)
        status = "**skipped**" if node.status == "skipped" else ("_not reached_" if node.status == "not reached" else "runs")
        if node.shown == node.name:
            name = f"`{node.name}`"
        elif node.shown.startswith(node.name + " "):
            name = f"`{node.name}`{node.shown[len(node.name):]}"
        else:
            name = f"`{node.name}` ({node.shown})"
        lines.append(f"{'  ' * depth}- {name}{f' ({facts})' if facts else ''}: {status}, {node.why}")
        lines.extend(_markdown_tree(node.children, depth + 1))
    return lines


def render_markdown(explanation: Explanation) -> str:
    lines = [f"**tvmlint: {explanation.display}** ({explanation.kind}, TVM {explanation.target})", "",
             explanation.how + "."]
    if explanation.source:
        lines += ["", f"Pipeline from rules/: {explanation.source}"]
    if explanation.note:
        lines += ["", f"_Note: {explanation.note}{'' if explanation.context_known else '; both outcomes follow'}._"]
    if explanation.on_purpose:
        lines += ["", f"_Note: {ON_PURPOSE}._"]
    for outcome_ in explanation.outcomes:
        context = outcome_.context
        lines += ["", f"**Context:** {_origin(context)}"]
        for link in context.chain:
            lines.append(f"- {link}")
        level = "not known" if context.opt_level is None else str(context.opt_level)
        lines.append(
            f"- opt_level {level}; required_pass: {_listed(context.required)}; "
            f"disabled_pass: {_listed(context.disabled)}; config: {_config(context.config)}"
        )
        if outcome_.pipeline:
            lines += ["", *_markdown_tree(outcome_.pipeline)]
        lines += ["", f"**Verdict:** {outcome_.summary}."]
    return "\n".join(lines) + "\n"
