"""Lazy positions (tvmlint.analysis.positions) must equal libcst's PositionProvider for every node and call."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from tvmlint.analysis.module import ModuleAnalysis, call_key
from tvmlint.analysis.positions import LazyPositions
from tvmlint.analysis.walk import walk
from tvmlint.base.versions import parse_version
from tvmlint.knowledge.target import get_knowledge

ROOT = Path(__file__).resolve().parent.parent

SNIPPETS = {
    "decorators with comments and blank lines": (
        "# header comment\n\nimport tvm\n\n\n# about f\n@dec(1)\n# between\n@other.deco(g(2))\n\ndef f(x=h()):\n"
        "    return x(1)(2)\n\n\nclass C(base(3), metaclass=meta()):\n    def m(self):\n        f(f(f()))\n"
    ),
    "semicolons and one-line blocks": "a = f(); b = f(); c = g()\nif a: f()\nelse: g(); f()\nwhile b: break\n",
    "backslash continuation": "x = f(1) + \\\n    f(2)\ny = 3; \\\nz = f(4)\n",
    "no trailing newline": "import tvm\nf(1)\ndef g():\n    return f(2)",
    "trailing comments": "def f():\n    return 1\n    # indented comment after the body\n# dedented comment\n\nf()\n# footer\n",
    "crlf": "import tvm\r\ndef f():\r\n    return g(1)\r\n\r\nf()\r\n",
    "strings and f-strings": 'x = f"{g(1)} and {g(2)!r}"\ny = """\nmulti\nline\n""" + g(3)\nz = f(\n    g(4),\n)\n',
    "tabs and form feed": "if True:\n\tf(1)\n\x0c\ndef g():\n\treturn f(2)\n",
    "only comments": "# nothing\n# here\n",
    "empty": "",
    "async and match": (
        "async def f():\n    async with g() as x:\n        await h(x)\n"
        "match f():\n    case [a, *_]:\n        g(a)\n    case _:\n        pass\n"
    ),
    # the stdlib parser puts this decorator on the line after its `@`: the accounting
    # disagrees and every position comes from libcst's own provider instead
    "decorator after a line continuation (middle)": "import tvm\n@\\\ndec\ndef f():\n    g(1)\nh(2)\n",
    "decorator after a line continuation (last)": "import tvm\nx = 1\n@\\\ndec\ndef f():\n    g(1)\n",
}


def _files():
    for name, text in SNIPPETS.items():
        yield pytest.param(text, False, id=name)
    for path in sorted([*(ROOT / "tvmlint").rglob("*.py"), *(ROOT / "examples").rglob("*.py"), *(ROOT / "tests" / "data").rglob("*.py")]):
        yield pytest.param(path.read_text(encoding="utf-8"), True, id=str(path.relative_to(ROOT)))


def _parsed(text: str):
    module = cst.parse_module(text)
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    analysis = ModuleAnalysis(get_knowledge(parse_version("0.27")), "snippet")
    walk(module, analysis)
    return module, full, analysis


def _positions(module, text: str, analysis, nested: bool = True) -> LazyPositions:
    # a fresh one for each order of asking: what it has rendered decides the path it takes
    return LazyPositions(
        module, text, lambda: ast.parse(text), analysis, nested=nested,
    )


def _lazy(text: str, nested: bool = True):
    module, full, analysis = _parsed(text)
    return module, full, analysis, _positions(module, text, analysis, nested)


def _depth(analysis, node) -> int:
    depth, statement = 0, analysis.statement_of(node)
    while statement is not None:
        depth, statement = depth + 1, analysis.parent_statement_of(statement)
    return depth


@pytest.mark.parametrize("text, real", list(_files()))
def test_every_node_and_call_is_where_libcst_says_in_any_order(text, real):
    # One parse per file (libcst's own positions are the slow part), asked in three orders.
    module, full, analysis = _parsed(text)
    body = set(module.body)
    mine = [(node, where) for node, where in full.items() if analysis.top_statement_of(node) in body]
    # libcst's order: a node after its children
    lazy = _positions(module, text, analysis)
    for node, where in mine:
        assert lazy[node] == where, (type(node).__name__, where, lazy[node])
    # calls first, so the ast path is the one tested
    lazy = _positions(module, text, analysis)
    for call, rank in analysis.call_ordinals.items():
        key = call_key(call.func)
        count = analysis.call_counts[(analysis.top_statement_of(call), key)]
        assert lazy.call_line(call, key, rank, count) == full[call].start.line
    # the deepest statements' nodes first: each statement in a block is rendered alone
    lazy = _positions(module, text, analysis)
    for node, where in sorted(mine, key=lambda item: -_depth(analysis, item[0])):
        assert lazy[node] == where, (type(node).__name__, where, lazy[node])
    if real:  # a real file's statements in blocks render alone, never the whole module
        nested = [statement for statement in lazy._done if analysis.parent_statement_of(statement) is not None]
        assert not lazy._full and (nested or not any(analysis._parent_statement.values()))
    # outermost first (libcst's order reversed): each top-level statement is rendered whole
    lazy = _positions(module, text, analysis)
    for node, where in reversed(mine):
        assert lazy[node] == where, (type(node).__name__, where, lazy[node])


def test_a_node_deep_in_a_class_renders_only_its_own_line():
    text = (
        "import tvm\n@tvm.script.ir_module\nclass Module:\n"
        + "".join(f"    def f{i}(x: int):\n        with g():\n            if x:\n                pass\n"
                  f"            elif x > 1:\n                y = [{i}]\n            else:\n                y = ({i}, 'é')\n"
                  f"            try:\n                y = x\n            except E:\n                z = f({i})\n\n"
                  for i in range(20))
    )
    module, full, analysis, lazy = _lazy(text)
    for node in full:
        if isinstance(node, (cst.Integer, cst.SimpleString)) and isinstance(analysis.statement_of(node), cst.SimpleStatementLine):
            assert lazy[node] == full[node]
    assert 40 <= len(lazy._done) <= 60 and module.body[1] not in lazy._done and not lazy._full


def test_only_the_statements_asked_about_are_rendered():
    text = "import tvm\n" + "".join(f"def f{i}():\n    return g({i})\n\n" for i in range(50))
    module, full, analysis, lazy = _lazy(text)
    target = module.body[30].body.body[0].body[0].value  # g(29)
    assert lazy[target] == full[target]
    assert len(lazy._done) == 1 and not lazy._full
    for call, rank in analysis.call_ordinals.items():
        lazy.call_line(call, call_key(call.func), rank, analysis.call_counts[(analysis.top_statement_of(call), "g")])
    assert len(lazy._done) == 1 and not lazy._full  # call lines come from the stdlib tree


@pytest.mark.parametrize("name", [name for name in SNIPPETS if "line continuation" in name])
def test_disagreeing_accounting_falls_back_to_libcst(name):
    module, full, analysis, lazy = _lazy(SNIPPETS[name])
    for statement in module.body:
        assert lazy[statement] == full[statement]
    assert lazy._full


def test_a_line_named_mid_walk_is_checked_once_the_calls_are_counted():
    text = "import tvm\ndef f():\n    g(1)\n    g(2)\n"
    module, full, analysis, lazy = _lazy(text)
    second = module.body[1].body.body[1].body[0].value
    assert lazy.hint_line(second, "g", 1) == 4
    assert lazy.hints_hold(analysis.call_counts)
    assert not lazy.hints_hold({(module.body[1], "g"): 3})  # libcst counted another g(): walk again exactly
    exact = LazyPositions(module, text, lambda: None, analysis, exact=True, nested=False)
    assert exact.hint_line(second, "g", 1) == 4 and exact.hints_hold({})


@pytest.mark.parametrize("text, blocks", [
    ("def f():\n    a\n", 1),
    ("class C:\n    a\n", 1),
    ("with x:\n    a\n", 1),
    ("for i in x:\n    a\nelse:\n    b\n", 2),
    ("while x:\n    a\n", 1),
    ("if x:\n    a\nelif y:\n    b\nelse:\n    c\n", 1),  # the elif is a statement of its own
    ("try:\n    a\nexcept E:\n    b\nexcept F:\n    c\nelse:\n    d\nfinally:\n    e\n", 5),
    ("match x:\n    case 1:\n        a\n    case _:\n        b\n", 2),
])
def test_each_block_pairs_with_the_stdlib_parsers_statements(text, blocks):
    # a block that does not pair would still be placed right, by the statement around it:
    # only this says nested statements keep rendering alone
    import ast

    import libcst

    from tvmlint.analysis.positions import _blocks

    pairs = _blocks(libcst.parse_module(text).body[0], ast.parse(text).body[0])
    assert pairs is not None and len(pairs) == blocks
    for block, stdlib in pairs:
        assert len(block.body) == len(stdlib)


def test_a_node_in_a_header_renders_the_header_only():
    # a TVMScript buffer declared as a parameter, in a long function: its line is named in a
    # message, and the function's body need not be rendered for it
    body = "".join(f"        with T.block('b{i}'):\n            x = [{i}]\n" for i in range(40))
    text = (
        "import tvm\nclass Module:\n    @T.prim_func\n    def main(\n        a: T.Buffer((4,), 'float16'),  # note\n"
        "        b,\n    ):\n\n        # first\n" + body + "for i in f(\n  2):\n    pass\nelse:\n    pass\n"
    )
    module, full, analysis, lazy = _lazy(text)
    function = module.body[1].body.body[0]
    annotation = function.params.params[0].annotation
    loop = module.body[2]
    for node in (annotation, annotation.annotation, function.params.params[1], loop.iter):
        assert lazy[node] == full[node]
    assert not lazy._done and not lazy._full and lazy._headers == {function, loop}
    first_with = function.body.body[0]
    assert lazy[first_with.items[0]] == full[first_with.items[0]] and lazy._done == set()
    value = first_with.body.body[0].body[0].value
    assert lazy[value] == full[value] and lazy._done == {first_with.body.body[0]}
