"""What every test process sets up: tvmlint's bytecode compiled once, the test LSP client's
answer to client/registerCapability, the terminal size an xdist worker must not pass on, the
order the tests start in, and the cycle collector's settings.

pytest-lsp's client poses as the editor a test names, but has no answer to
client/registerCapability, which an editor that declares dynamic registration (VS Code does)
must accept: the language server asks it to watch pyproject.toml. Every test client accepts
it, as that editor would (tests/test_lsp_settings.py records what was asked)."""

from __future__ import annotations

import gc
import importlib.util
import os
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES


def accept_registration(client: LanguageClient, params: types.RegistrationParams) -> None:
    return None


DEFAULT_CLIENT_FEATURES.setdefault(types.CLIENT_REGISTER_CAPABILITY, accept_registration)


# A pytest-xdist worker has COLUMNS=80 and LINES=24 in its environment, which a shell (and a
# run without xdist) does not: every command a test starts would then draw for 80 columns.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)


def pytest_configure(config):
    """tvmlint's modules and rules/ tables compiled once, before the workers start, as pip
    compiles an installed tvmlint's and its first run writes the tables' pickles. An editable
    install run with PYTHONDONTWRITEBYTECODE set (as this machine's environment has it) would
    compile every module and parse every table in each of the suite's hundreds of `tvmlint`
    processes: about a fifth of a second each, a tenth of the suite's CPU."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller has done it
        return
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"
    spec = importlib.util.spec_from_file_location("tvmlint_benchmark_run", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    module.compile_bytecode()


def pytest_collection_modifyitems(config, items):
    """Tests marked `long` first, each group in its own order. pytest-xdist hands the tests out in
    this order, a few at a time to whichever worker is free: a test of ten seconds handed out
    last would keep one worker busy while the other has nothing left to do."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


def pytest_collection_finish(session):
    """The collected tests and the modules they imported live as long as the test process: frozen,
    the cycle collector no longer walks them each time it runs, and with a higher first threshold
    it runs less often (a test's trees mostly go by reference counting). In test_positions, whose
    tests make many small libcst trees in the test process, collections took a third of the CPU."""
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)
