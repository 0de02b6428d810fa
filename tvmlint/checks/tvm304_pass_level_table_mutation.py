"""TVM304 pass-level-table-mutation: writing to NNVM's process-wide OPT_PASS_LEVEL."""

from __future__ import annotations

from typing import Optional

from tvmlint.analysis.lazy import cst
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid
from tvmlint.knowledge.nnvm import nnvm

MUTATORS = frozenset({"update", "pop", "popitem", "clear", "setdefault", "__setitem__", "__delitem__"})
HEAD = "import nnvm.compiler.build_module as bm\n"


class PassLevelTableMutation(Rule):
    code = "TVM304"
    prefilter = Prefilter(triggers=("nnvm_opt_pass_level",))

    VALID = [
        Valid(HEAD, """
            level = bm.OPT_PASS_LEVEL['FoldScaleAxis']
            names = sorted(bm.OPT_PASS_LEVEL)
        """, target="0.6"),
        Valid(HEAD, """
            levels = dict(bm.OPT_PASS_LEVEL)
            levels['FoldScaleAxis'] = 2
        """, target="0.6"),
        # a local name that happens to be called the same
        Valid("""
            OPT_PASS_LEVEL = {}
            OPT_PASS_LEVEL['FoldScaleAxis'] = 2
        """, target="0.6"),
        # a name bound to the table, then to a copy
        Valid(HEAD, """
            table = bm.OPT_PASS_LEVEL
            table = dict(table)
            table['FoldScaleAxis'] = 2
        """, target="0.6"),
        Valid(HEAD, """
            def f():
                table = bm.OPT_PASS_LEVEL

            def g(table):
                table['FoldScaleAxis'] = 2
        """, target="0.6"),
        # nnvm.compiler does not re-export the table
        Valid("""
            import nnvm.compiler as nc
            nc.OPT_PASS_LEVEL = {}
        """, target="0.6"),
    ]
    INVALID = [
        Invalid(HEAD, """
            bm.OPT_PASS_LEVEL['FoldScaleAxis'] = 2
        """, target="0.6", expect="every later build"),
        Invalid("""
            import nnvm.compiler
            nnvm.compiler.build_module.OPT_PASS_LEVEL['AlterOpLayout'] += 1
        """, target="0.6"),
        Invalid("""
            from nnvm.compiler.build_module import OPT_PASS_LEVEL
            OPT_PASS_LEVEL.update({'OpFusion': 3})
        """, target="0.5", expect="calls update() on"),
        Invalid(HEAD, """
            del bm.OPT_PASS_LEVEL['AlterOpLayout']
        """, target="0.6"),
        Invalid("""
            from nnvm.compiler import build_module
            build_module.OPT_PASS_LEVEL = {'FoldScaleAxis': 4}
        """, target="0.6"),
        # a name bound to the same dict
        Invalid(HEAD, """
            def bisect():
                table = bm.OPT_PASS_LEVEL
                table['FoldScaleAxis'] = 2
        """, target="0.6"),
    ]

    def start(self) -> None:
        self.enabled = nnvm().in_use(self.file.knowledge.version)
        self.apis = nnvm().opt_pass_level_apis
        self.aliases = [set()]

    def _is_table(self, node: Optional[cst.CSTNode]) -> bool:
        if isinstance(node, cst.Name) and node.value in self.aliases[-1]:
            return True
        return node is not None and self.file.qualname(node) in self.apis

    # `table = bm.OPT_PASS_LEVEL` makes `table` the same dict, until the name is bound to something else
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.aliases.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.aliases.pop()

    def _rebind(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        if isinstance(target, cst.Name):
            if value is not None and self._is_table(value):
                self.aliases[-1].add(target.value)
            else:
                self.aliases[-1].discard(target.value)

    def _written(self, target: cst.BaseExpression, item: str, whole: str) -> Optional[str]:
        """What writing to `target` does to the table (`item` or `whole`), or None when it is not the table."""
        if isinstance(target, cst.Subscript) and self._is_table(target.value):
            return item
        if isinstance(target, cst.Attribute) and self._is_table(target):
            return whole
        return None

    def _report(self, node: cst.CSTNode, how: str) -> None:
        if self.enabled:
            self.report(
                node,
                f"This {how} NNVM's OPT_PASS_LEVEL, the table every later build in the process reads",
                detail=(
                    "Every build reads the table to decide which passes run: the change outlives this code and "
                    "surprises every other caller. Use build_config(opt_level=..., add_pass=[...]) for one build instead."
                ),
            )

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            how = self._written(target.target, "changes a level in", "replaces")
            if how:
                self._report(target.target, how)
        for target in node.targets:
            self._rebind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._rebind(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._rebind(node.target, None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        how = self._written(node.target, "changes a level in", "replaces")
        if how:
            self._report(node.target, how)

    def visit_Del(self, node: cst.Del) -> None:
        targets = node.target.elements if isinstance(node.target, cst.Tuple) else ()
        for target in [node.target, *(element.value for element in targets)]:
            how = self._written(target, "deletes an entry of", "deletes")
            if how:
                self._report(target, how)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATORS and self._is_table(func.value):
            self._report(node, f"calls {func.attr.value}() on")
