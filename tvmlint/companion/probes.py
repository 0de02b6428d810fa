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


PROBES = {
    # CanonicalizeTIRVariables and CanonicalizeRelaxBindings (level 1) remove the rebinding.
    "tvm.relax.transform.CanonicalizeBindings": relax_trivial_rebinding,
    # Nothing to fuse: only the level-1 CanonicalizeBindings/DeadCodeElimination members change it.
    "tvm.relax.transform.FuseTIR": relax_trivial_rebinding,
}
