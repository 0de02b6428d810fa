"""Rules that judge one argument of a call ask libcst only for files where a call carries it."""

from __future__ import annotations

import pytest
from helpers import prefiltered, write_tree

from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.runner import check_paths

HEAD = "import tvm\nfrom tvm import relay, te\n"
GEMM = (
    "from tvm.script import tir as T\n\n\n@T.prim_func\n"
    "def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), {acc})):\n"
    "    for i, j, k in T.grid(16, 16, 16):\n        with T.block('mm'):\n"
    "            vi, vj, vk = T.axis.remap('SSR', [i, j, k])\n            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]\n"
)


@pytest.mark.parametrize("source, analysed", [
    # a PassContext with a plain level: nothing for TVM104-107/303 to judge
    (HEAD + "with tvm.transform.PassContext(opt_level=3):\n    x = 1\n", 0),
    (HEAD + "with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOps']):\n    x = 1\n", 1),
    # config keys: only a literal key the target does not register can be reported (TVM107)
    (HEAD + "with tvm.transform.PassContext(opt_level=3, config={'tir.disable_vectorize': True}):\n    x = 1\n", 0),
    (HEAD + "with tvm.transform.PassContext(opt_level=3, config={'tir.disable_vectorise': True}):\n    x = 1\n", 1),
    (HEAD + "with tvm.transform.PassContext(opt_level=3, config={'tirx.disable_vectorize': True}):\n    x = 1\n", 1),
    (HEAD + "with tvm.transform.PassContext(opt_level=3, config=settings):\n    x = 1\n", 0),
    (HEAD + "with tvm.transform.PassContext(opt_level=3, config={b'tir.disable_vectorise': True}):\n    x = 1\n", 0),
    (HEAD + "with tvm.transform.PassContext(opt_level=7):\n    x = 1\n", 1),
    (HEAD + "with tvm.transform.PassContext(**settings):\n    x = 1\n", 1),
    # a reduction with no low-precision dtype literal
    (HEAD + "k = te.reduce_axis((0, 4))\nA = te.placeholder((4,))\nB = te.compute((1,), lambda i: te.sum(A[k], axis=k))\n", 0),
    (HEAD + "k = te.reduce_axis((0, 4))\nA = te.placeholder((4,), 'float16')\nB = te.compute((1,), lambda i: te.sum(A[k], axis=k))\n", 1),
    # a TVMScript reduction: only an accumulator declared with a low-precision literal can be reported
    (GEMM.format(acc="'float32'"), 0),
    (GEMM.format(acc="'float16'"), 1),
    # the same literal written with an escape: libcst reads its value
    (GEMM.format(acc="'\\x66loat16'").replace("'float16'", "'int8'"), 1),
    # no float16 anywhere in the text: TVMScript's names are not even resolved
    (GEMM.format(acc="'float32'").replace("'float16'", "'int8'"), 0),
    # a dtype given by name may be bound once to a float16 literal: analysed (TVM401 reads such
    # names), and nothing reported here, the name being bound only after the kernel
    (GEMM.format(acc="dtype") + "dtype = 'float16'\n", 1),
    # an accumulator declared without a dtype has the declaring API's default, float32 (the
    # shapes of tests/python/s_tir/dlight/test_gpu_rmsnorm.py at v0.26.0: an `sblock_alloc_buffer`
    # with a shape alone, or with a scope); through a name given after the first argument, kept
    (GEMM.replace("C: T.Buffer((16, 16), {acc})", "c: T.handle").replace(
        "    for i", "    C = T.match_buffer(c, (16, 16))\n    for i").format(), 0),
    (GEMM.replace("C: T.Buffer((16, 16), {acc})", "c: T.handle").replace(
        "    for i", "    C = T.alloc_buffer((16, 16), scope='local')\n    for i").format(), 0),
    (GEMM.replace("C: T.Buffer((16, 16), {acc})", "c: T.handle").replace(
        "    for i", "    C = T.alloc_buffer((16, 16), dtype)\n    for i").format(), 1),
    (GEMM.replace("C: T.Buffer((16, 16), {acc})", "c: T.handle").replace(
        "    for i", "    C = T.match_buffer(c, (16, 16), dtype=acc)\n    for i").format(), 1),
    # ... and only one the block adds into after its T.init() stores into it
    (GEMM.format(acc="'float16'").replace("C[vi, vj] + A", "A"), 0),
    (GEMM.format(acc="'float16'").replace("C[vi, vj] = C[vi, vj] + A", "C[vi, vj] += A"), 1),
    (GEMM.format(acc="'float16'").replace("C[vi, vj] = C[vi, vj] + A", "C[vi, vj] -= A"), 1),
    (GEMM.format(acc="'float16'").replace("C[vi, vj] = C[vi, vj] + A", "C[vi, vj] *= A"), 0),
    (GEMM.format(acc="'float16'").replace("C[vi, vj] + A[vi, vk] * B[vj, vk]", "A[vi, vk] * B[vj, vk] + C[vi, vj]"), 1),
    (GEMM.format(acc="'float16'").replace("with T.init():", "if init:"), 0),
    # relay.build whose result is not unpacked, inside a PassContext
    (HEAD + "with tvm.transform.PassContext(opt_level=3):\n    lib = relay.build(mod, 'llvm')\n", 1),  # TVM302 may judge it
    # a Sequential built without an opt_level: nothing for TVM102 (TVM101 still looks)
    (HEAD + "def f(x):\n    return tvm.transform.Sequential([x])\n", 1),
])
def test_which_files_libcst_sees(tmp_path, source, analysed):
    write_tree(tmp_path, {"a.py": source})
    resolver = SettingsResolver(Overrides(target_version="0.19"), cwd=tmp_path)
    report = check_paths([tmp_path], resolver, jobs=1, use_cache=False)
    assert report.files_analysed == analysed


@pytest.mark.parametrize("source, analysed", [
    # LowerTIRx is a Sequential of level-0 passes: no level from 0 up skips them
    ("import tvm\nmod = tvm.tirx.transform.LowerTIRx()(mod)\n", 0),
    # FuseTIR's ExpandTupleArguments holds CanonicalizeBindings, whose members are at level 1:
    # only a context that writes level 0 skips one, and no file of the run writes one
    ("import tvm\nfrom tvm import relax\nmod = relax.transform.FuseTIR()(mod)\n", 0),
    ("import tvm\nfrom tvm import relax\nmod = relax.transform.FuseTIR()(mod)\n"
     "with tvm.transform.PassContext(opt_level=0):\n    lib = tvm.compile(mod)\n", 1),
    ("import tvm\nseq = tvm.transform.Sequential([tvm.tirx.transform.LowerTIRx()])\nmod = seq(mod)\n", 0),
    ("import tvm\nseq = tvm.transform.Sequential([tvm.tirx.transform.LowerTIRx()])\n"
     "with tvm.transform.PassContext(0):\n    mod = seq(mod)\n", 1),
])
def test_which_files_libcst_sees_at_0_27(tmp_path, source, analysed):
    write_tree(tmp_path, {"a.py": source})
    resolver = SettingsResolver(Overrides(target_version="0.27"), cwd=tmp_path)
    report = check_paths([tmp_path], resolver, jobs=1, use_cache=False)
    assert report.files_analysed == analysed


def test_the_stage_walk_reaches_every_node_ast_walk_does_but_contexts_and_operators():
    import ast
    from pathlib import Path

    from tvmlint.analysis.used_names import LEAVES, nodes

    root = Path(__file__).resolve().parent.parent
    for path in sorted([*(root / "tvmlint").rglob("*.py"), *(root / "tests").rglob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        expected = [node for node in ast.walk(tree) if not isinstance(node, LEAVES)]
        reached = list(nodes([tree]))
        assert len(reached) == len(expected) and {id(n) for n in reached} == {id(n) for n in expected}, path


def test_pass_levels_follow_the_rules_directory(tmp_path, monkeypatch):
    # the gate, TVM101's triggers and TVM303 read their bounds from passes.toml, not from code
    import shutil

    from tvmlint.knowledge.location import rules_dir
    from tvmlint.knowledge.target import pass_levels

    assert pass_levels() == (0, 5)
    rules = tmp_path / "rules"
    shutil.copytree(rules_dir(), rules)
    with open(rules / "passes.toml", "a") as table:
        table.write('\n[[pass]]\napi = ["tvm.made.Up"]\nname = "MadeUp"\nkind = "module"\nopt_level = 9\nrequired = []\n')
    monkeypatch.setenv("TVMLINT_RULES_DIR", str(rules))
    assert pass_levels() == (0, 9)
    monkeypatch.delenv("TVMLINT_RULES_DIR")
    assert pass_levels() == (0, 5)


@pytest.mark.parametrize("select, codes", [
    # below every pass's level the gate skips even the level-0 passes: TVM303 says so, and
    # TVM101 does not repeat it, so a run that leaves TVM303 out reports nothing here
    (("TVM101",), []),
    (("TVM101", "TVM303"), ["TVM303"]),
])
def test_a_level_below_every_pass_is_tvm303s_finding_alone(tmp_path, select, codes):
    write_tree(tmp_path, {"m.py": (
        HEAD + "with tvm.transform.PassContext(opt_level=-1):\n    mod = relay.transform.FoldScaleAxis()(mod)\n"
    )})
    found = []
    for cheap in (True, False):
        resolver = SettingsResolver(Overrides(target_version="0.19", select=select), cwd=tmp_path)
        report = check_paths([tmp_path], prefiltered(resolver, cheap), jobs=1, use_cache=False)
        found.append([(f.code, f.message) for f in report.findings])
    assert found[0] == found[1]
    assert [code for code, _message in found[0]] == codes
    if codes:
        assert "skip" in found[0][0][1]


def test_a_dtype_written_with_an_escape_is_judged_the_same(tmp_path):
    write_tree(tmp_path, {"a.py": GEMM.format(acc="'\\x66loat16'").replace("'float16'", "'int8'")})
    findings = {}
    for cheap in (True, False):
        resolver = SettingsResolver(Overrides(target_version="0.19", select=("TVM401",)), cwd=tmp_path)
        report = check_paths([tmp_path], prefiltered(resolver, cheap), jobs=1, use_cache=False)
        findings[cheap] = [(f.start.line, f.code) for f in report.findings]
    assert findings[True] == findings[False] == [(11, "TVM401")]
