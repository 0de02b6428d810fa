"""libcst, imported when a check first uses it.

Importing libcst takes about 150 ms with its bytecode compiled: more than the
cheap stage spends on a file, and most of what a pre-commit run on one file
would cost. The rules and the modules they build on load with a stand-in,
`cst`, and use it as they would the module (`isinstance(node, cst.Call)`); the
first attribute looked up imports libcst, so a run in which the cheap stage
sends no file to libcst never imports it. Classes that must exist when a module
loads do not derive from libcst's (`tvmlint.analysis.walk.Visitor`).
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(importlib.import_module(self._name), attribute)
        # kept on the stand-in: the next lookup is a plain attribute, as fast as the module's own
        setattr(self, attribute, value)
        return value

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


cst: Any = LazyModule("libcst")
