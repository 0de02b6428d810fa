"""Every rules/api_history.toml entry, checked through the real engine at releases around its history.

For each [[symbol]] the test writes code that uses it (an import of it, and for
`tvm.*` names an attribute path from `import tvm`), and checks it at the release
before it was deprecated or removed (nothing), at its deprecation (TVM202), at
its removal and at the newest release (TVM201). Where the entry has a rename and
the replacement exists at that release, `tvmlint fix` must produce code the same
release no longer reports.
"""

from __future__ import annotations

import sys
from typing import Dict, List, Optional

import pytest
from helpers import check_tree

from tvmlint.base.diagnostics import Finding
from tvmlint.run.fixer import fix_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from helpers import REPO

TABLE = tomllib.loads((REPO / "rules" / "api_history.toml").read_text(encoding="utf-8"))
RELEASES: List[str] = tomllib.loads((REPO / "rules" / "versions.toml").read_text(encoding="utf-8"))["releases"]
CODES = ("TVM201", "TVM202")


def _v(text: str):
    return tuple(int(part) for part in text.split("."))


def _before(release: str) -> Optional[str]:
    earlier = [r for r in RELEASES if _v(r) < _v(release)]
    return earlier[-1] if earlier else None


def _snippets(old: str) -> List[tuple]:
    """(source, line of the use) pairs that use `old`."""
    parent, _, name = old.rpartition(".")
    out = []
    if parent:
        out.append((f"from {parent} import {name}\n", 1))
    else:
        out.append((f"import {old}\n", 1))
    if old.startswith("tvm.") and "." in old[4:]:
        out.append((f"import tvm\nvalue = {old}\n", 2))
    return out


def _expectations(entry: dict):
    """(release, expected code or None) around the entry's history."""
    deprecated, removed = entry.get("deprecated"), entry.get("removed")
    first = deprecated or removed
    points = []
    if _before(first):
        points.append((_before(first), None))
    if deprecated:
        points.append((deprecated, "TVM202" if not removed or _v(deprecated) < _v(removed) else "TVM201"))
        if removed and _before(removed) and _v(_before(removed)) > _v(deprecated):
            points.append((_before(removed), "TVM202"))
    if removed:
        points.append((removed, "TVM201"))
    points.append((RELEASES[-1], "TVM201" if removed else ("TVM202" if deprecated else None)))
    return points


def _cases():
    for entry in TABLE["symbol"]:
        for release, code in _expectations(entry):
            for source, line in _snippets(entry["old"]):
                yield entry, release, code, source, line


CASES: Dict[str, List[tuple]] = {}
for _case in _cases():
    CASES.setdefault(_case[1], []).append(_case)


def _at_line(findings: List[Finding], line: int, path: str = "case.py") -> List[Finding]:
    return [f for f in findings if f.code in CODES and f.path == path and f.start.line == line]


# One run per release checks every entry's snippets there, each a module of its own (they
# import nothing but tvm): a run per snippet cost fifteen times as much. Every snippet that
# fails is named, as `old@release:line`.
@pytest.mark.parametrize("release", sorted(CASES, key=_v))
def test_every_entry_at_release(tmp_path, release):
    cases = CASES[release]
    names = [f"case_{number}.py" for number in range(len(cases))]
    found: Dict[str, List[Finding]] = {}
    checked = check_tree(tmp_path / "cases", dict(zip(names, (case[3] for case in cases))), select=list(CODES), target=release)
    for finding in checked:
        found.setdefault(finding.path, []).append(finding)
    wrong = []
    for name, (entry, _, code, source, line) in zip(names, cases):
        try:
            _check_entry(tmp_path, entry, release, code, source, line, _at_line(found.get(name, []), line, name))
        except AssertionError as error:
            wrong.append(f"{entry['old']}@{release}:{line}: {error}")
    assert not wrong, "\n".join(wrong)


def _check_entry(tmp_path, entry, release, code, source, line, findings) -> None:
    if code is None:
        assert findings == [], [f.message for f in findings]
        return
    assert [f.code for f in findings] == [code], [f.message for f in findings]
    message = findings[0].message
    if code == "TVM201":
        assert f"removed in {entry['removed']}" in message, message
    else:
        assert f"deprecated since TVM {entry['deprecated']}" in message, message
    fix = findings[0].fix
    if fix is not None:
        assert fix.safe and "from tvm.transform import" not in "".join(e.content for e in fix.edits)
        _assert_fix_clears(tmp_path, source, release, line)


def _assert_fix_clears(tmp_path, source: str, release: str, line: int) -> None:
    from tvmlint.run.config import Overrides, SettingsResolver
    from tvmlint.run.runner import check_text

    resolver = SettingsResolver(Overrides(target_version=release, select=CODES), cwd=tmp_path)
    path = tmp_path / "case.py"
    result = fix_text(source, lambda text: check_text(text, path, resolver.for_path(path), shown="case.py"), unsafe=False)
    assert result.changed and not result.discarded, result.discarded
    assert _at_line(result.remaining, line) == [], (result.fixed, [f.message for f in result.remaining])


def test_every_entry_cites_a_source_and_has_a_status():
    for entry in TABLE["symbol"]:
        assert entry.get("source"), entry["old"]
        assert entry.get("deprecated") or entry.get("removed"), entry["old"]
        if entry.get("fix"):
            assert entry.get("new") and entry.get("new_since"), entry["old"]


def test_a_rename_is_only_offered_where_its_target_still_exists(tmp_path):
    # graph_runtime -> graph_executor holds for 0.8-0.19; at 0.20 graph_executor is gone too
    source = "import tvm.contrib.graph_runtime as gr\n"
    at_19 = check_tree(tmp_path, {"case.py": source}, select=list(CODES), target="0.19")
    assert at_19[0].code == "TVM202" and at_19[0].fix is not None
    at_20 = check_tree(tmp_path, {"case.py": source}, select=list(CODES), target="0.20")
    assert at_20[0].code == "TVM201" and at_20[0].fix is None


def test_tir_names_go_where_the_member_lists_put_them(tmp_path):
    source = "import tvm\na = tvm.tir.Schedule(m)\nb = tvm.tir.transform.StmtSimplify()\nc = tvm.tir.IntImm('int32', 1)\n"
    findings = check_tree(tmp_path, {"case.py": source}, select=["TVM201"], target="0.27")
    assert [f.fix.edits[-1].content for f in findings] == ["tvm.s_tir", "tvm.tirx.transform", "tvm.tirx"]
    # a name neither list has (Simplify was renamed StmtSimplify): reported, not guessed
    findings = check_tree(tmp_path, {"case.py": "import tvm\nx = tvm.tir.transform.Simplify()\n"}, select=["TVM201"], target="0.27")
    assert len(findings) == 1 and findings[0].fix is None


def test_the_examples_get_the_seed_findings():
    import json

    from helpers import run_cli

    result = run_cli("check", "examples", "--format", "json", "--select", "TVM2", cwd=REPO)
    found = {(f["path"], f["line"], f["code"]) for f in json.loads(result.stdout)}
    expected = {
        ("examples/nnvm_era/tune_and_build.py", 6, "TVM202"),  # import nnvm.compiler at 0.6
        ("examples/nnvm_era/tune_and_build.py", 14, "TVM202"),  # nnvm.compiler.build(...): its own entry
        ("examples/relay_era/port_from_nnvm.py", 7, "TVM202"),  # graph_runtime at 0.8
        ("examples/relay_era/port_from_nnvm.py", 15, "TVM202"),  # relay.build_config at 0.8
        ("examples/relay_era/port_from_nnvm.py", 16, "TVM203"),  # graph, lib, params = relay.build(...)
        ("examples/relay_era/port_from_nnvm.py", 18, "TVM202"),  # relay.save_param_dict at 0.8
        ("examples/relax_era/fp16_conv2d.py", 7, "TVM201"),  # from tvm.script import tir at 0.27
        ("examples/relax_era/fp16_conv2d.py", 28, "TVM201"),  # tvm.tir.Schedule at 0.27
    }
    assert expected <= found, (expected - found, result.stdout)


PORT = (REPO / "examples" / "relay_era" / "port_from_nnvm.py").read_text(encoding="utf-8")
NNVM = (REPO / "examples" / "nnvm_era" / "tune_and_build.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "source, target, expected",
    [
        # at 0.6 build_config, the tuple, graph_runtime and relay.save_param_dict are the normal API
        (PORT, "0.6", []),
        # both imports, and the uses with entries of their own: build_config, build, save_param_dict
        # (build_module.OPT_PASS_LEVEL is under the import's own entry: left to the import)
        (NNVM, "0.6", ["TVM202"] * 5),
        # at 0.18 NNVM is gone (the same lines) and the relay habits are deprecated; the call of
        # graph_runtime's create() shim warns on its own line (api_history.toml warning_calls)
        (NNVM, "0.18", ["TVM201"] * 5),
        (PORT, "0.18", ["TVM202", "TVM202", "TVM203", "TVM202", "TVM202"]),
        (
            "from tvm import relay\nmod = relay.ir_pass.infer_type(mod)\n", "0.18", ["TVM201"],
        ),
        # at 0.27 every line that must change: both imports, relay.frontend, build_config, build and
        # save_param_dict (entries of their own); graph_runtime.create is under its import's entry
        (PORT, "0.27", ["TVM201"] * 6),
    ],
)
def test_version_aware_both_ways(tmp_path, source, target, expected):
    findings = check_tree(tmp_path, {"case.py": source}, select=["TVM2"], target=target)
    assert [f.code for f in findings] == expected, [(f.start.line, f.code, f.message) for f in findings]


def test_advice_names_no_context_before_its_release():
    """Advice that names a PassContext API the deprecating release does not have yet says from when
    (#28: at 0.6 TVM202 advised tvm.transform.PassContext, which arrived in 0.7)."""
    from tvmlint.base.versions import parse_version
    from tvmlint.knowledge.tables import load_table

    first: dict = {}
    for row in load_table("contexts.toml").get("context", []):
        for api in row["api"]:
            since = parse_version(row.get("since", "0.4"))
            first[api] = min(first.get(api, since), since)
    wrong = []
    for symbol in load_table("api_history.toml").get("symbol", []):
        advice, deprecated = symbol.get("advice", ""), symbol.get("deprecated") or symbol.get("removed")
        for api, since in first.items():
            written = api in advice and not any(api + suffix in advice for suffix in ("(", "."))
            named = api + "(" in advice or written
            if named and deprecated and parse_version(deprecated) < since:
                shown = f"{since[0]}.{since[1]}" if isinstance(since, tuple) else str(since)
                if f"from {shown}" not in advice and f"{shown}+" not in advice and f"({shown}" not in advice:
                    wrong.append((symbol["old"], api))
    assert not wrong, wrong
