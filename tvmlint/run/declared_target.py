"""The TVM release a project declares it needs, as ruff reads `requires-python`.

A project that sets no `target-version` still says which TVM it runs on: an
`apache-tvm` (or `tlcpack`) requirement in its pyproject.toml (`[project]`
dependencies and optional dependencies) or in a requirements file beside it. That
decides the target before whatever TVM happens to be installed where tvmlint runs
(pre-commit's environment has none), so a check gives the same answer everywhere.
The lowest release the requirement admits is taken (`>=0.18,<0.20` is 0.18), as ruff
takes the lowest Python `requires-python` admits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Optional, Tuple

from tvmlint.base.versions import Version, format_version, release_of_package

# distributions whose version is TVM's own release number (mlc-ai's wheels number otherwise)
TVM_DISTRIBUTIONS = ("apache-tvm", "tlcpack", "tlcpack-nightly", "tlcpack-nightly-cu")
_REQUIREMENTS = re.compile(r"^requirements([-_.][\w.-]*)?\.txt$")
MAX_DECLARATION_BYTES = 1 << 20


@dataclass(frozen=True)
class Declared:
    release: Version  # the lowest release the requirement admits
    text: str  # the requirement as written
    where: str  # the file it is in

    def describe(self) -> str:
        return f"{self.text} in {self.where}"


def declared_release(directory: Path) -> Optional[Declared]:
    """The TVM release the project in `directory` declares (its pyproject.toml first, then
    its requirements files in name order), or None."""
    pyproject = directory / "pyproject.toml"
    for requirement in _pyproject_requirements(pyproject):
        found = _release_of(requirement, pyproject)
        if found is not None:
            return found
    try:
        names = sorted(name for name in (p.name for p in directory.iterdir()) if _REQUIREMENTS.match(name))
    except OSError:
        return None
    for name in names:
        path = directory / name
        for requirement in _requirement_lines(path):
            found = _release_of(requirement, path)
            if found is not None:
                return found
    return None


def _release_of(text: str, path: Path) -> Optional[Declared]:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    name = requirement.name.lower().replace("_", "-")
    if not any(name == known or name.startswith(known + "-") for known in TVM_DISTRIBUTIONS):
        return None
    lowest: Optional[Version] = None
    for spec in requirement.specifier:
        if spec.operator in ("==", "===", "~=", ">="):
            release = release_of_package(spec.version.rstrip(".*"))
            if release is not None and (lowest is None or release < lowest):
                lowest = release
    if lowest is None:
        return None
    return Declared(lowest, text.strip(), path.name)


def _pyproject_requirements(path: Path) -> List[str]:
    from tvmlint.knowledge.tables import toml

    data = _read(path)
    if data is None:
        return []
    try:
        table = toml().loads(data)
    except (ValueError, RecursionError):
        return []  # its own errors are reported where its [tool.tvmlint] is read
    project = table.get("project")
    if not isinstance(project, dict):
        return []
    out = [item for item in _strings(project.get("dependencies"))]
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        for listed in optional.values():
            out.extend(_strings(listed))
    return out


def _requirement_lines(path: Path) -> Iterable[str]:
    data = _read(path)
    for line in (data or "").splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith(("#", "-")):
            yield line


def _strings(value: object) -> List[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _read(path: Path) -> Optional[str]:
    from tvmlint.base.source import read_file

    try:
        return read_file(path, MAX_DECLARATION_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


def unknown_release_note(declared: Declared, known: Tuple[str, ...]) -> str:
    return (f"{declared.describe()} names TVM {format_version(declared.release)}, which tvmlint does not know "
            f"({known[0]} to {known[-1]})")
