"""The installed apache-tvm's package version (PEP 440, read with packaging) -> the TVM release
tvmlint checks for when no target-version is set."""

from __future__ import annotations

import pytest

from tvmlint.base.versions import release_of_package
from tvmlint.run import config


@pytest.mark.parametrize(
    "text, release",
    [("0.27.0.post1", (0, 27)), ("0.19.dev123+g1a2b3c", (0, 19)), ("0.20.0rc1", (0, 20)),
     ("0.8.0", (0, 8)), ("1!0.18.0", (0, 18)), ("v0.18.0", (0, 18)), ("7", None), ("nightly", None)],
)
def test_release_of_package(text, release):
    assert release_of_package(text) == release


def test_default_target_from_a_development_build(monkeypatch):
    monkeypatch.setattr(config, "installed_tvm_version", lambda: "0.19.dev123+g1a2b3c")
    version, source = config.default_target()
    assert version == (0, 19) and "0.19.dev123+g1a2b3c" in source


def test_default_target_from_an_unreadable_version(monkeypatch):
    monkeypatch.setattr(config, "installed_tvm_version", lambda: "nightly")
    version, source = config.default_target()
    assert version == config.newest_release() and "newest" in source
