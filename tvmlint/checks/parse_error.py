"""TVM001: the engine reports files it cannot decode or parse; this holds the cases."""

from tvmlint.checks.rule import Case, Rule


class ParseError(Rule):
    code = "TVM001"
    VALID = ["import tvm\n", "", "# just a comment\n"]
    INVALID = [
        Case("with tvm.transform.PassContext(opt_level=3)\n    pass\n", expect="could not be parsed"),
        Case("def f(:\n", expect="could not be parsed"),
        Case("print 'python 2'\n", expect="could not be parsed"),
    ]

    @classmethod
    def triggers(cls, knowledge):
        return frozenset()  # the cheap stage's own parser reports it
