"""`--format json-lines`, `junit` and `gitlab` as their consumers read them: JSON per line,
JUnit XML through a real JUnit parser (junitparser), GitLab Code Quality against the
schema of GitLab's documented fields (tests/schemas/gitlab-codequality.schema.json)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers import run_main, write_tree
from junitparser import Failure, JUnitXml

FOLD = "mod = relay.transform.FoldScaleAxis()(mod)\n"
PROJECT = {
    "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\nselect = ["TVM101", "TVM103"]\n',
    "sub dir/job.py": "import tvm\nfrom tvm import relay\n\n" + FOLD + "relay.build_config(opt_level=3)\n",
    "other.py": "from tvm import relay\n" + FOLD,
    "clean.py": "import tvm\n",
}
GITLAB_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "gitlab-codequality.schema.json").read_text(encoding="utf-8"))


def _json(root: Path):
    done = run_main("check", "--format", "json", ".", cwd=root)
    assert done.returncode == 1, done.stderr
    return json.loads(done.stdout)


# -- json-lines ------------------------------------------------------------------------------

def test_json_lines_is_one_object_per_finding_with_the_json_fields(tmp_path):
    # a file name holding U+2028, which str.splitlines() takes for a line end: escaped in the JSON
    write_tree(tmp_path, {**PROJECT, "odd\u2028name.py": "from tvm import relay\n" + FOLD})
    done = run_main("check", "--format", "json-lines", ".", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert len(done.stdout.splitlines()) == 4
    lines = done.stdout.split("\n")
    assert lines[-1] == ""  # every line ends, the last too
    objects = [json.loads(line) for line in lines[:-1]]
    assert objects == _json(tmp_path)
    assert len(objects) == 4
    clean = run_main("check", "--format", "json-lines", "clean.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, "")


# -- junit -----------------------------------------------------------------------------------

def test_junit_has_a_suite_per_file_and_a_failing_case_per_finding(tmp_path):
    write_tree(tmp_path, PROJECT)
    findings = _json(tmp_path)
    done = run_main("check", "--format", "junit", ".", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    report = JUnitXml.fromstring(done.stdout.encode("utf-8"))
    suites = list(report)
    assert [suite.name for suite in suites] == ["other.py", "sub dir/job.py"]
    assert report.tests == report.failures == len(findings) == 3
    cases = [(suite, case) for suite in suites for case in suite]
    assert len(cases) == len(findings)
    for (suite, case), finding in zip(cases, findings):
        assert suite.name == finding["path"]
        assert suite.tests == suite.failures == sum(1 for f in findings if f["path"] == finding["path"])
        assert case.name == f"org.tvmlint.{finding['code']}"
        assert case.classname == finding["path"][: -len(".py")]
        [failure] = case.result
        assert isinstance(failure, Failure)
        assert failure.message == finding["message"]
        assert failure.text.startswith(f"line {finding['line']}, col {finding['column']}, {finding['code']} ")
        assert f"{finding['message']}\n\n{finding['detail']}" in failure.text  # the full view: the detail under it
        assert case._elem.get("line") == str(finding["line"]) and case._elem.get("column") == str(finding["column"])
        assert not case.is_passed


def test_junit_for_a_clean_run_is_one_passing_case(tmp_path):
    write_tree(tmp_path, PROJECT)
    done = run_main("check", "--format", "junit", "clean.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = JUnitXml.fromstring(done.stdout.encode("utf-8"))
    [suite] = list(report)
    [case] = list(suite)
    assert case.is_passed and report.tests == 1 and report.failures == 0


def test_junit_stays_well_formed_with_control_characters_and_undecodable_names(tmp_path):
    # a message quoting a key with an escape character, a file name that is not UTF-8
    write_tree(tmp_path, PROJECT)
    name = b"bad\xffname.py"
    (tmp_path / "sub dir").joinpath(__import__("os").fsdecode(name)).write_text(
        "from tvm import relay\n" + FOLD + 'relay.build_config(opt_level=3, config={"a\\x1bb": 1})\n', encoding="utf-8")
    done = run_main("check", "--format", "junit", ".", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    report = JUnitXml.fromstring(done.stdout.encode("utf-8", "surrogateescape"))
    names = [suite.name for suite in report]
    assert any(name.startswith("sub dir/bad") for name in names)


# -- gitlab ----------------------------------------------------------------------------------

def validate(report) -> None:
    validator_class = jsonschema.validators.validator_for(GITLAB_SCHEMA)
    validator_class.check_schema(GITLAB_SCHEMA)
    errors = sorted(validator_class(GITLAB_SCHEMA).iter_errors(report), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def _gitlab(root: Path, *args: str, env=None):
    done = run_main("check", "--format", "gitlab", *args, cwd=root, env=env)
    raw = done.stdout.encode("utf-8")
    assert not raw.startswith(b"\xef\xbb\xbf")  # GitLab's parser refuses a byte order mark
    return done, json.loads(done.stdout)


def test_gitlab_code_quality_report_validates(tmp_path):
    write_tree(tmp_path, PROJECT)
    findings = _json(tmp_path)
    done, report = _gitlab(tmp_path, ".")
    assert done.returncode == 1, done.stderr
    validate(report)
    assert len(report) == len(findings) == 3
    for issue, finding in zip(report, findings):
        assert issue["check_name"] == finding["code"]
        assert issue["description"] == f"{finding['code']}: {finding['message']}"
        assert finding["detail"] and issue["content"] == {"body": finding["detail"]}
        assert issue["severity"] == {"error": "major", "warning": "minor", "info": "info"}[finding["severity"]]
        assert issue["location"]["path"] == finding["path"]
        assert issue["location"]["lines"] == {"begin": finding["line"], "end": finding["end_line"]}
    assert len({issue["fingerprint"] for issue in report}) == len(report)
    clean = _gitlab(tmp_path, "clean.py")[1]
    assert clean == []
    validate(clean)


def test_gitlab_fingerprints_are_stable_and_unique(tmp_path):
    write_tree(tmp_path, {**PROJECT, "twice.py": "from tvm import relay\n" + FOLD + FOLD})
    _, first = _gitlab(tmp_path, ".")
    _, again = _gitlab(tmp_path, ".", "--no-cache")
    assert [i["fingerprint"] for i in first] == [i["fingerprint"] for i in again]
    # two findings alike in the same file still get two fingerprints
    twice = [i["fingerprint"] for i in first if i["location"]["path"] == "twice.py"]
    assert len(twice) == 2 and len(set(twice)) == 2
    # code moved down by lines added above it: the same findings, the same fingerprints
    job = tmp_path / "sub dir" / "job.py"
    job.write_text("# a new header\n\n" + job.read_text(encoding="utf-8"), encoding="utf-8")
    _, moved = _gitlab(tmp_path, ".")
    before = {i["fingerprint"]: i["location"]["lines"]["begin"] for i in first}
    after = {i["fingerprint"]: i["location"]["lines"]["begin"] for i in moved}
    assert before.keys() == after.keys()
    assert [after[f] - before[f] for f in before if f in {i["fingerprint"] for i in first if i["location"]["path"] == "sub dir/job.py"}] == [2, 2]


def test_gitlab_paths_are_relative_to_the_project_dir(tmp_path):
    write_tree(tmp_path, PROJECT)
    done, report = _gitlab(tmp_path / "sub dir", "job.py", env={"CI_PROJECT_DIR": str(tmp_path)})
    assert done.returncode == 1, done.stderr
    validate(report)
    assert {issue["location"]["path"] for issue in report} == {"sub dir/job.py"}


@pytest.mark.parametrize("fmt", ["json-lines", "junit", "gitlab"])
def test_each_format_goes_to_an_output_file(tmp_path, fmt):
    write_tree(tmp_path, PROJECT)
    expected = run_main("check", "--format", fmt, ".", cwd=tmp_path).stdout
    done = run_main("check", "--format", fmt, "-o", "report.out", ".", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert (tmp_path / "report.out").read_text(encoding="utf-8") == expected


def test_the_gitlab_schema_rejects_what_gitlab_would_not_read():
    good = {"description": "d", "check_name": "c", "fingerprint": "f", "severity": "major",
            "location": {"path": "a.py", "lines": {"begin": 1}}}
    validate([good])
    validate([{**good, "location": {"path": "a.py", "positions": {"begin": {"line": 3, "column": 1}}}}])
    for bad in (
        {**good, "severity": "error"},
        {**good, "location": {"path": "a.py"}},  # no line
        {**good, "location": {"path": "/abs/a.py", "lines": {"begin": 1}}},  # not relative
        {key: value for key, value in good.items() if key != "fingerprint"},
    ):
        with pytest.raises(AssertionError):
            validate([bad])
