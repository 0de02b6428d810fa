"""`check --trace trace.json`: each gating finding (TVM101, TVM102, TVM108) held against what a traced run did.

A finding is `confirmed` when a run started at its line (the innermost frame of
the user's code, or a caller's) skipped the passes it names; `refuted` when the
runs there ran them: the static analysis was wrong at that line; `not reached`
when no run came there (or none touched those passes). The trace is a document
`tvmlint trace --format json` wrote (docs/trace-format.md).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from tvmlint.base.diagnostics import Finding
from tvmlint.companion import CompanionError
from tvmlint.companion.trace_journal import NESTED, SCHEMA, VERSION, walk

CODES = frozenset({"TVM101", "TVM102", "TVM108"})
LIMIT = 512 * 2**20  # a trace of a very large model is tens of MB; more is not a trace


def load(path: str) -> dict:
    """The trace document at `path`; CompanionError (one line) for anything that is not one."""
    from tvmlint.base.source import TooLarge, read_file

    try:
        data = read_file(path, LIMIT)
    except TooLarge:
        raise CompanionError(f"--trace {path}: larger than {LIMIT // 2**20} MB, not a trace") from None
    except OSError as error:
        raise CompanionError(f"--trace {path}: {error.strerror or error}") from None
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise CompanionError(f"--trace {path}: not JSON, or cut short ({error}); write it with "
                             "`tvmlint trace --format json -o FILE`") from None
    except RecursionError:  # json's decoder recurses per nested array or object
        raise CompanionError(f"--trace {path}: nested too deeply to be a trace") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise CompanionError(f"--trace {path}: not a tvmlint trace (no \"schema\": \"{SCHEMA}\")")
    if doc.get("version") != VERSION:
        raise CompanionError(f"--trace {path}: trace format version {doc.get('version')!r}; this tvmlint reads version {VERSION}")
    problem = _malformed(doc)
    if problem:
        raise CompanionError(f"--trace {path}: not a whole trace ({problem})")
    return doc


RUN_KEYS = {"run": int, "status": str, "context": dict, "stack": list, "passes": list, "skipped": list, "ir_after": list}
ROW_KEYS = {"name": str, "state": str, "opt_level": int}


def _malformed(doc: dict) -> Optional[str]:
    """What in the document does not have the shape docs/trace-format.md gives, or None."""
    if not isinstance(doc.get("sites"), list):
        return 'no "sites" list'
    for site in doc["sites"]:
        if not isinstance(site, dict) or not isinstance(site.get("runs"), list):
            return 'a site without its "runs" list'
        for run in site["runs"]:
            if not isinstance(run, dict) or any(not isinstance(run.get(key), kind) for key, kind in RUN_KEYS.items()):
                return f"a run without {', '.join(RUN_KEYS)}"
            rows = list(run["passes"])
            while rows:
                row = rows.pop()
                if not isinstance(row, dict) or any(not isinstance(row.get(key), kind) for key, kind in ROW_KEYS.items()) \
                        or not isinstance(row.get("children", []), list):
                    return f"a pass row without {', '.join(ROW_KEYS)}"
                rows.extend(row.get("children", []))
    return None


FOUND = Path(".tvmlint") / "trace.json"  # where `tvmlint trace` keeps the last trace, for explain and hover


def found(root: Path) -> Optional[dict]:
    """The trace `tvmlint trace` kept under `root`, or None (none there, or not a whole trace: said nowhere,
    since nobody asked for it)."""
    path = root / FOUND
    try:
        return load(str(path)) if path.is_file() else None
    except CompanionError:
        return None


class Runs:
    """The trace's runs, found by the lines of the user's files on their stacks."""

    def __init__(self, doc: dict):
        self.by_file: Dict[str, List[Tuple[int, dict]]] = {}
        for site in doc["sites"]:
            for run in site.get("runs", ()):
                for frame in [*run.get("stack", ())[:8], *_built(run)]:
                    if isinstance(frame, dict) and isinstance(frame.get("file"), str):
                        self.by_file.setdefault(_real(frame["file"]), []).append((frame.get("line"), run))

    def at(self, path: str, first: int, last: int) -> List[dict]:
        out, seen = [], set()
        for line, run in self.by_file.get(_real(path), ()):
            if isinstance(line, int) and first <= line <= last and id(run) not in seen:
                seen.add(id(run))
                out.append(run)
        return out


def _built(run: dict) -> List[dict]:
    """Where the user's code built the Sequentials a run ran (TVM102 points at the construction)."""
    return [row["built_at"] for row, _parent in walk(run.get("passes", ())) if isinstance(row.get("built_at"), dict)]


def _real(path: str) -> str:
    return path if path.startswith("<") else os.path.realpath(path)


def expected(finding: Finding) -> Optional[Set[str]]:
    """The pass names the finding says are skipped, from its facts; None when it carries none."""
    from tvmlint.analysis.contexts import PassCtx, gate

    try:
        facts = finding.facts or {}
        payload, ctx = facts.get("payload"), facts.get("ctx")
    except Exception:  # facts that no longer load
        return None
    members = getattr(payload, "members", None)
    if members is None or not isinstance(ctx, PassCtx):
        return None
    skipped = gate(members, ctx)
    return {skip.member.name for skip in skipped} if skipped else None


def _names(run: dict, state: str) -> Set[str]:
    return {row["name"] for row, _parent in walk(run.get("passes", ())) if row.get("state") == state
            and (state != "skipped" or row.get("why") != NESTED)}


def _and(names: Iterable[str]) -> str:
    names = sorted(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _setting(run: dict) -> str:
    context = run.get("context", {})
    return f"opt_level {context.get('opt_level')}" + (", the default context" if context.get("default") else "")


def verdict(finding: Finding, runs: Sequence[dict]) -> Tuple[str, str]:
    if not runs:
        return "not reached", "no pass ran from this line in the traced run"
    wanted = expected(finding)
    confirming, refuting = [], []
    for run in runs:
        skipped, ran = _names(run, "skipped"), _names(run, "ran")
        if wanted is None:
            (confirming if skipped else refuting).append((run, skipped or ran))
        elif wanted & skipped:
            confirming.append((run, wanted & skipped))
        elif wanted & ran:
            refuting.append((run, wanted & ran))
    total = f" ({len(confirming)} of {len(runs)} runs here)" if len(runs) > 1 else ""
    if confirming:
        run, names = confirming[0]
        return "confirmed", f"run {run.get('run', '?')} skipped {_and(names)} here at {_setting(run)}{total}"
    if refuting:
        run, names = refuting[0]
        return "refuted", (f"run {run.get('run', '?')} ran {_and(names)} here at {_setting(run)}: the static analysis "
                           "was wrong at this line")
    return "not reached", f"the runs from this line never came to {_and(wanted or ())}"


def mark(findings: Sequence[Finding], doc: dict) -> List[Finding]:
    runs = Runs(doc)
    out = []
    for finding in findings:
        if finding.code in CODES:
            word, note = verdict(finding, runs.at(finding.path, finding.start.line, finding.end.line))
            finding = dataclasses.replace(finding, traced=word, trace_note=note)
        out.append(finding)
    return out
