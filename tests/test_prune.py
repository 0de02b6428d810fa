"""The cheap stage blanks top-level definitions no selected rule can need (tvmlint.cheap.prune).

Blanking must never change a finding: what is kept is checked here, and every
scenario is run with the cheap stage off as well.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tvmlint.cheap import UsedNames, prune, roots_of
from tvmlint.config import Overrides, SettingsResolver
from tvmlint.engine import check_module, selection_for
from tvmlint.knowledge import get_knowledge
from tvmlint.runner import check_paths
from tvmlint.versions import parse_version

from helpers import CASE_TARGET, write_tree

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
    checked = check_module(text, "m.py", CODES, VERSION, "m")
    full = check_module(text, "m.py", CODES, VERSION, "m", cheap=False)
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
    on = check_paths([root], resolver, jobs=1, use_cache=False, cheap=True)
    off = check_paths([root], resolver, jobs=1, use_cache=False, cheap=False)
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
    assert "app.py:10" in on.findings[0].message


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
