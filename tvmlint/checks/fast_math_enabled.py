"""TVM302 fast-math-enabled: a build or pipeline runs FastMath, or lowers with fast-math rules."""

from __future__ import annotations

import re

from dataclasses import dataclass
from typing import Optional, Tuple

from tvmlint.contexts import Gated, PassCtx
from tvmlint.knowledge import load_table
from tvmlint.lazy import cst
from tvmlint.rule import Case, Rule
from tvmlint.versions import in_range, parse_version

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

    VALID = [
        HEAD + "with tvm.transform.PassContext(opt_level=3):\n    lib = relay.build(mod, 'llvm')\n",
        HEAD + "with tvm.transform.PassContext(opt_level=4, disabled_pass=['FastMath']):\n    lib = relay.build(mod, 'llvm')\n",
        HEAD + "lib = relay.build(mod, 'llvm')\n",
        # nothing that contains FastMath runs under the context
        HEAD + "with tvm.transform.PassContext(opt_level=4):\n    mod = relay.transform.FoldConstant()(mod)\n",
        # asking for the pass by calling it is a decision, not a side effect
        HEAD + "mod = relay.transform.FastMath()(mod)\n",
        # a level that is not a literal
        HEAD + "with tvm.transform.PassContext(opt_level=level):\n    lib = relay.build(mod, 'llvm')\n",
        # relax pipelines have no FastMath
        Case(RELAX + "with tvm.transform.PassContext(opt_level=4):\n    ex = tvm.compile(mod, target='llvm')\n", target="0.27"),
        Case(RELAX + "with tvm.transform.PassContext(config={'tirx.enable_fast_math': False}):\n"
             "    ex = tvm.compile(mod, target='llvm')\n", target="0.27"),
        # a helper nobody calls: its context is unknown
        HEAD + "def build(mod):\n    return relay.build(mod, 'llvm')\n",
    ]
    INVALID = [
        Case(HEAD + "with tvm.transform.PassContext(opt_level=4):\n    lib = relay.build(mod, 'llvm')\n",
             expect="opt_level 4"),
        Case(HEAD + "with tvm.transform.PassContext(opt_level=3, required_pass=['FastMath']):\n"
             "    exe = relay.vm.compile(mod, 'llvm')\n", expect="required_pass"),
        Case(HEAD + "seq = tvm.transform.Sequential([relay.transform.FastMath(), relay.transform.FoldConstant()])\n"
             "with tvm.transform.PassContext(opt_level=4):\n    mod = seq(mod)\n", expect="FastMath"),
        # the context comes from the caller
        Case(HEAD + "def build(mod):\n    return relay.build(mod, 'llvm')\n\n"
             "with tvm.transform.PassContext(opt_level=4):\n    lib = build(mod)\n", expect="when build is called from"),
        Case(RELAX + "with tvm.transform.PassContext(opt_level=3, config={'tirx.enable_fast_math': True}):\n"
             "    ex = tvm.compile(mod, target='llvm')\n", target="0.27", expect="tirx.enable_fast_math"),
    ]

    @classmethod
    def triggers(cls, knowledge):
        # FastMath runs inside a runner's pipeline or a Sequential; the config key acts on builds
        facts = load_table("numerics.toml")
        builds = {
            api for row in facts.get("fast_math_build", [])
            if in_range(knowledge.version, row.get("since"), row.get("until")) for api in row["api"]
        }
        return _pipelines_holding_fast_math(knowledge) | frozenset(builds)

    @classmethod
    def project_pattern(cls, knowledge):
        # Where no pipeline of the target holds FastMath, only a config that sets the key to True
        # can report, and the analysis takes both from a dict literal: `"<key>": True`, maybe with
        # a prefix on the string, comments, line breaks or parentheses in between.
        key = load_table("numerics.toml").get("fast_math", {}).get("config_key")
        if key is None or _pipelines_holding_fast_math(knowledge):
            return None
        gap = r"(?:\s|#[^\n]*|\\)*"
        return re.escape(key) + r"['\"]" + gap + ":" + r"(?:\s|#[^\n]*|\\|\()*" + r"True\b"

    def start(self) -> None:
        facts = load_table("numerics.toml")
        fast = facts.get("fast_math", {})
        self.pass_name = fast.get("pass", "FastMath")
        for run in self.file.analysis.runs:
            if contains(run.members, self.pass_name):
                self.defer(run.node, run.ctx, PassRun(run.members, run.display, self.pass_name))
        self.key = fast.get("config_key")
        version = self.file.knowledge.version
        self.builds = frozenset()
        if self.key and version >= parse_version(fast.get("config_since", "0.0")):
            self.builds = frozenset(
                api
                for row in facts.get("fast_math_build", [])
                if in_range(version, row.get("since"), row.get("until"))
                for api in row["api"]
            )

    def visit_Call(self, node: cst.Call) -> None:
        if not self.builds:
            return
        qualname = self.file.qualname(node.func)
        ctx = self.file.analysis.context_at.get(node)
        if qualname in self.builds and ctx is not None:
            shown = qualname[4:] if qualname.startswith("tvm.relax.") else qualname
            self.defer(node, ctx, ConfigBuild(f"{shown}(...)", self.key))

    @classmethod
    def judge(cls, payload, ctx: PassCtx) -> Optional[str]:
        if isinstance(payload, ConfigBuild):
            if not ctx.config or (payload.key, True) not in ctx.config:
                return None
            return (
                f"{payload.display} runs under {ctx.origin}, whose config sets {payload.key}=True: tirx.LowerIntrin "
                "lowers exp, tanh, erf and friends with the target's fast approximations, so the outputs change. "
                f"Leave {payload.key} out unless the model was validated with it"
            )
        if ctx.opt_level is None or ctx.required is None or ctx.disabled is None:
            return None
        if not runs(payload.members, ctx, payload.name):
            return None
        if payload.name in ctx.required:
            why, remedy = f"required_pass names {payload.name}", "remove it from required_pass"
        else:
            why = f"opt_level {ctx.opt_level} enables it"
            remedy = f"add disabled_pass=['{payload.name}'] or build at opt_level=3"
        where = ctx.origin if ctx.is_default else f"set by {ctx.origin}"
        return (
            f"{payload.display} runs {payload.name} here ({why}; {where}): exp, tanh and erf are replaced by fast "
            f"approximations and the outputs change. For exact numerics {remedy}"
        )


def _holds(members, name: str) -> bool:
    return any(member.name == name or _holds(member.members, name) for member in members)


def _pipelines_holding_fast_math(knowledge) -> frozenset:
    """Runners whose pipeline holds FastMath, and passes that are or hold it (a Sequential the
    file builds holds FastMath only if the file names one of them)."""
    name = load_table("numerics.toml").get("fast_math", {}).get("pass", "FastMath")
    runners = {api for api, runner in knowledge.runners.items() if any(m.name == name for m in runner.runs)}
    wrappers = {api for api, spec in knowledge.passes_by_api.items() if spec.name == name or _holds(spec.members, name)}
    return frozenset(runners | wrappers)
