"""pytest-lsp's client poses as the editor a test names, but has no answer to
client/registerCapability, which an editor that declares dynamic registration (VS Code does)
must accept: the language server asks it to watch pyproject.toml. Every test client accepts
it, as that editor would (tests/test_lsp_settings.py records what was asked)."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES


def accept_registration(client: LanguageClient, params: types.RegistrationParams) -> None:
    return None


DEFAULT_CLIENT_FEATURES.setdefault(types.CLIENT_REGISTER_CAPABILITY, accept_registration)
