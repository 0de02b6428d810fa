"""tvmlint.reach: may say yes too often, never no where UsedNames names a target."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tvmlint.cheap import UsedNames, roots_of
from tvmlint.checks import all_rules
from tvmlint.engine import selection_for
from tvmlint.knowledge import get_knowledge
from tvmlint.reach import Imports, Reach
from tvmlint.rule import Case
from tvmlint.versions import parse_version

from helpers import CASE_TARGET, REPO

TARGETS = {"tvm.relay.build", "tvm.script.tirx.init", "tvm.ir.transform.Sequential", "nnvm"}


def _may_use(code: str, module: str = "m", is_package: bool = False, targets=TARGETS) -> bool:
    return Reach(set(targets)).may_use(ast.parse(code), code, module, is_package)


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


def _sources():
    for code, rule in all_rules().items():
        for kind in ("VALID", "INVALID"):
            for index, case in enumerate(getattr(rule, kind)):
                case = case if isinstance(case, Case) else Case(case)
                yield pytest.param(case.code, case.target or CASE_TARGET, id=f"{code}-{kind.lower()}-{index}")
    for path in sorted((REPO / "examples").rglob("*.py")):
        for target in ("0.8", "0.19", "0.27"):
            yield pytest.param(path.read_text(), target, id=f"{path.relative_to(REPO)}@{target}")


@pytest.mark.parametrize("code, target", list(_sources()))
def test_never_rules_out_a_module_a_rule_wants(code, target):
    try:
        tree = ast.parse(code)
    except SyntaxError:
        pytest.skip("no names to resolve")
    version = parse_version(target)
    selection = selection_for(frozenset(all_rules()), version)
    roots = roots_of(get_knowledge(version))
    for module, is_package in (("case", False), ("tvm.relay.frontend.case", False), ("tvm.contrib", True)):
        used = UsedNames(tree, module, is_package, roots)
        if selection.wanted(used) or used.uses_any(selection.decorators):
            assert selection.may_want(tree, code, module, is_package), module
