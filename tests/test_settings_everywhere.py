"""Settings that hold however a file arrives, through the command line: force-exclude (named
files, --stdin-filename), exclude vs extend-exclude, .gitignore and friends in a real git
repository, noqa read from comments, unused noqa (TVM002) and --add-noqa, extend-ignore,
fixable/unfixable, --per-file-ignores, --show-settings and --show-files. The command's main runs
in the test's process (helpers.run_main); the run handed to a daemon is a process of its own."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

from helpers import run_cli, run_main, write_tree

SILENT = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
DEPRECATED = 'import tvm\nfrom tvm import relay\n\nwith relay.build_config(opt_level=3):\n    lib = relay.build(mod, target="llvm")\n'
CONFIG = '[tool.tvmlint]\ntarget-version = "0.19"\n'
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def reported(result) -> list:
    """The files of a `--format json` run's findings."""
    assert result.returncode in (0, 1), result.stderr
    return sorted({finding["path"] for finding in json.loads(result.stdout)})


def files(result) -> list:
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


# -- exclude, extend-exclude, force-exclude --------------------------------------------------


def test_force_exclude_leaves_out_named_files_and_stdin(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": CONFIG + 'extend-exclude = ["generated", "legacy/old_*.py"]\n',
        "generated/g.py": SILENT, "legacy/old_a.py": SILENT, "src/s.py": SILENT,
    })
    named = ["generated/g.py", "legacy/old_a.py", "src/s.py"]
    # walking never reaches them; named, they are checked unless force-exclude says otherwise
    assert reported(run_main("check", "--format", "json", cwd=tmp_path)) == ["src/s.py"]
    assert reported(run_main("check", "--format", "json", *named, cwd=tmp_path)) == sorted(named)
    assert reported(run_main("check", "--format", "json", "--force-exclude", *named, cwd=tmp_path)) == ["src/s.py"]
    # a named directory inside an excluded one is left out too
    assert reported(run_main("check", "--format", "json", "--force-exclude", "generated", cwd=tmp_path)) == []
    # --stdin-filename, as editors and formatters call it
    stdin = run_main("check", "--format", "json", "--force-exclude", "--stdin-filename", "generated/g.py", "-",
                    stdin=SILENT, cwd=tmp_path)
    assert stdin.returncode == 0 and json.loads(stdin.stdout) == []
    stdin = run_main("check", "--format", "json", "--stdin-filename", "generated/g.py", "-", stdin=SILENT, cwd=tmp_path)
    assert stdin.returncode == 1 and json.loads(stdin.stdout)[0]["code"] == "TVM101"
    # `fix` on stdin gives an excluded buffer back unchanged
    fixed = run_main("fix", "--force-exclude", "--stdin-filename", "generated/g.py", "-", stdin=DEPRECATED, cwd=tmp_path)
    assert fixed.returncode == 0 and fixed.stdout == DEPRECATED

    # the setting in pyproject.toml, and the flag that turns it off again
    (tmp_path / "pyproject.toml").write_text(CONFIG + 'extend-exclude = ["generated"]\nforce-exclude = true\n')
    assert reported(run_main("check", "--format", "json", "generated/g.py", "src/s.py", cwd=tmp_path)) == ["src/s.py"]
    both = run_main("check", "--format", "json", "--no-force-exclude", "generated/g.py", "src/s.py", cwd=tmp_path)
    assert reported(both) == ["generated/g.py", "src/s.py"]


def test_exclude_replaces_the_defaults_and_extend_exclude_adds_to_them(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "build/b.py": SILENT, "gen/g.py": SILENT, "src/s.py": SILENT})
    assert files(run_main("check", "--show-files", cwd=tmp_path)) == ["gen/g.py", "src/s.py"]
    (tmp_path / "pyproject.toml").write_text(CONFIG + 'extend-exclude = ["gen"]\n')
    assert files(run_main("check", "--show-files", cwd=tmp_path)) == ["src/s.py"]
    # `exclude` replaces the default list (build/, .venv, ...), as in ruff
    (tmp_path / "pyproject.toml").write_text(CONFIG + 'exclude = ["gen"]\n')
    assert files(run_main("check", "--show-files", cwd=tmp_path)) == ["build/b.py", "src/s.py"]


# -- .gitignore ------------------------------------------------------------------------------


def git(*args: str, cwd: Path, env=None) -> None:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **GIT_ENV, **(env or {})})
    assert done.returncode == 0, done.stderr


def test_gitignore_files_are_respected_in_a_git_repository(tmp_path):
    root = tmp_path / "repo"
    write_tree(root, {
        "pyproject.toml": CONFIG,
        ".gitignore": "ignored/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\n",
        "ignored/a.py": SILENT, "msg_pb2.py": SILENT, "keep_pb2.py": SILENT, "top_only.py": SILENT,
        "pkg/top_only.py": SILENT,  # `/top_only.py` is anchored at the .gitignore's directory
        "pkg/.gitignore": "local.py\n",
        "pkg/local.py": SILENT, "other/local.py": SILENT,
        "pkg/.ignore": "scratch.py\n", "pkg/scratch.py": SILENT,
        "info.py": SILENT, "global.py": SILENT, "src/s.py": SILENT,
    })
    git("init", "-q", cwd=root)
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("info.py\n")
    # git's global excludes file, through a global git config of the test's own
    (tmp_path / "global-ignore").write_text("global.py\n")
    (tmp_path / "gitconfig").write_text(f"[core]\n\texcludesFile = {tmp_path / 'global-ignore'}\n")
    env = {"GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig")}
    expected = ["keep_pb2.py", "other/local.py", "pkg/top_only.py", "src/s.py"]
    assert files(run_main("check", "--show-files", cwd=root, env=env)) == expected
    # git agrees on what it ignores
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "*.py"], cwd=root, capture_output=True,
                            text=True, env={**os.environ, **env}).stdout.split()
    assert sorted(set(listed) - {"pkg/scratch.py"}) == expected
    assert reported(run_main("check", "--format", "json", cwd=root, env=env)) == expected
    everything = sorted(expected + ["global.py", "ignored/a.py", "info.py", "msg_pb2.py", "pkg/local.py",
                                    "pkg/scratch.py", "top_only.py"])
    assert files(run_main("check", "--show-files", "--no-respect-gitignore", cwd=root, env=env)) == everything
    (root / "pyproject.toml").write_text(CONFIG + "respect-gitignore = false\n")
    assert files(run_main("check", "--show-files", cwd=root, env=env)) == everything
    # a file git ignores is still checked when named (only exclude patterns and force-exclude leave it out)
    (root / "pyproject.toml").write_text(CONFIG)
    assert reported(run_main("check", "--format", "json", "msg_pb2.py", cwd=root, env=env)) == ["msg_pb2.py"]


def test_gitignore_outside_a_repository_is_not_read_but_ignore_is(tmp_path):
    # as ruff and ripgrep: an exported tree (no .git) keeps its files; `.ignore` counts anywhere
    write_tree(tmp_path, {"pyproject.toml": CONFIG, ".gitignore": "a.py\n", ".ignore": "b.py\n",
                          "a.py": SILENT, "b.py": SILENT})
    assert files(run_main("check", "--show-files", cwd=tmp_path)) == ["a.py"]


# -- noqa ------------------------------------------------------------------------------------


def test_noqa_inside_a_string_does_not_suppress(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "a.py": (
        "import tvm\nfrom tvm import relay\n"
        'a = relay.transform.FoldScaleAxis()(mod); s = "# noqa: TVM101"\n'
        "b = relay.transform.FoldScaleAxis()(mod)  # a comment  # noqa: TVM101\n"
        'c = relay.transform.FoldScaleAxis()(mod); t = """\n# noqa\n"""\n'
    )})
    result = run_main("check", "--format", "json", cwd=tmp_path)
    assert [(f["line"], f["code"]) for f in json.loads(result.stdout)] == [(3, "TVM101"), (5, "TVM101")]


def test_unused_noqa_is_reported_and_fixed(tmp_path):
    source = (
        "import tvm\nfrom tvm import relay\n"
        "a = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101, TVM103\n"
        "with tvm.transform.PassContext(opt_level=3):  # noqa: TVM303\n    pass\n"
        "x = 1  # noqa: E501\n"
    )
    write_tree(tmp_path, {"pyproject.toml": CONFIG + 'extend-select = ["TVM002"]\n', "a.py": source})
    result = run_main("check", "--format", "json", cwd=tmp_path)
    found = [(f["line"], f["code"], f["fix"]["applicability"]) for f in json.loads(result.stdout)]
    assert found == [(3, "TVM002", "safe"), (4, "TVM002", "safe")]
    fixed = run_main("check", "--fix", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (tmp_path / "a.py").read_text() == source.replace(", TVM103", "").replace("  # noqa: TVM303", "")
    assert run_main("check", cwd=tmp_path).returncode == 0


def test_add_noqa_writes_merges_and_is_idempotent(tmp_path):
    source = (
        "import tvm\nfrom tvm import relay\n"
        "a = relay.transform.FoldScaleAxis()(mod)\n"
        "b = relay.transform.FoldScaleAxis()(mod)  # noqa: E501\n"
        "with tvm.transform.PassContext(opt_level=9):\n    c = relay.transform.FoldScaleAxis()(mod)  # why\n"
    )
    write_tree(tmp_path, {"pyproject.toml": CONFIG + 'extend-select = ["TVM002"]\n', "a.py": source})
    path = tmp_path / "a.py"
    path.chmod(0o640)
    first = run_main("check", "--add-noqa", cwd=tmp_path)
    assert first.returncode == 0 and "Added 3 noqa directives." in first.stderr, first.stderr
    expected = source.replace("(mod)\nb", "(mod)  # noqa: TVM101\nb").replace("E501", "E501, TVM101").replace(
        "opt_level=9):", "opt_level=9):  # noqa: TVM303")
    assert path.read_text() == expected
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # the atomic writer keeps the permissions
    # nothing left to report (TVM002 finds every new directive used), and a second run adds nothing
    assert run_main("check", cwd=tmp_path).returncode == 0
    second = run_main("check", "--add-noqa", cwd=tmp_path)
    assert second.returncode == 0 and "Added 0 noqa directives." in second.stderr
    assert path.read_text() == expected


# -- selection and fix settings --------------------------------------------------------------


def test_extend_ignore_per_file_ignores_flag_and_unfixable(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "tests/t.py": SILENT, "src/s.py": SILENT, "job.py": DEPRECATED})
    codes = lambda *flags: sorted((f["path"], f["code"]) for f in json.loads(run_main("check", "--format", "json", *flags, cwd=tmp_path).stdout))
    everything = [("job.py", "TVM202"), ("src/s.py", "TVM101"), ("tests/t.py", "TVM101")]
    assert codes() == everything
    assert codes("--extend-ignore", "TVM202") == everything[1:]
    assert codes("--per-file-ignores", "tests/*:TVM101") == everything[:2]
    assert codes("--per-file-ignores", "tests/*:TVM101", "--per-file-ignores", "src/*:TVM1") == everything[:1]
    (tmp_path / "pyproject.toml").write_text(CONFIG + 'extend-ignore = ["TVM202"]\nper-file-ignores = { "src/*" = ["TVM101"] }\n')
    assert codes() == [("tests/t.py", "TVM101")]
    # the flag replaces the file's table; --extend-per-file-ignores adds to it
    assert codes("--per-file-ignores", "tests/*:TVM101") == [("src/s.py", "TVM101")]
    assert codes("--extend-per-file-ignores", "tests/*:TVM101") == []
    bad = run_main("check", "--per-file-ignores", "tests/*", cwd=tmp_path)
    assert bad.returncode == 2 and "expected PATTERN:CODES" in bad.stderr

    # unfixable: the finding stays, its fix is neither offered nor applied
    (tmp_path / "pyproject.toml").write_text(CONFIG + 'unfixable = ["TVM202"]\n')
    [finding] = [f for f in json.loads(run_main("check", "--format", "json", "job.py", cwd=tmp_path).stdout)]
    assert finding["code"] == "TVM202" and finding["fix"] is None
    run_main("check", "--fix", "job.py", cwd=tmp_path)
    assert (tmp_path / "job.py").read_text() == DEPRECATED
    # unfixable wins over fixable, as in ruff
    run_main("fix", "--fixable", "TVM202", "job.py", cwd=tmp_path)
    assert (tmp_path / "job.py").read_text() == DEPRECATED
    (tmp_path / "pyproject.toml").write_text(CONFIG + 'fixable = ["TVM1"]\n')
    run_main("fix", "job.py", cwd=tmp_path)
    assert (tmp_path / "job.py").read_text() == DEPRECATED
    run_main("fix", "--extend-fixable", "TVM202", "job.py", cwd=tmp_path)
    assert "tvm.transform.PassContext" in (tmp_path / "job.py").read_text()


def test_show_settings_names_where_each_value_came_from(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": CONFIG + 'extend-ignore = ["TVM102"]\nforce-exclude = true\nextend-exclude = ["gen"]\n',
        "gen/g.py": SILENT,
    })
    result = run_main("check", "--show-settings", "gen/g.py", "--unfixable", "TVM202", "--per-file-ignores", "gen/*:TVM101",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    config = str(tmp_path / "pyproject.toml")
    lines = {line.split(" = ")[0]: line for line in result.stdout.splitlines() if " = " in line}
    assert lines["target-version"].endswith(f"# target-version in {config}")
    assert '["TVM102"]' in lines["ignore (with extend-ignore)"] and lines["ignore (with extend-ignore)"].endswith(config)
    assert lines["unfixable"].endswith("# --unfixable") and '"TVM202"' in lines["unfixable"]
    assert lines["per-file-ignores"].endswith("# --per-file-ignores")
    assert lines["select"].endswith("# default") and lines["respect-gitignore"].startswith("respect-gitignore = true")
    assert "TVM101" not in result.stdout.split("Rules checked in this file:")[1].splitlines()[0]
    assert "Excluded: skipped when walking; skipped when named too (force-exclude)" in result.stdout


def test_the_documented_configuration_is_valid_and_means_what_it_says(tmp_path):
    import re

    from helpers import REPO

    page = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(\[tool\.tvmlint\].*?)```", page, re.S).group(1)
    write_tree(tmp_path, {"pyproject.toml": block, "generated/g.py": SILENT, "src/s.py": SILENT})
    shown = run_main("check", "--show-settings", "generated/g.py", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "force-exclude = true" in shown.stdout and "skipped when named too" in shown.stdout
    assert files(run_main("check", "--show-files", cwd=tmp_path)) == ["src/s.py"]
    assert files(run_main("check", "--show-files", "generated/g.py", "src/s.py", cwd=tmp_path)) == ["src/s.py"]


def test_a_statement_continued_by_a_backslash_or_a_string_takes_its_noqa_where_it_ends(tmp_path):
    source = (
        "import tvm\nfrom tvm import relay\n"
        "a = relay.transform.FoldScaleAxis()(mod) + \\\n    1\n"
        'b = relay.transform.FoldScaleAxis()(mod); doc = """\nabout b\n"""\n'
    )
    write_tree(tmp_path, {"pyproject.toml": CONFIG + 'extend-select = ["TVM002"]\n', "a.py": source})
    added = run_main("check", "--add-noqa", cwd=tmp_path)
    assert "Added 2 noqa directives." in added.stderr, added.stderr
    text = (tmp_path / "a.py").read_text()
    assert text == source.replace("    1\n", "    1  # noqa: TVM101\n").replace('"""\n', '"""  # noqa: TVM101\n', 2).replace(
        'doc = """  # noqa: TVM101\n', 'doc = """\n')
    # both suppress their finding (reported on the line the statement starts), and neither is unused
    assert run_main("check", cwd=tmp_path).returncode == 0


# -- output-format ---------------------------------------------------------------------------


def test_output_format_in_pyproject_is_the_run_s_format_unless_a_flag_says_otherwise(tmp_path):
    # as ruff's `output-format`: read from the settings of the working directory
    write_tree(tmp_path, {"pyproject.toml": CONFIG + 'output-format = "json"\n', "pkg/m.py": SILENT})
    configured = run_main("check", ".", cwd=tmp_path)
    assert reported(configured) == ["pkg/m.py"]
    flagged = run_main("check", ".", "--format", "concise", cwd=tmp_path)
    assert flagged.returncode == 1 and flagged.stdout.startswith("pkg/m.py:3:")
    shown = run_main("check", "--show-settings", "pkg/m.py", cwd=tmp_path)
    line = next(line for line in shown.stdout.splitlines() if line.startswith("output-format = "))
    assert line.startswith('output-format = "json"') and line.endswith(f'# {tmp_path / "pyproject.toml"}')
    # through the daemon, the client's directory decides, not the daemon's
    daemon = run_cli("check", ".", "--daemon", cwd=tmp_path, env={"TVMLINT_DAEMON_DIR": str(tmp_path / "d")})
    assert reported(daemon) == ["pkg/m.py"]
    run_cli("daemon", "stop", cwd=tmp_path, env={"TVMLINT_DAEMON_DIR": str(tmp_path / "d")})


def test_an_unknown_output_format_is_a_configuration_error(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG + 'output-format = "grouped"\n', "m.py": SILENT})
    result = run_main("check", ".", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert "'output-format' must be" in result.stderr and "'grouped'" in result.stderr
