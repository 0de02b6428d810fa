"""SARIF 2.1.0, for code-scanning dashboards (GitHub code scanning and others).

One run: the tool with every rule's documentation and default level, then one
result per finding with its location and, when it has one, its fix. Columns
count characters, which SARIF calls `unicodeCodePoints`; paths are relative to
the directory tvmlint ran in (`%SRCROOT%`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePath
from typing import Dict, List, Sequence, TextIO
from urllib.parse import quote

from tvmlint import __version__
from tvmlint.base.diagnostics import Edit, Finding, Fix, Position
from tvmlint.knowledge.catalog import RuleInfo, load_catalog
from tvmlint.output.safe import json_text

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/tvmlint/tvmlint"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SRCROOT = "%SRCROOT%"


def _rule(info: RuleInfo) -> dict:
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": " ".join(info.what.split())},
        "helpUri": info.url,
        "help": {
            "text": f"{' '.join(info.what.split())}\n\nWhy: {' '.join(info.why.split())}",
            "markdown": info.render_markdown(),
        },
        "defaultConfiguration": {"level": LEVEL[info.severity], "enabled": info.default},
        "properties": {"fixAvailability": info.fix_availability, "fixSafety": info.fix_safety},
    }


def _artifact(path: str) -> dict:
    pure = PurePath(path)
    if pure.is_absolute():  # outside the directory tvmlint ran in
        return {"uri": Path(path).as_uri()}
    # quoted from the bytes: a name that is not UTF-8 is percent-encoded as it is on disk
    return {"uri": quote(os.fsencode(pure.as_posix())), "uriBaseId": SRCROOT}


def _region(start: Position, end: Position) -> dict:
    return {"startLine": start.line, "startColumn": start.column, "endLine": end.line, "endColumn": end.column}


def _fix(path: str, fix: Fix) -> dict:
    return {
        "description": {"text": f"{fix.message} ({fix.applicability})"},
        "artifactChanges": [{
            "artifactLocation": _artifact(path),
            "replacements": [_replacement(edit) for edit in fix.edits],
        }],
    }


def _replacement(edit: Edit) -> dict:
    return {"deletedRegion": _region(edit.start, edit.end), "insertedContent": {"text": edit.content}}


def _result(finding: Finding, index: Dict[str, int]) -> dict:
    result = {
        "ruleId": finding.code,
        "level": LEVEL.get(finding.severity, "warning"),
        "message": {"text": finding.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": _artifact(finding.path),
                "region": _region(finding.start, finding.end),
            }
        }],
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if finding.fix is not None:
        result["fixes"] = [_fix(finding.path, finding.fix)]
    if finding.detail:  # why it matters and what to do: SARIF's message is the one sentence, its text only
        result["properties"] = {"detail": finding.detail}
    if finding.confirmation is not None:  # `check --confirm`: what the installed TVM said
        result.setdefault("properties", {}).update(confirmed=finding.confirmed, confirmation=finding.confirmation)
    if finding.traced is not None:  # `check --trace`: what the traced run did at this line
        result.setdefault("properties", {})["trace"] = {"verdict": finding.traced, "note": finding.trace_note}
    return result


def sarif_log(findings: Sequence[Finding]) -> dict:
    catalog = load_catalog()
    rules: List[dict] = [_rule(info) for info in catalog.values()]
    index = {code: position for position, code in enumerate(catalog)}
    root = Path(os.getcwd()).as_uri() + "/"
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "tvmlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": root}},
            "columnKind": "unicodeCodePoints",
            "results": [_result(finding, index) for finding in findings],
        }],
    }


def render(findings: Sequence[Finding], files: int, stream: TextIO, **_: object) -> None:
    stream.write(json_text(json.dumps(sarif_log(findings), indent=2, ensure_ascii=False)))
    stream.write("\n")
