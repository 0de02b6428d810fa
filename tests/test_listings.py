"""`tvmlint rules` and `tvmlint registry`: rich tables (the registry's Sequentials drawn as
trees) on a terminal, tab-separated plain text on a pipe, through the real command."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, drain_pty, run_cli, tvm_importable

from tvmlint.knowledge.catalog import load_catalog

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _on_a_terminal(args, cwd: Path, env=None) -> str:
    full = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    full.update({"TERM": "xterm-256color", "COLUMNS": "160", **(env or {})})
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tvmlint", *args], cwd=cwd, env=full,
                               stdin=subprocess.DEVNULL, stdout=terminal, stderr=subprocess.PIPE)
    os.close(terminal)
    raw = drain_pty(controller)
    assert process.wait(timeout=300) == 0, process.stderr.read()
    assert b"\x1b[" in raw  # styled
    return ANSI.sub(b"", raw).decode("utf-8").replace("\r\n", "\n")


# -- rules -------------------------------------------------------------------------------------

def test_rules_on_a_pipe_is_one_tab_separated_line_per_rule():
    done = run_cli("rules", cwd=REPO)
    assert done.returncode == 0 and done.stderr == ""
    catalog = load_catalog()
    header, *rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert header == ["code", "name", "severity", "fix_availability", "fix_safety", "default", "summary"]
    assert [row[0] for row in rows] == list(catalog)
    assert [dict(row) for row in csv.DictReader(io.StringIO(done.stdout), delimiter="\t")][0]["code"] == "TVM001"
    for code, name, severity, availability, safety, default, summary in rows:
        info = catalog[code]
        assert (name, severity, availability, safety, default, summary) == (
            info.name, info.severity, info.fix_availability, info.fix_safety or "-", "yes" if info.default else "no",
            info.summary)
    assert "\x1b" not in done.stdout


@pytest.mark.parametrize("columns", [80, 160])
def test_rules_on_a_terminal_is_a_table_that_reads_at_80_columns(columns):
    shown = _on_a_terminal(["rules"], REPO, {"COLUMNS": str(columns)})
    lines = shown.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= columns
    assert re.match(r"code +severity +fix +safety +default +name and summary", lines[0])
    rows = "\n".join(lines[1:])
    for info in load_catalog().values():
        # the short columns and the name on the rule's first line, then its summary whole, wrapped
        # in the last column (words in order, nothing cut)
        fix = f"{info.fix_availability} +{re.escape(info.fix_safety or '-')}"
        default = "yes" if info.default else "no"
        found = re.search(rf"^{info.code} +{info.severity} +{fix} +{default} +{re.escape(info.name)} *$", rows, re.M)
        assert found, info.code
        after = rows[found.end():].split("\nTVM", 1)[0]
        assert " ".join(after.split()) == info.summary, info.code


def test_rules_as_json():
    data = json.loads(run_cli("rules", "--format", "json", cwd=REPO).stdout)
    assert [row["code"] for row in data] == list(load_catalog())
    assert data[[row["code"] for row in data].index("TVM101")] == {
        "code": "TVM101", "name": "gated-pass-skipped", "severity": "error", "fix_availability": "sometimes",
        "fix_safety": "unsafe", "default": True, "summary": load_catalog()["TVM101"].summary}
    assert data[[row["code"] for row in data].index("TVM303")]["fix_safety"] is None


# -- registry (the installed TVM's live passes) ---------------------------------------------------

needs_tvm = pytest.mark.skipif(not tvm_importable(), reason="apache-tvm is not importable (pip install -e '.[test]')")


@pytest.mark.tvm
@needs_tvm
def test_registry_listing_is_a_tree_table_on_a_terminal_and_tab_separated_on_a_pipe(tmp_path):
    env = {"TVMLINT_CACHE_DIR": str(tmp_path / "cache")}
    args = ["registry", "--opt-level", "0", "--pass", "FuseTIR"]
    piped = run_cli(*args, cwd=tmp_path, env=env)
    assert piped.returncode == 0, piped.stderr
    lines = piped.stdout.splitlines()
    header = lines.index("API\tname\tkind\topt_level\trequired\tat opt_level 0")
    rows = []
    for line in lines[header + 1:]:
        if not line:
            break
        rows.append(line.split("\t"))
    assert all(len(row) == 6 for row in rows)
    assert rows[0][:3] == ["tvm.relax.transform.FuseTIR", "FuseTIR", "sequential"]
    members = {row[1]: row for row in rows[1:]}
    assert all(row[0].lstrip().startswith("\u2514 (member)") for row in rows[1:])
    # members of a member are indented one level further
    assert members["CanonicalizeTIRVariables"][0].startswith("    ") and members["ExpandTupleArguments"][0].startswith("  \u2514")
    assert members["CanonicalizeTIRVariables"][5] == "skipped"
    assert "\x1b" not in piped.stdout

    shown = _on_a_terminal(args, tmp_path, env)
    table = shown.splitlines()
    top = next(line for line in table if line.startswith("tvm.relax.transform.FuseTIR "))
    assert re.search(r"│ FuseTIR +│ sequential +│ +0 │ - +│ runs", top)
    # each member on a branch of the tree, with its state at the setting
    for name, state in ((name, row[5]) for name, row in members.items()):
        assert any(re.match(rf"[│ ]*[├└]─ {name} +│ +│ \w+ +│ +\d │ .+│ {re.escape(state)}", line) for line in table), name
    assert any(line.startswith("│  ├─ CanonicalizeBindings") or line.startswith("│  └─ CanonicalizeBindings") for line in table)
