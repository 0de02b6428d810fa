"""rules/ TOML is parsed once and then read from a pickle beside it, as Python keeps bytecode."""

from __future__ import annotations

import sys

import pytest

import tvmlint.knowledge.tables as tables
from tvmlint.base import filestate

TABLE = '[[pass]]\nname = "FoldScaleAxis"\nopt_level = 3\n'


@pytest.fixture
def writable(monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(filestate, "RACY_NS", 0)  # the file was just written: vouch for it at once


def _no_parsing(monkeypatch):
    def refuse(path):
        raise AssertionError(f"{path} was parsed again")

    monkeypatch.setattr(tables, "parse_toml", refuse)


def test_a_table_is_parsed_once(tmp_path, monkeypatch, writable):
    path = tmp_path / "passes.toml"
    path.write_text(TABLE)
    first = tables.load_toml(path)
    assert first == {"pass": [{"name": "FoldScaleAxis", "opt_level": 3}]}
    assert (tmp_path / "__pycache__" / "passes.toml.pickle").is_file()
    _no_parsing(monkeypatch)
    assert tables.load_toml(path) == first


def test_a_changed_table_is_parsed_again(tmp_path, writable):
    path = tmp_path / "passes.toml"
    path.write_text(TABLE)
    tables.load_toml(path)
    path.write_text(TABLE.replace("opt_level = 3", "opt_level = 4"))  # the same size
    assert tables.load_toml(path)["pass"][0]["opt_level"] == 4


def test_a_table_changed_within_the_clock_tick_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "passes.toml"
    path.write_text(TABLE)  # just now: its status cannot vouch for it yet
    tables.load_toml(path)
    assert not (tmp_path / "__pycache__").exists()


def test_nothing_is_written_when_python_is_told_not_to(tmp_path, monkeypatch):
    monkeypatch.setattr(filestate, "RACY_NS", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "passes.toml"
    path.write_text(TABLE)
    assert tables.load_toml(path)["pass"][0]["name"] == "FoldScaleAxis"
    assert not (tmp_path / "__pycache__").exists()


def test_an_unwritable_or_damaged_cache_costs_nothing_but_time(tmp_path, writable):
    path = tmp_path / "passes.toml"
    path.write_text(TABLE)
    (tmp_path / "__pycache__").write_text("a file where the directory would be")
    assert tables.load_toml(path)["pass"][0]["opt_level"] == 3
    (tmp_path / "__pycache__").unlink()
    tables.load_toml(path)
    (tmp_path / "__pycache__" / "passes.toml.pickle").write_bytes(b"damaged")
    assert tables.load_toml(path)["pass"][0]["opt_level"] == 3
