"""Jupyter notebooks through the commands: their code cells checked as one module, findings
at `cell N:LINE:COL` as ruff prints them (the real ruff run on the same notebook agrees on the
cell), fixes and noqa written back into the cell without touching outputs, metadata or IPython
lines, and the same guards as a .py file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli, run_main

from tvmlint.base.filestate import RACY_NS

TARGET = ("--target-version", "0.19", "--no-cache")
MARKDOWN = {"cell_type": "markdown", "metadata": {}, "source": ["# Folding scales\n", "\n", "Run FoldScaleAxis.\n"]}
OUTPUT = {"name": "stdout", "output_type": "stream", "text": ["done\n"]}


def code(*lines: str, outputs=()) -> dict:
    return {"cell_type": "code", "execution_count": 1 if outputs else None, "metadata": {"tags": ["keep"]},
            "outputs": list(outputs), "source": list(lines)}


def notebook(*cells: dict, language: str = "python") -> dict:
    return {
        "cells": list(cells),
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
                     "language_info": {"name": language, "version": "3.11"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def write(path: Path, document: dict) -> bytes:
    # as Jupyter (nbformat) writes a notebook
    data = (json.dumps(document, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    path.write_bytes(data)
    return data


# cell 1 markdown; cell 2 imports (and a magic); cell 3 the silent fold, after an unused import
FOLD_NOTEBOOK = notebook(
    MARKDOWN,
    code("import tvm\n", "from tvm import relay\n", "%matplotlib inline"),
    code("import os\n", "!nvidia-smi\n", "mod = relay.transform.FoldScaleAxis()(mod)\n", "print(mod)",
         outputs=[OUTPUT]),
)


def test_a_notebook_is_checked_with_findings_at_cell_and_line(tmp_path):
    write(tmp_path / "fold.ipynb", FOLD_NOTEBOOK)
    done = run_main("check", *TARGET, "--format", "concise", "fold.ipynb", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("fold.ipynb:cell 3:3:7: TVM101 relay.transform.FoldScaleAxis()"), done.stdout
    full = run_main("check", *TARGET, "fold.ipynb", cwd=tmp_path)
    assert "  cell 3:3:7 TVM101" in full.stdout
    assert "   3 | mod = relay.transform.FoldScaleAxis()(mod)" in full.stdout  # the cell's own line, quoted
    found = json.loads(run_main("check", *TARGET, "--format", "json", "fold.ipynb", cwd=tmp_path).stdout)
    assert [(f["cell"], f["line"], f["column"], f["code"]) for f in found] == [(3, 3, 7, "TVM101")]
    assert found[0]["fix"]["edits"][0]["line"] == 3  # the fix's edits are lines of the cell too


def test_ruff_counts_the_cells_as_tvmlint_does(tmp_path):
    # ruff's F401 on cell 3's first line and tvmlint's TVM101 on its third: the same cell number
    write(tmp_path / "fold.ipynb", FOLD_NOTEBOOK)
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F401",
                           "--output-format", "concise", "fold.ipynb"], cwd=tmp_path, capture_output=True, text=True)
    assert ruff.returncode == 1, ruff.stderr
    ruff_at = re.findall(r"^fold\.ipynb:(cell \d+):(\d+):\d+: F401 .*`os`", ruff.stdout, re.M)
    ours = run_main("check", *TARGET, "--format", "concise", "fold.ipynb", cwd=tmp_path).stdout
    our_at = re.findall(r"^fold\.ipynb:(cell \d+):(\d+):\d+: TVM101", ours, re.M)
    assert ruff_at == [("cell 3", "1")] and our_at == [("cell 3", "3")], (ruff.stdout, ours)


def test_a_folder_walk_takes_notebooks_and_other_kernels_are_skipped(tmp_path):
    (tmp_path / "nb").mkdir()
    write(tmp_path / "nb" / "fold.ipynb", FOLD_NOTEBOOK)
    # an R notebook whose code would be a Python mistake: not Python, so nothing to say
    write(tmp_path / "nb" / "r.ipynb", notebook(code("mod = relay.transform.FoldScaleAxis()(mod)\n"), language="R"))
    done = run_main("check", *TARGET, "--format", "concise", ".", cwd=tmp_path)
    assert done.returncode == 1
    assert [line.split(":")[0] for line in done.stdout.splitlines() if "TVM" in line] == [str(Path("nb/fold.ipynb"))]
    assert "2 files checked" in done.stdout


def test_fix_writes_only_the_changed_cell_and_keeps_magics_outputs_and_metadata(tmp_path):
    before = write(tmp_path / "fold.ipynb", FOLD_NOTEBOOK)
    done = run_main("fix", *TARGET, "--unsafe-fixes", "fold.ipynb", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    after = (tmp_path / "fold.ipynb").read_bytes()
    fixed = json.loads(after)
    assert fixed["cells"][2]["source"] == [
        "import os\n", "!nvidia-smi\n", "with tvm.transform.PassContext(opt_level=3):\n",
        "    mod = relay.transform.FoldScaleAxis()(mod)\n", "print(mod)",
    ]
    # everything else as it was, to the byte: the file is the original with the two lines swapped in
    old = before.decode().splitlines(keepends=True)
    new = after.decode().splitlines(keepends=True)
    changed = [line for line in new if line not in old]
    assert changed == ['    "with tvm.transform.PassContext(opt_level=3):\\n",\n',
                       '    "    mod = relay.transform.FoldScaleAxis()(mod)\\n",\n'], changed
    assert len(new) == len(old) + 1
    assert fixed["cells"][:2] == FOLD_NOTEBOOK["cells"][:2] and fixed["metadata"] == FOLD_NOTEBOOK["metadata"]
    assert fixed["cells"][2]["outputs"] == [OUTPUT]
    assert run_main("check", *TARGET, "fold.ipynb", cwd=tmp_path).returncode == 0


def test_a_notebook_not_laid_out_as_jupyter_writes_it_is_left_untouched(tmp_path):
    data = json.dumps(FOLD_NOTEBOOK).encode()  # one line, unsorted: rewriting it would change every byte
    (tmp_path / "fold.ipynb").write_bytes(data)
    done = run_main("fix", *TARGET, "--unsafe-fixes", "fold.ipynb", cwd=tmp_path)
    assert done.returncode == 1
    assert "left untouched: the notebook's JSON is not laid out as Jupyter writes it" in done.stderr
    assert (tmp_path / "fold.ipynb").read_bytes() == data
    # it is still checked
    assert "cell 3:3:7: TVM101" in run_main("check", *TARGET, "--format", "concise", "fold.ipynb", cwd=tmp_path).stdout


def test_add_noqa_goes_into_the_cell_and_silences_it(tmp_path):
    before = write(tmp_path / "fold.ipynb", FOLD_NOTEBOOK)
    done = run_main("check", *TARGET, "--add-noqa", "fold.ipynb", cwd=tmp_path)
    assert done.returncode == 0 and "Added 1 noqa directive." in done.stderr, done.stderr
    cell = json.loads((tmp_path / "fold.ipynb").read_bytes())["cells"][2]["source"]
    assert cell[2] == "mod = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101\n" and cell[1] == "!nvidia-smi\n"
    assert len((tmp_path / "fold.ipynb").read_bytes()) == len(before) + len("  # noqa: TVM101")
    assert run_main("check", *TARGET, "fold.ipynb", cwd=tmp_path).returncode == 0


def test_cell_magics_of_other_languages_are_not_read_as_python(tmp_path):
    write(tmp_path / "shell.ipynb", notebook(
        code("%%bash\n", "echo 'mod = relay.transform.FoldScaleAxis()(mod)'\n", "if [ 1 ]; then echo; fi\n"),
        code("%%time\n", "import tvm\n", "from tvm import relay\n", "mod = relay.transform.FoldScaleAxis()(mod)\n"),
    ))
    done = run_main("check", *TARGET, "--format", "concise", "shell.ipynb", cwd=tmp_path)
    assert [line.split(" TVM")[0] for line in done.stdout.splitlines() if "TVM" in line] == ["shell.ipynb:cell 2:4:7:"]


def test_explain_takes_the_place_check_prints(tmp_path):
    write(tmp_path / "fold.ipynb", FOLD_NOTEBOOK)
    done = run_main("explain", "fold.ipynb:cell 3:3:7", "--target-version", "0.19", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("fold.ipynb:cell 3:3:7: relay.transform.FoldScaleAxis()")
    assert "SKIPPED" in done.stdout
    as_json = json.loads(run_main("explain", "fold.ipynb:cell 3:3", "--target-version", "0.19", "--format", "json",
                                 cwd=tmp_path).stdout)
    assert (as_json["cell"], as_json["line"]) == (3, 3)
    for place, why in (("fold.ipynb:5:7", "FILE.ipynb:cell N:LINE"), ("fold.ipynb:cell 9:1", "no code cell 9"),
                       ("fold.ipynb:cell 3:40", "cell 3 has 4 lines")):
        bad = run_main("explain", place, "--target-version", "0.19", cwd=tmp_path)
        assert bad.returncode == 2 and why in bad.stderr and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


@pytest.mark.parametrize("content, why", [
    (b"{not json", "not a Jupyter notebook: JSONDecodeError"),
    (b'{"cells": 3}', "no list of cells"),
    (b"\xff\xfe", "not a Jupyter notebook"),
])
def test_a_broken_notebook_is_one_finding_and_the_run_goes_on(tmp_path, content, why):
    (tmp_path / "broken.ipynb").write_bytes(content)
    write(tmp_path / "fold.ipynb", FOLD_NOTEBOOK)
    done = run_main("check", *TARGET, "--format", "concise", ".", cwd=tmp_path)
    assert done.returncode == 1
    lines = [line for line in done.stdout.splitlines() if "TVM" in line]
    assert lines[0].startswith("broken.ipynb:1:1: TVM001 The file could not be decoded: ") and why in lines[0], lines
    assert lines[1].startswith("fold.ipynb:cell 3:3:7: TVM101")


@pytest.mark.long
def test_a_notebook_is_bounded_by_its_code_not_its_outputs(tmp_path):
    # 3 MB of output (a plot) beside a few lines of code, with max-file-size at 1 MB: checked
    plot = {"data": {"image/png": "A" * (3 << 20)}, "metadata": {}, "output_type": "display_data"}
    document = notebook(*FOLD_NOTEBOOK["cells"][:2], code(*FOLD_NOTEBOOK["cells"][2]["source"], outputs=[plot]))
    write(tmp_path / "plot.ipynb", document)
    done = run_main("check", *TARGET, "--max-file-size", "1", "--format", "concise", "plot.ipynb", cwd=tmp_path)
    assert "plot.ipynb:cell 3:3:7: TVM101" in done.stdout, done.stdout + done.stderr
    # code cells over the limit are not parsed, as a .py file would not be
    big = notebook(code("x = 1\n" * 200_000))
    write(tmp_path / "big.ipynb", big)
    done = run_main("check", *TARGET, "--max-file-size", "1", "--format", "concise", "big.ipynb", cwd=tmp_path)
    assert "big.ipynb:cell 1:1:1: TVM001 The file could not be analysed: too large to analyse" in done.stdout


def test_deep_nesting_in_a_cell_is_guarded_as_in_a_file(tmp_path):
    write(tmp_path / "deep.ipynb", notebook(code("x = " + "(" * 10000 + "1" + ")" * 10000 + "\n")))
    done = run_cli("check", *TARGET, "--format", "concise", "deep.ipynb", cwd=tmp_path, timeout=120)
    assert done.returncode == 1 and "TVM001" in done.stdout, done.stdout + done.stderr
    explain = run_cli("explain", "deep.ipynb:cell 1:1", "--target-version", "0.19", cwd=tmp_path, timeout=120)
    assert explain.returncode == 2 and len(explain.stderr.strip().splitlines()) == 1, explain.stderr


def test_a_notebook_that_is_a_fifo_is_not_read(tmp_path):

    os.mkfifo(tmp_path / "pipe.ipynb")
    done = run_cli("check", *TARGET, "--format", "concise", "pipe.ipynb", cwd=tmp_path, timeout=60)
    assert done.returncode in (1, 2) and "pipe.ipynb" in done.stdout + done.stderr


def test_check_stdin_with_a_notebook_name(tmp_path):
    data = write(tmp_path / "fold.ipynb", FOLD_NOTEBOOK)
    done = run_main("check", *TARGET, "--format", "concise", "--stdin-filename", "fold.ipynb", "-",
                   cwd=tmp_path, stdin=data.decode())
    assert "fold.ipynb:cell 3:3:7: TVM101" in done.stdout, done.stdout + done.stderr


def test_the_bundled_notebook_example():
    from helpers import REPO

    done = run_main("check", "--no-cache", "--format", "concise", "examples/relay_era/fold_scale_axis.ipynb", cwd=REPO)
    assert done.returncode == 1
    assert done.stdout.startswith("examples/relay_era/fold_scale_axis.ipynb:cell 3:2:12: TVM101"), done.stdout
    assert "when fold is called from examples/relay_era/fold_scale_axis.ipynb:cell 4:1" in done.stdout, done.stdout


def test_a_cell_that_does_not_parse_is_reported_and_the_others_are_checked(tmp_path):
    # Jupyter compiles each cell alone: a half-typed cell (`states[0].`) never runs, and does not
    # stop the notebook's other cells from being checked. IPython's help (`f?`, `??f`) is no error.
    write(tmp_path / "scratch.ipynb", notebook(
        code("import tvm\n", "from tvm import relay\n", "mod, params = relay.frontend.from_pytorch?\n", "??relay.build\n"),
        code("states[0].\n"),
        code('doc = """Why is it skipped?\n', 'Because of the gate."""\n',
             "mod = relay.transform.FoldScaleAxis()(mod)\n"),
    ))
    done = run_main("check", *TARGET, "--format", "concise", "scratch.ipynb", cwd=tmp_path)
    lines = [line for line in done.stdout.splitlines() if "TVM" in line]
    assert len(lines) == 2, lines
    assert lines[0].startswith("scratch.ipynb:cell 2:1:1: TVM001 The cell could not be parsed: invalid syntax")
    assert lines[1].startswith("scratch.ipynb:cell 3:3:7: TVM101")
    full = run_main("check", *TARGET, "scratch.ipynb", cwd=tmp_path).stdout
    assert "   1 | states[0]." in full  # the broken cell's own line is quoted, not a blank one
    # a fix elsewhere leaves the broken cell's text as it was
    before = json.loads((tmp_path / "scratch.ipynb").read_bytes())
    # a file whose status changed over RACY_NS ago is trusted by its signature: the fixer then
    # starts from the run's findings and counts what remains from its own re-checks, which lost
    # the cell's TVM001 and exited 0 (only when the test ran slowly enough for the file to age)
    time.sleep(RACY_NS / 1e9 + 0.2)
    assert run_main("fix", *TARGET, "--unsafe-fixes", "scratch.ipynb", cwd=tmp_path).returncode == 1  # TVM001 stays
    after = json.loads((tmp_path / "scratch.ipynb").read_bytes())
    assert after["cells"][:2] == before["cells"][:2] and "PassContext" in "".join(after["cells"][2]["source"])


@pytest.mark.parametrize("content, why", [
    (b"[" * 200_000, "nested too deeply to read"),  # json's decoder recurses per level
])
def test_a_notebook_json_nested_too_deeply_is_one_line_everywhere(tmp_path, content, why):
    (tmp_path / "deep.ipynb").write_bytes(content)
    done = run_cli("check", *TARGET, "--format", "concise", "deep.ipynb", cwd=tmp_path, timeout=120)
    assert done.returncode == 1 and why in done.stdout and "internal error" not in done.stderr, done.stderr
    explain = run_cli("explain", "deep.ipynb:cell 1:1", "--target-version", "0.19", cwd=tmp_path, timeout=120)
    assert explain.returncode == 2 and why in explain.stderr and len(explain.stderr.strip().splitlines()) == 1


def test_an_unpaired_surrogate_in_a_cell_is_that_cell_s_tvm001_and_nothing_is_written(tmp_path):
    # JSON may escape a lone surrogate ("\ud800"): no UTF-8 holds it, so the cell is no text
    document = notebook(code('x = "\ud800"\n'), code(*FOLD_NOTEBOOK["cells"][1]["source"]),
                        code(*FOLD_NOTEBOOK["cells"][2]["source"]))
    data = json.dumps(document, sort_keys=True, indent=1).encode()  # ASCII escapes: \ud800 as written
    (tmp_path / "sur.ipynb").write_bytes(data)
    done = run_main("check", *TARGET, "--format", "concise", "sur.ipynb", cwd=tmp_path)
    lines = [line for line in done.stdout.splitlines() if "TVM" in line]
    assert lines[0].startswith("sur.ipynb:cell 1:1:1: TVM001") and "unpaired surrogate" in lines[0], done.stdout
    assert lines[1].startswith("sur.ipynb:cell 3:3:7: TVM101")
    fixed = run_main("fix", *TARGET, "--unsafe-fixes", "sur.ipynb", cwd=tmp_path)
    assert "internal error" not in fixed.stderr and (tmp_path / "sur.ipynb").read_bytes() == data
