"""The runtime companion: asks the installed TVM what tvmlint's tables claim.

TVM is imported only in a child process (`child.py`, run by `process.run_child`
under tvmlint's interpreter or the one given with --tvm-python), never in the
process that reads the user's code. `registry` turns its answer into a
`Snapshot` (cached per TVM install by `cache`), `verify` compares the snapshot
with rules/, `confirm` checks findings against it.
"""


class CompanionError(Exception):
    """The companion could not answer: one line for the user; the static results stand."""
