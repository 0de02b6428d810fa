"""A real editor: headless Neovim with the init.lua docs/editors.md gives for its release opens a
file with findings; the diagnostics, the hovers and a picked code action are what it then holds.

tests/neovim_driver.lua does what a user would in that Neovim and writes the result as JSON;
this test judges it. It runs the `nvim` on PATH (.ci/run installs Debian's, 0.7) and every
Neovim that TVMLINT_NEOVIMS names (`:`-separated paths), each with every block of the docs its
release runs: 0.11 and newer run the 0.8-to-0.10 block too. Skipped, with the reason, where no
Neovim is installed or it is older than the oldest release the docs cover.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import pytest
from helpers import REPO

EDITORS_DOC = REPO / "docs" / "editors.md"
DRIVER = Path(__file__).with_name("neovim_driver.lua")
WAIT_MS = 90_000  # each wait inside Neovim: the first check imports libcst and reads the rules
WHOLE_RUN = 600  # seconds for the whole session, a bound against a hang, not a speed target

BUFFER = (
    "import tvm\n"
    "from tvm import relay\n"
    "\n"
    "mod = relay.transform.FoldScaleAxis()(mod)\n"
    "mod = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101\n"
    "with relay.build_config(opt_level=3):\n"
    "    lib = relay.build(mod, target=\"llvm\")\n"
)


# docs/editors.md's Neovim blocks, and the oldest release each is for
BLOCKS = [("Neovim 0.11 and newer", (0, 11)), ("Neovim 0.8 to 0.10", (0, 8)), ("Neovim 0.7", (0, 7))]


def neovim_version(nvim: str) -> Optional[Tuple[int, int]]:
    done = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=60)
    found = re.search(r"NVIM v(\d+)\.(\d+)", done.stdout)
    return (int(found.group(1)), int(found.group(2))) if found else None


def blocks_for(version: Tuple[int, int]) -> List[str]:
    """The blocks a release runs: its own, and on 0.11 and newer the 0.8-to-0.10 one as well
    (vim.lsp.start is still there; 0.7's start_client is deprecated)."""
    own = next(heading for heading, oldest in BLOCKS if version >= oldest)
    return [own, "Neovim 0.8 to 0.10"] if version >= (0, 11) else [own]


def neovims() -> List:
    found = [shutil.which("nvim")] + os.environ.get("TVMLINT_NEOVIMS", "").split(os.pathsep)
    cases = []
    for nvim in dict.fromkeys(path for path in found if path):
        version = neovim_version(nvim)
        if version is None or version < (0, 7):
            cases.append(pytest.param(nvim, None, version, id=nvim))
            continue
        for heading in blocks_for(version):
            cases.append(pytest.param(nvim, heading, version, id=f"{version[0]}.{version[1]}-{heading.split()[1]}"))
    return cases or [pytest.param(None, None, None, id="no-neovim")]


def documented_config(heading: str) -> str:
    """The Lua block under `heading` in docs/editors.md."""
    text = EDITORS_DOC.read_text(encoding="utf-8")
    match = re.search(rf"^#### {re.escape(heading)}\n(.*?)^```lua\n(.*?)^```", text, re.M | re.S)
    assert match, f"docs/editors.md has no `#### {heading}` section with a lua block"
    return match.group(2)


def run_neovim(tmp_path: Path, nvim: str, heading: str, steps: List[dict]) -> dict:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.19"\n', encoding="utf-8")
    source = project / "job.py"
    source.write_text(BUFFER, encoding="utf-8")
    init = tmp_path / "init.lua"
    init.write_text(documented_config(heading), encoding="utf-8")
    result = tmp_path / "result.json"
    home = tmp_path / "home"
    env = dict(
        os.environ,
        # the documented command, `tvmlint`, is this environment's
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        # no user configuration, plugins or state of this machine's Neovim
        XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"),
        TVMLINT_NVIM_PLAN=json.dumps({"file": str(source), "wait_ms": WAIT_MS, "steps": steps}),
        TVMLINT_NVIM_RESULT=str(result),
    )
    done = subprocess.run(
        [nvim, "--headless", "-n", "-i", "NONE", "-u", str(init), "-c", f"luafile {DRIVER}"],
        cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=WHOLE_RUN,
    )
    assert result.exists(), f"Neovim wrote no result (exit {done.returncode}): {done.stdout}{done.stderr}"
    report = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in report, report["error"] + done.stderr
    report["file"] = source.read_text(encoding="utf-8")
    return report


def codes(state: dict) -> List[Tuple[int, str]]:
    return [(d["line"], d["code"]) for d in state["diagnostics"]]


@pytest.mark.parametrize("nvim, heading, version", neovims())
def test_neovim_shows_fixes_and_explains_with_the_documented_config(tmp_path, nvim, heading, version):
    if nvim is None:
        pytest.skip("Neovim is not installed (`apt-get install neovim`; .ci/run installs it where it can)")
    if heading is None:
        pytest.skip(f"{nvim} is Neovim {version}: older than 0.7, the oldest docs/editors.md covers, or unknown")
    fold_line, noqa_line, build_config_line = 3, 4, 5
    report = run_neovim(tmp_path, nvim, heading, [
        {"do": "diagnostics"},
        {"do": "hover", "line": fold_line, "col": BUFFER.splitlines()[fold_line].index("FoldScaleAxis")},
        {"do": "hover", "line": noqa_line, "col": BUFFER.splitlines()[noqa_line].index("TVM101") + 2},
        {"do": "action", "line": build_config_line, "col": 8, "pick": "TVM202:"},
        {"do": "action", "line": fold_line, "col": 10, "pick": "add `# noqa"},
        {"do": "write"},
    ])
    assert report["filetype"] == "python"
    assert tuple(report["version"][:2]) == version
    opened, on_finding, on_noqa, fixed, silenced, _ = report["steps"]

    # (a) the diagnostics, as Neovim holds them: the suppressed line has none
    assert codes(opened) == [(fold_line, "TVM101"), (build_config_line, "TVM202")]
    fold = opened["diagnostics"][0]
    assert fold["source"] == "tvmlint" and fold["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert (fold["col"], fold["end_col"]) == (6, 42)
    assert "BackwardFoldScaleAxis" in fold["message"]

    # (b) hover on the finding explains the call; on the noqa code, it documents the rule
    assert "FoldScaleAxis" in on_finding["hover"] and "opt_level" in on_finding["hover"]
    assert on_finding["range"]["start"]["line"] == fold_line
    assert on_noqa["hover"].splitlines()[0].startswith("# TVM101 ")
    assert on_noqa["range"]["start"] == {"line": noqa_line, "character": BUFFER.splitlines()[noqa_line].index("TVM101")}

    # (c) the fix picked from the code action menu rewrites the line, and the finding goes
    assert any(title.startswith("TVM202: ") for title in fixed["offered"]), fixed["offered"]
    assert fixed["lines"][build_config_line] == "with tvm.transform.PassContext(opt_level=3):"
    assert codes(fixed) == [(fold_line, "TVM101")]
    assert fixed["lines"][:build_config_line] == BUFFER.splitlines()[:build_config_line]

    # and "add noqa" on the finding that is left silences it on its line
    assert "TVM101: add `# noqa: TVM101` on this line" in silenced["offered"], silenced["offered"]
    assert silenced["lines"][fold_line] == "mod = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101"
    assert codes(silenced) == []
    assert report["file"] == "\n".join(silenced["lines"]) + "\n"
    assert report["file"] == BUFFER.replace("relay.build_config", "tvm.transform.PassContext").replace(
        "(mod)\nmod", "(mod)  # noqa: TVM101\nmod", 1)
