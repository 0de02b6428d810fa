"""explain agrees with what check reports and recommends (#32), through the command line: the line
TVM102 reports (where a Sequential is built) is explained as the run it builds, and a Relay build
at the level TVM's tutorials use is not told it "needs opt_level 4", which turns on FastMath."""

from __future__ import annotations

import json

from helpers import run_main

BUILT_THEN_RUN = (
    "import tvm\nfrom tvm import relax\n\n"
    "def tidy(mod):\n"
    "    with tvm.transform.PassContext(opt_level=0):\n"
    "        seq = tvm.transform.Sequential([relax.transform.DeadCodeElimination()], opt_level=1)\n"
    "        return seq(mod)\n\n"
    "tidy(mod)\n"
)
BUILD_AT_3 = ("import tvm\nfrom tvm import relay\n"
              "with tvm.transform.PassContext(opt_level=3):\n    lib = relay.build(mod, target='llvm')\n")


def test_the_line_tvm102_reports_is_explained_as_the_run(tmp_path):
    (tmp_path / "seq.py").write_text(BUILT_THEN_RUN, encoding="utf-8")
    check = run_main("check", "--no-cache", "--target-version", "0.27", "--format", "json", "seq.py", cwd=tmp_path)
    [tvm102] = [f for f in json.loads(check.stdout) if f["code"] == "TVM102"]
    done = run_main("explain", f"seq.py:{tvm102['line']}", "--target-version", "0.27", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("seq.py:7:")
    assert f"the Sequential built on line {tvm102['line']} is run on line 7" in done.stdout
    assert "SKIPPED" in done.stdout


def test_a_build_at_the_tutorials_level_is_not_told_to_go_to_4(tmp_path):
    (tmp_path / "b.py").write_text(BUILD_AT_3, encoding="utf-8")
    done = run_main("explain", "b.py:4", "--target-version", "0.18", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [outcome] = json.loads(done.stdout)["outcomes"]
    assert outcome["verdict"] == "runs"
    assert "the level TVM's tutorials build at" in outcome["summary"]
    assert "FastMath" in outcome["summary"] and "need opt_level 4" not in outcome["summary"]
    # and check agrees: TVM108 says nothing about a build at 3
    assert run_main("check", "--no-cache", "--target-version", "0.18", "--extend-select", "TVM108", "b.py",
                   cwd=tmp_path).returncode == 0
    # a build at 2 is still told what it leaves out at level 3
    (tmp_path / "b.py").write_text(BUILD_AT_3.replace("opt_level=3", "opt_level=2"), encoding="utf-8")
    [outcome] = json.loads(run_main("explain", "b.py:4", "--target-version", "0.18", "--format", "json",
                                   cwd=tmp_path).stdout)["outcomes"]
    assert outcome["verdict"] == "skips" and "FoldScaleAxis" in outcome["summary"]
