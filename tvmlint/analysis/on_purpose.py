"""Whether the code says a gated run's skip is meant: a fact about the module's own words.

TVM101 stays silent on such a run and `tvmlint explain` shows it as meant, so both ask here
rather than one asking the other.
"""

from __future__ import annotations

from tvmlint.analysis.contexts import leaves


def said_on_purpose(run, lines, lines_of, harness) -> bool:
    """Whether the code's own words next to `run` (a GatedRun) say its skip is meant
    (rules/harness.toml [deliberate_skip]): a comment near its statement that speaks of the
    level or a skipped pass and says it does not run. A test, or a second run under a context,
    is no such word. `lines_of(node)`: the (first, last) line of a node, or None."""
    span = lines_of(run.statement if run.statement is not None else run.node)
    if span is None:
        return False
    first = max(span[0] - 1 - harness.skip_lines_above, 0)
    last = min(span[1] + harness.skip_lines_below, len(lines))
    comments = " ".join(line.partition("#")[2] for line in lines[first:last] if "#" in line)
    return bool(comments) and harness.says_skip_on_purpose(comments, {m.name for m in leaves(run.members)})
