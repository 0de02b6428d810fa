"""An instrumented pipeline run (child side only: stdlib and TVM, loaded by child.py by path).

`run(request, tvm, probes)` runs a named pipeline on tvmlint's own small module
(probes.relax_small_model, never the user's code) inside
`PassContext(opt_level, required_pass, disabled_pass, instruments=[Recorder])`.
The instrument sees every pass that runs (should_run, run_before_pass,
run_after_pass, with the time between the last two). A member that a
Sequential's gate skips never reaches the instrument, so what was skipped is
found by walking each Sequential that ran (its `.passes`, recursively) and
applying PassContext::PassEnabled (disabled wins, then required, then
opt_level) to each member: those not enabled are placed, in order, where the
Sequential would have run them.

Sequentials built while the pipeline runs (relax's default pipeline builds its
Sequential inside a module pass) are seen by wrapping Sequential.__init__ for
the run; a Sequential that ran is matched to its object by its PassInfo
(`same_as`).
"""

from __future__ import annotations

import inspect
import time

# a request for a whole build (tvm.compile, relax.build) comes marked `compile`: the parent knows
# from rules/pipelines.toml which calls run a build pipeline (companion/pipeline.py compile_names)
# "default": what relax.build / tvm.compile run for relax_pipeline="default" (below); the
# get_default_pipeline names: that function's own, target-specific pipeline
BUILD_DEFAULT_NAMES = ("default", "relax.default")
DEFAULT_NAMES = (
    *BUILD_DEFAULT_NAMES, "tvm.relax.get_default_pipeline", "tvm.relax.pipeline.get_default_pipeline",
    "relax.get_default_pipeline", "relax.pipeline.get_default_pipeline",
)


class UnknownPipeline(Exception):
    pass


def one_line(error):
    text = " ".join(str(error).split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def kind_of(pass_obj):
    names = {
        "Sequential": "sequential", "ModulePass": "module", "FunctionPass": "function",
        "PrimFuncPass": "prim_func", "DataflowBlockPass": "dataflow_block",
    }
    for cls in type(pass_obj).__mro__:
        if cls.__name__ in names:
            return names[cls.__name__]
    return type(pass_obj).__name__


def enabled(info, setting):
    """PassContext::PassEnabled, and why: (runs, reason)."""
    name, level = str(info.name), int(info.opt_level)
    if name in setting["disabled"]:
        return False, "disabled_pass"
    if name in setting["required"]:
        return True, "required_pass" if level > setting["opt_level"] else None
    if level > setting["opt_level"]:
        return False, f"opt_level {level} > {setting['opt_level']}"
    return True, None


def resolve_path(path):
    import importlib

    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for index, part in enumerate(parts[1:], start=1):
        if hasattr(obj, part):
            obj = getattr(obj, part)
        else:
            try:
                obj = importlib.import_module(".".join(parts[: index + 1]))
            except ImportError:
                raise UnknownPipeline(f"{'.'.join(parts[:index])} has no {part!r}") from None
    return obj


def pipeline_for(request, tvm, target):
    """(a callable mod -> mod, what it is in words). UnknownPipeline for a name that names nothing."""
    name = request["pipeline"].strip()
    from tvm import relax

    if request.get("members"):  # a Sequential of registered passes, as the checked code builds one
        passes = []
        for api in request["members"]:
            built = construct(resolve_path(api), request.get("builds", {}).get(api), tvm, target)
            if not isinstance(built, tvm.ir.transform.Pass):
                raise UnknownPipeline(f"{api}() gives a {type(built).__name__}, not a pass")
            passes.append(built)
        shown = ", ".join(api.replace("tvm.", "", 1) + "()" for api in request["members"])
        return tvm.transform.Sequential(passes), f"tvm.transform.Sequential([{shown}])"

    if request.get("compile"):
        return (lambda mod: tvm.compile(mod, target=target)), (
            f"tvm.compile(mod, target={str(target.kind.name)!r}): relax.build's relax pipeline, then the TIR pipeline"
        )
    kind = str(target.kind.name)
    if name in BUILD_DEFAULT_NAMES:
        # relax.build's choice for "default" (v0.25.0 .. v0.26.0:python/tvm/relax/vm_build.py#L258-L265, the
        # same in the 0.27 wheel): a GPU target's own pipeline, anything else the generic default_build
        if "gpu" in target.keys:
            try:
                return relax.get_default_pipeline(target), f"tvm.relax.get_default_pipeline(Target({kind!r})), as tvm.compile"
            except (ValueError, AttributeError):
                pass
        return relax.get_pipeline("default"), f"tvm.relax.get_pipeline('default'), as tvm.compile runs it for Target({kind!r})"
    if name in DEFAULT_NAMES:
        return relax.get_default_pipeline(target), f"tvm.relax.get_default_pipeline(Target({kind!r}))"
    bare = name.split(":", 1)[1] if name.startswith("relax:") else name
    pipelines = getattr(getattr(relax, "pipeline", None), "PIPELINE_MAP", {})
    if bare in pipelines and "." not in bare:
        try:
            return relax.get_pipeline(bare), f"tvm.relax.get_pipeline({bare!r})"
        except TypeError as error:
            raise UnknownPipeline(f"relax pipeline {bare!r} needs arguments ({one_line(error)})") from None
    if not name.startswith("tvm."):
        known = ", ".join(["default", "tvm.compile"] + [f"relax:{key}" for key in pipelines])
        raise UnknownPipeline(
            f"no pipeline named {name!r}: give one of {known}, or a pass or Sequential by its API path "
            "(e.g. tvm.relax.transform.FuseTIR)"
        )
    obj = resolve_path(name)
    if isinstance(obj, tvm.ir.transform.Pass):
        return obj, name
    if not callable(obj):
        raise UnknownPipeline(f"{name} is not a pass, a pass constructor or a pipeline")
    built = construct(obj, request.get("build"), tvm, target)
    if not isinstance(built, tvm.ir.transform.Pass):
        raise UnknownPipeline(f"{name}() gives a {type(built).__name__}, not a pass")
    return built, f"{name}()"


def construct(constructor, recipe, tvm, target):
    args = ()
    if recipe and recipe.get("args") is not None:
        # build_args is Python source from rules/ (tvmlint's own data, not the user's code)
        args = eval("(" + recipe["args"] + ",)", {"__builtins__": {}, "tvm": tvm})  # noqa: S307
    elif _wants_target(constructor):
        args = (target,)
    with target:
        try:
            return constructor(*args)
        except TypeError as error:
            raise UnknownPipeline(f"could not build it without arguments ({one_line(error)})") from None


def _wants_target(constructor):
    try:
        params = inspect.signature(constructor).parameters
    except (TypeError, ValueError):
        return False
    needed = [p for p in params.values() if p.default is inspect.Parameter.empty
              and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(needed) == 1 and needed[0].name == "target"


class Node:
    def __init__(self, name, opt_level, depth):
        self.name, self.opt_level, self.depth = name, opt_level, depth
        self.kind = None
        self.seconds = None
        self.children = []
        self.sequential = None  # the Sequential object, when this node is one

    def to_json(self):
        row = {"name": self.name, "opt_level": self.opt_level, "state": "ran",
               "seconds": self.seconds}
        if self.kind:
            row["kind"] = self.kind
        if self.children:
            row["children"] = [child.to_json() for child in self.children]
        return row


def run(request, tvm, probes):
    setting = {
        "opt_level": int(request["opt_level"]),
        "required": list(request.get("required", ())),
        "disabled": list(request.get("disabled", ())),
    }
    target = tvm.target.Target(request.get("target") or "llvm")
    try:
        pipeline, resolved = pipeline_for(request, tvm, target)
    except UnknownPipeline as error:
        return {"unknown": str(error)}
    want_ir = request.get("print_ir_after")

    Sequential = tvm.ir.transform.Sequential
    known = []  # (PassInfo, Sequential) for every Sequential that may run

    def learn(seq):
        if any(seq.same_as(other) for _info, other in known):
            return
        known.append((seq.info, seq))
        for member in seq.passes:
            if isinstance(member, Sequential):
                learn(member)

    if isinstance(pipeline, Sequential):
        learn(pipeline)
    original_init = Sequential.__init__

    def recording_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        learn(self)

    roots = []
    stack = []
    ir = []
    asked = [0]

    @tvm.instrument.pass_instrument
    class Recorder:
        def should_run(self, mod, info):
            asked[0] += 1
            return True

        def run_before_pass(self, mod, info):
            node = Node(str(info.name), int(info.opt_level), len(stack))
            for known_info, seq in known:
                if known_info.same_as(info):
                    node.sequential, node.kind = seq, "sequential"
                    break
            (stack[-1].children if stack else roots).append(node)
            stack.append(node)
            node.start = time.perf_counter()

        def run_after_pass(self, mod, info):
            if not stack:
                return
            node = stack.pop()
            node.seconds = time.perf_counter() - node.start
            if want_ir and matches(str(info.name), want_ir):
                count = sum(1 for row in ir if row["pass"] == node.name)
                try:
                    text = mod.script()
                except Exception as error:  # a module the printer cannot print
                    text = f"(the module could not be printed: {one_line(error)})"
                ir.append({"pass": node.name, "occurrence": count + 1, "text": text})

    module = probes.relax_small_model(tvm)
    failed = None
    Sequential.__init__ = recording_init
    try:
        with tvm.transform.PassContext(
            opt_level=setting["opt_level"], required_pass=setting["required"],
            disabled_pass=setting["disabled"], instruments=[Recorder()],
        ):
            if isinstance(pipeline, tvm.ir.transform.Pass):
                with target:
                    pipeline(module)
            else:
                pipeline(module)
    except Exception as error:
        failed = one_line(error)
    finally:
        Sequential.__init__ = original_init
    tree = [merge(node, setting) for node in roots]
    return {
        "pipeline": request["pipeline"],
        "resolved": resolved,
        "module": probes.SMALL_MODEL,
        "target": str(target),
        "setting": setting,
        "tree": tree,
        "asked": asked[0],
        "ir": ir,
        "failed": failed,
    }


def matches(name, wanted):
    return name == wanted or name.endswith("." + wanted) or wanted.endswith("." + name)


def skipped_row(member, why, setting):
    row = {"name": str(member.info.name), "opt_level": int(member.info.opt_level), "kind": kind_of(member),
           "state": "skipped", "why": why}
    if row["kind"] == "sequential":
        row["children"] = [skipped_row(inner, "its Sequential is skipped", setting) for inner in member.passes]
    return row


def merge(node, setting):
    """The node as JSON, with the members its Sequential skipped put in their places."""
    row = node.to_json()
    children = [merge(child, setting) for child in node.children]
    seq = node.sequential
    if seq is None:
        if children:
            row["children"] = children
        return row
    out, index = [], 0
    for member in seq.passes:
        runs, why = enabled(member.info, setting)
        name = str(member.info.name)
        if not runs:
            out.append(skipped_row(member, why, setting))
            continue
        found = next((j for j in range(index, len(children)) if children[j]["name"] == name), None)
        if found is None:
            out.append({"name": name, "opt_level": int(member.info.opt_level), "kind": kind_of(member),
                        "state": "not seen", "why": "enabled, but the instrument never saw it run"})
            continue
        out.extend(children[index:found])  # passes its `required` list ran first
        ran = children[found]
        ran.setdefault("kind", kind_of(member))
        if why:
            ran["why"] = why
        out.append(ran)
        index = found + 1
    out.extend(children[index:])
    if out:
        row["children"] = out
    return row
