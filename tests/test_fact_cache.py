"""What the result cache keeps of a file's bytes (tvmlint.run.words, ResultCache.facts): its
words, whether a project-gate pattern matches it, the modules it may name. A run answers
from them instead of reading every unchanged file, so each test changes the project step by
step and holds every cached run to the findings of a run without the cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write_tree

import tvmlint.run.words as words_module
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.runner import check_paths
from tvmlint.run.words import Words, words_of

HELPER = "import tvm\nfrom tvm import relax\n\ndef lift(mod):\n    return relax.transform.LiftTransformParams()(mod)\n"
DEFAULT_CALLER = "import helper\nmod = helper.lift(mod)\n"
CONTEXTS = "import tvm\n\ndef low():\n    return tvm.transform.PassContext(opt_level=0)\n"
# enters what another module's helper returns: the low-context step finds it by the modules it names
ENTERS = "import contexts\nimport helper\nwith contexts.low():\n    helper.lift(mod)\n"
THROUGH = "import helper\n\ndef go(mod):\n    return helper.lift(mod)\n"


def _seen(report):
    return [(f.path, f.start.line, f.code, f.message) for f in report.findings]


def _both(root: Path, paths=None, project=False):
    """The findings with the cache (a run that may answer from earlier runs' facts) and without."""
    resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM101",)), cwd=root)
    paths = paths or [root]
    cached = check_paths(paths, resolver, jobs=1, use_cache=True, project=project)
    fresh = check_paths(paths, SettingsResolver(Overrides(target_version="0.27", select=("TVM101",)), cwd=root),
                        jobs=1, use_cache=False, project=project)
    return _seen(cached), _seen(fresh)


def test_each_step_of_a_changing_project_finds_with_the_cache_what_it_finds_without(tmp_path):
    write_tree(tmp_path, {"helper.py": HELPER, "app.py": DEFAULT_CALLER})
    steps = [
        ({}, False),
        # entry.py, unchanged from here on, names a module the project does not have yet. lif.py
        # writes a low context and calls nothing: the step asks which modules the files that hold
        # "lif" may name (entry.py: "lift"), and finds that entry.py names none that writes one
        ({"entry.py": ENTERS, "lif.py": "import tvm\nwith tvm.transform.PassContext(opt_level=0):\n    pass\n"}, False),
        # now it has: entry.py enters what contexts.low returns around the helper's call. A
        # new module, so every file's named modules are asked against another set of names
        ({"contexts.py": CONTEXTS}, True),
        ({"entry.py": "import helper\nmod = helper.lift(mod)\n"}, False),  # the same name, no context
        ({"entry.py": ENTERS.replace("helper.lift(mod)", "mid.go(mod)").replace("import helper", "import mid"),
          "mid.py": THROUGH}, True),  # through a third module
        ({"contexts.py": CONTEXTS.replace("opt_level=0", "opt_level=3")}, False),  # no low context any more
    ]
    for files, reported in steps:
        write_tree(tmp_path, files)
        cached, fresh = _both(tmp_path)
        assert cached == fresh, files
        assert bool(cached) == reported, (files, cached)
        # and the helper's file alone, with its project read through the same cache
        cached, fresh = _both(tmp_path, [tmp_path / "helper.py"], project=True)
        assert cached == fresh, files


def test_a_warm_run_makes_the_words_of_the_changed_file_only(tmp_path, monkeypatch):
    write_tree(tmp_path, {"helper.py": HELPER, "app.py": DEFAULT_CALLER, "contexts.py": CONTEXTS,
                          "entry.py": ENTERS, **{f"other{n}.py": f"import tvm\nx{n} = {n}\n" for n in range(5)}})
    cached, fresh = _both(tmp_path)
    assert cached == fresh and cached
    made = []
    real = words_module.joined
    monkeypatch.setattr(words_module, "joined", lambda data: made.append(data) or real(data))
    (tmp_path / "entry.py").write_text(ENTERS + "# edited\n", encoding="utf-8")
    resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM101",)), cwd=tmp_path)
    report = check_paths([tmp_path], resolver, jobs=1, use_cache=True)
    assert _seen(report) == fresh
    assert made and all(data.endswith(b"# edited\n") for data in made), len(made)


GATE_HELPER = "import tvm\n\ndef build(mod):\n    return tvm.compile(mod, target='llvm')\n"
FAST_CALLER = ("import tvm\nfrom helper import build\n\n"
               "with tvm.transform.PassContext(config={'tirx.enable_fast_math': True}):\n    lib = build(mod)\n")


def test_a_project_gate_answer_is_read_from_the_cache(tmp_path, monkeypatch):
    from tvmlint.run import gate

    def run(cache: bool):
        resolver = SettingsResolver(Overrides(target_version="0.27", select=("TVM302",)), cwd=tmp_path)
        return _seen(check_paths([tmp_path], resolver, jobs=1, use_cache=cache))

    # only app.py matches TVM302's project pattern: without it, the gate leaves the rule out
    write_tree(tmp_path, {"helper.py": GATE_HELPER, "app.py": FAST_CALLER, "b.py": "import tvm\nx = 1\n"})
    assert run(True) == run(False) and [line[:3] for line in run(False)] == [("helper.py", 4, "TVM302")]
    read = []
    real = gate._read
    monkeypatch.setattr(gate, "_read", lambda path, texts=None: read.append(Path(path).name) or real(path, texts))
    (tmp_path / "b.py").write_text("import tvm\nx = 2\n", encoding="utf-8")
    warm = run(True)
    assert read == []  # app.py, the first file, answered from the cache; the gate stopped there
    assert warm == run(False) and read == ["app.py"]
    (tmp_path / "app.py").write_text(FAST_CALLER.replace("True", "False"), encoding="utf-8")
    assert run(True) == run(False) == []


@pytest.mark.parametrize("data", [
    b"import tvm\nfrom a.b import c_d as e\n", b"x = '\xc3\xa9t\xc3\xa9' + y\n", b"", b"a-b c.d\tq\n", b"\x00\xff ok",
])
def test_a_name_is_in_the_words_exactly_when_it_is_in_the_bytes(tmp_path, data):
    class Facts(dict):  # the two calls Words makes of the result cache
        def get_fact(self, digest, question):
            return self.get((digest, question))

        def put_fact(self, digest, question, answer):
            self[(digest, question)] = answer

    path = tmp_path / "f.py"
    path.write_bytes(data)
    kept = Facts()
    # the joined words a run keeps in the cache, made now and read back by the next run
    for words in (Words(), Words(cache=kept, digests={str(path): "d"}), Words(cache=kept, digests={str(path): "d"})):
        assert words.of(str(path)) == words_of(data)
        for needle in [b"tvm", b"c_d", b"b", b"d as", b"-", b"\xc3\xa9t", b"t\xc3\xa9", b"ok", b"", b"a-b", b"nothing", b"\xff"]:
            assert words.holds_any(str(path), [needle]) == (needle in data), needle
        assert words.holds_any(str(tmp_path / "missing.py"), [b"x"]) is None
    assert list(kept) == [("d", "words")]


def test_the_facts_are_read_only_by_a_run_that_asks_for_them(tmp_path, monkeypatch):
    from tvmlint.run.cache import ResultCache

    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.27"\n', "helper.py": HELPER,
                          "app.py": DEFAULT_CALLER, "contexts.py": CONTEXTS, "entry.py": ENTERS})
    resolver = SettingsResolver(cwd=tmp_path)
    whole = _seen(check_paths([tmp_path], resolver, jobs=1))
    assert list((tmp_path / ".tvmlint_cache").glob("facts-*.pickle"))
    opened = []
    real = ResultCache._read_sealed
    monkeypatch.setattr(ResultCache, "_read_sealed", lambda self, path, length: opened.append(path.name[:6]) or real(self, path, length))
    # a file that settles alone: the store is read, its facts are not
    (tmp_path / "app.py").write_text(DEFAULT_CALLER + "# edited\n", encoding="utf-8")
    check_paths([tmp_path / "app.py"], SettingsResolver(cwd=tmp_path), jobs=1, project=True)
    assert opened == ["store-"]
    # the helper waits on its callers: its project's run reads them, and finds what the whole tree does
    opened.clear()
    alone = check_paths([tmp_path / "helper.py"], SettingsResolver(cwd=tmp_path), jobs=1, project=True)
    assert opened == ["store-", "facts-"] and alone.context_files == 3
    assert _seen(alone) == [line for line in whole if line[0] == "helper.py"] != []


def test_a_facts_file_not_sealed_by_the_user_is_not_read_and_is_replaced(tmp_path):
    import pickle

    from tvmlint.run.cache import content_digest

    write_tree(tmp_path, {"helper.py": HELPER, "app.py": DEFAULT_CALLER, "contexts.py": CONTEXTS, "entry.py": ENTERS})
    cached, fresh = _both(tmp_path)
    assert fresh
    [facts] = (tmp_path / ".tvmlint_cache").glob("facts-*.pickle")
    # an unsealed pickle, as a repository could ship one (its seal is checked before any
    # unpickling): read, its empty words for entry.py would hide the context entry.py enters
    digest = content_digest((tmp_path / "entry.py").read_bytes())
    facts.write_bytes(pickle.dumps((3, {(digest, "words"): b""})))
    (tmp_path / "app.py").write_text(DEFAULT_CALLER + "# edited\n", encoding="utf-8")
    again, fresh_again = _both(tmp_path)
    assert again == fresh_again == fresh and cached == fresh
    assert facts.read_bytes().startswith(b"tvmlint result store, sealed\n")  # replaced by this run's own
