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
from tvmlint.checks.rule import Case
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
        HEAD + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['AlterOpLayout', 'FoldScaleAxis']):\n"
        "    lib = relay.build(mod, 'llvm')\n",
        # a misspelt name the set operation takes out is never given to the context
        HEAD + "ALL = {'FoldConstant', 'FuseOP'}\nwith tvm.transform.PassContext(opt_level=3, disabled_pass=ALL - {'FuseOP'}):\n"
        "    lib = relay.build(mod, 'llvm')\n",
        # a list that grows is no fixed literal: its names are not judged
        HEAD + "skip = ['FoldConstant']\nskip.append(name)\nwith tvm.transform.PassContext(opt_level=3, disabled_pass=skip):\n"
        "    lib = relay.build(mod, 'llvm')\n",
        HEAD + "with tvm.transform.PassContext(opt_level=3, required_pass=['CombineParallelConv2d']):\n"
        "    lib = relay.build(mod, 'llvm')\n",
        # a name registered only inside a C++ pipeline is still a name
        HEAD + "with tvm.transform.PassContext(disabled_pass=['ManifestAllocImpl', 'tir.BindParams']):\n    pass\n",
        Case(RELAX + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOps', 'tirx.UnrollLoop']):\n"
             "    ex = tvm.compile(mod, 'llvm')\n", target="0.27"),
        # a pass the code defines itself, here or in another module
        HEAD + "@tvm.transform.module_pass(opt_level=1, name='MyFusion')\ndef fuse(mod, ctx):\n    return mod\n\n"
        "with tvm.transform.PassContext(disabled_pass=['MyFusion']):\n    pass\n",
        Case("import tvm\nwith tvm.transform.PassContext(disabled_pass=['FuseOpz']):\n    pass\n",
             files={"mine.py": "import tvm\n@tvm.transform.module_pass(opt_level=level)\ndef FuseOpz(mod, ctx):\n    return mod\n"}),
        # the decorated function's name is the pass's name (apache/tvm tests/python/relay/test_pass_manager.py)
        "import tvm\nfrom tvm.relay import transform as _transform\n\n"
        "@_transform.function_pass(opt_level=1)\ndef func_transform(expr, mod, ctx):\n    return expr\n\n"
        "with tvm.transform.PassContext(required_pass=['func_transform']):\n    mod = tvm.transform.Sequential([func_transform])(mod)\n",
        # a Sequential the file names itself
        HEAD + "seq = tvm.transform.Sequential([relay.transform.FoldConstant()], name='MyPipeline')\n"
        "with tvm.transform.PassContext(disabled_pass=['MyPipeline']):\n    pass\n",
        # what the calls pass through a parameter is read; a name the right side of `-` certainly
        # takes out is gone; a parameter nothing in the module passes a list gives no name
        HEAD + "def build(mod, skip=None):\n    with tvm.transform.PassContext(opt_level=3, disabled_pass=skip):\n"
        "        return relay.build(mod, 'llvm')\n\nbuild(m, ['FoldConstant', 'FuseOps'])\nbuild(m, skip=names)\n"
        "build(m, {'FoldConstant', 'FuseOP'} - {'FuseOP'})\n",
        # names built at run time are unknown: not judged
        HEAD + "with tvm.transform.PassContext(disabled_pass=names):\n    pass\n",
        HEAD + "with tvm.transform.PassContext(disabled_pass=[f'tir.{name}', prefix + 'Foo', '%sBar' % ns, name]):\n    pass\n",
        # an empty entry names nothing, as it means to
        HEAD + "with tvm.transform.PassContext(disabled_pass=['']):\n    pass\n",
    ]
    INVALID = [
        # names through a constant, a set operation, a `*` in a list: reported where they are written
        Case(HEAD + "REQUIRED = [\n    'EliminateCommonSubexpr',\n    'CombineParallelConv2D',\n]\n\n"
             "def build(mod):\n    with tvm.transform.PassContext(opt_level=1, required_pass=REQUIRED):\n"
             "        return relay.build(mod, 'llvm')\n", expect="did you mean 'CombineParallelConv2d'",
             fixed=HEAD + "REQUIRED = [\n    'EliminateCommonSubexpr',\n    'CombineParallelConv2d',\n]\n\n"
             "def build(mod):\n    with tvm.transform.PassContext(opt_level=1, required_pass=REQUIRED):\n"
             "        return relay.build(mod, 'llvm')\n"),
        Case(HEAD + "ALL_PASSES = {'FoldConstant', 'PartialEvaluate', 'FuseOps'}\nKEEP = {'FuseOps'}\n"
             "with tvm.transform.PassContext(opt_level=3, disabled_pass=ALL_PASSES - KEEP):\n    lib = relay.build(mod, 'llvm')\n",
             target="0.8", expect="'PartialEvaluate' in disabled_pass"),
        Case(HEAD + "BASE = ['FoldConstant', 'OpFusion']\nwith tvm.transform.PassContext(opt_level=3, disabled_pass=list(BASE)):\n"
             "    lib = relay.build(mod, 'llvm')\n", expect="'OpFusion'"),
        Case(HEAD + "BASE = ['FoldConstant']\nwith tvm.transform.PassContext(opt_level=3, disabled_pass=[*BASE, 'UnrollLoop']):\n"
             "    lib = relay.build(mod, 'llvm')\n", expect="'UnrollLoop'"),
        # a list given through a helper's parameter, built on one path as a set difference whose right
        # side is only known at run time (uwsampl/relay-bench shared/python/relay_util.py): each name of
        # the left side may reach disabled_pass
        Case(HEAD + "ALL_PASSES = {\n    'FoldConstant',\n    'CombineParallelConv2D',\n}\n\n"
             "def setup(mod, opt, required_pass=None, disabled_pass=None):\n"
             "    with relay.build_config(opt_level=opt, required_pass=required_pass, disabled_pass=disabled_pass):\n"
             "        return relay.build(mod, 'llvm')\n\n"
             "def run(mod, passes=''):\n    required = None\n    disabled = None\n    if passes:\n"
             "        required = set(passes.split('|'))\n        disabled = ALL_PASSES - required\n"
             "    return setup(mod, 3, required_pass=required, disabled_pass=disabled)\n",
             target="0.8", expect="'CombineParallelConv2D' in disabled_pass"),
        Case(HEAD + "SKIP = ['FuseOP']\n\ndef build(mod, skip):\n"
             "    with tvm.transform.PassContext(opt_level=3, disabled_pass=skip):\n        return relay.build(mod, 'llvm')\n\n"
             "def outer(mod, skip):\n    return build(mod, skip)\n\nouter(m, SKIP)\n",
             expect="'FuseOP' in disabled_pass"),
        Case(HEAD + "def build(mod, skip):\n    with tvm.transform.PassContext(opt_level=3, disabled_pass=skip + extra):\n"
             "        return relay.build(mod, 'llvm')\n\nbuild(m, ['FoldConstant'])\n"
             "with tvm.transform.PassContext(opt_level=3, disabled_pass=['AlterOpLayot'] + more):\n    pass\n",
             expect="'AlterOpLayot'"),
        # a name that adds to itself is bound twice: each value it is bound to may be the list (and
        # the name is not followed for ever)
        Case(HEAD + "SKIP = ['FoldConstant']\nSKIP = SKIP + ['FuseOP']\nMORE = SKIP + ['FuseOps']\n"
             "with tvm.transform.PassContext(opt_level=3, disabled_pass=SKIP):\n    lib = relay.build(mod, 'llvm')\n",
             expect="'FuseOP'"),
        # a string where the list belongs: one pass name per character (a user's TIR pass setting)
        Case(HEAD + "required_pass_tir = 'RemoveNoOp'\nwith tvm.transform.PassContext(opt_level=0, required_pass=required_pass_tir):\n"
             "    lib = relay.build(mod, 'llvm')\n", target="0.13", expect="required_pass=['tir.RemoveNoOp']"),
        # one constant given to two contexts is one finding
        Case(HEAD + "SKIP = ['FuseOP']\nwith tvm.transform.PassContext(opt_level=3, disabled_pass=SKIP):\n    a = relay.build(m, 'llvm')\n"
             "with tvm.transform.PassContext(opt_level=3, disabled_pass=SKIP):\n    b = relay.build(m, 'llvm')\n",
             expect="'FuseOP'"),
        Case(
            RELAX + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOP']):\n    mod = relax.transform.FuseOps()(mod)\n",
            target="0.27", expect="did you mean 'FuseOps'",
            fixed=RELAX + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOps']):\n    mod = relax.transform.FuseOps()(mod)\n",
        ),
        # Python names are not registered names
        Case(HEAD + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['CombineParallelConv2D']):\n"
             "    lib = relay.build(mod, 'llvm')\n", expect="'CombineParallelConv2d'"),
        # case matters
        Case(HEAD + "with relay.build_config(opt_level=3, disabled_pass=['alteroplayout']):\n    pass\n",
             expect="'AlterOpLayout'"),
        # the tir namespace became tirx in 0.24
        Case("import tvm\nwith tvm.transform.PassContext(disabled_pass=['tir.UnrollLoop']):\n    pass\n",
             target="0.27", expect="only 0.7 to 0.23 had it"),
        Case("import tvm\nwith tvm.transform.PassContext(disabled_pass=['tirx.UnrollLoop']):\n    pass\n",
             target="0.19", expect="'tir.UnrollLoop'"),
        # removed with Relay
        Case("import tvm\nwith tvm.transform.PassContext(required_pass=['FastMath']):\n    pass\n",
             target="0.27", expect="requires nothing"),
        # a name no release ever registered (TVM's own test at HEAD): what it resembles, and when that existed
        Case("import tvm\nwith tvm.transform.PassContext(\n"
             "    disabled_pass=['tirx.BF16Promote', 'tirx.BF16CastElimination', 'tirx.BF16TypeLowering']\n):\n"
             "    f = tvm.compile(Module, target='cuda')\n",
             target="0.27", count=3, detail="which only 0.7 to 0.11 registered: TVM 0.27 has no such pass"),
        # the Python constructor's name, or its path, instead of the registered name
        Case(RELAX + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['DecomposeOpsForInference']):\n    pass\n",
             expect="nor of any other release, so it disables nothing",
             fixed=RELAX + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['DecomposeOps']):\n    pass\n"),
        Case(HEAD + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['FoldExplicitPadding']):\n    pass\n",
             expect="did you mean ' FoldExplicitPadding'?"),
        Case("import tvm\nwith tvm.transform.PassContext(disabled_pass=['UnrollLoop']):\n    pass\n",
             expect="did you mean 'tir.UnrollLoop'?"),
        Case(HEAD + "with tvm.transform.PassContext(required_pass=['relay.transform.FoldConstant']):\n    pass\n",
             expect="did you mean 'FoldConstant'?"),
        # like nothing TVM ever registered, defined nowhere in the project: still a no-op
        Case(HEAD + "with tvm.transform.PassContext(disabled_pass=['MyCompanyQuantizer']):\n    pass\n",
             detail="No module of this project defines one"),
        # positional arguments and the other factories
        Case(HEAD + "ctx = tvm.transform.PassContext(3, ['FoldScaleAxis'], ['AlterOpLayot'])\nwith ctx:\n    pass\n",
             expect="'AlterOpLayout'"),
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
