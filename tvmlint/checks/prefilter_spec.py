"""What a rule needs of a file for the file to be worth analysing: a declarative spec.

A rule says it as `prefilter = Prefilter(...)`; the pre-filter wing (`tvmlint.prefilter`)
alone reads it. Every field names something the wing knows how to work out from the
knowledge tables of a release (a set of TVM names, a text pattern, a small predicate over
the names a module uses), so a rule module holds no speed code and a newcomer writes a
rule without reading the wing. A rule that says nothing (`Prefilter()`) is looked at in
every module that uses a TVM name: always right, only slower.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Prefilter:
    # Named sets of TVM qualified names (`tvmlint.prefilter.names.NAME_SETS`) one of which a
    # module must use. None: any TVM name will do. (): none ever does (the rule never needs
    # the analysis: TVM001 is the parser's verdict, TVM002 the runner's).
    triggers: Optional[Tuple[str, ...]] = None
    # A named predicate over the names a module uses (`tvmlint.prefilter.predicates.WANTS`),
    # narrower than "uses a trigger". None: uses one of the triggers.
    wants: Optional[str] = None
    # Keywords a trigger call must give (or may hide in `**kwargs`) for `wants="gives_argument"`.
    arguments: Tuple[str, ...] = ()
    # Named sets of words (NAME_SETS) a file's text may hold instead of a trigger's last part.
    tokens: Tuple[str, ...] = ()
    # Named patterns (`tvmlint.prefilter.names.PATTERNS`):
    # one a module's text must match for the rule to want it (a literal it asks for);
    text_pattern: Optional[str] = None
    # one that keeps the rule as `text_pattern` does, in a module outside TVM's own packages;
    text_pattern_outside_tvm: Optional[str] = None
    # one whose match makes a module that uses TVM worth asking (methods of TVM's objects);
    method_pattern: Optional[str] = None
    # one some file of a run must match for the rule to fire in any file (`tvmlint.run.gate`).
    project_pattern: Optional[str] = None
    # A named predicate (`tvmlint.prefilter.predicates.INNER`): whether a function, or a
    # statement of one, may hold a finding; what may not is blanked before libcst reads it.
    # None: everything is kept.
    inner: Optional[str] = None
    # A named predicate (`tvmlint.prefilter.predicates.LOW`): whether every finding the rule
    # can make in a module needs a context that writes a level below the default one as a
    # literal (`tvmlint.run.low_contexts`). None: never.
    low_context: Optional[str] = None
    # The rule judges names against the passes the project defines with TVM's decorators:
    # those modules are read for their pass names, and analysed with their definitions.
    reads_defined_passes: bool = False
    # The rule reads what a module's own calls pass to its functions (a pass list given through
    # a parameter): a definition that calls a kept one is kept with it.
    reads_callers: bool = False
    # A finding in a definition may turn on what the definitions it names do (the context a
    # helper enters or returns): they are analysed with it, and what they name in turn. False:
    # only on the names they bind (a module-level `def relay():` is not TVM's relay), so the
    # definitions it names are kept for their names and not followed further.
    reads_named_definitions: bool = True
