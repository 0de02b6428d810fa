"""Which uses of removed/deprecated API TVM201/TVM202 report in one file, and the fixes they carry.

Every line that must change is named, once per entry: the import; a later use whose
entry differs from its import's (nnvm.compiler.build after `import nnvm.compiler`);
and the uses of one entry in a file reported at the first, whose message lists the
other lines and whose fix renames them all.
"""

from __future__ import annotations

from helpers import check_tree, write_tree

from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.fixer import fix_text
from tvmlint.run.runner import check_text

CODES = ["TVM201", "TVM202"]


def _lines(findings):
    return [(f.start.line, f.code) for f in findings if f.code in CODES]


def test_uses_with_entries_of_their_own_are_reported_after_their_import(tmp_path):
    source = (
        "import nnvm.compiler\n"
        "import nnvm.frontend\n"
        "from tvm.relay import ir_pass\n"
        "sym, params = nnvm.frontend.from_mxnet(model)\n"
        "graph, lib, params = nnvm.compiler.build(sym, 'llvm')\n"
        "mod = ir_pass.infer_type(mod)\n"
        "x = nnvm.compiler.OPT_PASS_LEVEL\n"  # the import's own entry, spelt from `nnvm`: a line to change too
    )
    findings = check_tree(tmp_path, {"case.py": source}, select=CODES, target="0.8")
    assert _lines(findings) == [(1, "TVM201"), (2, "TVM201"), (3, "TVM201"), (4, "TVM201"), (5, "TVM201"), (6, "TVM201"),
                                (7, "TVM201")]
    messages = {f.start.line: f.message for f in findings}
    details = {f.start.line: f.detail for f in findings}  # the history's advice: what to write instead
    assert "`nnvm.frontend.from_mxnet`" in messages[4] and "tvm.relay.frontend.from_mxnet" in details[4]
    assert "`nnvm.compiler.build`" in messages[5]
    assert "`tvm.relay.ir_pass.infer_type`" in messages[6] and "InferType" in details[6]


def test_the_same_entry_down_a_file_is_reported_at_every_use(tmp_path):
    source = "import nnvm.compiler\n" + "".join(f"g{i} = nnvm.compiler.build(net{i}, 'llvm')\n" for i in range(30))
    findings = check_tree(tmp_path, {"case.py": source}, select=CODES, target="0.18")
    assert _lines(findings) == [(1, "TVM201")] + [(line, "TVM201") for line in range(2, 32)]
    assert all("Also used on" not in f.message for f in findings)


def test_each_use_has_its_fix_and_fix_renames_them_all(tmp_path):
    source = "import tvm\n" + "".join(f"d{i} = tvm.gpu({i})\n" for i in range(5))
    findings = check_tree(tmp_path, {"case.py": source}, select=CODES, target="0.8")
    assert _lines(findings) == [(line, "TVM202") for line in range(2, 7)]
    assert all(len(f.fix.edits) == 1 for f in findings)

    path = tmp_path / "case.py"
    resolver = SettingsResolver(Overrides(target_version="0.8", select=tuple(CODES)), cwd=tmp_path)
    result = fix_text(source, lambda text: check_text(text, path, resolver.for_path(path), shown="case.py"), unsafe=False)
    assert result.fixed == "import tvm\n" + "".join(f"d{i} = tvm.cuda({i})\n" for i in range(5))
    assert result.remaining == []


def test_uses_that_share_an_import_edit_add_it_once(tmp_path):
    source = "from tvm import relay\n" + "".join(
        f"with relay.build_config(opt_level={level}):\n    pass\n" for level in (1, 2, 3))
    path = tmp_path / "case.py"
    resolver = SettingsResolver(Overrides(target_version="0.8", select=tuple(CODES)), cwd=tmp_path)
    result = fix_text(source, lambda text: check_text(text, path, resolver.for_path(path), shown="case.py"), unsafe=False)
    assert result.fixed == "from tvm import relay\nimport tvm\n" + "".join(
        f"with tvm.transform.PassContext(opt_level={level}):\n    pass\n" for level in (1, 2, 3))


def test_uses_a_fix_cannot_rename_are_reported_apart(tmp_path):
    # PassContext does not take trace=: that call is reported without a fix, the other is fixed
    source = (
        "import tvm\nfrom tvm import relay\n"
        "with relay.build_config(opt_level=3):\n    pass\n"
        "with relay.build_config(opt_level=3, trace=t):\n    pass\n"
    )
    findings = check_tree(tmp_path, {"case.py": source}, select=CODES, target="0.8")
    assert [(line, f.fix is not None) for f in findings for line in [f.start.line]] == [(3, True), (5, False)]


def test_a_use_spelt_through_a_reported_dotted_import_is_a_line_to_change_too(tmp_path):
    # `tvmlint fix` rewrites both lines: the check names both, not the second only after the first fix
    source = "import tvm.contrib.graph_runtime\nm = tvm.contrib.graph_runtime.create(g, lib, dev)\n"
    findings = check_tree(tmp_path, {"case.py": source}, select=CODES, target="0.8")
    assert _lines(findings) == [(1, "TVM202"), (2, "TVM202")]


def test_a_forks_own_tree_defines_what_its_files_bind(tmp_path):
    # tvmlint.analysis.own_tree: modules, top-level names, names through `from .x import *` chains
    # (a cycle ends), a submodule of a package; what a file lacks is not defined
    from tvmlint.analysis.own_tree import OwnTree, carried_packages

    write_tree(tmp_path, {
        "python/tvm/__init__.py": "from .api import *\nfrom . import contrib\n",
        "python/tvm/api.py": "from .more import *\ndef placeholder(shape):\n    pass\n",
        "python/tvm/more.py": "from .api import *\nif True:\n    compute = None\n",
        "python/tvm/contrib/__init__.py": "",
        "python/tvm/contrib/graph_runtime.py": "from . import graph_executor\ndef create(*args):\n    pass\n",
        "python/tvm/contrib/graph_executor.py": "class GraphModule:\n    pass\n",
    })
    (directory,) = [found for name, found in carried_packages(str(tmp_path)) if name == "tvm"]
    tree = OwnTree()
    defined = {name: tree.defines(name, directory) for name in (
        "tvm.placeholder", "tvm.compute", "tvm.contrib.graph_runtime", "tvm.contrib.graph_runtime.create",
        "tvm.contrib.graph_runtime.graph_executor", "tvm.contrib.graph_executor.GraphModule.run",
        "tvm.contrib.graph_runtime.GraphModule", "tvm.relay", "tvm.context")}
    assert defined == {
        "tvm.placeholder": True, "tvm.compute": True, "tvm.contrib.graph_runtime": True,
        "tvm.contrib.graph_runtime.create": True, "tvm.contrib.graph_runtime.graph_executor": True,
        "tvm.contrib.graph_executor.GraphModule.run": True,
        "tvm.contrib.graph_runtime.GraphModule": False, "tvm.relay": False, "tvm.context": False}
    assert carried_packages(str(tmp_path / "python")) == ((("tvm", directory),))
