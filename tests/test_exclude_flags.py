"""`--exclude` and `--extend-exclude` on the command line, as ruff's: comma-separated patterns,
`--exclude` replacing `exclude` (and its default list), `--extend-exclude` adding to it; a
pattern with a `/` is relative to the working directory, a bare name matches anywhere."""

from __future__ import annotations

from helpers import run_main, write_tree

FOLD = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
TREE = {
    "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\nextend-exclude = ["old"]\n',
    "src/m.py": FOLD, "gen/m.py": FOLD, "build/m.py": FOLD, "old/m.py": FOLD,
}


def shown(result) -> list:
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_extend_exclude_adds_to_the_settings(tmp_path):
    write_tree(tmp_path, TREE)
    assert shown(run_main("check", "--show-files", cwd=tmp_path)) == ["gen/m.py", "src/m.py"]
    assert shown(run_main("check", "--show-files", "--extend-exclude", "gen", cwd=tmp_path)) == ["src/m.py"]
    # repeatable, comma-separated
    assert shown(run_main("check", "--show-files", "--extend-exclude", "gen,zzz", "--extend-exclude", "src/*",
                         cwd=tmp_path)) == []


def test_exclude_replaces_the_default_list(tmp_path):
    write_tree(tmp_path, TREE)
    # build/ is in the default list; --exclude replaces it, extend-exclude (old) still holds
    assert shown(run_main("check", "--show-files", "--exclude", "src/m.py", cwd=tmp_path)) == ["build/m.py", "gen/m.py"]


def test_a_path_pattern_is_relative_to_the_working_directory(tmp_path):
    write_tree(tmp_path, TREE)
    assert shown(run_main("check", "--show-files", "..", "--extend-exclude", "../gen/m.py", cwd=tmp_path / "src")) == [
        "../src/m.py"]


def test_with_force_exclude_a_named_file_stays_out_and_show_settings_says_why(tmp_path):
    write_tree(tmp_path, TREE)
    named = run_main("check", "--force-exclude", "--extend-exclude", "gen", "gen/m.py", cwd=tmp_path)
    assert named.returncode == 0 and "TVM101" not in named.stdout
    assert run_main("check", "--extend-exclude", "gen", "gen/m.py", cwd=tmp_path).returncode == 1
    settings = run_main("check", "--show-settings", "gen/m.py", "--exclude", "x/*", "--extend-exclude", "gen", cwd=tmp_path)
    assert 'exclude = ["x/*"]' in settings.stdout and "# --exclude" in settings.stdout
    assert 'extend-exclude = ["old", "gen"]' in settings.stdout
