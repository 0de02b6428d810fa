"""TVM401 float16-accumulation: a sum that accumulates in float16 or bfloat16.

Two shapes: a TVMScript block whose `T.init()` initialises a low-precision
buffer that the block then adds into (`C[i] = C[i] + ...`, `C[i] += ...`), and a
tensor-expression `te.sum` over low-precision tensors with no cast to a wider
type. The accumulator's dtype is followed through `T.Buffer` annotations,
`T.match_buffer`, `T.alloc_buffer` and `te.placeholder`; the store into the
buffer casts whatever is added back to the buffer's dtype, so the buffer is
what decides. A dtype given as a name counts where the name is bound to one
literal (`tvmlint.analysis.kernel_use.KernelUse.literal`).

In a test module a kernel is reported only when the module visibly builds or
runs it (`KernelUse.reaches_run`): transform tests' Before/Expected modules are
compared as structures and compute nothing. Each kernel is its own finding, where it is.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections import ChainMap
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from tvmlint.analysis.contexts import Inherited
from tvmlint.analysis.kernel_use import KernelUse, is_test_path
from tvmlint.analysis.lazy import cst
from tvmlint.analysis.module import call_arguments
from tvmlint.analysis.results import ArgumentWait, ConstantWait
from tvmlint.analysis.used_names import roots_of
from tvmlint.analysis.walk import Visitor, walk
from tvmlint.base.diagnostics import Said
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Case, Rule
from tvmlint.knowledge.numerics import (
    accumulation,
    compute_apis,
    declarations,
    keep_dtype,
    kernel_inserters,
    kernel_runners,
    select_apis,
    sum_apis,
    tvmscript_namespaces,
    workload_calls,
)

UNKNOWN = None  # a buffer whose dtype is not a literal


@dataclass(frozen=True)
class ByName:
    """A dtype given as a bare name (`T.Buffer((n,), dtype)`): it counts only where the name is
    bound to one literal (`KernelUse.literal`)."""

    name: str


@dataclass(frozen=True)
class Pending:
    """A dtype that is a module-level function's parameter no call of its own module fixes:
    the calls other modules make give it (tvmlint.analysis.results.ArgumentWait)."""

    function: str  # the function's name in its module
    param: str
    position: Optional[int]
    default: Optional[str]


@dataclass(frozen=True)
class Imported:
    """A dtype given by a name the module imports from another module of the project (`DTYPE`
    after `from config import *`): that module's constant gives it (ConstantWait)."""

    param: str  # the name as the module reads it
    names: Tuple[str, ...]  # what it may stand for, qualified


@dataclass
class Declared:
    dtype: object  # a literal, UNKNOWN, or ByName
    node: cst.CSTNode


@dataclass
class _Candidate:
    node: cst.CSTNode
    line: int
    column: int
    dtype: str
    message: str
    tensor: bool  # a te.sum (else a TVMScript block)
    detail: str = ""


class _Walker(Visitor):
    """Buffer and tensor dtypes per function, and the blocks and sums to judge under them.

    It rides the rules' shared walk (`Float16Accumulation.get_visitors`): a walk of
    its own would cost as much as parsing the module again."""

    def __init__(self, rule: "Float16Accumulation"):
        super().__init__()
        self.rule = rule
        self.scopes: List[ChainMap] = [ChainMap()]
        self.blocks: List[Tuple[cst.With, Dict[str, Declared]]] = []
        self.sums: List[Tuple[cst.Call, Dict[str, Declared]]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # the latest definition of a name so far: an fcompute or decode helper is defined just
        # before the te.compute that uses it, and builders often reuse one name for theirs
        self.rule.functions[node.name.value] = node
        scope = self.scopes[-1].new_child()  # names of enclosing functions and the module stay visible
        for param in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params):
            if param.annotation is not None:
                found = self.rule.declared_dtype(param.annotation.annotation)
                if found is not False:
                    scope[param.name.value] = Declared(found, param)
        self.scopes.append(scope)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        name = node.targets[0].target.value
        found = self.rule.declared_dtype(node.value)
        if found is not False:
            self.scopes[-1][name] = Declared(found, node)
            return
        computed = self.rule.computed_dtype(node.value, self.scopes[-1])
        if computed is not None:
            self.scopes[-1][name] = computed

    def visit_With(self, node: cst.With) -> None:
        self.blocks.append((node, self.scopes[-1]))

    def visit_Call(self, node: cst.Call) -> None:
        if self.rule.file.qualname(node.func) in self.rule.sum_apis:
            self.sums.append((node, self.scopes[-1]))


# -- case sources, each written from the shape of a real file (cited) ----------------------------

_SPARSE_SPMM = (
    "from tvm.script import tir as T\n\n\n@T.prim_func\n"
    "def spmm(a: T.handle, b: T.handle, c: T.handle, indptr: T.handle, indices: T.handle) -> None:\n"
    "    I = T.dense_fixed(64)\n    J = T.sparse_variable(I, (64, 512), (indptr, indices), 'int32')\n"
    "    J_detach = T.dense_fixed(64)\n    F = T.dense_fixed(32)\n"
    "    A = T.match_sparse_buffer(a, (I, J), 'float16')\n    B = T.match_sparse_buffer(b, (J_detach, F), 'float16')\n"
    "    C = T.match_sparse_buffer(c, (I, F), {c})\n"
    "    with T.sp_iter([I, F, J], 'SSR', 'spmm') as [i, f, j]:\n"
    "        with T.init():\n            C[i, f] = T.cast(0, C.dtype)\n"
    "        C[i, f] = C[i, f] + A[i, j] * B[j, f]\n"
)

_IMPORTED_DTYPE = (
    "import tvm\nfrom tvm.script import tir as T\nfrom config import *\n\n\n@T.prim_func\n"
    "def row_sum(dO: T.Buffer((64, 128), 'float16')):\n"
    "    D = T.alloc_buffer((64,), dtype=dtype_str)\n"
    "    for i, k in T.grid(64, 128):\n        with T.block('compute_D'):\n"
    "            vi, vk = T.axis.remap('SR', [i, k])\n            with T.init():\n"
    "                D[vi] = tvm.tir.const(0.0, dtype_str)\n            D[vi] = D[vi] + dO[vi, vk]\n"
)

_GEMV_F16 = (
    "    @T.prim_func\n"
    "    def before(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):\n"
    "        for i, j, k in T.grid(1, 64, 128):\n"
    "            with T.block('NT_matmul'):\n"
    "                vi, vj, vk = T.axis.remap('SSR', [i, j, k])\n"
    "                with T.init():\n"
    "                    C[vi, vj] = T.float16(0)\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]\n"
)

# tvm-head tests/python/s_tir/dlight/test_gpu_gemv.py (test_gemv_basic), the same at
# tvm-v0.18.0 tests/python/dlight/test_gpu_gemv.py: a dlight rule's Before is scheduled and
# compared with Expected, never built
_DLIGHT_STRUCTURAL = (
    "import tvm\nimport tvm.testing\nfrom tvm import dlight as dl\nfrom tvm.script import tir as T\nfrom tvm.target import Target\n\n\n"
    "def test_gemv_basic():\n" + _GEMV_F16 + "\n"
    "    @T.prim_func\n"
    "    def expected(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):\n"
    "        for i, j, k in T.grid(1, 64, 128):\n"
    "            with T.block('NT_matmul'):\n"
    "                vi, vj, vk = T.axis.remap('SSR', [i, j, k])\n"
    "                with T.init():\n"
    "                    C[vi, vj] = T.float16(0)\n"
    "                C[vi, vj] += A[vi, vk] * B[vj, vk]\n\n"
    "    mod = tvm.IRModule({'main': before})\n"
    "    with Target('nvidia/geforce-rtx-3090-ti'):\n"
    "        mod = dl.ApplyDefaultSchedule(dl.gpu.GEMV())(mod)\n"
    "    tvm.ir.assert_structural_equal(mod['main'], expected)\n"
)

# tvm-v0.18.0 tests/python/tir-transform/test_tir_transform_lower_thread_all_reduce.py: the
# `before`/`expected` of a tvm.testing.CompareBeforeAfter subclass
_COMPARE_BEFORE_AFTER = (
    "import tvm\nimport tvm.testing\nfrom tvm.script import tir as T\n\n\n"
    "class TestReduce(tvm.testing.CompareBeforeAfter):\n"
    "    transform = tvm.tir.transform.LowerCrossThreadReduction()\n\n" + _GEMV_F16.replace("\n    ", "\n    ")
    + "\n    expected = before\n"
)

# tvm-head tests/python/relax/test_transform_legalize_ops_nn.py: the Expected ir_module of a
# legalization test; the test runs a pass on Before and compares
_LEGALIZE_EXPECTED = (
    "import tvm\nfrom tvm import relax\nfrom tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tir as T\n\n\n"
    "def test_matmul_fp16():\n"
    "    @I.ir_module\n"
    "    class Matmul:\n"
    "        @R.function\n"
    "        def main(x: R.Tensor((1, 128), 'float16'), w: R.Tensor((64, 128), 'float16')):\n"
    "            gv = R.matmul(x, R.permute_dims(w), out_dtype='float16')\n"
    "            return gv\n\n"
    "    @I.ir_module\n"
    "    class Expected:\n" + _GEMV_F16.replace("\n    ", "\n        ").replace("    @T.prim_func", "        @T.prim_func", 1) + "\n"
    "    mod = relax.transform.LegalizeOps()(Matmul)\n"
    "    tvm.ir.assert_structural_equal(mod, Expected)\n"
)

# tvm-v0.18.0 tests/python/relax/test_transform_few_shot_tuning.py: a module-level ir_module
# the tests build through helpers (`_expected_results`: tvm.build(func, target="llvm"))
_BUILT_BY_HELPER = (
    "import tvm\nfrom tvm.script import tir as T\n\n\n"
    "@tvm.script.ir_module\nclass MatMul:\n" + _GEMV_F16 + "\n\n"
    "def _expected_results(mod):\n"
    "    func = mod['before']\n"
    "    rt_mod = tvm.build(func, target='llvm')\n"
    "    return rt_mod\n\n\n"
    "def _check(mod):\n"
    "    return _expected_results(mod)\n\n\n"
    "def test_matmul():\n"
    "    _check(MatMul)\n"
)

# tvm-v0.18.0 tests/python/codegen/test_target_codegen_vulkan.py (test_cooperative_matrix):
# a te.sum made in a nested function, returned as a PrimFunc, scheduled and built
_TE_BUILT = (
    "import tvm\nfrom tvm import te\nfrom tvm.tir import Schedule\n\n\n"
    "def test_cooperative_matrix():\n"
    "    def get_matmul(m, n, k):\n"
    "        X = te.placeholder((m, k), name='X', dtype='float16')\n"
    "        W = te.placeholder((k, n), name='W', dtype='float16')\n"
    "        ak = te.reduce_axis((0, k), name='k')\n"
    "        matmul = te.compute((m, n), lambda i, j: te.sum(X[i, ak] * W[ak, j], axis=ak), name='compute')\n"
    "        return te.create_prim_func([X, W, matmul])\n\n"
    "    func = get_matmul(16, 16, 32)\n"
    "    sch = Schedule(func)\n"
    "    if tvm.target.Target('vulkan').attrs.get('supports_cooperative_matrix'):\n"
    "        f = tvm.build(sch.mod, target='vulkan')\n"
)

# tvm-head tests/python/codegen/test_target_codegen_cuda_fp8.py (the MoE gemv): the ir_module
# goes through a pipeline helper, then tvm.compile
_COMPILED_AFTER_PIPELINE = (
    "import tvm\nfrom tvm.s_tir import dlight as dl\nfrom tvm.script import ir as I\nfrom tvm.script import tirx as T\n\n\n"
    "def test_moe_gemv():\n"
    "    @I.ir_module\n"
    "    class SingleBatchMoE:\n" + _GEMV_F16.replace("\n    ", "\n        ").replace("    @T.prim_func", "        @T.prim_func", 1)
    .replace("T.block(", "T.sblock(") + "\n"
    "    def _pipeline(mod):\n"
    "        return dl.ApplyDefaultSchedule(dl.gpu.GEMV())(mod)\n\n"
    "    mod = SingleBatchMoE\n"
    "    target = tvm.target.Target('cuda')\n"
    "    with target:\n"
    "        mod = _pipeline(mod)\n"
    "        rt_mod = tvm.compile(mod, target=target)\n"
)

# tvm-head tests/python/s_tir/dlight/test_benchmark.py: dlight's benchmark builds and times
# the ir_module's functions
_BENCHMARKED = (
    "from tvm.s_tir.dlight.benchmark import benchmark_relax_func\nfrom tvm.script import ir as I\nfrom tvm.script import tirx as T\n\n\n"
    "@I.ir_module\nclass Module:\n" + _GEMV_F16.replace("T.block(", "T.sblock(") + "\n\n"
    "def test_benchmark_relax_func():\n"
    "    benchmark_relax_func(Module, 'main')\n"
)

# tvm-v0.18.0 python/tvm/relax/backend_tir/pattern.py: a library module of module-level
# float16 kernels; the three matmuls there share one shape
_LIBRARY_REPEATED = (
    "from tvm.script import tir as T\n\n" + "".join(
        f"\n@T.prim_func\ndef matmul_{n}(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):\n"
        "    for i, j, k in T.grid(16, 16, 16):\n"
        "        with T.block('matmul'):\n"
        "            vi, vj, vk = T.axis.remap('SSR', [i, j, k])\n"
        "            with T.init():\n"
        "                matmul[vi, vj] = T.float16(0)\n"
        "            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]\n"
        for n in ("rrr", "rcr", "crr")
    )
)

# the same module-level kernels in a package module that only returns them as a table
# (v0.18.0:python/tvm/relax/backend_tir/pattern.py, get_tir_pattern(): patterns that
# relax.transform.SplitCallTIRByPattern matches workloads against), or that puts one into a model
_PATTERN_TABLE = _LIBRARY_REPEATED + "\n\ndef get_tir_pattern():\n    return [matmul_rrr, matmul_rcr, matmul_crr]\n"
_INSERTED = (
    _LIBRARY_REPEATED.replace("from tvm.script import tir as T\n", "from tvm import relax\nfrom tvm.script import tir as T\n", 1)
    + "\n\ndef build_model():\n    bb = relax.BlockBuilder()\n    gv = bb.add_func(matmul_rcr, 'matmul')\n    return bb.get()\n"
)

# tvm-v0.18.0 tests/python/relax/test_codegen_tir_cutlass.py (A_TYPE = "float16" ... used as the
# dtype of the kernels' buffers): a module constant
_MODULE_CONSTANT = (
    "from tvm.script import tir as T\n\nC_TYPE = 'float16'\n\n\n"
    "@T.prim_func\n"
    "def dense(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), C_TYPE)):\n"
    "    for i, j, k in T.grid(16, 16, 16):\n"
    "        with T.block('dense'):\n"
    "            vi, vj, vk = T.axis.remap('SSR', [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.cast(0, C_TYPE)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]\n"
)

# tvm-head python/tvm/s_tir/tensor_intrin/cuda.py (get_mma_load_intrin(..., dtype, ...): every
# call in the module passes "float16") and mlc-llm python/mlc_llm/op/moe_matmul.py (a kernel
# generator whose buffers take the dtype given to it): a parameter of the generator
def _generator(signature: str, calls: str, accumulator: str = "T.alloc_buffer((n,), dtype=dtype)") -> str:
    return (
        "from tvm.script import tir as T\n\n\n"
        f"def {signature}:\n"
        "    @T.prim_func\n"
        "    def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):\n"
        f"        acc = {accumulator}\n"
        "        for i, k in T.grid(n, n):\n"
        "            with T.block('gemv'):\n"
        "                vi, vk = T.axis.remap('SR', [i, k])\n"
        "                with T.init():\n"
        "                    acc[vi] = T.cast(0, dtype)\n"
        "                acc[vi] = acc[vi] + A[vi, vk] * x[vk]\n"
        "        for i in range(n):\n"
        "            with T.block('out'):\n"
        "                vi = T.axis.spatial(n, i)\n"
        "                y[vi] = acc[vi]\n"
        "    return gemv\n\n\n" + calls
    )


# tvm-head python/tvm/topi/nn/dense.py builds a te.sum over placeholders of a dtype parameter;
# here the parameter's default is the only value any visible call gives it
_TE_GENERATOR = (
    "from tvm import te\n\n\n"
    "def matmul(n, dtype='float16'):\n"
    "    A = te.placeholder((n, n), dtype=dtype, name='A')\n"
    "    B = te.placeholder((n, n), dtype=dtype, name='B')\n"
    "    k = te.reduce_axis((0, n), name='k')\n"
    "    return te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))\n\n\n"
    "C = matmul(64)\n"
)


_TUNED_GEMM = ("    A = te.placeholder((n, n), dtype=dtype, name='A')\n    B = te.placeholder((n, n), dtype=dtype, name='B')\n"
               "    k = te.reduce_axis((0, n), name='k')\n    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))\n")


class Float16Accumulation(Rule):
    code = "TVM401"
    prefilter = Prefilter(
        triggers=("tvmscript_inits", "te_sum"), wants="low_precision_sum", inner="low_precision_sum",
        text_pattern="low_precision_literal", text_pattern_outside_tvm="dtype_name",
    )

    TIR = "from tvm.script import tir as T\n"
    TIRX = "from tvm.script import tirx as T\n"
    GEMM = (
        "def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), {c})):\n"
        "    for i, j, k in T.grid(16, 16, 16):\n"
        "        with T.block('mm'):\n"
        "            vi, vj, vk = T.axis.remap('SSR', [i, j, k])\n"
        "            with T.init():\n"
        "                C[vi, vj] = T.float16(0)\n"
        "            {update}\n"
    )
    TE = "import tvm\nfrom tvm import te\n"

    VALID = [
        # float16 inputs, float32 accumulator
        TIR + "@T.prim_func\n" + GEMM.format(c="'float32'", update="C[vi, vj] = C[vi, vj] + T.Cast('float32', A[vi, vk]) * T.Cast('float32', B[vk, vj])"),
        # T.Buffer's default dtype is float32
        TIR + "@T.prim_func\n" + GEMM.format(c="'float32'", update="C[vi, vj] += A[vi, vk] * B[vk, vj]").replace("C: T.Buffer((16, 16), 'float32')", "C: T.Buffer((16, 16))"),
        # max/min reductions are exact in any dtype
        TIR + "@T.prim_func\n" + GEMM.format(c="'float16'", update="C[vi, vj] = T.max(C[vi, vj], A[vi, vk])"),
        # the dtype is not a literal
        TIR + "@T.prim_func\n" + GEMM.format(c="dtype", update="C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]"),
        # a float16 output written once from a float32 accumulator
        TIRX + "@T.prim_func\ndef f(a: T.handle, d: T.handle):\n"
        "    A = T.match_buffer(a, (16, 16), 'float16')\n    D = T.match_buffer(d, (16,), 'float16')\n"
        "    acc = T.alloc_buffer((16,), 'float32')\n"
        "    for i, k in T.grid(16, 16):\n        with T.block('sum'):\n            vi, vk = T.axis.remap('SR', [i, k])\n"
        "            with T.init():\n                acc[vi] = T.float32(0)\n            acc[vi] = acc[vi] + T.Cast('float32', A[vi, vk])\n"
        "    for i in range(16):\n        with T.block('cast'):\n            vi = T.axis.spatial(16, i)\n            D[vi] = T.Cast('float16', acc[vi])\n",
        # TE: a float32 accumulator fed by float16 inputs
        TE + "A = te.placeholder((64,), dtype='float16', name='A')\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((1,), lambda i: te.sum(A[k].astype('float32'), axis=k))\n",
        TE + "A = te.placeholder((64,), name='A')\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((1,), lambda i: te.sum(A[k], axis=k))\n",
        TE + "A = te.placeholder((64,), dtype='float16', name='A')\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((1,), lambda i: te.max(A[k], axis=k))\n",
        # a computed tensor whose body tvmlint cannot follow leaves the sum unjudged; a float32 cast copy widens
        TE + "A = te.placeholder((64, 64), dtype='float16', name='A')\nD = te.compute((64, 64), decode, name='D')\n"
        "k = te.reduce_axis((0, 64), name='k')\nS = te.compute((64,), lambda i: te.sum(A[i, k] * D[i, k], axis=k))\n",
        TE + "A = te.placeholder((64, 64), dtype='float16', name='A')\n"
        "A32 = te.compute((64, 64), lambda i, j: A[i, j].astype('float32'), name='A32')\n"
        "k = te.reduce_axis((0, 64), name='k')\nS = te.compute((64,), lambda i: te.sum(A32[i, k], axis=k))\n",
        # a cast to an accumulator dtype held in a name: a widening where the name says float32,
        # unknown where it says nothing tvmlint can read
        TE + "ACC = 'float32'\nA = te.placeholder((64,), dtype='float16', name='A')\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((1,), lambda i: te.sum(A[k].astype(ACC), axis=k))\n",
        TE + "def gemm(A, B, acc_dtype):\n    k = te.reduce_axis((0, 64), name='k')\n"
        "    return te.compute((64, 64), lambda i, j: te.sum(A[i, k].astype(acc_dtype) * B[k, j].astype(acc_dtype), axis=k))\n",
        TE + "A = te.placeholder((64,), dtype='float16', name='A')\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((1,), lambda i: te.sum(tvm.tir.Cast('float32', A[k]), axis=k))\n",
        # a Python float in the summed arithmetic is a float32 constant, and TVM casts the float16
        # side up to it (numerics.toml [accumulation] python_float): summing in float32
        # (souffle-models swin_patch_merge.py: the variance against a mean scaled by 1.0 / n)
        TE + "A = te.placeholder((64, 64), dtype='float16', name='A')\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((64,), lambda i: te.sum(A[i, k] * 0.5, axis=k))\n",
        TE + "scale = 1.0 / (4 * 64)\nA = te.placeholder((64, 64), dtype='float16', name='A')\n"
        "M = te.compute((64,), lambda i: A[i, 0] * scale)\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((64,), lambda i: te.sum((A[i, k] - M[i]) * (A[i, k] - M[i]), axis=k))\n",
        # Python's float(): a Python float, as a literal is (checked on the 0.27 wheel: float32)
        TE + "A = te.placeholder((64, 64), dtype='float16', name='A')\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((64,), lambda i: te.sum(A[i, k] * float(2), axis=k))\n",
        # a command-line option whose default is float32
        TE + "import argparse\n\ndef gemm(dtype):\n    A = te.placeholder((64, 64), dtype=dtype, name='A')\n"
        "    k = te.reduce_axis((0, 64), name='k')\n    return te.compute((64,), lambda i: te.sum(A[i, k], axis=k))\n\n"
        "parser = argparse.ArgumentParser()\nparser.add_argument('--dtype', default='float32')\nargs = parser.parse_args()\ngemm(args.dtype)\n",
        # the decode function returns float32: the sum is float32 too
        TE + "def decode_func(n, k):\n    return B[n, k].astype('float32')\n\n"
        "A = te.placeholder((64, 64), dtype='float32', name='A')\nB = te.placeholder((64, 64), dtype='int8', name='B')\n"
        "D = te.compute((64, 64), decode_func, name='D')\nk = te.reduce_axis((0, 64), name='k')\n"
        "S = te.compute((64,), lambda i: te.sum(A[i, k] * D[i, k], axis=k))\n",
        # a float16 buffer the block initialises but then overwrites: nothing accumulates
        TIR + "@T.prim_func\n" + GEMM.format(c="'float16'", update="C[vi, vj] = A[vi, vk] * B[vk, vj]"),
        # an init block elsewhere than TVMScript is not TVMScript
        "class T:\n    pass\nwith T.init():\n    C[0] = 0\nC[0] = C[0] + 1\n",
        # a test module's kernels that are only compared as structures compute nothing
        Case("", files={"tests/test_gpu_gemv.py": _DLIGHT_STRUCTURAL}),
        Case("", files={"tests/test_lower_all_reduce.py": _COMPARE_BEFORE_AFTER}),
        Case("", files={"tests/test_legalize.py": _LEGALIZE_EXPECTED}),
        # a package's module-level kernels that the package only hands out as patterns
        Case("", files={"backend_tir/__init__.py": "", "backend_tir/pattern.py": _PATTERN_TABLE}),
        # dtype names with no low value tvmlint can see
        _generator("make(n, dtype='float16')", "f = make(128, 'float32')\n"),  # every call passes another literal
        _generator("make(n, dtype)", ""),  # no visible call, no default
        _generator("make(n, dtype)", "f = make(128, out_dtype)\n"),  # a name tvmlint cannot read
        # tvm-head tests/python/codegen/test_target_codegen_vulkan.py: the dtype comes from pytest
        _generator("test_kernel(n, dtype)", "").replace("def test_kernel", "@pytest.mark.parametrize('dtype', ['float16', 'float32'])\ndef test_kernel").replace("from tvm", "import pytest\nfrom tvm", 1),
        # a run of assignments: only the last one reaches the call
        Case(TE + "def dot(n, op1):\n    X = te.placeholder((n,), name='X', dtype=op1)\n"
             "    p = te.reduce_axis((0, n), 'p')\n    return te.compute((1,), lambda i: te.sum(X[p], axis=p))\n\n"
             "if __name__ == '__main__':\n    op1, store = 'float16', 'float16'\n    op1, store = 'float32', 'float16'\n"
             "    dot(64, op1)\n"),
        # a builder other modules call with float32 only, or not at all
        Case(TE + "from ops.dense import gemm\nC = gemm(64, 'float32')\n",
             files={"ops/__init__.py": "", "ops/dense.py": TE + "def gemm(n, dtype):\n" + _TUNED_GEMM + "    return C\n"}),
        Case(TE + "def gemm(n, dtype):\n" + _TUNED_GEMM + "    return C\n", path="ops/dense.py", files={"ops/__init__.py": ""}),
        # the same tuned GEMM given float32, and a tuple tvmlint cannot read (what it holds is not known)
        Case(TE + "from tvm import auto_scheduler\n\n@auto_scheduler.register_workload\ndef gemm(n, dtype):\n" + _TUNED_GEMM
             + "    return [A, B, C]\n\ntask = auto_scheduler.SearchTask(func=gemm, args=(1024, 'float32'), target='cuda')\n",
             target="0.10"),
        Case(TE + "from tvm import auto_scheduler\n\n@auto_scheduler.register_workload\ndef gemm(n, dtype):\n" + _TUNED_GEMM
             + "    return [A, B, C]\n\ntask = auto_scheduler.SearchTask(func=gemm, args=shape_and_dtype, target='cuda')\n",
             target="0.10"),
        Case(TE + "from tvm import autotvm\n\n@autotvm.template('tutorial/matmul')\ndef matmul(n, dtype):\n" + _TUNED_GEMM
             + "    return te.create_schedule(C.op), [A, B, C]\n\n"
             "task = autotvm.task.create('tutorial/other', args=(512, 'float16'), target='cuda')\n",
             target="0.8"),
        # the same SparseTIR kernel summing into a float32 buffer, and a settings module that
        # binds the imported dtype twice (which one is read is not known)
        Case(_SPARSE_SPMM.format(c="'float32'"), target="0.9"),
        Case(_IMPORTED_DTYPE, files={"config.py": "dtype_str = 'float16'\ndtype_str = 'float32'\n"}, target="0.16"),
    ]
    INVALID = [
        Case(TIR + "@T.prim_func\n" + GEMM.format(c="'float16'", update="C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]"),
             expect="float16 buffer"),
        # the store's implicit cast: the float32 product is rounded back into float16 at every step
        Case(TIR + "@T.prim_func\n" + GEMM.format(c="'float16'", update="C[vi, vj] = C[vi, vj] + T.Cast('float32', A[vi, vk])"),
             expect="C"),
        Case(TIRX + "@T.prim_func\n" + GEMM.format(c="'bfloat16'", update="C[vi, vj] += A[vi, vk] * B[vk, vj]").replace("T.block(", "T.sblock("),
             expect="bfloat16", target="0.27"),
        # the old subscript annotation, and a match_buffer with the dtype as a keyword
        Case(TIR + "@T.prim_func\n" + GEMM.format(c="'float16'", update="C[vi, vj] = A[vi, vk] * B[vk, vj] + C[vi, vj]")
             .replace("C: T.Buffer((16, 16), 'float16')", "C: T.Buffer[(16, 16), 'float16']"), target="0.10"),
        Case(TIR + "@T.prim_func\ndef f(a: T.handle, c: T.handle):\n"
             "    A = T.match_buffer(a, (16, 16), dtype='float16')\n    C = T.match_buffer(c, (16,), dtype='float16')\n"
             "    for i, k in T.grid(16, 16):\n        with T.block('sum'):\n            vi, vk = T.axis.remap('SR', [i, k])\n"
             "            with T.init():\n                C[vi] = T.float16(0)\n            C[vi] = C[vi] + A[vi, vk]\n",
             expect="declared on line 5"),
        # an intermediate buffer
        Case(TIRX + "@T.prim_func\ndef f(A: T.Buffer((16, 16), 'float16')):\n    acc = T.alloc_buffer((16,), 'float16')\n"
             "    for i, k in T.grid(16, 16):\n        with T.sblock('sum'):\n            vi, vk = T.axis.remap('SR', [i, k])\n"
             "            with T.init():\n                acc[vi] = T.float16(0)\n            acc[vi] = acc[vi] + A[vi, vk]\n",
             target="0.27", expect="acc"),
        Case(TE + "A = te.placeholder((64, 64), dtype='float16', name='A')\nB = te.placeholder((64, 64), dtype='float16', name='B')\n"
             "k = te.reduce_axis((0, 64), name='k')\n"
             "C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))\n", expect="te.sum"),
        # a test module's kernel that the module builds or runs
        Case("", files={"tests/test_few_shot_tuning.py": _BUILT_BY_HELPER}, expect="NT_matmul"),
        Case("", files={"tests/test_codegen_vulkan.py": _TE_BUILT}, expect="te.sum", target="0.18"),
        Case("", files={"tests/test_codegen_cuda_fp8.py": _COMPILED_AFTER_PIPELINE}, expect="float16 buffer", target="0.27"),
        Case("", files={"tests/test_benchmark.py": _BENCHMARKED}, expect="float16 buffer", target="0.27"),
        # each kernel its own finding, where it is (BitBLAS bitblas/ops/impl/matmul_impl.py: matmul_nn,
        # matmul_nt, ... one te.sum each)
        Case(_LIBRARY_REPEATED, expect="float16 buffer", count=3),
        # a package's module-level kernel that the package puts into a model, and a kernel a
        # package's function makes (mlc-llm python/mlc_llm/op/moe_matmul.py: the library's product)
        Case("", files={"ops/__init__.py": "", "ops/model.py": _INSERTED}, expect="declared on line 15"),  # matmul_rcr alone
        Case("", files={"ops/__init__.py": "", "ops/gemv.py": _generator("make(n, dtype='float16')", "")}, expect="through `dtype`"),
        # dtypes through a name bound once to a literal
        Case(_MODULE_CONSTANT, expect="through `C_TYPE`, bound to \"float16\" on line 3"),
        Case(_generator("make(n, dtype='float16')", "f = make(128)\ng = make(n=256)\n"), expect="through `dtype`"),
        Case(_generator("make(n, dtype)", "f = make(128, 'float16')\ng = make(64, dtype='float16')\n"), expect="bound to \"float16\""),
        Case(_generator("make(n)", "", "T.alloc_buffer((n,), dtype)").replace("def make(n):\n", "def make(n):\n    dtype = 'bfloat16'\n"), expect="a bfloat16 buffer"),
        Case(_TE_GENERATOR, expect="A's and B's dtype through `dtype`"),
        # a cast to float16 is no widening: int8 data cast to float16 still sums in float16, and so
        # does `.astype(out_dtype)` where out_dtype is float16 (the shape of TE GEMM/conv kernels in
        # benchmark scripts: a module-level `out_dtype = "float16"` and both operands cast to it)
        Case(TE + "A = te.placeholder((64, 64), dtype='int8', name='A')\nB = te.placeholder((64, 64), dtype='int8', name='B')\n"
             "k = te.reduce_axis((0, 64), name='k')\n"
             "C = te.compute((64, 64), lambda i, j: te.sum(A[i, k].astype('float16') * B[k, j].astype('float16'), axis=k))\n",
             expect="cast to float16"),
        Case(TE + "out_dtype = 'float16'\nA = te.placeholder((64, 64), dtype='float16', name='A')\n"
             "B = te.placeholder((64, 64), dtype='float16', name='B')\nk = te.reduce_axis((0, 64), name='k')\n"
             "C = te.compute((64, 64), lambda i, j: te.sum(A[i, k].astype(out_dtype) * B[k, j].astype(out_dtype), axis=k))\n",
             expect="cast to float16 through `out_dtype`, bound to \"float16\" on line 3"),
        # a builder whose dtype defaults to float16 and that is passed on (a benchmark table), and one
        # called with float16 and float32: reported for the low value, named
        Case(TE + "def reduce_sum(n, k, dtype='float16'):\n    A = te.placeholder((n, k), name='A', dtype=dtype)\n"
             "    r = te.reduce_axis((0, k), name='r')\n    return te.compute((n,), lambda i: te.sum(A[i, r], axis=r))\n"
             "\nBENCHMARKS = [(reduce_sum, (1024, 1024))]\n", expect="one of the values it takes"),
        Case(_generator("make(n, dtype)", "f = make(128, 'float32')\ng = make(64, dtype='float16')\n"),
             expect="\"float16\" as given on line"),
        # (issue #28) a value among several is still a value: one call passes a name, another float16;
        # a dtype assigned twice; a builder passed on, with a float16 default
        Case(_generator("make(n, dtype)", "f = make(128, 'float16')\ng = make(128, out_dtype)\n"), expect="float16"),
        Case(_generator("make(n)", "", "T.alloc_buffer((n,), dtype)").replace(
            "def make(n):\n", "def make(n):\n    dtype = 'float16'\n    if n > 64:\n        dtype = 'float32'\n"),
            expect="one of the values it takes"),
        Case(_generator("make(n, dtype='float16')", "kernels = [make]\n"), expect="one of the values it takes"),
        # a float constant of a named dtype is no Python float: it keeps the sum in float16
        Case(TE + "A = te.placeholder((64, 64), dtype='float16', name='A')\nk = te.reduce_axis((0, 64), name='k')\n"
             "S = te.compute((64,), lambda i: te.sum(A[i, k] * tvm.tir.const(0.5, 'float16'), axis=k))\n", expect="te.sum"),
        # (issue #28) the dtype from a command-line option's default, through two helpers
        # (pku-liang/AMOS benchmark/amos/mapping_gemm_tensorcore.py: --in_dtype/--out_dtype default
        # float16, passed on by mapping_tensorcore to gemm, where te.sum casts to out_dtype)
        Case(TE + "import argparse\n\ndef gemm(in_dtype, out_dtype):\n    A = te.placeholder((64, 64), dtype=in_dtype, name='A')\n"
             "    B = te.placeholder((64, 64), dtype=in_dtype, name='B')\n    k = te.reduce_axis((0, 64), name='k')\n"
             "    return te.compute((64, 64), lambda i, j: te.sum((A[i, k] * B[k, j]).astype(out_dtype), axis=k))\n\n"
             "def tune(in_dtype, out_dtype):\n    return gemm(in_dtype, out_dtype)\n\n"
             "if __name__ == '__main__':\n    parser = argparse.ArgumentParser()\n"
             "    parser.add_argument('--in_dtype', type=str, default='float16')\n"
             "    parser.add_argument('--out-dtype', choices=['float16', 'float32'], default='float16')\n"
             "    args = parser.parse_args()\n    tune(args.in_dtype, args.out_dtype)\n",
             expect="bound to \"float16\" on line 17"),
        # (issue #28) a wrapper passes its own dtype parameter on; its default or its callers give
        # the value (BitBLAS bitblas/ops/impl/matmul_splitk_impl.py: select_implementation ->
        # matmul -> matmul_nt, accum_dtype defaulting to float16 at each level)
        Case(TE + "def matmul_nt(n, accum_dtype='float16'):\n    A = te.placeholder((n, n), dtype='float16', name='A')\n"
             "    k = te.reduce_axis((0, n), name='k')\n"
             "    return te.compute((n,), lambda i: te.sum(A[i, k].astype(accum_dtype), axis=k))\n\n"
             "def matmul(n, accum_dtype='float16', with_bias=False):\n    return matmul_nt(n, accum_dtype)\n\n"
             "def select_implementation(n=16, accum_dtype='float16', with_bias=False):\n"
             "    if n > 8:\n        return matmul(n, with_bias, accum_dtype)\n    return matmul(n, accum_dtype, with_bias)\n",
             expect="cast to float16 through `accum_dtype`"),
        # (issue #28) a tensor computed by a function of the module: a dequantizing GEMV's decode
        # step returns a helper's `.astype(dtype)` (LeiWang1999/mlc-benchmark tir-roller/static/
        # operators/matmul_dequantize.py, Ladder's fp16xint4_gemv.py with a float16 const rescale)
        Case(TE + "def gemv_i4(N, K, in_dtype='float16'):\n"
             "    def _to_float(nbit: int, val: tvm.tir.PrimExpr, dtype: str):\n"
             "        mask = tvm.tir.const((1 << nbit) - 1, 'int8')\n        return (val & mask).astype(dtype)\n\n"
             "    A = te.placeholder((1, K), name='A', dtype=in_dtype)\n    B = te.placeholder((N, K // 2), name='B', dtype='int8')\n\n"
             "    def decode_func(n, k):\n        w = _to_float(4, B[n, k // 2], dtype=in_dtype)\n        return w\n\n"
             "    B_decode = te.compute((N, K), decode_func, name='B_decode')\n"
             "    B_rescale = te.compute((N, K), lambda i, j: B_decode[i, j] * tvm.tir.const(1.0, 'float16'), name='B_rescale')\n"
             "    k = te.reduce_axis((0, K), name='k')\n"
             "    return te.compute((1, N), lambda i, j: te.sum(A[i, k] * B_rescale[j, k], axis=k), name='C')\n\n"
             "gemv_i4(16384, 16384)\n", expect="B_rescale's dtype through `in_dtype`"),
        # a math function keeps its argument's dtype: exp of a float16 tensor is float16
        # (souffle-models bert_tvm.py bert_softmax_reduce_sum: te.sum over tir.exp(src))
        Case(TE + "from tvm import tir\n\ndef softmax_sum(n, dtype='float16'):\n    src = te.placeholder((n, n), dtype, name='src')\n"
             "    e = te.compute((n, n), lambda i, j: tir.exp(src[i, j]), name='e')\n    rk = te.reduce_axis((0, n), name='rk')\n"
             "    return te.compute((n,), lambda i: te.sum(e[i, rk], axis=[rk]))\n\nsoftmax_sum(128)\n",
             target="0.8", expect="e's dtype through `dtype`"),
        # a computed tensor has its body's dtype: a padded float16 input (topi-style conv2d's pad
        # with te.if_then_else), a float16 cast copy
        Case(TE + "A = te.placeholder((1, 66, 66, 64), dtype='float16', name='A')\n"
             "W = te.placeholder((3, 3, 64, 64), dtype='float16', name='W')\n"
             "pad = te.compute((1, 68, 68, 64), lambda n, h, w, c: te.if_then_else(tvm.tir.all(h >= 1, w >= 1), A[n, h - 1, w - 1, c], 0.0), name='pad')\n"
             "kh = te.reduce_axis((0, 3), name='kh')\nkw = te.reduce_axis((0, 3), name='kw')\nrc = te.reduce_axis((0, 64), name='rc')\n"
             "C = te.compute((1, 66, 66, 64), lambda n, h, w, f: te.sum(pad[n, h + kh, w + kw, rc] * W[kh, kw, rc, f], axis=[kh, kw, rc]))\n",
             expect="te.sum adds float16"),
        Case(TE + "A = te.placeholder((64, 64), dtype='int8', name='A')\n"
             "A16 = te.compute((64, 64), lambda i, j: A[i, j].astype('float16'), name='A16')\n"
             "k = te.reduce_axis((0, 64), name='k')\nS = te.compute((64,), lambda i: te.sum(A16[i, k], axis=k))\n",
             expect="te.sum adds float16"),
        Case(TE + "def conv(data, kernel, out_dtype='float16'):\n    k = te.reduce_axis((0, 64), name='k')\n"
             "    return te.compute((64,), lambda i: te.sum(data[i, k].astype(out_dtype) * kernel[k].astype(out_dtype), axis=k))\n"
             "\nout = conv(d, w)\n", expect="through `out_dtype`"),
        # (issue #28) a tuner calls the registered workload with the args tuple the script gives
        # (numerics.toml `workload_call`; JieGH/transformers_tvm auto_scheduler_GEMM.py: the
        # types are set per command-line case at module level, one case all float16)
        Case(TE + "from tvm import auto_scheduler\n\n@auto_scheduler.register_workload\ndef gemm(n, dtype):\n" + _TUNED_GEMM
             + "    return [A, B, C]\n\nif mode == 1:\n    dtype = 'float32'\nelse:\n    dtype = 'float16'\n"
             "task = auto_scheduler.SearchTask(func=gemm, args=(1024, dtype), target='cuda')\n",
             target="0.10", expect="\"float16\" as given on line 16"),
        # (issue #28) a kernel builder in one module whose dtype the calls of another module give,
        # through a wrapper that passes its own parameter on and keeps its default
        Case(TE + "from ops.dense import gemm\n\ndef tune(m, dtype='float16'):\n    return gemm(m, dtype)\n\ntune(64)\n",
             path="run.py", files={"ops/__init__.py": "", "ops/dense.py": TE + "def gemm(n, dtype):\n" + _TUNED_GEMM + "    return C\n"},
             expect='`dtype` is "float16" when ops.dense.gemm is called from run.py:6; when tune is called from run.py:8, which keeps its default'),
        # names set together by unpacking, the last of a run of assignments counting (adcastel/
        # TVM_mixed_precision dot.py: three settings tried in turn in __main__, the last one kept)
        Case(TE + "def dot(n, op1, op2):\n    X = te.placeholder((n,), name='X', dtype=op1)\n"
             "    Y = te.placeholder((n,), name='Y', dtype=op2)\n    p = te.reduce_axis((0, n), 'p')\n"
             "    return te.compute((1,), lambda i: te.sum(X[p] * Y[p], axis=p))\n\n"
             "if __name__ == '__main__':\n    op1, op2 = 'float32', 'float32'\n    op1, op2 = 'float16', 'float16'\n"
             "    dot(64, op1, op2)\n", expect='"float16" as given on line 11'),
        # autotvm finds the template by the name its decorator registers
        Case(TE + "from tvm import autotvm\n\n@autotvm.template('tutorial/matmul')\ndef matmul(n, dtype):\n" + _TUNED_GEMM
             + "    return te.create_schedule(C.op), [A, B, C]\n\n"
             "task = autotvm.task.create('tutorial/matmul', args=(512, 'float16'), target='cuda')\n",
             target="0.8", expect="te.sum adds float16"),
        # a SparseTIR kernel (uwsampl/sparsetir examples/blocksparse/bsr_spmm.py): a sparse buffer's
        # dtype, a sparse iteration's init and store
        Case(_SPARSE_SPMM.format(c="'float16'"), target="0.9", expect="float16 buffer"),
        # a settings module's constant the kernel's module imports (ACMClass-TVM-20/AD-Example
        # attention/flashattn: config.py's dtype_str, read through `from config import *`)
        Case(_IMPORTED_DTYPE, files={"config.py": "dtype_str = 'float16'\n"}, target="0.16",
             expect='`dtype_str`, which is "float16" as config.py:1 sets it'),
    ]

    def start(self) -> None:
        facts = accumulation()
        version = self.file.knowledge.version
        self.low = facts.low_precision
        namespaces = tvmscript_namespaces()
        self.init_apis = frozenset(f"{ns}.init" for ns in namespaces)
        self.block_apis = frozenset(f"{ns}.{name}" for ns in namespaces for name in facts.reduction_scopes)
        self.buffer_types, self.decls, self.tensors = declarations(version)
        self.sum_apis = sum_apis(version)
        self.cast_methods = facts.cast_methods
        self.cast_calls = facts.cast_calls | {f"{ns}.Cast" for ns in namespaces}
        self.computes = compute_apis(version)
        self.selects = select_apis(version)
        self.keep_dtype = keep_dtype(version)
        self.functions: Dict[str, cst.FunctionDef] = {}
        self.walker = _Walker(self)

    def get_visitors(self):
        return self.walker.get_visitors()

    def finish(self) -> None:
        self.candidates: List[_Candidate] = []
        for block, scope in self.walker.blocks:
            self._judge_block(block, scope)
        for call, scope in self.walker.sums:
            self._judge_sum(call, scope)
        self._report_kernels()

    # -- which kernels ---------------------------------------------------

    @property
    def use(self) -> Optional[KernelUse]:
        """The module's stdlib tree read for what it does with its kernels (built lazily: most
        modules TVM401 sees hold no candidate); None when it cannot be read (nothing is known)."""
        if not hasattr(self, "_use"):
            try:
                self._use = KernelUse(self.file.text, kernel_runners(), getattr(self.file.analysis, "package", ""),
                                      kernel_inserters(), tree=self.file.stdlib_tree,
                                      workload_calls=workload_calls(self.file.knowledge.version))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._use = None
        return self._use

    def _in_test_module(self) -> bool:
        return bool(getattr(self.file.analysis, "is_test_module", False)) or is_test_path(self.file.path)

    def _runs(self, candidate: _Candidate, test: bool) -> bool:
        """Whether the module visibly builds or runs the kernel that holds a candidate. Outside
        tests only a package module's kernel written at module level is asked (one a function
        makes is the library's product, built by its callers; a script's is the script's), and
        putting it into a model counts too."""
        use = self.use
        if use is None:
            return not test
        chain = use.chain_at(candidate.line)
        start = use.tensor_start(chain) if candidate.tensor else use.kernel_start(chain, candidate.line)
        if not test:
            in_package = "." in getattr(self.file.analysis, "module_name", "")
            if not in_package or start is None or not isinstance(start[0], ast.Module):
                return True
        return start is not None and use.reaches_run(*start, inserted=not test)

    def _report_kernels(self) -> None:
        kept = sorted(self.candidates, key=lambda c: (c.line, c.column))
        if kept:
            # a test's kernel computes something only when the test builds or runs it: the
            # Before/Expected modules of a transform test are only compared as structures; a
            # library's module-level kernel, only when the module builds, runs or inserts it
            test = self._in_test_module()
            kept = [candidate for candidate in kept if self._runs(candidate, test)]
        # one finding per kernel, as ruff reports each occurrence: each is its own line to fix
        # or to suppress with a noqa (a shape repeated in a module used to be folded into the
        # first one, and the others could be neither seen at their line nor suppressed)
        for candidate in kept:
            self.report(candidate.node, candidate.message, detail=candidate.detail)

    def _resolve(self, dtype, node: cst.CSTNode) -> Tuple[Optional[str], str]:
        """A declared dtype as a literal, and how it was found (for the message)."""
        if isinstance(dtype, ByName):
            if self.use is None:
                return UNKNOWN, ""
            line = self.file.span(node)[0].line
            found = self.use.literal(dtype.name, line)
            if found is not None:
                return found[0], f" through `{dtype.name}`, bound to \"{found[0]}\" on line {found[1]}"
            # several values (a default and the calls, or assignments on several paths): the kernel
            # is reported for a low one, named, since it accumulates low whenever it is given that
            low = [value for value in self.use.possible(dtype.name, line) if value[0] in self.low]
            if not low:
                return UNKNOWN, ""
            return low[0][0], (f" through `{dtype.name}`, which is \"{low[0][0]}\" as given on line {low[0][1]}"
                               " (one of the values it takes)")
        return dtype, ""

    def _pending(self, dtype, node: cst.CSTNode):
        """For a dtype given by a name that only other modules can fix (their calls, or their
        constant the module imports), what waits on them: a Pending, an Imported, or None."""
        if not isinstance(dtype, ByName) or self.use is None:
            return None
        line = self.file.span(node)[0].line
        found = self.use.outer_parameter(dtype.name, line)
        if found is not None:
            return Pending(found[0], dtype.name, found[1], found[2])
        roots = roots_of(self.file.knowledge)
        names = tuple(name for name in self.use.imported_from(dtype.name, line) if name.partition(".")[0] not in roots)
        return Imported(dtype.name, names) if names else None

    def _defer_to_callers(self, candidate: _Candidate, pending, wanted: frozenset) -> None:
        """Wait for what the project's calls give the parameter (the project step reports the
        kernel for the first low value one of them passes, named with where it comes from). A
        library's builder counts though its module builds nothing: the call that gives it the
        dtype is the one that makes the kernel; a test's, only where the test builds it."""
        test = self._in_test_module()
        node, message, detail = candidate.node, candidate.message, candidate.detail
        if test and not self._runs(candidate, test):
            return
        module = getattr(self.file.analysis, 'module_name', '')
        if isinstance(pending, Imported):
            # the context is no matter here: only what the defining module binds the name to
            self.defer(node, Inherited(f"{module}.{pending.param}"), ConstantWait(pending.names, wanted, message, detail))
            return
        function = f"{module}.{pending.function}"
        self.defer(node, Inherited(function),
                   ArgumentWait(function, pending.param, pending.position, pending.default, wanted, message, detail))

    # -- dtypes ----------------------------------------------------------------------

    def declared_dtype(self, node: cst.BaseExpression):
        """The dtype a buffer/tensor declaration gives (None when not a literal); False when `node` declares none."""
        if isinstance(node, cst.Subscript) and self.file.qualname(node.value) in self.buffer_types:
            parts = [element.slice.value for element in node.slice if isinstance(element.slice, cst.Index)]
            if len(parts) >= 2:
                return _literal_or_name(parts[1])
            return self.decls[self.file.qualname(node.value)].default_dtype
        if not isinstance(node, cst.Call):
            return False
        qualname = self.file.qualname(node.func)
        row = self.decls.get(qualname) or self.tensors.get(qualname)
        if row is None:
            return False
        args, hidden = call_arguments(node, row.params)
        dtype = args.get("dtype")
        if dtype is None:
            return UNKNOWN if hidden else row.default_dtype
        return _literal_or_name(dtype)

    def computed_dtype(self, node: cst.BaseExpression, scope) -> Optional[Declared]:
        """A te.compute's dtype, as the declaration it comes from (numerics.toml `te_compute`):
        None when its fcompute is neither a lambda nor a function of the module whose body
        tvmlint can follow."""
        if not self._is_call_to(node, self.computes):
            return None
        args, hidden = call_arguments(node, ("shape", "fcompute"))
        body = args.get("fcompute")
        if hidden:
            return None
        if isinstance(body, cst.Lambda):
            return self._expression_dtype(body.body, scope, _Env())
        if isinstance(body, cst.Name) and body.value in self.functions:
            # `te.compute(shape, decode_func)`: a dequantizing GEMM's decode step, a def whose
            # return value is the element (Ladder, BitBLAS and mlc-benchmark kernels)
            return self._returned_dtype(self.functions[body.value], {}, scope, 0)
        return None

    def _returned_dtype(self, function: cst.FunctionDef, params: Dict[str, Declared], scope, depth: int) -> Optional[Declared]:
        """The dtype of what a function of the module returns, given what its parameters hold:
        one `return` (outside nested functions), read through names the body binds once."""
        if depth > _CALL_DEPTH or not isinstance(function.body, cst.IndentedBlock):
            return None
        returns = _Returns()
        walk(function.body, returns)
        if len(returns.values) != 1:
            return None
        return self._expression_dtype(returns.values[0], scope, _Env(params, returns.assigned, depth))

    def _expression_dtype(self, node: cst.BaseExpression, scope, env: "_Env") -> Optional[Declared]:
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            return scope.get(node.value.value)
        if isinstance(node, cst.Name):
            if node.value in env.params:
                return env.params[node.value]
            bound = env.assigned.get(node.value)
            return self._expression_dtype(bound, scope, env) if bound is not None else None
        if isinstance(node, cst.Call):
            func = node.func
            if (isinstance(func, cst.Attribute) and func.attr.value in self.cast_methods
                    or self.file.qualname(func) in self.cast_calls) and node.args and node.args[0].keyword is None:
                target = node.args[0].value
                if isinstance(target, cst.Name) and target.value in env.params:
                    return env.params[target.value]
                return Declared(_literal_or_name(target), target)
            if self._is_call_to(node, self.keep_dtype) and node.args and node.args[0].keyword is None:
                return self._expression_dtype(node.args[0].value, scope, env)  # exp(x) has x's dtype
            if self._is_call_to(node, self.selects):
                args, hidden = call_arguments(node, ("cond", "t", "f"))
                return None if hidden or args.get("t") is None else self._expression_dtype(args["t"], scope, env)
            if _typed_constant(node):
                return self._constant_dtype(node)
            if isinstance(func, cst.Name) and func.value in self.functions:
                return self._call_dtype(self.functions[func.value], node, scope, env)
            return None
        if isinstance(node, cst.BinaryOperation):
            left, right = self._expression_dtype(node.left, scope, env), self._expression_dtype(node.right, scope, env)
            if left is None or right is None:
                return None
            if left.dtype == right.dtype:
                return left
            # a dtype through a name beside the same literal (`B_decode[i, j] * const(1.0, "float16")`)
            resolved = self._resolve(left.dtype, left.node)[0]
            if resolved is not UNKNOWN and resolved == self._resolve(right.dtype, right.node)[0]:
                return left if isinstance(left.dtype, ByName) else right
        return None

    def _constant_dtype(self, call: cst.Call) -> Optional[Declared]:
        """`tvm.tir.const(1.0, "float16")`, `T.float16(1)`: the dtype it names."""
        func = call.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value
        if name != "const":
            return Declared(name, call)
        args, hidden = call_arguments(call, ("value", "dtype"))
        dtype = args.get("dtype")
        return Declared(_literal_or_name(dtype), dtype) if dtype is not None and not hidden else None

    def _call_dtype(self, function: cst.FunctionDef, call: cst.Call, scope, env: "_Env") -> Optional[Declared]:
        """The dtype a call of a module's function returns: its parameters bound to what the
        call passes (a literal, or a name read where the call is), else to literal defaults."""
        params = [*function.params.posonly_params, *function.params.params]
        bound: Dict[str, Declared] = {}
        for index, arg in enumerate(call.args):
            if arg.star:
                return None
            name = arg.keyword.value if arg.keyword is not None else (params[index].name.value if index < len(params) else None)
            if name is None:
                return None
            value = arg.value
            if isinstance(value, cst.Name) and value.value in env.params:
                bound[name] = env.params[value.value]
            elif isinstance(value, (cst.Name, cst.SimpleString)):
                bound[name] = Declared(_literal_or_name(value), value)
        for param in (*params, *function.params.kwonly_params):
            if param.name.value not in bound and isinstance(param.default, cst.SimpleString):
                bound[param.name.value] = Declared(param.default.evaluated_value, param.default)
        return self._returned_dtype(function, bound, scope, env.depth + 1)

    # -- TVMScript blocks -----------------------------------------------------------------

    def _is_call_to(self, node: cst.BaseExpression, apis) -> bool:
        return isinstance(node, cst.Call) and self.file.qualname(node.func) in apis

    def _judge_block(self, block: cst.With, scope: Dict[str, Declared]) -> None:
        if not isinstance(block.body, cst.IndentedBlock):
            return
        statements = block.body.body
        inits = [s for s in statements if isinstance(s, cst.With) and any(self._is_call_to(i.item, self.init_apis) for i in s.items)]
        if not inits:
            return
        accumulators = {name for init in inits for name, _ in _stores(init.body)}
        for small in _small_statements(block.body):
            target = _summed_into(small, accumulators)
            if target is None:
                continue
            declared = scope.get(target.value.value)
            if declared is None:
                continue
            dtype, how = self._resolve(declared.dtype, declared.node)
            name = self._block_name(block)
            start = self.file.span(target)[0]
            pending = self._pending(declared.dtype, declared.node) if dtype is UNKNOWN else None
            if pending is not None:
                how = f" through `{pending.param}`, which is \"{{value}}\" {{where}}"
                message, detail = self._block_message(name, target.value.value, declared, "{value}", how)
                self._defer_to_callers(_Candidate(target, start.line, start.column, "", message, False, detail),
                                       pending, self.low)
                continue
            if dtype not in self.low:
                continue
            said = self._block_message(name, target.value.value, declared, dtype, how)
            self.candidates.append(_Candidate(target, start.line, start.column, dtype, said.message, False, said.detail))

    def _block_name(self, block: cst.With) -> str:
        for item in block.items:
            if self._is_call_to(item.item, self.block_apis) and item.item.args:
                first = item.item.args[0].value
                if isinstance(first, cst.SimpleString):
                    return first.evaluated_value
        return ""

    def _block_message(self, name: str, buffer: str, declared: Declared, dtype: str, how: str) -> Said:
        of = f" of block '{name}'" if name else ""
        line = self.file.span(declared.node)[0].line
        return Said(
            f"The reduction{of} accumulates in {buffer}, a {dtype} buffer (declared on line {line}{how})",
            f"Every partial sum is rounded to {dtype}, so the result depends on the order of the additions "
            "and changes when a schedule or tuning reorders the loops (a reported conv2d moved by up to 0.5). "
            "Accumulate in a float32 buffer (T.alloc_buffer(..., \"float32\")) and cast once at the end.",
        )

    # -- tensor expressions -------------------------------------------------------------

    @staticmethod
    def _sum_message(dtype: str, where: str) -> Said:
        return Said(
            f"te.sum adds {dtype} values in {dtype}{where}",
            f"Every partial sum is rounded to {dtype}, so the result depends on the order of the additions and "
            "changes when a schedule reorders the reduction. Sum in float32, te.sum(x.astype(\"float32\"), "
            "axis=...), and cast the result back if you need.",
        )

    def _widened_by_python_float(self, reads: "_Reads", expr: cst.BaseExpression) -> bool:
        """Whether a Python float takes part in the summed arithmetic (`x * 0.5`, `x * scale` with
        `scale = 1.0 / n`): TVM makes it a float32 constant and casts the float16 side up to it
        (numerics.toml [accumulation] python_float), so the sum is no float16 one."""
        if reads.python_float:
            return True
        if not reads.names or self.use is None:
            return False
        tensors = set(reads.tensors)
        line = self.file.span(expr)[0].line
        return any(self.use.python_float(name.value, line) for name in reads.names if name.value not in tensors)

    def _judge_sum(self, call: cst.Call, scope: Dict[str, Declared]) -> None:
        args, hidden = call_arguments(call, ("expr", "axis"))
        expr = args.get("expr")
        if expr is None or hidden:
            return
        reads = _Reads(self)
        walk(expr, reads)
        if reads.cast or not (reads.tensors or reads.casts):
            return
        if self._widened_by_python_float(reads, expr):
            return
        dtypes = set()
        hows = []
        pendings = set()
        for name in reads.tensors:
            declared = scope.get(name)
            if declared is None:
                return
            dtype, how = self._resolve(declared.dtype, declared.node)
            pending = self._pending(declared.dtype, declared.node) if dtype is UNKNOWN else None
            if pending is not None:
                pendings.add(pending)
                hows.append(f"{name}'s dtype through `{pending.param}`")
                continue
            dtypes.add(dtype)
            if how:
                hows.append(f"{name}'s dtype{how}")
        for target in reads.casts:
            dtype, how = self._resolve(_literal_or_name(target), target)
            pending = self._pending(_literal_or_name(target), target) if dtype is UNKNOWN else None
            if pending is not None:
                pendings.add(pending)
                hows.append(f"cast to `{pending.param}`")
                continue
            if dtype is UNKNOWN:
                return  # a cast to a dtype tvmlint cannot read may widen
            dtypes.add(dtype)
            hows.append(f"cast to {dtype}{how}")
        start = self.file.span(call)[0]
        if pendings:
            # one parameter that other modules' calls give, the rest low and alike: a mistake
            # when a call gives it that same low dtype (or any low one, when it is alone)
            if len(pendings) != 1 or len(dtypes) > 1 or not dtypes <= self.low:
                return
            pending = pendings.pop()
            hows.append(f"`{pending.param}` is \"{{value}}\" {{where}}")
            message, detail = self._sum_message("{value}", f" ({_joined(hows)})")
            self._defer_to_callers(_Candidate(call, start.line, start.column, "", message, True, detail),
                                   pending, frozenset(dtypes or self.low))
            return
        if len(dtypes) != 1 or not dtypes <= self.low:
            return
        dtype = dtypes.pop()
        where = f" ({_joined(hows)})" if hows else ""
        said = self._sum_message(dtype, where)
        self.candidates.append(_Candidate(call, start.line, start.column, dtype, said.message, True, said.detail))


def _joined(hows: List[str]) -> str:
    """How each summed tensor gets its dtype, for the message: tensors that get it the same way
    named together ("A's and B's dtype through `dtype`, bound to ... on line 3"), once each."""
    together: Dict[str, List[str]] = {}
    for how in hows:
        name, mark, rest = how.partition("'s dtype")
        key = f"{mark}{rest}" if mark and name.isidentifier() else how
        together.setdefault(key, [])
        if key != how and name not in together[key]:
            together[key].append(name)
    # key "'s dtype through ..." with its tensors, or a whole how ("cast to float16") with none
    return "; ".join(" and ".join(f"{name}'s" for name in names) + key[len("'s"):] if names else key
                     for key, names in together.items())


def _literal_or_name(node: cst.BaseExpression):
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.Name):
        return ByName(node.value)
    return UNKNOWN


def _stores(body: cst.BaseSuite) -> List[Tuple[str, cst.Subscript]]:
    """Buffers stored into (`X[...] = ...`) directly in a block body."""
    out = []
    for small in _small_statements(body):
        if isinstance(small, cst.Assign):
            for target in small.targets:
                if isinstance(target.target, cst.Subscript) and isinstance(target.target.value, cst.Name):
                    out.append((target.target.value.value, target.target))
    return out


def _small_statements(body: cst.BaseSuite) -> List[cst.BaseSmallStatement]:
    """The simple statements directly in a suite (an indented block or `with x: a = b` on one line)."""
    if isinstance(body, cst.SimpleStatementSuite):
        return list(body.body)
    return [small for line in body.body if isinstance(line, cst.SimpleStatementLine) for small in line.body]


def _summed_into(small: cst.BaseSmallStatement, accumulators) -> Optional[cst.Subscript]:
    """The accumulator subscript when `small` adds into one (`C[i] = C[i] + x`, `C[i] += x`)."""
    if isinstance(small, cst.AugAssign):
        target = small.target
        if isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)) and _is_buffer(target, accumulators):
            return target
        return None
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if not _is_buffer(target, accumulators):
        return None
    if _sum_reads(small.value, target.value.value):
        return target
    return None


def _is_buffer(node: cst.BaseExpression, names) -> bool:
    return isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in names


def _sum_reads(node: cst.BaseExpression, buffer: str) -> bool:
    """Whether `node` is a chain of + / - with a read of `buffer` as one of its terms."""
    while isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
        if _is_buffer(node.right, {buffer}):
            return True
        if _is_buffer(node.left, {buffer}):
            return True
        if _sum_reads(node.right, buffer):
            return True
        node = node.left
    return False


def _typed_constant(call: cst.Call) -> bool:
    """`tvm.tir.const(0.5, "float16")`, `T.float16(0.5)`: a constant of a named dtype, whose
    float argument is no Python float in the arithmetic."""
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    # a dtype's own constructor has its width in its name: Python's `float(x)` is a Python float
    return name == "const" or _FLOAT_CONSTRUCTOR.fullmatch(name) is not None


_FLOAT_CONSTRUCTOR = re.compile(r"b?float\d+")


_CALL_DEPTH = 3  # how many function calls deep an element's dtype is followed


@dataclass
class _Env:
    """What a followed function's names hold: its parameters (as declarations) and the
    expressions its body binds once."""

    params: Dict[str, Declared] = dataclasses.field(default_factory=dict)
    assigned: Dict[str, cst.BaseExpression] = dataclasses.field(default_factory=dict)
    depth: int = 0


class _Returns(Visitor):
    """A function body's returned expressions and the names it binds exactly once, outside
    the functions and lambdas nested in it."""

    def __init__(self):
        super().__init__()
        self.values: List[cst.BaseExpression] = []
        self.assigned: Dict[str, cst.BaseExpression] = {}
        self._twice: set = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.values.append(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                name = target.target.value
                if name in self.assigned or name in self._twice:
                    self.assigned.pop(name, None)
                    self._twice.add(name)
                elif len(node.targets) == 1:
                    self.assigned[name] = node.value


class _Reads(Visitor):
    """The tensors a te.sum expression reads outside any cast, the dtypes it casts to (`casts`:
    each target's node), and whether it calls something that may change a dtype unseen (`cast`)."""

    def __init__(self, rule: Float16Accumulation):
        super().__init__()
        self.rule = rule
        self.tensors: List[str] = []
        self.casts: List[cst.BaseExpression] = []
        self.cast = False
        # a Python float in the arithmetic (`x * 0.5`) makes it float32 (numerics.toml
        # [accumulation] python_float): names that may hold one are asked of the module
        self.python_float = False
        self.names: List[cst.Name] = []
        self._indexing = 0
        self._typed_constant = 0  # inside `tvm.tir.const(0.5, "float16")`, `T.float16(0.5)`

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Name):
            self.tensors.append(node.value.value)
        else:
            self.tensors.append("")  # a tensor reached some other way: its dtype is unknown

    def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
        self._indexing += 1  # an index is no operand of the sum's arithmetic

    def leave_SubscriptElement(self, original_node: cst.SubscriptElement) -> None:
        self._indexing -= 1

    def visit_Float(self, node: cst.Float) -> None:
        if not self._indexing and not self._typed_constant:
            self.python_float = True

    def leave_Call(self, original_node: cst.Call) -> None:
        if _typed_constant(original_node):
            self._typed_constant -= 1

    def visit_Name(self, node: cst.Name) -> None:
        if not self._indexing:
            self.names.append(node)

    def visit_Call(self, node: cst.Call) -> Optional[bool]:
        func = node.func
        if _typed_constant(node):
            self._typed_constant += 1  # its float is a constant of the dtype it names
        method = isinstance(func, cst.Attribute) and func.attr.value in self.rule.cast_methods
        if method or self.rule.file.qualname(func) in self.rule.cast_calls:
            # x.astype(dtype), Cast(dtype, x): what is read inside has the target's dtype, so a cast
            # widens only when that dtype is wider (`.astype(out_dtype)` with out_dtype float16 does not)
            # (the target is the first argument or the `dtype` keyword: `Cast(dtype=d, value=x)`)
            target = next((arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "dtype"), None)
            if target is None and node.args and node.args[0].keyword is None and not node.args[0].star:
                target = node.args[0].value
            if target is not None:
                self.casts.append(target)
            else:
                self.cast = True
            return False
        if not isinstance(func, cst.Attribute) or self.rule.file.qualname(func) is None:
            self.cast = True  # a call tvmlint cannot see into may change the dtype
        return None
