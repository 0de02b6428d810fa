"""What a fix costs: one re-check per round, a run's findings reused, broken fixes found by halving.

The timing (fix within 2x of check on a 20,000-line file) is printed by benchmarks/large_files.py;
these tests count the work instead."""

from __future__ import annotations

import random
import time

from helpers import run_cli, write_tree

from tvmlint.base.diagnostics import Edit, Finding, Fix, Position
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.fixer import choose, fix_file, fix_text, offsets, to_offset
from tvmlint.run.runner import check_text

CONFIG = '[tool.tvmlint]\ntarget-version = "0.19"\n'
HEAD = "import tvm\nfrom tvm import relay, relax\n\n"
BLOCK = (
    "mod = relay.transform.FoldScaleAxis()(mod)\n"
    'with tvm.transform.PassContext(opt_level=3, disabled_pass=["alteroplayout"], config={{"tirx.disable_vectorize": True}}):\n'
    '    lib_{i} = relay.build(mod, "llvm")\n'
    'target_{i} = tvm.target.create("llvm")\n'
    'ctx_{i} = tvm.context("cpu", 0)\n'
)
TEXT = HEAD + "".join(BLOCK.format(i=i) for i in range(12))


def _project(tmp_path, text=TEXT):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "many.py": text})
    return tmp_path / "many.py"


def _counting(tmp_path, path):
    settings = SettingsResolver(Overrides(), cwd=tmp_path).for_path(path)
    calls = []

    def check(text):
        calls.append(text)
        return check_text(text, path, settings, shown="many.py")

    return check, calls


def test_one_round_fixes_everything_with_one_check_when_the_findings_are_known(tmp_path):
    path = _project(tmp_path)
    check, calls = _counting(tmp_path, path)
    findings = check(TEXT)
    calls.clear()
    result = fix_text(TEXT, check, unsafe=True, findings=findings)
    assert len(result.applied) == len([f for f in findings if f.fix]) > 30
    assert result.remaining == [] and result.verified
    assert len(calls) == 1  # one round, one re-check; nothing left to fix ends the rounds
    # the same as fixing without the findings given (which checks the text first)
    check2, calls2 = _counting(tmp_path, path)
    again = fix_text(TEXT, check2, unsafe=True)
    assert again.fixed == result.fixed and len(calls2) == 2


def _insert(line: int, content: str, code: str = "TVM999") -> Finding:
    edit = Edit(Position(line, 1), Position(line, 1), content)
    return Finding("many.py", Position(line, 1), Position(line, 1), code, "warning", f"synthetic {line}", Fix("f", (edit,), True))


def test_broken_fixes_among_many_are_found_by_halving(tmp_path, monkeypatch):
    import tvmlint.run.fixer as fixer

    text = "".join(f"x{i} = {i}\n" for i in range(400))
    fixes = [_insert(line, "# fine\n") for line in range(1, 400, 2)]
    fixes[37] = _insert(75, "(\n")  # breaks the syntax
    fixes[150] = _insert(301, "def (\n")

    def check(candidate):
        # each fix's finding goes once its comment is there
        return [f for f in fixes if f.fix.edits[0].content == "# fine\n" and "# fine\n" not in candidate] + [
            f for f in fixes if f.fix.edits[0].content != "# fine\n"
        ]

    real = fixer.parses
    parsed = []
    monkeypatch.setattr(fixer, "parses", lambda t: parsed.append(1) or real(t))
    result = fix_text(text, check, unsafe=False, findings=check(text))
    assert sorted(f.message for f, _why in result.discarded) == ["synthetic 301", "synthetic 75"]
    assert all("would not parse" in why for _f, why in result.discarded)
    assert result.fixed.count("# fine\n") == len(fixes) - 2
    assert len(parsed) < 40  # not one parse of the file per fix (200)


def test_choose_agrees_with_pairwise_overlap():
    """The bisecting `choose` against the pairwise test it replaced, on random spans."""
    rng = random.Random(7)
    text = "".join("abcdefghij\n" for _ in range(60))
    starts = offsets(text)
    for _ in range(200):
        findings = []
        for n in range(rng.randint(1, 25)):
            edits = []
            for _ in range(rng.randint(1, 3)):
                line, col = rng.randint(1, 60), rng.randint(1, 11)
                end_line = min(60, line + rng.choice([0, 0, 0, 1]))
                end_col = rng.randint(col if end_line == line else 1, 11)
                edits.append(Edit(Position(line, col), Position(end_line, end_col), "z"))
            findings.append(Finding("t.py", Position(1, 1), Position(1, 1), "TVM999", "warning", str(n), Fix("f", tuple(edits), True)))
        taken, expected = [], []
        for finding in findings:
            spans = [(to_offset(starts, e.start), to_offset(starts, e.end)) for e in finding.fix.edits]
            if any(b <= oe and ob <= e for b, e in spans for ob, oe in taken):
                continue
            taken.extend(spans)
            expected.append(finding)
        assert choose(findings, text, False, set()) == expected


def test_a_run_of_one_file_fixes_it_from_the_runs_findings(tmp_path, monkeypatch, capsys):
    import tvmlint.run.fixer as fixer
    from tvmlint.frontends.cli import main

    path = _project(tmp_path)
    time.sleep(2.1)  # its signature vouches for its content once its last change is a clock tick old
    given = []
    real = fixer.fix_file
    monkeypatch.setattr(fixer, "fix_file", lambda *a, **k: given.append(a[5] if len(a) > 5 else k.get("known")) or real(*a, **k))
    monkeypatch.chdir(tmp_path)
    assert main(["fix", "--no-cache", "--unsafe-fixes", "many.py"]) == 0
    assert len(given) == 1 and given[0] is not None and len(given[0][0]) > 30
    out = capsys.readouterr().out
    assert "Fixed" in out and "0 remaining" in out
    fixed = path.read_text()
    assert "tvm.device(" in fixed and '"AlterOpLayout"' in fixed and "with tvm.transform.PassContext(opt_level=3):\n    mod" in fixed
    # the same text as a run over the directory (the findings checked again, then every file re-run)
    write_tree(tmp_path / "other", {"pyproject.toml": CONFIG, "many.py": TEXT, "b.py": "x = 1\n"})
    assert run_cli("fix", "--no-cache", "--unsafe-fixes", ".", cwd=tmp_path / "other").returncode == 0
    assert (tmp_path / "other" / "many.py").read_text() == fixed
    assert run_cli("check", "--no-cache", "many.py", cwd=tmp_path).returncode == 0


def test_known_findings_are_not_used_for_a_file_that_changed_since(tmp_path):
    path = _project(tmp_path)
    check, calls = _counting(tmp_path, path)
    stale = check(TEXT)
    path.write_text("import tvm\nctx = tvm.context('cpu', 0)\n")
    calls.clear()
    outcome = fix_file(path, "many.py", check, unsafe=True, write=True, known=(stale, (0, 0, 0, 0, 0)))
    assert outcome.written and path.read_text() == "import tvm\nctx = tvm.device('cpu', 0)\n"
    assert len(calls) == 2  # checked as read, then once after its round
