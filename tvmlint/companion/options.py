"""The companion's command-line options, and `check --confirm` from the command's side."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, TextIO, Tuple

from tvmlint.companion import CompanionError

if TYPE_CHECKING:  # the parser's options need neither: `check --daemon`'s client imports this module
    from tvmlint.base.diagnostics import Finding


def add_companion_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tvm-python", metavar="PATH",
        help="ask the TVM installed under this Python interpreter (default: the one running tvmlint)",
    )
    parser.add_argument(
        "--tvm-timeout", type=_positive_seconds, metavar="SECONDS",
        help="give up on the TVM child process after this long (default 120, or $TVMLINT_TVM_TIMEOUT)",
    )
    parser.add_argument("--no-registry-cache", action="store_true", help="ask TVM afresh instead of the cached registry snapshot")


def _positive_seconds(text: str) -> float:
    from tvmlint.companion.process import seconds

    value = seconds(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def confirm_findings(
    args: argparse.Namespace,
    findings: Sequence[Finding],
    target_for: Callable[[Finding], object],
    err: Optional[TextIO] = None,
) -> Tuple[List[Finding], List[Finding]]:
    """(findings with verdicts, refuted ones); on any companion failure one line (to `err`, by
    default the stderr of the moment: the daemon's changes with each run) and the static findings."""
    from tvmlint.companion.confirm import Confirmer
    from tvmlint.companion.process import default_timeout, interpreter
    from tvmlint.companion.registry import load_snapshot

    try:
        timeout = args.tvm_timeout if args.tvm_timeout is not None else default_timeout()
        snapshot = load_snapshot(args.tvm_python, timeout, use_cache=not args.no_registry_cache)
    except CompanionError as error:
        print(f"tvmlint: --confirm skipped: {error}; the findings below are static only", file=err or sys.stderr)
        return list(findings), []
    confirmer = Confirmer(snapshot, interpreter(args.tvm_python), timeout, target_for)
    kept, refuted = confirmer.confirm_all(findings)
    if confirmer.unchecked:
        kept = _say_once_what_was_not_checked(args, kept, confirmer, err)
    return kept, refuted


def _say_once_what_was_not_checked(args: argparse.Namespace, kept: List[Finding], confirmer,
                                   err: Optional[TextIO]) -> List[Finding]:
    """One line per reason the installed TVM could not check findings (no Relay, a rule the
    registry cannot speak to, another release), each naming how many of which rule; in the text
    output those findings carry no per-finding line (JSON and SARIF keep each one's `null` and reason)."""
    from collections import Counter

    from tvmlint.analysis.contexts import and_list
    from tvmlint.checks import confirming_rules
    from tvmlint.companion.live import (
        NO_RELAY,
        NOT_CHECKABLE,
        OTHER_RELEASE,
        relay_removed,
    )

    err = err or sys.stderr
    why = {
        NO_RELAY: (f"not confirmable with the installed {confirmer.tvm} "
                   f"({relay_removed().replace('removed', 'Relay was removed', 1)}); install the TVM release you "
                   "target, or name its interpreter with --tvm-python, to confirm them"),
        NOT_CHECKABLE: (f"not confirmable: the pass registry can check only {and_list(sorted(confirming_rules()))}, "
                        "so the other rules' findings are static only"),
        OTHER_RELEASE: (f"not confirmable: they are about another TVM release than the installed {confirmer.tvm} "
                        "(name its interpreter with --tvm-python to confirm them)"),
    }
    for reason in (NO_RELAY, NOT_CHECKABLE, OTHER_RELEASE):
        findings = confirmer.unchecked.get(reason)
        if not findings:
            continue
        codes = Counter(finding.code for finding in findings)
        listed = ", ".join(f"{code} x{n}" if n > 1 else code for code, n in sorted(codes.items()))
        count = len(findings)
        print(f"tvmlint: --confirm: {count} finding{'s' if count != 1 else ''} ({listed}) {why[reason]}", file=err)
    if getattr(args, "format", "text") != "text":
        return kept
    silent = {id(finding) for findings in confirmer.unchecked.values() for finding in findings}
    import dataclasses

    return [dataclasses.replace(f, confirmed=None, confirmation=None) if id(f) in silent else f for f in kept]


def print_refuted(refuted: Sequence[Finding], err: Optional[TextIO] = None) -> None:
    if not refuted:
        return
    err = err or sys.stderr
    print(
        f"tvmlint: {len(refuted)} finding{'s' if len(refuted) != 1 else ''} refuted by the installed TVM and dropped "
        "(the table in rules/ is wrong; `tvmlint registry --verify` says where):",
        file=err,
    )
    for finding in refuted:
        print(f"  {finding.path}:{finding.start.line}:{finding.start.column}: {finding.code} {finding.confirmation}", file=err)


def target_resolver(resolver) -> Callable[[Finding], object]:
    def target_for(finding: Finding):
        try:
            return resolver.for_path(Path(finding.path)).target_version
        except Exception:  # a finding whose path no longer resolves: no target, no claim
            return None

    return target_for
