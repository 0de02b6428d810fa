"""TVM301 nnvm-fold-scale-axis: NNVM build_config at the level that enables its FoldScaleAxis."""

from __future__ import annotations

from tvmlint.analysis.lazy import cst
from tvmlint.analysis.module import call_arguments, int_literal
from tvmlint.checks.context_args import string_elements
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid
from tvmlint.knowledge.nnvm import nnvm

HEAD = "import nnvm.compiler\n"


class NnvmFoldScaleAxis(Rule):
    code = "TVM301"
    prefilter = Prefilter(triggers=("nnvm_build_config",))

    VALID = [
        Valid(HEAD, """
            with nnvm.compiler.build_config(opt_level=2):
                graph, lib, params = nnvm.compiler.build(net, 'llvm')
        """, target="0.6"),
        Valid(HEAD, """
            with nnvm.compiler.build_config(opt_level=level):
                pass
        """, target="0.6"),
        # a name bound twice is not one value: no guessing
        Valid(HEAD, """
            level = 3
            if fast:
                level = 2
            with nnvm.compiler.build_config(opt_level=level):
                pass
        """, target="0.6"),
        Valid(HEAD, """
            with nnvm.compiler.build_config(opt_level=2, add_pass=['AlterOpLayout']):
                pass
        """, target="0.5"),
        # a level a parameter takes from callers that disagree, or a command-line option with no default
        Valid(HEAD, """
            def build(sym, level):
                with nnvm.compiler.build_config(opt_level=level):
                    pass

            build(s, 3)
            build(s, 2)
        """, target="0.6"),
        Valid("""
            import argparse
            import nnvm.compiler
            p = argparse.ArgumentParser()
            p.add_argument('--opt-level', type=int)
            args = p.parse_args()
            with nnvm.compiler.build_config(opt_level=args.opt_level):
                pass
        """, target="0.6"),
        # Relay's build_config is not NNVM's
        Valid("""
            from tvm import relay
            with relay.build_config(opt_level=3):
                pass
        """, target="0.6"),
        Valid("""
            import argparse
            import nnvm.compiler

            parser = argparse.ArgumentParser()
            aa = parser.add_argument
            aa('--opt-level', type=int, default=2)
            args = parser.parse_args()

            with nnvm.compiler.build_config(opt_level=args.opt_level):
                graph = nnvm.compiler.build(None, 'llvm')
        """, target="0.5"),
        # ... not when a construction passes another level, or the attribute is set twice
        Valid("""
            import nnvm.compiler

            class Params:
                def __init__(self, opt_level=3):
                    self.opt_level = opt_level

            def compile(sym, param):
                with nnvm.compiler.build_config(opt_level=param.opt_level):
                    return nnvm.compiler.build(sym, 'llvm')

            compile(None, Params(opt_level=2))
        """, target="0.5"),
        Valid("""
            import nnvm.compiler

            class Params:
                def __init__(self):
                    self.opt_level = 3

            def compile(sym, param):
                param.opt_level = 2
                with nnvm.compiler.build_config(opt_level=param.opt_level):
                    return nnvm.compiler.build(sym, 'llvm')
        """, target="0.5"),
    ]
    INVALID = [
        Invalid(HEAD, """
            with nnvm.compiler.build_config(opt_level=3):
                graph, lib, params = nnvm.compiler.build(net, 'llvm')
        """, target="0.6", detail="93% to 62%"),
        Invalid("""
            from nnvm.compiler import build_module as bm
            with bm.build_config(opt_level=3):
                pass
        """, target="0.5", detail="opt_level=2"),
        Invalid("""
            import nnvm.compiler as nc
            with nc.build_config(opt_level=2, add_pass=['FoldScaleAxis']):
                pass
        """, target="0.6", expect="add_pass"),
        # the level through a name: a script's `opt_level = 3` at the top, a function's local
        Invalid(HEAD, """
            opt_level = 3
            with nnvm.compiler.build_config(opt_level=opt_level, add_pass=None):
                graph, lib, params = nnvm.compiler.build(sym, 'llvm', shape)
        """, target="0.4", expect="build_config(opt_level=opt_level, which is 3)"),
        Invalid(HEAD, """
            def build(sym):
                level = 3
                with nnvm.compiler.build_config(opt_level=level):
                    return nnvm.compiler.build(sym, 'llvm')
        """, target="0.5", expect="which is 3"),
        # (issue #28) a level passed down from a command-line option's default (pfnet-research/
        # chainer-compiler utils/run_onnx_tvm.py: --opt_level default 3 -> compile_nnvm(..., args.opt_level))
        Invalid("""
            import argparse
            import nnvm.compiler

            def compile_nnvm(symbol, target, opt_level):
                with nnvm.compiler.build_config(opt_level=opt_level):
                    return nnvm.compiler.build(symbol, target)

            def main():
                parser = argparse.ArgumentParser()
                parser.add_argument('--opt_level', '-O', type=int, default=3)
                args = parser.parse_args()
                compile_nnvm(None, 'llvm', args.opt_level)

            main()
        """, target="0.6", expect="which is 3 as given on line 10"),
        # (session 9) options declared through a name for the parser's method (ehsanmok/tvm-rust
        # examples/resnet/src/build_resnet.py: `aa = parser.add_argument`, --opt-level default 3)
        Invalid("""
            import argparse
            import nnvm.compiler

            parser = argparse.ArgumentParser()
            aa = parser.add_argument
            aa('--opt-level', type=int, default=3)
            args = parser.parse_args()
            opt_level = args.opt_level

            def build(net):
                with nnvm.compiler.build_config(opt_level=opt_level):
                    return nnvm.compiler.build(net, 'llvm')
        """, target="0.5", expect="which is 3 as given on line 6"),
        # (session 9) a level kept on a settings object: its class's constructor default, which
        # the one construction keeps (Ruuphoria/Go-AI-ML-Library python/tvm_wrapper.py)
        Invalid("""
            import nnvm.compiler

            class Params:
                def __init__(self, target, opt_level=3):
                    self.target = target
                    self.opt_level = opt_level

            class Wrapper:
                def __init__(self, param):
                    self.__param = param

                def compile(self, sym):
                    with nnvm.compiler.build_config(opt_level=self.__param.opt_level):
                        return nnvm.compiler.build(sym, self.__param.target)

            Wrapper(Params("llvm")).compile(None)
        """, target="0.5", expect="which is 3 as given on line 4"),
    ]

    def start(self) -> None:
        facts = nnvm()
        self.enabled = facts.in_use(self.file.knowledge.version)
        self.apis = facts.build_config_apis
        self.params = facts.build_config_params
        self.min_level = facts.fold_scale_axis_level

    def visit_Call(self, node: cst.Call) -> None:
        if not self.enabled or self.file.qualname(node.func) not in self.apis:
            return
        args, _hidden = call_arguments(node, ())  # build_config(**kwargs): keywords only
        level_node = args.get("opt_level")
        # a level held in a name bound once to a literal (`opt_level = 3` at the top of a script)
        level = self.file.analysis.written_levels.get(level_node)
        given = ""
        if level is None and isinstance(level_node, (cst.Name, cst.Attribute)):
            level, given = self._level_through_calls(level_node)
        if level is not None and level >= self.min_level:
            setting = f"opt_level={level}" if int_literal(level_node) is not None else (
                f"opt_level={self.file.module.code_for_node(level_node)}, which is {level}{given}")
            self.report(level_node, self._message(setting), detail=self.DETAIL)
        for name, element in string_elements(args.get("add_pass")):
            if name == "FoldScaleAxis":
                self.report(element, self._message("add_pass=['FoldScaleAxis']"), detail=self.DETAIL)

    def _level_through_calls(self, node) -> tuple:
        """A level held in a parameter or a command-line option (`opt_level=opt_level` in a helper
        every visible caller gives 3, `args.opt_level` with `add_argument(..., default=3)`), read
        from the module's stdlib tree: (the level, where it is given), or (None, "")."""
        import ast

        from tvmlint.analysis.kernel_use import KernelUse

        tree = self.file.stdlib_tree
        if tree is None:
            return None, ""
        line = self.file.span(node)[0].line
        try:
            expression = ast.parse(self.file.module.code_for_node(node).strip(), mode="eval").body
            found = KernelUse(self.file.text, frozenset(), tree=tree).value_at(expression, line)
        except (SyntaxError, ValueError, RecursionError):
            return None, ""
        if found is None or type(found[0]) is not int:
            return None, ""
        return found[0], f" as given on line {found[1]}"

    def _message(self, setting: str) -> str:
        return (
            f"nnvm.compiler.build_config({setting}) enables NNVM's FoldScaleAxis, which also folds negative scales "
            "and can change the model's outputs"
        )

    DETAIL = (
        "A user's auto-tuned CNN fell from 93% to 62% accuracy at opt_level 3. Build with opt_level=2, or port the "
        "model to Relay, whose FoldScaleAxis folds only positive constant scales."
    )
