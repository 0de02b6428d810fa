"""`tvmlint trace`'s bootstrap, put first on PYTHONPATH of the traced process only (stdlib only).

Python imports `sitecustomize` at start-up, before the user's script; this one
waits for `import tvm` to finish (TVM is never imported on its own account, so a
script that does not use it runs as it would) and then loads ../tracer.py by
path. Another sitecustomize the environment has (Debian's, a virtualenv's) is
run after it, as if this one were not there.
"""

import importlib.machinery
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OPTIONS = "TVMLINT_TRACE"


def _say(text):
    try:
        sys.stderr.write(f"tvmlint trace: {text}\n")
    except Exception:
        pass


def _install(tvm, options):
    path = os.path.join(os.path.dirname(HERE), "tracer.py")
    spec = importlib.util.spec_from_file_location("tvmlint_trace_tracer", path)
    tracer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tracer)
    if tracer.start(tvm, options) is None:
        # a TVM without instruments: the run would trace nothing; tvmlint reads why from the journal
        os._exit(2)


class _AfterTvm:
    """Finds nothing itself; wraps the loader of `tvm` so the tracer starts when TVM's import ends."""

    def __init__(self, options):
        self.options = options

    def find_spec(self, name, path=None, target=None):
        if name != "tvm":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original, options = loader.exec_module, self.options

        def exec_module(module):
            original(module)
            try:
                _install(module, options)
            except Exception as error:  # never the user's run's failure
                _say(f"could not install the tracer: {type(error).__name__}: {error}")

        loader.exec_module = exec_module
        return spec


def _chain():
    """The sitecustomize this one hides, if the environment has one."""
    others = [entry for entry in sys.path if os.path.abspath(entry or ".") != HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is not None and spec.loader is not None:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def _main():
    text = os.environ.get(OPTIONS)
    if text:
        try:
            options = json.loads(text)
        except ValueError:
            options = None
        if isinstance(options, dict) and options.get("journal"):
            if "tvm" in sys.modules:
                _install(sys.modules["tvm"], options)
            else:
                sys.meta_path.insert(0, _AfterTvm(options))
    _chain()


_main()
