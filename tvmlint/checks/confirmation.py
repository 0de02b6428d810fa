"""What a rule's confirmation is written against: the installed TVM, as `check --confirm` sees it.

A rule that can be checked against TVM itself writes a `confirm(finding, tvm)` classmethod
(`checks/rule.py`) and gets here a `LiveTVM`: the passes, levels and config keys the
installed TVM registers, its release, and the runs the companion can make in it. The
companion (`tvmlint/companion/live.py`) implements it; its child process, cache and
session stay on its side, so a rule reads nothing of them and imports nothing above
`checks/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Iterable,
    List,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Tuple,
)

if TYPE_CHECKING:
    from tvmlint.analysis.contexts import PassCtx
    from tvmlint.base.diagnostics import Finding
    from tvmlint.base.versions import Version


@dataclass(frozen=True)
class Verdict:
    """True: TVM agrees; False: TVM contradicts the table the finding rests on (the finding is
    dropped and listed); None: the installed TVM cannot speak to it. Always with the reason."""

    confirmed: Optional[bool]
    reason: str
    # set by the companion when many findings are unconfirmable for one reason, said once for all
    said_once: Optional[str] = None


class NoAnswer(Exception):
    """A run in the installed TVM gave no answer (it hung or crashed): one line, the static
    finding stands."""


class RegisteredPass(Protocol):
    """A pass as the installed TVM builds it (its PassInfo and, for a Sequential, its members)."""

    name: str
    kind: str  # "sequential", "module", "function", ...
    opt_level: int
    members: Tuple[RegisteredPass, ...]
    api: Optional[str]  # the constructor's API path
    error: Optional[str]  # why the constructor could not be built, if it could not

    def walk(self) -> Iterable[RegisteredPass]: ...


class InstrumentedRun(Protocol):
    """A pipeline run under a PassInstrument (`tvmlint registry --pipeline`'s run)."""

    @property
    def resolved(self) -> str: ...  # the API path that was run

    def ran(self) -> List[dict]: ...  # rows with "name": the passes that ran

    def skipped_names(self) -> List[str]: ...  # the passes a gate skipped


class LiveTVM(Protocol):
    """The installed TVM. Every method that runs something in it raises `NoAnswer` when TVM
    gives none; the companion then says why under the finding."""

    @property
    def tvm(self) -> str: ...  # "TVM 0.27.0": how a reason names the installed TVM

    @property
    def passes(self) -> Sequence[RegisteredPass]: ...  # one per pass constructor, built or not

    @property
    def by_name(self) -> Mapping[str, RegisteredPass]: ...  # every built pass and member, by its name

    @property
    def configs(self) -> Mapping[str, str]: ...  # the registered PassContext config keys and their types

    def target(self, finding: Finding) -> Optional[Version]:
        """The release the finding was checked against."""

    def other_release(self, finding: Finding) -> Optional[Verdict]:
        """The verdict for a finding about another release than the installed one, else None."""

    def cannot_speak(self, finding: Finding, names: Iterable[str]) -> Optional[Verdict]:
        """Why the installed TVM cannot judge a finding about these pass names (it has no Relay,
        or the finding is about another release), if it cannot."""

    def config_error(self, key: str, value: object) -> Optional[str]:
        """What `PassContext(config={key: value})` raises in the installed TVM, or None."""

    def can_probe(self, api: str) -> bool:
        """Whether the companion has a probe module for the pass this API builds."""

    def probe(self, api: str, ctx: PassCtx, levels: Sequence[int]) -> List[bool]:
        """Whether a real run of the pass on its probe module changes it, at each level (with the
        context's required and disabled passes)."""

    def instrumented(self, api: Optional[str], members: Sequence[str], ctx: PassCtx) -> InstrumentedRun:
        """A run of the pass at `api`, or of a Sequential of the passes at the `members` API paths,
        on the companion's small module at the context."""
