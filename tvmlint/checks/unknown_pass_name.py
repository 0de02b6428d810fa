"""TVM104 unknown-pass-name: a required_pass/disabled_pass entry no pass at the target is called."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable, Optional

from tvmlint.context_args import ContextSettingsRule, context_calls, replace_string, string_elements
from tvmlint.contexts import PassCtx
from tvmlint.diagnostics import Fix
from tvmlint.lazy import cst
from tvmlint.registry import pass_name_releases, pass_names, release_span
from tvmlint.rule import Case

HEAD = "import tvm\nfrom tvm import relay\n"
RELAX = "import tvm\nfrom tvm import relax\n"

# Namespaces TVM moved passes between (tir.X became tirx.X or s_tir.X in 0.24).
PREFIX_MOVES = (("tir.", "tirx."), ("tir.", "s_tir."), ("tirx.", "tir."), ("s_tir.", "tir."), ("tirx.", "s_tir."), ("s_tir.", "tirx."))


@dataclass(frozen=True)
class UnknownPass:
    message: str
    unless_defined: str  # dropped when any module of the project defines a pass of this name


def closest(name: str, names: Iterable[str]) -> Optional[str]:
    """The registered name the user most likely meant, or None when nothing is close."""
    names = sorted(names)
    folded = {n.lower(): n for n in names}
    if name.lower() in folded:
        return folded[name.lower()]
    for old, new in PREFIX_MOVES:
        if name.startswith(old) and new + name[len(old):] in names:
            return new + name[len(old):]
    # compared case-folded: 'FuseOP' is one letter from 'FuseOps', not two
    match = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.8)
    return folded[match[0]] if match else None


class UnknownPassName(ContextSettingsRule):
    code = "TVM104"
    reads_defined_passes = True
    ARGUMENTS = ("required_pass", "disabled_pass")

    VALID = [
        HEAD + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['AlterOpLayout', 'FoldScaleAxis']):\n"
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
        # a name unlike anything TVM registers may come from another library: not judged
        HEAD + "with tvm.transform.PassContext(disabled_pass=['MyCompanyQuantizer']):\n    pass\n",
        # not a literal
        HEAD + "with tvm.transform.PassContext(disabled_pass=names):\n    pass\n",
    ]
    INVALID = [
        Case(
            RELAX + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOP']):\n    mod = relax.transform.FuseOps()(mod)\n",
            target="0.27", expect="Did you mean 'FuseOps'",
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
        # positional arguments and the other factories
        Case(HEAD + "ctx = tvm.transform.PassContext(3, ['FoldScaleAxis'], ['AlterOpLayot'])\nwith ctx:\n    pass\n",
             expect="'AlterOpLayout'"),
    ]

    def start(self) -> None:
        version = self.file.knowledge.version
        known = pass_names(version)
        local = self.file.analysis.defined_pass_names
        for call in context_calls(self.file):
            for param, verb in (("required_pass", "requires"), ("disabled_pass", "disables")):
                for name, node in string_elements(call.args.get(param)):
                    if name in known or name in local:
                        continue
                    self._judge_name(name, node, param, verb, known, call.value.ctx)

    def _judge_name(self, name: str, node: cst.SimpleString, param: str, verb: str, known, ctx) -> None:
        target = self.file.knowledge.version_text
        other = pass_name_releases().get(name)
        suggestion = closest(name, known)
        if other is None and suggestion is None:
            return  # unlike anything TVM registers: perhaps another library's pass
        why = f"only {release_span(other)} had it" if other else "no release ever had one by that name"
        message = (
            f"'{name}' in {param} is not the name of any pass in TVM {target} ({why}), so it {verb} nothing: "
            "TVM does not check these names"
        )
        fix = None
        if suggestion is not None:
            message += f". Did you mean '{suggestion}'?"
            fix = Fix(f"Use '{suggestion}'", (replace_string(self.file, node, suggestion),), safe=False)
        self.defer(node, ctx, UnknownPass(message, name), fix)

    @classmethod
    def judge(cls, payload: UnknownPass, ctx: PassCtx) -> Optional[str]:
        return payload.message
