"""`tvmlint trace`, child side: which frames on the stack are the user's (stdlib only, loaded by path).

A frame is the user's when its file lies outside TVM's and tvm_ffi's packages, the
standard library, the installed packages and tvmlint itself: the innermost such frame
is the line that started a pipeline, whatever library code lies between.
"""

import linecache
import os
import site
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
STACK_DEPTH = 8  # user frames kept per run: enough to tell which caller reached a helper


def not_user_prefixes(tvm):
    """Where the files that are not the user's live: TVM, the standard library, installed packages, tvmlint."""
    places = {os.path.dirname(os.path.abspath(tvm.__file__)), HERE, os.path.dirname(HERE)}
    ffi = sys.modules.get("tvm_ffi")
    if ffi is not None and getattr(ffi, "__file__", None):
        places.add(os.path.dirname(os.path.abspath(ffi.__file__)))
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            places.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    try:
        places.update(site.getsitepackages())
        places.add(site.getusersitepackages())
    except AttributeError:  # a virtualenv's old site.py
        pass
    return tuple(os.path.realpath(place) + os.sep for place in places if place)


class Sites:
    """The frames of the user's files on the stack, innermost first."""

    def __init__(self, tvm):
        self.prefixes = not_user_prefixes(tvm)
        self.verdicts = {}

    def is_user(self, filename):
        known = self.verdicts.get(filename)
        if known is None:
            if filename.startswith("<"):
                known = filename in ("<string>", "<stdin>")  # python -c, python - : the user's code
            else:
                known = not os.path.realpath(filename).startswith(self.prefixes)
            self.verdicts[filename] = known
        return known

    def stack(self, skip=1):
        frame, out = sys._getframe(skip), []
        while frame is not None and len(out) < STACK_DEPTH:
            code = frame.f_code
            if self.is_user(code.co_filename):
                out.append(self.describe(code.co_filename, frame.f_lineno, code.co_name))
            frame = frame.f_back
        return out

    @staticmethod
    def describe(filename, line, function):
        path = filename if filename.startswith("<") else os.path.abspath(filename)
        return {"file": path, "line": line, "function": function,
                "code": linecache.getline(filename, line).strip()[:200]}
