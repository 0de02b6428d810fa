"""How a finding's one-sentence message names what it points at: a context, a list of passes.

A message is one sentence with this site's facts (checks/rule.py's `report`, `Said`); these
give the short forms, so that the long ones (a context's whole origin, every skipped pass with
where it sits) go to the detail.
"""

from __future__ import annotations

import re
from typing import Iterable, List, Sequence

from tvmlint.analysis.contexts import PassCtx, Skip, and_list

# how many names a message lists before "and N more" (the detail lists them all)
SHOWN = 3

# "... on line 9", or "... on line 9 from OPT_LEVEL = 2 in config.py:1" (a level another module sets)
_ON_LINE = re.compile(r" on line (\d+)( from \S+ = -?\d+ in \S+)?$")


def context_named(ctx: PassCtx) -> str:
    """`the default context`, `set on line 9`: where the context comes from, in a few words
    (ctx.where, whole, is for the detail: the PassContext's arguments, or why a default
    context is the one that applies)."""
    if ctx.is_default:
        return "the default context of a test run" if ctx.by_test_runner else ctx.origin.partition(":")[0]
    line = _ON_LINE.search(ctx.origin)
    return f"set on line {line.group(1)}{line.group(2) or ''}" if line else ctx.where


def few(names: Iterable[str], limit: int = SHOWN) -> str:
    """`A, B and C`, or `A, B, C and 4 more` past `limit` names (repeats left out)."""
    unique = list(dict.fromkeys(names))
    if len(unique) <= limit:
        return and_list(unique)
    return f"{', '.join(unique[:limit])} and {len(unique) - limit} more"


def skipped(skips: Sequence[Skip], limit: int = SHOWN) -> str:
    """The skipped passes as a message names them, by level: `BackwardFoldScaleAxis and
    ForwardFoldScaleAxis (opt_level 3)`, at most `limit` names (the detail has each with the
    Sequential it sits in)."""
    levels: dict = {}
    for skip in skips:
        # a member shown as "BackwardFoldScaleAxis (in FoldScaleAxis)": its name here, the rest in the detail
        levels.setdefault(skip.member.opt_level, []).append(skip.member.shown.split(" (")[0])
    if len(levels) == 1:
        [(level, names)] = levels.items()
        return f"{few(names, limit)} (opt_level {level})"
    shown: List[str] = [f"{name} (opt_level {level})" for level, names in levels.items() for name in dict.fromkeys(names)]
    return few(shown, limit)


