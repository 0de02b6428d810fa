"""The cheap stage blanks top-level definitions no selected rule can need (tvmlint.run.cheap.prune).

Blanking must never change a finding: what is kept is checked here, and every
scenario is run with the cheap stage off as well.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import CASE_TARGET, prefiltered, write_tree

from tvmlint.analysis.used_names import UsedNames, roots_of
from tvmlint.base.versions import parse_version
from tvmlint.knowledge.target import get_knowledge
from tvmlint.prefilter.decide import selection_for
from tvmlint.prefilter.prune import prune
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.engine import check_module
from tvmlint.run.runner import check_paths
from tvmlint.run.task import Task

VERSION = parse_version(CASE_TARGET)
CODES = frozenset({"TVM001", "TVM101", "TVM102", "TVM103", "TVM104", "TVM401"})

MODULE = '''\
import tvm
from tvm import relay


def helper(mod):
    return mod


def gated(mod):
    return relay.transform.FoldScaleAxis()(helper(mod))


def caller(mod):
    return gated(mod)


def unrelated(x):
    # noqa: TVM101 -- the blanked text keeps its line endings, so lines below stay put
    return [i * 2 for i in range(x)]


class Unrelated:
    def method(self):
        return 1
'''


def _prune(text: str, codes=CODES):
    tree = ast.parse(text)
    knowledge = get_knowledge(VERSION)
    used = UsedNames(tree, "module", False, roots_of(knowledge))
    return prune(text, tree, used, selection_for(frozenset(codes), VERSION))


def test_definitions_no_rule_needs_are_blanked_line_for_line():
    pruned = _prune(MODULE)
    assert pruned is not None
    kept, original = pruned.text.splitlines(), MODULE.splitlines()
    assert len(kept) == len(original)
    blanked = [i + 1 for i, (a, b) in enumerate(zip(kept, original)) if a != b]
    caller = original.index("def caller(mod):") + 1
    assert blanked == [n for n in range(caller, len(original) + 1) if original[n - 1]]
    # the helper `gated` calls stays; its caller goes (a later round brings it back if it matters)
    for line in ("def helper(mod):", "def gated(mod):", "import tvm"):
        assert line in kept
    # each blanked definition is one string statement over its lines (libcst reads one node,
    # not a node per empty line), and the tree handed on says so, line for line
    assert {kept[n - 1] for n in blanked} <= {"", '"""'}
    shape = [(type(s).__name__, s.lineno, s.end_lineno) for s in pruned.tree.body]
    assert [kind for kind, _, _ in shape] == ["Import", "ImportFrom", "FunctionDef", "FunctionDef", "Expr", "Expr", "Expr"]
    assert shape == [(type(s).__name__, s.lineno, s.end_lineno) for s in ast.parse(pruned.text).body]
    for name in ("module.Unrelated.method", "module.unrelated", "module.caller"):
        assert f"\n={name}\n" in pruned.mentions
    assert "\nmodule.gated\n" in pruned.mentions  # what `caller` calls: a later round asks


def test_a_blanked_definition_first_in_the_module_leaves_no_docstring():
    # a string first in a module is its docstring, and fixes that add an import put it after one
    text = (
        "def unrelated():\n    return 1\n\n\nimport tvm\nfrom tvm import relay\n\n\n"
        "def gated(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n\ndef other():\n    return 2\n"
    )
    pruned = _prune(text)
    assert pruned is not None and pruned.text.startswith("\n\n\n\nimport tvm\n")
    assert [type(s).__name__ for s in pruned.tree.body] == ["Import", "ImportFrom", "FunctionDef", "Expr"]
    assert pruned.text.endswith('\n\n\n"""\n"""\n')


def test_nothing_is_blanked_when_every_definition_may_matter():
    assert _prune("from tvm import relay\ndef f(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n") is None
    assert _prune("x = 1\n") is None


def test_a_literal_at_module_level_keeps_the_sum_that_reads_it():
    # TVM401 needs the "float16" string and te.sum together: they sit in different parts
    text = (
        "from tvm import te\nA = te.placeholder((8,), dtype='float16', name='A')\n"
        "def reduce():\n    k = te.reduce_axis((0, 8))\n    return te.compute((1,), lambda i: te.sum(A[k], axis=k))\n"
        "def other():\n    return 1\n"
    )
    pruned = _prune(text, {"TVM401"})
    assert pruned is not None and "def reduce():" in pruned.text and "def other():" not in pruned.text


SPLIT = (
    "from tvm.script import tirx as T\n\n\n"
    "def declares(C: T.Buffer((16,), 'float16')):\n    return C\n\n\n"
    "def sums(A, C):\n    for i in range(16):\n        with T.sblock('sum'):\n"
    "            with T.init():\n                C[i] = T.float16(0)\n            C[i] = C[i] + A[i]\n"
)


def test_a_module_wanted_only_for_what_its_definitions_do_apart_is_not_analysed():
    # the whole module declares a float16 `C` and sums into a `C`: two functions, two buffers
    pruned = _prune(SPLIT, {"TVM401"})
    assert pruned is not None and not pruned.holds_findings
    together = SPLIT.replace("def sums(A, C):", "def sums(A, C: T.Buffer((16,), 'float16')):")
    pruned = _prune(together, {"TVM401"})
    assert pruned.holds_findings and "def sums" in pruned.text and "def declares" not in pruned.text


def test_such_a_module_is_left_to_the_stdlib_parser(tmp_path):
    (tmp_path / "split.py").write_text(SPLIT)
    resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM401",)), cwd=tmp_path)
    report = check_paths([tmp_path], resolver, jobs=1, use_cache=False)
    assert report.files_analysed == 0 and not report.findings
    (tmp_path / "split.py").write_text(SPLIT.replace("def sums(A, C):", "def sums(A, C: T.Buffer((16,), 'float16')):"))
    report = check_paths([tmp_path], resolver, jobs=1, use_cache=False)
    assert report.files_analysed == 1 and [f.code for f in report.findings] == ["TVM401"]


def test_findings_and_their_positions_do_not_move(tmp_path):
    text = MODULE + "\n\ndef late(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\nlate(None)\n"
    # (callsites differ: `caller` is blanked; test_a_blanked_caller... follows that through the runner)
    checked = check_module(text, Task("m.py", "m", CODES, VERSION))
    full = check_module(text, Task("m.py", "m", CODES, VERSION, prefilter=False))
    assert checked.partial and not full.partial
    shown = lambda c: [(f.code, f.start, f.end, f.message) for f in c.result.findings]  # noqa: E731
    deferred = lambda c: [(d.code, d.start, d.end, d.ctx, d.payload) for d in c.result.deferred]  # noqa: E731
    assert deferred(checked) and deferred(checked) == deferred(full)
    assert shown(checked) == shown(full)
    sites = lambda c: [(s.callee, s.line) for s in c.result.callsites]  # noqa: E731
    assert set(sites(checked)) < set(sites(full))
    assert checked.result.noqa == full.result.noqa  # suppressions come from the whole text


def _same_on_and_off(root: Path, files):
    write_tree(root, files)
    resolver = SettingsResolver(Overrides(target_version=CASE_TARGET, select=("TVM101",)), cwd=root)
    on = check_paths([root], prefiltered(resolver, True), jobs=1, use_cache=False)
    off = check_paths([root], prefiltered(resolver, False), jobs=1, use_cache=False)
    shown = lambda r: [(f.path, f.start, f.code, f.message) for f in r.findings]  # noqa: E731
    assert shown(on) == shown(off)
    return on


def test_a_blanked_caller_of_a_helper_elsewhere_is_analysed_in_a_later_round(tmp_path):
    # `relay_caller` names no TVM name: blanked in app.py's first round, it is the only path
    # by which fold's pass runs at the default level
    files = {
        "helpers.py": "from tvm import relay\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        "app.py": (
            "import tvm\nfrom tvm import relay\nfrom helpers import fold\n\n"
            "def direct(mod):\n    with tvm.transform.PassContext(opt_level=3):\n        return relay.transform.FoldScaleAxis()(mod)\n\n"
            "def relay_caller(mod):\n    return fold(mod)\n\nrelay_caller(None)\n"
        ),
    }
    on = _same_on_and_off(tmp_path, files)
    assert [f.path for f in on.findings] == ["helpers.py"]
    # the call that decides the context in the message, the whole chain from fold's caller in the detail
    assert "when relay_caller is called from app.py:12, via 1 more call" in on.findings[0].message
    assert "app.py:10" in on.findings[0].detail


def test_a_blanked_caller_in_the_same_module_is_analysed_in_a_later_round(tmp_path):
    files = {"app.py": MODULE + "\ncaller(None)\n"}
    on = _same_on_and_off(tmp_path, files)
    assert len(on.findings) == 1 and "caller" in on.findings[0].message


def test_a_followed_function_keeps_its_callers_callers_in_one_go():
    # fold's context comes from mid, whose context comes from main: one analysis needs all three
    text = (
        "from tvm import relay\n\n\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n\n\n"
        "def mid(mod):\n    return fold(mod)\n\n\ndef main(mod):\n    return mid(mod)\n\n\ndef other():\n    return 1\n"
    )
    tree = ast.parse(text)
    knowledge = get_knowledge(VERSION)
    used = UsedNames(tree, "module", False, roots_of(knowledge))
    pruned = prune(text, tree, used, selection_for(frozenset(CODES), VERSION), follow=(frozenset({"module.fold"}), frozenset()))
    assert pruned is not None
    for line in ("def fold(mod):", "def mid(mod):", "def main(mod):"):
        assert line in pruned.text.splitlines()
    assert "def other():" not in pruned.text


# -- functions inside kept definitions (TVMScript modules) ---------------------------------

SCRIPT = '''\
from tvm.script import ir as I
from tvm.script import tirx as T


def test_schedule():
    @I.ir_module
    class Before:
        @T.prim_func
        def half(A: T.Buffer((16,), "float16"), C: T.Buffer((1,), "float16")):
            for k in range(16):
                with T.sblock("sum"):
                    with T.init():
                        C[0] = T.float16(0)
                    C[0] = C[0] + A[k]

        @T.prim_func
        def full(A: T.Buffer((16,), "float32"), D: T.Buffer((1,), "float32")):
            for k in range(16):
                with T.sblock("sum"):
                    with T.init():
                        D[0] = T.float32(0)
                    D[0] = D[0] + A[k]

        @T.prim_func
        def copy(A: T.Buffer((16,), "float16"), B: T.Buffer((16,), "float16")):
            for i in range(16):
                with T.sblock("copy"):
                    B[i] = A[i]

    def local_helper():
        return 1
    return Before, local_helper
'''


def _statements(tree: ast.AST):
    """Every statement's kind and place, nested ones included, in source order."""
    return sorted(
        (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, type(node).__name__)
        for node in ast.walk(tree) if isinstance(node, ast.stmt)
    )


def test_functions_inside_a_kept_definition_that_hold_no_finding_are_blanked():
    pruned = _prune(SCRIPT, {"TVM001", "TVM401"})
    assert pruned is not None and pruned.holds_findings
    kept, original = pruned.text.splitlines(), SCRIPT.splitlines()
    assert len(kept) == len(original)
    for line in ("        def half(A: T.Buffer((16,), \"float16\"), C: T.Buffer((1,), \"float16\")):", "def test_schedule():"):
        assert line in kept
    assert kept[original.index("    return Before, local_helper")] == '    ""'  # a statement of a kept function
    for gone in ("def full", "def copy", "def local_helper"):
        assert gone not in pruned.text
    # a string at the block's indentation stands for each, over the same lines
    assert kept[original.index("        @T.prim_func", 16) ] == '        """'
    assert kept[original.index("    def local_helper():")] == '    """'
    compile(pruned.text, "pruned.py", "exec")
    # the tree handed on is the stdlib parser's tree of the pruned text, and the original stays whole
    assert _statements(pruned.tree) == _statements(ast.parse(pruned.text))
    assert "def full" in ast.unparse(ast.parse(SCRIPT))
    assert "\n=module.full\n" in pruned.mentions and "\n=module.local_helper\n" in pruned.mentions


def test_a_blanked_inner_function_changes_no_finding_nor_its_place(tmp_path):
    text = SCRIPT + (
        "\n\nclass TestOther:\n    @T.prim_func\n    def first(A: T.Buffer((4,), 'float16'), C: T.Buffer((1,), 'float16')):\n"
        "        for k in range(4):\n            with T.sblock('s'):\n                with T.init():\n                    C[0] = T.float16(0)\n"
        "                C[0] += A[k]\n\n    @T.prim_func\n    def second(A: T.Buffer((4,), 'float32')):\n        T.evaluate(0)\n"
    )
    codes = frozenset({"TVM001", "TVM401"})
    version = parse_version("0.27")
    checked = check_module(text, Task("m.py", "m", codes, version))
    full = check_module(text, Task("m.py", "m", codes, version, prefilter=False))
    shown = lambda c: [(f.code, f.start, f.end, f.message) for f in c.result.findings]  # noqa: E731
    assert checked.partial and len(shown(full)) == 2
    assert shown(checked) == shown(full)


def test_an_inner_function_is_kept_when_its_buffer_is_declared_around_it():
    # the low-precision declaration sits in the enclosing function: the scope around counts
    text = (
        "from tvm.script import tirx as T\n\n\ndef make():\n    C = T.alloc_buffer((1,), 'float16')\n\n"
        "    def body(A):\n        with T.sblock('s'):\n            with T.init():\n                C[0] = T.float16(0)\n"
        "            C[0] = C[0] + A[0]\n\n    def other():\n        return 2\n    return body, other\n"
    )
    pruned = _prune(text, {"TVM001", "TVM401"})
    assert pruned is not None and "def body(A):" in pruned.text and "def other" not in pruned.text


def test_an_inner_function_that_imports_is_kept():
    # an import binds a name for the analysis's resolution elsewhere in the module
    text = SCRIPT.replace("    def local_helper():\n        return 1\n", "    def local_helper():\n        import tvm\n        return tvm\n")
    pruned = _prune(text, {"TVM001", "TVM401"})
    assert pruned is not None and "def local_helper():" in pruned.text and "def full" not in pruned.text


def test_inner_functions_stay_when_a_rule_that_does_not_say_otherwise_wants_the_module():
    # TVM101 judges calls under the contexts of their callers: a method may matter to it
    text = SCRIPT.replace("def test_schedule():\n", "def test_schedule():\n    relay.transform.FoldScaleAxis()(None)\n")
    text = "from tvm import relay\n" + text
    pruned = _prune(text, {"TVM001", "TVM101", "TVM401"})
    assert pruned is None or "def full" in pruned.text


def test_an_inner_function_first_in_its_class_and_with_tabs_is_blanked_to_a_string_that_parses():
    text = (
        "from tvm.script import tirx as T\n\n\ndef test():\n\tclass Module:\n\t\t@T.prim_func\n\t\tdef nothing(A: T.Buffer((4,), 'float16')):\n"
        "\t\t\tT.evaluate(0)\n\treturn Module\n"
    ).replace("def test():", "def test(C: T.Buffer((1,), 'float16')):\n\twith T.sblock('s'):\n\t\twith T.init():\n\t\t\tC[0] = T.float16(0)\n\t\tC[0] = C[0] + 1")
    pruned = _prune(text, {"TVM001", "TVM401"})
    assert pruned is not None and "def nothing" not in pruned.text
    assert '\t\t"""' in pruned.text.splitlines()
    assert _statements(pruned.tree) == _statements(ast.parse(pruned.text))


BODY = """\
from tvm.script import tirx as T


@T.prim_func
def mixed(A: T.Buffer((16,), "float16"), B: T.Buffer((16,), "float16"), C: T.Buffer((1,), "float16")):
    T.func_attr({"global_symbol": "mixed"})
    for i in range(16):
        with T.sblock("copy"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
    for k in range(16):
        if k < 8:
            with T.sblock("sum"):
                with T.init():
                    C[0] = T.float16(0)
                C[0] = C[0] + A[k]
        else:
            x = 1; y = 2
            for j in range(2):
                D = T.alloc_buffer((2,), "float32")
            else:
                T.evaluate(0)
    T.evaluate(1)
"""


def test_statements_of_a_kept_function_that_hold_no_finding_are_blanked():
    pruned = _prune(BODY, {"TVM001", "TVM401"})
    assert pruned is not None
    kept, original = pruned.text.splitlines(), BODY.splitlines()
    assert len(kept) == len(original)
    assert "copy" not in pruned.text and "T.func_attr" not in pruned.text and "T.evaluate" not in pruned.text
    for line in ("    for k in range(16):", "        if k < 8:", '            with T.sblock("sum"):', "        else:",
                 "            x = 1; y = 2", "            for j in range(2):", '                D = T.alloc_buffer((2,), "float32")',
                 "            else:"):
        assert line in kept, line  # around the finding, and two statements sharing a line
    assert kept[original.index("                T.evaluate(0)")] == '                ""'  # an `else` of a loop kept for its declaration
    compile(pruned.text, "pruned.py", "exec")
    assert _statements(pruned.tree) == _statements(ast.parse(pruned.text))
    assert "copy" in ast.unparse(ast.parse(BODY))


def test_a_blanked_statement_changes_no_finding(tmp_path):
    codes, version = frozenset({"TVM001", "TVM401"}), parse_version("0.27")
    checked = check_module(BODY, Task("m.py", "m", codes, version))
    full = check_module(BODY, Task("m.py", "m", codes, version, prefilter=False))
    shown = lambda c: [(f.code, f.start, f.end, f.message) for f in c.result.findings]  # noqa: E731
    assert checked.partial and len(shown(full)) == 1 and shown(checked) == shown(full)


def test_a_statement_that_declares_a_buffer_is_kept():
    # the float32 allocation gives C its dtype; blanked, the float16 parameter would, and TVM401
    # would report a sum it does not report
    text = BODY.replace('    T.func_attr({"global_symbol": "mixed"})\n', '    for _ in range(1):\n        C = T.alloc_buffer((1,), "float32")\n')
    pruned = _prune(text, {"TVM001", "TVM401"})
    assert pruned is not None and 'C = T.alloc_buffer((1,), "float32")' in pruned.text
    codes, version = frozenset({"TVM001", "TVM401"}), parse_version("0.27")
    checked = check_module(text, Task("m.py", "m", codes, version))
    full = check_module(text, Task("m.py", "m", codes, version, prefilter=False))
    assert checked.result.findings == full.result.findings == []


def test_a_call_in_a_blanked_statement_still_gives_its_helper_the_callers_context(tmp_path):
    # app.py is wanted by TVM401 alone, so the statements of `run` that hold no reduction go,
    # the call of `fold` among them; fold's finding depends on the context of that call
    files = {
        "helpers.py": "from tvm import relay\ndef fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        "app.py": (
            "from tvm.script import tir as T\nfrom helpers import fold\n\n\n"
            "def run(A: T.Buffer((16,), 'float16'), C: T.Buffer((1,), 'float16')):\n"
            "    for k in range(16):\n        with T.block('sum'):\n            with T.init():\n"
            "                C[0] = T.float16(0)\n            C[0] = C[0] + A[k]\n"
            "    fold(None)\n\n\nrun(None, None)\n"
        ),
    }
    write_tree(tmp_path, files)
    resolver = SettingsResolver(Overrides(target_version="0.19", select=("TVM101", "TVM401")), cwd=tmp_path)
    on = check_paths([tmp_path], prefiltered(resolver, True), jobs=1, use_cache=False)
    off = check_paths([tmp_path], prefiltered(resolver, False), jobs=1, use_cache=False)
    shown = lambda r: [(f.path, f.start, f.code, f.message) for f in r.findings]  # noqa: E731
    assert shown(on) == shown(off)
    assert [(f.path, f.code) for f in on.findings] == [("app.py", "TVM401"), ("helpers.py", "TVM101")], shown(on)
    assert "when run is called from app.py:14, via 1 more call" in on.findings[1].message
    assert "app.py:11" in on.findings[1].detail
    tree = ast.parse(files["app.py"])
    knowledge = get_knowledge(parse_version("0.19"))
    used = UsedNames(tree, "app", False, roots_of(knowledge))
    pruned = prune(files["app.py"], tree, used, selection_for(frozenset({"TVM001", "TVM401"}), parse_version("0.19")))
    assert "fold(None)" not in pruned.text and "\nhelpers.fold\n" in pruned.mentions  # what a later round asks


def _scanned_whole(used: UsedNames, statement: ast.stmt) -> UsedNames:
    """A part as a scan of every node under the statement gives it (what `part` joins from the
    statement's own nodes and its blocks' parts)."""
    from tvmlint.analysis.reach import define
    from tvmlint.analysis.used_names import nodes

    part = used._empty_part()
    part.uses_roots = used.uses_roots
    part._scan(nodes([statement]), imports=False)
    define([statement], used.module_name, {}, part.defined)
    part.names |= part.defined
    part._resolve()
    return part


def _facts(part: UsedNames) -> tuple:
    calls = {name: sorted(id(call) for call in found) for name, found in part.calls_to.items()}
    return (part.names, part.defined, part.called_outside_with, calls, part.unpacked, part.identifiers,
            part.strings, part.accumulated, part.declared, part.binds, part.uses_roots)


@pytest.mark.long
def test_a_nested_statements_part_is_what_scanning_all_of_it_gives():
    root = Path(__file__).resolve().parent.parent
    texts = [MODULE, SCRIPT, BODY] + [
        path.read_text(encoding="utf-8")
        for path in sorted([*(root / "tvmlint").rglob("*.py"), *(root / "tests" / "data").rglob("*.py"), *(root / "examples").rglob("*.py")])
    ]
    compared = 0
    for text in texts:
        tree = ast.parse(text)
        used = UsedNames(tree, "pkg.mod", False, roots_of(get_knowledge(VERSION)))
        # outermost first, as prune asks, and innermost first: the parts kept must not depend on the order
        for order in (list, lambda found: list(reversed(found))):
            used._scanned.clear()
            statements = [node for top in tree.body for node in ast.walk(top) if isinstance(node, ast.stmt) and node is not top]
            for statement in order(statements):
                assert _facts(used.part([statement])) == _facts(_scanned_whole(used, statement)), ast.dump(statement)[:200]
                compared += 1
    assert compared > 5000


def test_a_chain_a_part_resolves_again_still_names_its_prefixes():
    # the module resolves each chain once; every part that spells it uses the chain and its prefixes
    text = "import tvm\ntvm.relay.transform.FoldScaleAxis()\n\n\ndef f():\n    if x:\n        tvm.relay.transform.FoldScaleAxis()\n"
    tree = ast.parse(text)
    used = UsedNames(tree, "pkg.mod", False, roots_of(get_knowledge(VERSION)))
    wanted = {"tvm", "tvm.relay", "tvm.relay.transform", "tvm.relay.transform.FoldScaleAxis"}
    inner = tree.body[2].body[0].body[0]
    for part in (used, used.part([tree.body[1]]), used.part([tree.body[2]]), used.part([inner])):
        assert wanted <= part.names
    assert "tvm.relay.transform.FoldScaleAxis" in used.part([inner]).called_outside_with


# A module only the API rules want: a use is judged by the name it resolves to, so the helpers a
# kept definition names stay for the names they bind, and what those helpers name does not.
API_MODULE = '''\
import tvm
from tvm import contrib


def deeper(x):
    return x


def helper(x):
    return deeper(x)


def ported(lib, dev):
    return contrib.graph_runtime.create(helper(lib), lib, dev)


def shadowed(lib):
    return context(lib).asnumpy()


def context(lib):
    return tvm.nd.array(lib)


def unrelated():
    return 1
'''
API_CODES = frozenset({"TVM001", "TVM201", "TVM202"})


def test_a_helper_of_a_definition_only_the_api_rules_want_is_kept_without_what_it_names():
    pruned = _prune(API_MODULE, API_CODES)
    kept = {name for name in ("deeper", "helper", "ported", "shadowed", "context", "unrelated")
            if f"def {name}(" in pruned.text}
    assert kept == {"helper", "ported", "shadowed", "context"}
    # and of those kept for their names, only the definition: its statements go, line for line
    assert "return deeper(x)" not in pruned.text and "def helper(x):\n    \"\"\n" in pruned.text
    assert "contrib.graph_runtime.create(helper(lib), lib, dev)" in pruned.text
    assert pruned.text.count("\n") == API_MODULE.count("\n")
    # an import in one stays: it may bind a name the analysis resolves
    importing = _prune(API_MODULE.replace("    return deeper(x)", "    import numpy\n    return deeper(x)"), API_CODES)
    assert "    import numpy\n" in importing.text and "return deeper(x)" not in importing.text
    # a rule that reads what helpers do follows them all the way down
    deep = _prune(API_MODULE + "\n\ndef gated(mod):\n    return tvm.relay.transform.FoldScaleAxis()(helper(mod))\n",
                  API_CODES | {"TVM101"})
    assert "def deeper(" in deep.text


def test_api_findings_are_those_of_the_whole_module(tmp_path):
    # `shadow`: a module-level definition rebinds an imported name; blanking it would make
    # the use below name TVM's module again
    text = API_MODULE
    shadow = text.replace("def ported(", "def contrib():\n    pass\n\n\ndef ported(")
    for source in (text, shadow):
        checked = check_module(source, Task("m.py", "m", API_CODES, VERSION))
        full = check_module(source, Task("m.py", "m", API_CODES, VERSION, prefilter=False))
        assert checked.partial and not full.partial
        shown = lambda c: [(f.code, f.start, f.end, f.message) for f in c.result.findings]  # noqa: E731
        assert shown(checked) == shown(full)
    assert shown(check_module(text, Task("m.py", "m", API_CODES, VERSION)))
    assert not any("graph_runtime" in finding[3] for finding in shown(check_module(shadow, Task("m.py", "m", API_CODES, VERSION))))
