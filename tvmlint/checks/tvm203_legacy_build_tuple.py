"""TVM203 legacy-build-tuple: `graph, lib, params = relay.build(...)` where relay.build returns a factory module."""

from __future__ import annotations

from tvmlint.analysis.lazy import cst
from tvmlint.base.versions import format_version, in_range
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid
from tvmlint.knowledge.api_history import get_history

RELAY = "import tvm\nfrom tvm import relay\n"


class LegacyBuildTuple(Rule):
    code = "TVM203"
    prefilter = Prefilter(triggers=("build_tuple",), wants="build_tuple_unpacked")

    VALID = [
        # up to 0.6 relay.build returned the tuple
        Valid(RELAY, """
            graph, lib, params = relay.build(mod, target, params=params)
        """, target="0.6"),
        # relay is gone: TVM201 reports relay.build itself
        Valid(RELAY, """
            graph, lib, params = relay.build(mod, target, params=params)
        """, target="0.20"),
        Valid(RELAY, """
            lib = relay.build(mod, target, params=params)
        """, target="0.8"),
        Valid(RELAY, """
            graph, lib = pair(relay.build(mod, target))
        """, target="0.8"),
        Valid("""
            class relay:
                build = staticmethod(lambda *a: (1, 2, 3))
            graph, lib, params = relay.build(1)
        """, target="0.8"),
    ]

    INVALID = [
        Invalid(RELAY, """
            graph, lib, params = relay.build(mod, target, params=params)
        """, expect="lib.get_graph_json()", target="0.8"),
        Invalid(RELAY, """
            graph, lib, params = relay.build(mod, target, params=params)
        """, expect="lib.get_json()", target="0.7"),
        Invalid(RELAY, """
            (graph, lib, params) = relay.build_module.build(mod, target)
        """, detail="factory module", target="0.19"),
        Invalid("""
            from tvm.relay import build
            [g, l, p] = build(mod, 'llvm')
        """, expect="get_params()", target="0.12"),
    ]

    def visit_Assign(self, node: cst.Assign) -> None:
        table = get_history().build_tuple
        version = self.file.knowledge.version
        if table is None or not in_range(version, table.deprecated, table.removed):
            return
        if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return
        target = node.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 3:
            return
        if any(isinstance(element, cst.StarredElement) for element in target.elements):
            return
        qualname = self.file.qualname(node.value.func)
        if qualname not in table.api:
            return
        getter = table.json_getter(version) or "get_graph_json"
        # graph_executor is graph_runtime's name from the release that deprecates the old one
        executor = "graph_executor" if get_history().use("tvm.contrib.graph_runtime", version) else "graph_runtime"
        self.report(
            node,
            f"Unpacking {qualname.replace('tvm.', '', 1)}(...) into three values is deprecated since TVM "
            f"{table.deprecated} in favour of lib.{getter}(), lib.get_lib() and lib.get_params() on the module it returns",
            detail=(
                f"It returns a factory module, and unpacking it raises a DeprecationWarning (target "
                f"{format_version(version)}). Keep it whole, `lib = relay.build(...)`, and use lib.{getter}(), "
                f"lib.get_lib() and lib.get_params(), or run it with {executor}.GraphModule(lib['default'](dev))."
            ),
        )
