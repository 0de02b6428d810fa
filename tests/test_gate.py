"""The project gate (tvmlint.run.gate, tvmlint.prefilter.project_gate): a rule no file of a run can set off leaves the run, losing nothing."""

from __future__ import annotations

from helpers import prefiltered, write_tree

from tvmlint.prefilter import project_gate
from tvmlint.run import gate
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.runner import check_paths

# tvm.compile in a helper: TVM302 can report it only under a caller's context that sets the key
HELPER = "import tvm\n\ndef build(mod):\n    return tvm.compile(mod, target='llvm')\n"
CALLER = (
    "import tvm\nfrom helper import build\n\n"
    "with tvm.transform.PassContext(config={'tirx.enable_fast_math': True}):\n    lib = build(mod)\n"
)
PLAIN = "import tvm\nfrom helper import build\n\nwith tvm.transform.PassContext(opt_level=3):\n    lib = build(mod)\n"
# files that name no TVM at all
FILLER = {f"pkg/m{i}.py": f"import os\nVALUE = os.sep * {i}\n" for i in range(3)}


def _run(root, cheap):
    resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM302",)), cwd=root)
    report = check_paths([root], prefiltered(resolver, cheap), jobs=1, use_cache=False)
    return report, [(f.path, f.start.line, f.code) for f in report.findings]


def test_a_caller_elsewhere_that_sets_the_key_keeps_the_rule(tmp_path):
    write_tree(tmp_path, {"helper.py": HELPER, "caller.py": CALLER, **FILLER})
    on, found = _run(tmp_path, cheap=True)
    assert found == [("helper.py", 4, "TVM302")] == _run(tmp_path, cheap=False)[1]
    assert "enable_fast_math" in on.findings[0].message


def test_no_file_that_sets_the_key_leaves_the_rule_out(tmp_path):
    write_tree(tmp_path, {"helper.py": HELPER, "caller.py": PLAIN, **FILLER})
    on, found = _run(tmp_path, cheap=True)
    off, found_off = _run(tmp_path, cheap=False)
    assert found == found_off == []
    assert on.files_analysed == 0 and off.files_analysed > 0


def test_withheld_codes_reads_what_the_files_say(tmp_path):
    write_tree(tmp_path, {"helper.py": HELPER, "caller.py": PLAIN})
    resolver = SettingsResolver(Overrides(target_version="0.27"), cwd=tmp_path)
    paths = [str(tmp_path / "helper.py"), str(tmp_path / "caller.py")]
    withheld = gate.withheld_codes(paths, resolver)
    assert [sorted(codes) for codes in withheld.values()] == [["TVM302"]]
    # the key with a value that is not the literal True: no context the analysis knows sets it
    for value in ("enable_fast_math", "False", "flags['fast']"):
        (tmp_path / "caller.py").write_text(CALLER.replace("True", value))
        assert [sorted(codes) for codes in gate.withheld_codes(paths, resolver).values()] == [["TVM302"]], value
    for spelled in ("True", "(True)", "  # on\n    True", " \\\n True"):
        (tmp_path / "caller.py").write_text(CALLER.replace(" True", spelled))
        assert gate.withheld_codes(paths, resolver) == {}, spelled
    # where pipelines hold FastMath (Relay), opt_level=4 anywhere can set it off: no gate
    old = SettingsResolver(Overrides(target_version="0.19"), cwd=tmp_path)
    assert gate.withheld_codes(paths, old) == {}


def test_a_file_that_starts_setting_the_key_reopens_the_rule_through_the_cache(tmp_path):
    write_tree(tmp_path, {"helper.py": HELPER, "caller.py": PLAIN, **FILLER})
    resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM302",)), cwd=tmp_path)
    assert check_paths([tmp_path], resolver, jobs=1).findings == []
    (tmp_path / "caller.py").write_text(CALLER)
    again = check_paths([tmp_path], resolver, jobs=1)
    assert [(f.path, f.code) for f in again.findings] == [("helper.py", "TVM302")]
    assert "enable_fast_math" in again.findings[0].message


def test_one_buffer_is_its_own_project():
    # the editor and stdin follow contexts within the buffer only: its text decides alone
    from tvmlint.base.versions import parse_version

    version, codes = parse_version("0.27"), frozenset({"TVM302", "TVM101"})
    assert project_gate.withheld_in(HELPER, codes, version) == {"TVM302"}
    assert project_gate.withheld_in(HELPER + CALLER, codes, version) == frozenset()
    assert project_gate.withheld_in(HELPER, codes, parse_version("0.19")) == frozenset()


def test_a_one_file_run_is_gated_too(tmp_path):
    # the pre-commit case: the helper alone is the whole run, and no file of it sets the key
    write_tree(tmp_path, {"helper.py": HELPER})
    resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM302",)), cwd=tmp_path)
    report = check_paths([tmp_path / "helper.py"], resolver, jobs=1, use_cache=False)
    assert report.findings == [] and report.files_analysed == 0


def test_a_file_read_before_the_first_that_names_tvm_still_counts(tmp_path):
    # the rules' patterns are compiled at the first file naming TVM; a settings module read
    # before it, which names none, can still set the key
    write_tree(tmp_path, {"a_settings.py": "CONFIG = {'tirx.enable_fast_math': True}\n", "helper.py": HELPER})
    resolver = SettingsResolver(Overrides(target_version="0.27"), cwd=tmp_path)
    paths = [str(tmp_path / "a_settings.py"), str(tmp_path / "helper.py")]
    assert gate.withheld_codes(paths, resolver) == {}
    assert [sorted(codes) for codes in gate.withheld_codes(paths[1:], resolver).values()] == [["TVM302"]]
    assert gate.withheld_codes(paths[:1], resolver) == {}  # no file names TVM: nothing is imported to ask
