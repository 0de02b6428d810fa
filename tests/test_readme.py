"""Every example in the README and the user's pages in docs/ runs, so a claim cannot drift from
behaviour (as Fixit runs its rule docs): each `$ tvmlint ...` of a console block is run in a copy of the repository's examples
and its output compared with the block (the stable part: `...` stands for anything, whitespace
is compared loosely, times and TVM's version are masked); each toml and yaml block is used as the
tool it configures uses it; the install commands are the ones tests/test_install.py runs; and
every tvmlint flag in the "Coming from ruff" table (docs/ruff.md) is run. The README stays a
user's guide of at most 15 KB, and every link in these pages leads somewhere.

Other tests hold some blocks to more: test_explain (explain's output byte for byte),
test_precommit (the pre-commit snippet in a real pre-commit run), test_ci_workflow (the
workflow's steps), test_editors (the editor set-ups), test_settings_everywhere (the
configuration block), test_ruff_noqa (ruff beside tvmlint)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest
import yaml
from helpers import REPO, run_main, tvm_importable

README = (REPO / "README.md").read_text(encoding="utf-8")
# the pages a user reads: the README and what moved from it to docs/ (not the contributors' pages)
USER_PAGES = ["README.md"] + [f"docs/{name}.md" for name in (
    "usage", "output-formats", "configuration", "rules", "ruff", "editors", "integrations", "companion", "ecosystem")]
PAGES = {name: (REPO / name).read_text(encoding="utf-8") for name in USER_PAGES}
BLOCKS: List[Tuple[str, str]] = [block for text in PAGES.values()
                                 for block in re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)]
README_MAX_BYTES = 15 * 1024
VERSION = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(encoding="utf-8"), re.M).group(1)
BIN = Path(sys.executable).parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _env(**more) -> dict:
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]), NO_COLOR="1")
    env.pop("TVMLINT_RULES_DIR", None)
    env.update(more)
    return env


@pytest.fixture
def sandbox(tmp_path) -> Path:
    """The README's commands' world: examples/ as in the repository, src/ (a project) and model.py."""
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    shutil.copytree(REPO / "examples" / "relay_era", tmp_path / "src")
    shutil.copy(REPO / "examples" / "relay_era" / "fold_scale_axis.py", tmp_path / "model.py")
    return tmp_path


# --- comparing output ---------------------------------------------------------------------------


def _normal(text: str) -> str:
    text = ANSI.sub("", text)
    text = re.sub(r"\bTVM \d+\.\d+[\w.+]*", "TVM <version>", text)
    text = re.sub(r"\b\d+(\.\d+)?(e-?\d+)? ms\b", "<time> ms", text)
    return " ".join(text.split())


def matches(expected: str, actual: str) -> bool:
    """Whether `actual` is `expected` with each `...` standing for any text."""
    parts = [re.escape(part.strip()) for part in _normal(expected).split("...")]
    return re.fullmatch(r"\s*(.*?)\s*".join(parts), _normal(actual), re.S) is not None


def test_the_matcher():
    assert matches("a  b\n...\nc", "a b x y\nc")
    assert matches("took 0.105 ms", "took 12.5 ms")
    assert not matches("a b", "a b c")
    assert matches("a b ...", "a b c")


# --- console blocks -----------------------------------------------------------------------------


def console_examples() -> List[Tuple[str, str]]:
    """(command, the output the README shows) for every `$ tvmlint` line of a console block."""
    found = []
    for lang, body in BLOCKS:
        if lang != "console":
            continue
        command, output = None, []
        for line in body.splitlines():
            if line.startswith("$ "):
                if command:
                    found.append((command, "\n".join(output)))
                command, output = line[2:], []
            else:
                output.append(line)
        if command:
            found.append((command, "\n".join(output)))
    return found


def _on_a_terminal(command: str, cwd: Path) -> Tuple[int, str]:
    """Run under a pseudo-terminal 200 columns wide: what a user sees, rich tables and all."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    process = subprocess.Popen(command, shell=True, cwd=cwd, env=_env(), stdin=subprocess.DEVNULL, stdout=slave,
                               stderr=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 300)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=60)
    os.close(master)
    return process.returncode, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


EXAMPLES = console_examples()


def test_the_readme_has_console_examples():
    commands = [command for command, _ in EXAMPLES]
    assert len(commands) >= 8 and all(command.startswith("tvmlint ") for command in commands), commands


@pytest.mark.parametrize("command, shown", EXAMPLES, ids=[command for command, _ in EXAMPLES])
def test_console_example(sandbox, command, shown):
    if command.split()[1] == "registry" and not tvm_importable():
        pytest.skip("apache-tvm is not importable (pip install -e '.[test]')")
    before = {path: path.read_bytes() for path in sandbox.rglob("*.py")}
    if any(char in shown for char in "┃━"):  # a rich table: the README shows what a terminal gets
        code, output = _on_a_terminal(command, sandbox)
    else:
        done = subprocess.run(command, shell=True, cwd=sandbox, env=_env(), capture_output=True, text=True, timeout=600)
        code, output = done.returncode, done.stdout
        assert "error" not in done.stderr, done.stderr
    assert code in (0, 1), output
    if shown.strip():
        assert matches(shown, output), f"the README shows:\n{shown}\n\n`{command}` printed:\n{output}"
    changed = {path for path, data in before.items() if path.read_bytes() != data}
    words = re.sub(r"\s+#.*$", "", command).split()
    if "--diff" in words or not ({"fix", "--fix"} & set(words)):
        assert not changed, f"{command} wrote {changed}"
    elif "-" not in words:  # a fix of files on disk (not of stdin) changes some
        assert changed, f"{command} fixed nothing"


# --- toml blocks --------------------------------------------------------------------------------


def _toml(text: str) -> dict:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    return tomllib.loads(text)


TOML = [body for lang, body in BLOCKS if lang == "toml"]


@pytest.mark.parametrize("body", TOML, ids=[body.splitlines()[0] for body in TOML])
def test_toml_example(sandbox, body):
    data = _toml(body)
    if "tool" in data and "tvmlint" in data["tool"]:
        # a project's configuration: tvmlint takes every key, and says each came from it
        project = sandbox / "project"
        project.mkdir()
        (project / "pyproject.toml").write_text(body, encoding="utf-8")
        (project / "job.py").write_text("import tvm\n", encoding="utf-8")
        shown = subprocess.run([str(BIN / "tvmlint"), "check", "--show-settings", "job.py"], cwd=project, env=_env(),
                               capture_output=True, text=True, timeout=300)
        assert shown.returncode == 0, shown.stderr
        for key in data["tool"]["tvmlint"]:
            lines = [line for line in shown.stdout.splitlines()
                     if re.match(rf"{re.escape(key)}( \(with [\w-]+\))? = ", line) or f"(with {key}) = " in line]
            assert lines and "pyproject.toml" in lines[0].split("#")[-1], (key, shown.stdout)
        assert subprocess.run([str(BIN / "tvmlint"), "check", "job.py"], cwd=project, env=_env(),
                              capture_output=True, timeout=300).returncode == 0
    elif "tool" in data and "ruff" in data["tool"]:
        # what the README says it does: ruff leaves `# noqa: TVM101` alone (RUF100 and RUF102)
        pytest.importorskip("ruff")
        (sandbox / "pyproject.toml").write_text(body, encoding="utf-8")
        (sandbox / "m.py").write_text("import os  # noqa: TVM101\nprint(os)\n", encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "RUF100,RUF102", "m.py"],
                              cwd=sandbox, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    elif "language-server" in data:
        # Helix: the command it starts is `tvmlint lsp` (test_editors runs the server)
        server = data["language-server"]["tvmlint"]
        assert [server["command"], *server["args"]] == ["tvmlint", "lsp"]
        assert any("tvmlint" in language["language-servers"] for language in data["language"])
    else:
        pytest.fail(f"a toml block no test runs:\n{body}")


# --- yaml blocks --------------------------------------------------------------------------------


YAML = [body for lang, body in BLOCKS if lang == "yaml"]


@pytest.mark.parametrize("body", YAML, ids=[f"yaml{i}" for i in range(len(YAML))])
def test_yaml_example(sandbox, body):
    data = yaml.safe_load(body)
    if "repos" in data:
        # the pre-commit snippet: hooks this repository ships, at a commit (no release tag exists;
        # test_precommit runs the snippet in real pre-commit at this repository's commit)
        hooks = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
        [entry] = data["repos"]
        assert entry["rev"] == "COMMIT"
        for hook in entry["hooks"]:
            assert hook["id"] in hooks
            done = subprocess.run([str(BIN / "tvmlint"), "check", "--no-default-path", *hook.get("args", [])],
                                  cwd=sandbox, env=_env(), capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr
    elif "jobs" in data:
        # the GitHub Actions workflow: the shipped file (test_ci_workflow runs its steps)
        assert body == (REPO / "examples" / "ci" / "tvmlint.yml").read_text(encoding="utf-8")
        [install] = [step["run"] for step in next(iter(data["jobs"].values()))["steps"]
                     if step.get("run", "").startswith("pip install")]
        assert install.endswith('@COMMIT"')
    else:
        pytest.fail(f"a yaml block no test runs:\n{body}")


# --- the set-up and install commands ------------------------------------------------------------


def test_the_first_lines_are_the_two_set_up_commands():
    lang, body = BLOCKS[0]
    assert lang == "bash" and README.startswith("# tvmlint\n\n```bash\n")
    check, tests = body.splitlines()
    assert check == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/tvmlint check examples/"
    assert tests == "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -q"
    assert tests in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_the_install_commands_are_the_ones_test_install_runs():
    section = README.split("## Install\n", 1)[1].split("\n## ", 1)[0]
    [body] = re.findall(r"```bash\n(.*?)```", section, re.S)
    commands = [line.split("  #")[0].strip() for line in body.splitlines()]
    assert commands == [
        "pip install .",
        'pip install "tvmlint @ git+https://github.com/OWNER/tvmlint@COMMIT"',
        f"python -m build --wheel && pip install dist/tvmlint-{VERSION}-py3-none-any.whl",
    ]
    assert "OWNER" in section.split("```", 2)[2]  # the placeholder is explained
    source = (REPO / "tests" / "test_install.py").read_text(encoding="utf-8")
    assert '"-m", "build", "--wheel"' in source and "git+file://localhost" in source and "@{tag}" in source
    assert '"rev-parse", "HEAD"' in source  # the install test pins a commit, as the README does


# --- the README as a user's guide, and the links of every page -----------------------------------


def test_the_readme_is_at_most_15_kb():
    size = len(README.encode("utf-8"))
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes: move details to docs/ (at most {README_MAX_BYTES})"


def test_the_readme_rules_table_lists_every_rule_with_its_default():
    from tvmlint.knowledge.catalog import load_catalog

    section = README.split("## What it finds\n", 1)[1].split("\n## ", 1)[0]
    rows = {cells[0]: cells[1] for cells in (
        [cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines() if line.startswith("| TVM"))}
    catalog = load_catalog()
    assert rows == {code: "yes" if info.default else "no" for code, info in catalog.items()}
    # it reads at 80 columns
    assert all(len(line) <= 80 for line in section.splitlines() if line.startswith("| ")), section


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set:
    outside_code = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return {_anchor(heading) for heading in re.findall(r"^#+ (.*)$", outside_code, re.M)}


@pytest.mark.parametrize("page", USER_PAGES)
def test_every_link_of_a_page_leads_somewhere(page):
    here = (REPO / page).parent
    for target in re.findall(r"\]\(([^)\s]+)\)", PAGES[page]):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        file = (here / path).resolve() if path else REPO / page
        assert file.exists(), f"{page} links {target}: no such file"
        if anchor and file.suffix == ".md":
            assert anchor in _anchors(file.read_text(encoding="utf-8")), f"{page} links {target}: no such heading"


# --- the ruff table -----------------------------------------------------------------------------


def ruff_table() -> List[List[str]]:
    section = PAGES["docs/ruff.md"].split("## Coming from ruff\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def table_flags() -> List[str]:
    flags = []
    for _, tvmlint, _ in ruff_table():
        for code in re.findall(r"`([^`]+)`", tvmlint):
            word = code.split()[0]
            if word.startswith("-") and word not in flags:
                flags.append(word)
    return flags


def test_no_row_says_tvmlint_lacks_something():
    rows = ruff_table()
    assert len(rows) >= 25
    for ruff, tvmlint, notes in rows:
        assert tvmlint and "lacks" not in f"{tvmlint} {notes}".lower() and "not supported" not in notes.lower(), (ruff, tvmlint)


FOLD = "examples/relay_era/fold_scale_axis.py"
PORT = "examples/relay_era/port_from_nnvm.py"


def _tvmlint(cwd: Path, *args: str, stdin=None) -> subprocess.CompletedProcess:
    # the command's main in this process: the README's console examples above run the installed
    # command, and helpers.run_main gives what it gives (tests/test_check_cli.py)
    return run_main(*args, cwd=cwd, env=_env(), stdin=stdin)


def _codes(out: str) -> set:
    return set(re.findall(r"\bTVM\d{3}\b", out))


def _verify(flag: str, root: Path) -> None:
    """Run `flag` as the table's row says it behaves."""
    relay = "examples/relay_era"
    if flag == "--diff":
        done = _tvmlint(root, "check", "--diff", PORT)
        assert "+from tvm.contrib import graph_executor as graph_runtime" in done.stdout
    elif flag == "--unsafe-fixes":
        fast = "examples/relay_era/fast_math_build.py"  # TVM105's fix adds a wrapper's members: unsafe
        done = _tvmlint(root, "fix", "--diff", "--unsafe-fixes", fast)
        assert re.search(r"^\+.*required_pass=.*BackwardFoldScaleAxis", done.stdout, re.M), done.stdout
        assert "BackwardFoldScaleAxis" not in _tvmlint(root, "fix", "--diff", fast).stdout
    elif flag == "--fix":
        assert _tvmlint(root, "check", "--fix", PORT).returncode == 1  # TVM203 remains
        assert "graph_executor" in (root / PORT).read_text()
    elif flag == "--select":
        assert _codes(_tvmlint(root, "check", "--select", "TVM1", relay).stdout) <= {f"TVM1{n:02d}" for n in range(100)}
    elif flag == "--extend-select":
        assert "TVM108" in _tvmlint(root, "check", "--select", "TVM101", "--extend-select", "TVM108", relay).stdout
    elif flag in ("--ignore", "--extend-ignore"):
        out = _tvmlint(root, "check", flag, "TVM1", relay).stdout
        assert _codes(out) and not any(code.startswith("TVM1") for code in _codes(out))
    elif flag in ("--per-file-ignores", "--extend-per-file-ignores"):
        out = _tvmlint(root, "check", flag, "examples/relay_era/*:TVM101", relay).stdout
        assert _codes(out) and "TVM101" not in out
    elif flag in ("--exclude", "--extend-exclude"):
        out = _tvmlint(root, "check", "--show-files", flag, FOLD, relay).stdout
        assert "passes.py" in out and "fold_scale_axis.py" not in out
    elif flag in ("--force-exclude", "--no-force-exclude"):
        done = _tvmlint(root, "check", "--extend-exclude", "fold_scale_axis.py", flag, FOLD)
        assert done.returncode == (0 if flag == "--force-exclude" else 1)
    elif flag in ("--respect-gitignore", "--no-respect-gitignore"):
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        (root / ".gitignore").write_text("fold_scale_axis.py\n", encoding="utf-8")
        out = _tvmlint(root, "check", "--show-files", flag, relay).stdout
        assert ("fold_scale_axis.py" in out) == (flag == "--no-respect-gitignore")
    elif flag in ("--fixable", "--extend-fixable", "--unfixable"):
        args = {"--fixable": ["--fixable", "TVM101"], "--extend-fixable": ["--fixable", "TVM101", "--extend-fixable", "TVM202"],
                "--unfixable": ["--unfixable", "TVM202"]}[flag]
        out = _tvmlint(root, "fix", "--diff", *args, PORT).stdout
        assert ("graph_executor" in out) == (flag == "--extend-fixable")
    elif flag == "--target-version":
        assert "0.19" in _tvmlint(root, "check", "--target-version", "0.19", PORT).stdout
    elif flag in ("--output-format", "--format"):
        for name in ("text", "concise", "json", "json-lines", "junit", "github", "gitlab", "sarif"):
            done = _tvmlint(root, "check", flag, name, FOLD)
            assert done.returncode == 1 and "TVM101" in done.stdout, name
            if name in ("json", "sarif", "gitlab"):
                json.loads(done.stdout)
    elif flag == "--statistics":
        done = _tvmlint(root, "check", "--statistics", relay)
        assert re.match(r"\d+\tTVM\d{3}\t", done.stdout) and "fold_scale_axis.py" not in done.stdout
    elif flag in ("-o", "--output-file"):
        done = _tvmlint(root, "check", flag, "report.txt", FOLD)
        assert done.returncode == 1 and not done.stdout and "TVM101" in (root / "report.txt").read_text()
    elif flag == "-q":
        done = _tvmlint(root, "check", "-q", FOLD)
        assert "TVM101" in done.stdout and "Found" not in done.stdout
    elif flag in ("-s", "--silent"):
        done = _tvmlint(root, "check", flag, FOLD)
        assert done.returncode == 1 and not done.stdout
    elif flag == "--exit-zero":
        done = _tvmlint(root, "check", "--exit-zero", FOLD)
        assert done.returncode == 0 and "TVM101" in done.stdout
    elif flag in ("--exit-non-zero-on-fix", "--show-fixes"):
        (root / "fixable").mkdir()
        (root / "fixable" / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.8"\n', encoding="utf-8")
        (root / "fixable" / "m.py").write_text("from tvm.contrib import graph_runtime\n", encoding="utf-8")
        done = _tvmlint(root, "check", "--fix", flag, "fixable/m.py")
        if flag == "--exit-non-zero-on-fix":
            assert done.returncode == 1
        else:
            assert done.returncode == 0 and "TVM202" in done.stdout
    elif flag == "--show-settings":
        out = _tvmlint(root, "check", "--show-settings", FOLD).stdout
        assert re.search(r'^target-version = "0\.8" .*examples/relay_era/pyproject\.toml', out, re.M), out
    elif flag == "--show-files":
        assert "examples/relay_era/passes.py" in _tvmlint(root, "check", "--show-files", relay).stdout.split()
    elif flag == "--watch":
        pytest.importorskip("watchfiles")
        process = subprocess.Popen([str(BIN / "tvmlint"), "check", "--watch", FOLD], cwd=root, env=_env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            seen = ""
            while "TVM101" not in seen:
                line = process.stdout.readline()
                assert line, "check --watch ended"
                seen += line
        finally:
            process.terminate()
            process.wait(timeout=30)
    elif flag == "--add-noqa":
        done = _tvmlint(root, "check", "--add-noqa", FOLD)
        assert "Added" in done.stderr and "# noqa: TVM101" in (root / FOLD).read_text()
        assert _tvmlint(root, "check", FOLD).returncode == 0
    elif flag == "--stdin-filename":
        done = _tvmlint(root, "check", "--stdin-filename", FOLD, "-", stdin=(root / FOLD).read_text())
        assert done.returncode == 1 and f"{FOLD}\n" in done.stdout
    elif flag == "--config":
        done = _tvmlint(root, "check", "--config", "examples/relay_era/pyproject.toml", "model.py")
        assert done.returncode == 1 and "TVM101" in done.stdout
    elif flag == "--no-cache":
        assert _tvmlint(root, "check", "--no-cache", FOLD).returncode == 1
        assert not (root / "examples" / "relay_era" / ".tvmlint_cache").exists()
    else:
        pytest.fail(f"the ruff table names {flag}, which this test does not run")


@pytest.mark.parametrize("flag", table_flags())
def test_each_flag_of_the_ruff_table(sandbox, flag):
    _verify(flag, sandbox)


def test_tvm002_is_ruffs_rf100(sandbox):
    (sandbox / "u.py").write_text("import tvm  # noqa: TVM101\n", encoding="utf-8")
    done = _tvmlint(sandbox, "check", "--extend-select", "TVM002", "--format", "concise", "u.py")
    assert done.returncode == 1 and "u.py:1:13: TVM002" in done.stdout
    assert _tvmlint(sandbox, "fix", "--extend-select", "TVM002", "u.py").returncode == 0
    assert (sandbox / "u.py").read_text() == "import tvm\n"


def test_the_commands_of_the_table_exist(sandbox):
    assert _tvmlint(sandbox, "rule", "TVM101").stdout.startswith("# TVM101")
    assert "TVM401" in _tvmlint(sandbox, "rules").stdout
    assert _tvmlint(sandbox, "lsp", "--help").returncode == 0
    hooks = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert hooks == {"tvmlint", "tvmlint-fix"}


# --- docs/architecture.md -----------------------------------------------------------------------


def test_the_architecture_names_todays_modules():
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w/]+\.py)`", text))
    assert len(named) >= 25
    missing = sorted(name for name in named if not (REPO / "tvmlint" / name).is_file() and not (REPO / name).is_file()
                     and not list((REPO / "tvmlint").rglob(name)))
    assert not missing, missing
    for dotted in set(re.findall(r"`((?:runner|engine|config|project|contexts|knowledge|cheap|output|noqa)\.\w+)", text)):
        module, _, name = dotted.partition(".")
        if name == "py":
            continue
        found = [*(REPO / "tvmlint").rglob(f"{module}.py"), *(REPO / "tvmlint").rglob(f"{module}/__init__.py")]
        assert len(found) == 1, (dotted, found)
        source = found[0]
        assert re.search(rf"^(def|class) {name}\b|^    def {name}\b|^{name} = ", source.read_text(encoding="utf-8"), re.M), dotted


def test_the_architecture_follows_a_real_finding(sandbox):
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## One finding, end to end", 1)[1]
    command = re.search(r"`(tvmlint check [^`]+)`", section).group(1)
    shown = re.search(r"```\n(.*?)```", section, re.S).group(1)
    done = subprocess.run(command, shell=True, cwd=sandbox, env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and matches(shown + "...", done.stdout), done.stdout
    # the call that decides the context: in the one sentence (in the same file: its line), and whole in the detail
    assert "(the default context, when compare is called on line 34)" in done.stdout
    assert ("The context comes from the callers: when compare is called from examples/relay_era/fold_scale_axis.py:34."
            in " ".join(done.stdout.split()))  # the detail, wrapped under the finding
