"""Small modules the companion runs a pass on, to see the gate act (child side only).

Each probe builds, inside the child, an IRModule on which the pass's gated
members have work and its ungated members have none: a run that leaves the
module unchanged at one opt_level and changes it at another shows the gate,
not the table, deciding. Keyed by the pass's Python API path. Uses only the
relax BlockBuilder, which every relax release has.
"""


def relax_trivial_rebinding(tvm):
    """main(x): lv = x + x; lv1 = lv; gv = lv1 -- the rebindings are what canonicalization removes."""
    from tvm import relax
    from tvm.script import relax as R

    builder = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((4,), "float32"))
    with builder.function("main", [x]):
        with builder.dataflow():
            summed = builder.emit(relax.op.add(x, x))
            rebound = builder.emit(summed)
            out = builder.emit_output(rebound)
        builder.emit_func_output(out)
    return builder.get()


def relax_small_model(tvm):
    """What `registry --pipeline` runs on: a relax main(x, w) = relu(matmul(x, w) + x), its result
    rebound once (work for the canonicalizing passes), and one TIR PrimFunc made with emit_te (work
    for the TIR passes), so relax, tirx and s_tir passes and whole builds all have something to do."""
    from tvm import relax, topi
    from tvm.script import relax as R

    builder = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((4, 4), "float32"))
    w = relax.Var("w", R.Tensor((4, 4), "float32"))
    with builder.function("main", [x, w]):
        with builder.dataflow():
            product = builder.emit(relax.op.matmul(x, w))
            summed = builder.emit(relax.op.add(product, x))
            relu = builder.emit(relax.op.nn.relu(summed))
            doubled = builder.emit_te(topi.multiply, relu, relu)
            rebound = builder.emit(doubled)
            out = builder.emit_output(rebound)
        builder.emit_func_output(out)
    return builder.get()


SMALL_MODEL = "relax main(x, w) = relu(matmul(x, w) + x) squared by a TIR PrimFunc, its result rebound once"

PROBES = {
    # CanonicalizeTIRVariables and CanonicalizeRelaxBindings (level 1) remove the rebinding.
    "tvm.relax.transform.CanonicalizeBindings": relax_trivial_rebinding,
    # Nothing to fuse: only the level-1 CanonicalizeBindings/DeadCodeElimination members change it.
    "tvm.relax.transform.FuseTIR": relax_trivial_rebinding,
}
