"""One walk over a module: names resolved through imports, and the active PassContext.

The walk keeps its own small alias table per scope instead of libcst's
QualifiedNameProvider (about seven times slower on TVM's own tree). It records:

* the qualified TVM name of every Name/Attribute/import it can resolve;
* the context (`tvmlint.analysis.contexts.ContextRef`) around every call;
* events the gating rules judge: Sequentials run, runners called, contexts
  created and never entered, Sequentials given an opt_level;
* the calls between the project's own functions, so contexts can be followed
  across functions and modules (`tvmlint.analysis.project`).

It never imports or runs the code it reads.
"""

from __future__ import annotations

import builtins
import dataclasses
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from tvmlint.analysis.contexts import (
    ContextRef,
    FromCall,
    Gated,
    Inherited,
    LevelFrom,
    PassCtx,
    default_context,
)
from tvmlint.analysis.lazy import cst
from tvmlint.analysis.module_returns import could_return_module, module_returned
from tvmlint.analysis.results import HIDDEN, OptionRef, ParamRef
from tvmlint.analysis.used_names import roots_of
from tvmlint.analysis.walk import Visitor
from tvmlint.knowledge.harness import harness
from tvmlint.knowledge.target import Knowledge, Runner

# --- values the walk can follow through variables --------------------------------


@dataclass
class PassValue:
    """A pass object. `runs_children` when calling it runs a Sequential (FoldScaleAxis)."""

    gated: Optional[Gated]
    display: str

    @property
    def runs_children(self) -> bool:
        return bool(self.gated and self.gated.children)


@dataclass
class SequentialValue:
    gated: Gated
    display: str
    node: cst.Call
    opt_level_arg: Optional[cst.CSTNode]
    nested: bool = False


@dataclass
class PassFactoryValue:
    """A class decorated with a pass decorator: calling it makes a pass."""

    gated: Optional[Gated]
    display: str


@dataclass
class ListValue:
    """A list of passes as far as the walk can follow it. `items` are in it on every path from
    where it was made; `maybe` were added on some paths only (under an `if`, a loop, a `try`)."""

    items: List[object]
    maybe: List[object] = field(default_factory=list)
    path: Tuple[int, ...] = ()  # the branches around the statement that made it (ids)


@dataclass
class ExecutorValue:
    """What relay.create_executor returned, for a kind whose pipeline runs at `evaluate()`
    (rules/executors.toml): that call runs `runner` under the context active there."""

    runner: Runner
    display: str
    made_in: Optional[ContextRef] = None  # the context around create_executor, which does not carry over


@dataclass
class TvmObject:
    """What a TVM function returned that is no pass, Sequential or PassContext (a Target, a
    qconfig, an autotvm dispatch context): `with` on it enters no PassContext."""

    qualname: str


@dataclass
class ContextValue:
    ctx: ContextRef
    node: cst.CSTNode
    display: str
    state: str = "created"  # created | bound | entered | escaped | discarded
    expects_raise: bool = False  # made where a test expects an exception (pytest.raises, try)
    # required_pass / disabled_pass as written, followed through names and set operations:
    # each name with the string node that writes it (in the call, or where a constant is defined)
    pass_names: Dict[str, List[Tuple[str, cst.SimpleString]]] = field(default_factory=dict)
    lone_strings: Dict[str, cst.SimpleString] = field(default_factory=dict)  # required_pass='X': a string, no list
    # None: a PassContext; else what a context manager that is no PassContext sets (rules/contexts.toml
    # scope_object: a qconfig, a tuning-log dispatch context): entering it leaves the gate alone
    other: Optional[str] = None
    # an opt_level its callers or another module give it: the context a `with` of it enters
    level_from: Optional[LevelFrom] = None
    # required_pass / disabled_pass given the enclosing function's own parameter: what its
    # callers pass (TVM104 reads the names they may hold, tvmlint.analysis.may_names)
    names_from: Dict[str, ParamRef] = field(default_factory=dict)
    scope: Optional["Scope"] = field(default=None, repr=False, compare=False)  # where it is made


@dataclass
class FunctionValue:
    qualname: str


@dataclass(frozen=True)
class FunctionTable:
    """A dict whose values are the checked code's functions (`{"C2D": conv2d, "GMM": matmul}`, a
    benchmark's workload table); subscripted, it is any one of them (`table[name](n, dtype)`)."""

    qualnames: Tuple[str, ...]
    picked: bool = False  # `table[key]`: one of the functions, not the table


@dataclass
class ImportBinding:
    qualname: str
    alias: cst.CSTNode


# decorators that only say how a method is bound: its calls are still the project's own
_METHOD_KINDS = frozenset({"staticmethod", "classmethod"})
LOCAL = object()  # a name bound by the checked code itself: never TVM's
# libcst's comparison operators by class name (read at import time, libcst stays unloaded)
_COMPARISONS = {"Equal": "==", "NotEqual": "!=", "LessThan": "<", "LessThanEqual": "<=",
                "GreaterThan": ">", "GreaterThanEqual": ">="}
_OPPOSITE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_BUILTINS = frozenset(dir(builtins))  # print(), len(): no star import brings them


@dataclass(frozen=True)
class ClassValue:
    """A class the checked code defines (its qualified name): calling it makes an instance."""

    qualname: str


@dataclass(frozen=True)
class InstanceValue:
    """An object made by calling a class of the project (`proc = Process(...)`, or `self` in a
    method): `proc.run()` calls the function `<class>.run`. Otherwise as opaque as LOCAL."""

    cls: str


@dataclass
class Constant:
    """A name assigned a literal (`OPT_LEVEL = 3`, `PASSES = ["FoldConstant"]`); it stands for
    that literal only where its scope binds the name once (`ModuleAnalysis.literal`)."""

    node: cst.BaseExpression
    scope: "Scope"
    name: str
    path: Tuple[int, ...] = ()  # the branches around its assignment (ids), as ListValue.path


@dataclass
class Ambiguous:
    """A name bound to different tracked values on different paths (if/else, try, loops)."""

    candidates: List[object]


# list methods that add passes: name -> (arguments, whether the last one is one item)
_LIST_GROWERS = {"append": (1, True), "extend": (1, False), "insert": (2, True)}


# --- events -------------------------------------------------------------------------


@dataclass
class GatedRun:
    """A Sequential (or a runner's pipeline) runs `members` under `ctx` at `node`."""

    node: cst.CSTNode
    members: Tuple[Gated, ...]
    display: str
    ctx: ContextRef
    statement: Optional[cst.CSTNode]
    runner: Optional[Runner] = None
    wrapper_name: Optional[str] = None
    sequential: Optional[SequentialValue] = None  # the Sequential object run, when it is one
    callee: Optional[object] = None  # the pass or Sequential object run (None: a runner)


@dataclass
class CallSite:
    callee: str
    ctx: ContextRef
    node: cst.CSTNode
    args: Tuple[Tuple[object, object], ...] = ()  # CallFact.args
    scope: Optional["Scope"] = field(default=None, repr=False, compare=False)  # the caller's, where the names are read


@dataclass
class Scope:
    kind: str  # module | function | class
    bindings: Dict[str, object] = field(default_factory=dict)
    star_modules: List[str] = field(default_factory=list)
    qualname: str = ""
    parent: Optional["Scope"] = None
    test_class: bool = False  # a class whose test methods a test runner calls
    node: Optional[cst.CSTNode] = None  # the module or function whose body the scope is
    # `args.out_dtype = "float16"`: the string literals stored so far into an attribute of a name
    attribute_literals: Dict[Tuple[str, str], List[str]] = field(default_factory=dict)
    # `ARGS = parse_args()`: names bound to what a function of the project returns, with its name
    call_results: Dict[str, str] = field(default_factory=dict)


@dataclass
class Frame:
    base: ContextRef
    pushed: List[ContextRef] = field(default_factory=list)
    branches: int = 0  # enclosing if/try/loop blocks within this function
    branch_path: List[int] = field(default_factory=list)  # their ids, outermost first
    raising: int = 0  # enclosing blocks that expect an exception (pytest.raises, try)

    @property
    def current(self) -> ContextRef:
        return self.pushed[-1] if self.pushed else self.base


# A `with` whose item might be a PassContext tvmlint cannot see (a parameter, an attribute of
# an object, a name bound on several paths): nothing under it is judged.
UNSEEN_CONTEXT = PassCtx(None, None, None, "a `with` whose context tvmlint cannot see")


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` as text, for Name/Attribute chains only."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


_STATEMENT_CLASSES: Dict[type, bool] = {}


def _is_statement(kind: type) -> bool:
    # once per class: the isinstance check against libcst's abstract classes ran for every node
    known = _STATEMENT_CLASSES.get(kind)
    if known is None:
        known = _STATEMENT_CLASSES[kind] = issubclass(kind, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    return known


def int_literal(node: Optional[cst.BaseExpression]) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.evaluated_value)
    return None


def string_list(node: Optional[cst.BaseExpression]) -> Optional[Tuple[str, ...]]:
    """A literal list/tuple/set of plain strings, else None."""
    if not isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return None
    out = []
    for element in node.elements:
        value = element.value
        if not isinstance(value, cst.SimpleString) or isinstance(element, cst.StarredElement):
            return None
        out.append(value.evaluated_value)
    return tuple(out)


def call_arguments(call: cst.Call, params: Tuple[str, ...]) -> Tuple[Dict[str, cst.BaseExpression], bool]:
    """Map a call's arguments onto parameter names; the flag says whether * or ** hides some."""
    mapped: Dict[str, cst.BaseExpression] = {}
    hidden = False
    position = 0
    for arg in call.args:
        if arg.star:
            hidden = True
        elif arg.keyword is not None:
            mapped[arg.keyword.value] = arg.value
        else:
            if position < len(params):
                mapped[params[position]] = arg.value
            position += 1
    return mapped, hidden


def _names_only(elements: Optional[List[Tuple[str, cst.SimpleString]]]) -> Optional[Tuple[str, ...]]:
    return tuple(name for name, _ in elements) if elements is not None else None


def call_key(func: cst.BaseExpression) -> Optional[str]:
    """The name a call is made through (`f` of `a.b.f(...)`), as `tvmlint.analysis.positions` keys ast calls."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _holds(node: cst.CSTNode, kind: type) -> bool:
    """Whether `node` or anything under it is a `kind` (used on a few fixtures per module only)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kind):
            return True
        stack.extend(current.children)
    return False


def _is_literal(node: cst.BaseExpression) -> bool:
    """An int (negative too), a plain string, a list/tuple/set of plain strings, or a set
    operation or concatenation of such collections and names (`ALL_PASSES - DISABLED`): what a
    module constant of pass names is written as."""
    if int_literal(node) is not None or isinstance(node, cst.SimpleString):
        return True
    if isinstance(node, cst.Set):
        return all(isinstance(e, cst.Element) and isinstance(e.value, cst.SimpleString) for e in node.elements)
    return string_list(node) is not None


def _name_set_operators() -> tuple:
    # a function: the operator classes are libcst's, imported only once a check needs them
    return cst.Add, cst.BitOr, cst.Subtract, cst.BitAnd


_NAME_COLLECTIONS = ("list", "sorted", "set", "frozenset", "tuple")


def _binding_counts(scope: cst.CSTNode) -> Dict[str, int]:
    """How many times each name is bound in a module's or function's own body (a nested
    function's or class's name counts, what it binds inside does not); at module level, a
    `global` statement anywhere counts as one more binding. Asked only for names that hold a
    literal where one matters, so a few scopes per module at most."""
    counts: Dict[str, int] = {}

    def add(target: cst.CSTNode) -> None:
        for name in _target_names(target) if not isinstance(target, cst.Name) else [target.value]:
            counts[name] = counts.get(name, 0) + 1

    body = scope.body if isinstance(scope, cst.FunctionDef) else scope
    stack: List[cst.CSTNode] = list(body.children) if not isinstance(scope, cst.Module) else list(scope.body)
    if isinstance(scope, cst.FunctionDef):
        for param in (*scope.params.posonly_params, *scope.params.params, *scope.params.kwonly_params):
            add(param.name)
    global_scope = isinstance(scope, cst.Module)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            add(node.name)
            if global_scope:
                stack.extend(n for n in _all_nodes(node) if isinstance(n, cst.Global))
            continue
        if isinstance(node, cst.Lambda):
            continue
        if isinstance(node, cst.Global) and global_scope:
            for item in node.names:
                add(item.name)
            continue
        if isinstance(node, cst.AssignTarget):
            add(node.target)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and (
            not isinstance(node, cst.AnnAssign) or node.value is not None
        ):
            add(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            add(node.target)
        elif isinstance(node, cst.AsName):
            add(node.name)
        elif isinstance(node, cst.NamedExpr):
            add(node.target)
        elif isinstance(node, cst.Del):
            add(node.target)
        elif isinstance(node, cst.ImportAlias) and node.asname is None:
            add(cst.Name(dotted(node.name).split(".")[0]) if dotted(node.name) else node.name)
        stack.extend(node.children)
    return counts


def _all_nodes(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _autouse(decorator: cst.Decorator) -> bool:
    call = decorator.decorator
    return isinstance(call, cst.Call) and any(
        arg.keyword is not None and arg.keyword.value == "autouse"
        and not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
        for arg in call.args
    )


def _target_names(target: cst.BaseExpression) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []


def _parametrized_names(decorator: cst.Decorator) -> List[str]:
    """The argument names `@pytest.mark.parametrize("a, b", ...)` gives a test."""
    call = decorator.decorator
    if not (isinstance(call, cst.Call) and call.args and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "parametrize"):
        return []
    first = call.args[0].value
    if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str):
        return [part.strip() for part in first.evaluated_value.split(",") if part.strip()]
    names = string_list(first)
    return list(names) if names else []


class ModuleAnalysis(Visitor):
    """Walks one module; the results are the public attributes below."""

    def __init__(self, knowledge: Knowledge, module_name: str, is_package: bool = False, positions=None):
        self.positions = positions or {}
        self.k = knowledge
        self.module_name = module_name
        self.package = module_name if is_package else module_name.rpartition(".")[0]
        # a call of a name under these is a call of TVM's API, never a project call site (the
        # runner relies on it: tvmlint.run.runner follows such a function only in its own module)
        self.roots = roots_of(knowledge)
        # results
        self.qualnames: Dict[cst.CSTNode, str] = {}
        self.import_refs: List[Tuple[cst.CSTNode, str]] = []  # (alias node, qualified name)
        self.import_froms: List[cst.ImportFrom] = []  # every `from ... import`, relative ones included
        self.import_statement: Dict[cst.CSTNode, cst.CSTNode] = {}  # import alias -> its statement
        self.bound_otherwise: Set[str] = set()  # names some scope binds to anything but an import
        self.alias_of: Dict[cst.CSTNode, cst.CSTNode] = {}  # Name use -> import alias it came from
        self.context_at: Dict[cst.CSTNode, ContextRef] = {}
        self.runs: List[GatedRun] = []
        self.contexts: List[ContextValue] = []
        self.sequentials: List[SequentialValue] = []
        self.callsites: List[CallSite] = []
        self.escaped_functions: List[str] = []
        self.functions: List[str] = []
        # module-level test functions of a module that is no test module: the default context a
        # test runner gives them, used by the project step only if nothing calls them
        self.runner_entries: Dict[str, PassCtx] = {}
        self.context_returns: Dict[str, List[ContextRef]] = {}
        self.user_passes: Dict[str, int] = {}  # registered name -> opt_level, for passes defined here
        self.defined_pass_names: Set[str] = set()  # every pass name defined here, whatever its level
        # walk state
        self._scope = Scope("module", qualname=module_name)
        self._frames: List[Frame] = [Frame(default_context(knowledge.default_opt_level))]
        self._stack: List[cst.CSTNode] = []
        self._statements: List[cst.CSTNode] = []
        self._values: Dict[cst.CSTNode, object] = {}
        self._with_pushes: Dict[cst.With, int] = {}
        self._top: Optional[cst.CSTNode] = None
        self._owners: Dict[cst.CSTNode, Optional[cst.CSTNode]] = {}
        # the innermost statement around each node, and the statement around each statement:
        # positions render the smallest statement that holds a node (tvmlint.analysis.positions)
        self._within: Dict[cst.CSTNode, cst.CSTNode] = {}
        self._parent_statement: Dict[cst.CSTNode, Optional[cst.CSTNode]] = {}
        self.call_counts: Dict[Tuple[Optional[cst.CSTNode], Optional[str]], int] = {}
        self.harness = harness()
        # every `opt_level=` argument's value where it is an int literal, or a name bound once to one
        self.written_levels: Dict[cst.CSTNode, Optional[int]] = {}
        self.is_test_module = self.harness.is_test_module(module_name)
        # parameters of a test that are fixtures or parametrized names giving no PassContext
        self._plain_fixtures: Set[str] = set()
        self._autouse_context = False  # an autouse fixture here enters a `with`
        self._raise_withs: Set[cst.With] = set()
        self._binding_counts: Dict[cst.CSTNode, Dict[str, int]] = {}
        self.call_ordinals: Dict[cst.Call, int] = {}

    # -- generic bookkeeping -------------------------------------------------------

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._stack.append(node)
        if len(self._stack) == 2:
            self._top = node
        self._owners[node] = self._top
        if type(node) is cst.Call:
            # the n-th call to a name in its statement: the stdlib tree can say its line
            key = (self._top, call_key(node.func))
            count = self.call_counts.get(key, 0)
            self.call_counts[key] = count + 1
            self.call_ordinals[node] = count
        statements = self._statements
        if statements:
            self._within[node] = statements[-1]
        if _is_statement(type(node)):
            self._parent_statement[node] = statements[-1] if statements else None
            statements.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self._stack.pop()
        if self._statements and self._statements[-1] is original_node:
            self._statements.pop()

    def top_statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The top-level statement (or module header/footer line) holding a node the walk has
        reached; while it walks, the one it is in (a node it has yet to reach is in it)."""
        owner = self._owners.get(node)
        return owner if owner is not None or len(self._stack) < 2 else self._top

    def statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The innermost statement holding a node the walk has reached (None: a top-level one, or none)."""
        return self._within.get(node)

    def parent_statement_of(self, statement: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The statement whose block holds `statement` (None at the top level)."""
        return self._parent_statement.get(statement)

    def _parent(self, node: cst.CSTNode, up: int = 1) -> Optional[cst.CSTNode]:
        # the stack ends with `node` itself while it is being visited
        index = len(self._stack) - 1 - up
        return self._stack[index] if index >= 0 and self._stack[-1] is node else None

    @property
    def current_context(self) -> ContextRef:
        return self._frames[-1].current

    # -- names -----------------------------------------------------------------------

    def _lookup(self, name: str) -> object:
        scope: Optional[Scope] = self._scope
        first = True
        while scope is not None:
            if (first or scope.kind != "class") and name in scope.bindings:
                return scope.bindings[name]
            first = False
            scope = scope.parent
        module_scope = self.module_scope()
        for star in module_scope.star_modules:
            candidate = f"{star}.{name}"
            if candidate in self.k.api_prefixes():
                return ImportBinding(candidate, module_scope)
        # `relay` after `from utils import *`, where utils is the project's and imported it
        meant = self.k.star_reexports.get(name)
        if meant is not None and any(not self.is_tvm(star) for star in module_scope.star_modules):
            return ImportBinding(meant, module_scope)
        return None

    def module_scope(self) -> Scope:
        scope = self._scope
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def qualname_of(self, node: cst.BaseExpression) -> Optional[str]:
        if node in self.qualnames:
            return self.qualnames[node]
        result: Optional[str] = None
        if isinstance(node, cst.Name):
            binding = self._lookup(node.value)
            if isinstance(binding, ImportBinding):
                result = binding.qualname
                self.alias_of[node] = binding.alias
            elif isinstance(binding, FunctionValue):
                result = binding.qualname
        elif isinstance(node, cst.Attribute):
            head = self.qualname_of(node.value)
            if head is not None:
                result = f"{head}.{node.attr.value}"
        if result is not None:
            self.qualnames[node] = result
        return result

    def is_tvm(self, qualname: Optional[str]) -> bool:
        return bool(qualname) and qualname.split(".")[0] in self.roots

    def _bind(self, name: str, value: object) -> None:
        self._scope.bindings[name] = value
        if not isinstance(value, ImportBinding):
            self.bound_otherwise.add(name)

    def _bind_value(self, name: str, value: object) -> None:
        """Bind the result of an assignment; inside a branch, a second tracked value makes it ambiguous."""
        previous = self._scope.bindings.get(name)
        tracked = (ContextValue, PassValue, SequentialValue, ListValue, Ambiguous)
        if self._frames[-1].branches and isinstance(previous, tracked) and previous is not value:
            olds = previous.candidates if isinstance(previous, Ambiguous) else [previous]
            value = Ambiguous(olds + [value])
        self._bind(name, value)

    def _absolute_module(self, node: cst.ImportFrom) -> Optional[str]:
        module = dotted(node.module) if node.module is not None else None
        dots = len(node.relative)
        if not dots:
            return module
        base = self.package.split(".") if self.package else []
        if dots > 1:
            base = base[: len(base) - (dots - 1)] if dots - 1 <= len(base) else []
        parts = [part for part in base if part]
        if module:
            parts.append(module)
        return ".".join(parts) or None

    def _bind_import(self, node: cst.Import) -> None:
        for alias in node.names:
            self.import_statement[alias] = node
            full = dotted(alias.name)
            if full is None:
                continue
            self.import_refs.append((alias, full))
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, ImportBinding(full, alias))
            else:
                top = full.split(".")[0]
                self._bind(top, ImportBinding(top, alias))

    def _bind_import_from(self, node: cst.ImportFrom) -> None:
        module = self._absolute_module(node)
        if module is None:
            return
        if isinstance(node.names, cst.ImportStar):
            self.import_refs.append((node, module))
            self._scope.star_modules.append(module)
            return
        for alias in node.names:
            self.import_statement[alias] = node
            name = dotted(alias.name)
            if name is None:
                continue
            full = f"{module}.{name}"
            self.import_refs.append((alias, full))
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self._bind(local, ImportBinding(full, alias))

    # -- values the code fixes once ----------------------------------------------------

    def _constant(self, node: cst.Assign) -> Optional[Constant]:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return None
        if not (_is_literal(node.value) or self._is_name_collection(node.value)):
            return None
        return Constant(node.value, self._scope, node.targets[0].target.value, tuple(self._frames[-1].branch_path))

    def _is_name_collection(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """A collection of pass names: a literal list/tuple/set of strings, a name bound to one, or
        a set operation or concatenation of those (`ALL_PASSES - DISABLED`). A name bound to
        anything else (a list of pass objects: `common + extra`) makes it no constant. `depth`
        bounds the names followed (`names = names + [...]` names itself)."""
        if depth > 8:
            return False
        if isinstance(node, cst.Name):
            bound = self._lookup(node.value)
            return isinstance(bound, Constant) and self._is_name_collection(bound.node, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _name_set_operators()):
            return self._is_name_collection(node.left, depth + 1) and self._is_name_collection(node.right, depth + 1)
        return _is_literal(node) and not isinstance(node, cst.SimpleString) and int_literal(node) is None

    def literal(self, node: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
        """`node`, or for a name bound once in its scope to a literal, that literal."""
        if isinstance(node, cst.Name):
            binding = self._lookup(node.value)
            if isinstance(binding, Constant) and self._bound_once(binding):
                return binding.node
        return node

    def _bound_once(self, constant: Constant) -> bool:
        scope = constant.scope
        if scope.node is None or scope.kind == "class":
            return False
        return self._bindings_in(scope.node).get(constant.name, 0) == 1

    # -- values --------------------------------------------------------------------

    def value_of(self, node: Optional[cst.BaseExpression]) -> object:
        if node is None:
            return None
        if node in self._values:
            return self._values[node]
        value = self._evaluate(node)
        self._values[node] = value
        return value

    def _evaluate(self, node: cst.BaseExpression) -> object:
        if isinstance(node, cst.Name):
            binding = self._lookup(node.value)
            if isinstance(binding, (ImportBinding, ClassValue, InstanceValue)) or binding is LOCAL:
                return None
            return binding
        if isinstance(node, (cst.List, cst.Tuple)):
            items: List[object] = []
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    items.append(None)
                else:
                    items.append(self.value_of(element.value))
            return ListValue(items, path=tuple(self._frames[-1].branch_path))
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left, right = self.value_of(node.left), self.value_of(node.right)
            if isinstance(left, ListValue) and isinstance(right, ListValue):
                return ListValue(left.items + right.items, left.maybe + right.maybe, left.path)
        if isinstance(node, cst.Call):
            return self._evaluate_call(node)
        if isinstance(node, cst.Dict):
            functions = [self.value_of(element.value) for element in node.elements]
            if functions and all(isinstance(f, FunctionValue) for f in functions):
                return FunctionTable(tuple(dict.fromkeys(f.qualname for f in functions)))
        if isinstance(node, cst.Subscript):
            table = self.value_of(node.value)
            if isinstance(table, FunctionTable) and not table.picked:
                return FunctionTable(table.qualnames, picked=True)
        return None

    def _evaluate_call(self, call: cst.Call) -> object:
        qualname = self.qualname_of(call.func)
        if qualname is not None:
            spec = self.k.pass_for_api(qualname)
            if spec is not None:
                return PassValue(self._gated_from_spec(spec), self.short(qualname) + "()")
            seq_class = self.k.sequential_classes.get(qualname)
            if seq_class is not None:
                return self._make_sequential(call, qualname, seq_class)
            factory = self.k.context_factories.get(qualname)
            if factory is not None:
                return self._make_context(call, qualname, factory)
            other = self.k.scope_objects.get(qualname)
            if other is not None:
                value = ContextValue(UNSEEN_CONTEXT, call, f"{self.short(qualname)}(...)", other=other,
                                     expects_raise=self._frames[-1].raising > 0)
                self.contexts.append(value)
                return value
            if qualname in self.k.current_context_apis:
                value = ContextValue(self.current_context, call, self.short(qualname) + "()")
                return value
            decorator = self.k.decorators.get(qualname)
            if decorator is not None and call.args and call.args[0].keyword is None:
                return PassValue(self._gated_from_decorator(call, decorator.params, None), "a pass defined here")
            executor = self._executor(call, qualname)
            if executor is not None and executor[1] == "evaluate":
                return ExecutorValue(executor[0], executor[2], self.current_context)
            return TvmObject(qualname) if self.is_tvm(qualname) else None
        callee = self.value_of(call.func)
        if isinstance(callee, PassFactoryValue):
            return PassValue(callee.gated, callee.display + "()")
        return None

    def _argument_values(self, call: cst.Call) -> Tuple[Tuple[object, object], ...]:
        """What a call of a project function passes that another file may need (CallFact.args):
        string literals (or names bound once to one), and the caller's own parameters passed on."""
        out: List[Tuple[object, object]] = []
        position = 0
        for arg in call.args:
            if arg.star:
                out.append((HIDDEN, True))
                if arg.star == "*":
                    position = -1  # the positions after it are not known
                continue
            if arg.keyword is not None:
                key: object = arg.keyword.value
            elif position < 0:
                continue
            else:
                key = position
                position += 1
            # a value tvmlint cannot read is still given: the parameter does not keep its default
            value = self._argument_value(arg.value)
            out.append((key, False if value is None else value))
        return tuple(out)

    def _argument_value(self, node: cst.BaseExpression) -> object:
        literal = self.literal(node)
        if isinstance(literal, cst.SimpleString):
            value = literal.evaluated_value
            return value if isinstance(value, str) else None
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            # `args.out_dtype` after `args.out_dtype = "float16"` in one branch and "float32" in
            # another: each string the function stored into it may be what the call passes
            stored = self._scope.attribute_literals.get((node.value.value, node.attr.value))
            if stored and "" not in stored:
                return tuple(dict.fromkeys(stored))
            if stored is None:
                # `ARGS.out_dtype` after `ARGS = parse_args()`, a function of the project that
                # parses a command line: the option's default (the project step reads it)
                parsed_by = self._call_result(node.value.value)
                if parsed_by is not None:
                    return OptionRef(parsed_by, node.attr.value)
        number = int_literal(literal)
        if number is not None:
            return number  # an opt_level the called function gives a PassContext
        return self._parameter_ref(node)

    def _parameter_ref(self, node: cst.BaseExpression) -> Optional[ParamRef]:
        """`node` as the enclosing function's own parameter, with its string or integer default."""
        if not isinstance(node, cst.Name) or self._scope.kind != "function":
            return None
        if self._scope.bindings.get(node.value) is not LOCAL or not isinstance(self._scope.node, cst.FunctionDef):
            return None  # not the enclosing function's own parameter as it came in
        params = self._scope.node.params
        positional = [*params.posonly_params, *params.params]
        if self._scope.parent is not None and self._scope.parent.kind == "class" and positional:
            positional = positional[1:]  # a method's calls do not pass its instance
        for index, param in enumerate([*positional, *params.kwonly_params]):
            if param.name.value == node.value:
                default: object = param.default.evaluated_value if isinstance(param.default, cst.SimpleString) else None
                if not isinstance(default, str):
                    default = int_literal(param.default)
                return ParamRef(self._scope.qualname, node.value, index if index < len(positional) else None, default)
        return None

    def _level_from(self, node: cst.BaseExpression, ctx: PassCtx) -> Optional[LevelFrom]:
        """Where a PassContext's opt_level comes from when it is a name the file cannot read
        alone: the enclosing function's parameter, never rebound in it (what its callers give
        it), or a name another module of the project may define (`from config import *`)."""
        if isinstance(node, cst.Attribute):
            qualname = self.qualname_of(node)  # `config.OPT_LEVEL` after `import config`
            root = node.value
            while isinstance(root, cst.Attribute):
                root = root.value
            if (qualname is None or self.is_tvm(qualname) or not isinstance(root, cst.Name)
                    or not isinstance(self._lookup(root.value), ImportBinding)):
                return None
            return LevelFrom(ctx, qualname.rpartition(".")[2], names=(qualname,))
        if not isinstance(node, cst.Name):
            return None
        binding = self._lookup(node.value)
        if binding is LOCAL:
            ref = self._parameter_ref(node)
            if ref is None or self._bindings_in(self._scope.node).get(node.value, 0) != 1:
                return None
            default = ref.default if isinstance(ref.default, int) else None
            return LevelFrom(ctx, node.value, function=ref.function, position=ref.position,
                             default=default, conditions=self._conditions_on(node.value))
        if isinstance(binding, ImportBinding) and isinstance(binding.alias, cst.ImportAlias):
            names = (binding.qualname,)
        elif binding is None and node.value not in _BUILTINS:
            names = tuple(f"{module}.{node.value}" for module in reversed(self.module_scope().star_modules))
        else:
            return None
        names = tuple(name for name in names if not self.is_tvm(name))
        return LevelFrom(ctx, node.value, names=names) if names else None

    def _conditions_on(self, name: str) -> Tuple[Tuple[str, int], ...]:
        """What the `if`s around the node being visited, within its function, say of `name` when
        they compare it with an integer (`if opt_level == 5:` holds `("==", 5)`, its `else` the
        opposite): a call giving another value does not reach the node."""
        found: List[Tuple[str, int]] = []
        stack = self._stack
        for index in range(len(stack) - 2, -1, -1):
            node = stack[index]
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                break
            if not isinstance(node, cst.If) or not isinstance(node.test, cst.Comparison):
                continue
            test = node.test
            if not (isinstance(test.left, cst.Name) and test.left.value == name and len(test.comparisons) == 1):
                continue
            operator = _COMPARISONS.get(type(test.comparisons[0].operator).__name__)
            value = int_literal(test.comparisons[0].comparator)
            if operator is None or value is None:
                continue
            inside = stack[index + 1]
            if inside is node.body:
                found.append((operator, value))
            elif inside is node.orelse:
                found.append((_OPPOSITE[operator], value))
        return tuple(found)

    def _bindings_in(self, scope_node: cst.CSTNode) -> Dict[str, int]:
        counts = self._binding_counts.get(scope_node)
        if counts is None:
            counts = self._binding_counts[scope_node] = _binding_counts(scope_node)
        return counts

    def _module_made(self, call: cst.Call, target: str) -> Optional[ImportBinding]:
        """`tvm = try_import_tvm()`, `relay = importlib.import_module("tvm.relay")`: the module
        the call hands back (tvmlint.analysis.module_returns)."""
        function = dotted(call.func)
        if not could_return_module(function):
            return None
        first = call.args[0].value if call.args and call.args[0].keyword is None else None
        text = first.evaluated_value if isinstance(first, cst.SimpleString) else None
        module = module_returned(function, text if isinstance(text, str) else None, target, self.roots)
        return ImportBinding(module, call) if module is not None else None

    def _call_result(self, name: str) -> Optional[str]:
        """The project function whose return value `name` holds where it is read, if the nearest
        scope binding `name` bound it to one (`ARGS = parse_args()`)."""
        scope: Optional[Scope] = self._scope
        while scope is not None:
            if name in scope.bindings:
                return scope.call_results.get(name)
            scope = scope.parent
        return None

    def _executor(self, call: cst.Call, qualname: str) -> Optional[Tuple[Runner, str, str]]:
        """For a relay.create_executor call whose kind is a literal with a pipeline: its runner,
        when it runs ("create" or "evaluate"), and how a message shows the call."""
        kinds = self.k.executors.get(qualname)
        if not kinds:
            return None
        params, default_kind = self.k.executor_signatures[qualname]
        args, hidden = call_arguments(call, params)
        given = self.literal(args.get("kind"))
        if given is None:
            kind = None if hidden else default_kind
        else:
            kind = given.evaluated_value if isinstance(given, cst.SimpleString) else None
        found = kinds.get(kind) if isinstance(kind, str) else None
        if found is None:
            return None
        runner, at = found
        display = f'{self.short(qualname)}("{kind}", ...)' + (".evaluate()" if at == "evaluate" else "")
        return runner, at, display

    def _runner_run(self, node: cst.Call, runner: Runner, display: str, ctx) -> None:
        members = tuple(Gated(m.name, m.opt_level, (), f"{m.name} (in {m.via})" if m.via else None) for m in runner.runs)
        self.runs.append(GatedRun(node, members, display, ctx, self._statement(), runner))

    @staticmethod
    def short(qualname: str) -> str:
        # messages show relay/relax paths the way users usually write them
        for package in ("tvm.relay.", "tvm.relax."):
            if qualname.startswith(package):
                return qualname[4:]
        return qualname

    def _gated_from_spec(self, spec) -> Gated:
        def tree(member) -> Gated:
            return Gated(member.name, member.opt_level, tuple(tree(inner) for inner in member.members))

        return Gated(spec.name, spec.opt_level, tuple(tree(member) for member in spec.members))

    def _gated_from_decorator(
        self, call: cst.Call, params: Tuple[str, ...], default_name: Optional[str]
    ) -> Optional[Gated]:
        args, hidden = call_arguments(call, params)
        name_node = args.get("name")
        name = default_name
        if isinstance(name_node, cst.SimpleString):
            name = name_node.evaluated_value
        elif name_node is not None:
            name = None
        if name is not None:
            self.defined_pass_names.add(name)  # known to pass-list checks even when its level is not
        level = int_literal(args.get("opt_level"))
        if level is None or hidden or name is None:
            return None
        self.user_passes[name] = level
        return Gated(name, level)

    def _make_sequential(self, call: cst.Call, qualname: str, spec) -> SequentialValue:
        args, hidden = call_arguments(call, spec.params)
        members: List[Gated] = []
        passes = self.value_of(args.get("passes"))
        if isinstance(passes, ListValue):
            for item, maybe in [(i, False) for i in passes.items] + [(i, True) for i in passes.maybe]:
                gated = None
                if isinstance(item, PassValue) and item.gated is not None:
                    gated = item.gated
                elif isinstance(item, SequentialValue):
                    item.nested = True
                    gated = item.gated
                if gated is not None:
                    members.append(dataclasses.replace(gated, maybe=True) if maybe else gated)
        name_node = args.get("name")
        name = name_node.evaluated_value if isinstance(name_node, cst.SimpleString) else spec.default_name
        level_node = args.get("opt_level")
        level = int_literal(self.literal(level_node))
        gated = Gated(name, level if level is not None else spec.default_opt_level, tuple(members), "Sequential")
        value = SequentialValue(gated, self.short(qualname) + "([...])", call, level_node)
        self.sequentials.append(value)
        return value

    def _make_context(self, call: cst.Call, qualname: str, factory) -> ContextValue:
        args, hidden = call_arguments(call, factory.params)
        known = not hidden
        level_node = args.get("opt_level")
        level = int_literal(self.literal(level_node)) if level_node is not None else factory.default_opt_level
        pass_names = {
            param: self.pass_name_elements(args[param]) for param in ("required_pass", "disabled_pass") if param in args
        }
        # one string where a list belongs: PassContext takes list(...) of it, one character a name
        lone = {param: node for param in ("required_pass", "disabled_pass") if param in args
                for node in [self.literal(args[param])] if isinstance(node, cst.SimpleString)}
        required = _names_only(pass_names["required_pass"]) if "required_pass" in args else ()
        disabled = _names_only(pass_names["disabled_pass"]) if "disabled_pass" in args else ()
        config = None
        config_node = args.get("config")
        if isinstance(config_node, cst.Dict):
            pairs = []
            for element in config_node.elements:
                if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                    literal = element.value
                    value: object = None
                    if isinstance(literal, cst.Name) and literal.value in ("True", "False"):
                        value = literal.value == "True"
                    elif isinstance(literal, cst.Integer):
                        value = int(literal.evaluated_value)
                    pairs.append((element.key.evaluated_value, value))
            config = tuple(pairs)
        line_text = f"{self.short(qualname)}({', '.join(self._arg_summary(call))})"
        line = self._line_hint(call)
        origin = f"{line_text} on line {line}" if line else line_text
        ctx = PassCtx(
            opt_level=level if known else None,
            required=frozenset(required) if known and required is not None else None,
            disabled=frozenset(disabled) if known and disabled is not None else None,
            origin=origin,
            config=config,
        )
        level_from = self._level_from(level_node, ctx) if known and level is None and level_node is not None else None
        names_from = {param: ref for param, names in pass_names.items() if names is None
                      for ref in [self._parameter_ref(args[param])] if ref is not None}
        value = ContextValue(ctx, call, line_text, expects_raise=self._frames[-1].raising > 0,
                             pass_names={k: v for k, v in pass_names.items() if v is not None}, lone_strings=lone,
                             level_from=level_from, names_from=names_from, scope=self._scope)
        self.contexts.append(value)
        return value

    def pass_name_elements(
        self, node: Optional[cst.BaseExpression], depth: int = 0,
    ) -> Optional[List[Tuple[str, cst.SimpleString]]]:
        """The pass names `node` gives a required_pass/disabled_pass, each with the string that
        writes it, following names bound once to a literal (in this scope or an outer one), list/
        set/tuple literals and `*` in them, `+`, `|`, `-`, `&`, and list()/sorted()/set() of one of
        those. None when any part is not known (a name bound twice, a call, a comprehension)."""
        if node is None or depth > 8:
            return None
        node = self.literal(node)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            out: List[Tuple[str, cst.SimpleString]] = []
            for element in node.elements:
                if isinstance(element, cst.Element) and isinstance(element.value, cst.SimpleString):
                    value = element.value.evaluated_value
                    if not isinstance(value, str):
                        return None
                    out.append((value, element.value))
                elif isinstance(element, cst.StarredElement):
                    inner = self.pass_name_elements(element.value, depth + 1)
                    if inner is None:
                        return None
                    out.extend(inner)
                else:
                    return None
            return out
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _name_set_operators()):
            left = self.pass_name_elements(node.left, depth + 1)
            right = self.pass_name_elements(node.right, depth + 1)
            if left is None or right is None:
                return None
            if isinstance(node.operator, cst.Subtract):
                gone = {name for name, _ in right}
                return [pair for pair in left if pair[0] not in gone]
            if isinstance(node.operator, cst.BitAnd):
                kept = {name for name, _ in right}
                return [pair for pair in left if pair[0] in kept]
            return left + right
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _NAME_COLLECTIONS
                and self._lookup(node.func.value) is None and len(node.args) == 1 and node.args[0].keyword is None
                and not node.args[0].star):
            return self.pass_name_elements(node.args[0].value, depth + 1)
        return None

    @staticmethod
    def _arg_summary(call: cst.Call) -> List[str]:
        parts = []
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in ("opt_level", "required_pass", "disabled_pass"):
                parts.append(f"{arg.keyword.value}={cst.Module([]).code_for_node(arg.value)}")
            elif arg.keyword is None and not arg.star and not parts:
                parts.append(cst.Module([]).code_for_node(arg.value))
        return parts

    # -- scopes --------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> None:
        # Bind top-level imports, functions and constants first, so a function may use one
        # defined below it (resolution happens when the use is reached).
        self._scope.node = node
        for statement in node.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Import):
                        self._bind_import(small)
                    elif isinstance(small, cst.ImportFrom):
                        self._bind_import_from(small)
                    elif isinstance(small, cst.Assign):
                        constant = self._constant(small)
                        if constant is not None:
                            self._bind(constant.name, constant)
            elif isinstance(statement, cst.FunctionDef):
                self._bind(statement.name.value, FunctionValue(f"{self.module_name}.{statement.name.value}"))
        for statement in node.body:
            # a table of the module's functions, written below a function that calls through it
            # (`CONFIGS[name](...)`): bound once every function is
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if (isinstance(small, cst.Assign) and isinstance(small.value, cst.Dict) and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)):
                    table = self.value_of(small.value)
                    if isinstance(table, FunctionTable):
                        self._bind(small.targets[0].target.value, table)
        self.import_refs.clear()  # re-collected in order as the walk reaches them
        if self.is_test_module:
            self._scan_fixtures(node)

    # -- entry points: code a test runner calls, under the default context ----------------

    def _scan_fixtures(self, module: cst.Module) -> None:
        """The module's fixtures and parametrized names that give a test no PassContext."""
        harness = self.harness
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef):
                fixture = [d for d in statement.decorators if self._decorator_name(d) in harness.fixture_decorators]
                if not fixture:
                    continue
                if not _holds(statement.body, cst.With):
                    self._plain_fixtures.add(statement.name.value)
                elif any(_autouse(d) for d in fixture):
                    self._autouse_context = True
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if (
                        isinstance(small, cst.Assign) and isinstance(small.value, cst.Call)
                        and self.qualname_of(small.value.func) in harness.parameter_factories
                    ):
                        for target in small.targets:
                            self._plain_fixtures.update(_target_names(target.target))

    def _decorator_name(self, decorator: cst.Decorator) -> Optional[str]:
        target = decorator.decorator
        return self.qualname_of(target.func if isinstance(target, cst.Call) else target)

    def _entry_context(self, node: cst.FunctionDef) -> Optional[PassCtx]:
        """The default context, for a test function or method the test runner calls itself;
        None when the function is no test, or a decorator or fixture may give it a context."""
        if not self.is_test_module or self._autouse_context:
            return None
        harness = self.harness
        name = node.name.value
        scope = self._scope
        if scope.kind == "class":
            if not (scope.test_class and scope.parent is not None and scope.parent.kind == "module"):
                return None
        elif scope.kind != "module":
            return None
        if not name.startswith(harness.test_function_prefix):
            return None
        given = set(harness.harmless_fixtures) | self._plain_fixtures
        for decorator in node.decorators:
            qualname = self._decorator_name(decorator)
            if qualname is None or not harness.keeps_context(qualname):
                return None
            given.update(_parametrized_names(decorator))
        if any(param not in given for param in self._parameter_names(node.params)):
            return None
        return PassCtx(
            opt_level=self.k.default_opt_level, required=frozenset(), disabled=frozenset(),
            origin=f"the default context: the test runner calls {name} with no PassContext entered",
            is_default=True, by_test_runner=True,
        )

    def _runner_entry(self, node: cst.FunctionDef) -> bool:
        """A module-level `test_*` function of a module that is no test module, with no decorator
        and no parameter a fixture could fill."""
        if self.is_test_module or self._scope.kind != "module" or node.decorators:
            return False
        if not node.name.value.startswith(self.harness.test_function_prefix):
            return False
        params = node.params
        return not params.posonly_params and not params.kwonly_params and all(p.default is not None for p in params.params) \
            and not isinstance(params.star_arg, cst.Param) and params.star_kwarg is None

    def _is_test_class(self, node: cst.ClassDef) -> bool:
        harness = self.harness
        if not self.is_test_module or self._scope.kind != "module":
            return False
        bases = {self.qualname_of(base.value) or dotted(base.value) for base in node.bases}
        if not (node.name.value.startswith(harness.test_class_prefix) or bases & harness.unittest_bases):
            return False
        for statement in node.body.body:
            # a set-up method or a fixture of its own may enter a context around each test
            if isinstance(statement, cst.FunctionDef) and (
                statement.name.value.lower().startswith(("setup", "teardown", "__init__"))
                or statement.decorators
                and any(self._decorator_name(d) in harness.fixture_decorators for d in statement.decorators)
            ):
                return False
        return True

    def visit_Import(self, node: cst.Import) -> None:
        self._bind_import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.import_froms.append(node)
        self._bind_import_from(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qualname = f"{self._scope.qualname}.{node.name.value}"
        if self._scope.kind == "function":
            qualname = f"{self._scope.qualname}.<locals>.{node.name.value}"
        binding: object = FunctionValue(qualname)
        for decorator in node.decorators:
            made, gated = self._pass_decorator(decorator, node.name.value)
            if made:
                binding = PassValue(gated, node.name.value)
            elif not (isinstance(decorator.decorator, cst.Name) and decorator.decorator.value in _METHOD_KINDS
                      and self._lookup(decorator.decorator.value) is None):
                self.escaped_functions.append(qualname)  # called by whoever the decorator hands it to
        self._bind(node.name.value, binding)
        self.functions.append(qualname)
        entry = self._entry_context(node)
        if entry is None and self._runner_entry(node):
            self.runner_entries[qualname] = PassCtx(
                opt_level=self.k.default_opt_level, required=frozenset(), disabled=frozenset(),
                origin=f"the default context: nothing in the checked code calls {node.name.value}, so only a test "
                       "runner named on this file does, with no PassContext entered",
                is_default=True, by_test_runner=True,
            )
        owner = self._scope.qualname if self._scope.kind == "class" else None
        self._scope = Scope("function", qualname=qualname, parent=self._scope, node=node)
        for param in self._parameter_names(node.params):
            self._bind(param, LOCAL)
        if owner is not None and node.params.params and not node.decorators:
            # a plain method's first parameter is the instance: `self.run()` is `<class>.run`
            self._bind(node.params.params[0].name.value, InstanceValue(owner))
        self._frames.append(Frame(entry if entry is not None else Inherited(qualname)))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._frames.pop()
        self._scope = self._scope.parent or self._scope

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._scope = Scope("function", qualname=f"{self._scope.qualname}.<lambda>", parent=self._scope)
        for param in self._parameter_names(node.params):
            self._bind(param, LOCAL)
        # nobody visible calls a lambda by name: its context is unknown
        self._frames.append(Frame(Inherited(f"{self._scope.qualname}")))
        self.escaped_functions.append(self._scope.qualname)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._frames.pop()
        self._scope = self._scope.parent or self._scope

    def _pass_decorator(self, decorator: cst.Decorator, default_name: str) -> Tuple[bool, Optional[Gated]]:
        """(True, the pass) when `decorator` is one of TVM's pass decorators, called with its level."""
        target = decorator.decorator
        if not isinstance(target, cst.Call):
            return False, None
        qual = self.qualname_of(target.func)
        spec = self.k.decorators.get(qual) if qual else None
        if spec is None:
            return False, None
        params = tuple(p for p in spec.params if p != "pass_func")
        return True, self._gated_from_decorator(target, params, default_name)

    @staticmethod
    def _parameter_names(params: cst.Parameters) -> List[str]:
        names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.append(star.name.value)
        return names

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        binding: object = ClassValue(f"{self._scope.qualname}.{node.name.value}")
        for decorator in node.decorators:
            made, gated = self._pass_decorator(decorator, node.name.value)
            if made:
                binding = PassFactoryValue(gated, node.name.value)
        self._bind(node.name.value, binding)
        test_class = self._is_test_class(node)
        self._scope = Scope(
            "class", qualname=f"{self._scope.qualname}.{node.name.value}", parent=self._scope, test_class=test_class
        )

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scope = self._scope.parent or self._scope

    # -- assignments -----------------------------------------------------------------

    def visit_Assign(self, node: cst.Assign) -> None:
        constant = self._constant(node)
        if constant is not None:
            self._bind(constant.name, constant)
            return
        value = self.value_of(node.value)
        single = len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
        if isinstance(value, ContextValue) and value.state == "created":
            # a class attribute is reached as `obj.name` anywhere (`with model.lower_config:` in
            # another module): it escapes like one stored on an object
            value.state = "bound" if single and self._scope.kind != "class" else "escaped"
        if value is None and single and isinstance(node.value, cst.Call):
            value = self._instance_made(node.value.func) or self._module_made(node.value, node.targets[0].target.value)
        for target in node.targets:
            self._bind_target(target.target, value if single else LOCAL)
        if single:
            name = node.targets[0].target.value
            self._scope.call_results.pop(name, None)
            if isinstance(node.value, cst.Call) and value is None:
                qualname = self.qualname_of(node.value.func)
                if qualname is not None and not self.is_tvm(qualname) and qualname not in self.k.api_prefixes():
                    self._scope.call_results[name] = qualname
        if single or len(node.targets) != 1:
            return
        stored = node.targets[0].target
        if isinstance(stored, cst.Attribute) and isinstance(stored.value, cst.Name):
            literal = self.literal(node.value)
            text = literal.evaluated_value if isinstance(literal, cst.SimpleString) else None
            key = (stored.value.value, stored.attr.value)
            if isinstance(text, str):
                self._scope.attribute_literals.setdefault(key, []).append(text)
            else:
                self._scope.attribute_literals[key] = [""]  # something tvmlint cannot read: no literal set

    def _instance_made(self, func: cst.BaseExpression) -> Optional[InstanceValue]:
        """What `Cls(...)` makes when Cls may be a class of the project: one defined here, or a
        CapWords name imported from a module that is not TVM."""
        if isinstance(func, cst.Name):
            binding = self._lookup(func.value)
            if isinstance(binding, ClassValue):
                return InstanceValue(binding.qualname)
        qualname = self.qualname_of(func)
        # an imported name is taken for a class by its CapWords name (PEP 8): `np.zeros(...)` and
        # other functions' results would only add call sites no function of the project owns
        if (qualname is not None and qualname.rpartition(".")[2][:1].isupper()
                and not self.is_tvm(qualname) and qualname not in self.k.api_prefixes()):
            return InstanceValue(qualname)
        return None

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        value = self.value_of(node.value) if node.value is not None else LOCAL
        if isinstance(value, ContextValue) and value.state == "created":
            value.state = "bound"
        self._bind_target(node.target, value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
            if self._grow_list(node.target.value, self.value_of(node.value)):
                return
        self._bind_target(node.target, LOCAL)

    def _grow_list(self, name: str, added: object, single: bool = False) -> bool:
        """`passes += [...]`, `passes.extend([...])`, `passes.append(p)`: a pass list that only grows
        keeps every pass it held. What is added where the list was made is in it on every path;
        what is added under a branch the list was not made in (an `if`, a loop), on some."""
        current = self._scope.bindings.get(name)  # a list of this scope's: another's is not rebound here
        if isinstance(current, Constant) and isinstance(current.node, (cst.List, cst.Tuple)):
            # `passes = []` is a literal until it grows; from then on it stands for no literal
            made = self.value_of(current.node)
            current = ListValue(made.items, path=current.path)
        if not isinstance(current, ListValue):
            return False
        extra = [added] if single else added.items + added.maybe if isinstance(added, ListValue) else [None]
        if tuple(self._frames[-1].branch_path) == current.path:
            grown = ListValue(current.items + list(extra), list(current.maybe), current.path)
        else:
            grown = ListValue(list(current.items), current.maybe + list(extra), current.path)
        self._bind(name, grown)
        return True

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target, LOCAL)
        self._enter_branch(node)

    def leave_For(self, original_node: cst.For) -> None:
        self._leave_branch(original_node)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind_target(node.target, LOCAL)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, LOCAL)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind_target(node.name.name, LOCAL)

    def _bind_target(self, target: cst.BaseExpression, value: object) -> None:
        if isinstance(target, cst.Name):
            self._bind_value(target.value, value if value is not None else LOCAL)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value, LOCAL)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, LOCAL)

    # -- branches: a value bound in one of them is not known on every path -------------

    def _enter_branch(self, node: cst.CSTNode) -> None:
        self._frames[-1].branches += 1
        self._frames[-1].branch_path.append(id(node))

    def _leave_branch(self, original_node: cst.CSTNode) -> None:
        self._frames[-1].branches -= 1
        self._frames[-1].branch_path.pop()

    visit_If = visit_While = visit_Match = _enter_branch
    leave_If = leave_While = leave_Match = _leave_branch

    def visit_Try(self, node: cst.Try) -> None:
        # what is built in a try may be built to see it fail
        self._enter_branch(node)
        self._frames[-1].raising += 1

    def leave_Try(self, original_node: cst.Try) -> None:
        self._frames[-1].raising -= 1
        self._leave_branch(original_node)

    def _expects_raise(self, expr: cst.BaseExpression) -> bool:
        if not isinstance(expr, cst.Call):
            return False
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in self.harness.raise_with_methods:
            return True
        return self.qualname_of(expr.func) in self.harness.raise_with_calls

    # -- with ------------------------------------------------------------------------

    def visit_With(self, node: cst.With) -> None:
        if any(self._expects_raise(item.item) for item in node.items):
            self._raise_withs.add(node)
            self._frames[-1].raising += 1
        pushed = 0
        for item in node.items:
            entered = self._entered_operand(item.item)
            ref = self._context_of_with_item(entered)
            if ref is not None:
                self._frames[-1].pushed.append(ref)
                pushed += 1
                if isinstance(ref, PassCtx):
                    self._manages_own_context(item.item)
            if item.asname is not None:
                value = self.value_of(item.item)
                self._bind_target(item.asname.name, value if isinstance(value, ContextValue) else LOCAL)
        self._with_pushes[node] = pushed

    def _manages_own_context(self, entered: cst.BaseExpression) -> None:
        """A project function (or method) that enters a PassContext of its own sets the level
        where it wants one; where nothing in the checked code calls it by name, the rest of its
        body runs at the default context: no caller is expected to wrap it in another. (Not in
        TVM's own packages: their functions are API, which callers run under contexts of their own.)"""
        scope = self._scope
        if scope.kind != "function" or scope.parent is None or scope.parent.kind not in ("module", "class"):
            return
        if self.is_tvm(self.module_name) or scope.qualname in self.runner_entries:
            return
        name = scope.qualname.rpartition(".")[2]
        self.runner_entries[scope.qualname] = PassCtx(
            opt_level=self.k.default_opt_level, required=frozenset(), disabled=frozenset(),
            origin=f"the default context: nothing in the checked code calls {name}, which enters a "
                   f"PassContext of its own on line {self._line_hint(entered)} and is not expected to run under another",
            is_default=True,
        )

    def leave_With(self, original_node: cst.With) -> None:
        if original_node in self._raise_withs:
            self._raise_withs.discard(original_node)
            self._frames[-1].raising -= 1
        for _ in range(self._with_pushes.pop(original_node, 0)):
            self._frames[-1].pushed.pop()

    def _entered_operand(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """What `with` enters of an `and`/`or` chain: objects are truthy, so `A and B` gives B and
        `A or B` gives A; a context among the others is made and never entered."""
        if not isinstance(expr, cst.BooleanOperation):
            return expr
        operands: List[cst.BaseExpression] = []
        stack = [expr]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.BooleanOperation) and type(current.operator) is type(expr.operator):
                stack.extend((current.right, current.left))
            else:
                operands.append(current)
        entered = operands[-1] if isinstance(expr.operator, cst.And) else operands[0]
        for operand in operands:
            value = self.value_of(operand)
            if operand is not entered and isinstance(value, ContextValue) and value.state == "created":
                value.state = "discarded"
        return entered

    def _context_of_with_item(self, expr: cst.BaseExpression) -> Optional[ContextRef]:
        value = self.value_of(expr)
        if isinstance(value, ContextValue):
            value.state = "entered"
            if value.other is not None:
                return None
            return value.level_from or value.ctx
        if isinstance(value, Ambiguous):
            for candidate in value.candidates:
                if isinstance(candidate, ContextValue):
                    candidate.state = "entered"
            return UNSEEN_CONTEXT
        target = expr.func if isinstance(expr, cst.Call) else expr
        qualname = self.qualname_of(target)
        if qualname is not None:
            if self.is_tvm(qualname):
                return None  # TVM's own non-context managers: Target, apply_history_best, qconfig
            if isinstance(expr, cst.Call):
                return FromCall(qualname, self.current_context, self._line_hint(expr))
            return UNSEEN_CONTEXT  # a module-level object imported from elsewhere
        root = target
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name):
            binding = self._lookup(root.value)
            if binding is None and isinstance(expr, cst.Call) and root is target:
                return None  # a builtin such as open()
            if binding is None or binding is LOCAL or isinstance(binding, (ListValue, ClassValue, InstanceValue)):
                return UNSEEN_CONTEXT  # a parameter, self.ctx, an object of the project's, a name we cannot follow
        return None

    def _line_hint(self, node: cst.CSTNode) -> int:
        rank = self.call_ordinals.get(node)
        hint = getattr(self.positions, "hint_line", None)
        if rank is not None and hint is not None:
            return hint(node, call_key(node.func), rank)
        where = self.positions.get(node)
        return where.start.line if where is not None else 0

    # -- uses ----------------------------------------------------------------------

    def visit_Name(self, node: cst.Name) -> None:
        parent = self._parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
            return
        if isinstance(parent, (cst.ImportAlias, cst.AsName, cst.Param, cst.Arg)) and not (
            isinstance(parent, cst.Arg) and parent.value is node
        ):
            return
        binding = self._lookup(node.value)
        if isinstance(binding, ImportBinding):
            self.qualname_of(node)
        elif isinstance(binding, ContextValue):
            self._mark_context_use(binding, node, parent)
        elif isinstance(binding, Ambiguous):
            for candidate in binding.candidates:
                if isinstance(candidate, ContextValue):
                    self._mark_context_use(candidate, node, parent)
        elif isinstance(binding, FunctionValue):
            if isinstance(parent, cst.Call) and parent.func is node:
                return
            handing = self._handed_to_runner(node, parent)
            if handing is not None:
                # `invoke_main(main, ...)`, `fire.Fire(main)` as a statement of their own: the
                # callee runs the function there and then, under the context of that line
                self.callsites.append(CallSite(binding.qualname, self.current_context, handing))
            else:
                self.escaped_functions.append(binding.qualname)

    def _handed_to_runner(self, node: cst.Name, parent: Optional[cst.CSTNode]) -> Optional[cst.Call]:
        """The call a function is handed to as a positional argument when that call is a statement
        of its own (its value unused: nothing keeps the function to call it later, as
        `functools.partial` or a registry would) and its callee is no TVM API (which may call it
        inside a pass, under the pass's context)."""
        if not isinstance(parent, cst.Arg) or parent.value is not node or parent.keyword is not None:
            return None
        call, statement = self._parent(node, 2), self._parent(node, 3)
        if not isinstance(call, cst.Call) or not isinstance(statement, cst.Expr):
            return None
        qualname = self.qualname_of(call.func)
        if qualname is not None and (self.is_tvm(qualname) or qualname in self.k.api_prefixes()):
            return None
        if qualname is None and not isinstance(self.value_of(call.func), FunctionValue) and not isinstance(call.func, cst.Name):
            return None
        return call

    def _mark_context_use(self, value: ContextValue, node: cst.Name, parent: Optional[cst.CSTNode]) -> None:
        if isinstance(parent, cst.AssignTarget) or (
            isinstance(parent, (cst.Assign, cst.AnnAssign)) and getattr(parent, "value", None) is not node
        ):
            return
        if isinstance(parent, cst.WithItem):
            value.state = "entered"
        elif isinstance(parent, cst.Attribute) and parent.attr.value == "__enter__":
            value.state = "entered"
        elif value.state not in ("entered",):
            # passed on, returned, or inspected (`ctx.opt_level`, `ctx.config[...]`): used on purpose
            value.state = "escaped"

    def visit_Attribute(self, node: cst.Attribute) -> None:
        parent = self._parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return  # the outermost chain resolves the inner ones
        self.qualname_of(node)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.current_context
        self.context_at[node] = ctx
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "opt_level":
                # resolved here, in the scope it is written in: the rules' walk comes after this one
                self.written_levels[arg.value] = int_literal(self.literal(arg.value))
        value = self.value_of(node)
        parent = self._parent(node)
        if isinstance(value, ContextValue) and value.state == "created":
            value.state = self._context_fate(node, parent)

        grows = _LIST_GROWERS.get(node.func.attr.value) if isinstance(node.func, cst.Attribute) else None
        if grows is not None and isinstance(node.func.value, cst.Name) and len(node.args) == grows[0]:
            self._grow_list(node.func.value.value, self.value_of(node.args[-1].value), single=grows[1])
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "evaluate":
            executor = self.value_of(node.func.value)
            if isinstance(executor, ExecutorValue):
                # the executor compiles its module here, under this call's context
                display = executor.display
                made = executor.made_in
                if isinstance(made, PassCtx) and not made.is_default and made != ctx:
                    # the mistake upstream fixed in its own tutorials (apache/tvm c8a6089, #8597)
                    display += f" (the {made.origin} around create_executor does not reach it: the executor builds here)"
                self._runner_run(node, executor.runner, display, ctx)
                return
        qualname = self.qualname_of(node.func)
        if qualname is not None:
            runner = self.k.runners.get(qualname)
            if runner is not None:
                self._runner_run(node, runner, self.short(qualname) + "(...)", ctx)
                return
            executor = self._executor(node, qualname) if qualname in self.k.executors else None
            if executor is not None and executor[1] == "create":
                self._runner_run(node, executor[0], executor[2], ctx)
                return
            if not self.is_tvm(qualname) and qualname not in self.k.api_prefixes():
                self.callsites.append(CallSite(qualname, ctx, node, self._argument_values(node), scope=self._scope))
                return
        elif isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            owner = self._lookup(node.func.value.value)
            if isinstance(owner, InstanceValue):
                self.callsites.append(CallSite(f"{owner.cls}.{node.func.attr.value}", ctx, node))
        elif isinstance(node.func, cst.Name) and self._lookup(node.func.value) is None:
            # a name only a star import can bind (`from utils import *`): the project step
            # finds which of those modules defines it (a function of the project's own)
            if node.func.value not in _BUILTINS:
                for star in self.module_scope().star_modules:
                    if not self.is_tvm(star):
                        self.callsites.append(CallSite(f"{star}.{node.func.value}", ctx, node, self._argument_values(node), scope=self._scope))
        callee = self.value_of(node.func)
        if isinstance(callee, FunctionValue):
            # reached for a module whose own name is under TVM's packages (a folder called `tvm`):
            # its calls of its own functions, with or without arguments, give them contexts
            self.callsites.append(CallSite(callee.qualname, ctx, node, self._argument_values(node), scope=self._scope))
            return
        if isinstance(callee, FunctionTable) and callee.picked:
            # one of a table's functions: each is called here with these arguments (the table's
            # functions escaped where it was written, so their contexts stay unknown; what they are
            # given is still given)
            arguments = self._argument_values(node)
            for qualname in callee.qualnames:
                self.callsites.append(CallSite(qualname, ctx, node, arguments, scope=self._scope))
            return
        if not node.args:
            return
        if isinstance(callee, PassValue) and callee.runs_children:
            self.runs.append(
                GatedRun(node, callee.gated.children, callee.display, ctx, self._statement(),
                         wrapper_name=callee.gated.name, callee=callee)
            )
        elif isinstance(callee, SequentialValue):
            self.runs.append(GatedRun(node, callee.gated.children, callee.display, ctx, self._statement(), sequential=callee, callee=callee))

    def _context_fate(self, node: cst.Call, parent: Optional[cst.CSTNode]) -> str:
        if isinstance(parent, cst.Expr):
            return "discarded"
        if isinstance(parent, cst.WithItem):
            return "entered"
        if isinstance(parent, cst.Attribute) and parent.value is node:
            # `PassContext().current()`, `build_config().opt_level`: made to reach an attribute
            return "entered" if parent.attr.value == "__enter__" else "escaped"
        if isinstance(parent, (cst.Assign, cst.AnnAssign)):
            return "created"  # the assignment decides
        return "escaped"

    def visit_Return(self, node: cst.Return) -> None:
        value = self.value_of(node.value) if node.value is not None else None
        if isinstance(value, ContextValue):
            value.state = "escaped"
            if value.other is None:
                self.context_returns.setdefault(self._scope.qualname, []).append(value.ctx)

    def _statement(self) -> Optional[cst.CSTNode]:
        return self._statements[-1] if self._statements else None
