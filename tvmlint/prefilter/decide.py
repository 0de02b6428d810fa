"""The wing's one decision per file: which selected rules run on it, on which text, or none.

Asked by `tvmlint.run.engine` for each file of a run with the pre-filter on. The text is
asked first (`may_want`: no word or import any rule needs, and the parser's verdict is all
the file gets, without the tree even being built); then, with the stdlib parser's tree,
`decide` gives the rest of the same answer. Either way the decision only leaves things
out of the analysis: what the analysis finds in what it is given is the rules' own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, Optional, Tuple

from tvmlint.base.versions import Version
from tvmlint.knowledge.target import get_knowledge

if TYPE_CHECKING:
    import ast

    from tvmlint.prefilter.prune import Pruned
    from tvmlint.prefilter.selection import Selection
    from tvmlint.run.task import Task

PARSE_ERROR = "TVM001"
# `mentions` of a file left out before its names were resolved: no mentions string starts
# with "?" (tvmlint.analysis.used_names.mentions); a later round reads the file if it must
UNKNOWN_MENTIONS = "?"


@dataclass
class Decision:
    """What the analysis of one file is given: `running`, the codes of the rules that run (None:
    the file is not analysed), on `pruned`'s text when some of it was blanked."""

    running: Optional[FrozenSet[str]]
    mentions: str = UNKNOWN_MENTIONS  # not analysed: the names it may use, for the later rounds
    defined: FrozenSet[str] = frozenset()  # the pass names it defines (read whether or not it is analysed)
    awaits_low: bool = False  # left out until a context below the default level can reach it
    pruned: Optional["Pruned"] = None


def may_want(text: str, task: "Task") -> bool:
    """Whether a selected rule may want a module, by its text alone (the first part of the
    decision, asked before the parser builds a tree)."""
    if names_no_tvm(text, task.module_name, task.version):
        return False
    return selection_for(task.codes, task.version).may_want(None, text, task.module_name, task.is_package)


def names_no_tvm(text: str, module_name: str, version: Version) -> bool:
    """No TVM package named in the text, outside TVM's own packages: no TVM name can resolve, so
    no rule can fire, and the rules (and libcst) need not even be imported."""
    from tvmlint.analysis.used_names import roots_of

    roots = roots_of(get_knowledge(version))
    return module_name.split(".")[0] not in roots and not any(root in text for root in roots)


def decide(text: str, tree: "ast.Module", task: "Task") -> Decision:
    """The rules to run on a parsed module, and what of it they need (`task.follow`: a later
    round's followed names, whose definitions are kept; with `task.confirm`, a file analysed
    only if it names or defines one; `task.defer_low`: a first round, where a module whose
    rules can only fire under a context below the default level waits for one)."""
    from tvmlint.analysis.used_names import UsedNames, mentions
    from tvmlint.prefilter.prune import prune

    follow = task.follow
    if follow is None and names_no_tvm(text, task.module_name, task.version):
        return Decision(None)
    selection = selection_for(task.codes, task.version)
    if follow is None and not selection.may_want(tree, text, task.module_name, task.is_package):
        # no selected rule can want it, nor can it define passes (their decorators are targets)
        return Decision(None)
    used = UsedNames(tree, task.module_name, task.is_package, selection.roots, selection.knowledge.star_reexports)
    defined = selection.defined_passes(tree, used) if used.uses_any(selection.decorators) else frozenset()
    skipped = Decision(None, mentions(used), defined)
    if task.confirm and follow is not None and not (
            used.uses_any(follow[0]) or not (used.defined | used.constants).isdisjoint(follow[1])):
        return skipped
    if follow is None and not selection.wanted(used):
        return skipped
    if task.defer_low and follow is None and selection.awaits_low_context(used, tree, text):
        skipped.awaits_low = True
        return skipped
    pruned = prune(text, tree, used, selection, follow)
    if follow is None and pruned is not None and not pruned.holds_findings:
        return skipped
    return Decision(selection.wanting(used) | (task.codes & {PARSE_ERROR}), defined=defined, pruned=pruned)


_SELECTIONS: Dict[Tuple[FrozenSet[str], Version, str], "Selection"] = {}


def selection_for(codes: FrozenSet[str], version: Version) -> "Selection":
    """The wing's view of these rules at this release, built once per process."""
    from tvmlint.checks import all_rules
    from tvmlint.knowledge.location import rules_dir
    from tvmlint.prefilter.selection import Selection

    key = (codes, version, str(rules_dir()))
    selection = _SELECTIONS.get(key)
    if selection is None:
        knowledge = get_knowledge(version)
        selection = Selection([cls for code, cls in all_rules().items() if code in codes], knowledge)
        _SELECTIONS[key] = selection
    return selection
