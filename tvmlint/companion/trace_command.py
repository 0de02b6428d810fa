"""`tvmlint trace`'s command line after `--`: which interpreter, and which script, module or code it runs.

Read as CPython reads its own options, only as far as the first argument that is not
one; the script is checked before anything runs (it exists; a directory has a
__main__.py; no FIFO or device, which Python would wait on).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import List, Optional, Sequence

from tvmlint.companion import CompanionError

# the interpreter's options that take a value (`-W error`, `-X dev`), and those that would
# keep it from reading PYTHONPATH or sitecustomize, where the tracer comes from
WITH_VALUE = frozenset("WX")
BLIND = {"-I": "-I (isolated mode)", "-E": "-E (ignore PYTHON* variables)", "-S": "-S (no site module)"}


@dataclass
class Command:
    argv: List[str]
    python: str
    script: Optional[str] = None  # the file, or None for -m / -c
    module: Optional[str] = None


def parse(argv: Sequence[str], default_python: str) -> Command:
    """`python [options] SCRIPT|-m MODULE|-c CODE [ARGS]`, or the same without `python` (tvmlint's interpreter)."""
    argv = list(argv)
    if not argv:
        raise CompanionError("trace needs a command after `--`: python SCRIPT [ARGS...] or python -m MODULE [ARGS...]")
    if argv[0].endswith(".py") or argv[0].startswith("-") or os.path.isdir(argv[0]):
        argv = [default_python, *argv]  # no interpreter named: tvmlint's own
    command = Command(argv, argv[0])
    index = 1
    while index < len(argv):
        arg = argv[index]
        flags = arg[1:] if arg.startswith("-") and not arg.startswith("--") and arg[1:2] not in "WXcm" else ""
        blind = next((f"-{flag}" for flag in flags if f"-{flag}" in BLIND), None)
        if blind:
            raise CompanionError(f"python {BLIND[blind]} would not load the tracer: leave it out")
        if arg == "-m" or arg.startswith("-m"):
            command.module = arg[2:] or (argv[index + 1] if index + 1 < len(argv) else None)
            if not command.module:
                raise CompanionError("python -m needs a module name")
            return command
        if arg == "-c" or arg.startswith("-c"):
            return command
        if arg == "-":
            raise CompanionError("trace cannot run a script read from stdin: give its file")
        if not arg.startswith("-"):
            command.script = arg
            _check_script(arg)
            return command
        if arg[1:2] in WITH_VALUE and len(arg) == 2:
            index += 1
        elif arg == "--check-hash-based-pycs":
            index += 1
        index += 1
    raise CompanionError("the command names no script: python SCRIPT [ARGS...] or python -m MODULE")


def _check_script(path: str) -> None:
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise CompanionError(f"the script {path} does not exist") from None
    except OSError as error:
        raise CompanionError(f"the script {path} cannot be read: {error.strerror or error}") from None
    if stat.S_ISDIR(status.st_mode):
        if not os.path.isfile(os.path.join(path, "__main__.py")):
            raise CompanionError(f"the script {path} is a directory with no __main__.py")
    elif not stat.S_ISREG(status.st_mode):
        raise CompanionError(f"the script {path} is not a regular file (a FIFO or a device): Python would wait on it")
