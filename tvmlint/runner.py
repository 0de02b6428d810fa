"""A whole run: find files, read them, check those that can have findings, resolve, filter."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set

from tvmlint.config import Settings, SettingsResolver
from tvmlint.diagnostics import Finding
from tvmlint.discovery import discover
from tvmlint.engine import FileResult, analyze_text, module_name_for, parse_error, syntax_check
from tvmlint.knowledge import get_knowledge
from tvmlint.noqa import is_suppressed
from tvmlint.project import Project
from tvmlint.source import decode


@dataclass
class RunReport:
    findings: List[Finding] = field(default_factory=list)
    files_seen: int = 0
    files_analysed: int = 0
    notes: List[str] = field(default_factory=list)


def display_path(path: Path, cwd: Path) -> str:
    try:
        return str(path.resolve().relative_to(cwd))
    except ValueError:
        return str(path)


def prefilter_tokens(settings: Settings) -> frozenset:
    """Words without which no TVM name can appear in a file: the roots of every known API."""
    knowledge = get_knowledge(settings.target_version)
    return frozenset(api.split(".")[0] for api in knowledge.api_prefixes()) | {"tvm"}


@dataclass
class _Pending:
    path: Path
    shown: str
    settings: Settings
    text: str


def _judges() -> Dict[str, object]:
    from tvmlint.checks import all_rules

    return {code: cls.judge for code, cls in all_rules().items() if "judge" in cls.__dict__}


def _analyse(item: _Pending) -> FileResult:
    module_name, is_package = module_name_for(item.path)
    return analyze_text(
        item.text, item.shown, item.settings.codes_for(item.path), item.settings.target_version,
        module_name, is_package,
    )


def check_paths(paths: Sequence[Path], resolver: SettingsResolver) -> RunReport:
    report = RunReport()
    cwd = resolver.cwd
    found = discover(paths, lambda p: resolver.for_path(p).is_excluded(p))
    report.notes.extend(found.problems)
    results: List[FileResult] = []
    waiting: List[_Pending] = []
    for path in found.files:
        report.files_seen += 1
        settings = resolver.for_path(path)
        shown = display_path(path, cwd)
        try:
            data = path.read_bytes()
        except OSError as error:
            result = FileResult(shown, "", settings.target_version, settings.codes_for(path))
            result.findings = parse_error(shown, result.codes, 1, 1, f"The file could not be read: {error.strerror}")
            results.append(result)
            continue
        source, why = decode(data)
        if source is None:
            result = FileResult(shown, "", settings.target_version, settings.codes_for(path))
            result.findings = parse_error(shown, result.codes, 1, 1, f"The file could not be decoded: {why}")
            results.append(result)
            continue
        item = _Pending(path, shown, settings, source.text)
        if any(token in source.text for token in prefilter_tokens(settings)):
            results.append(_analyse(item))
            report.files_analysed += 1
        else:
            waiting.append(item)
    # Files with no TVM name can still call a project helper that runs gated passes:
    # check those whose text names such a helper, until no new one turns up.
    while waiting:
        names = {name.rsplit(".", 1)[-1] for name in Project(results).sensitive_functions()}
        if not names:
            break
        picked = [item for item in waiting if any(name in item.text for name in names)]
        if not picked:
            break
        waiting = [item for item in waiting if item not in picked]
        for item in picked:
            results.append(_analyse(item))
            report.files_analysed += 1
    for item in waiting:
        result = FileResult(item.shown, "", item.settings.target_version, item.settings.codes_for(item.path))
        result.findings = syntax_check(item.text, item.shown, result.codes)
        results.append(result)
    report.findings = finalize(results)
    return report


def finalize(results: Sequence[FileResult]) -> List[Finding]:
    """Judge deferred findings across the project, apply selection and noqa, sort."""
    project = Project(results)
    judged = project.findings(_judges())
    findings: List[Finding] = []
    for result in results:
        for finding in list(result.findings) + judged.get(result.path, []):
            if finding.code not in result.codes:
                continue
            if is_suppressed(result.noqa, finding.start.line, finding.code):
                continue
            findings.append(finding)
    findings.sort(key=lambda f: f.sort_key)
    return findings


def check_text(text: str, path: Path, settings: Settings, shown: Optional[str] = None) -> List[Finding]:
    """One buffer on its own (stdin, the editor): contexts are followed within it."""
    shown = shown or str(path)
    module_name, is_package = module_name_for(path)
    result = analyze_text(text, shown, settings.codes_for(path), settings.target_version, module_name, is_package)
    return finalize([result])
