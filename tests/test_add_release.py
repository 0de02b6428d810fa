"""tools/add_release.py and what it relies on: the release list and tags (tools/releases.py), the
config-key check (tools/config_keys_from_source.py), the numerics rows' splice; and, with the
apache/tvm mirror and the installed apache-tvm, that regenerating the newest release changes no
byte of rules/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from helpers import REPO

sys.path.insert(0, str(REPO / "tools"))

import add_release  # noqa: E402
import config_keys_from_source  # noqa: E402
import dtype_keeping_ops_from_source  # noqa: E402
import releases  # noqa: E402

TOOL = REPO / "tools" / "add_release.py"
NEWEST = releases.known()[-1]


def _tool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], cwd=REPO, capture_output=True, text=True)


def _git_history(root: Path, commits: list) -> str:
    """A small git repository: each commit writes its files and gets its tags."""
    git = ["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for files, tags in commits:
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "c"], check=True)
        for tag in tags:
            subprocess.run([*git, "tag", tag], check=True)
    return str(root / ".git")


def _rules_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "rules"
    shutil.copytree(REPO / "rules", copy)
    return copy


def _same_tree(left: Path, right: Path) -> list:
    """Relative paths whose bytes differ (or that one side lacks)."""
    names = {p.relative_to(left) for p in left.rglob("*") if p.is_file()} | {p.relative_to(right) for p in right.rglob("*") if p.is_file()}
    return sorted(str(n) for n in names if not ((left / n).is_file() and (right / n).is_file()
                                                 and (left / n).read_bytes() == (right / n).read_bytes()))


# ---- the release list and tags -------------------------------------------------------------------


def test_a_release_is_its_minor_tag_and_rc_dev_and_post_tags_are_not_releases(tmp_path):
    git = _git_history(tmp_path / "tvm", [({"a": "1"}, ["v0.4", "v0.6.0", "v0.6.1", "v0.18.0.rc0", "v0.25.0", "v0.25.0.post1", "v0.27.dev0"])])
    assert releases.tags(git) == {"0.4": "v0.4", "0.6": "v0.6.0", "0.25": "v0.25.0"}
    assert releases.tagged(git, ["0.4", "0.5", "0.6", "0.27"]) == [("0.4", "v0.4"), ("0.6", "v0.6.0")]
    assert releases.between(["0.4", "0.6", "0.16", "0.20", "0.27"], "0.6", "0.20") == ["0.6", "0.16"]
    assert releases.releases("0.10,0.9") == ["0.9", "0.10"]
    assert releases.releases() == releases.known() == tomllib.loads((REPO / "rules/versions.toml").read_text())["releases"]


def test_the_wheel_is_named_by_its_dist_info_not_by_a_constant(tmp_path):
    site = tmp_path / "site"
    (site / "tvm").mkdir(parents=True)
    assert releases.wheel_version(site / "tvm") is None
    (site / "apache_tvm-0.31.2.post3.dist-info").mkdir()
    assert releases.wheel_version(site / "tvm") == "0.31.2.post3"
    assert releases.release_of("0.31.2.post3") == "0.31"
    assert releases.wheel_label(site / "tvm") == "0.31.2.post3 wheel"


# ---- versions.toml, the summary, the numerics rows ---------------------------------------------


def test_a_new_release_changes_two_lines_of_versions_toml(tmp_path):
    path = _rules_copy(tmp_path) / "versions.toml"
    before = path.read_text().splitlines()
    add_release.add_to_versions(path, "0.99")
    after = path.read_text().splitlines()
    changed = [(old, new) for old, new in zip(before, after) if old != new]
    assert len(before) == len(after) and [old.split(" =")[0] for old, _ in changed] == ["releases", "newest"]
    table = tomllib.loads(path.read_text())
    assert table["releases"][-2:] == [NEWEST, "0.99"] and table["newest"] == "0.99"


def test_the_summary_counts_rows_added_and_removed_per_table():
    text = (REPO / "rules/executors.toml").read_text()
    rows = text.split("\n[[executor]]\n")
    fewer = "\n[[executor]]\n".join(rows[:-1]) + "\n"
    moved = text.replace('until = "0.20"', 'until = "0.21"', 1)
    assert add_release.summary(text, text) == "unchanged (byte-identical)"
    assert add_release.summary(text, fewer) == "[[executor]] +0 -1 rows"
    assert add_release.summary(text, moved) == "[[executor]] +1 -1 rows"
    assert add_release.summary(text, "# a new comment\n" + text) == "rows unchanged; comments or layout changed"
    versions = (REPO / "rules/versions.toml").read_text()
    assert add_release.summary(versions, versions.replace(f'newest = "{NEWEST}"', 'newest = "0.99"')) == "newest changed"


def test_the_numerics_rows_are_replaced_and_nothing_else_in_the_file():
    text = (REPO / "rules/numerics.toml").read_text()
    start = text.index("[[te_keep_dtype]]")
    end = text.index("[[te_sum]]")
    rows = text[start:end]
    assert dtype_keeping_ops_from_source.splice(text, rows) == text
    other = '[[te_keep_dtype]]\nnames = ["exp"]\nnamespaces = ["tvm.te"]\nsource = "x"\n\n'
    assert dtype_keeping_ops_from_source.splice(text, other) == text[:start] + other + text[end:]


# ---- the config keys at each tag -----------------------------------------------------------------


CONSTANT_FILE = """
constexpr const char* kLongName =
    "b.constant";
TVM_REGISTER_PASS_CONFIG_OPTION(kLongName, Bool);
TVM_REGISTER_PASS_CONFIG_OPTION("a.literal", Integer);
"""
MACRO = '#define TVM_REGISTER_PASS_CONFIG_OPTION(Key, ValueType) \\\n  something(Key)\n'


def test_config_keys_are_read_at_each_tag_constants_resolved_and_compared_with_the_table(tmp_path):
    git = _git_history(tmp_path / "tvm", [
        ({"src/a.cc": CONSTANT_FILE, "include/tvm/ir/transform.h": MACRO}, ["v0.7.0"]),
        ({"src/a.cc": 'TVM_REGISTER_PASS_CONFIG_OPTION("a.literal", Integer);\n'}, ["v0.8.0"]),
    ])
    assert config_keys_from_source.registered(git, "v0.7.0") == {"b.constant": "v0.7.0:src/a.cc#L4", "a.literal": "v0.7.0:src/a.cc#L5"}
    table = tmp_path / "config_keys.toml"
    table.write_text('[[key]]\nname = "a.literal"\nsince = "0.7"\n\n[[key]]\nname = "b.constant"\nsince = "0.7"\nuntil = "0.8"\n')
    assert config_keys_from_source.differences(git, ["0.7", "0.8"], table) == []
    table.write_text('[[key]]\nname = "a.literal"\nsince = "0.7"\n\n[[key]]\nname = "c.gone"\nsince = "0.8"\n')
    assert config_keys_from_source.differences(git, ["0.7", "0.8"], table) == [
        "0.7: v0.7.0 registers b.constant (v0.7.0:src/a.cc#L4), rules/config_keys.toml does not place it there",
        "0.8: rules/config_keys.toml places c.gone, v0.8.0 does not register it",
    ]
    assert config_keys_from_source.main([git, "--releases", "0.7,0.8", "--table", str(table)]) == 1


# ---- the command's errors: one line, exit 2, nothing written ----------------------------------


def test_bad_requests_are_one_line_errors_and_write_nothing(tmp_path):
    rules = _rules_copy(tmp_path)
    empty = _git_history(tmp_path / "empty", [({"a": "1"}, [])])
    cases = [
        (["0.x"], "'0.x' is no release: write MAJOR.MINOR, e.g. 0.28"),
        (["0.99", "--mirror", str(tmp_path / "nowhere")], f"{tmp_path / 'nowhere'} is no git clone of apache/tvm"),
        (["0.3", "--mirror", empty], f"0.3 is older than the newest release {NEWEST}: the tables would lose {NEWEST}"),
        (["0.99", "--mirror", empty], f"release 0.4 has no tag in {empty}, and the installed apache-tvm is "),
    ]
    for args, message in cases:
        done = _tool(*args, "--rules", str(rules))
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("add_release: error: " + message), (args, done.stderr)
    assert _same_tree(rules, REPO / "rules") == []


# ---- the whole run on the real mirror ------------------------------------------------------------


def _mirror_or_skip() -> str:
    if not (releases.MIRROR / "HEAD").is_file():
        pytest.skip(f"no apache/tvm clone at {releases.MIRROR} (`fetch github:apache/tvm` brings one)")
    wheel = releases.installed_tvm()
    if wheel is None or releases.release_of(releases.wheel_version(wheel)) != NEWEST:
        pytest.skip(f"the newest release {NEWEST} has no tag and is read from its wheel: apache-tvm {NEWEST} is not installed here")
    return str(releases.MIRROR)


@pytest.mark.tvm
@pytest.mark.skipif(not os.environ.get("TVMLINT_SLOW_TESTS"), reason=(
    "regenerates every derived table from TVM's source: 3.4 CPU-minutes, more than the suite's whole "
    "budget; run it with TVMLINT_SLOW_TESTS=1 when a table or a generator changes (CONTRIBUTING.md)"))
def test_regenerating_the_newest_release_changes_no_byte_of_rules(tmp_path):
    mirror = _mirror_or_skip()
    rules = _rules_copy(tmp_path)
    (rules / "versions.toml").chmod(0o640)  # a table's mode is kept when it is rewritten
    done = _tool(NEWEST, "--mirror", mirror, "--rules", str(rules))
    assert done.returncode == 0, done.stdout + done.stderr
    assert _same_tree(rules, REPO / "rules") == []
    for table in ("versions", "executors", "runners", "pipelines", "pass_names", "numerics"):
        assert f"rules/{table}.toml: unchanged (byte-identical)" in done.stdout
    assert "config_keys.toml against TVM_REGISTER_PASS_CONFIG_OPTION at each tag: agrees" in done.stdout
    assert "nothing to write: every table is as regenerated" in done.stdout
