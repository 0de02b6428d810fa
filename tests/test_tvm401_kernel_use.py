"""TVM401's reading of what a module does with its kernels (tvmlint/analysis/kernel_use.py), and what
the rule's cases cannot express: the flows a test module builds a kernel through, the names a
dtype is bound through, and one finding per repeated shape."""

from __future__ import annotations

import textwrap

import pytest
from helpers import check_tree

from tvmlint.analysis.kernel_use import KernelUse, is_test_path
from tvmlint.knowledge.numerics import kernel_runners


def _use(text: str) -> KernelUse:
    return KernelUse(textwrap.dedent(text), kernel_runners())


def _line_of(text: str, fragment: str) -> int:
    for number, line in enumerate(textwrap.dedent(text).splitlines(), 1):
        if fragment in line:
            return number
    raise AssertionError(fragment)


def _built(text: str, fragment: str = "C[vi] = C[vi] +") -> bool:
    use = _use(text)
    line = _line_of(text, fragment)
    chain = use.chain_at(line)
    start = use.kernel_start(chain, line)
    return start is not None and use.reaches_run(*start)


KERNEL = """
    @T.prim_func
    def kernel(A: T.Buffer((4, 4), "float16"), C: T.Buffer((4,), "float16")):
        for i, k in T.grid(4, 4):
            with T.block("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float16(0)
                C[vi] = C[vi] + A[vi, vk]
"""


@pytest.mark.parametrize("uses, built", [
    # tvm-v0.12.0 tests/python/unittest/test_tir_schedule_reindex.py: scheduled, compared, never built
    ("def test():\n    sch = tvm.tir.Schedule(kernel)\n    tvm.ir.assert_structural_equal(sch.mod['main'], kernel)\n", False),
    ("def test():\n    f = tvm.build(kernel, target='llvm')\n", True),
    # through a list a loop walks
    ("def test():\n    for func in [kernel]:\n        tvm.build(func, target='llvm')\n", True),
    # a name rebound to something else before the build
    ("def test():\n    mod = kernel\n    mod = other\n    tvm.build(mod, target='llvm')\n", False),
    # either branch may hold it
    ("def test(flag):\n    if flag:\n        mod = kernel\n    else:\n        mod = other\n    tvm.build(mod)\n", True),
    # a pytest fixture of the module's, and tvm.testing.parameter, hand it over by name
    ("@pytest.fixture\ndef mod():\n    return kernel\n\ndef test(mod):\n    tvm.build(mod)\n", True),
    ("func = tvm.testing.parameter(kernel)\n\ndef test(func):\n    tvm.compile(func)\n", True),
    # parametrized with the kernel
    ("@pytest.mark.parametrize('f', [kernel])\ndef test(f):\n    tvm.build(f)\n", True),
    # a helper that builds its argument, called through self in a test class
    ("class TestK:\n    def check(self, f):\n        tvm.build(f)\n    def test(self):\n        self.check(kernel)\n", True),
    # helpers that call each other forever do not hang, and build nothing
    ("def a(f):\n    return b(f)\n\ndef b(f):\n    return a(f)\n\ndef test():\n    a(kernel)\n", False),
    # a tuner builds and runs every candidate
    ("from tvm import meta_schedule as ms\n\ndef test():\n    ms.tune_tir(kernel, target='llvm', work_dir='w', max_trials_global=8)\n", True),
])
def test_a_test_builds_the_kernel(uses, built):
    text = "import pytest\nimport tvm\nimport tvm.testing\nfrom tvm.script import tir as T\n" + textwrap.dedent(KERNEL) + "\n" + uses
    assert _built(text) is built


def test_a_kernel_class_is_followed_by_its_name():
    text = "import tvm\nfrom tvm.script import tir as T\n\n@tvm.script.ir_module\nclass Module:\n" + textwrap.indent(
        textwrap.dedent(KERNEL), "    ") + "\ndef test():\n    tvm.build(Module['kernel'])\n"
    assert _built(text)
    assert not _built(text.replace("tvm.build(Module['kernel'])", "tvm.ir.assert_structural_equal(Module, Module)"))


@pytest.mark.parametrize("source, name, expected", [
    ("DTYPE = 'float16'\nx = DTYPE\n", "DTYPE", "float16"),
    ("DTYPE = 'float16'\nDTYPE = 'float32'\nx = DTYPE\n", "DTYPE", None),
    ("DTYPE = 'float16'\ndef f():\n    global DTYPE\n    DTYPE = 'float32'\nx = DTYPE\n", "DTYPE", None),
    ("def f():\n    dtype = 'bfloat16'\n    x = dtype\n", "dtype", "bfloat16"),
    ("def f():\n    for dtype in ['float16']:\n        x = dtype\n", "dtype", None),
    # bound only after a TVMScript function that reads it has been parsed, or after a plain
    # function that reads it later
    ("@T.prim_func\ndef f():\n    x = DTYPE\nDTYPE = 'float16'\n", "DTYPE", None),
    ("def f():\n    x = DTYPE\nDTYPE = 'float16'\n", "DTYPE", "float16"),
    # a literal through another name bound once
    ("BASE = 'float16'\ndef f():\n    dtype = BASE\n    x = dtype\n", "dtype", "float16"),
    # a default every visible call keeps, or the literal every call passes
    ("def f(n, dtype='float16'):\n    x = dtype\nf(1)\nf(2, dtype='float16')\n", "dtype", "float16"),
    ("def f(n, dtype='float16'):\n    x = dtype\nf(1, 'float32')\n", "dtype", "float32"),
    ("def f(n, dtype='float16'):\n    x = dtype\nf(1)\nf(1, 'float32')\n", "dtype", None),
    ("def f(n, dtype):\n    x = dtype\nf(1, 'float16')\nf(n=2, dtype='float16')\n", "dtype", "float16"),
    ("def f(n, dtype):\n    x = dtype\nf(1, 'float16')\nf(*args)\n", "dtype", None),
    ("def f(n, dtype):\n    x = dtype\n", "dtype", None),
    ("def f(n, dtype='float16'):\n    x = dtype\ng = f\n", "dtype", None),
    # a method: `self` takes the first position
    ("class K:\n    def f(self, dtype):\n        x = dtype\n    def g(self):\n        self.f('float16')\n", "dtype", "float16"),
    # a parameter that is also assigned
    ("def f(dtype='float16'):\n    if not dtype:\n        dtype = 'float32'\n    x = dtype\n", "dtype", None),
])
def test_a_name_bound_to_a_literal(source, name, expected):
    use = _use(source)
    found = use.literal(name, _line_of(source, "x = "))
    assert (found[0] if found else None) == expected


@pytest.mark.parametrize("path, test", [
    ("tests/python/relax/test_transform.py", True),
    ("python/tvm/relax/backend_tir/pattern.py", False),
    ("tests/python/relax/conftest.py", True),
    ("tests/python/utils/helpers.py", True),
    ("pkg/module_test.py", True),
])
def test_test_modules_by_path(path, test):
    assert is_test_path(path) is test


def test_each_kernel_is_its_own_finding_at_its_line_even_when_shapes_repeat(tmp_path):
    # tvm-v0.18.0 python/tvm/relax/backend_tir/pattern.py: three matmuls and a conv in one module;
    # a noqa on one of them must leave the others reported
    def kernel(name, block, buffer):
        return textwrap.dedent(f"""
            @T.prim_func
            def {name}(A: T.Buffer((4, 4), "float16"), {buffer}: T.Buffer((4,), "float16")):
                for i, k in T.grid(4, 4):
                    with T.block("{block}"):
                        vi, vk = T.axis.remap("SR", [i, k])
                        with T.init():
                            {buffer}[vi] = T.float16(0)
                        {buffer}[vi] = {buffer}[vi] + A[vi, vk]
            """)
    text = "from tvm.script import tir as T\n" + "".join([
        kernel("mm1", "matmul", "matmul"), kernel("conv", "conv", "out"), kernel("mm2", "matmul", "matmul"),
        kernel("mm3", "matmul", "matmul"),
    ])
    found = [f for f in check_tree(tmp_path, {"lib.py": text}, select=["TVM401"]) if f.code == "TVM401"]
    assert [f.start.line for f in found] == [10, 19, 28, 37]
    assert not any("more of this shape" in f.message for f in found)
    text = text.replace("matmul[vi] = matmul[vi] + A[vi, vk]", "matmul[vi] = matmul[vi] + A[vi, vk]  # noqa: TVM401", 1)
    found = [f for f in check_tree(tmp_path / "noqa", {"lib.py": text}, select=["TVM401"]) if f.code == "TVM401"]
    assert [f.start.line for f in found] == [19, 28, 37]


def test_a_test_module_that_builds_nothing_reports_nothing_even_with_a_float16_sum(tmp_path):
    text = "import tvm\nfrom tvm.script import tir as T\n" + textwrap.dedent(KERNEL)
    assert not [f for f in check_tree(tmp_path, {"tests/test_k.py": text}, select=["TVM401"]) if f.code == "TVM401"]
    assert [f for f in check_tree(tmp_path / "lib", {"k.py": text}, select=["TVM401"]) if f.code == "TVM401"]


def test_each_statement_s_words_are_those_of_every_node_in_it():
    # the words are folded bottom up in one pass; a walk of each statement is what they stand for
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for path in sorted([*(root / "tvmlint").rglob("*.py"), *(root / "tests").glob("test_tvm4*.py")]):
        text = path.read_text(encoding="utf-8")
        use = KernelUse(text, kernel_runners())
        for statement in ast.walk(use.tree):
            if not isinstance(statement, ast.stmt):
                continue
            expected = set()
            for inner in ast.walk(statement):
                if isinstance(inner, ast.Name):
                    expected.add(inner.id)
                elif isinstance(inner, ast.Attribute):
                    expected.add(inner.attr)
                elif isinstance(inner, scopes):
                    expected.add(inner.name)
            assert use._words_of(statement) == expected, (path, statement.lineno)
