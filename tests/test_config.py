"""[tool.tvmlint] settings: hierarchy, selection, per-file ignores, errors."""

from __future__ import annotations

import pytest
from helpers import check_tree, run_main, write_tree

from tvmlint.base.versions import format_version
from tvmlint.run.config import Overrides, SettingsResolver, default_target

SILENT = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
BUILD = "import tvm\nfrom tvm import relay\nlib = relay.build(mod, 'llvm')\n"


def test_nearest_pyproject_wins(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n',
        "old/pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.8"\nignore = ["TVM101"]\n',
        "old/a.py": SILENT,
        "new/pyproject.toml": '[project]\nname = "x"\n',  # no [tool.tvmlint]: keep looking up
        "new/a.py": SILENT,
    })
    resolver = SettingsResolver(Overrides(), cwd=tmp_path)
    assert resolver.for_path(tmp_path / "old" / "a.py").target_text == "0.8"
    assert resolver.for_path(tmp_path / "new" / "a.py").target_text == "0.19"
    result = run_main("check", "--format", "concise", cwd=tmp_path)
    assert result.stdout.splitlines()[0].startswith("new/a.py:3:7: TVM101")
    assert "old/a.py" not in result.stdout


def test_cli_flags_override_the_file(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\nignore = ["TVM101"]\n', "a.py": SILENT})
    assert run_main("check", cwd=tmp_path).returncode == 0
    # as ruff's: --select replaces the configured selection, its ignore with it
    assert run_main("check", "--select", "TVM101", cwd=tmp_path).returncode == 1
    assert run_main("check", "--extend-select", "TVM101", cwd=tmp_path).returncode == 1  # a later layer adds it back
    other = tmp_path / "other.toml"
    other.write_text('[tool.tvmlint]\ntarget-version = "0.19"\n')
    assert run_main("check", "--config", str(other), cwd=tmp_path).returncode == 1


def test_selection_prefixes_and_defaults(tmp_path):
    files = {"a.py": SILENT + BUILD.split("\n", 2)[2]}
    codes = lambda **kw: sorted({f.code for f in check_tree(tmp_path, files, **kw)})
    assert codes() == ["TVM101"]  # TVM108 is off by default
    assert codes(extend_select=["TVM108"]) == ["TVM101", "TVM108"]
    assert codes(select=["TVM10"]) == ["TVM101", "TVM108"]
    assert codes(select=["ALL"]) == ["TVM101", "TVM108"]


def test_per_file_ignores_and_exclude(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n'
        'per-file-ignores = { "tests/*" = ["TVM101"] }\nexclude = ["generated"]\n',
        "tests/t.py": SILENT, "generated/g.py": SILENT, "src/s.py": SILENT,
    })
    result = run_main("check", "--format", "concise", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines()[:-1]] == ["src/s.py"]


@pytest.mark.parametrize("body, message", [
    ('[tool.tvmlint]\ntarget-versoin = "0.19"\n', "unknown key 'target-versoin'"),
    ('[tool.tvmlint]\nselect = "TVM101"\n', "'select' must be a list of rule codes"),
    ('[tool.tvmlint]\nselect = ["TVM9"]\n', "unknown rule code 'TVM9'"),
    ('[tool.tvmlint]\ntarget-version = 0.19\n', "expected a TVM release string"),
    ('[tool.tvmlint]\ntarget-version = "9.1"\n', "not a release tvmlint knows"),
    ('[tool.tvmlint\n', "not valid TOML"),
])
def test_bad_config_names_file_and_key(tmp_path, body, message):
    write_tree(tmp_path, {"pyproject.toml": body, "a.py": SILENT})
    result = run_main("check", cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and "pyproject.toml" in result.stderr
    assert "Traceback" not in result.stderr


def test_default_target_is_the_installed_tvm():
    version, source = default_target()
    try:
        from importlib.metadata import version as installed

        expected = installed("apache-tvm")
    except Exception:
        assert "newest release" in source
        return
    assert expected.startswith(format_version(version))
    assert "installed apache-tvm" in source


@pytest.mark.parametrize("given, message", [("nowhere.toml", "no such file"), (".", "not a regular file"), ("/dev/null", "not a regular file")])
def test_a_config_path_that_is_no_file_says_what_it_is(tmp_path, given, message):
    """`--config .` and `--config /dev/null` were "no such file", though both exist."""
    write_tree(tmp_path, {"a.py": SILENT})
    result = run_main("check", "--config", given, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == f"tvmlint: error: --config {given}: {message}"


@pytest.mark.parametrize("name, text", [
    ("some.toml", '[tool.other]\nkey = 1\n'),
    ("some.toml", ""),
    ("pyproject.toml", '[project]\nname = "x"\n'),
    ("typo.toml", '[tool.tvm-lint]\nselect = ["TVM101"]\n'),
])
def test_a_config_without_the_tvmlint_table_is_an_error_not_the_defaults(tmp_path, name, text):
    write_tree(tmp_path, {"a.py": SILENT, f"given/{name}": text})
    for command in ("check", "fix"):
        result = run_main(command, "--config", f"given/{name}", "a.py", cwd=tmp_path)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.strip() == (f"tvmlint: error: --config given/{name}: has no [tool.tvmlint] table "
                                         "(tvmlint reads its settings from [tool.tvmlint] in a pyproject.toml-style file)")
    (tmp_path / "given" / name).write_text(text + '\n[tool.tvmlint]\ntarget-version = "0.19"\n')
    assert run_main("check", "--config", f"given/{name}", "a.py", cwd=tmp_path).returncode == 1  # now read: TVM101
