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
from tvmlint.checks.rule import Invalid, Rule, Valid
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


class Float16Accumulation(Rule):
    code = "TVM401"
    prefilter = Prefilter(
        triggers=("tvmscript_inits", "te_sum"), wants="low_precision_sum", inner="low_precision_sum",
        text_pattern="low_precision_literal", text_pattern_outside_tvm="dtype_name",
    )

    TIR = "from tvm.script import tir as T\n"
    TIRX = "from tvm.script import tirx as T\n"
    TE = "import tvm\nfrom tvm import te\n"

    VALID = [
        # float16 inputs, float32 accumulator
        Valid(TIR, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), 'float32')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] = C[vi, vj] + T.Cast('float32', A[vi, vk]) * T.Cast('float32', B[vk, vj])
        """),
        # T.Buffer's default dtype is float32
        Valid(TIR, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16))):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] += A[vi, vk] * B[vk, vj]
        """),
        # max/min reductions are exact in any dtype
        Valid(TIR, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), 'float16')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] = T.max(C[vi, vj], A[vi, vk])
        """),
        # the dtype is not a literal
        Valid(TIR, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), dtype)):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        """),
        # a float16 output written once from a float32 accumulator
        Valid(TIRX, """
            @T.prim_func
            def f(a: T.handle, d: T.handle):
                A = T.match_buffer(a, (16, 16), 'float16')
                D = T.match_buffer(d, (16,), 'float16')
                acc = T.alloc_buffer((16,), 'float32')
                for i, k in T.grid(16, 16):
                    with T.block('sum'):
                        vi, vk = T.axis.remap('SR', [i, k])
                        with T.init():
                            acc[vi] = T.float32(0)
                        acc[vi] = acc[vi] + T.Cast('float32', A[vi, vk])
                for i in range(16):
                    with T.block('cast'):
                        vi = T.axis.spatial(16, i)
                        D[vi] = T.Cast('float16', acc[vi])
        """),
        # TE: a float32 accumulator fed by float16 inputs
        Valid(TE, """
            A = te.placeholder((64,), dtype='float16', name='A')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((1,), lambda i: te.sum(A[k].astype('float32'), axis=k))
        """),
        Valid(TE, """
            A = te.placeholder((64,), name='A')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((1,), lambda i: te.sum(A[k], axis=k))
        """),
        Valid(TE, """
            A = te.placeholder((64,), dtype='float16', name='A')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((1,), lambda i: te.max(A[k], axis=k))
        """),
        # a computed tensor whose body tvmlint cannot follow leaves the sum unjudged; a float32 cast copy widens
        Valid(TE, """
            A = te.placeholder((64, 64), dtype='float16', name='A')
            D = te.compute((64, 64), decode, name='D')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((64,), lambda i: te.sum(A[i, k] * D[i, k], axis=k))
        """),
        Valid(TE, """
            A = te.placeholder((64, 64), dtype='float16', name='A')
            A32 = te.compute((64, 64), lambda i, j: A[i, j].astype('float32'), name='A32')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((64,), lambda i: te.sum(A32[i, k], axis=k))
        """),
        # a cast to an accumulator dtype held in a name: a widening where the name says float32,
        # unknown where it says nothing tvmlint can read
        Valid(TE, """
            ACC = 'float32'
            A = te.placeholder((64,), dtype='float16', name='A')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((1,), lambda i: te.sum(A[k].astype(ACC), axis=k))
        """),
        Valid(TE, """
            def gemm(A, B, acc_dtype):
                k = te.reduce_axis((0, 64), name='k')
                return te.compute((64, 64), lambda i, j: te.sum(A[i, k].astype(acc_dtype) * B[k, j].astype(acc_dtype), axis=k))
        """),
        Valid(TE, """
            A = te.placeholder((64,), dtype='float16', name='A')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((1,), lambda i: te.sum(tvm.tir.Cast('float32', A[k]), axis=k))
        """),
        # a Python float in the summed arithmetic is a float32 constant, and TVM casts the float16
        # side up to it (numerics.toml [accumulation] python_float): summing in float32
        # (souffle-models swin_patch_merge.py: the variance against a mean scaled by 1.0 / n)
        Valid(TE, """
            A = te.placeholder((64, 64), dtype='float16', name='A')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((64,), lambda i: te.sum(A[i, k] * 0.5, axis=k))
        """),
        Valid(TE, """
            scale = 1.0 / (4 * 64)
            A = te.placeholder((64, 64), dtype='float16', name='A')
            M = te.compute((64,), lambda i: A[i, 0] * scale)
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((64,), lambda i: te.sum((A[i, k] - M[i]) * (A[i, k] - M[i]), axis=k))
        """),
        # Python's float(): a Python float, as a literal is (checked on the 0.27 wheel: float32)
        Valid(TE, """
            A = te.placeholder((64, 64), dtype='float16', name='A')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((64,), lambda i: te.sum(A[i, k] * float(2), axis=k))
        """),
        # a command-line option whose default is float32
        Valid(TE, """
            import argparse

            def gemm(dtype):
                A = te.placeholder((64, 64), dtype=dtype, name='A')
                k = te.reduce_axis((0, 64), name='k')
                return te.compute((64,), lambda i: te.sum(A[i, k], axis=k))

            parser = argparse.ArgumentParser()
            parser.add_argument('--dtype', default='float32')
            args = parser.parse_args()
            gemm(args.dtype)
        """),
        # the decode function returns float32: the sum is float32 too
        Valid(TE, """
            def decode_func(n, k):
                return B[n, k].astype('float32')

            A = te.placeholder((64, 64), dtype='float32', name='A')
            B = te.placeholder((64, 64), dtype='int8', name='B')
            D = te.compute((64, 64), decode_func, name='D')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((64,), lambda i: te.sum(A[i, k] * D[i, k], axis=k))
        """),
        # a float16 buffer the block initialises but then overwrites: nothing accumulates
        Valid(TIR, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), 'float16')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] = A[vi, vk] * B[vk, vj]
        """),
        # an init block elsewhere than TVMScript is not TVMScript
        Valid("""
            class T:
                pass
            with T.init():
                C[0] = 0
            C[0] = C[0] + 1
        """),
        # a test module's kernels that are only compared as structures compute nothing
        # tvm-head tests/python/s_tir/dlight/test_gpu_gemv.py (test_gemv_basic), the same at
        # tvm-v0.18.0 tests/python/dlight/test_gpu_gemv.py: a dlight rule's Before is scheduled and
        # compared with Expected, never built
        Valid("", files={
            'tests/test_gpu_gemv.py': """
                import tvm
                import tvm.testing
                from tvm import dlight as dl
                from tvm.script import tir as T
                from tvm.target import Target


                def test_gemv_basic():
                    @T.prim_func
                    def before(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):
                        for i, j, k in T.grid(1, 64, 128):
                            with T.block('NT_matmul'):
                                vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                                with T.init():
                                    C[vi, vj] = T.float16(0)
                                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]

                    @T.prim_func
                    def expected(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):
                        for i, j, k in T.grid(1, 64, 128):
                            with T.block('NT_matmul'):
                                vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                                with T.init():
                                    C[vi, vj] = T.float16(0)
                                C[vi, vj] += A[vi, vk] * B[vj, vk]

                    mod = tvm.IRModule({'main': before})
                    with Target('nvidia/geforce-rtx-3090-ti'):
                        mod = dl.ApplyDefaultSchedule(dl.gpu.GEMV())(mod)
                    tvm.ir.assert_structural_equal(mod['main'], expected)
            """,
        }),
        # tvm-v0.18.0 tests/python/tir-transform/test_tir_transform_lower_thread_all_reduce.py: the
        # `before`/`expected` of a tvm.testing.CompareBeforeAfter subclass
        Valid("", files={
            'tests/test_lower_all_reduce.py': """
                import tvm
                import tvm.testing
                from tvm.script import tir as T


                class TestReduce(tvm.testing.CompareBeforeAfter):
                    transform = tvm.tir.transform.LowerCrossThreadReduction()

                    @T.prim_func
                    def before(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):
                        for i, j, k in T.grid(1, 64, 128):
                            with T.block('NT_matmul'):
                                vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                                with T.init():
                                    C[vi, vj] = T.float16(0)
                                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]

                    expected = before
            """,
        }),
        # tvm-head tests/python/relax/test_transform_legalize_ops_nn.py: the Expected ir_module of a
        # legalization test; the test runs a pass on Before and compares
        Valid("", files={
            'tests/test_legalize.py': """
                import tvm
                from tvm import relax
                from tvm.script import ir as I
                from tvm.script import relax as R
                from tvm.script import tir as T


                def test_matmul_fp16():
                    @I.ir_module
                    class Matmul:
                        @R.function
                        def main(x: R.Tensor((1, 128), 'float16'), w: R.Tensor((64, 128), 'float16')):
                            gv = R.matmul(x, R.permute_dims(w), out_dtype='float16')
                            return gv

                    @I.ir_module
                    class Expected:
                        @T.prim_func
                        def before(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):
                            for i, j, k in T.grid(1, 64, 128):
                                with T.block('NT_matmul'):
                                    vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                                    with T.init():
                                        C[vi, vj] = T.float16(0)
                                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]

                    mod = relax.transform.LegalizeOps()(Matmul)
                    tvm.ir.assert_structural_equal(mod, Expected)
            """,
        }),
        # a package's module-level kernels that the package only hands out as patterns
        # the same module-level kernels in a package module that only returns them as a table
        # (v0.18.0:python/tvm/relax/backend_tir/pattern.py, get_tir_pattern(): patterns that
        # relax.transform.SplitCallTIRByPattern matches workloads against), or that puts one into a model
        Valid("", files={
            'backend_tir/__init__.py': "",
            'backend_tir/pattern.py': """
                from tvm.script import tir as T


                @T.prim_func
                def matmul_rrr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                    for i, j, k in T.grid(16, 16, 16):
                        with T.block('matmul'):
                            vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                            with T.init():
                                matmul[vi, vj] = T.float16(0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]

                @T.prim_func
                def matmul_rcr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                    for i, j, k in T.grid(16, 16, 16):
                        with T.block('matmul'):
                            vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                            with T.init():
                                matmul[vi, vj] = T.float16(0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]

                @T.prim_func
                def matmul_crr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                    for i, j, k in T.grid(16, 16, 16):
                        with T.block('matmul'):
                            vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                            with T.init():
                                matmul[vi, vj] = T.float16(0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]


                def get_tir_pattern():
                    return [matmul_rrr, matmul_rcr, matmul_crr]
            """,
        }),
        # dtype names with no low value tvmlint can see
        # tvm-head python/tvm/s_tir/tensor_intrin/cuda.py (get_mma_load_intrin(..., dtype, ...): every
        # call in the module passes "float16") and mlc-llm python/mlc_llm/op/moe_matmul.py (a kernel
        # generator whose buffers take the dtype given to it): a parameter of the generator
        Valid("""
            from tvm.script import tir as T


            def make(n, dtype='float16'):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


            f = make(128, 'float32')
        """),  # every call passes another literal
        Valid("""
            from tvm.script import tir as T


            def make(n, dtype):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


        """),  # no visible call, no default
        Valid("""
            from tvm.script import tir as T


            def make(n, dtype):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


            f = make(128, out_dtype)
        """),  # a name tvmlint cannot read
        # tvm-head tests/python/codegen/test_target_codegen_vulkan.py: the dtype comes from pytest
        Valid("""
            import pytest
            from tvm.script import tir as T


            @pytest.mark.parametrize('dtype', ['float16', 'float32'])
            def test_kernel(n, dtype):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


        """),
        # a run of assignments: only the last one reaches the call
        Valid(TE, """
            def dot(n, op1):
                X = te.placeholder((n,), name='X', dtype=op1)
                p = te.reduce_axis((0, n), 'p')
                return te.compute((1,), lambda i: te.sum(X[p], axis=p))

            if __name__ == '__main__':
                op1, store = 'float16', 'float16'
                op1, store = 'float32', 'float16'
                dot(64, op1)
        """),
        # a builder other modules call with float32 only, or not at all
        Valid(TE, """
            from ops.dense import gemm
            C = gemm(64, 'float32')
        """, files={
            'ops/__init__.py': "",
            'ops/dense.py': """
                import tvm
                from tvm import te
                def gemm(n, dtype):
                    A = te.placeholder((n, n), dtype=dtype, name='A')
                    B = te.placeholder((n, n), dtype=dtype, name='B')
                    k = te.reduce_axis((0, n), name='k')
                    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
                    return C
            """,
        }),
        Valid(TE, """
            def gemm(n, dtype):
                A = te.placeholder((n, n), dtype=dtype, name='A')
                B = te.placeholder((n, n), dtype=dtype, name='B')
                k = te.reduce_axis((0, n), name='k')
                C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
                return C
        """, path="ops/dense.py", files={
            'ops/__init__.py': "",
        }),
        # the same tuned GEMM given float32, and a tuple tvmlint cannot read (what it holds is not known)
        Valid(TE, """
            from tvm import auto_scheduler

            @auto_scheduler.register_workload
            def gemm(n, dtype):
                A = te.placeholder((n, n), dtype=dtype, name='A')
                B = te.placeholder((n, n), dtype=dtype, name='B')
                k = te.reduce_axis((0, n), name='k')
                C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
                return [A, B, C]

            task = auto_scheduler.SearchTask(func=gemm, args=(1024, 'float32'), target='cuda')
        """, target="0.10"),
        Valid(TE, """
            from tvm import auto_scheduler

            @auto_scheduler.register_workload
            def gemm(n, dtype):
                A = te.placeholder((n, n), dtype=dtype, name='A')
                B = te.placeholder((n, n), dtype=dtype, name='B')
                k = te.reduce_axis((0, n), name='k')
                C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
                return [A, B, C]

            task = auto_scheduler.SearchTask(func=gemm, args=shape_and_dtype, target='cuda')
        """, target="0.10"),
        Valid(TE, """
            from tvm import autotvm

            @autotvm.template('tutorial/matmul')
            def matmul(n, dtype):
                A = te.placeholder((n, n), dtype=dtype, name='A')
                B = te.placeholder((n, n), dtype=dtype, name='B')
                k = te.reduce_axis((0, n), name='k')
                C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
                return te.create_schedule(C.op), [A, B, C]

            task = autotvm.task.create('tutorial/other', args=(512, 'float16'), target='cuda')
        """, target="0.8"),
        # the same SparseTIR kernel summing into a float32 buffer, and a settings module that
        # binds the imported dtype twice (which one is read is not known)
        Valid("""
            from tvm.script import tir as T


            @T.prim_func
            def spmm(a: T.handle, b: T.handle, c: T.handle, indptr: T.handle, indices: T.handle) -> None:
                I = T.dense_fixed(64)
                J = T.sparse_variable(I, (64, 512), (indptr, indices), 'int32')
                J_detach = T.dense_fixed(64)
                F = T.dense_fixed(32)
                A = T.match_sparse_buffer(a, (I, J), 'float16')
                B = T.match_sparse_buffer(b, (J_detach, F), 'float16')
                C = T.match_sparse_buffer(c, (I, F), 'float32')
                with T.sp_iter([I, F, J], 'SSR', 'spmm') as [i, f, j]:
                    with T.init():
                        C[i, f] = T.cast(0, C.dtype)
                    C[i, f] = C[i, f] + A[i, j] * B[j, f]
        """, target="0.9"),
        Valid("""
            import tvm
            from tvm.script import tir as T
            from config import *


            @T.prim_func
            def row_sum(dO: T.Buffer((64, 128), 'float16')):
                D = T.alloc_buffer((64,), dtype=dtype_str)
                for i, k in T.grid(64, 128):
                    with T.block('compute_D'):
                        vi, vk = T.axis.remap('SR', [i, k])
                        with T.init():
                            D[vi] = tvm.tir.const(0.0, dtype_str)
                        D[vi] = D[vi] + dO[vi, vk]
        """, files={
            'config.py': """
                dtype_str = 'float16'
                dtype_str = 'float32'
            """,
        }, target="0.16"),
    ]
    INVALID = [
        Invalid(TIR, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), 'float16')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        """, expect="float16 buffer"),
        # the store's implicit cast: the float32 product is rounded back into float16 at every step
        Invalid(TIR, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), 'float16')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] = C[vi, vj] + T.Cast('float32', A[vi, vk])
        """, expect="C"),
        Invalid(TIRX, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), 'bfloat16')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.sblock('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] += A[vi, vk] * B[vk, vj]
        """, expect="bfloat16", target="0.27"),
        # the old subscript annotation, and a match_buffer with the dtype as a keyword
        Invalid(TIR, """
            @T.prim_func
            def mm(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer[(16, 16), 'float16']):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('mm'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.float16(0)
                        C[vi, vj] = A[vi, vk] * B[vk, vj] + C[vi, vj]
        """, target="0.10"),
        Invalid(TIR, """
            @T.prim_func
            def f(a: T.handle, c: T.handle):
                A = T.match_buffer(a, (16, 16), dtype='float16')
                C = T.match_buffer(c, (16,), dtype='float16')
                for i, k in T.grid(16, 16):
                    with T.block('sum'):
                        vi, vk = T.axis.remap('SR', [i, k])
                        with T.init():
                            C[vi] = T.float16(0)
                        C[vi] = C[vi] + A[vi, vk]
        """, expect="declared on line 5"),
        # an intermediate buffer
        Invalid(TIRX, """
            @T.prim_func
            def f(A: T.Buffer((16, 16), 'float16')):
                acc = T.alloc_buffer((16,), 'float16')
                for i, k in T.grid(16, 16):
                    with T.sblock('sum'):
                        vi, vk = T.axis.remap('SR', [i, k])
                        with T.init():
                            acc[vi] = T.float16(0)
                        acc[vi] = acc[vi] + A[vi, vk]
        """, target="0.27", expect="acc"),
        Invalid(TE, """
            A = te.placeholder((64, 64), dtype='float16', name='A')
            B = te.placeholder((64, 64), dtype='float16', name='B')
            k = te.reduce_axis((0, 64), name='k')
            C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
        """, expect="te.sum"),
        # a test module's kernel that the module builds or runs
        # tvm-v0.18.0 tests/python/relax/test_transform_few_shot_tuning.py: a module-level ir_module
        # the tests build through helpers (`_expected_results`: tvm.build(func, target="llvm"))
        Invalid("", files={
            'tests/test_few_shot_tuning.py': """
                import tvm
                from tvm.script import tir as T


                @tvm.script.ir_module
                class MatMul:
                    @T.prim_func
                    def before(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):
                        for i, j, k in T.grid(1, 64, 128):
                            with T.block('NT_matmul'):
                                vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                                with T.init():
                                    C[vi, vj] = T.float16(0)
                                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


                def _expected_results(mod):
                    func = mod['before']
                    rt_mod = tvm.build(func, target='llvm')
                    return rt_mod


                def _check(mod):
                    return _expected_results(mod)


                def test_matmul():
                    _check(MatMul)
            """,
        }, expect="NT_matmul"),
        # tvm-v0.18.0 tests/python/codegen/test_target_codegen_vulkan.py (test_cooperative_matrix):
        # a te.sum made in a nested function, returned as a PrimFunc, scheduled and built
        Invalid("", files={
            'tests/test_codegen_vulkan.py': """
                import tvm
                from tvm import te
                from tvm.tir import Schedule


                def test_cooperative_matrix():
                    def get_matmul(m, n, k):
                        X = te.placeholder((m, k), name='X', dtype='float16')
                        W = te.placeholder((k, n), name='W', dtype='float16')
                        ak = te.reduce_axis((0, k), name='k')
                        matmul = te.compute((m, n), lambda i, j: te.sum(X[i, ak] * W[ak, j], axis=ak), name='compute')
                        return te.create_prim_func([X, W, matmul])

                    func = get_matmul(16, 16, 32)
                    sch = Schedule(func)
                    if tvm.target.Target('vulkan').attrs.get('supports_cooperative_matrix'):
                        f = tvm.build(sch.mod, target='vulkan')
            """,
        }, expect="te.sum", target="0.18"),
        # tvm-head tests/python/codegen/test_target_codegen_cuda_fp8.py (the MoE gemv): the ir_module
        # goes through a pipeline helper, then tvm.compile
        Invalid("", files={
            'tests/test_codegen_cuda_fp8.py': """
                import tvm
                from tvm.s_tir import dlight as dl
                from tvm.script import ir as I
                from tvm.script import tirx as T


                def test_moe_gemv():
                    @I.ir_module
                    class SingleBatchMoE:
                        @T.prim_func
                        def before(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):
                            for i, j, k in T.grid(1, 64, 128):
                                with T.sblock('NT_matmul'):
                                    vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                                    with T.init():
                                        C[vi, vj] = T.float16(0)
                                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]

                    def _pipeline(mod):
                        return dl.ApplyDefaultSchedule(dl.gpu.GEMV())(mod)

                    mod = SingleBatchMoE
                    target = tvm.target.Target('cuda')
                    with target:
                        mod = _pipeline(mod)
                        rt_mod = tvm.compile(mod, target=target)
            """,
        }, expect="float16 buffer", target="0.27"),
        # tvm-head tests/python/s_tir/dlight/test_benchmark.py: dlight's benchmark builds and times
        # the ir_module's functions
        Invalid("", files={
            'tests/test_benchmark.py': """
                from tvm.s_tir.dlight.benchmark import benchmark_relax_func
                from tvm.script import ir as I
                from tvm.script import tirx as T


                @I.ir_module
                class Module:
                    @T.prim_func
                    def before(A: T.Buffer((1, 128), 'float16'), B: T.Buffer((64, 128), 'float16'), C: T.Buffer((1, 64), 'float16')):
                        for i, j, k in T.grid(1, 64, 128):
                            with T.sblock('NT_matmul'):
                                vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                                with T.init():
                                    C[vi, vj] = T.float16(0)
                                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


                def test_benchmark_relax_func():
                    benchmark_relax_func(Module, 'main')
            """,
        }, expect="float16 buffer", target="0.27"),
        # each kernel its own finding, where it is (BitBLAS bitblas/ops/impl/matmul_impl.py: matmul_nn,
        # matmul_nt, ... one te.sum each)
        # tvm-v0.18.0 python/tvm/relax/backend_tir/pattern.py: a library module of module-level
        # float16 kernels; the three matmuls there share one shape
        Invalid("""
            from tvm.script import tir as T


            @T.prim_func
            def matmul_rrr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('matmul'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            matmul[vi, vj] = T.float16(0)
                        matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]

            @T.prim_func
            def matmul_rcr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('matmul'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            matmul[vi, vj] = T.float16(0)
                        matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]

            @T.prim_func
            def matmul_crr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('matmul'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            matmul[vi, vj] = T.float16(0)
                        matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
        """, expect="float16 buffer", count=3),
        # a package's module-level kernel that the package puts into a model, and a kernel a
        # package's function makes (mlc-llm python/mlc_llm/op/moe_matmul.py: the library's product)
        Invalid("", files={
            'ops/__init__.py': "",
            'ops/model.py': """
                from tvm import relax
                from tvm.script import tir as T


                @T.prim_func
                def matmul_rrr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                    for i, j, k in T.grid(16, 16, 16):
                        with T.block('matmul'):
                            vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                            with T.init():
                                matmul[vi, vj] = T.float16(0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]

                @T.prim_func
                def matmul_rcr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                    for i, j, k in T.grid(16, 16, 16):
                        with T.block('matmul'):
                            vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                            with T.init():
                                matmul[vi, vj] = T.float16(0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]

                @T.prim_func
                def matmul_crr(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), matmul: T.Buffer((16, 16), 'float16')):
                    for i, j, k in T.grid(16, 16, 16):
                        with T.block('matmul'):
                            vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                            with T.init():
                                matmul[vi, vj] = T.float16(0)
                            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]


                def build_model():
                    bb = relax.BlockBuilder()
                    gv = bb.add_func(matmul_rcr, 'matmul')
                    return bb.get()
            """,
        }, expect="declared on line 15"),  # matmul_rcr alone
        # tvm-head python/tvm/s_tir/tensor_intrin/cuda.py (get_mma_load_intrin(..., dtype, ...): every
        # call in the module passes "float16") and mlc-llm python/mlc_llm/op/moe_matmul.py (a kernel
        # generator whose buffers take the dtype given to it): a parameter of the generator
        Invalid("", files={
            'ops/__init__.py': "",
            'ops/gemv.py': """
                from tvm.script import tir as T


                def make(n, dtype='float16'):
                    @T.prim_func
                    def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                        acc = T.alloc_buffer((n,), dtype=dtype)
                        for i, k in T.grid(n, n):
                            with T.block('gemv'):
                                vi, vk = T.axis.remap('SR', [i, k])
                                with T.init():
                                    acc[vi] = T.cast(0, dtype)
                                acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                        for i in range(n):
                            with T.block('out'):
                                vi = T.axis.spatial(n, i)
                                y[vi] = acc[vi]
                    return gemv


            """,
        }, expect="through `dtype`"),
        # dtypes through a name bound once to a literal
        # tvm-v0.18.0 tests/python/relax/test_codegen_tir_cutlass.py (A_TYPE = "float16" ... used as the
        # dtype of the kernels' buffers): a module constant
        Invalid("""
            from tvm.script import tir as T

            C_TYPE = 'float16'


            @T.prim_func
            def dense(A: T.Buffer((16, 16), 'float16'), B: T.Buffer((16, 16), 'float16'), C: T.Buffer((16, 16), C_TYPE)):
                for i, j, k in T.grid(16, 16, 16):
                    with T.block('dense'):
                        vi, vj, vk = T.axis.remap('SSR', [i, j, k])
                        with T.init():
                            C[vi, vj] = T.cast(0, C_TYPE)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]
        """, expect="through `C_TYPE`, bound to \"float16\" on line 3"),
        Invalid("""
            from tvm.script import tir as T


            def make(n, dtype='float16'):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


            f = make(128)
            g = make(n=256)
        """, expect="through `dtype`"),
        Invalid("""
            from tvm.script import tir as T


            def make(n, dtype):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


            f = make(128, 'float16')
            g = make(64, dtype='float16')
        """, expect="bound to \"float16\""),
        Invalid("""
            from tvm.script import tir as T


            def make(n):
                dtype = 'bfloat16'
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


        """, expect="a bfloat16 buffer"),
        # tvm-head python/tvm/topi/nn/dense.py builds a te.sum over placeholders of a dtype parameter;
        # here the parameter's default is the only value any visible call gives it
        Invalid("""
            from tvm import te


            def matmul(n, dtype='float16'):
                A = te.placeholder((n, n), dtype=dtype, name='A')
                B = te.placeholder((n, n), dtype=dtype, name='B')
                k = te.reduce_axis((0, n), name='k')
                return te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))


            C = matmul(64)
        """, expect="A's and B's dtype through `dtype`"),
        # a cast to float16 is no widening: int8 data cast to float16 still sums in float16, and so
        # does `.astype(out_dtype)` where out_dtype is float16 (the shape of TE GEMM/conv kernels in
        # benchmark scripts: a module-level `out_dtype = "float16"` and both operands cast to it)
        Invalid(TE, """
            A = te.placeholder((64, 64), dtype='int8', name='A')
            B = te.placeholder((64, 64), dtype='int8', name='B')
            k = te.reduce_axis((0, 64), name='k')
            C = te.compute((64, 64), lambda i, j: te.sum(A[i, k].astype('float16') * B[k, j].astype('float16'), axis=k))
        """, expect="cast to float16"),
        Invalid(TE, """
            out_dtype = 'float16'
            A = te.placeholder((64, 64), dtype='float16', name='A')
            B = te.placeholder((64, 64), dtype='float16', name='B')
            k = te.reduce_axis((0, 64), name='k')
            C = te.compute((64, 64), lambda i, j: te.sum(A[i, k].astype(out_dtype) * B[k, j].astype(out_dtype), axis=k))
        """, expect="cast to float16 through `out_dtype`, bound to \"float16\" on line 3"),
        # a builder whose dtype defaults to float16 and that is passed on (a benchmark table), and one
        # called with float16 and float32: reported for the low value, named
        Invalid(TE, """
            def reduce_sum(n, k, dtype='float16'):
                A = te.placeholder((n, k), name='A', dtype=dtype)
                r = te.reduce_axis((0, k), name='r')
                return te.compute((n,), lambda i: te.sum(A[i, r], axis=r))

            BENCHMARKS = [(reduce_sum, (1024, 1024))]
        """, expect="one of the values it takes"),
        Invalid("""
            from tvm.script import tir as T


            def make(n, dtype):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


            f = make(128, 'float32')
            g = make(64, dtype='float16')
        """, expect="\"float16\" as given on line"),
        # (issue #28) a value among several is still a value: one call passes a name, another float16;
        # a dtype assigned twice; a builder passed on, with a float16 default
        Invalid("""
            from tvm.script import tir as T


            def make(n, dtype):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


            f = make(128, 'float16')
            g = make(128, out_dtype)
        """, expect="float16"),
        Invalid("""
            from tvm.script import tir as T


            def make(n):
                dtype = 'float16'
                if n > 64:
                    dtype = 'float32'
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


        """, expect="one of the values it takes"),
        Invalid("""
            from tvm.script import tir as T


            def make(n, dtype='float16'):
                @T.prim_func
                def gemv(A: T.Buffer((n, n), dtype), x: T.Buffer((n,), dtype), y: T.Buffer((n,), dtype)):
                    acc = T.alloc_buffer((n,), dtype=dtype)
                    for i, k in T.grid(n, n):
                        with T.block('gemv'):
                            vi, vk = T.axis.remap('SR', [i, k])
                            with T.init():
                                acc[vi] = T.cast(0, dtype)
                            acc[vi] = acc[vi] + A[vi, vk] * x[vk]
                    for i in range(n):
                        with T.block('out'):
                            vi = T.axis.spatial(n, i)
                            y[vi] = acc[vi]
                return gemv


            kernels = [make]
        """, expect="one of the values it takes"),
        # a float constant of a named dtype is no Python float: it keeps the sum in float16
        Invalid(TE, """
            A = te.placeholder((64, 64), dtype='float16', name='A')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((64,), lambda i: te.sum(A[i, k] * tvm.tir.const(0.5, 'float16'), axis=k))
        """, expect="te.sum"),
        # (issue #28) the dtype from a command-line option's default, through two helpers
        # (pku-liang/AMOS benchmark/amos/mapping_gemm_tensorcore.py: --in_dtype/--out_dtype default
        # float16, passed on by mapping_tensorcore to gemm, where te.sum casts to out_dtype)
        Invalid(TE, """
            import argparse

            def gemm(in_dtype, out_dtype):
                A = te.placeholder((64, 64), dtype=in_dtype, name='A')
                B = te.placeholder((64, 64), dtype=in_dtype, name='B')
                k = te.reduce_axis((0, 64), name='k')
                return te.compute((64, 64), lambda i, j: te.sum((A[i, k] * B[k, j]).astype(out_dtype), axis=k))

            def tune(in_dtype, out_dtype):
                return gemm(in_dtype, out_dtype)

            if __name__ == '__main__':
                parser = argparse.ArgumentParser()
                parser.add_argument('--in_dtype', type=str, default='float16')
                parser.add_argument('--out-dtype', choices=['float16', 'float32'], default='float16')
                args = parser.parse_args()
                tune(args.in_dtype, args.out_dtype)
        """, expect="bound to \"float16\" on line 17"),
        # (issue #28) a wrapper passes its own dtype parameter on; its default or its callers give
        # the value (BitBLAS bitblas/ops/impl/matmul_splitk_impl.py: select_implementation ->
        # matmul -> matmul_nt, accum_dtype defaulting to float16 at each level)
        Invalid(TE, """
            def matmul_nt(n, accum_dtype='float16'):
                A = te.placeholder((n, n), dtype='float16', name='A')
                k = te.reduce_axis((0, n), name='k')
                return te.compute((n,), lambda i: te.sum(A[i, k].astype(accum_dtype), axis=k))

            def matmul(n, accum_dtype='float16', with_bias=False):
                return matmul_nt(n, accum_dtype)

            def select_implementation(n=16, accum_dtype='float16', with_bias=False):
                if n > 8:
                    return matmul(n, with_bias, accum_dtype)
                return matmul(n, accum_dtype, with_bias)
        """, expect="cast to float16 through `accum_dtype`"),
        # (issue #28) a tensor computed by a function of the module: a dequantizing GEMV's decode
        # step returns a helper's `.astype(dtype)` (LeiWang1999/mlc-benchmark tir-roller/static/
        # operators/matmul_dequantize.py, Ladder's fp16xint4_gemv.py with a float16 const rescale)
        Invalid(TE, """
            def gemv_i4(N, K, in_dtype='float16'):
                def _to_float(nbit: int, val: tvm.tir.PrimExpr, dtype: str):
                    mask = tvm.tir.const((1 << nbit) - 1, 'int8')
                    return (val & mask).astype(dtype)

                A = te.placeholder((1, K), name='A', dtype=in_dtype)
                B = te.placeholder((N, K // 2), name='B', dtype='int8')

                def decode_func(n, k):
                    w = _to_float(4, B[n, k // 2], dtype=in_dtype)
                    return w

                B_decode = te.compute((N, K), decode_func, name='B_decode')
                B_rescale = te.compute((N, K), lambda i, j: B_decode[i, j] * tvm.tir.const(1.0, 'float16'), name='B_rescale')
                k = te.reduce_axis((0, K), name='k')
                return te.compute((1, N), lambda i, j: te.sum(A[i, k] * B_rescale[j, k], axis=k), name='C')

            gemv_i4(16384, 16384)
        """, expect="B_rescale's dtype through `in_dtype`"),
        # a math function keeps its argument's dtype: exp of a float16 tensor is float16
        # (souffle-models bert_tvm.py bert_softmax_reduce_sum: te.sum over tir.exp(src))
        Invalid(TE, """
            from tvm import tir

            def softmax_sum(n, dtype='float16'):
                src = te.placeholder((n, n), dtype, name='src')
                e = te.compute((n, n), lambda i, j: tir.exp(src[i, j]), name='e')
                rk = te.reduce_axis((0, n), name='rk')
                return te.compute((n,), lambda i: te.sum(e[i, rk], axis=[rk]))

            softmax_sum(128)
        """, target="0.8", expect="e's dtype through `dtype`"),
        # a computed tensor has its body's dtype: a padded float16 input (topi-style conv2d's pad
        # with te.if_then_else), a float16 cast copy
        Invalid(TE, """
            A = te.placeholder((1, 66, 66, 64), dtype='float16', name='A')
            W = te.placeholder((3, 3, 64, 64), dtype='float16', name='W')
            pad = te.compute((1, 68, 68, 64), lambda n, h, w, c: te.if_then_else(tvm.tir.all(h >= 1, w >= 1), A[n, h - 1, w - 1, c], 0.0), name='pad')
            kh = te.reduce_axis((0, 3), name='kh')
            kw = te.reduce_axis((0, 3), name='kw')
            rc = te.reduce_axis((0, 64), name='rc')
            C = te.compute((1, 66, 66, 64), lambda n, h, w, f: te.sum(pad[n, h + kh, w + kw, rc] * W[kh, kw, rc, f], axis=[kh, kw, rc]))
        """, expect="te.sum adds float16"),
        Invalid(TE, """
            A = te.placeholder((64, 64), dtype='int8', name='A')
            A16 = te.compute((64, 64), lambda i, j: A[i, j].astype('float16'), name='A16')
            k = te.reduce_axis((0, 64), name='k')
            S = te.compute((64,), lambda i: te.sum(A16[i, k], axis=k))
        """, expect="te.sum adds float16"),
        Invalid(TE, """
            def conv(data, kernel, out_dtype='float16'):
                k = te.reduce_axis((0, 64), name='k')
                return te.compute((64,), lambda i: te.sum(data[i, k].astype(out_dtype) * kernel[k].astype(out_dtype), axis=k))

            out = conv(d, w)
        """, expect="through `out_dtype`"),
        # (issue #28) a tuner calls the registered workload with the args tuple the script gives
        # (numerics.toml `workload_call`; JieGH/transformers_tvm auto_scheduler_GEMM.py: the
        # types are set per command-line case at module level, one case all float16)
        Invalid(TE, """
            from tvm import auto_scheduler

            @auto_scheduler.register_workload
            def gemm(n, dtype):
                A = te.placeholder((n, n), dtype=dtype, name='A')
                B = te.placeholder((n, n), dtype=dtype, name='B')
                k = te.reduce_axis((0, n), name='k')
                C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
                return [A, B, C]

            if mode == 1:
                dtype = 'float32'
            else:
                dtype = 'float16'
            task = auto_scheduler.SearchTask(func=gemm, args=(1024, dtype), target='cuda')
        """, target="0.10", expect="\"float16\" as given on line 16"),
        # (issue #28) a kernel builder in one module whose dtype the calls of another module give,
        # through a wrapper that passes its own parameter on and keeps its default
        Invalid(TE, """
            from ops.dense import gemm

            def tune(m, dtype='float16'):
                return gemm(m, dtype)

            tune(64)
        """, path="run.py", files={
            'ops/__init__.py': "",
            'ops/dense.py': """
                import tvm
                from tvm import te
                def gemm(n, dtype):
                    A = te.placeholder((n, n), dtype=dtype, name='A')
                    B = te.placeholder((n, n), dtype=dtype, name='B')
                    k = te.reduce_axis((0, n), name='k')
                    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
                    return C
            """,
        },
            expect='`dtype` is "float16" when ops.dense.gemm is called from run.py:6; when tune is called from run.py:8, which keeps its default'),
        # names set together by unpacking, the last of a run of assignments counting (adcastel/
        # TVM_mixed_precision dot.py: three settings tried in turn in __main__, the last one kept)
        Invalid(TE, """
            def dot(n, op1, op2):
                X = te.placeholder((n,), name='X', dtype=op1)
                Y = te.placeholder((n,), name='Y', dtype=op2)
                p = te.reduce_axis((0, n), 'p')
                return te.compute((1,), lambda i: te.sum(X[p] * Y[p], axis=p))

            if __name__ == '__main__':
                op1, op2 = 'float32', 'float32'
                op1, op2 = 'float16', 'float16'
                dot(64, op1, op2)
        """, expect='"float16" as given on line 11'),
        # autotvm finds the template by the name its decorator registers
        Invalid(TE, """
            from tvm import autotvm

            @autotvm.template('tutorial/matmul')
            def matmul(n, dtype):
                A = te.placeholder((n, n), dtype=dtype, name='A')
                B = te.placeholder((n, n), dtype=dtype, name='B')
                k = te.reduce_axis((0, n), name='k')
                C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))
                return te.create_schedule(C.op), [A, B, C]

            task = autotvm.task.create('tutorial/matmul', args=(512, 'float16'), target='cuda')
        """, target="0.8", expect="te.sum adds float16"),
        # a SparseTIR kernel (uwsampl/sparsetir examples/blocksparse/bsr_spmm.py): a sparse buffer's
        # dtype, a sparse iteration's init and store
        Invalid("""
            from tvm.script import tir as T


            @T.prim_func
            def spmm(a: T.handle, b: T.handle, c: T.handle, indptr: T.handle, indices: T.handle) -> None:
                I = T.dense_fixed(64)
                J = T.sparse_variable(I, (64, 512), (indptr, indices), 'int32')
                J_detach = T.dense_fixed(64)
                F = T.dense_fixed(32)
                A = T.match_sparse_buffer(a, (I, J), 'float16')
                B = T.match_sparse_buffer(b, (J_detach, F), 'float16')
                C = T.match_sparse_buffer(c, (I, F), 'float16')
                with T.sp_iter([I, F, J], 'SSR', 'spmm') as [i, f, j]:
                    with T.init():
                        C[i, f] = T.cast(0, C.dtype)
                    C[i, f] = C[i, f] + A[i, j] * B[j, f]
        """, target="0.9", expect="float16 buffer"),
        # a settings module's constant the kernel's module imports (ACMClass-TVM-20/AD-Example
        # attention/flashattn: config.py's dtype_str, read through `from config import *`)
        Invalid("""
            import tvm
            from tvm.script import tir as T
            from config import *


            @T.prim_func
            def row_sum(dO: T.Buffer((64, 128), 'float16')):
                D = T.alloc_buffer((64,), dtype=dtype_str)
                for i, k in T.grid(64, 128):
                    with T.block('compute_D'):
                        vi, vk = T.axis.remap('SR', [i, k])
                        with T.init():
                            D[vi] = tvm.tir.const(0.0, dtype_str)
                        D[vi] = D[vi] + dO[vi, vk]
        """, files={
            'config.py': """
                dtype_str = 'float16'
            """,
        }, target="0.16", expect='`dtype_str`, which is "float16" as config.py:1 sets it'),
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
