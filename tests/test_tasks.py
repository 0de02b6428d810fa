"""A run's tasks: what each directory decides, looked up once, must be what each file would get alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import write_tree

from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.discovery import discover
from tvmlint.run.engine import module_name_for
from tvmlint.run.tasks import Planner, display_path

TREE = {
    "a/__init__.py": "",
    "a/b/__init__.py": "",
    "a/b/m.py": "",
    "a/x.py": "",
    "a/.hidden.py": "",
    "a/dotted.name.py": "",
    "a/stub.pyi": "",
    "plain/s.py": "",
    "plain/inner/__init__.py": "",
    "plain/inner/t.py": "",
    "other/pyproject.toml": (
        '[tool.tvmlint]\ntarget-version = "0.8"\nignore = ["TVM108"]\n'
        '[tool.tvmlint.per-file-ignores]\n"o.py" = ["TVM101"]\n'
    ),
    "other/__init__.py": "",
    "other/o.py": "",
    "top.py": "",
}


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "project"
    write_tree(root, TREE)
    (root / "link.py").symlink_to(root / "a" / "b" / "m.py")
    (root / "other" / "into_a.py").symlink_to(root / "a" / "x.py")
    (root / "broken.py").symlink_to(root / "nowhere.py")
    return root


def _paths(root: Path, cwd: Path):
    walked = discover([root], lambda path: False).files
    return walked + [os.path.abspath(path) for path in walked] + [os.path.relpath(path, cwd) for path in walked]


@pytest.mark.parametrize("where", ["root", "inside", "elsewhere"])
def test_each_task_is_what_the_file_would_get_alone(tree, where):
    cwd = {"root": tree, "inside": tree / "a", "elsewhere": tree.parent}[where]
    planner = Planner(SettingsResolver(Overrides(), cwd=cwd))
    for path in _paths(tree, cwd) + [str(tree / "broken.py")]:
        alone = SettingsResolver(Overrides(), cwd=cwd)
        task = planner.task(0, path)
        assert (task.module_name, task.is_package) == module_name_for(Path(path)), path
        assert task.shown == display_path(path, cwd.resolve()), path
        settings = alone.for_path(Path(path))
        assert (task.version, task.codes) == (settings.target_version, settings.codes_for(Path(path))), path


def test_a_symlink_gets_the_settings_where_it_leads(tree):
    resolver = SettingsResolver(Overrides(), cwd=tree)
    planner = Planner(resolver)
    assert planner.task(0, str(tree / "other" / "o.py")).version == (0, 8)
    assert "TVM101" not in planner.task(0, str(tree / "other" / "o.py")).codes
    assert planner.task(0, str(tree / "other" / "into_a.py")).version != (0, 8)  # it is a/x.py
    assert planner.task(0, str(tree / "other" / "into_a.py")).module_name == "a.x"


def test_the_default_target_is_looked_up_only_when_a_file_has_no_configuration(tree, monkeypatch):
    import tvmlint.run.config as config

    asked = []
    real = config.default_target
    monkeypatch.setattr(config, "default_target", lambda *args: asked.append(1) or real(*args))
    resolver = SettingsResolver(Overrides(), cwd=tree)
    assert resolver.for_path(tree / "other" / "o.py").target_version == (0, 8)
    assert asked == []
    resolver.for_path(tree / "top.py")
    assert asked == [1]
    with pytest.raises(config.ConfigError):
        SettingsResolver(Overrides(target_version="9.9"), cwd=tree)  # a bad flag is still an error at once
