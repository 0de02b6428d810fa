"""TVM104 unknown-pass-name: a required_pass/disabled_pass entry no pass at the target is called."""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, Optional, Tuple

from tvmlint.analysis.contexts import PassCtx
from tvmlint.analysis.lazy import cst
from tvmlint.analysis.may_names import may_pass_names, names_through_parameter
from tvmlint.base.diagnostics import Fix, Said
from tvmlint.base.versions import Version, parse_version
from tvmlint.checks.context_args import (
    ContextSettingsRule,
    context_calls,
    replace_string,
)
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Valid
from tvmlint.knowledge.registry import pass_name_releases, pass_names, release_span
from tvmlint.knowledge.releases import known_releases
from tvmlint.knowledge.target import get_knowledge

if TYPE_CHECKING:
    from tvmlint.base.diagnostics import Finding
    from tvmlint.checks.confirmation import LiveTVM, Verdict

HEAD = "import tvm\nfrom tvm import relay\n"
RELAX = "import tvm\nfrom tvm import relax\n"

# Namespaces TVM moved passes between (tir.X became tirx.X or s_tir.X in 0.24).
PREFIX_MOVES = (("tir.", "tirx."), ("tir.", "s_tir."), ("tirx.", "tir."), ("s_tir.", "tir."), ("tirx.", "s_tir."), ("s_tir.", "tirx."))


@dataclass(frozen=True)
class UnknownPass:
    message: str
    unless_defined: str  # dropped when any module of the project defines a pass of this name
    detail: str = ""


@dataclass(frozen=True)
class Names:
    """Registered pass names, and the Python constructors that make them (their API paths,
    whole and by last component: `relay.transform.PartialEvaluate` registers 'PartialEval')."""

    names: FrozenSet[str]
    by_api: Dict[str, str]
    by_constructor: Dict[str, FrozenSet[str]]  # case-folded last component -> registered names


def _names(names: Iterable[str], apis: Iterable[Tuple[str, str]], unnamed: FrozenSet[str]) -> Names:
    """`unnamed`: the name a Sequential given none has ('sequential'), never what a constructor's name meant."""
    names = frozenset(names)
    by_api: Dict[str, str] = {}
    by_constructor: Dict[str, set] = {}
    for api, registered in apis:
        if registered not in names or registered in unnamed:
            continue  # relay.transform.BatchingOps() is an unnamed Sequential: not what 'BatchingOps' meant
        by_api[api] = registered
        by_constructor.setdefault(api.rsplit(".", 1)[-1].lower(), set()).add(registered)
    return Names(names, by_api, {k: frozenset(v) for k, v in by_constructor.items()})


@functools.lru_cache(maxsize=None)
def names_at(version: Version) -> Names:
    """What TVM registers at one release."""
    knowledge = get_knowledge(version)
    apis = ((api, spec.name) for api, spec in knowledge.passes_by_api.items())
    return _names(pass_names(version), apis, _unnamed(knowledge))


def _unnamed(knowledge) -> FrozenSet[str]:
    return frozenset(spec.default_name for spec in knowledge.sequential_classes.values())


@functools.lru_cache(maxsize=None)
def names_ever() -> Names:
    """What any release tvmlint knows registers (a constructor maps to its newest name)."""
    apis = {}
    unnamed = set()
    for release in known_releases():
        knowledge = get_knowledge(parse_version(release))
        unnamed.update(_unnamed(knowledge))
        for api, spec in knowledge.passes_by_api.items():
            apis[api] = spec.name
    return _names(pass_name_releases(), apis.items(), frozenset(unnamed))


def closest(name: str, known: Names) -> Optional[str]:
    """The registered name the user most likely meant, or None when nothing is close."""
    names = sorted(known.names)
    folded = {n.lower(): n for n in names}
    # the constructor's path instead of its name: 'relay.transform.PartialEvaluate'
    for api in (name, "tvm." + name):
        if api in known.by_api:
            return known.by_api[api]
    if name.lower() in folded:
        return folded[name.lower()]
    for old, new in PREFIX_MOVES:
        if name.startswith(old) and new + name[len(old):] in known.names:
            return new + name[len(old):]
    # the constructor's name: 'PartialEvaluate', 'UnrollLoop' for 'tir.UnrollLoop'
    made = known.by_constructor.get(name.rsplit(".", 1)[-1].lower(), frozenset())
    if len(made) == 1:
        return next(iter(made))
    # compared case-folded: 'FuseOP' is one letter from 'FuseOps', not two
    match = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.8)
    return folded[match[0]] if match else None


class UnknownPassName(ContextSettingsRule):
    code = "TVM104"
    prefilter = Prefilter(triggers=("context_factories",), wants="gives_argument",
                          arguments=("required_pass", "disabled_pass"), reads_defined_passes=True,
                          reads_callers=True)

    VALID = [
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['AlterOpLayout', 'FoldScaleAxis']):
                lib = relay.build(mod, 'llvm')
        """),
        # a misspelt name the set operation takes out is never given to the context
        Valid(HEAD, """
            ALL = {'FoldConstant', 'FuseOP'}
            with tvm.transform.PassContext(opt_level=3, disabled_pass=ALL - {'FuseOP'}):
                lib = relay.build(mod, 'llvm')
        """),
        # a list that grows is no fixed literal: its names are not judged
        Valid(HEAD, """
            skip = ['FoldConstant']
            skip.append(name)
            with tvm.transform.PassContext(opt_level=3, disabled_pass=skip):
                lib = relay.build(mod, 'llvm')
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, required_pass=['CombineParallelConv2d']):
                lib = relay.build(mod, 'llvm')
        """),
        # a name registered only inside a C++ pipeline is still a name
        Valid(HEAD, """
            with tvm.transform.PassContext(disabled_pass=['ManifestAllocImpl', 'tir.BindParams']):
                pass
        """),
        Valid(RELAX, """
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOps', 'tirx.UnrollLoop']):
                ex = tvm.compile(mod, 'llvm')
        """, target="0.27"),
        # a pass the code defines itself, here or in another module
        Valid(HEAD, """
            @tvm.transform.module_pass(opt_level=1, name='MyFusion')
            def fuse(mod, ctx):
                return mod

            with tvm.transform.PassContext(disabled_pass=['MyFusion']):
                pass
        """),
        Valid("""
            import tvm
            with tvm.transform.PassContext(disabled_pass=['FuseOpz']):
                pass
        """, files={
            'mine.py': """
                import tvm
                @tvm.transform.module_pass(opt_level=level)
                def FuseOpz(mod, ctx):
                    return mod
            """,
        }),
        # the decorated function's name is the pass's name (apache/tvm tests/python/relay/test_pass_manager.py)
        Valid("""
            import tvm
            from tvm.relay import transform as _transform

            @_transform.function_pass(opt_level=1)
            def func_transform(expr, mod, ctx):
                return expr

            with tvm.transform.PassContext(required_pass=['func_transform']):
                mod = tvm.transform.Sequential([func_transform])(mod)
        """),
        # a Sequential the file names itself
        Valid(HEAD, """
            seq = tvm.transform.Sequential([relay.transform.FoldConstant()], name='MyPipeline')
            with tvm.transform.PassContext(disabled_pass=['MyPipeline']):
                pass
        """),
        # what the calls pass through a parameter is read; a name the right side of `-` certainly
        # takes out is gone; a parameter nothing in the module passes a list gives no name
        Valid(HEAD, """
            def build(mod, skip=None):
                with tvm.transform.PassContext(opt_level=3, disabled_pass=skip):
                    return relay.build(mod, 'llvm')

            build(m, ['FoldConstant', 'FuseOps'])
            build(m, skip=names)
            build(m, {'FoldConstant', 'FuseOP'} - {'FuseOP'})
        """),
        # names built at run time are unknown: not judged
        Valid(HEAD, """
            with tvm.transform.PassContext(disabled_pass=names):
                pass
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(disabled_pass=[f'tir.{name}', prefix + 'Foo', '%sBar' % ns, name]):
                pass
        """),
        # an empty entry names nothing, as it means to
        Valid(HEAD, """
            with tvm.transform.PassContext(disabled_pass=['']):
                pass
        """),
    ]
    INVALID = [
        # names through a constant, a set operation, a `*` in a list: reported where they are written
        Invalid(HEAD, """
            REQUIRED = [
                'EliminateCommonSubexpr',
                'CombineParallelConv2D',
            ]

            def build(mod):
                with tvm.transform.PassContext(opt_level=1, required_pass=REQUIRED):
                    return relay.build(mod, 'llvm')
        """, expect="did you mean 'CombineParallelConv2d'", fixed="""
            REQUIRED = [
                'EliminateCommonSubexpr',
                'CombineParallelConv2d',
            ]

            def build(mod):
                with tvm.transform.PassContext(opt_level=1, required_pass=REQUIRED):
                    return relay.build(mod, 'llvm')
        """),
        Invalid(HEAD, """
            ALL_PASSES = {'FoldConstant', 'PartialEvaluate', 'FuseOps'}
            KEEP = {'FuseOps'}
            with tvm.transform.PassContext(opt_level=3, disabled_pass=ALL_PASSES - KEEP):
                lib = relay.build(mod, 'llvm')
        """, target="0.8", expect="'PartialEvaluate' in disabled_pass"),
        Invalid(HEAD, """
            BASE = ['FoldConstant', 'OpFusion']
            with tvm.transform.PassContext(opt_level=3, disabled_pass=list(BASE)):
                lib = relay.build(mod, 'llvm')
        """, expect="'OpFusion'"),
        Invalid(HEAD, """
            BASE = ['FoldConstant']
            with tvm.transform.PassContext(opt_level=3, disabled_pass=[*BASE, 'UnrollLoop']):
                lib = relay.build(mod, 'llvm')
        """, expect="'UnrollLoop'"),
        # a list given through a helper's parameter, built on one path as a set difference whose right
        # side is only known at run time (uwsampl/relay-bench shared/python/relay_util.py): each name of
        # the left side may reach disabled_pass
        Invalid(HEAD, """
            ALL_PASSES = {
                'FoldConstant',
                'CombineParallelConv2D',
            }

            def setup(mod, opt, required_pass=None, disabled_pass=None):
                with relay.build_config(opt_level=opt, required_pass=required_pass, disabled_pass=disabled_pass):
                    return relay.build(mod, 'llvm')

            def run(mod, passes=''):
                required = None
                disabled = None
                if passes:
                    required = set(passes.split('|'))
                    disabled = ALL_PASSES - required
                return setup(mod, 3, required_pass=required, disabled_pass=disabled)
        """, target="0.8", expect="'CombineParallelConv2D' in disabled_pass"),
        Invalid(HEAD, """
            SKIP = ['FuseOP']

            def build(mod, skip):
                with tvm.transform.PassContext(opt_level=3, disabled_pass=skip):
                    return relay.build(mod, 'llvm')

            def outer(mod, skip):
                return build(mod, skip)

            outer(m, SKIP)
        """, expect="'FuseOP' in disabled_pass"),
        Invalid(HEAD, """
            def build(mod, skip):
                with tvm.transform.PassContext(opt_level=3, disabled_pass=skip + extra):
                    return relay.build(mod, 'llvm')

            build(m, ['FoldConstant'])
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['AlterOpLayot'] + more):
                pass
        """, expect="'AlterOpLayot'"),
        # bound in one-line branches of a helper
        Invalid(HEAD, """
            def build(mod, fast):
                if fast: skip = ['FuseOP']
                else: skip = None
                with tvm.transform.PassContext(opt_level=3, disabled_pass=skip):
                    return relay.build(mod, 'llvm')
        """, expect="'FuseOP' in disabled_pass"),
        # a name that adds to itself is bound twice: each value it is bound to may be the list (and
        # the name is not followed for ever)
        Invalid(HEAD, """
            SKIP = ['FoldConstant']
            SKIP = SKIP + ['FuseOP']
            MORE = SKIP + ['FuseOps']
            with tvm.transform.PassContext(opt_level=3, disabled_pass=SKIP):
                lib = relay.build(mod, 'llvm')
        """, expect="'FuseOP'"),
        # a string where the list belongs: one pass name per character (a user's TIR pass setting)
        Invalid(HEAD, """
            required_pass_tir = 'RemoveNoOp'
            with tvm.transform.PassContext(opt_level=0, required_pass=required_pass_tir):
                lib = relay.build(mod, 'llvm')
        """, target="0.13", expect="required_pass=['tir.RemoveNoOp']"),
        # one constant given to two contexts is one finding
        Invalid(HEAD, """
            SKIP = ['FuseOP']
            with tvm.transform.PassContext(opt_level=3, disabled_pass=SKIP):
                a = relay.build(m, 'llvm')
            with tvm.transform.PassContext(opt_level=3, disabled_pass=SKIP):
                b = relay.build(m, 'llvm')
        """, expect="'FuseOP'"),
        Invalid(RELAX, """
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOP']):
                mod = relax.transform.FuseOps()(mod)
        """, target="0.27", expect="did you mean 'FuseOps'", fixed="""
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOps']):
                mod = relax.transform.FuseOps()(mod)
        """),
        # Python names are not registered names
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['CombineParallelConv2D']):
                lib = relay.build(mod, 'llvm')
        """, expect="'CombineParallelConv2d'"),
        # case matters
        Invalid(HEAD, """
            with relay.build_config(opt_level=3, disabled_pass=['alteroplayout']):
                pass
        """, expect="'AlterOpLayout'"),
        # the tir namespace became tirx in 0.24
        Invalid("""
            import tvm
            with tvm.transform.PassContext(disabled_pass=['tir.UnrollLoop']):
                pass
        """, target="0.27", expect="only 0.7 to 0.23 had it"),
        Invalid("""
            import tvm
            with tvm.transform.PassContext(disabled_pass=['tirx.UnrollLoop']):
                pass
        """, target="0.19", expect="'tir.UnrollLoop'"),
        # removed with Relay
        Invalid("""
            import tvm
            with tvm.transform.PassContext(required_pass=['FastMath']):
                pass
        """, target="0.27", expect="requires nothing"),
        # a name no release ever registered (TVM's own test at HEAD): what it resembles, and when that existed
        Invalid("""
            import tvm
            with tvm.transform.PassContext(
                disabled_pass=['tirx.BF16Promote', 'tirx.BF16CastElimination', 'tirx.BF16TypeLowering']
            ):
                f = tvm.compile(Module, target='cuda')
        """, target="0.27", count=3, detail="which only 0.7 to 0.11 registered: TVM 0.27 has no such pass"),
        # the Python constructor's name, or its path, instead of the registered name
        Invalid(RELAX, """
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['DecomposeOpsForInference']):
                pass
        """, expect="nor of any other release, so it disables nothing", fixed="""
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['DecomposeOps']):
                pass
        """),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, disabled_pass=['FoldExplicitPadding']):
                pass
        """, expect="did you mean ' FoldExplicitPadding'?"),
        Invalid("""
            import tvm
            with tvm.transform.PassContext(disabled_pass=['UnrollLoop']):
                pass
        """, expect="did you mean 'tir.UnrollLoop'?"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(required_pass=['relay.transform.FoldConstant']):
                pass
        """, expect="did you mean 'FoldConstant'?"),
        # like nothing TVM ever registered, defined nowhere in the project: still a no-op
        Invalid(HEAD, """
            with tvm.transform.PassContext(disabled_pass=['MyCompanyQuantizer']):
                pass
        """, detail="No module of this project defines one"),
        # positional arguments and the other factories
        Invalid(HEAD, """
            ctx = tvm.transform.PassContext(3, ['FoldScaleAxis'], ['AlterOpLayot'])
            with ctx:
                pass
        """, expect="'AlterOpLayout'"),
    ]

    def start(self) -> None:
        version = self.file.knowledge.version
        known = names_at(version)
        local = set(self.file.analysis.defined_pass_names)
        local.update(sequential.gated.name for sequential in self.file.analysis.sequentials)
        judged = set()  # a constant several contexts are given is judged once, where it is written
        for call in context_calls(self.file):
            for param, node in call.value.lone_strings.items():
                if (id(node), param) not in judged:
                    judged.add((id(node), param))
                    self._judge_lone_string(node, param, known)
            for param, verb in (("required_pass", "requires"), ("disabled_pass", "disables")):
                for name, node in call.names(param) or self._may_names(call, param):
                    if name in known.names or name in local or not name.strip() or (id(node), param) in judged:
                        continue
                    judged.add((id(node), param))
                    self._judge_name(name, node, param, verb, known, call.value.ctx)

    def _may_names(self, call, param: str):
        """Where the list is not one known value, the names it may hold on some path: a name
        no pass has is a mistake wherever it can reach the context."""
        analysis, value = self.file.analysis, call.value
        if param in value.names_from:
            return names_through_parameter(analysis, value.names_from[param])
        if param in call.args and value.scope is not None:
            return may_pass_names(analysis, call.args[param], value.scope)
        return []

    def _judge_name(self, name: str, node: cst.SimpleString, param: str, verb: str, known: Names, ctx) -> None:
        target = self.file.knowledge.version_text
        other = pass_name_releases().get(name)
        suggestion = closest(name, known)
        head = f"'{name}' in {param} names no pass of TVM {target}"
        if other is not None:
            head += f" (only {release_span(other)} had it)"
        else:
            head += " nor of any other release"
        detail = (
            f"TVM does not check the names in required_pass and disabled_pass: one that no pass registers "
            f"{verb} nothing, without a word."
        )
        fix, tail = None, ""
        if suggestion is not None:
            tail = f" (did you mean '{suggestion}'?)"
            detail += f" Did you mean '{suggestion}'?"
            fix = Fix(f"Use '{suggestion}'", (replace_string(self.file, node, suggestion),), safe=False)
        elif other is None:
            elsewhere = closest(name, names_ever())
            if elsewhere is not None:
                span = release_span(pass_name_releases()[elsewhere])
                tail = f" (it looks like '{elsewhere}', which only {span} registered)"
                detail += f" It looks like '{elsewhere}', which only {span} registered: TVM {target} has no such pass."
            else:
                detail += " No module of this project defines one either."
        self.defer(node, ctx, UnknownPass(f"{head}, so it {verb} nothing{tail}", name, detail), fix)

    def _judge_lone_string(self, node: cst.SimpleString, param: str, known: Names) -> None:
        # v0.13.0:python/tvm/ir/transform.py#L137: `required = list(required_pass)`, so a string
        # gives one pass name per character, none of which any pass has
        value = node.evaluated_value
        if not isinstance(value, str) or not value.strip():
            return
        meant = value if value in known.names else closest(value, known)
        instead = f"[{node.quote}{meant}{node.quote}]" if meant else "a list of pass names"
        self.report(
            node,
            f"{param} is given the string {node.value}, not a list, so each character is a pass name "
            f"(write {param}={instead})",
            detail=(
                f"PassContext takes list({param}), so a string gives one pass name per character and no pass "
                f"is named. Write {param}={instead}."
            ),
        )

    @classmethod
    def judge(cls, payload: UnknownPass, ctx: PassCtx) -> Optional[Said]:
        return Said(payload.message, payload.detail)

    @classmethod
    def confirm(cls, finding: Finding, tvm: LiveTVM) -> Verdict:
        """No pass constructor of the installed TVM builds a pass of that name, nor a Sequential holding one."""
        from tvmlint.checks.confirmation import Verdict
        from tvmlint.checks.finding_subject import pass_named

        name, silent = pass_named(tvm, finding, "name", "unless_defined")
        if silent:
            return silent
        live = tvm.by_name.get(name)
        if live is not None:
            return Verdict(False, f"the installed {tvm.tvm} registers a pass named {name!r} ({live.kind}, opt_level {live.opt_level})")
        unbuilt = [p.api for p in tvm.passes if p.error]
        caveat = f"; {len(unbuilt)} constructors could not be built" if unbuilt else ""
        return Verdict(
            True,
            f"none of the {len(tvm.passes)} pass constructors of the installed {tvm.tvm} builds a pass "
            f"named {name!r}, and no Sequential among them holds one{caveat}",
        )
