"""Edits change only the bytes they mean to (#29): fix, --add-noqa and TVM002's fix splice their
text into the file's own bytes, or leave the file alone with a one-line reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import run_main
from tvmlint.base.diagnostics import Finding, Position
from tvmlint.base.source import NotByteExact, decode, edited_bytes
from tvmlint.run.fixer import add_noqa_to_file

# cp932 decodes 87 90 and 81 e0 to the same character (U+222A's twins) and writes back 81 e0;
# utf-7 reads `+ACE-` as `!` and writes `!`: re-encoding the file would change these lines
NOT_ROUND_TRIP = {
    "cp932": b"# coding: cp932\n# \x87\x90 \xfa\x4a\nx = 1  # noqa: TVM101\n",
    "utf-7": b"# coding: utf-7\n# +ACE-\nx = 1  # noqa: TVM101\n",
    # after an escape its decoder passes these bytes through as characters its encoder refuses
    "iso-2022-jp": b"# coding: iso-2022-jp\n# \x1b\n# \x87\x90\nx = 1  # noqa: TVM101\n",
}

FOLD = b"from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


def test_fix_leaves_a_file_whose_encoding_does_not_round_trip_byte_for_byte(tmp_path: Path):
    for name, data in NOT_ROUND_TRIP.items():
        path = tmp_path / f"{name.replace('-', '_')}.py"
        path.write_bytes(data)
        done = run_main("fix", "--no-cache", "--extend-select", "TVM002", path.name, cwd=tmp_path)
        assert path.read_bytes() == data, name
        reasons = [line for line in done.stderr.splitlines() if "left untouched" in line]
        assert len(reasons) == 1 and "does not give back the file's own bytes" in reasons[0], done.stderr
        assert done.returncode == 1  # the unused directive is still there


def test_a_round_tripping_legacy_encoding_is_edited_on_the_one_line(tmp_path: Path):
    data = b"# coding: cp932\n# \x82\xa0 \x93\xfa\x96\x7b\nx = 1  # noqa: TVM101\n"
    path = tmp_path / "a.py"
    path.write_bytes(data)
    done = run_main("fix", "--no-cache", "--extend-select", "TVM002", "a.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == b"# coding: cp932\n# \x82\xa0 \x93\xfa\x96\x7b\nx = 1\n"


def test_a_comment_after_the_directive_keeps_one_hash(tmp_path: Path):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1  # noqa: TVM101  # other\n")
    run_main("fix", "--no-cache", "--extend-select", "TVM002", "a.py", cwd=tmp_path)
    assert path.read_bytes() == b"x = 1  # other\n"


def test_add_noqa_with_diff_prints_the_diff_and_writes_nothing(tmp_path: Path):
    path = tmp_path / "b.py"
    path.write_bytes(FOLD)
    done = run_main("check", "--no-cache", "--add-noqa", "--diff", "--target-version", "0.8", "b.py", cwd=tmp_path)
    assert path.read_bytes() == FOLD
    assert done.returncode == 1, done.stderr
    assert "+mod = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101" in done.stdout
    assert "Would add 1 noqa directive." in done.stderr
    done = run_main("check", "--no-cache", "--add-noqa", "--target-version", "0.8", "b.py", cwd=tmp_path)
    assert done.returncode == 0 and path.read_bytes() == FOLD.replace(b"(mod)\n", b"(mod)  # noqa: TVM101\n")


def test_add_noqa_leaves_a_file_whose_encoding_does_not_round_trip(tmp_path: Path):
    data = b"# coding: utf-7\n# +ACE-\n" + FOLD
    path = tmp_path / "u.py"
    path.write_bytes(data)
    done = run_main("check", "--no-cache", "--add-noqa", "--target-version", "0.8", "u.py", cwd=tmp_path)
    assert path.read_bytes() == data
    assert done.returncode == 2 and "left untouched" in done.stderr


# -- the property: over random bytes in several encodings, bytes outside the edited line stay ----

ENCODINGS = ["utf-8", "latin-1", "cp1252", "cp932", "shift_jis", "euc-jp", "iso-2022-jp", "gb18030", "big5", "utf-7"]


# byte sequences that decode but come back other (cp932's NEC/IBM duplicates, utf-7's optional
# escapes, a big5 and a gb18030 pair) mixed into random bytes
TRICKY = [b"\x87\x90", b"\xfa\x4a", b"\xed\x40", b"+ACE-", b"+AGE-x", b"\xa1\x40", b"\x81\x30\x81\x30", b"\x82\xa0"]
CHUNK = st.one_of(
    st.sampled_from(TRICKY),
    st.binary(max_size=12).filter(lambda b: b"\n" not in b and b"\r" not in b and b"\x00" not in b),
)


def _lines(data: bytes):
    return data.split(b"\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(encoding=st.sampled_from(ENCODINGS), noise=st.lists(CHUNK, min_size=1, max_size=4),
       edited=st.integers(min_value=0, max_value=3), adding=st.booleans())
def test_an_edit_changes_no_byte_outside_its_line(tmp_path_factory, encoding, noise, edited, adding):
    # a comment line of arbitrary bytes per noise item, and one code line to edit
    body = [b"# " + chunk for chunk in noise]
    code = b"x = 1" if adding else b"x = 1  # noqa: TVM101"
    lines = [f"# coding: {encoding}".encode(), *body]
    at = 1 + min(edited, len(body))
    lines.insert(at, code)
    data = b"\n".join(lines) + b"\n"
    source, _ = decode(data)
    if source is None:
        return  # not text in that encoding: tvmlint reads nothing and writes nothing
    path = tmp_path_factory.mktemp("e") / "a.py"
    path.write_bytes(data)
    text_lines = source.text.split("\n")
    line_number = next(i for i, line in enumerate(text_lines, 1) if line.startswith("x = 1"))
    if adding:
        finding = Finding("a.py", Position(line_number, 1), Position(line_number, 6), "TVM101", "error", "m")
        count, problem = add_noqa_to_file(path, [finding])
        after = path.read_bytes()
        if count == 0:
            assert after == data and problem
            return
    else:
        new_text = source.text.replace("x = 1  # noqa: TVM101", "x = 1", 1)
        try:
            after = edited_bytes(source, data, new_text)
        except NotByteExact:
            assert not _round_trips(source, data)
            return
    before_lines, after_lines = _lines(data), _lines(after)
    assert len(before_lines) == len(after_lines)
    changed = [i for i, (a, b) in enumerate(zip(before_lines, after_lines)) if a != b]
    assert changed == [line_number - 1]
    assert after_lines[line_number - 1].startswith(b"x = 1")


def _round_trips(source, data: bytes) -> bool:
    try:
        return source.encode(source.text) == data
    except UnicodeEncodeError:
        return False


def test_fix_on_stdin_gives_back_a_file_it_cannot_edit_byte_for_byte(tmp_path: Path):
    # a formatter pipe: the fixed source on stdout, or the input unchanged with the reason on stderr
    data = NOT_ROUND_TRIP["cp932"]
    done = subprocess.run([sys.executable, "-m", "tvmlint", "fix", "--extend-select", "TVM002", "-"], cwd=tmp_path,
                          input=data, capture_output=True, timeout=120)
    assert done.stdout == data
    assert b"left untouched" in done.stderr and done.returncode == 1
    done = subprocess.run([sys.executable, "-m", "tvmlint", "fix", "--extend-select", "TVM002", "-"], cwd=tmp_path,
                          input=b"# coding: cp932\n# \x82\xa0\nx = 1  # noqa: TVM101\n", capture_output=True, timeout=120)
    assert done.stdout == b"# coding: cp932\n# \x82\xa0\nx = 1\n" and done.returncode == 0
