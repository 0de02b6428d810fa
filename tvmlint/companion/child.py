"""The companion's child process: the only code of tvmlint that imports TVM.

It runs as a plain script under whichever interpreter has TVM (tvmlint's own, or
the user's via --tvm-python, where tvmlint itself may not be installed), so it
uses nothing but the standard library, TVM and probes.py next to it. It reads
one JSON request on stdin and writes one JSON answer on stdout; TVM's own
chatter is sent to stderr so it cannot corrupt the answer.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The script's directory holds tvmlint's modules, not the user's: keep it off
# sys.path so nothing there shadows a module TVM imports.
if sys.path and os.path.abspath(sys.path[0] or ".") == HERE:
    del sys.path[0]

# Classes every pass is an instance of; they are not pass constructors.
BASE_CLASSES = {"Pass", "ModulePass", "FunctionPass", "PrimFuncPass", "DataflowBlockPass", "Sequential"}
KINDS = {
    "Sequential": "sequential",
    "ModulePass": "module",
    "FunctionPass": "function",
    "PrimFuncPass": "prim_func",
    "DataflowBlockPass": "dataflow_block",
}
DISTRIBUTIONS = ("apache-tvm", "tvm", "mlc-ai-nightly", "mlc-ai-nightly-cu122", "tlcpack", "tlcpack-nightly")


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def locate(_request):
    """Where TVM is and which version, without importing it (this is the cache key)."""
    spec = importlib.util.find_spec("tvm")
    if spec is None or not spec.origin:
        return {"found": False, "python": sys.executable}
    try:
        from importlib import metadata
    except ImportError:  # Python 3.7
        metadata = None
    version = None
    for name in DISTRIBUTIONS:
        if metadata is None:
            break
        try:
            version = metadata.version(name)
            break
        except Exception:
            continue
    try:
        stamp = os.stat(spec.origin).st_mtime_ns
    except OSError:
        stamp = 0
    return {
        "found": True,
        "python": sys.executable,
        "location": os.path.dirname(spec.origin),
        "version": version,
        "stamp": stamp,
    }


def resolve(path):
    """`tvm.relax.transform` -> the module; `tvm.transform` is an attribute, not a module."""
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for index, part in enumerate(parts[1:], start=1):
        if not hasattr(obj, part):
            obj = importlib.import_module(".".join(parts[: index + 1]))
        else:
            obj = getattr(obj, part)
    return obj


def kind_of(pass_obj):
    for cls in type(pass_obj).__mro__:
        if cls.__name__ in KINDS:
            return KINDS[cls.__name__]
    return type(pass_obj).__name__


def describe(pass_obj, tvm):
    info = pass_obj.info
    row = {
        "name": str(info.name),
        "kind": kind_of(pass_obj),
        "opt_level": int(info.opt_level),
        "required": [str(name) for name in info.required],
    }
    if isinstance(pass_obj, tvm.ir.transform.Sequential):
        row["members"] = [describe(member, tvm) for member in pass_obj.passes]
    return row


def build(constructor, recipe, tvm):
    """Call a pass constructor, with the arguments rules/ records for it."""
    args = ()
    if recipe and recipe.get("args") is not None:
        # build_args is Python source from rules/ (tvmlint's own data, not the user's
        # code): literals, lambdas and TVM objects such as tvm.target.Target("llvm")
        args = eval("(" + recipe["args"] + ",)", {"__builtins__": {}, "tvm": tvm})  # noqa: S307
    if recipe and recipe.get("target"):
        with tvm.target.Target(recipe["target"]):
            return constructor(*args)
    return constructor(*args)


def is_candidate(obj, tvm):
    if inspect.isclass(obj):
        return issubclass(obj, tvm.ir.transform.Pass) and obj.__name__ not in BASE_CLASSES
    return callable(obj)


def snapshot(request):
    import tvm

    recipes = request.get("build", {})
    known = set(request.get("known", ()))
    modules = {}
    passes = []
    seen = {}
    for module_path in request.get("modules", ()):
        try:
            module = resolve(module_path)
        except Exception as error:
            modules[module_path] = one_line(error)
            continue
        modules[module_path] = True
        for attr in sorted(dir(module)):
            if attr.startswith("_") or not attr[:1].isupper():
                continue
            obj = getattr(module, attr)
            api = module_path + "." + attr
            if not is_candidate(obj, tvm):
                continue
            if id(obj) in seen:  # tvm.transform and tvm.ir.transform are one module
                seen[id(obj)].setdefault("aliases", []).append(api)
                continue
            row = {"api": api}
            try:
                built = build(obj, recipes.get(api), tvm)
            except Exception as error:
                if api not in known and not _returns_pass(obj):
                    continue  # a helper that is not a pass constructor
                row["error"] = one_line(error)
                passes.append(row)
                seen[id(obj)] = row
                continue
            if not isinstance(built, tvm.ir.transform.Pass):
                continue
            row.update(describe(built, tvm))
            passes.append(row)
            seen[id(obj)] = row
    configs = {}
    try:
        for key, value in tvm.transform.PassContext.list_configs().items():
            configs[str(key)] = str(value["type"]) if "type" in value else ""
    except Exception as error:
        configs = {"__error__": one_line(error)}
    try:
        importlib.import_module("tvm.relay")
        has_relay = True
    except Exception:
        has_relay = False
    defaults = {}
    try:
        empty = tvm.transform.Sequential([])
        defaults = {
            "pass_context_opt_level": int(tvm.transform.PassContext().opt_level),
            "sequential_opt_level": int(empty.info.opt_level),
            "sequential_name": str(empty.info.name),
        }
    except Exception as error:
        defaults = {"error": one_line(error)}
    answer = locate(request)
    answer.update(
        {
            "defaults": defaults,
            "version": answer.get("version") or str(getattr(tvm, "__version__", "")),
            "tvm_version": str(getattr(tvm, "__version__", "")),
            "modules": modules,
            "passes": passes,
            "configs": configs,
            "has_relay": has_relay,
        }
    )
    return answer


def _returns_pass(obj):
    try:
        annotation = inspect.signature(obj).return_annotation
    except (TypeError, ValueError):
        return False
    return "Pass" in str(annotation)


def structural_equal(tvm):
    # tvm.ir.structural_equal until the FFI split; tvm_ffi.structural_equal after it (0.27)
    found = getattr(tvm.ir, "structural_equal", None)
    if found is None:
        found = importlib.import_module("tvm_ffi").structural_equal
    return found


def sibling(name):
    """probes.py or instrumented.py next to this script, loaded by path (tvmlint may not be installed here)."""
    spec = importlib.util.spec_from_file_location("tvmlint_" + name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def probe(request):
    """Run a pass on a probe module under several contexts: did each change it?"""
    import tvm

    probes = sibling("probes")
    make = probes.PROBES.get(request["api"])
    if make is None:
        return {"error": "no probe for " + request["api"]}
    constructor = resolve(request["api"])
    results = []
    for setting in request["settings"]:
        module = make(tvm)
        with tvm.transform.PassContext(
            opt_level=setting["opt_level"],
            required_pass=setting.get("required", []),
            disabled_pass=setting.get("disabled", []),
        ):
            out = build(constructor, request.get("build"), tvm)(module)
        results.append({"changed": not structural_equal(tvm)(module, out)})
    return {"results": results}


def pipeline(request):
    """Run a named pipeline on tvmlint's small module under a PassInstrument: what ran, what was skipped."""
    import tvm

    answer = sibling("instrumented").run(request, tvm, sibling("probes"))
    answer["tvm"] = locate(request)
    answer["tvm"]["version"] = answer["tvm"].get("version") or str(getattr(tvm, "__version__", ""))
    return answer


def config(request):
    """Does PassContext(config={key: value}) raise? One answer per key."""
    import tvm

    answers = []
    for key, value in request["items"]:
        try:
            tvm.transform.PassContext(config={key: value})
            answers.append({"key": key, "raised": False})
        except Exception as error:
            answers.append({"key": key, "raised": True, "error": one_line(error)})
    return {"results": answers}


OPS = {"locate": locate, "snapshot": snapshot, "probe": probe, "config": config, "pipeline": pipeline}


def answer(request):
    try:
        return OPS[request.get("op", "locate")](request)
    except ImportError as error:
        return {"error": "TVM could not be imported: " + one_line(error), "import_error": True}
    except Exception as error:
        return {"error": one_line(error)}


def main():
    answer_stream = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever TVM prints goes to stderr
    if "--serve" in sys.argv[1:]:
        # one request per line, one answer per line: TVM is imported once for many questions
        for line in sys.stdin:
            if line.strip():
                answer_stream.write(json.dumps(answer(json.loads(line))) + "\n")
                answer_stream.flush()
        return
    answer_stream.write(json.dumps(answer(json.loads(sys.stdin.read() or "{}"))))
    answer_stream.flush()


if __name__ == "__main__":
    main()
