"""TVM302 fast-math-enabled: a build or pipeline runs FastMath, or lowers with fast-math rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple

from tvmlint.analysis.contexts import Gated, PassCtx
from tvmlint.analysis.lazy import cst
from tvmlint.base.diagnostics import Said
from tvmlint.checks import words
from tvmlint.checks.context_args import context_calls
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid
from tvmlint.knowledge.numerics import fast_math, fast_math_builds

if TYPE_CHECKING:
    from tvmlint.base.diagnostics import Finding
    from tvmlint.checks.confirmation import LiveTVM, Verdict

HEAD = "import tvm\nfrom tvm import relay\n"
RELAX = "import tvm\nfrom tvm import relax\n"


@dataclass(frozen=True)
class PassRun:
    members: Tuple[Gated, ...]
    display: str
    name: str


@dataclass(frozen=True)
class ConfigBuild:
    display: str
    key: str


def contains(members: Tuple[Gated, ...], name: str) -> bool:
    return any(m.name == name or contains(m.children, name) for m in members)


def runs(members: Tuple[Gated, ...], ctx: PassCtx, name: str) -> bool:
    """Whether the gate lets the pass called `name` run under `ctx` (ctx fully known)."""
    for member in members:
        if member.name in ctx.disabled:
            continue
        if member.name not in ctx.required and member.opt_level > ctx.opt_level:
            continue
        if member.children:
            if runs(member.children, ctx, name):
                return True
        elif member.name == name:
            return True
    return False


class FastMathEnabled(Rule):
    code = "TVM302"
    prefilter = Prefilter(triggers=("fast_math_pipelines", "fast_math_builds"), project_pattern="fast_math_config_true")

    VALID = [
        # a test module picks the level it exercises (tests/python/relay/test_pass_alter_op_layout.py
        # at v0.12.0 builds at opt_level 4 and checks only that layouts compile)
        Valid("""
            import tvm
            from tvm import relay
            def test_alter_layout():
                with tvm.transform.PassContext(opt_level=4):
                    lib = relay.build(mod, 'llvm')
        """, path="test_pass_alter_op_layout.py"),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):
                lib = relay.build(mod, 'llvm')
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=4, disabled_pass=['FastMath']):
                lib = relay.build(mod, 'llvm')
        """),
        Valid(HEAD, """
            lib = relay.build(mod, 'llvm')
        """),
        # nothing that contains FastMath runs under the context
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=4):
                mod = relay.transform.FoldConstant()(mod)
        """),
        # asking for the pass by calling it is a decision, not a side effect
        Valid(HEAD, """
            mod = relay.transform.FastMath()(mod)
        """),
        # a level that is not a literal
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=level):
                lib = relay.build(mod, 'llvm')
        """),
        # relax pipelines have no FastMath
        Valid(RELAX, """
            with tvm.transform.PassContext(opt_level=4):
                ex = tvm.compile(mod, target='llvm')
        """, target="0.27"),
        Valid(RELAX, """
            with tvm.transform.PassContext(config={'tirx.enable_fast_math': False}):
                ex = tvm.compile(mod, target='llvm')
        """, target="0.27"),
        # a helper nobody calls: its context is unknown
        Valid(HEAD, """
            def build(mod):
                return relay.build(mod, 'llvm')
        """),
        # asking for the pass by name is as deliberate as calling it (TVM's own FastMath tests)
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, required_pass=['FastMath']):
                exe = relay.vm.compile(mod, 'llvm')
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=4, required_pass=['FastMath']):
                lib = relay.build(mod, 'llvm')
        """),
        # the noqa sits on the `with` that sets the level (where TVM303 reports), not on the build
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=4):  # noqa: TVM302
                lib = relay.build(mod, 'llvm')
        """),
        Valid(HEAD, """
            def build(mod):
                with tvm.transform.PassContext(
                    opt_level=4,  # noqa: TVM302
                ):
                    return relay.build(mod, 'llvm')
        """),
        Valid(HEAD, """
            ctx = tvm.transform.PassContext(opt_level=4)
            with ctx:  # noqa: TVM302
                lib = relay.build(mod, 'llvm')
        """),
        Valid(RELAX, """
            with tvm.transform.PassContext(config={'tirx.enable_fast_math': True}):  # noqa: TVM302
                ex = tvm.compile(mod, target='llvm')
        """, target="0.27"),
    ]
    INVALID = [
        # `relay` that a star import of a project module brings (Forwil/tvmt_v2's conv2d_profile.py)
        Invalid("""
            from utils import *
            from tvm import autotvm

            def workload(mod, target, params):
                with relay.build_config(opt_level=4):
                    return relay.build(mod=mod, target=target, params=params)

            workload(m, 'llvm', p)
        """, files={
            'utils.py': """
                import tvm
                from tvm import relay
            """,
        }, target="0.7", expect="opt_level 4"),
        # a level a parameter holds (its default, kept by the call), or another module sets
        Invalid("""
            import tvm
            from tvm import relay

            def compile_model(mod, params, level=4):
                with tvm.transform.PassContext(opt_level=level):
                    return relay.build(mod, 'llvm', params=params)

            compile_model(mod, params)
        """, expect="level=4 when compile_model is called on line 8", target="0.8"),
        Invalid("""
            import tvm
            from tvm import relay
            from config import OPT_LEVEL

            with tvm.transform.PassContext(opt_level=OPT_LEVEL):
                lib = relay.build(mod, 'llvm', params=params)
        """, files={
            'config.py': """
                OPT_LEVEL = 4
            """,
        }, expect="from OPT_LEVEL = 4 in config.py:1", target="0.8"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=4):
                lib = relay.build(mod, 'llvm')
        """, expect="opt_level 4"),
        # a benchmark script named *_tests.py is no test module (junarwohn/mozer-example
        # native/example_pipeline/model_tests.py)
        Invalid(HEAD, """
            def check_model(mod):
                with tvm.transform.PassContext(opt_level=4):
                    return relay.build(mod, 'cuda')

            check_model(m)
        """, path="model_tests.py", expect="opt_level 4"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=4):
                exe = relay.vm.compile(mod, 'llvm')
        """, detail="the outputs may change"),
        # a noqa for another rule, or on a `with` that is not the one around the build, does not hide it
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=4):  # noqa: TVM303
                lib = relay.build(mod, 'llvm')
        """, expect="opt_level 4"),
        Invalid(HEAD, """
            ctx = tvm.transform.PassContext(opt_level=4)
            with ctx:
                lib = relay.build(mod, 'llvm')
            with tvm.transform.PassContext(opt_level=3):  # noqa: TVM302
                pass
        """, expect="opt_level 4"),
        Invalid(HEAD, """
            seq = tvm.transform.Sequential([relay.transform.FastMath(), relay.transform.FoldConstant()])
            with tvm.transform.PassContext(opt_level=4):
                mod = seq(mod)
        """, expect="FastMath"),
        # the context comes from the caller
        Invalid(HEAD, """
            def build(mod):
                return relay.build(mod, 'llvm')

            with tvm.transform.PassContext(opt_level=4):
                lib = build(mod)
        """, expect="when build is called on line"),
        Invalid(RELAX, """
            with tvm.transform.PassContext(opt_level=3, config={'tirx.enable_fast_math': True}):
                ex = tvm.compile(mod, target='llvm')
        """, target="0.27", expect="tirx.enable_fast_math"),
    ]

    def start(self) -> None:
        fast = fast_math()
        self.pass_name = fast.pass_name
        # (node, ctx, payload), deferred in finish(), once the walk has seen the `with`s
        self.pending: List[tuple] = [
            (run.node, run.ctx, PassRun(run.members, run.display, self.pass_name))
            for run in self.file.analysis.runs if contains(run.members, self.pass_name)
        ]
        self.with_of: Dict[cst.Call, cst.With] = {}  # a context call written as a `with` item -> the with
        self.named_withs: List[Tuple[str, cst.With]] = []  # `with ctx:`: the name and the statement
        self.bound_to: Dict[cst.Call, str] = {}  # `ctx = PassContext(...)`: the call -> the name
        self.calls: Optional[list] = None  # the file's context calls, read when first needed
        self.key = fast.config_key
        self.builds = fast_math_builds(self.file.knowledge.version)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.builds:
            return
        qualname = self.file.qualname(node.func)
        ctx = self.file.analysis.context_at.get(node)
        if qualname in self.builds and ctx is not None:
            shown = qualname[4:] if qualname.startswith("tvm.relax.") else qualname
            self.pending.append((node, ctx, ConfigBuild(f"{shown}(...)", self.key)))

    def visit_With(self, node: cst.With) -> None:
        if not (self.pending or self.builds):
            return
        for item in node.items:
            if isinstance(item.item, cst.Call):
                self.with_of[item.item] = node
            elif isinstance(item.item, cst.Name):
                self.named_withs.append((item.item.value, node))

    def visit_Assign(self, node: cst.Assign) -> None:
        if (self.pending or self.builds) and isinstance(node.value, cst.Call) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name):
                self.bound_to[node.value] = target.value

    def finish(self) -> None:
        if self.file.analysis.is_test_module:
            # a test picks the level it exercises, and its own comparison shows what FastMath
            # changes (tests/python/relay/test_pass_alter_op_layout.py builds at opt_level 4 to
            # test layouts on graphs FastMath has nothing to rewrite in)
            return
        for node, ctx, payload in self.pending:
            lines = self._where_set(node, ctx) if isinstance(ctx, PassCtx) else ()
            self.defer(node, ctx, payload, noqa_lines=lines)

    def _where_set(self, node: cst.CSTNode, ctx: PassCtx) -> Tuple[int, ...]:
        """The lines where this file writes the context `ctx` (its call, the level or config
        it is given, the `with` that enters it around `node`): a `# noqa: TVM302` on any of
        them suppresses the finding, as on the build's own line."""
        lines: Set[int] = set()
        for call in self._calls_of(ctx):
            lines.add(self.file.span(call.call)[0].line)
            for param in ("opt_level", "config"):
                if param in call.args:
                    lines.add(self.file.span(call.args[param])[0].line)
            if call.call in self.with_of:
                lines.add(self.file.span(self.with_of[call.call])[0].line)
            name = self.bound_to.get(call.call)
            if name is not None:
                lines.update(self._enclosing_withs(node, name))
        return tuple(sorted(lines))

    def _calls_of(self, ctx: PassCtx) -> list:
        """The file's context calls that give `ctx`: looked up by value, not compared with each
        (a generated file with thousands of builds and contexts took seconds)."""
        if self.calls is None:
            self.calls = list(context_calls(self.file))
            self.by_ctx: dict = {}
            self.unhashable = []
            for call in self.calls:
                try:
                    self.by_ctx.setdefault(call.value.ctx, []).append(call)
                except TypeError:  # a config value that cannot be hashed
                    self.unhashable.append(call)
        try:
            found = self.by_ctx.get(ctx, [])
        except TypeError:
            return [call for call in self.calls if call.value.ctx is ctx or call.value.ctx == ctx]
        return found + [call for call in self.unhashable if call.value.ctx is ctx or call.value.ctx == ctx]

    def _enclosing_withs(self, node: cst.CSTNode, name: str) -> Set[int]:
        """First lines of the `with <name>:` statements whose span holds `node`."""
        start, end = self.file.span(node)
        found = set()
        for candidate, statement in self.named_withs:
            if candidate != name:
                continue
            outer_start, outer_end = self.file.span(statement)
            if outer_start <= start and end <= outer_end:
                found.add(outer_start.line)
        return found

    @classmethod
    def judge(cls, payload, ctx: PassCtx) -> Optional[Said]:
        if isinstance(payload, ConfigBuild):
            if not ctx.config or (payload.key, True) not in ctx.config:
                return None
            return Said(
                f"{payload.display} lowers exp, tanh and erf to fast approximations because the PassContext "
                f"{words.context_named(ctx)} sets {payload.key}=True",
                f"It runs under {ctx.origin}, whose config sets {payload.key}=True: tirx.LowerIntrin lowers exp, "
                "tanh, erf and friends with the target's fast approximations, so the outputs may change. "
                f"Leave {payload.key} out unless the model was validated with it.",
            )
        if ctx.opt_level is None or ctx.required is None or ctx.disabled is None:
            return None
        if payload.name in ctx.required:
            return None  # asked for by name: as deliberate as calling the pass
        if not runs(payload.members, ctx, payload.name):
            return None
        where = ctx.where
        return Said(
            f"{payload.display} runs {payload.name}, which approximates exp, erf, tanh and softmax, because opt_level "
            f"{ctx.opt_level} enables it ({words.context_named(ctx)})",
            f"opt_level {ctx.opt_level} enables {payload.name} ({where}): exp, erf, tanh and softmax are replaced "
            f"by fast approximations, so the outputs may change. For exact numerics add "
            f"disabled_pass=['{payload.name}'] or build at opt_level=3.",
        )

    @classmethod
    def confirm(cls, finding: Finding, tvm: LiveTVM) -> Verdict:
        """The installed TVM registers the config key asked for, or its gate lets the pass run at the context."""
        from tvmlint.checks.confirmation import Verdict
        from tvmlint.checks.live_tree import LiveTree

        facts = finding.facts or {}
        payload, ctx = facts.get("payload"), facts.get("ctx")
        key = getattr(payload, "key", None)
        if key is not None:  # fast math asked for through the PassContext config
            silent = tvm.other_release(finding)
            if silent:
                return silent
            if key in tvm.configs:
                return Verdict(True, f"the installed {tvm.tvm} registers the config key {key!r} ({tvm.configs[key]})")
            return Verdict(False, f"the installed {tvm.tvm} does not register the config key {key!r}")
        name = getattr(payload, "name", None)
        if name is None or not isinstance(ctx, PassCtx) or ctx.opt_level is None:
            return Verdict(None, "the finding carries no pass facts to check")
        silent = tvm.cannot_speak(finding, [name])
        if silent:
            return silent
        live = LiveTree(tvm, tvm.target(finding), payload.members)
        pass_live = tvm.by_name.get(name)
        if live.missing or pass_live is None:
            return Verdict(None, f"the installed {tvm.tvm} registers no pass named {name!r}")
        if runs(live.tree, ctx, name):
            return Verdict(True, f"the installed {tvm.tvm} registers {name} at opt_level {pass_live.opt_level}: the gate lets it run here")
        return Verdict(False, f"the installed {tvm.tvm} registers {name} at opt_level {pass_live.opt_level}: the gate skips it here")
