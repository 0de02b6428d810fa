"""Which rules `select`, `extend-select` and `ignore` leave on, resolved as ruff resolves them.

The selection comes in layers: the configuration's, then the command line's. A layer with a
`select` starts over, so `--select TVM101` checks TVM101 whatever the configuration's
`ignore` and `extend-select` say (ruff: config `select = ["E", "F"]`, `ignore = ["F401"]`,
then `ruff check --select F401` enforces F401 and nothing else); a layer without one adds
to and takes from what the layers before it left. Within a layer the more specific selector
wins (`select = ["TVM101"]` with `ignore = ["TVM1"]` keeps TVM101), and of two equally
specific ones, the ignore. tests/test_ruff_semantics.py runs ruff beside tvmlint on this.
"""

from __future__ import annotations

import functools
from typing import Dict, FrozenSet, Iterable, Optional, Set, Tuple

from tvmlint.knowledge.catalog import load_catalog

# (select or None, extend-select, ignore with extend-ignore)
Layer = Tuple[Optional[Tuple[str, ...]], Tuple[str, ...], Tuple[str, ...]]


def expand(selectors: Iterable[str], catalog) -> Set[str]:
    """The catalog's codes that `selectors` (codes, prefixes such as `TVM1`, `ALL`) name."""
    codes: Set[str] = set()
    for selector in selectors:
        selector = selector.strip().upper()
        if selector == "ALL":
            codes.update(catalog)
        else:
            codes.update(code for code in catalog if code.startswith(selector))
    return codes


def _specificity(selector: str) -> int:
    # ruff's order: ALL, then the linter (`TVM`), then ever longer prefixes down to one rule;
    # every tvmlint code shares the `TVM` stem, so a longer selector is a more specific one
    selector = selector.strip().upper()
    return -1 if selector == "ALL" else len(selector)


@functools.lru_cache(maxsize=None)
def enabled_codes(layers: Tuple[Layer, ...], rules: str) -> FrozenSet[str]:
    """The codes the layers leave on, starting from the rules on by default. `rules`: the
    rules/ directory read, so a cached answer never outlives the catalog it came from."""
    catalog = load_catalog()
    codes = {code for code, info in catalog.items() if info.default}
    carried: Tuple[str, ...] = ()
    for select, extend_select, own in layers:
        ignore = own + carried
        updates: Dict[str, bool] = {}
        for level in sorted({_specificity(s) for s in (*(select or ()), *extend_select, *ignore)}):
            for selector in (*(select or ()), *extend_select):
                if _specificity(selector) == level:
                    updates.update(dict.fromkeys(expand((selector,), catalog), True))
            for selector in ignore:  # after the selects of its level: an ignore wins a tie
                if _specificity(selector) == level:
                    updates.update(dict.fromkeys(expand((selector,), catalog), False))
        if select is not None:
            codes = {code for code, on in updates.items() if on}
        else:
            codes = ({code for code, on in updates.items() if on} | codes) - {code for code, on in updates.items() if not on}
        # as ruff: `select = []` with only an ignore hands the ignore on to the next layer
        carried = own if select == () and not extend_select and own else ()
    return frozenset(codes)
