"""Modules that define passes tell the project their names without being analysed.

TVM104 drops an unknown pass name that some module of the project defines
with TVM's decorators. The cheap stage reads those names from the stdlib tree
of every module that uses a decorator (`tvmlint.run.cheap.Selection.defined_passes`),
so no module is analysed by libcst only for them. Every scenario also runs with
the cheap stage off (every module analysed): the findings must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import prefiltered, write_tree

from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.runner import check_paths, check_text

TARGET = "0.27"
# defines a pass and nothing any rule looks at
PROVIDER = (
    "import tvm\n\n\n@tvm.transform.module_pass(opt_level=1, name='FuseOpz')\n"
    "def fuse_opz(mod, ctx):\n    return mod\n"
)
# names it in a pass list: TVM104 would report it ("Did you mean 'FuseOps'?") if no module defined it
USER = (
    "import tvm\n\n"
    "with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOpz', 'FuseOP']):\n"
    "    lib = tvm.compile(mod, target='llvm')\n"
)
# analysed for TVM101 in the first round, its pass definition blanked with the unrelated function
MIXED = (
    "import tvm\nfrom tvm import relax\n\n\n"
    "@tvm.transform.module_pass(opt_level=1, name='FuseOpz')\ndef fuse_opz(mod, ctx):\n    return mod\n\n\n"
    "def run(mod):\n    seq = tvm.transform.Sequential([relax.transform.FuseOps()])\n    return seq(mod)\n\n\n"
    "run(None)\n"
)


def _run(root: Path, cheap: bool, select=("TVM104",)):
    resolver = SettingsResolver(Overrides(target_version=TARGET, select=select), cwd=root)
    return check_paths([root], prefiltered(resolver, cheap), jobs=1, use_cache=False)


def _findings(report):
    return [(f.path, f.start.line, f.code, f.message) for f in report.findings]


def _same_on_and_off(root: Path, files, select=("TVM104",)):
    write_tree(root, files)
    on, off = _run(root, True, select), _run(root, False, select)
    assert _findings(on) == _findings(off)
    return on


def test_a_module_defining_a_pass_alone_is_not_analysed(tmp_path):
    on = _same_on_and_off(tmp_path, {"passes.py": PROVIDER})
    assert on.findings == [] and on.files_analysed == 0


def test_a_pass_list_elsewhere_knows_the_defining_module_s_names_without_analysing_it(tmp_path):
    on = _same_on_and_off(tmp_path, {"passes.py": PROVIDER, "app.py": USER})
    # 'FuseOpz' is the project's own; 'FuseOP' is a typo
    assert [(path, code) for path, _, code, _ in _findings(on)] == [("app.py", "TVM104")]
    assert "'FuseOP'" in on.findings[0].message
    assert on.files_analysed == 1  # app.py: passes.py's names come from its stdlib tree


# (how a module defines its pass, the names the project gets from it): as tvmlint.analysis.module reads them
DEFINITIONS = [
    # no name given: the decorated function's
    ("import tvm\n\n\n@tvm.transform.module_pass(opt_level=1)\ndef FuseOpz(mod, ctx):\n    return mod\n", True),
    # a class, the decorator imported under another name
    ("from tvm.ir.transform import module_pass as mp\n\n\n@mp(opt_level=1, name='FuseOpz')\n"
     "class Mine:\n    def transform_module(self, mod, ctx):\n        return mod\n", True),
    # nested in a function, the name given positionally after opt_level
    ("import tvm\n\n\ndef make():\n    @tvm.transform.module_pass(1, 'FuseOpz')\n"
     "    def f(mod, ctx):\n        return mod\n    return f\n", True),
    # called on a function
    ("import tvm\n\n\ndef f(mod, ctx):\n    return mod\n\n\n"
     "p = tvm.transform.module_pass(f, opt_level=1, name='FuseOpz')\n", True),
    # called on a function without a name: TVM names it after the function, the analysis does not know it
    ("import tvm\n\n\ndef FuseOpz(mod, ctx):\n    return mod\n\n\n"
     "p = tvm.transform.module_pass(FuseOpz, opt_level=1)\n", False),
    # a name that is not a literal is no name
    ("import tvm\n\nNAME = 'FuseOpz'\n\n\n@tvm.transform.module_pass(opt_level=1, name=NAME + '')\n"
     "def FuseOpz(mod, ctx):\n    return mod\n", False),
    # a function of the same name that is not TVM's decorator defines nothing
    ("def module_pass(**kw):\n    return lambda f: f\n\n\n@module_pass(opt_level=1, name='FuseOpz')\n"
     "def f(mod, ctx):\n    return mod\n", False),
]


@pytest.mark.parametrize("definition, defines", DEFINITIONS)
def test_the_names_read_from_the_tree_are_those_the_analysis_reads(tmp_path, definition, defines):
    on = _same_on_and_off(tmp_path, {"passes.py": definition, "app.py": USER})
    reported = {f.message.split("'")[1] for f in on.findings}
    assert reported == ({"FuseOP"} if defines else {"FuseOpz", "FuseOP"})


def test_without_the_defining_module_the_name_is_reported(tmp_path):
    on = _same_on_and_off(tmp_path, {"app.py": USER})
    assert {f.message.split("'")[1] for f in on.findings} == {"FuseOpz", "FuseOP"}


def test_a_module_analysed_in_part_is_analysed_again_for_its_passes(tmp_path):
    # MIXED's first round keeps only `run` and what it names: the decorated pass is blanked
    on = _same_on_and_off(
        tmp_path, {"mixed.py": MIXED, "app.py": USER}, select=("TVM101", "TVM104"),
    )
    assert ("app.py", "TVM104") in [(path, code) for path, _, code, _ in _findings(on)]
    assert not any("'FuseOpz'" in message for *_, message in _findings(on))


def test_no_rule_reading_pass_names_leaves_the_defining_module_out(tmp_path):
    on = _same_on_and_off(tmp_path, {"passes.py": PROVIDER, "app.py": USER}, select=("TVM101",))
    assert on.files_analysed == 0


def test_a_buffer_keeps_its_own_pass_definitions_for_its_pass_lists(tmp_path):
    # the editor's buffer is the whole project: its own definition names the pass, though
    # no rule wants the function that defines it
    resolver = SettingsResolver(Overrides(target_version=TARGET, select=("TVM104",)), cwd=tmp_path)
    text = PROVIDER + (
        "\n\ndef build(mod):\n"
        "    with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOpz', 'FuseOP']):\n"
        "        return tvm.compile(mod, target='llvm')\n"
    )
    findings = check_text(text, tmp_path / "buffer.py", resolver.for_path(tmp_path / "buffer.py"))
    assert [f.message.split("'")[1] for f in findings] == ["FuseOP"]


def test_through_the_cache_a_definition_removed_brings_the_finding_back(tmp_path):
    write_tree(tmp_path, {"passes.py": PROVIDER, "app.py": USER})
    resolver = SettingsResolver(Overrides(target_version=TARGET, select=("TVM104",)), cwd=tmp_path)
    names = lambda report: sorted(f.message.split("'")[1] for f in report.findings)  # noqa: E731
    assert names(check_paths([tmp_path], resolver, jobs=1)) == ["FuseOP"]
    assert names(check_paths([tmp_path], resolver, jobs=1)) == ["FuseOP"]  # from the cache
    (tmp_path / "passes.py").write_text(PROVIDER.replace("name='FuseOpz'", "name='Other'"))
    again = check_paths([tmp_path], resolver, jobs=1)
    assert names(again) == ["FuseOP", "FuseOpz"] and again.cache_hits >= 1


def test_a_module_whose_own_pass_lists_kept_its_definitions_is_not_analysed_again(tmp_path, monkeypatch):
    import tvmlint.run.runner as runner

    rounds = []
    check = runner._Run.check

    def counting(self, indices, stage, *args, **kwargs):
        rounds.append((stage.split(" ")[0], len(list(indices))))
        return check(self, indices, stage, *args, **kwargs)

    monkeypatch.setattr(runner._Run, "check", counting)
    # both pass lists ask for the project's pass names; each module keeps its own definition
    # (analysed in part: `unrelated` is blanked, so only the flag says whether it needs another round)
    mine = PROVIDER + "\n\ndef build(mod):\n" + "".join("    " + line + "\n" for line in USER.split("\n")[2:] if line)
    mine += "\n\ndef unrelated():\n    return 1\n"
    on = _same_on_and_off(tmp_path, {"mine.py": mine, "app.py": USER})
    assert [f.message.split("'")[1] for f in on.findings] == ["FuseOP", "FuseOP"]
    # no later round in the cheap run (the names were read in its first); "full": the run without it
    assert [stage for stage, _ in rounds] == ["cheap", "full"]
