"""`tvmlint fix --diff`'s diff: difflib's format, and a patch that `git apply` turns into the fixed file."""

from __future__ import annotations

import difflib
import random
import subprocess

import pytest

from tvmlint.output.unified_diff import _opcodes, unified_diff


def _lines(count: int, seed: int):
    return [f"line {seed}.{index}\n" for index in range(count)]


@pytest.mark.parametrize("change", [
    lambda b: b.__setitem__(10, "changed\n"),
    lambda b: b.insert(30, "new\n"),
    lambda b: b.__delitem__(45),
    lambda b: (b.__setitem__(0, "first\n"), b.append("last\n")),
    lambda b: b.__delitem__(slice(5, 25)),
])
def test_one_change_gives_difflib_s_diff(change):
    before = _lines(60, 0)
    after = list(before)
    change(after)
    assert unified_diff(before, after, "a/f.py", "b/f.py") == list(difflib.unified_diff(before, after, "a/f.py", "b/f.py"))


def test_no_change_is_no_diff():
    assert unified_diff(_lines(5, 1), _lines(5, 1), "a", "b") == []


def test_opcodes_turn_one_list_into_the_other():
    rng = random.Random(7)
    for _ in range(2000):
        before = [f"{rng.randint(0, 6)}\n" for _ in range(rng.randint(0, 25))]
        after = list(before)
        for _ in range(rng.randint(0, 6)):
            roll = rng.random()
            if roll < 0.3 and after:
                after.pop(rng.randrange(len(after)))
            elif roll < 0.6:
                after.insert(rng.randint(0, len(after)), f"{rng.randint(0, 9)}\n")
            elif after:
                after[rng.randrange(len(after))] = f"x{rng.randint(0, 3)}\n"
        rebuilt, at_a, at_b = [], 0, 0
        for tag, a0, a1, b0, b1 in _opcodes(before, after):
            assert (a0, b0) == (at_a, at_b)
            if tag == "equal":
                assert before[a0:a1] == after[b0:b1]
            rebuilt += after[b0:b1]
            at_a, at_b = a1, b1
        assert (at_a, at_b) == (len(before), len(after)) and rebuilt == after


def test_git_applies_the_diff_of_many_fixes(tmp_path):
    # the shape of `fix` on a large file: thousands of lines changed, some lines added
    rng = random.Random(3)
    before = [f"value_{index} = compute({index})\n" for index in range(5000)]
    after = []
    for index, line in enumerate(before):
        if rng.random() < 0.25:
            after.append(f"with ctx_{index}():\n")
            after.append("    " + line.replace("compute", "fixed"))
        else:
            after.append(line)
    (tmp_path / "m.py").write_text("".join(before))
    (tmp_path / "m.diff").write_text("".join(unified_diff(before, after, "a/m.py", "b/m.py")))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    done = subprocess.run(["git", "apply", "m.diff"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "m.py").read_text() == "".join(after)
