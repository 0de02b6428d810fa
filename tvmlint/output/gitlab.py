"""GitLab Code Quality: the JSON array a `codequality` report artifact holds.

The fields GitLab reads (docs/ci/testing/code_quality.md, "Implement a custom tool"):
`description`, `check_name`, `fingerprint`, `severity` (info, minor, major, critical,
blocker), `location.path` (relative to the project) and `location.lines.begin`.
Paths are made relative to `CI_PROJECT_DIR` when GitLab sets it, as ruff does.

The fingerprint identifies a finding across pipelines so the merge request widget
can tell new findings from old ones: it hashes the rule, the path and the message,
not the line, so a finding that only moves is not reported as new; findings that
would share one get the next free fingerprint in their order.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Sequence, Set, TextIO

from tvmlint.base.diagnostics import Finding
from tvmlint.output.safe import json_text

SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def _path(path: str, project_dir: str) -> str:
    if project_dir:
        absolute = Path(path) if Path(path).is_absolute() else Path.cwd() / path
        try:
            return os.path.relpath(absolute, project_dir).replace(os.sep, "/")
        except ValueError:  # another drive (Windows)
            pass
    return path.replace(os.sep, "/")


def _fingerprint(finding: Finding, path: str, salt: int) -> str:
    text = f"{finding.code}\0{path}\0{finding.message}\0{salt}"
    try:  # a name that is not UTF-8 hashes as its bytes
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate from a literal ("\ud800"): no bytes stand for it
        data = text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:32]


def issues(findings: Sequence[Finding], project_dir: str = "") -> list:
    out = []
    used: Set[str] = set()
    for finding in findings:
        path = _path(finding.path, project_dir)
        salt = 0
        fingerprint = _fingerprint(finding, path, salt)
        while fingerprint in used:
            salt += 1
            fingerprint = _fingerprint(finding, path, salt)
        used.add(fingerprint)
        issue = {
            # GitLab shows the description alone: it starts with the code
            "description": f"{finding.code}: {finding.message}",
            "check_name": finding.code,
            "fingerprint": fingerprint,
            "severity": SEVERITY.get(finding.severity, "minor"),
            "location": {"path": path, "lines": {"begin": finding.start.line, "end": finding.end.line}},
        }
        if finding.detail:  # the Code Climate field for "deeper explanations" (markdown)
            issue["content"] = {"body": finding.detail}
        out.append(issue)
    return out


def render(findings: Sequence[Finding], files: int, stream: TextIO, **_: object) -> None:
    data = issues(findings, os.environ.get("CI_PROJECT_DIR", ""))
    stream.write(json_text(json.dumps(data, indent=2, ensure_ascii=False)))
    stream.write("\n")
