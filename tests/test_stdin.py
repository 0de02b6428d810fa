"""`tvmlint check --stdin-filename PATH -`: the source from stdin, PATH for the settings and the messages."""

from __future__ import annotations

import json

from helpers import REPO, run_cli, write_tree

from tvmlint.knowledge.catalog import load_catalog

SILENT_FOLD = "import tvm\nfrom tvm import relay\n\nmod = relay.transform.FoldScaleAxis()(mod)\n"
PROJECT = {
    "relay_job/pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\nper-file-ignores = { "tests/*" = ["TVM101"] }\n',
    "relax_job/pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.27"\nselect = ["TVM1"]\n',
}


def codes(stdout: str):
    return [finding["code"] for finding in json.loads(stdout)]


def test_the_path_picks_the_settings_and_names_the_file(tmp_path):
    write_tree(tmp_path, PROJECT)
    # neither file exists: only the path matters
    relay = run_cli("check", "--format", "json", "--stdin-filename", "relay_job/jobs/a.py", "-", cwd=tmp_path, stdin=SILENT_FOLD)
    assert relay.returncode == 1, relay.stderr
    [finding] = json.loads(relay.stdout)
    assert (finding["code"], finding["path"], finding["line"], finding["column"]) == ("TVM101", "relay_job/jobs/a.py", 4, 7)
    # 0.27 has no Relay: the relay table does not apply there
    relax = run_cli("check", "--format", "json", "--stdin-filename", "relax_job/a.py", "-", cwd=tmp_path, stdin=SILENT_FOLD)
    assert relax.returncode == 0 and codes(relax.stdout) == [], relax.stdout
    # per-file-ignores match the given path
    ignored = run_cli("check", "--format", "json", "--stdin-filename", "relay_job/tests/t.py", "-", cwd=tmp_path, stdin=SILENT_FOLD)
    assert codes(ignored.stdout) == []


def test_text_output_quotes_the_line_from_stdin(tmp_path):
    write_tree(tmp_path, PROJECT)
    # a different file of that name on disk must not be quoted
    write_tree(tmp_path, {"relay_job/a.py": "# on disk\n" * 10})
    result = run_cli("check", "--stdin-filename", "relay_job/a.py", "-", cwd=tmp_path, stdin=SILENT_FOLD, env={"NO_COLOR": "1"})
    assert result.returncode == 1
    assert "relay_job/a.py\n" in result.stdout
    assert "   4 | mod = relay.transform.FoldScaleAxis()(mod)" in result.stdout
    assert "# on disk" not in result.stdout


def test_dash_alone_uses_the_working_directory_settings(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n'})
    result = run_cli("check", "--format", "concise", "-", cwd=tmp_path, stdin=SILENT_FOLD)
    assert result.returncode == 1
    assert result.stdout.startswith("-:4:7: TVM101 ")


def test_stdin_filename_without_dash_reads_stdin(tmp_path):
    write_tree(tmp_path, PROJECT)
    result = run_cli("check", "--format", "json", "--stdin-filename", "relay_job/a.py", cwd=tmp_path, stdin=SILENT_FOLD)
    assert codes(result.stdout) == ["TVM101"]


def test_clean_input_and_exit_zero(tmp_path):
    write_tree(tmp_path, PROJECT)
    clean = run_cli("check", "--stdin-filename", "relay_job/a.py", "-", cwd=tmp_path, stdin="import tvm\n")
    assert clean.returncode == 0 and "All checks passed (1 file checked)." in clean.stdout
    forced = run_cli("check", "--exit-zero", "--stdin-filename", "relay_job/a.py", "-", cwd=tmp_path, stdin=SILENT_FOLD)
    assert forced.returncode == 0 and "TVM101" in forced.stdout


def test_bad_input_and_bad_usage(tmp_path):
    write_tree(tmp_path, PROJECT)
    broken = run_cli("check", "--format", "concise", "--stdin-filename", "relay_job/a.py", "-", cwd=tmp_path,
                     stdin="def broken(:\n")
    assert broken.returncode == 1 and "TVM001" in broken.stdout and "Traceback" not in broken.stderr
    mixed = run_cli("check", "-", "relay_job", cwd=tmp_path, stdin=SILENT_FOLD)
    assert mixed.returncode == 2
    assert mixed.stderr.strip() == "tvmlint: error: `-` (read stdin) cannot be combined with other paths"


def test_undecodable_bytes_are_a_finding_not_a_crash(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "tvmlint", "check", "--format", "concise", "--stdin-filename", "x.py", "-"],
                          input=b"# -*- coding: latin-9000 -*-\nx = 1\n", capture_output=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 1, done.stderr
    assert done.stdout.decode().startswith("x.py:1:1: TVM001 The input could not be decoded")


def test_rules_listing_matches_the_catalog():
    listing = run_cli("rules", cwd=REPO)
    assert listing.returncode == 0
    rows = {line.split()[0]: line.split()[:6] for line in listing.stdout.splitlines()[1:]}
    catalog = load_catalog()
    assert set(rows) == set(catalog)
    for code, info in catalog.items():
        assert rows[code] == [code, info.name, info.severity, info.fix_availability, info.fix_safety or "-",
                              "yes" if info.default else "no"]
    header = listing.stdout.splitlines()[0].split()
    assert header[:6] == ["code", "name", "severity", "fix_availability", "fix_safety", "default"]


def test_text_output_quotes_the_right_line_after_a_form_feed(tmp_path):
    write_tree(tmp_path, PROJECT)
    paged = SILENT_FOLD.replace("\nmod = ", "\n\x0c\nmod = ")
    result = run_cli("check", "--stdin-filename", "relay_job/a.py", "-", cwd=tmp_path, stdin=paged, env={"NO_COLOR": "1"})
    assert "   5 | mod = relay.transform.FoldScaleAxis()(mod)" in result.stdout, result.stdout
