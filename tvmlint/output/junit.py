"""JUnit XML, for CI test-report views (GitLab, Jenkins, Azure, GitHub test reporters).

As ruff writes it: one <testsuite> per file with findings, one <testcase> per finding
(named after the rule, its classname the file without `.py`, with `line` and `column`
attributes) holding a <failure>. A clean run is one suite with one passing case, so
the report shows that the check ran.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby
from typing import Sequence, TextIO

from tvmlint.base.diagnostics import Finding
from tvmlint.output.safe import printable, printable_path

PACKAGE = "org.tvmlint"

# XML 1.0 allows neither most C0 controls (printable() escapes those) nor lone surrogates
# (a file name that is not UTF-8): written as their escapes.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def _text(text: str) -> str:
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _classname(path: str) -> str:
    return path[:-3] if path.endswith(".py") else path


def report(findings: Sequence[Finding]) -> ET.Element:
    suites = ET.Element("testsuites", name="tvmlint", tests=str(max(1, len(findings))),
                        failures=str(len(findings)), errors="0")
    if not findings:
        suite = ET.SubElement(suites, "testsuite", name="tvmlint", tests="1", disabled="0", errors="0",
                              failures="0", package=PACKAGE)
        ET.SubElement(suite, "testcase", name="No findings", classname="tvmlint")
        return suites
    for path, group in groupby(findings, key=lambda f: f.path):
        group = list(group)
        shown = _text(printable_path(path))
        suite = ET.SubElement(suites, "testsuite", name=shown, tests=str(len(group)), disabled="0", errors="0",
                              failures=str(len(group)), package=PACKAGE)
        for finding in group:
            case = ET.SubElement(suite, "testcase", name=f"{PACKAGE}.{finding.code}", classname=_classname(shown),
                                 line=str(finding.start.line), column=str(finding.start.column))
            message = _text(printable(finding.message))
            failure = ET.SubElement(case, "failure", message=message, type=finding.severity)
            cell = "" if finding.cell is None else f"cell {finding.cell}, "
            text = f"{cell}line {finding.start.line}, col {finding.start.column}, {finding.code} {message}"
            if finding.detail:  # the failure's body is the report's full view: why it matters, what to do
                text += f"\n\n{_text(printable(finding.detail))}"
            if finding.fix is not None:
                text += f"\n\nfix ({finding.fix.applicability}): {_text(printable(finding.fix.message))}"
            failure.text = text
    return suites


def render(findings: Sequence[Finding], files: int, stream: TextIO, **_: object) -> None:
    root = report(findings)
    ET.indent(root, space="    ")
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(ET.tostring(root, encoding="unicode"))
    stream.write("\n")
