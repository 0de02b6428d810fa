"""TVM001: the engine reports files it cannot decode or parse; this holds the cases."""

from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid


class ParseError(Rule):
    code = "TVM001"
    prefilter = Prefilter(triggers=())  # the parser's own verdict: never analysed for it

    VALID = [
        Valid("""
            import tvm
        """),
        Valid(""),
        Valid("""
            # just a comment
        """),
        # not Python at all: a shell launcher named .py (v0.6.0:apps/vta_rpc/start_rpc_server_to_tracker.py),
        # Cython in a .pyi (v0.6.0:nnvm/python/nnvm/cython/base.pyi)
        Valid("""
            #!/bin/bash
            PROJROOT="$( cd "$( dirname "${BASH_SOURCE[0]}" )/../../" && pwd )"
        """),
        Valid("""
            #!/usr/bin/env bash
            set -e
            export PYTHONPATH=.
        """),
        Valid("""
            # comment

            ctypedef void* SymbolHandle
            ctypedef unsigned nn_uint
        """),
    ]
    INVALID = [
        Invalid("""
            with tvm.transform.PassContext(opt_level=3)
                pass
        """, expect="could not be parsed"),
        Invalid("""
            def f(:
        """, expect="could not be parsed"),
        Invalid("""
            print 'python 2'
        """, expect="could not be parsed"),
        # a Python shebang is Python: its syntax error is reported
        Invalid("""
            #!/usr/bin/env python3
            def f(:
        """, expect="could not be parsed"),
    ]
