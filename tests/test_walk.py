"""The read-only walk (tvmlint.analysis.walk) must reach what libcst's `visit` reaches, in the same order."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from tvmlint.analysis.walk import Batched, Visitor, trivia, walk

ROOT = Path(__file__).resolve().parent.parent

SNIPPETS = {
    "every statement kind": (
        "import a.b as c\nfrom . import (d, e as f)\n@dec(1)\nasync def g(x: int = 1, /, *args, y, **kw) -> 'T':\n"
        "    global h\n    async with a() as (b, c), d:\n        async for i in j: yield i\n    try:\n        pass\n"
        "    except* E as e:\n        raise X from e\n    else:\n        del k[1:2, ::3]\n    finally:\n        return\n"
        "class K[T](B, metaclass=M):\n    x: int = lambda q, *, r=2: (q, *r)\n"
        "while (n := f()):\n    break\nelse:\n    continue\nassert a, b\nx = [i for i in y if i] + {k: v for k, v in z}\n"
        "match p:\n    case {'a': [1, *rest], **kw} | Point(x=0) if rest:\n        pass\n    case _:\n        pass\n"
        "type Alias = list[int]\nprint(f'{a!r:>{w}} {b=}', *c, **d)\nx @= y; z = not -a if b else ~c ** d\n"
    ),
    "comments, blank lines and decorators": "# c\n\n@a\n# d\n@b.c(d)\n\nclass E:  # e\n    '''doc'''\n\n    # f\n    def g(self): ...\n",
}


def _trees():
    for name, text in SNIPPETS.items():
        yield pytest.param(text, id=name)
    for path in sorted([*(ROOT / "tvmlint").rglob("*.py"), *(ROOT / "examples").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]):
        yield pytest.param(path.read_text(encoding="utf-8"), id=str(path.relative_to(ROOT)))


class Recorder(cst.CSTVisitor):
    """Every visit and leave but those of trivia (whitespace, operators, punctuation), which
    the walk leaves out; and whether a trivia node ever held anything but trivia."""

    def __init__(self, skip=()):
        super().__init__()
        self.events = []
        self.skip = tuple(skip)
        self.trivia = trivia()
        self.inside_trivia = 0
        self.code_inside_trivia = []

    def on_visit(self, node):
        if type(node) in self.trivia:
            self.inside_trivia += 1
            return True
        if self.inside_trivia:
            self.code_inside_trivia.append(type(node).__name__)
        self.events.append(("visit", id(node)))
        return not isinstance(node, self.skip)

    def on_leave(self, original_node):
        if type(original_node) in self.trivia:
            self.inside_trivia -= 1
            return
        self.events.append(("leave", id(original_node)))


@pytest.mark.parametrize("text", list(_trees()))
def test_walk_visits_what_libcst_visits_in_its_order(text):
    module = cst.parse_module(text)  # once: parsing is most of the cost
    for skip in ((), (cst.Call, cst.IndentedBlock)):  # every child, then children skipped
        theirs, ours = Recorder(skip), Recorder(skip)
        module.visit(theirs)
        walk(module, ours)
        assert len(ours.events) > 0 and ours.events == theirs.events, skip
        assert theirs.code_inside_trivia == [] and ours.inside_trivia == 0


def test_trivia_are_the_whitespace_operator_and_bracket_nodes():
    names = {kind.__name__ for kind in trivia()}
    assert {"SimpleWhitespace", "Comment", "EmptyLine", "Comma", "Dot", "Add", "NotIn", "AssignEqual", "LeftParen",
            "RightCurlyBrace"} <= names
    assert names.isdisjoint({"Name", "Call", "Attribute", "Arg", "Integer", "SimpleString", "Param", "Annotation"})


def test_a_hook_on_trivia_is_refused_rather_than_never_called():
    class OnComma(Visitor):
        def visit_Comma(self, node):
            pass

    class BatchedOnComment(cst.BatchableCSTVisitor):
        def leave_Comment(self, node):
            pass

    with pytest.raises(ValueError, match="Comma"):
        walk(cst.parse_module("f(a, b)\n"), OnComma())
    with pytest.raises(ValueError, match="Comment"):
        Batched([BatchedOnComment()])


class Names(cst.BatchableCSTVisitor):
    def __init__(self, tag, log):
        super().__init__()
        self.tag, self.log = tag, log

    def visit_Name(self, node):
        self.log.append((self.tag, "visit", node.value))

    def leave_Call(self, node):
        self.log.append((self.tag, "leave", type(node.func).__name__))


def test_batched_calls_each_visitors_methods_as_libcst_does():
    module = cst.parse_module("f(a, g(b))\nx.y(c)\n")
    theirs, ours = [], []
    cst.visit_batched(module, [Names(1, theirs), Names(2, theirs)])
    walk(module, Batched([Names(1, ours), Names(2, ours)]))
    assert ours == theirs and ("2", "visit", "a") not in ours and (2, "visit", "a") in ours


def test_attribute_hooks_are_refused_rather_than_silently_skipped():
    class Hooked(cst.BatchableCSTVisitor):
        def visit_Call_func(self, node):
            pass

    with pytest.raises(ValueError, match="attribute hooks"):
        Batched([Hooked()])


class Dispatch:
    """The same methods on libcst's visitor and on ours: a visit that returns False skips the children."""

    def __init__(self, log):
        self.log = log

    def visit_Call(self, node):
        self.log.append(("visit", "Call", cst.Module([]).code_for_node(node.func)))
        return isinstance(node.func, cst.Name) and node.func.value != "skip"

    def leave_Call(self, original_node):
        self.log.append(("leave", "Call"))

    def visit_Name(self, node):
        self.log.append(("visit", "Name", node.value))

    def leave_Name(self, original_node):
        self.log.append(("leave", "Name", original_node.value))


class TheirDispatch(Dispatch, cst.CSTVisitor):
    def __init__(self, log):
        cst.CSTVisitor.__init__(self)
        Dispatch.__init__(self, log)


class OurDispatch(Dispatch, Visitor):
    pass


class TheirBatchable(Dispatch, cst.BatchableCSTVisitor):
    def __init__(self, log):
        cst.BatchableCSTVisitor.__init__(self)
        Dispatch.__init__(self, log)


@pytest.mark.parametrize("text", ["f(a, skip(b), x.y(c))\nskip(g(d))\n", (ROOT / "tvmlint" / "analysis" / "walk.py").read_text()])
def test_our_visitor_dispatches_as_libcsts_does(text):
    module = cst.parse_module(text)
    theirs, ours = [], []
    module.visit(TheirDispatch(theirs))
    walk(module, OurDispatch(ours))
    assert ours == theirs and any(event[0] == "leave" for event in ours)


def test_our_visitor_offers_the_methods_libcsts_batchable_visitor_offers():
    ours, theirs = OurDispatch([]).get_visitors(), TheirBatchable([]).get_visitors()
    assert sorted(ours) == sorted(theirs) == ["leave_Call", "leave_Name", "visit_Call", "visit_Name"]
