"""A small relax model built at two opt_levels, and passes run by hand.

`tvmlint check` says, without running it, that at opt_level 0 CanonicalizeBindings
and a Sequential of level-1 passes do nothing (TVM101, TVM102). `tvmlint trace`
runs it and shows, line by line, which passes ran and which the gates skipped;
`tvmlint check --trace` then marks those findings confirmed.
"""
import tvm
from tvm import relax
from tvm.script import relax as R


def small_model():
    builder = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((4, 4), "float32"))
    w = relax.Var("w", R.Tensor((4, 4), "float32"))
    with builder.function("main", [x, w]):
        with builder.dataflow():
            product = builder.emit(relax.op.matmul(x, w))
            summed = builder.emit(relax.op.add(product, x))
            rebound = builder.emit(summed)
            out = builder.emit_output(rebound)
        builder.emit_func_output(out)
    return builder.get()


def build(mod, level):
    target = tvm.target.Target("llvm")
    with tvm.transform.PassContext(opt_level=level):
        return tvm.compile(mod, target, relax_pipeline=relax.get_default_pipeline(target))


def tidy(mod):
    with tvm.transform.PassContext(opt_level=0):
        mod = relax.transform.CanonicalizeBindings()(mod)
        cleanup = tvm.transform.Sequential([relax.transform.DeadCodeElimination()], opt_level=1)
        mod = cleanup(mod)
    return mod


if __name__ == "__main__":
    model = small_model()
    build(model, 0)
    build(model, 3)
    tidy(model)
    relax.transform.FuseTIR()(model)
