"""opt_level=0 in relax: CanonicalizeBindings and FuseTIR are Sequentials whose
level-1 members (CanonicalizeTIRVariables, CanonicalizeRelaxBindings,
DeadCodeElimination) are skipped at level 0."""
import tvm
from tvm import relax


def debug_build(mod):
    with tvm.transform.PassContext(opt_level=0):
        mod = relax.transform.CanonicalizeBindings()(mod)
        mod = relax.transform.FuseTIR()(mod)
    return mod


if __name__ == "__main__":
    debug_build(tvm.IRModule())
