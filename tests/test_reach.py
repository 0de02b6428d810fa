"""tvmlint.analysis.reach: may say yes too often, never no where UsedNames names a target."""

from __future__ import annotations

import ast

import pytest
from helpers import CASE_TARGET, REPO, grouped_by_rule

from tvmlint.analysis.reach import Imports, Reach, TextImports
from tvmlint.analysis.used_names import UsedNames, roots_of
from tvmlint.base.versions import parse_version
from tvmlint.checks import all_rules
from tvmlint.checks.rule import Case
from tvmlint.knowledge.target import get_knowledge
from tvmlint.prefilter.decide import selection_for

TARGETS = {"tvm.relay.build", "tvm.script.tirx.init", "tvm.ir.transform.Sequential", "nnvm"}


def _may_use(code: str, module: str = "m", is_package: bool = False, targets=TARGETS) -> bool:
    reach = Reach(set(targets))
    answer = reach.may_use(ast.parse(code), code, module, is_package)
    # the text's imports answer as the tree's do, or say yes where the tree says no
    assert reach.may_use_text(code, module, is_package) or not answer
    return answer


@pytest.mark.parametrize("code", [
    "import tvm\ntvm.relay.build(mod)\n",
    "import tvm\nlib = (tvm  # the compiler\n    .relay\n    .build)(mod)\n",
    "import tvm\nlib = tvm.relay \\\n    .build(mod)\n",
    "import tvm\nlib = (tvm.relay).build(mod)\n",
    "from tvm import relay as r\nr.build(mod)\n",
    "from tvm.relay import build as b\n",  # the import itself names it
    "import tvm.relay.build.x\n",  # a name under a target
    "from tvm.script import tirx as T\n\ndef f():\n    with T.block('C'):\n        with T.init():\n            pass\n",
    "from tvm.relay import *\nbuild(mod)\n",
    "import nnvm.compiler\n",
    "def f():\n    import tvm.relay as relay\n    return relay.build\n",  # an import at any depth
])
def test_what_uses_a_target_is_seen(code):
    assert _may_use(code)


@pytest.mark.parametrize("code", [
    "import tvm\nmod = tvm.IRModule()\nlib = relax.build(mod)\n",  # `build`, but not under tvm.relay
    "import tvm\nfrom tvm import relax\nrelax.build(mod)\nx = tvm.relay_like.build\n",
    "import numpy as np\nnp.relay.build()\n",
    "from tvm.script import tir as T\nT.init()\n",
    "",
])
def test_what_cannot_is_ruled_out(code):
    assert not _may_use(code)


def test_relative_imports_and_own_definitions_resolve_in_the_package():
    assert _may_use("from . import build\n", "tvm.relay.frontend", False)
    assert _may_use("from .. import build\nbuild(m)\n", "tvm.relay.frontend.onnx", False)
    assert _may_use("class Sequential:\n    pass\n", "tvm.ir.transform", False)
    assert not _may_use("class Sequentially:\n    pass\n", "tvm.ir.transform", False)
    assert _may_use("", "tvm", True, targets={"tvm"})  # a rule with no triggers: any TVM module


def test_imports_bind_as_usednames_binds():
    imports = Imports(ast.parse("import a.b.c\nimport d.e as f\nfrom .g import h as i\nfrom j import *\n"), "p.q", False)
    assert imports.bound == {"a": {"a"}, "f": {"d.e"}, "i": {"p.g.h"}}
    assert imports.stars == ["j"]
    assert {"a.b.c", "d.e", "p.g.h"} <= imports.names


@pytest.mark.parametrize("code", [
    "import numpy as np\nnp.relay.build()\n",
    "import tvm\nfrom tvm import relax\nrelax.build(mod)\n",
    '"""Use this module as: import tvm.relay.build_module, then build."""\nimport os\n',  # prose in a docstring
    "# from tvm.relay import (transform)\nimport os\n",  # words of a comment bind, but nothing uses them
    '"""Or: from tvm.relay import build, then call it."""\nimport os\n',  # no import list: nothing binds
    "",
])
def test_the_text_alone_rules_out_what_the_tree_does(code):
    assert not _may_use(code) and not Reach(TARGETS).may_use_text(code, "m", False)


def _imports_only(tree: ast.Module, module: str, is_package: bool) -> Imports:
    # the tree's imports without the definitions `Imports` adds (the text does not read those)
    statements = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    return Imports(ast.Module(body=statements, type_ignores=[]), module, is_package)


def _holds(text: TextImports, tree: Imports) -> bool:
    return (
        text.complete and tree.names <= text.names and set(tree.stars) <= set(text.stars)
        and all(targets <= text.bound.get(local, set()) for local, targets in tree.bound.items())
    )


@pytest.mark.parametrize("code", [
    "from tvm.relay import (  # the builder (see build())\n    build as b,  # b, for short\n    transform,\n)\n",
    "from tvm import relay, \\\n    te as t\nimport tvm.relay \\\n    as r\n",
    "import os; import tvm.relay as r; from tvm import te\n",
    "if True: import tvm.relay as r\nelse: from tvm import relax as r\n",
    "from . import (a as b,\n    c)\nfrom .. g import h\nfrom.i import j\nfrom ... import k\n",
    "from tvm . relay import build\nimport tvm . relay . transform as t\n",
    "from tvm.relay import *\nfrom .x import *\n",
    "def f():\n    import tvm.relay\n    from tvm import te  # te\n",
    'x = "import this, and that"\nimport tvm.te\n# import here: tvm.relay is heavy\nfrom tvm import relay\n',
])
def test_text_imports_bind_what_the_tree_binds(code):
    tree = ast.parse(code)
    for module, is_package in (("p.q.r", False), ("p.q", True)):
        text = TextImports(code, module, is_package)
        assert _holds(text, _imports_only(tree, module, is_package)), (text.bound, text.names, text.stars)


def test_an_import_the_text_cannot_vouch_for_goes_to_the_parser():
    # the parser normalises identifiers (NFKC): the text's spelling need not be the name
    code = "import \ufb01le as tvm\ntvm.relay.build(m)\n"
    assert not TextImports(code, "m", False).complete
    assert Reach(TARGETS).may_use_text(code, "m", False)


def _own_files():
    for path in sorted([*(REPO / "tvmlint").rglob("*.py"), *(REPO / "tests").rglob("*.py"), *(REPO / "examples").rglob("*.py")]):
        yield pytest.param(path.read_text(encoding="utf-8"), id=str(path.relative_to(REPO)))


def _sources():
    for code, rule in all_rules().items():
        for kind in ("VALID", "INVALID"):
            for index, case in enumerate(getattr(rule, kind)):
                case = case if isinstance(case, Case) else Case(case)
                yield pytest.param(case.code, case.target or CASE_TARGET, id=f"{code}-{kind.lower()}-{index}")
    for path in sorted((REPO / "examples").rglob("*.py")):
        for target in ("0.8", "0.19", "0.27"):
            yield pytest.param(path.read_text(), target, id=f"{path.relative_to(REPO)}@{target}")


def _ruled_out_wrongly(code: str, target: str) -> list:
    """The module names under which the cheap questions rule out `code` though a rule wants it."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []  # no names to resolve
    version = parse_version(target)
    selection = selection_for(frozenset(all_rules()), version)
    roots = roots_of(get_knowledge(version))
    wrong = []
    for module, is_package in (("case", False), ("tvm.relay.frontend.case", False), ("tvm.contrib", True)):
        used = UsedNames(tree, module, is_package, roots)
        text = TextImports(code, module, is_package)
        if text.complete and not _holds(text, _imports_only(tree, module, is_package)):
            wrong.append(f"{module}: text imports")
        if selection.wanted(used) or used.uses_any(selection.decorators):
            if not selection.may_want(tree, code, module, is_package) or not selection.may_want(None, code, module, is_package):
                wrong.append(module)
    return wrong


@pytest.mark.parametrize("sources", grouped_by_rule(_sources()))
def test_never_rules_out_a_module_a_rule_wants(sources):
    assert [(name, wrong) for name, code, target in sources for wrong in [_ruled_out_wrongly(code, target)] if wrong] == []


def test_text_imports_bind_what_the_tree_binds_in_this_repository():
    differ = []
    for source in _own_files():
        (code,) = source.values
        text = TextImports(code, "tvmlint.some.module", False)
        if not (text.complete and _holds(text, _imports_only(ast.parse(code), "tvmlint.some.module", False))):
            differ.append(source.id)
    assert differ == []


@pytest.mark.parametrize("code", [
    # a string holding `from m import (` and no `)` after it: a comment alternative that could
    # give characters back to the list would try every split of every comment line, for ever
    "x = 'from m import ('\n" + "# aaaa bbbb cccc dddd eeee\n" * 60,
    "import import import " * 5000,  # each keyword's list read to the line's end: quadratic
    "from" + " " * 20000 + "\n",  # a blank run two patterns could share: quadratic
    "from x import (\n" * 2000,  # unclosed lists, each read to the text's end
], ids=["comments after an unclosed list", "keywords on one line", "blanks after from", "unclosed lists"])
def test_text_imports_read_hostile_text_at_once(code):
    import subprocess
    import sys

    probe = f"from tvmlint.analysis.reach import TextImports\nprint(TextImports({code!r}, 'm', False).complete)\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=20, cwd=REPO)
    assert done.stdout.strip() in ("True", "False"), done.stderr
