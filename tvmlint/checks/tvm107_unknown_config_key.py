"""TVM107 unknown-config-key: a PassContext config key the target release does not register."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from tvmlint.base.diagnostics import Fix
from tvmlint.checks.context_args import (
    ContextSettingsRule,
    context_calls,
    literal_keys,
    replace_string,
)
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Valid
from tvmlint.knowledge.registry import config_key_verdict, config_keys, keys_at

if TYPE_CHECKING:
    from tvmlint.base.diagnostics import Finding
    from tvmlint.checks.confirmation import LiveTVM, Verdict

HEAD = "import tvm\n"


class UnknownConfigKey(ContextSettingsRule):
    code = "TVM107"
    prefilter = Prefilter(triggers=("context_factories",), wants="unknown_config_key")

    VALID = [
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, config={'tirx.disable_vectorize': True}):
                pass
        """, target="0.27"),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, config={'tir.disable_vectorize': True}):
                pass
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(config={'relay.FuseOps.max_depth': 10}):
                pass
        """),
        # registered only in builds with that backend: TVM cannot be judged without the build
        Valid(HEAD, """
            with tvm.transform.PassContext(config={'relax.ext.tensorrt.options': {}}):
                pass
        """, target="0.27"),
        # a namespace TVM never used: an extension's own key
        Valid(HEAD, """
            with tvm.transform.PassContext(config={'mylib.tile': 4}):
                pass
        """, target="0.27"),
        Valid(HEAD, """
            with tvm.transform.PassContext(config=settings):
                pass
        """),
        # bytes are no config key: nothing to judge (and nothing to crash on)
        Valid(HEAD, """
            with tvm.transform.PassContext(config={b'tir.disable_vectorise': True}):
                pass
        """),
    ]
    INVALID = [
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, config={'tir.disable_vectorize': True}):
                pass
        """, target="0.27", expect="renamed in 0.24", fixed="""
            with tvm.transform.PassContext(opt_level=3, config={'tirx.disable_vectorize': True}):
                pass
        """),
        # a chain of renames ends at the key the target registers
        Invalid(HEAD, """
            ctx = tvm.transform.PassContext(config={"tir.ptx_ldg32": True})
        """, target="0.27", expect="'tirx.s_tir.ldg32'"),
        # too new for the target
        Invalid(HEAD, """
            with tvm.transform.PassContext(config={'tirx.disable_vectorize': True}):
                pass
        """, expect="'tir.disable_vectorize'"),
        # removed with Relay
        Invalid(HEAD, """
            with tvm.transform.PassContext(config={'relay.FuseOps.max_depth': 10}):
                pass
        """, target="0.27", expect="removed in 0.20"),
        # a typo in a TVM namespace
        Invalid(HEAD, """
            with tvm.transform.PassContext(3, None, None, None, {'tir.disable_vectorise': True}):
                pass
        """, expect="did you mean 'tir.disable_vectorize'"),
        # gone with nothing in its place, so no fix (tvm-v0.19.0
        # tests/python/contrib/test_hexagon/test_async_dma_pipeline.py, run at 0.21)
        Invalid(HEAD, """
            with tvm.transform.PassContext(config={"tir.use_async_copy": 1, "tir.experimental_dma_bypass_cache": 1}):
                pass
        """, target="0.21", expect="'tir.experimental_dma_bypass_cache' is not registered in TVM 0.21 (it was removed in 0.20)"),
    ]

    def start(self) -> None:
        knowledge = self.file.knowledge
        for call in context_calls(self.file):
            if "config" not in knowledge.context_factories[call.qualname].params:
                continue
            for key, node, _value in literal_keys(call.args.get("config")):
                verdict = config_key_verdict(knowledge.version, key)
                if verdict is None:
                    continue
                replacement = verdict.replacement
                if replacement is None:
                    close = difflib.get_close_matches(key, keys_at(knowledge.version), n=1, cutoff=0.8)
                    replacement = close[0] if close else None
                message = (
                    f"Config key '{key}' is not registered in TVM {knowledge.version_text} ({verdict.reason}), so "
                    "creating this PassContext raises AttributeError"
                )
                detail = (
                    f"TVM {knowledge.version_text} registers no such config option ({verdict.reason}): a PassContext "
                    "given it raises AttributeError where it is created, before anything is built."
                )
                fix = None
                if replacement is not None:
                    said = f"use '{replacement}'" if verdict.replacement else f"did you mean '{replacement}'?"
                    message += f" ({said})"
                    detail += f" {said[0].upper()}{said[1:]}"
                    detail += "." if verdict.replacement else ""
                    # a documented rename between keys of the same type is exact; a spelling guess is not
                    exact = verdict.replacement is not None and _same_type(key, replacement)
                    fix = Fix(f"Use '{replacement}'", (replace_string(self.file, node, replacement),), safe=exact)
                self.report(node, message, fix, detail=detail)

    @classmethod
    def confirm(cls, finding: Finding, tvm: LiveTVM) -> Verdict:
        """A PassContext given the key raises in the installed TVM."""
        from tvmlint.checks.confirmation import Verdict
        from tvmlint.checks.finding_subject import subject

        key = subject(finding, "key")
        if key is None:
            return Verdict(None, "tvmlint could not tell which config key the finding is about")
        other = tvm.other_release(finding)
        if other:
            return other
        facts = finding.facts or {}
        value = facts.get("value", True)
        error = tvm.config_error(key, value)
        if key in tvm.configs or error is None:
            return Verdict(False, f"the installed {tvm.tvm} accepts PassContext(config={{{key!r}: ...}})")
        error = error.split(" candidates are")[0]
        return Verdict(True, f"PassContext(config={{{key!r}: {value!r}}}) raises in the installed {tvm.tvm}: {error}")


def _same_type(old: str, new: str) -> bool:
    keys = config_keys()
    old_type = keys[old].type if old in keys else None
    return old_type is not None and old_type == (keys[new].type if new in keys else None)
