"""TVM001: the engine reports files it cannot decode or parse; this holds the cases."""

from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Case, Rule


class ParseError(Rule):
    code = "TVM001"
    prefilter = Prefilter(triggers=())  # the parser's own verdict: never analysed for it

    VALID = [
        "import tvm\n", "", "# just a comment\n",
        # not Python at all: a shell launcher named .py (v0.6.0:apps/vta_rpc/start_rpc_server_to_tracker.py),
        # Cython in a .pyi (v0.6.0:nnvm/python/nnvm/cython/base.pyi)
        "#!/bin/bash\nPROJROOT=\"$( cd \"$( dirname \"${BASH_SOURCE[0]}\" )/../../\" && pwd )\"\n",
        "#!/usr/bin/env bash\nset -e\nexport PYTHONPATH=.\n",
        "# comment\n\nctypedef void* SymbolHandle\nctypedef unsigned nn_uint\n",
    ]
    INVALID = [
        Case("with tvm.transform.PassContext(opt_level=3)\n    pass\n", expect="could not be parsed"),
        Case("def f(:\n", expect="could not be parsed"),
        Case("print 'python 2'\n", expect="could not be parsed"),
        # a Python shebang is Python: its syntax error is reported
        Case("#!/usr/bin/env python3\ndef f(:\n", expect="could not be parsed"),
    ]
