"""A finding's extra noqa lines (Finding.noqa_lines), end to end through `tvmlint check`.

TVM302 reports the build that runs FastMath; what the user wrote to cause it is the
`with` that sets opt_level 4 (where TVM303 reports an out-of-range level). A
`# noqa: TVM302` on that `with` suppresses the finding as one on the build does,
whether the run reads the file, the cache or stdin.
"""

from __future__ import annotations

import json

from helpers import run_main, write_tree

HEAD = "import tvm\nfrom tvm import relay\n"

SOURCE = HEAD + (
    "def quiet(mod):\n"
    "    with tvm.transform.PassContext(opt_level=7):  # noqa: TVM302, TVM303\n"
    "        return relay.build(mod, 'llvm')\n"
    "\n"
    "def half(mod):\n"
    "    with tvm.transform.PassContext(opt_level=7):  # noqa: TVM303\n"
    "        return relay.build(mod, 'llvm')\n"
    "\n"
    "def bound(mod):\n"
    "    ctx = tvm.transform.PassContext(opt_level=4)\n"
    "    with ctx:  # noqa: TVM302\n"
    "        return relay.build(mod, 'llvm')\n"
    "\n"
    "def loud(mod):\n"
    "    with tvm.transform.PassContext(opt_level=4):\n"
    "        return relay.build(mod, 'llvm')\n"
)
# what stays: the build in half() (its noqa names only TVM303) and the one in loud()
EXPECTED = [(9, "TVM302"), (18, "TVM302")]


def _findings(output: str):
    return sorted((f["line"], f["code"]) for f in json.loads(output))


def test_noqa_on_the_with_line_suppresses_the_build_finding(tmp_path):
    write_tree(tmp_path, {"app.py": SOURCE})
    args = ("check", "--select", "TVM302,TVM303", "--target-version", "0.19", "--format", "json", "--exit-zero")
    first = run_main(*args, "app.py", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert _findings(first.stdout) == EXPECTED
    # again, from the result cache: the deferred findings keep their noqa lines there
    again = run_main(*args, "app.py", cwd=tmp_path)
    assert _findings(again.stdout) == EXPECTED
    # a buffer on stdin (the editor's path) is judged the same way
    piped = run_main(*args, "--stdin-filename", "app.py", "-", cwd=tmp_path, stdin=SOURCE)
    assert _findings(piped.stdout) == EXPECTED


def test_a_noqa_line_of_the_finding_does_not_suppress_other_rules(tmp_path):
    # the with line's noqa names TVM302 only: TVM303's own finding there stays
    source = HEAD + "with tvm.transform.PassContext(opt_level=7):  # noqa: TVM302\n    lib = relay.build(mod, 'llvm')\n"
    write_tree(tmp_path, {"app.py": source})
    done = run_main("check", "--select", "TVM302,TVM303", "--target-version", "0.19", "--format", "json",
                   "--exit-zero", "--no-cache", "app.py", cwd=tmp_path)
    assert _findings(done.stdout) == [(3, "TVM303")]
