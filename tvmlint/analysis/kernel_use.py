"""What a module visibly does with a kernel, read from its stdlib syntax tree (TVM401).

Two questions, both answered from the syntax alone (the linter never imports the code):

- `KernelUse.reaches_run`: whether a kernel (a TVMScript function, the `ir_module`
  class holding it, or the tensor a `te.compute` makes) flows into a call that builds
  or runs it (`tvm.build`, `tvm.compile`, `relax.build`, a tuner, ...), through
  assignments, containers, helper functions of the same module and functions that
  return it. A transform test's Before/Expected modules only ever reach
  `assert_structural_equal`, and do not.
- `KernelUse.literal`: the string a name bound once to a literal stands for where it
  is read (a module constant, a local assigned once, a parameter whose literal default
  every visible call keeps, or the literal every visible call passes); None where the
  value is not fixed.

The tree is the original text's, not the cheap stage's pruned one (`tvmlint.run.cheap.prune`
blanks the test functions that call `tvm.build`), so the answers do not depend on it.
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from tvmlint.analysis.constants import option_dest as _option_dest
from tvmlint.analysis.module_returns import dotted_name
from tvmlint.analysis.used_names import LEAVES, child_fields

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SELF = ("self", "cls")
# decorators that parse the function they decorate when the module is imported (TVMScript)
_PARSING_DECORATORS = frozenset({"prim_func", "ir_module", "function", "macro"})
_DEPTH = 6  # how many names deep a literal is followed (`dtype = DTYPE`, a parameter, its caller's)


def is_test_path(path: str) -> bool:
    """A test module by its path: `test_*.py`, `*_test.py`, `conftest.py`, or under a `tests` folder."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return True
    return any(part in ("tests", "test") for part in parts[:-1])


def _params(function: ast.AST) -> List[ast.arg]:
    args = function.args
    out = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg is not None:
        out.append(args.vararg)
    if args.kwarg is not None:
        out.append(args.kwarg)
    return out


def _target_names(target: ast.AST) -> Set[str]:
    """The names an assignment target binds or changes (`x`, `a, b`, `self.x`, `d[k]`)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_target_names(element) for element in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, ast.Attribute):
        if isinstance(target.value, ast.Name) and target.value.id in _SELF:
            return {target.attr}
        return _target_names(target.value)
    if isinstance(target, ast.Subscript):
        return _target_names(target.value)
    return set()


class KernelUse:
    def __init__(self, text: str, runners: FrozenSet[str], package: str = "",
                 inserters: Tuple[FrozenSet[str], FrozenSet[str]] = (frozenset(), frozenset()),
                 tree: Optional[ast.Module] = None, workload_calls: Tuple[dict, ...] = ()):
        # `tree`: the stdlib tree of `text` when the caller has it (the cheap stage parsed it already)
        self.tree = tree if tree is not None else ast.parse(text)
        self.runners = runners
        # numerics.toml `workload_call` rows at the release: calls that call a function with a tuple
        self.workload_calls = workload_calls
        self._workloads: Optional[Dict[str, List[Optional[List[ast.expr]]]]] = None
        # what puts a kernel into a model that runs it: calls (relax's call_tir) and method names
        # (BlockBuilder.add_func), counted only when `reaches_run` is asked with `inserted=True`
        self.inserters, self.insert_methods = inserters
        self._inserting = False
        self.parent: Dict[int, ast.AST] = {}
        self.functions: Dict[str, List[ast.AST]] = {}
        self.bindings: Dict[str, Set[str]] = {}
        self.calls_by_name: Dict[str, List[Tuple[ast.Call, bool]]] = {}  # name -> (call, through an attribute)
        self._method_names: Dict[str, Set[str]] = {}  # a name -> the methods assigned to it (`aa = p.add_argument`)
        self._stores_by_attribute: Optional[Dict[str, List[ast.Attribute]]] = None
        self._sets_attributes_by_name = False
        self._assigned_attribute: Dict[int, ast.Assign] = {}  # a lone attribute target -> its assignment
        self.declared_global: Set[str] = set()  # names some function declares global or nonlocal
        self.star_modules: List[str] = []  # `from config import *`, in the order written
        self.loose: Set[str] = set()  # names read other than as a callee (a function passed on)
        self._words: Dict[int, FrozenSet[str]] = {}
        parent_statement: Dict[int, ast.stmt] = {}
        self._reaches: Dict[Tuple[int, str, bool], Optional[bool]] = {}
        self._global: Set[str] = set()
        self._sources: Set[int] = set()
        self._runs_memo: Dict[Tuple[int, FrozenSet[str], bool], bool] = {}
        # one pass over the tree (breadth first), each node's children listed once from the
        # fields that can hold nodes (`tvmlint.analysis.used_names.child_fields`: no contexts or operators),
        # recording the parents the questions climb (statements, handlers, stored names), the
        # names read other than as a callee, and each statement's own words (`_words_of` adds
        # its inner statements' once, bottom up)
        parent = self.parent
        loose = self.loose
        words: Dict[int, Set[str]] = {}
        statements: List[ast.stmt] = []
        stmt, name_type, attribute, call_type, load = ast.stmt, ast.Name, ast.Attribute, ast.Call, ast.Load
        climbed = (ast.stmt, ast.excepthandler, ast.match_case)
        fields_of, leaves = child_fields, LEAVES
        queue: List[Tuple[ast.AST, Optional[ast.stmt]]] = [(self.tree, None)]
        for node, around in queue:  # the list grows as it is read: breadth first
            kind = type(node)
            if isinstance(node, stmt):
                statements.append(node)
                if around is not None:
                    parent_statement[id(node)] = around
                around = node
                own = words[id(node)] = set()
                if kind in _SCOPES:
                    own.add(node.name)
                    if kind is not ast.ClassDef:
                        self.functions.setdefault(node.name, []).append(node)
                elif kind is ast.Import:
                    for alias in node.names:
                        if alias.asname:
                            self.bindings.setdefault(alias.asname, set()).add(alias.name)
                        else:
                            top = alias.name.split(".")[0]
                            self.bindings.setdefault(top, set()).add(top)
                elif kind is ast.ImportFrom:
                    module = node.module or ""
                    if node.level:
                        base = package.split(".") if package else []
                        base = base[: max(0, len(base) - (node.level - 1))]
                        module = ".".join([*base, *([module] if module else [])])
                    for alias in node.names:
                        if alias.name == "*" and module:
                            self.star_modules.append(module)
                        elif module:
                            self.bindings.setdefault(alias.asname or alias.name, set()).add(f"{module}.{alias.name}")
                elif kind is ast.Global or kind is ast.Nonlocal:
                    self.declared_global.update(node.names)
                elif kind is ast.Assign and type(node.value) is attribute:
                    # `aa = parser.add_argument`: calls of `aa` are calls of that method
                    for target in node.targets:
                        if type(target) is name_type:
                            self._method_names.setdefault(target.id, set()).add(node.value.attr)
            elif kind is name_type:
                if around is not None:
                    words[id(around)].add(node.id)
                continue  # a name holds no node a question asks about
            elif kind is attribute:
                if around is not None:
                    words[id(around)].add(node.attr)
            elif kind is call_type:
                func = node.func
                if type(func) is name_type:
                    self.calls_by_name.setdefault(func.id, []).append((node, False))
                elif type(func) is attribute:
                    self.calls_by_name.setdefault(func.attr, []).append((node, True))
            for field in fields_of(kind):
                value = getattr(node, field, None)
                for child in (value if type(value) is list else (value,)):
                    if child is None or not isinstance(child, ast.AST) or isinstance(child, leaves):
                        continue
                    queue.append((child, around))
                    if type(child) is name_type:
                        if type(child.ctx) is load:
                            if not (kind is call_type and node.func is child):
                                loose.add(child.id)
                        else:
                            parent[id(child)] = node  # a stored name: the assignment that binds it
                    elif (type(child) is ast.Tuple or type(child) is ast.List) and type(child.ctx) is not load:
                        parent[id(child)] = node  # an unpacking target: its assignment
                    elif isinstance(child, climbed):
                        parent[id(child)] = node
        # inner statements come after their outer one in breadth-first order: folding in reverse
        # gives every statement the words of all it holds, each set joined once
        for statement in reversed(statements):
            mine = words[id(statement)]
            outer = parent_statement.get(id(statement))
            if outer is not None:
                words[id(outer)] |= mine
            self._words[id(statement)] = frozenset(mine)

    # -- where -------------------------------------------------------------------------

    def chain_at(self, line: int) -> List[ast.AST]:
        """The statements around `line`, outermost first (definitions with their decorators)."""
        chain: List[ast.AST] = []
        body: Iterable[ast.AST] = self.tree.body
        while True:
            inner = None
            for statement in body:
                first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
                if first <= line <= statement.end_lineno:
                    inner = statement
                    break
            if inner is None:
                return chain
            chain.append(inner)
            body = [child for name in ("body", "orelse", "finalbody", "handlers") for child in _statements(inner, name)]

    def qualname(self, node: ast.AST) -> Set[str]:
        text = dotted_name(node)
        if text is None:
            return set()
        head, _, rest = text.partition(".")
        return {f"{q}.{rest}" if rest else q for q in self.bindings.get(head, ())}

    def scope_of(self, node: ast.AST) -> ast.AST:
        """The function or module whose names a statement binds (classes do not nest scopes for this)."""
        parent = self.parent.get(id(node))
        while parent is not None and not isinstance(parent, (*_FUNCTIONS, ast.Module)):
            parent = self.parent.get(id(parent))
        return parent if parent is not None else self.tree

    # -- does a kernel reach a build or a run? -------------------------------------------

    def kernel_start(self, chain: List[ast.AST], line: int) -> Optional[Tuple[ast.AST, Set[str]]]:
        """The scope a TVMScript block's kernel is named in, and its names there: the function
        holding the block, or the class (an `ir_module`) holding that function."""
        functions = [node for node in chain if isinstance(node, _FUNCTIONS)]
        if not functions:
            return None
        kernel = functions[-1]
        parent = self.parent.get(id(kernel))
        if isinstance(parent, ast.ClassDef):
            return self.scope_of(parent), {parent.name}
        return self.scope_of(kernel), {kernel.name}

    def tensor_start(self, chain: List[ast.AST]) -> Optional[Tuple[ast.AST, Set[str]]]:
        """The scope a tensor expression's result is named in, and its names: what the statement
        holding the sum assigns, or the function that returns it."""
        statements = [node for node in chain if not isinstance(node, _SCOPES)]
        if not statements:
            return None
        statement = statements[-1]
        if isinstance(statement, ast.Return):
            function = self.scope_of(statement)
            if isinstance(function, _FUNCTIONS):
                return self.scope_of(function), {function.name}
            return None
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names = set().union(*(_target_names(t) for t in targets))
            if not names:
                return None
            self._sources.add(id(statement))  # where the names get the tensor: not a rebinding
            return self.scope_of(statement), names
        return None

    def reaches_run(self, scope: ast.AST, names: Set[str], inserted: bool = False) -> bool:
        """Whether what `names` hold in `scope` flows into a call that builds or runs it (or, with
        `inserted`, that puts it into a model: `inserters`, `insert_methods`)."""
        key = (id(scope), frozenset(names), inserted)
        known = self._runs_memo.get(key)
        if known is None:
            self._inserting = inserted
            try:
                known = self._runs_memo[key] = self._reaches_run(scope, names)
            finally:
                self._inserting = False
        return known

    def _reaches_run(self, scope: ast.AST, names: Set[str]) -> bool:
        for _ in range(8):  # a function that returns the kernel: its callers, one scope out
            tainted = set(names)
            if isinstance(scope, ast.Module):
                # module-level names are every function's: a test reads the module's kernel, a
                # fixture of the same name hands it over, and a function returning it taints its name
                self._global = tainted
                try:
                    for _ in range(3):
                        before = set(tainted)
                        if self._block(scope.body, tainted)[0]:
                            return True
                        if tainted == before:
                            break
                    return False
                finally:
                    self._global = set()
            built, returned = self._block(scope.body, tainted)
            if built:
                return True
            if not returned:
                return False
            names = {scope.name}
            parent = self.parent.get(id(scope))
            scope = self.scope_of(scope) if not isinstance(parent, ast.ClassDef) else self.scope_of(parent)
        return False

    def _words_of(self, node: ast.AST) -> FrozenSet[str]:
        known = self._words.get(id(node))
        if known is None:
            words = set()
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name):
                    words.add(inner.id)
                elif isinstance(inner, ast.Attribute):
                    words.add(inner.attr)
                elif isinstance(inner, _SCOPES):
                    words.add(inner.name)
            known = self._words[id(node)] = frozenset(words)
        return known

    def _mentions(self, node: Optional[ast.AST], tainted: Set[str]) -> bool:
        if node is None or self._words_of(node).isdisjoint(tainted):
            return False
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and inner.id in tainted:
                return True
            if (isinstance(inner, ast.Attribute) and inner.attr in tainted and isinstance(inner.value, ast.Name)
                    and inner.value.id in _SELF):
                return True
        return False

    def _block(self, statements: Iterable[ast.stmt], tainted: Set[str]) -> Tuple[bool, bool]:
        built = returned = False
        for statement in statements:
            if self._words_of(statement).isdisjoint(tainted):
                continue
            b, r = self._statement(statement, tainted)
            if b:
                return True, returned
            returned = returned or r
        return built, returned

    def _statement(self, statement: ast.stmt, tainted: Set[str]) -> Tuple[bool, bool]:
        if isinstance(statement, _FUNCTIONS):
            params = {arg.arg for arg in _params(statement)}
            inner = tainted - params
            if any(self._mentions(d, tainted) for d in statement.decorator_list):
                inner |= params  # parametrized with the kernel
            inner |= params & self._global  # a pytest fixture of the module's, by its name
            built, returned = self._block(statement.body, inner)
            if returned:
                tainted.add(statement.name)
            return built, False
        if isinstance(statement, ast.ClassDef):
            return self._block(statement.body, tainted)[0], False
        if self._runs(statement, tainted):
            return True, False
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if id(statement) in self._sources or self._mentions(statement.value, tainted):
                for target in targets:
                    tainted |= _target_names(target)
            elif not isinstance(statement, ast.AugAssign) and statement.value is not None and id(statement) not in self._sources:
                for target in targets:
                    if isinstance(target, ast.Name):
                        tainted.discard(target.id)
            return False, False
        if isinstance(statement, ast.Return):
            return False, self._mentions(statement.value, tainted)
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            if self._mentions(statement.iter, tainted):
                tainted |= _target_names(statement.target)
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                if item.optional_vars is not None and self._mentions(item.context_expr, tainted):
                    tainted |= _target_names(item.optional_vars)
        if isinstance(statement, ast.If):
            # either branch may run: what either leaves tainted stays tainted
            branches = [statement.body, statement.orelse]
        else:
            branches = [_statements(statement, "body"), *(h.body for h in getattr(statement, "handlers", ())),
                        _statements(statement, "orelse"), _statements(statement, "finalbody")]
            branches = [[s for branch in branches for s in branch]]
        returned = False
        after: Set[str] = set()
        for branch in branches:
            mine = set(tainted)
            built, r = self._block(branch, mine)
            if built:
                return True, returned
            returned = returned or r
            after |= mine
        tainted.clear()
        tainted.update(after)
        return False, returned

    def _own_expressions(self, statement: ast.stmt) -> List[ast.AST]:
        """A statement's expressions, not those of the statements nested in it."""
        out = []
        for name, value in ast.iter_fields(statement):
            if name in ("body", "orelse", "finalbody", "handlers"):
                continue
            if isinstance(value, ast.AST):
                out.append(value)
            elif isinstance(value, list):
                out.extend(item for item in value if isinstance(item, ast.AST))
        return out

    def _runs(self, statement: ast.stmt, tainted: Set[str]) -> bool:
        """Whether a statement's own calls build or run what `tainted` holds; a method of a local
        object called with it (`bb.add_func(f, "f")`, `mod.update_func(gv, f)`) taints the object."""
        for expression in self._own_expressions(statement):
            if self._words_of(expression).isdisjoint(tainted):
                continue
            for node in ast.walk(expression):
                if not isinstance(node, ast.Call):
                    continue
                given = [*node.args, *(k.value for k in node.keywords)]
                if not any(self._mentions(arg, tainted) for arg in given):
                    continue
                callee = self.qualname(node.func)
                if not callee.isdisjoint(self.runners):
                    return True
                if self._inserting and (not callee.isdisjoint(self.inserters) or (
                        isinstance(node.func, ast.Attribute) and node.func.attr in self.insert_methods)):
                    return True
                if self._helper_runs(node, tainted):
                    return True
                owner = node.func.value if isinstance(node.func, ast.Attribute) else None
                while isinstance(owner, (ast.Attribute, ast.Subscript)):
                    owner = owner.value
                if isinstance(owner, ast.Name) and owner.id not in self.bindings and owner.id not in _SELF:
                    tainted.add(owner.id)
        return False

    def _helper_runs(self, call: ast.Call, tainted: Set[str]) -> bool:
        """Whether a function of this module, called with the kernel, builds or runs it."""
        func = call.func
        if isinstance(func, ast.Name):
            name, method = func.id, False
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in _SELF:
            name, method = func.attr, True
        else:
            return False
        for function in self.functions.get(name, ()):
            params = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
            if method and params and params[0] in _SELF:
                params = params[1:]
            passed: Set[str] = set()
            for position, arg in enumerate(call.args):
                if isinstance(arg, ast.Starred):
                    if self._mentions(arg, tainted):
                        passed |= {a.arg for a in _params(function)}
                    break
                if self._mentions(arg, tainted):
                    if position < len(params):
                        passed.add(params[position])
                    elif function.args.vararg is not None:
                        passed.add(function.args.vararg.arg)
            for keyword in call.keywords:
                if self._mentions(keyword.value, tainted):
                    if keyword.arg is None:
                        passed |= {a.arg for a in _params(function)}
                    elif keyword.arg in {a.arg for a in _params(function)}:
                        passed.add(keyword.arg)
                    elif function.args.kwarg is not None:
                        passed.add(function.args.kwarg.arg)
            for param in passed:
                if self._param_runs(function, param):
                    return True
        return False

    def _param_runs(self, function: ast.AST, param: str) -> bool:
        key = (id(function), param, self._inserting)
        if key in self._reaches:
            return bool(self._reaches[key])  # None while being worked out: a recursive call adds nothing
        self._reaches[key] = None
        saved, self._global = self._global, set()
        built = self._block(function.body, {param})[0]
        self._global = saved
        self._reaches[key] = built
        return built

    # -- what a name bound to a literal stands for -------------------------------------------

    def literal(self, name: str, line: int, depth: int = 0) -> Optional[Tuple[object, int]]:
        """The string (or int) literal `name` stands for where line `line` reads it, and the line
        that binds it; None when the value is not one fixed literal."""
        if depth > _DEPTH:
            return None
        chain = self.chain_at(line)
        scopes: List[ast.AST] = [self.tree, *(node for node in chain if isinstance(node, _FUNCTIONS))]
        for scope in reversed(scopes):
            found = self._bound_in(scope, name, depth)
            if found is not False:
                if found is not None and scope is self.tree and found[1] > line and self._read_on_import(chain):
                    return None  # read when the module is imported, before the line that binds it
                return found
        return None

    @staticmethod
    def _read_on_import(chain: List[ast.AST]) -> bool:
        """Whether a name read inside `chain` is read as the module is imported: at module level,
        in a class body, or by a decorator that parses its function (TVMScript's `T.prim_func`)."""
        outer = chain[0] if chain else None
        if not isinstance(outer, _FUNCTIONS):
            return True
        for decorator in outer.decorator_list:
            text = dotted_name(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
            if text.rsplit(".", 1)[-1] in _PARSING_DECORATORS:
                return True
        return False

    def _bound_in(self, scope: ast.AST, name: str, depth: int):
        """What binds `name` in `scope`: False when nothing does (look further out), None when the
        value is not one fixed literal, else (literal, line)."""
        bindings: List[ast.AST] = []
        param = None
        if isinstance(scope, _FUNCTIONS):
            for arg in _params(scope):
                if arg.arg == name:
                    param = arg
        for node in self._own_nodes(scope):
            if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
                return None
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
                bindings.append(node)
            elif isinstance(node, _SCOPES) and node.name == name:
                bindings.append(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.asname or alias.name.split(".")[0]) == name for alias in node.names
            ):
                bindings.append(node)
            elif isinstance(node, ast.ExceptHandler) and node.name == name:
                bindings.append(node)
        if param is None and not bindings:
            return False
        if name in self.declared_global:
            return None  # a nested function may rebind it (global, nonlocal)
        if param is not None:
            return None if bindings else self._param_literal(scope, param, depth)
        if len(bindings) != 1:
            return None
        store = bindings[0]
        assign = self.parent.get(id(store))
        if not isinstance(store, ast.Name) or not isinstance(assign, (ast.Assign, ast.AnnAssign)):
            return None
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        if not any(target is store for target in targets):
            return None  # unpacked, or a name inside a subscript target
        return self._value(assign.value, assign.lineno, depth)

    def value_at(self, node: ast.AST, line: int) -> Optional[Tuple[object, int]]:
        """The one literal an expression read at `line` stands for (a name, `args.option`), with
        the line that gives it; None when it is not fixed."""
        return self._value(node, line, 0)

    def _value(self, value: Optional[ast.AST], line: int, depth: int) -> Optional[Tuple[object, int]]:
        if isinstance(value, ast.Constant) and type(value.value) in (str, int):
            return value.value, line  # a dtype, or a level (TVM301 asks for `opt_level=args.opt_level`)
        if isinstance(value, ast.Name):
            # the line that gives the literal, however many names it went through: the one a
            # reader of the message looks at
            return self.literal(value.id, line, depth + 1)
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            if self._holds_parsed_options(value.value.id, line, depth + 1):
                return self._option_default(value.attr)
        if isinstance(value, ast.Attribute) and depth <= _DEPTH:
            return self._attribute_value(value.attr, depth)
        return None

    def _attribute_value(self, attr: str, depth: int) -> Optional[Tuple[object, int]]:
        """An attribute read through any object (`self.__param.opt_level`) that the module sets in
        one place only, with one name as the target (`self.opt_level = opt_level` in a settings
        class's constructor): what that one store gives. Two stores, a store through
        `setattr`, or a target that is not a plain attribute leave it unknown."""
        stores = self._attribute_stores().get(attr, [])
        if len(stores) != 1 or self._sets_attributes_by_name:
            return None
        assigned = self._assigned_attribute.get(id(stores[0]))
        if assigned is None:
            return None
        return self._value(assigned.value, assigned.lineno, depth + 1)

    def _attribute_stores(self) -> Dict[str, List[ast.Attribute]]:
        """Every attribute the module stores or deletes, by name (once, when first asked)."""
        if self._stores_by_attribute is None:
            self._stores_by_attribute = {}
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                    self._stores_by_attribute.setdefault(node.attr, []).append(node)
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
                    self._assigned_attribute[id(node.targets[0])] = node
            self._sets_attributes_by_name = any(name in self.calls_by_name for name in ("setattr", "__setattr__", "vars"))
        return self._stores_by_attribute

    def _binding(self, name: str, line: int):
        """Where `name`, read at `line`, is bound: (the innermost enclosing scope that binds it, the
        parameter of that name if the scope is a function that takes one, the names it stores),
        or None when no enclosing scope binds it."""
        chain = self.chain_at(line)
        scopes: List[ast.AST] = [self.tree, *(node for node in chain if isinstance(node, _FUNCTIONS))]
        for scope in reversed(scopes):
            param = next((arg for arg in _params(scope) if arg.arg == name), None) if isinstance(scope, _FUNCTIONS) else None
            stores = [node for node in self._own_nodes(scope)
                      if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)]
            if param is not None or stores:
                return scope, param, stores
        return None

    def outer_parameter(self, name: str, line: int) -> Optional[Tuple[str, Optional[int], Optional[str]]]:
        """When `name`, read at `line`, is a parameter of a module-level function that its body
        never rebinds, and that its module does not hand on (so other modules' calls of it by
        name are what gives it a value): (the function's name, the parameter's position among
        the positional ones or None, its string default or None)."""
        found = self._binding(name, line)
        if found is None:
            return None
        scope, param, stores = found
        if param is None or stores or name in self.declared_global or scope not in self.tree.body:
            return None
        if scope.decorator_list or param is scope.args.vararg or param is scope.args.kwarg:
            return None  # a decorator may call it its own way; *args hide the position
        args = scope.args
        positional = [*args.posonlyargs, *args.args]
        if param in positional:
            index: Optional[int] = positional.index(param)
            offset = len(positional) - len(args.defaults)
            default = args.defaults[index - offset] if index >= offset else None
        else:
            index = None
            default = args.kw_defaults[args.kwonlyargs.index(param)]
        text = default.value if isinstance(default, ast.Constant) and isinstance(default.value, str) else None
        return scope.name, index, text

    def imported_from(self, name: str, line: int) -> Tuple[str, ...]:
        """When no scope around `line` binds `name` but an import may (`from config import
        DTYPE`, `from config import *`): the qualified names it may stand for, the star
        imports' last first (a later one rebinds what an earlier one bound)."""
        if self._binding(name, line) is not None or name in self.functions or name in self.declared_global:
            return ()
        bound = self.bindings.get(name)
        if bound is not None:
            return tuple(bound) if len(bound) == 1 else ()
        return tuple(f"{module}.{name}" for module in reversed(self.star_modules))

    # -- a name that holds a Python float ---------------------------------------------------

    def python_float(self, name: str, line: int, depth: int = 0) -> bool:
        """Whether `name`, read at `line`, is bound once to Python arithmetic that gives a float
        (`scale = 1.0 / (4 * channel)`, `eps = 1e-5`): a float literal or a true division among
        numbers, with no call or tensor read that could make it a TVM expression."""
        found = self._binding(name, line) if depth <= _DEPTH else None
        if found is None:
            return False
        _scope, param, stores = found
        if param is not None or len(stores) != 1:
            return False
        assign = self.parent.get(id(stores[0]))
        if not isinstance(assign, ast.Assign) or assign.targets[0] is not stores[0]:
            return False
        return self._float_arithmetic(assign.value, assign.lineno, depth) is True

    def _float_arithmetic(self, node: ast.AST, line: int, depth: int) -> Optional[bool]:
        """True: Python arithmetic giving a float; False: giving an int; None: not plain numbers."""
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return type(node.value) is float
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._float_arithmetic(node.operand, line, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow)):
            left = self._float_arithmetic(node.left, line, depth)
            right = self._float_arithmetic(node.right, line, depth)
            if left is None or right is None:
                # `1.0 / n` with n a shape parameter is still a Python float when n is an int, but
                # n may be a TVM variable: only a float literal beside it decides
                return True if (left is True or right is True) and self._plain(node) else None
            return left or right or isinstance(node.op, ast.Div)
        if isinstance(node, ast.Name):
            return True if self.python_float(node.id, line, depth + 1) else None
        return None

    @staticmethod
    def _plain(node: ast.AST) -> bool:
        """Arithmetic over literals and names only (no call, subscript or attribute)."""
        return all(isinstance(part, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.operator, ast.unaryop, ast.expr_context))
                   for part in ast.walk(node))

    # -- a command-line option's default (`args.dtype` after `args = parser.parse_args()`) ------

    def _holds_parsed_options(self, name: str, line: int, depth: int) -> bool:
        """Whether `name`, read at `line`, holds what argparse parsed: bound once to
        `<parser>.parse_args(...)` (or the first of `parse_known_args`), or a parameter every
        visible call passes such a value."""
        found = self._binding(name, line) if depth <= _DEPTH else None
        if found is None:
            return False
        scope, param, stores = found
        if param is not None:
            given = None if stores else self._param_expressions(scope, param)
            if given is None or given[1]:
                return False  # rebound, hidden, or passed on: calls tvmlint cannot see may give it more
            return all(self._parsed(value, given_line, depth) for value, given_line in given[0])
        if len(stores) != 1:
            return False
        assign = self.parent.get(id(stores[0]))
        if not isinstance(assign, ast.Assign) or len(assign.targets) != 1:
            return False
        target = assign.targets[0]
        if target is stores[0]:
            return self._parsed(assign.value, assign.lineno, depth)
        if (isinstance(target, ast.Tuple) and target.elts and target.elts[0] is stores[0]
                and isinstance(assign.value, ast.Call) and isinstance(assign.value.func, ast.Attribute)):
            return assign.value.func.attr == "parse_known_args"
        return False

    def _parsed(self, value: ast.AST, line: int, depth: int) -> bool:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            return value.func.attr == "parse_args"
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and depth <= _DEPTH:
            # `args = get_args()`, a function of the module that returns what parse_args gives
            defined = self.functions.get(value.func.id, [])
            if len(defined) != 1:
                return False
            returns = [node.value for node in self._own_nodes(defined[0]) if isinstance(node, ast.Return)]
            return bool(returns) and all(
                returned is not None and self._parsed(returned, returned.lineno, depth + 1) for returned in returns)
        if isinstance(value, ast.Name):
            return self._holds_parsed_options(value.id, line, depth + 1)
        return False

    def _option_default(self, option: str) -> Optional[Tuple[str, int]]:
        """The literal default of the command-line option stored as `option`: one
        `add_argument` of the module stores it (its `dest`, or its first long flag with dashes as
        underscores), or a `set_defaults(option=...)` gives it. None when no default is a literal, or
        they differ: the run's value is then not known."""
        found: List[Optional[Tuple[str, int]]] = []
        for call in self._method_calls("set_defaults"):
            for keyword in call.keywords:
                if keyword.arg == option:
                    found.append(self._value(keyword.value, call.lineno, _DEPTH))
        if not found:
            for call in self._method_calls("add_argument"):
                if _option_dest(call) != option:
                    continue
                default = next((k.value for k in call.keywords if k.arg == "default"), None)
                found.append(self._value(default, call.lineno, _DEPTH) if default is not None else None)
        if not found or any(value is None for value in found) or len({value[0] for value in found}) != 1:
            return None
        return found[0]

    def _method_calls(self, method: str) -> List[ast.Call]:
        """The calls of a method by its name (`p.add_argument(...)`), and through a name that
        holds only it (`aa = p.add_argument; aa(...)`)."""
        calls = [call for call, _ in self.calls_by_name.get(method, ())]
        for name, methods in self._method_names.items():
            if methods == {method}:
                calls.extend(call for call, through_attribute in self.calls_by_name.get(name, ()) if not through_attribute)
        return calls

    def _own_nodes(self, scope: ast.AST) -> Iterable[ast.AST]:
        """The nodes of a scope, not those of the functions and classes nested in it (their names
        and decorators are the scope's)."""
        stack = list(scope.body)
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, _SCOPES):
                stack.extend(node.decorator_list)
                if isinstance(node, _FUNCTIONS):
                    stack.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None)
                else:
                    stack.extend(node.bases)
                    stack.extend(k.value for k in node.keywords)
                continue
            if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                continue
            stack.extend(ast.iter_child_nodes(node))

    def _param_literal(self, function: ast.AST, param: ast.arg, depth: int) -> Optional[Tuple[str, int]]:
        """A parameter's literal: its literal default when every visible call keeps it, or the
        literal every visible call passes. None when the function is passed on (its calls are
        not visible), or a decorator may supply it (pytest's parametrize)."""
        found = self._param_values(function, param, depth)
        if found is None:
            return None
        values, loose = found
        if loose or any(value is None for value in values) or len({value[0] for value in values}) != 1:
            return None
        return values[0]

    def _param_values(self, function: ast.AST, param: ast.arg, depth: int):
        """(the values a parameter may have: its default where a visible call keeps it, or no call
        is visible, and what each visible call passes (None: not a literal); whether the function
        is passed on, so that calls tvmlint cannot see may give it more), or None when a
        decorator may supply it or a call hides its arguments."""
        given = self._param_expressions(function, param)
        if given is None:
            return None
        expressions, loose = given
        values = [self._value(value, line, depth + 1) if isinstance(value, ast.Name) and line != function.lineno
                  else self._value(value, line, depth) for value, line in expressions]
        return values, loose

    def _param_expressions(self, function: ast.AST, param: ast.arg):
        """(what a parameter may be given, each with its line: its default where a visible call
        keeps it, or no call is visible, and what each visible call passes; whether the function
        is passed on), or None when a decorator may supply it or a call hides its arguments."""
        args = function.args
        if param is args.vararg or param is args.kwarg:
            return None
        for decorator in function.decorator_list:
            for node in ast.walk(decorator):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and param.arg in node.value.replace(" ", "").split(","):
                    return None
        method = isinstance(self.parent.get(id(function)), ast.ClassDef)
        # a constructor is called by its class's name (`Params(...)` runs `Params.__init__`)
        called = self.parent[id(function)].name if method and function.name == "__init__" else function.name
        loose = called in self.loose
        positional = [*args.posonlyargs, *args.args]
        default = None
        if param in positional:
            index = positional.index(param)
            offset = len(positional) - len(args.defaults)
            if index >= offset:
                default = args.defaults[index - offset]
        else:
            index = None
            default = args.kw_defaults[args.kwonlyargs.index(param)]
        if method and positional and positional[0].arg in _SELF and index is not None:
            index -= 1
        given: List[Tuple[ast.AST, int]] = []
        for call, through_attribute in self.calls_by_name.get(called, ()):
            if through_attribute and not method:
                continue  # `x.name(...)`: some other object's
            passed = None
            hidden = False
            for position, arg in enumerate(call.args):
                if isinstance(arg, ast.Starred):
                    hidden = True
                    break
                if index is not None and position == index:
                    passed = arg
            for keyword in call.keywords:
                if keyword.arg is None:
                    hidden = True
                elif keyword.arg == param.arg:
                    passed = keyword.value
            if passed is None and hidden:
                return None
            if passed is None:
                if default is None:
                    return None
                given.append((default, function.lineno))
            else:
                given.append((passed, call.lineno))
        for elements in self.workloads().get(function.name, ()):
            # a tuner calls it with the tuple the script gives: positional arguments only
            if elements is None:
                return None
            if index is not None and index < len(elements):
                given.append((elements[index], elements[index].lineno))
            elif default is not None:
                given.append((default, function.lineno))
            else:
                return None
        if (not given or loose) and default is not None:
            given.append((default, function.lineno))
        if not given:
            return None
        return given, loose

    def workloads(self) -> Dict[str, List[Optional[List[ast.expr]]]]:
        """Per function name, the argument tuples TVM's tuners call it with
        (numerics.toml `workload_call`: `SearchTask(func=gemm, args=(64, "float16"))`); None for a
        tuple that is not written out (its elements are not known)."""
        if self._workloads is None:
            self._workloads = {}
            for row in self.workload_calls:
                apis = frozenset(row["api"])
                for last in {api.rpartition(".")[2] for api in apis}:
                    for call, _ in self.calls_by_name.get(last, ()):
                        if self.qualified(call.func) in apis:
                            self._add_workload(row, call)
        return self._workloads

    def _add_workload(self, row: dict, call: ast.Call) -> None:
        func = _argument(call, row["func"])
        if isinstance(func, ast.Name):
            names = [func.id]
        elif isinstance(func, ast.Constant) and isinstance(func.value, str):
            names = self._templates(func.value, frozenset(row.get("templates", ())))
        else:
            return
        given = _argument(call, row["args"])
        if given is None:
            return
        elements = list(given.elts) if isinstance(given, (ast.Tuple, ast.List)) else None
        if elements is not None and any(isinstance(element, ast.Starred) for element in elements):
            elements = None
        for name in names:
            self._workloads.setdefault(name, []).append(elements)

    def _templates(self, registered: str, decorators: FrozenSet[str]) -> List[str]:
        """The module's functions a template decorator registers under `registered`:
        `@autotvm.template("tutorial/matmul")`, or a bare `@autotvm.template` on `matmul`."""
        found = []
        for name, definitions in self.functions.items():
            for function in definitions:
                for decorator in getattr(function, "decorator_list", ()):
                    if isinstance(decorator, ast.Call) and self.qualified(decorator.func) in decorators:
                        first = decorator.args[0] if decorator.args else None
                        if isinstance(first, ast.Constant) and first.value == registered:
                            found.append(name)
                    elif self.qualified(decorator) in decorators and name == registered:
                        found.append(name)
        return found

    def qualified(self, node: ast.AST) -> Optional[str]:
        """The TVM name a dotted expression stands for through the module's imports
        (`auto_scheduler.SearchTask` after `from tvm import auto_scheduler`), when one import binds it."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        bound = self.bindings.get(head)
        if not bound or len(bound) != 1:
            return None
        (module,) = bound
        return f"{module}.{rest}" if rest else module

    def _live(self, stores: List[ast.Name], line: int) -> List[ast.Name]:
        """The stores a read at `line` may see: of stores in one block of statements, one after
        the other, all before the read, only the last (`dtype = "float32"` then `dtype =
        "float16"` is float16); stores in other blocks (branches) all count."""
        blocks: Dict[Tuple[int, str], List[Tuple[int, ast.Name]]] = {}
        live: List[ast.Name] = []
        for store in stores:
            statement = self.parent.get(id(store))
            if isinstance(statement, (ast.Tuple, ast.List)):
                statement = self.parent.get(id(statement))
            block = self._block_of(statement) if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
            if block is None or statement.lineno >= line:
                live.append(store)
            else:
                blocks.setdefault(block, []).append((statement.lineno, store))
        for placed in blocks.values():
            live.append(max(placed, key=lambda item: item[0])[1])
        return live

    def _block_of(self, statement: ast.stmt) -> Optional[Tuple[int, str]]:
        """The statement list holding `statement`: its parent and the field (body, orelse, ...)."""
        owner = self.parent.get(id(statement))
        if owner is None:
            return None
        for field in ("body", "orelse", "finalbody", "handlers"):
            if statement in getattr(owner, field, ()):
                return id(owner), field
        return None

    def possible(self, name: str, line: int, depth: int = 0) -> List[Tuple[str, int]]:
        """Every string literal `name` may stand for where line `line` reads it, each with the line
        that gives it: each assignment's, a parameter's default and what each visible call passes,
        followed through the names a call passes (`matmul(..., accum_dtype)` in a wrapper whose own
        default or caller gives the value). Where `literal` wants one fixed value, this is for a
        rule that reports each low value it can see (a kernel builder whose dtype defaults to, or
        is called with, float16)."""
        found_at = self._binding(name, line) if depth <= _DEPTH else None
        if found_at is None:
            return []
        scope, param, stores = found_at
        found: List[Tuple[str, int]] = []
        for store in self._live(stores, line):
            assign = self.parent.get(id(store))
            if isinstance(assign, (ast.Assign, ast.AnnAssign)):
                value = self._value(assign.value, assign.lineno, 0)
                if value is not None:
                    found.append(value)
            elif isinstance(assign, (ast.Tuple, ast.List)):
                # `op1, op2, store = "float16", "float16", "float32"`: the element in its place
                given = _unpacked(assign, store, self.parent.get(id(assign)))
                value = self._value(given, store.lineno, 0) if given is not None else None
                if value is not None:
                    found.append(value)
        if param is not None:
            given = self._param_expressions(scope, param)
            for value, given_line in (given[0] if given else ()):
                if isinstance(value, ast.Name) and given_line != scope.lineno:
                    found.extend(self.possible(value.id, given_line, depth + 1))
                else:
                    literal = self._value(value, given_line, depth)
                    if literal is not None:
                        found.append(literal)
        return list(dict.fromkeys(found))


def _unpacked(target: ast.AST, store: ast.Name, assign: Optional[ast.AST]) -> Optional[ast.expr]:
    """What an unpacking assignment gives `store`, one element of `target`, when its value is
    a tuple or list written out to the same length (`a, b = "x", "y"`); else None."""
    if not isinstance(assign, ast.Assign) or target not in assign.targets:
        return None
    value = assign.value
    elements = target.elts
    if (not isinstance(value, (ast.Tuple, ast.List)) or len(value.elts) != len(elements)
            or any(isinstance(node, ast.Starred) for node in (*elements, *value.elts))):
        return None
    return value.elts[elements.index(store)]


def _argument(call: ast.Call, where: List) -> Optional[ast.expr]:
    """A call's argument by `where` = [position, keyword, ...] (a table row's), None when absent
    or hidden behind `*args`/`**kwargs`."""
    position, keywords = where[0], where[1:]
    for keyword in call.keywords:
        if keyword.arg in keywords:
            return keyword.value
    if position < len(call.args) and not any(isinstance(arg, ast.Starred) for arg in call.args[:position + 1]):
        return call.args[position]
    return None


def _statements(node: ast.AST, name: str) -> List[ast.stmt]:
    value = getattr(node, name, None)
    return value if isinstance(value, list) and (not value or isinstance(value[0], (ast.stmt, ast.excepthandler))) else []

