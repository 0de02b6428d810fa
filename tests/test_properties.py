"""Property tests: over generated source and over damaged copies of the examples and the rules'
own cases, checking never raises and fixing never writes code that does not parse.

Budgets are small and the runs derandomized, so CI sees the same examples every time.
"""

from __future__ import annotations

import ast

import hypothesmith
import libcst as cst
import pytest
from helpers import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tvmlint.base.source import decode
from tvmlint.checks import all_rules
from tvmlint.checks.rule import Case
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.fixer import fix_file, fix_text
from tvmlint.run.runner import check_text


def budget(examples: int):
    return settings(
        max_examples=examples, derandomize=True, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )

RESOLVER = SettingsResolver(Overrides(target_version="0.8", select=("ALL",)), cwd=REPO)
RESOLVER_NEW = SettingsResolver(Overrides(target_version="0.19", select=("ALL",)), cwd=REPO)


def _seeds():
    texts = [p.read_text(encoding="utf-8") for p in sorted((REPO / "examples").rglob("*.py"))]
    for rule in all_rules().values():
        for case in list(rule.VALID) + list(rule.INVALID):
            texts.append(case.code if isinstance(case, Case) else case)
    return [text for text in texts if text.strip()]


SEEDS = _seeds()


def check(text: str, resolver=RESOLVER):
    path = REPO / "generated.py"
    return check_text(text, path, resolver.for_path(path), shown="generated.py")


def _parses(text: str) -> bool:
    """Both parsers take it: the Python that runs the code, and libcst (which fix edits with)."""
    try:
        ast.parse(text)
        cst.parse_module(text)
        return True
    except Exception:
        return False


def assert_check_and_fix_hold(text: str, resolver=RESOLVER) -> None:
    findings = check(text, resolver)  # never raises: bad input is a TVM001 finding
    assert all(f.start.line >= 1 and f.start.column >= 1 for f in findings)
    result = fix_text(text, lambda candidate: check(candidate, resolver), unsafe=True)
    if result.changed:
        assert _parses(result.fixed), "a fix produced code that does not parse"
        assert _parses(text), "a file that does not parse was changed"


# -- generated source ----------------------------------------------------------------

NAMES = st.sampled_from(["tvm", "relay", "mod", "params", "seq", "ctx", "transform", "x", "f", "tir", "relax"])
ATTRS = st.sampled_from([
    "transform.PassContext", "relay.build", "relay.build_config", "relay.transform.FoldScaleAxis",
    "transform.Sequential", "relay.transform.FoldConstant", "relax.transform.FuseTIR", "build",
    "relay.quantize.quantize", "relay.save_param_dict", "contrib.graph_runtime.create", "target.create",
])
LEVELS = st.sampled_from(["0", "1", "2", "3", "4", "level", "None", "-1", "'3'"])


@st.composite
def expressions(draw):
    kind = draw(st.integers(0, 4))
    head = draw(NAMES)
    if kind == 0:
        return f"{head}.{draw(ATTRS)}(opt_level={draw(LEVELS)})"
    if kind == 1:
        passes = ", ".join(f"{head}.{draw(ATTRS)}()" for _ in range(draw(st.integers(0, 3))))
        return f"tvm.transform.Sequential([{passes}], opt_level={draw(LEVELS)})"
    if kind == 2:
        return f"{draw(NAMES)}({draw(NAMES)})"
    if kind == 3:
        keys = draw(st.sampled_from(['"relay.FuseOps.max_depth"', '"tir.disable_vectorize"', '"relay.backend.use_auto_scheduler"', "k"]))
        return f"tvm.transform.PassContext(opt_level={draw(LEVELS)}, config={{{keys}: 1}}, disabled_pass=[{draw(NAMES)}])"
    return f"{head}.{draw(ATTRS)}"


@st.composite
def statements(draw, depth=0):
    kind = draw(st.integers(0, 7 if depth < 3 else 3))
    if kind == 0:
        return [f"{draw(NAMES)} = {draw(expressions())}"]
    if kind == 1:
        return [draw(expressions())]
    if kind == 2:
        return [draw(st.sampled_from([
            "import tvm", "from tvm import relay", "from tvm import relay as r", "import tvm.relay as relay",
            "from tvm.contrib import graph_runtime", "from tvm import transform", "from tvm import relax, tir",
        ]))]
    if kind == 3:
        return [draw(st.sampled_from(["pass", "return", "x = seq(mod)", "mod = seq(mod)", "ctx.__enter__()"]))]
    body = [line for _ in range(draw(st.integers(1, 3))) for line in draw(statements(depth + 1))]
    indented = ["    " + line for line in body]
    if kind == 4:
        return [f"with {draw(expressions())} as {draw(NAMES)}:"] + indented
    if kind == 5:
        return [f"def {draw(NAMES)}({draw(NAMES)}):"] + indented
    if kind == 6:
        return [f"if {draw(NAMES)}:"] + indented + ["else:", "    pass"]
    return [f"class C{depth}:"] + indented


@st.composite
def modules(draw):
    lines = [line for _ in range(draw(st.integers(1, 8))) for line in draw(statements())]
    return "\n".join(lines) + "\n"


@budget(40)
@given(modules())
def test_generated_tvm_code(text):
    assert _parses(text)
    assert_check_and_fix_hold(text)
    assert_check_and_fix_hold(text, RESOLVER_NEW)


@pytest.mark.long
@budget(25)
@given(hypothesmith.from_node(cst.Module))
def test_arbitrary_python_from_libcsts_grammar(text):
    assert_check_and_fix_hold("import tvm\nfrom tvm import relay\n" + text)


# -- damaged copies of the examples and cases ------------------------------------------

seeds = st.sampled_from(SEEDS)


@st.composite
def damaged(draw):
    """A seed's bytes, truncated, with bytes flipped, NULs inserted and line ends mixed."""
    data = bytearray(draw(seeds).encode("utf-8"))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["truncate", "flip", "nul", "line_ends", "insert"]))
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        if op == "truncate":
            del data[at:]
        elif op == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "nul":
            data.insert(at, 0)
        elif op == "line_ends":
            ending = draw(st.sampled_from([b"\r\n", b"\r", b"\n", b"\x0c\n", b"\\\n"]))
            text = bytes(data).replace(b"\r\n", b"\n").split(b"\n")
            data = bytearray(ending.join(text))
        else:
            data[at:at] = draw(st.sampled_from([b"(", b")", b":", b"\t", b"    ", b"'", b'"""', b"\xff", b"\xef\xbb\xbf", b"#", b"\\"]))
    return bytes(data)


@budget(120)
@given(damaged())
def test_damaged_sources_never_raise_and_never_gain_broken_fixes(tmp_path_factory, data):
    source, _why = decode(data)
    if source is not None:
        assert_check_and_fix_hold(source.text)
    # the file path too: what fix writes is the original bytes or a text that parses
    root = tmp_path_factory.mktemp("damaged")
    path = root / "damaged.py"
    path.write_bytes(data)
    outcome = fix_file(path, "damaged.py", lambda text: check(text), unsafe=True, write=True)
    after = path.read_bytes()
    if after != data:
        assert outcome.written and source is not None
        text, _ = decode(after)
        assert text is not None and _parses(text.text) and _parses(source.text)


@pytest.mark.parametrize("seed", range(0, len(SEEDS), max(1, len(SEEDS) // 12)))
def test_every_truncation_of_a_seed(seed):
    """Truncation at every line of a seed (and every byte of its first line)."""
    text = SEEDS[seed]
    cuts = {i for i, ch in enumerate(text) if ch == "\n"} | set(range(min(len(text), 80)))
    for cut in sorted(cuts):
        findings = check(text[:cut])
        assert all(f.start.line >= 1 for f in findings)


def test_the_cli_on_damaged_files(tmp_path):
    """A few damaged files through the real command: findings or TVM001, never a traceback."""
    from helpers import run_cli

    for index in range(30):
        (tmp_path / f"d{index}.py").write_bytes(_deterministic_damage(index))
    result = run_cli("check", "--no-cache", "--select", "ALL", "--target-version", "0.8", ".", cwd=tmp_path)
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr


def _deterministic_damage(index: int) -> bytes:
    data = bytearray(SEEDS[index % len(SEEDS)].encode("utf-8"))
    if not data:
        return b""
    position = (index * 7919) % len(data)
    if index % 4 == 0:
        return bytes(data[:position])
    if index % 4 == 1:
        data[position] ^= 0x80
    elif index % 4 == 2:
        data.insert(position, 0)
    else:
        data = bytearray(bytes(data).replace(b"\n", b"\r" if index % 8 == 3 else b"\r\n", position % 5 + 1))
    return bytes(data)
