"""Correct TVMScript: float16 inputs, float32 accumulator; a max reduction in float16."""
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def matmul(A: T.Buffer((16, 16), "float16"), B: T.Buffer((16, 16), "float16"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])


@T.prim_func(s_tir=True)
def row_max(A: T.Buffer((16, 16), "float16"), M: T.Buffer((16,), "float16")):
    for i, k in T.grid(16, 16):
        with T.sblock("row_max"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = T.float16(-65504)
            M[vi] = T.max(M[vi], A[vi, vk])
