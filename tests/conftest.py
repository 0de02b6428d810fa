"""pytest-lsp's client poses as the editor a test names, but has no answer to
client/registerCapability, which an editor that declares dynamic registration (VS Code does)
must accept: the language server asks it to watch pyproject.toml. Every test client accepts
it, as that editor would (tests/test_lsp_settings.py records what was asked)."""

from __future__ import annotations

import os

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


def pytest_collection_modifyitems(config, items):
    """Tests marked `long` first, each group in its own order. pytest-xdist hands the tests out in
    this order, a few at a time to whichever worker is free: a test of ten seconds handed out
    last would keep one worker busy while the other has nothing left to do."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
