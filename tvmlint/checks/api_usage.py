"""Where a module uses API the target release no longer has or deprecates, and the renames that fix it.

(PassContext config keys renamed between releases are TVM107's: it reports and renames them.)

Read from the analysis' resolved names, so aliases, `from ... import` and
attribute paths reached through `import tvm` all count, and names the module
binds itself (a local class called `relay`) never do. Each use is reported where
it stands: the import, or the attribute path / call.

A porting user needs every line that must change, without the same message down
the file:
- a use under the same entry as an import of the file (reported, or guarded by a
  `try` that handles ImportError), through the name that import binds and with nothing
  more to say, is left to the import (`transform.FoldScaleAxis()` after `from tvm.relay
  import transform`); one spelt from above the entry (`tvm.relay.transform.X` after
  `import tvm`) is not: fixing the import leaves it as it was;
- a use whose entry differs from its import's (`nnvm.compiler.build(...)` after
  `import nnvm.compiler`, `relay.ir_pass.infer_type` after `from tvm import relay`),
  or whose replacement does (`tir.Schedule` after `from tvm import tir` ->
  `tvm.s_tir.Schedule`), is reported;
- every other use is reported where it stands, as ruff's NPY201 does: an editor marks
  each line that must change, `--add-noqa` marks each, and `--statistics` or the
  summary keeps a long file readable.

Fixes are text edits rendered from the source's own nodes; `import tvm` is
added once when a replacement needs it. A rename is only written where it is
exact: a conditional entry (build_config) only when the call's arguments are
ones the replacement takes.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from pathlib import PurePath
from typing import ClassVar, Dict, List, Optional, Set, Tuple

from tvmlint.analysis.contexts import Inherited
from tvmlint.analysis.edits import tvm_import_edit
from tvmlint.analysis.lazy import cst
from tvmlint.analysis.module import dotted
from tvmlint.analysis.results import OWN_TREE, OwnTreeWait
from tvmlint.base.diagnostics import Edit, Fix, Said
from tvmlint.base.versions import format_version, parse_version
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import FileContext, Rule
from tvmlint.knowledge.api_history import REMOVED, History, Use, get_history


@dataclass
class ApiFinding:
    node: cst.CSTNode
    status: str  # removed | deprecated
    message: str
    fix: Optional[Fix]
    detail: str = ""
    qualname: str = ""  # the name used, for a use of a removed module, function or class
    # a call of a deprecated shim: the module that replaced it, which a fork's own tree must
    # have for its shim to be one (before the rename the fork's module is the real, silent one)
    successor: Optional[str] = None


_cache: "weakref.WeakKeyDictionary[FileContext, List[ApiFinding]]" = weakref.WeakKeyDictionary()


def api_findings(file: FileContext) -> List[ApiFinding]:
    """Every removed/deprecated use in the file (TVM201 and TVM202 share one pass)."""
    if file not in _cache:
        _cache[file] = _Collector(file).collect()
    return _cache[file]


class HistoryRule(Rule):
    """TVM201 and TVM202: the same uses, split by what the target says about them."""

    # A use is judged by the name it resolves to: the helpers a definition calls bind names
    # (and may shadow TVM's), and what they do inside does not change what a use names.
    prefilter = Prefilter(triggers=("api_history",), wants="api_history", tokens=("history_methods",),
                          method_pattern="history_method_call", reads_named_definitions=False)

    status: ClassVar[str]

    def start(self) -> None:
        carried = dict(self.file.own_tree)
        for finding in api_findings(self.file):
            if finding.status != self.status:
                continue
            directory = carried.get(finding.qualname.split(".")[0]) if finding.status == REMOVED else None
            successor_in = carried.get(finding.successor.split(".")[0]) if finding.successor else None
            if directory is not None:
                # a fork's own tree may still have what the release removed: the project step asks it
                wait = OwnTreeWait(finding.qualname, directory, finding.message, finding.detail)
                self.defer(finding.node, Inherited(OWN_TREE), wait, finding.fix)
            elif successor_in is not None:
                # a fork from before the rename runs its own module, which does not warn
                wait = OwnTreeWait(finding.successor, successor_in, finding.message, finding.detail, made_if_defined=True)
                self.defer(finding.node, Inherited(OWN_TREE), wait, finding.fix)
            else:
                self.report(finding.node, finding.message, finding.fix, detail=finding.detail)


def _conditions_around(statement: cst.CSTNode, node: cst.CSTNode) -> List[cst.BaseExpression]:
    """The tests of the conditional expressions (`a if test else b`) in `statement` that hold
    `node` in a branch."""
    found: List[cst.BaseExpression] = []
    stack: List[Tuple[cst.CSTNode, Tuple[cst.BaseExpression, ...]]] = [(statement, ())]
    while stack:
        current, tests = stack.pop()
        if current is node:
            found.extend(tests)
            break
        if isinstance(current, cst.IndentedBlock):
            continue  # the statements of a block are its own
        for child in current.children:
            inside = tests + (current.test,) if isinstance(current, cst.IfExp) and child is not current.test else tests
            stack.append((child, inside))
    return found


def _head(node: cst.BaseExpression) -> Optional[cst.Name]:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) else None


class _Collector:
    def __init__(self, file: FileContext):
        self.file = file
        self.history: History = get_history()
        self.version = file.knowledge.version
        self.target = format_version(self.version)
        self.analysis = file.analysis
        self.calls: Dict[cst.CSTNode, cst.Call] = {
            call.func: call for call in self.analysis.context_at if isinstance(call, cst.Call)
        }
        self._tvm_ok: Optional[Tuple[Optional[Edit], bool]] = None
        self.out: List[ApiFinding] = []

    def _own(self, use: Use) -> bool:
        """A use inside the deprecated package's own tree: its modules (`nnvm.compiler` using
        `nnvm._base`, tvm/contrib/graph_runtime.py itself) and, for a package other than tvm,
        its own tests beside it (nnvm/tests/python/...). A package does not port away from itself."""
        old = use.symbol.old
        module = self.analysis.module_name
        if module == old or module.startswith(old + "."):
            return True
        root = old.split(".")[0]
        return root != "tvm" and root in PurePath(self.file.path).parts[:-1]

    def _guarded(self, node: cst.CSTNode, qualname: str, attribute: Optional[str] = None,
                 replacement: Optional[str] = None) -> bool:
        """A use behind a visible version guard: in an `if`, a conditional expression (or a
        decorator such as skipIf) that asks `hasattr` of it or of a module above it (of a method:
        of it or of its `replacement`), or compares `__version__`; or in a `try` whose handlers
        catch AttributeError or ImportError. Code written for several releases."""
        statement = self.analysis.statement_of(node) or self.analysis.top_statement_of(node)
        if statement is not None and any(self._guards(test, qualname, attribute, replacement)
                                         for test in _conditions_around(statement, node)):
            return True  # `x.numpy() if hasattr(x, "numpy") else x.asnumpy()`
        while statement is not None:
            if isinstance(statement, (cst.If, cst.While)) and self._guards(statement.test, qualname, attribute,
                                                                            replacement):
                return True
            if isinstance(statement, cst.Try) and _catches(statement, _GUARD_ERRORS):
                return True
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and any(
                self._guards(decorator.decorator, qualname) for decorator in statement.decorators
            ):
                return True
            statement = self.analysis.parent_statement_of(statement)
        return False

    def _guards(self, test: cst.BaseExpression, qualname: str, attribute: Optional[str] = None,
                replacement: Optional[str] = None) -> bool:
        """Whether an expression asks if `qualname` (or a module above it) exists, or which release
        runs; with `attribute` (a method), whether it asks `hasattr(x, attribute)` of anything, or
        `hasattr(x, replacement)`: the other branch is for releases without the new name."""
        stack = [test]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Attribute) and node.attr.value == "__version__":
                return True
            if (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "hasattr"
                    and len(node.args) == 2 and isinstance(node.args[1].value, cst.SimpleString)):
                owner = self.analysis.qualnames.get(node.args[0].value)
                name = node.args[1].value.evaluated_value
                if attribute is not None and name in (attribute, replacement):
                    return True
                asked = f"{owner}.{name}" if owner else None
                if asked is not None and (qualname == asked or qualname.startswith(asked + ".")
                                          or qualname == owner):
                    return True
            stack.extend(node.children)
        return False

    def collect(self) -> List[ApiFinding]:
        imports = [(alias, use) for alias, full in self.analysis.import_refs for use in [self.history.use(full, self.version)] if use]
        imports = [(alias, use) for alias, use in imports if not self._own(use)]
        guarded = _guarded_imports(self.file.module) if imports else set()
        renamed: Set[str] = set()  # what the imports whose fix keeps the name they bind stand for
        for alias, use in imports:
            if alias not in guarded:
                fix = self._import_fix(alias, use)
                if fix is not None:
                    renamed.add(use.qualname)
                self.out.append(ApiFinding(alias, use.status, *self._said(use, fix), qualname=use.qualname))
        inner = {node.value for node in self.analysis.qualnames if isinstance(node, cst.Attribute)}
        candidates = []
        for node, qualname in self.analysis.qualnames.items():
            if node not in inner:
                use = self.history.use(qualname, self.version)
                if use is not None and not self._own(use) and not self._guarded(node, qualname):
                    candidates.append((node, use))
        if candidates:  # most modules have none: the import walk below is only paid for when needed
            in_imports = self._import_nodes()
            said: Dict[tuple, Set[Optional[str]]] = {}
            for _, use in imports:
                said.setdefault((use.symbol, use.status), set()).add(use.replacement)
            # a call of a shim that warns is a line of its own even when its import was reported
            shim_calls = {node for node, use in candidates if self._warning_call(node, use)}
            kept = [(node, use) for node, use in candidates if node not in in_imports and (
                node in shim_calls or not (self._through_import(node, use) and self._said_at_import(use, said)))]
            kept.sort(key=lambda pair: self.file.span(pair[0])[0])
            # a use through the name a reported import binds (`graph_runtime.GraphModule` after `from
            # tvm.contrib import graph_runtime`) is made right by that import's fix, which keeps the name
            for node, use in kept:
                head = _head(node)
                through = head is not None and self.analysis.qualnames.get(head) in renamed
                fix = None if through else self._use_fix(node, use)
                successor = use.symbol.new if node in shim_calls else None
                self.out.append(ApiFinding(node, use.status, *self._said(use, fix), qualname=use.qualname,
                                           successor=successor))
        self._collect_methods()
        self._collect_keywords()
        return self.out

    def _collect_keywords(self) -> None:
        """`tvm.nd.array(x, ctx=dev)` where the target renamed the keyword ([[keyword]]): a TypeError."""
        renamed = self.history.keywords
        if not renamed:
            return
        for func, call in self.calls.items():
            qualname = self.analysis.qualnames.get(func)
            if not qualname or qualname not in renamed or not self.history.exists(qualname, self.version):
                continue  # a function the release no longer has is reported as such
            for keyword in renamed[qualname]:
                if self.version < parse_version(keyword.removed):
                    continue
                for arg in call.args:
                    if arg.keyword is not None and arg.keyword.value == keyword.old:
                        message = (
                            f"`{self.analysis.short(qualname)}()` has no keyword `{keyword.old}` (renamed "
                            f"`{keyword.new}` in {keyword.removed}) in TVM {self.target}, so the call raises TypeError"
                        )
                        fix = Fix(f"Rename `{keyword.old}=` to `{keyword.new}=`",
                                  (self._replace(arg.keyword, keyword.new),), safe=True)
                        self.out.append(ApiFinding(arg.keyword, REMOVED, message, fix, f"Write `{keyword.new}=`."))

    def _collect_methods(self) -> None:
        """`x.asnumpy()` and the like ([[method]]): a module that uses TVM calls it on TVM's objects,
        unless it imports a library whose arrays have a method of that name."""
        methods = self.history.methods
        if not methods:
            return
        imported = {full.split(".")[0] for _, full in self.analysis.import_refs}
        if not imported & self.analysis.roots:
            return
        for call in self.calls.values():
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value not in methods:
                continue
            method = methods[func.attr.value]
            status = method.status(self.version)
            if status is None or imported & method.unless_imports:
                continue
            receiver = self.analysis.qualnames.get(func.value)
            if receiver is not None and not self.analysis.is_tvm(receiver):
                continue  # `cupy.asnumpy(x)`: another library's function
            if self._guarded(call, f"?.{method.name}", method.name, method.new):
                continue  # `elif hasattr(x, "asnumpy"): x.asnumpy()`: for what is not a TVM array
            said = self._method_message(method, status)
            self.out.append(ApiFinding(func.attr, status, said.message, self._method_fix(func, method), said.detail))

    def _method_message(self, method, status: str) -> Said:
        owner = method.owner.rsplit(".", 1)[-1]
        if status == REMOVED:
            text = (f"`{owner}.{method.name}()` does not exist in TVM {self.target}, removed in {method.removed} "
                    f"(AttributeError)")
        else:
            text = f"`{owner}.{method.name}()` is deprecated since TVM {method.deprecated}"
            if method.removed:
                text += f" and removed in {method.removed}"
        if method.new:
            return Said(f"{text}, in favour of `.{method.new}()`", f"Use `.{method.new}()`: it returns the same array.")
        return Said(text)

    def _method_fix(self, func, method) -> Optional[Fix]:
        if method.new is None:
            return None
        return Fix(f"Replace `.{method.name}()` with `.{method.new}()`", (self._replace(func.attr, method.new),), safe=True)

    # -- which uses to report --------------------------------------------------------

    def _import_nodes(self) -> Set[cst.CSTNode]:
        """Name chains inside import statements: they are reported as imports."""
        found: Set[cst.CSTNode] = set()

        def add(expr: Optional[cst.CSTNode]) -> None:
            while isinstance(expr, cst.Attribute):
                found.add(expr)
                expr = expr.value
            if expr is not None:
                found.add(expr)

        for alias, _ in self.analysis.import_refs:
            if isinstance(alias, cst.ImportAlias):
                add(alias.name)
                if alias.asname is not None:
                    add(alias.asname.name)
            elif isinstance(alias, cst.ImportFrom):
                add(alias.module)
        for statement in self.analysis.import_froms:
            add(statement.module)
        return found

    def _warning_call(self, node: cst.CSTNode, use: Use) -> bool:
        """A call of a function of a deprecated module's shim that warns when called
        (`graph_runtime.create(...)` at 0.8; rules/api_history.toml `warning_calls`): the call is a
        line the warning comes from, reported beside the import (whose fix, keeping the name,
        makes the call right too). NNVM warns once, on import: its calls are not reported again;
        nor is a name the shim does not hold (`graph_runtime.save_param_dict` after 0.8)."""
        symbol = use.symbol
        return (use.status != REMOVED and node in self.calls
                and any(use.qualname == f"{symbol.old}.{name}" for name in symbol.warning_calls))

    def _through_import(self, node: cst.CSTNode, use: Use) -> bool:
        """Whether the use reads a name an import of the entry bound (`graph_runtime.create` after
        `from tvm.contrib import graph_runtime`): fixing that import fixes it. One spelt from
        above the entry (`tvm.contrib.graph_runtime.create` after `import tvm`) must change too."""
        root = node
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return True
        bound = self.analysis.qualnames.get(root)
        old = use.symbol.old
        return bound is None or bound == old or bound.startswith(old + ".")

    @staticmethod
    def _said_at_import(use: Use, said: Dict[tuple, Set[Optional[str]]]) -> bool:
        """An import in the file was reported (or guarded) under the same entry and the use adds
        nothing to it. `import nnvm.compiler` reports `nnvm.compiler`: `nnvm.compiler.build(...)`
        has an entry of its own and is reported too, `nnvm.compiler.OPT_PASS_LEVEL` is not."""
        replacements = said.get((use.symbol, use.status))
        if replacements is None:
            return False  # `import tvm` is fine: what is reached through it is reported where it is used
        return use.replacement is None or use.replacement in replacements

    def _new_path(self, use: Use) -> Optional[str]:
        if use.replacement is None or use.replaced is None:
            return None
        return use.replacement + use.qualname[len(use.replaced):] if use.fixable else use.replacement

    # -- messages --------------------------------------------------------------------

    def _said(self, use: Use, fix: Optional[Fix]) -> Tuple[str, Optional[Fix], str]:
        """ApiFinding's message, fix and detail."""
        said = self._message(use)
        return said.message, fix, said.detail

    def _message(self, use: Use) -> Said:
        """The message names the API, its releases and what replaces it where one name does; the
        detail is the history's advice (rules/api_history.toml)."""
        symbol = use.symbol
        # a name under the entry's module or class went with it: which one is the detail's to say
        under = use.qualname != symbol.old
        where = f" with `{symbol.old}`" if under and not use.qualname.startswith(f"{symbol.old}.") else ""
        new_path = self._new_path(use)  # not fixable: what is under it may have been renamed on the way
        if use.status == REMOVED:
            text = f"`{use.qualname}` does not exist in TVM {self.target} (removed in {symbol.removed}{where})"
        else:
            text = f"`{use.qualname}` is deprecated since TVM {symbol.deprecated}{where}"
            if symbol.removed:
                text += f" and removed in {symbol.removed}"
        if new_path is not None:
            text += f", in favour of `{new_path}`"
        went = "removed" if use.status == REMOVED else "deprecated"
        detail = (f"It is {went} with `{symbol.old}`. " if under and not where else "") + _sentence(symbol.advice)
        if new_path is not None and new_path not in symbol.advice:
            detail += f" At {self.target} it is `{new_path}`." if use.fixable else f" Its successor: `{new_path}`."
        return Said(text, detail)

    # -- fixes -----------------------------------------------------------------------

    def _tvm_name(self) -> Tuple[Optional[Edit], bool]:
        """(edit adding `import tvm` or None, whether `tvm` can be written here)."""
        if self._tvm_ok is None:
            file = self.file
            edit, possible = tvm_import_edit(file.module, self.analysis.module_scope().bindings, file.positions, file.lines)
            # a `tvm` bound to anything else somewhere in the module (a parameter, a loop variable)
            if possible and "tvm" in self.analysis.bound_otherwise:
                possible = False
            if possible:
                possible = not any(
                    resolved != "tvm" for node, resolved in self.analysis.qualnames.items()
                    if isinstance(node, cst.Name) and node.value == "tvm"
                )
            self._tvm_ok = (edit, possible)
        return self._tvm_ok

    def _replace(self, node: cst.CSTNode, text: str) -> Edit:
        start, end = self.file.span(node)
        return Edit(start, end, text)

    def _fix(self, use: Use, edits: List[Edit]) -> Fix:
        return Fix(f"Replace `{use.replaced}` with `{use.replacement}`", tuple(edits), safe=True)

    def _use_fix(self, node: cst.CSTNode, use: Use) -> Optional[Fix]:
        if not use.fixable or use.replacement is None or use.replaced is None:
            return None
        if use.symbol.conditional and use.replaced == use.symbol.old and not self._call_allows(node, use):
            return None
        target = node
        while isinstance(target, cst.Attribute) and self.analysis.qualnames.get(target) != use.replaced:
            target = target.value
        if self.analysis.qualnames.get(target) != use.replaced:
            return None
        head = _head(target)
        head_q = self.analysis.qualnames.get(head) if head is not None else None
        if head is not None and head is not target and head_q and use.replacement.startswith(head_q + "."):
            return self._fix(use, [self._replace(target, head.value + use.replacement[len(head_q):])])
        if not use.replacement.startswith("tvm."):
            return None
        import_edit, possible = self._tvm_name()
        if not possible:
            return None
        edits = [self._replace(target, use.replacement)]
        if import_edit is not None:
            edits.insert(0, import_edit)
        return self._fix(use, edits)

    def _call_allows(self, node: cst.CSTNode, use: Use) -> bool:
        symbol = use.symbol
        call = self.calls.get(node)
        if call is None:
            return symbol.kind == "class" and symbol.fix_positional is not None  # a class named, not called
        if symbol.fix_positional is None or symbol.fix_keywords is None:
            return False
        positional = 0
        for arg in call.args:
            if arg.star:
                return False
            if arg.keyword is None:
                positional += 1
            elif arg.keyword.value not in symbol.fix_keywords:
                return False
        return positional <= symbol.fix_positional

    def _import_fix(self, alias: cst.CSTNode, use: Use) -> Optional[Fix]:
        if not use.fixable or use.replacement is None or use.replaced is None or use.symbol.conditional:
            return None
        replaced, new = use.replaced, use.replacement
        if isinstance(alias, cst.ImportAlias) and isinstance(alias.name, (cst.Name, cst.Attribute)):
            statement = self._statement_of(alias)
            if isinstance(statement, cst.Import):
                full = dotted(alias.name) or ""
                new_full = new + full[len(replaced):]
                if alias.asname is None and new_full.split(".")[0] != full.split(".")[0]:
                    return None
                return self._fix(use, [self._replace(alias.name, new_full)])
            if isinstance(statement, cst.ImportFrom):
                return self._from_fix(statement, alias, use)
        return None

    def _statement_of(self, alias: cst.ImportAlias) -> Optional[cst.CSTNode]:
        return self.analysis.import_statement.get(alias)

    def _from_fix(self, statement: cst.ImportFrom, alias: cst.ImportAlias, use: Use) -> Optional[Fix]:
        if statement.relative or statement.module is None or isinstance(statement.names, cst.ImportStar):
            return None
        module = dotted(statement.module) or ""
        name = dotted(alias.name) or ""
        replaced, new = use.replaced, use.replacement
        if module == replaced or module.startswith(replaced + "."):
            # every name of the statement must move the same way
            for other in statement.names:
                other_use = self.history.use(f"{module}.{dotted(other.name)}", self.version)
                if other_use is None or (other_use.replaced, other_use.replacement) != (replaced, new):
                    return None
            new_module = new + module[len(replaced):]
            if new_module in self.history.not_modules or other_first(statement, alias):
                return None
            return self._fix(use, [self._replace(statement.module, new_module)])
        if f"{module}.{name}" != replaced:
            return None
        local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
        new_parent, _, new_name = new.rpartition(".")
        imported = new_name if new_name == local else f"{new_name} as {local}"
        if new_parent == module:
            return self._fix(use, [self._replace(alias, imported)])
        if len(statement.names) != 1 or new_parent in self.history.not_modules or not new_parent:
            return None
        return self._fix(use, [self._replace(statement.module, new_parent), self._replace(alias, imported)])


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
# what a use written for several releases catches when the release lacks it: these by name only
# (an `except Exception` around a use is error handling, not a version guard)
_GUARD_ERRORS = frozenset({"AttributeError", "ImportError", "ModuleNotFoundError"})


def _handles_import_error(node: cst.Try) -> bool:
    return _catches(node, _IMPORT_ERRORS, bare=True)


def _catches(node: cst.Try, errors, bare: bool = False) -> bool:
    """Whether a `try`'s handlers catch one of `errors` (`bare`: a bare `except` counts too)."""
    for handler in node.handlers:
        kinds = handler.type
        names = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds] if kinds is not None else []
        if (kinds is None and bare) or any(dotted(name) in errors for name in names):
            return True
    return False


def _guarded_imports(module: cst.Module) -> Set[cst.CSTNode]:
    """Imports in a `try` that handles ImportError, or in its handler: code written for several releases."""
    found: Set[cst.CSTNode] = set()
    # Imports are statements: the walk descends through statements and their blocks only,
    # never into expressions (a full visit of a large module costs seconds).
    blocks = (cst.BaseSuite, cst.BaseCompoundStatement, cst.ExceptHandler, cst.ExceptStarHandler, cst.Else,
              cst.Finally, cst.MatchCase)

    def walk(node: cst.CSTNode, guarded: bool) -> None:
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            if guarded:
                for small in node.body:
                    if isinstance(small, cst.Import):
                        found.update(small.names)
                    elif isinstance(small, cst.ImportFrom):
                        found.add(small)  # a star import's reference is the statement
                        if not isinstance(small.names, cst.ImportStar):
                            found.update(small.names)
            return
        guarded = guarded or (isinstance(node, cst.Try) and _handles_import_error(node))
        for child in node.children:
            if isinstance(child, blocks) or isinstance(child, cst.SimpleStatementLine):
                walk(child, guarded)

    for statement in module.body:
        walk(statement, False)
    return found


def other_first(statement: cst.ImportFrom, alias: cst.ImportAlias) -> bool:
    """The module rewrite is carried by the statement's first name only, so it is applied once."""
    names = statement.names
    return not isinstance(names, cst.ImportStar) and names[0] is not alias


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text.endswith(".") else text + "."
