"""A unified diff of a file before and after its fixes (`tvmlint fix --diff`).

`difflib.unified_diff` searches for the longest matching block again inside every
gap it leaves, which on a 20,000-line file with thousands of fixed lines took
longer than checking the file. The lines a fix leaves alone are the same lines in
the same order, and most are unique in the file, so anchoring on lines that occur
exactly once on both sides (patience diff) finds the alignment in near-linear
time; gaps with no unique line shared by both sides are matched by their common
head and tail, and what is left is one replacement. The output has difflib's
format (three lines of context, `---`/`+++` headers, `@@ -a,b +c,d @@` hunks).
"""

from __future__ import annotations

import bisect
from typing import Dict, Iterator, List, Sequence, Tuple

Opcode = Tuple[str, int, int, int, int]  # difflib's: tag, a-start, a-end, b-start, b-end


def unified_diff(before: Sequence[str], after: Sequence[str], fromfile: str, tofile: str, context: int = 3) -> List[str]:
    """The lines (ending as their source lines do) of a unified diff of two lists of lines."""
    groups = list(_grouped(_opcodes(before, after), context))
    if not groups:
        return []
    out = [f"--- {fromfile}\n", f"+++ {tofile}\n"]
    for group in groups:
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, a0, a1, b0, b1 in group:
            if tag == "equal":
                out.extend(" " + line for line in before[a0:a1])
                continue
            out.extend("-" + line for line in before[a0:a1])
            out.extend("+" + line for line in after[b0:b1])
    return out


def _range(start: int, stop: int) -> str:
    # as difflib writes it: 1-based start, then the length unless it is 1; an empty range
    # names the line before it
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _opcodes(a: Sequence[str], b: Sequence[str]) -> List[Opcode]:
    """Opcodes that turn `a` into `b`, equal runs anchored on lines unique to both."""
    matches: List[Tuple[int, int]] = []  # (a index, b index) of matched lines, increasing in both
    todo = [(0, len(a), 0, len(b))]
    while todo:
        alo, ahi, blo, bhi = todo.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            matches.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            matches.append((ahi, bhi))
        anchors = _unique_anchors(a, b, alo, ahi, blo, bhi)
        if not anchors:
            continue
        # the gaps between anchors are worked on in turn; each anchor is a match
        edges = [(alo - 1, blo - 1), *anchors, (ahi, bhi)]
        for (a0, b0), (a1, b1) in zip(edges, edges[1:]):
            if a1 < ahi:
                matches.append((a1, b1))
            if a0 + 1 < a1 or b0 + 1 < b1:
                todo.append((a0 + 1, a1, b0 + 1, b1))
    matches.sort()
    return list(_to_opcodes(matches, len(a), len(b)))


def _unique_anchors(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> List[Tuple[int, int]]:
    """The longest increasing run of lines that occur once in each range, as (a, b) indices."""
    counts: Dict[str, List[int]] = {}
    for index in range(alo, ahi):
        entry = counts.setdefault(a[index], [0, index, 0, -1])
        entry[0] += 1
    for index in range(blo, bhi):
        entry = counts.get(b[index])
        if entry is not None:
            entry[2] += 1
            entry[3] = index
    pairs = sorted((entry[1], entry[3]) for entry in counts.values() if entry[0] == 1 and entry[2] == 1)
    return _longest_increasing(pairs)


def _longest_increasing(pairs: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The longest subsequence of `pairs` (sorted by their first) whose seconds increase."""
    tails: List[int] = []  # the smallest b index ending an increasing run of each length
    tail_at: List[int] = []  # which pair that is
    previous = [-1] * len(pairs)
    for position, (_, second) in enumerate(pairs):
        length = bisect.bisect_left(tails, second)
        if length == len(tails):
            tails.append(second)
            tail_at.append(position)
        else:
            tails[length] = second
            tail_at[length] = position
        previous[position] = tail_at[length - 1] if length else -1
    run: List[Tuple[int, int]] = []
    at = tail_at[-1] if tail_at else -1
    while at != -1:
        run.append(pairs[at])
        at = previous[at]
    return run[::-1]


def _to_opcodes(matches: List[Tuple[int, int]], size_a: int, size_b: int) -> Iterator[Opcode]:
    ops: List[Opcode] = []
    i = j = 0
    for a_index, b_index in [*matches, (size_a, size_b)]:
        if a_index > i or b_index > j:
            tag = "replace" if a_index > i and b_index > j else "delete" if a_index > i else "insert"
            ops.append((tag, i, a_index, j, b_index))
        if a_index == size_a and b_index == size_b:
            break
        if ops and ops[-1][0] == "equal" and ops[-1][2] == a_index and ops[-1][4] == b_index:
            _, a0, _, b0, _ = ops[-1]
            ops[-1] = ("equal", a0, a_index + 1, b0, b_index + 1)
        else:
            ops.append(("equal", a_index, a_index + 1, b_index, b_index + 1))
        i, j = a_index + 1, b_index + 1
    return iter(ops)


def _grouped(opcodes: List[Opcode], context: int) -> Iterator[List[Opcode]]:
    """Hunks: the changes with `context` equal lines around them, as difflib groups them."""
    if not opcodes or all(op[0] == "equal" for op in opcodes):
        return
    codes = list(opcodes)
    if codes[0][0] == "equal":
        tag, a0, a1, b0, b1 = codes[0]
        codes[0] = (tag, max(a0, a1 - context), a1, max(b0, b1 - context), b1)
    if codes[-1][0] == "equal":
        tag, a0, a1, b0, b1 = codes[-1]
        codes[-1] = (tag, a0, min(a1, a0 + context), b0, min(b1, b0 + context))
    group: List[Opcode] = []
    for tag, a0, a1, b0, b1 in codes:
        if tag == "equal" and a1 - a0 > 2 * context:
            group.append((tag, a0, min(a1, a0 + context), b0, min(b1, b0 + context)))
            yield group
            group = []
            a0, b0 = max(a0, a1 - context), max(b0, b1 - context)
        group.append((tag, a0, a1, b0, b1))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group
