"""The package's folders show the flow, and imports only go down it (docs/architecture.md).

Every import counts, those inside functions too (they are how a module avoids
paying for another at start-up, not a way around the layering); only imports
under `if TYPE_CHECKING:` are left out, since they never run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, Iterator, Set, Tuple

PACKAGE = Path(__file__).resolve().parent.parent / "tvmlint"
# From the top down: a folder imports from the folders below it, and from itself.
LAYERS = ["frontends", "companion", "run", "prefilter", "output", "checks", "analysis", "knowledge", "base"]
# tvmlint/__init__.py holds the version alone; __main__.py starts the command line
TOP = {"tvmlint": len(LAYERS), "tvmlint.__main__": -1}


def _modules() -> Dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(name: str, path: Path) -> Iterator[Tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in ast.walk(node))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                yield f"{base}.{alias.name}", node.lineno


def _owner(target: str, modules: Dict[str, Path]) -> str:
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target


def _layer(module: str) -> int:
    if module in TOP:
        return TOP[module]
    return LAYERS.index(module.split(".")[1])


def _edges() -> Iterator[Tuple[str, str, int]]:
    modules = _modules()
    for name, path in modules.items():
        for target, line in _imports(name, path):
            owner = _owner(target, modules) if target.startswith("tvmlint") else ""
            if owner and owner != name:
                yield name, owner, line


def test_every_module_sits_in_a_folder_of_the_flow():
    loose = [name for name in _modules() if name not in TOP and name.split(".")[1] not in LAYERS]
    assert loose == []


def test_imports_only_go_down_the_layers():
    upward = [
        f"{name} imports {target} (line {line})"
        for name, target, line in _edges()
        if _layer(target) < _layer(name)
    ]
    assert upward == []


def test_no_import_cycle():
    graph: Dict[str, Set[str]] = {}
    for name, target, _ in _edges():
        graph.setdefault(name, set()).add(target)
    # depth-first search for a back edge
    state: Dict[str, int] = {}
    cycle = []

    def visit(node: str, path: list) -> bool:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle.extend(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
                return True
            if nxt not in state and visit(nxt, path + [nxt]):
                return True
        state[node] = 2
        return False

    for start in sorted(graph):
        if start not in state and visit(start, [start]):
            break
    assert cycle == []


def test_the_checker_sees_an_upward_import(tmp_path, monkeypatch):
    # the test above must be able to fail: a base module that imported the runner would be caught
    fake = tmp_path / "tvmlint"
    (fake / "base").mkdir(parents=True)
    (fake / "run").mkdir()
    for folder in (fake, fake / "base", fake / "run"):
        (folder / "__init__.py").write_text("")
    (fake / "base" / "leaf.py").write_text("def f():\n    from tvmlint.run.runner import check_paths\n")
    (fake / "run" / "runner.py").write_text("from tvmlint.base.leaf import f\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    edges = list(_edges())
    assert ("tvmlint.base.leaf", "tvmlint.run.runner", 2) in edges
    assert [e for e in edges if _layer(e[1]) < _layer(e[0])] == [("tvmlint.base.leaf", "tvmlint.run.runner", 2)]


# -- the pre-filter boundary (docs/architecture.md, "The rule interface") --------------------

WING = "tvmlint.prefilter"
SPEC = "tvmlint.checks.prefilter_spec"


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _reads_of_the_spec(path: Path) -> Iterator[int]:
    """Lines that read a rule's `prefilter` (an attribute read, `getattr(..., "prefilter")`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "prefilter" and isinstance(node.ctx, ast.Load):
            yield node.lineno
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "vars")
              and any(isinstance(arg, ast.Constant) and arg.value == "prefilter" for arg in node.args)):
            yield node.lineno


def _spec_readers() -> list:
    # a rule sets `prefilter = Prefilter(...)`; only the wing reads it (a run's Task has a
    # `prefilter` flag of its own: on or off, not a spec, and read as `task.prefilter`/`how.prefilter`)
    return [
        f"{name} line {line}"
        for name, path in _modules().items() if not _in(name, WING)
        for line in _reads_of_the_spec(path)
        if not _flag_read(path, line)
    ]


def _flag_read(path: Path, line: int) -> bool:
    text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    return any(f"{owner}.prefilter" in text for owner in ("task", "how", "self", "overrides", "resolver.overrides"))


def test_only_the_wing_reads_a_rules_prefilter_spec():
    assert _spec_readers() == []


def test_the_checks_never_import_the_wing():
    reaching = [f"{name} imports {target} (line {line})" for name, target, line in _edges()
                if _in(name, "tvmlint.checks") and _in(target, WING)]
    assert reaching == []


def test_only_the_checks_and_the_wing_import_the_spec():
    others = [f"{name} imports {target} (line {line})" for name, target, line in _edges()
              if target == SPEC and not (_in(name, "tvmlint.checks") or _in(name, WING))]
    assert others == []


def test_the_wing_decides_no_finding():
    # it leaves things out of the analysis; what a finding is, and how it is judged across the
    # project, is the checks' and the analysis' (it makes no Finding, judges no deferred one)
    deciding = {"tvmlint.base.diagnostics", "tvmlint.analysis.project", "tvmlint.analysis.results"}
    reaching = [f"{name} imports {target} (line {line})" for name, target, line in _edges()
                if _in(name, WING) and (target in deciding or _in(target, "tvmlint.output"))]
    assert reaching == []
    for name, path in _modules().items():
        if _in(name, WING):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            calls = [node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Attribute) and node.func.attr in ("report", "defer", "judge")]
            assert calls == [], f"{name} calls {calls}"


def test_the_boundary_checks_see_a_reader_outside_the_wing(tmp_path, monkeypatch):
    # the tests above must be able to fail: a run module that read a rule's spec, and a check
    # that imported the wing, would be caught
    fake = tmp_path / "tvmlint"
    for folder in ("", "run", "checks", "prefilter"):
        (fake / folder).mkdir(parents=True, exist_ok=True)
        (fake / folder / "__init__.py").write_text("")
    (fake / "run" / "engine.py").write_text("def f(rule):\n    return rule.prefilter.triggers\n")
    (fake / "checks" / "one.py").write_text("from tvmlint.prefilter.view import view_of\n")
    (fake / "prefilter" / "view.py").write_text("def view_of(rule):\n    return rule.prefilter\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    assert _spec_readers() == ["tvmlint.run.engine line 2"]
    assert [(n, t) for n, t, _ in _edges() if _in(n, "tvmlint.checks") and _in(t, WING)] == [
        ("tvmlint.checks.one", "tvmlint.prefilter.view")]


def test_every_name_a_spec_gives_is_one_the_wing_knows():
    from tvmlint.checks import all_rules
    from tvmlint.prefilter.names import NAME_SETS, PATTERNS
    from tvmlint.prefilter.predicates import INNER, LOW, WANTS

    unknown = []
    for code, rule in all_rules().items():
        spec = rule.prefilter
        for name in (*(spec.triggers or ()), *spec.tokens):
            unknown += [f"{code} names set {name}"] if name not in NAME_SETS else []
        for name in (spec.text_pattern, spec.text_pattern_outside_tvm, spec.method_pattern, spec.project_pattern):
            unknown += [f"{code} names pattern {name}"] if name is not None and name not in PATTERNS else []
        for name, table in ((spec.wants, WANTS), (spec.inner, INNER), (spec.low_context, LOW)):
            unknown += [f"{code} names predicate {name}"] if name is not None and name not in table else []
    assert unknown == []


def test_a_rule_author_implements_at_most_seven_methods():
    # start, finish, judge, needs_level_below: the analysis (the libcst visit_/leave_ methods
    # aside); confirm and after_noqa for the rules that need them; report, defer and info are
    # given, not written by authors
    from tvmlint.checks.rule import Rule

    given = {"report", "defer", "info", "__init__"}
    own = [name for name, value in vars(Rule).items()
           if callable(getattr(Rule, name)) and not name.startswith("_") and name not in given]
    assert len(own) <= 7, own
    assert not any(name in own for name in ("triggers", "wants", "tokens", "needs_low_context"))


# --- the knowledge boundary: rules/ is read in tvmlint/knowledge/ and nowhere else ---------

KNOWLEDGE = "tvmlint.knowledge"
# the loader and what it reads with; `toml` (the parser) is lent to the settings for pyproject.toml
LOADER = {f"{KNOWLEDGE}.tables.{name}" for name in ("load_table", "load_from", "load_toml", "parse_toml")}
RULES = Path(__file__).resolve().parent.parent / "rules"


def _table_names() -> Set[str]:
    names = {path.name for path in RULES.glob("*.toml")}
    return names | {"catalog"}


def _reads_rules(path: Path, tables: Set[str]) -> Iterator[Tuple[str, int]]:
    """A table's file name written as a string of its own (`rules_dir() / "passes.toml"`): the
    way a module would open a table without the loader."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in tables:
            yield node.value, node.lineno


def _boundary_breaches() -> list:
    tables = _table_names()
    breaches = []
    for name, path in _modules().items():
        if name == KNOWLEDGE or name.startswith(KNOWLEDGE + "."):
            continue
        breaches.extend(f"{name} imports the loader {target} (line {line})"
                        for target, line in _imports(name, path) if target in LOADER)
        breaches.extend(f"{name} names the table {table!r} (line {line})" for table, line in _reads_rules(path, tables))
    return breaches


def test_only_the_knowledge_package_reads_rules():
    assert _boundary_breaches() == []


def test_the_knowledge_package_imports_only_from_base():
    outside = [
        f"{name} imports {target} (line {line})"
        for name, target, line in _edges()
        if name.startswith(KNOWLEDGE) and not target.startswith((KNOWLEDGE, "tvmlint.base"))
    ]
    assert outside == []


def test_the_boundary_checker_sees_a_table_read_outside(tmp_path, monkeypatch):
    # both ways round the boundary must be able to fail: a rule calling the loader, and one
    # opening a table by its file name
    fake = tmp_path / "tvmlint"
    for folder in ("checks", "knowledge"):
        (fake / folder).mkdir(parents=True)
        (fake / folder / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "knowledge" / "tables.py").write_text("def load_table(name):\n    return {}\n")
    (fake / "checks" / "loads.py").write_text("from tvmlint.knowledge.tables import load_table\nX = load_table('a')\n")
    (fake / "checks" / "opens.py").write_text("from pathlib import Path\nX = (Path('rules') / 'numerics.toml').read_text()\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    assert sorted(_boundary_breaches()) == [
        "tvmlint.checks.loads imports the loader tvmlint.knowledge.tables.load_table (line 1)",
        "tvmlint.checks.opens names the table 'numerics.toml' (line 2)",
    ]


def test_no_function_takes_more_than_six_parameters():
    # a long parameter list is a missing object (run/task.py's Task, companion/pipeline.py's
    # Setting, a ParamRef): counted without self/cls, as a caller sees them
    long = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                if names and names[0] in ("self", "cls"):
                    names = names[1:]
                if len(names) > 6:
                    long.append(f"{name}.{node.name} ({len(names)})")
    assert long == []


def test_each_rule_lives_in_a_module_named_for_its_code():
    # one home per rule: `checks/tvm101_gated_pass_skipped.py` holds TVM101, whose catalog entry
    # is rules/catalog/TVM101.toml and whose cases are its VALID/INVALID lists
    from tvmlint.checks import all_rules

    misplaced = [f"{code} in {rule.__module__}" for code, rule in all_rules().items()
                 if not rule.__module__.rsplit(".", 1)[1].startswith(code.lower() + "_")]
    assert misplaced == []


# --- the companion reaches a rule through the rules table (checks.confirming_rules), never by name ---

def _companion_imports_of_rules() -> list:
    import re

    rule_module = re.compile(r"tvmlint\.checks\.tvm\d{3}_")
    return [f"{name} imports {target} (line {line})" for name, target, line in _edges()
            if _in(name, "tvmlint.companion") and rule_module.match(target)]


def test_the_companion_imports_no_rule_module(tmp_path, monkeypatch):
    assert _companion_imports_of_rules() == []
    # and it would see one: a companion module reaching into a rule for a helper
    fake = tmp_path / "tvmlint"
    for folder in ("", "checks", "companion"):
        (fake / folder).mkdir(parents=True, exist_ok=True)
        (fake / folder / "__init__.py").write_text("")
    (fake / "checks" / "tvm302_fast_math_enabled.py").write_text("def runs():\n    return True\n")
    (fake / "companion" / "confirm.py").write_text("def f():\n    from tvmlint.checks.tvm302_fast_math_enabled import runs\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    assert _companion_imports_of_rules() == [
        "tvmlint.companion.confirm imports tvmlint.checks.tvm302_fast_math_enabled (line 2)"]


# --- no reach across the stages: a rule through the rules table, no private name across ------
# folders, no run module that prints (docs/architecture.md, "The flow")

CHECKS = "tvmlint.checks"


def _folder(name: str) -> str:
    return name.split(".")[1] if name.count(".") else ""


def _is_rule_module(name: str) -> bool:
    return _in(name, CHECKS) and name.rsplit(".", 1)[-1].startswith("tvm") and name != CHECKS


def _rule_module_reaches() -> list:
    return [f"{name} imports {target} (line {line})" for name, target, line in _edges()
            if _is_rule_module(target) and not _in(name, CHECKS)]


def test_outside_the_checks_a_rule_is_reached_through_the_rules_table():
    # all_rules()/rule_of(code) and the Rule interface: a front end or the runner that imported
    # one rule's module would depend on its internals (explain once imported TVM101's helper,
    # the runner TVM002's function)
    assert _rule_module_reaches() == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_definitions() -> Dict[str, Set[str]]:
    """The folders in which each private name is defined: a function, a class or an
    assignment (`self._x = ...` included)."""
    where: Dict[str, Set[str]] = {}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            defined = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined = [t.id if isinstance(t, ast.Name) else t.attr for t in targets
                           if isinstance(t, (ast.Name, ast.Attribute))]
            for private in filter(_private, defined):
                where.setdefault(private, set()).add(_folder(name))
    return where


def _imported_from_elsewhere(tree: ast.Module) -> Iterator[str]:
    """The names a module binds by importing from outside tvmlint."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.asname or a.name.split(".")[0] for a in node.names if not a.name.startswith("tvmlint"))
        elif isinstance(node, ast.ImportFrom) and not node.level and not (node.module or "").startswith("tvmlint"):
            yield from (a.asname or a.name for a in node.names)


def _private_reaches() -> list:
    defined = _private_definitions()
    reaches = [f"{name} imports {target} (line {line})" for name, target, line in _edges()
               if _folder(name) != _folder(target) and any(map(_private, target.split(".")))]
    for name, path in _modules().items():
        folder = _folder(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # `os._exit`, `sys._getframe`: another library's private names are not the project's to keep
        foreign = {"self", "cls", *_imported_from_elsewhere(tree)}
        for node in ast.walk(tree):
            # `x._name` where only another folder defines `_name`
            if (isinstance(node, ast.Attribute) and _private(node.attr) and node.attr in defined
                    and folder not in defined[node.attr]
                    and not (isinstance(node.value, ast.Name) and node.value.id in foreign)):
                reaches.append(f"{name} reads {ast.unparse(node)} (line {node.lineno})")
        for target, line in _imports(name, path):
            if target.startswith("tvmlint") and _private(target.rsplit(".", 1)[-1]):
                owner = _owner(target, _modules())
                if _folder(owner) != folder and f"{name} imports {owner} (line {line})" not in reaches:
                    reaches.append(f"{name} imports {target} (line {line})")
    return reaches


def test_no_private_name_crosses_folders():
    # a name that starts with `_` is its folder's own: another stage that needs it asks for a
    # public one (ModuleAnalysis.short, once `_short`, read by explain and the checks)
    assert _private_reaches() == []


def test_run_does_not_import_output():
    # run/ makes findings and output/ prints them: the front ends join the two (a format's
    # name is base/formats.py's, which the settings check and output/ renders)
    reaching = [f"{name} imports {target} (line {line})" for name, target, line in _edges()
                if _in(name, "tvmlint.run") and _in(target, "tvmlint.output")]
    assert reaching == []


def test_every_format_name_has_a_renderer():
    from tvmlint.base.formats import ALIASES, FORMATS, NAMES
    from tvmlint.output import MODULES

    assert set(MODULES) == set(NAMES) and set(ALIASES.values()) <= set(NAMES)
    assert set(FORMATS) == set(NAMES) | set(ALIASES)


def _codes_named_in(package: str) -> list:
    """Rule codes written as a string of their own in `package`, but the parser's TVM001 (the
    engine's own verdict on a file it cannot read), and base.noqa's UNUSED_NOQA imported."""
    from tvmlint.knowledge.catalog import load_catalog

    codes = set(load_catalog()) - {"TVM001"}
    named = []
    for name, path in _modules().items():
        if not _in(name, package):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in codes:
                named.append(f"{name} names {node.value} (line {node.lineno})")
        named += [f"{name} imports {target} (line {line})" for target, line in _imports(name, path)
                  if target == "tvmlint.base.noqa.UNUSED_NOQA"]
    return named


def test_the_runner_special_cases_no_rule():
    # what a rule needs of the run is a hook every rule may use (judge, needs_level_below,
    # after_noqa), found through the rules table and the catalog
    assert _codes_named_in("tvmlint.run") == []


def test_a_rule_judges_after_the_noqa_step_when_its_catalog_says_so():
    from tvmlint.checks import all_rules, rule_of
    from tvmlint.knowledge.catalog import judged_after_noqa

    rules = all_rules()
    hooked = {code for code, rule in rules.items() if "after_noqa" in vars(rule)}
    assert hooked == set(judged_after_noqa()) == {"TVM002"}
    all_rules.cache_clear()  # as in a run that loaded no check: each found from its module's name
    assert {code: rule_of(code) for code in rules} == rules and rule_of("TVM999") is None


def test_the_reach_checks_see_each_kind(tmp_path, monkeypatch):
    # the four tests above must be able to fail: a front end importing a rule's module, a run
    # module reading another folder's private name and importing output, and a runner that
    # names a rule's code
    fake = tmp_path / "tvmlint"
    for folder in ("", "frontends", "run", "checks", "analysis", "output"):
        (fake / folder).mkdir(parents=True, exist_ok=True)
        (fake / folder / "__init__.py").write_text("")
    (fake / "checks" / "tvm101_gated.py").write_text("def helper():\n    return 1\n")
    (fake / "analysis" / "module.py").write_text("class A:\n    def _short(self):\n        return 1\n")
    (fake / "output" / "text.py").write_text("def render():\n    return 1\n")
    (fake / "frontends" / "explain.py").write_text("from tvmlint.checks.tvm101_gated import helper\n")
    (fake / "run" / "runner.py").write_text(
        "from tvmlint.output.text import render\n"
        "from tvmlint.analysis.module import _hidden\n"
        "def f(analysis):\n    return analysis._short() if 'TVM002' else render()\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    assert _rule_module_reaches() == ["tvmlint.frontends.explain imports tvmlint.checks.tvm101_gated (line 1)"]
    assert sorted(_private_reaches()) == [
        "tvmlint.run.runner imports tvmlint.analysis.module._hidden (line 2)",
        "tvmlint.run.runner reads analysis._short (line 4)",
    ]
    assert [(n, t) for n, t, _ in _edges() if _in(n, "tvmlint.run") and _in(t, "tvmlint.output")] == [
        ("tvmlint.run.runner", "tvmlint.output.text")]
    assert _codes_named_in("tvmlint.run") == ["tvmlint.run.runner names TVM002 (line 4)"]


# --- docs/architecture.md: the picture names every stage, and the walk's stops exist --------

ARCHITECTURE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
STOP = re.compile(r"^(\d+)\. `(tvmlint/[\w/]+\.py)` `([\w.]+)`:", re.MULTILINE)


def _section(text: str, title: str) -> str:
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _defines(path: Path, dotted: str) -> bool:
    """Whether the module at `path` defines `dotted` (a function or class, or `Class.method`)."""
    scope: list = ast.parse(path.read_text(encoding="utf-8")).body
    for part in dotted.split("."):
        found = [node for node in scope if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                 and node.name == part]
        if not found:
            return False
        scope = found[0].body
    return True


def _missing_stops(text: str) -> list:
    stops = STOP.findall(_section(text, "One finding, end to end"))
    assert [int(number) for number, _, _ in stops] == list(range(1, len(stops) + 1))
    assert 1 <= len(stops) <= 10
    root = PACKAGE.parent
    return [f"{number}. {path} {name}" for number, path, name in stops
            if not (root / path).is_file() or not _defines(root / path, name)]


def test_the_walk_of_one_finding_stops_at_functions_that_exist():
    assert _missing_stops(ARCHITECTURE.read_text(encoding="utf-8")) == []


def test_the_walk_checker_sees_a_stop_that_is_gone():
    text = ("## One finding, end to end\n\n1. `tvmlint/run/runner.py` `check_paths`: here.\n"
            "2. `tvmlint/run/runner.py` `no_such_function`: gone.\n"
            "3. `tvmlint/checks/rule.py` `Rule.report`: a method.\n4. `tvmlint/nowhere.py` `f`: no file.\n")
    assert _missing_stops(text) == ["2. tvmlint/run/runner.py no_such_function", "4. tvmlint/nowhere.py f"]


def test_the_picture_of_the_flow_names_every_stage():
    picture = _section(ARCHITECTURE.read_text(encoding="utf-8"), "The flow").split("```")[1]
    assert [folder for folder in LAYERS if f"{folder}/" not in picture] == []
