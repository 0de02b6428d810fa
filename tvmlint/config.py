"""Settings: `[tool.tvmlint]` of the nearest pyproject.toml above each file, then CLI flags."""

from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

from tvmlint.catalog import load_catalog
from tvmlint.discovery import is_regular_file, resolve
from tvmlint.knowledge import known_releases, newest_release, rules_dir
from tvmlint.tables import toml
from tvmlint.versions import Version, format_version, parse_version


class ConfigError(Exception):
    """A configuration mistake; the message names the file and the key."""


# key -> expected type, for error messages and validation
KEYS: Dict[str, str] = {
    "target-version": "a TVM release string such as \"0.18\"",
    "select": "a list of rule codes or prefixes",
    "ignore": "a list of rule codes or prefixes",
    "extend-select": "a list of rule codes or prefixes",
    "per-file-ignores": "a table of glob -> list of rule codes",
    "exclude": "a list of glob patterns",
    "extend-exclude": "a list of glob patterns",
    "cache-dir": "a directory for the result cache, relative to this file (default .tvmlint_cache)",
}


@dataclass(frozen=True)
class Overrides:
    """What the command line says; it wins over every pyproject.toml."""

    target_version: Optional[str] = None
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    config: Optional[Path] = None


@dataclass(frozen=True)
class Settings:
    root: Path
    config_file: Optional[Path]
    target_version: Version
    target_source: str
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    exclude: Tuple[str, ...] = ()
    cache_dir: Optional[Path] = None  # from `cache-dir`; None: .tvmlint_cache beside the config

    @property
    def target_text(self) -> str:
        return format_version(self.target_version)

    def enabled_codes(self) -> FrozenSet[str]:
        return _enabled_codes(self.select, self.extend_select, self.ignore, str(rules_dir()))

    def codes_for(self, path: Path) -> FrozenSet[str]:
        # one shared frozenset per distinct selection, not one per file: a run keeps every file's
        # codes until its end, and 20,000 copies cost megabytes
        codes = self.enabled_codes()
        if not self.per_file_ignores:
            return codes  # resolving the path costs more than the rest of a cached file
        relative = _relative_posix(Path(path), self.root)
        for pattern, ignored in self.per_file_ignores:
            if _matches(relative, pattern):
                codes = _without(codes, ignored, str(rules_dir()))
        return codes

    def is_excluded(self, path: Path) -> bool:
        if not self.exclude:
            return False
        relative = _relative_posix(Path(path), self.root)
        return any(_matches(relative, pattern) for pattern in self.exclude)

    def fingerprint(self) -> str:
        return repr((self.target_text, sorted(self.enabled_codes()), self.per_file_ignores))


@functools.lru_cache(maxsize=None)
def _enabled_codes(select, extend_select, ignore, rules: str) -> FrozenSet[str]:
    catalog = load_catalog()
    if select is None:
        codes = {code for code, info in catalog.items() if info.default}
    else:
        codes = _expand(select, catalog)
    codes |= _expand(extend_select, catalog)
    codes -= _expand(ignore, catalog)
    return frozenset(codes)


@functools.lru_cache(maxsize=None)
def _without(codes: FrozenSet[str], ignored: Tuple[str, ...], rules: str) -> FrozenSet[str]:
    return codes - _expand(ignored, load_catalog())


def _relative_posix(path: Path, root: Path) -> str:
    try:
        return PurePosixPath(resolve(path).relative_to(resolve(root))).as_posix()
    except ValueError:
        return PurePosixPath(path).as_posix()


def _matches(relative: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, pattern + "/*"):
        return True
    # a bare name matches that file or directory anywhere, as in ruff
    return "/" not in pattern and any(fnmatch.fnmatch(part, pattern) for part in relative.split("/"))


def _expand(selectors: Iterable[str], catalog) -> set:
    codes = set()
    for selector in selectors:
        selector = selector.strip().upper()
        if selector == "ALL":
            codes.update(catalog)
        else:
            codes.update(code for code in catalog if code.startswith(selector))
    return codes


def validate_selectors(selectors: Iterable[str], where: str) -> Tuple[str, ...]:
    catalog = load_catalog()
    out = []
    for selector in selectors:
        if not isinstance(selector, str):
            raise ConfigError(f"{where}: expected rule codes as strings, got {selector!r}")
        text = selector.strip().upper()
        if text != "ALL" and not any(code.startswith(text) for code in catalog):
            raise ConfigError(f"{where}: unknown rule code {selector!r} (see `tvmlint rules`)")
        out.append(text)
    return tuple(out)


def validate_version(text: object, where: str) -> Version:
    if not isinstance(text, str):
        raise ConfigError(f"{where}: expected a TVM release string such as \"0.18\", got {text!r}")
    try:
        version = parse_version(text)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from None
    known = known_releases()
    if known and format_version(version) not in known:
        raise ConfigError(
            f"{where}: TVM {text} is not a release tvmlint knows ({known[0]} to {known[-1]})"
        )
    return version


def installed_tvm_version() -> Optional[str]:
    """The installed apache-tvm's version from package metadata: TVM is not imported."""
    from importlib import metadata  # only when no target-version is given: it costs a tenth of a run

    for distribution in ("apache-tvm", "tlcpack", "tlcpack-nightly", "mlc-ai-nightly"):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return None


def _unless_overridden(overrides: "Overrides") -> Tuple[Version, str]:
    # --target-version replaces the default anyway (apply_overrides): skip reading package metadata
    if overrides.target_version is not None:
        return newest_release(), "--target-version"
    return default_target()


def default_target() -> Tuple[Version, str]:
    installed = installed_tvm_version()
    newest = newest_release()
    if installed:
        try:
            version = parse_version(installed)
        except ValueError:
            version = None
        if version is not None and format_version(version) in known_releases():
            return version, f"the installed apache-tvm {installed}"
    return newest, f"the newest release tvmlint knows ({format_version(newest)})"


def read_tool_table(path: Path) -> Optional[dict]:
    tomllib = toml()
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:  # TOML is UTF-8; tomllib lets the decoding error through
        raise ConfigError(f"{path}: not valid TOML: not UTF-8 ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict) or "tvmlint" not in tool:
        return None
    table = tool["tvmlint"]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.tvmlint] must be a table")
    return table


def settings_from_table(table: dict, path: Path, overrides: Overrides) -> Settings:
    where = f"{path} [tool.tvmlint]"
    for key in table:
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(KEYS))})")

    def string_list(key: str) -> Tuple[str, ...]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{where}: {key!r} must be {KEYS[key]}, got {value!r}")
        return tuple(value)

    if "target-version" in table:
        version = validate_version(table["target-version"], f"{where} target-version")
        source = f"target-version in {path}"
    else:
        version, source = _unless_overridden(overrides)
    select = validate_selectors(string_list("select"), f"{where} select") if "select" in table else None
    ignore = validate_selectors(string_list("ignore"), f"{where} ignore")
    extend = validate_selectors(string_list("extend-select"), f"{where} extend-select")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: 'per-file-ignores' must be {KEYS['per-file-ignores']}")
    per_file_ignores = []
    for pattern, codes in per_file.items():
        if not isinstance(codes, list):
            raise ConfigError(f"{where}: per-file-ignores {pattern!r} must be a list of rule codes")
        per_file_ignores.append((pattern, validate_selectors(codes, f"{where} per-file-ignores {pattern!r}")))
    settings = Settings(
        root=path.parent,
        config_file=path,
        target_version=version,
        target_source=source,
        select=select,
        ignore=ignore,
        extend_select=extend,
        per_file_ignores=tuple(per_file_ignores),
        exclude=string_list("exclude") + string_list("extend-exclude"),
        cache_dir=_cache_dir(table, path, where),
    )
    return apply_overrides(settings, overrides)


def _cache_dir(table: dict, path: Path, where: str) -> Optional[Path]:
    if "cache-dir" not in table:
        return None
    value = table["cache-dir"]
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: 'cache-dir' must be {KEYS['cache-dir']}, got {value!r}")
    return path.parent / Path(value).expanduser()


def apply_overrides(settings: Settings, overrides: Overrides) -> Settings:
    changes = {}
    if overrides.target_version is not None:
        changes["target_version"] = validate_version(overrides.target_version, "--target-version")
        changes["target_source"] = "--target-version"
    if overrides.select is not None:
        changes["select"] = validate_selectors(overrides.select, "--select")
    if overrides.ignore:
        changes["ignore"] = settings.ignore + validate_selectors(overrides.ignore, "--ignore")
    if overrides.extend_select:
        changes["extend_select"] = settings.extend_select + validate_selectors(overrides.extend_select, "--extend-select")
    return replace(settings, **changes) if changes else settings


class SettingsResolver:
    """Finds the settings for each file; one lookup per directory."""

    def __init__(self, overrides: Overrides = Overrides(), cwd: Optional[Path] = None):
        self.overrides = overrides
        self.cwd = (cwd or Path.cwd()).resolve()
        self._by_dir: Dict[Path, Settings] = {}
        self._resolved: Dict[str, Path] = {}
        self._by_head: Dict[str, Settings] = {}
        self._default: Optional[Settings] = None
        self._fixed: Optional[Settings] = None
        # a bad flag is an error even when no file is checked; the default target itself waits
        # until a file has no configuration (reading the installed TVM's metadata costs 20 ms)
        apply_overrides(Settings(self.cwd, None, newest_release(), ""), overrides)
        if overrides.config is not None:
            path = overrides.config
            if not path.is_file():
                raise ConfigError(f"--config {path}: {'not a regular file' if path.exists() else 'no such file'}")
            table = read_tool_table(path)
            self._fixed = settings_from_table(table or {}, path.resolve(), overrides)

    def default(self) -> Settings:
        if self._default is None:
            version, source = _unless_overridden(self.overrides)
            self._default = apply_overrides(Settings(self.cwd, None, version, source), self.overrides)
        return self._default

    def resolve(self, path) -> Path:
        """`resolve(path)` with one realpath per directory: a name that is not a symlink
        resolves to its resolved directory plus the name. A run asks for every file."""
        text = os.fspath(path)
        head, name = os.path.split(text)
        if not name or name in (".", "..") or os.path.islink(text):
            return resolve(Path(text))
        parent = self._resolved.get(head)
        if parent is None:
            parent = self._resolved[head] = resolve(Path(head or "."))
        return parent / name

    def for_path(self, path) -> Settings:
        if self._fixed is not None:
            return self._fixed
        # a regular file (not a link, not a directory) has the settings of its directory's
        # other files: one lstat instead of resolving every file of a run
        text = os.fspath(path)
        head = os.path.dirname(text)
        regular = is_regular_file(text)
        if regular:
            known = self._by_head.get(head)
            if known is not None:
                return known
        directory = self.resolve(text)
        if not os.path.isdir(directory):  # os.path: False, not OSError, for a name too long
            directory = directory.parent
        elif not regular:  # a directory of the walk: its files and directories resolve from it
            self._resolved.setdefault(text, directory)
        settings = self._for_dir(directory)
        if regular:
            self._by_head[head] = settings
        return settings

    def _for_dir(self, directory: Path) -> Settings:
        # up the tree in a loop, not by recursion: a file thousands of directories deep is possible
        unknown: List[Path] = []
        settings = self._by_dir.get(directory)
        while settings is None:
            unknown.append(directory)
            candidate = directory / "pyproject.toml"
            table = read_tool_table(candidate) if os.path.isfile(candidate) else None
            if table is not None:
                settings = settings_from_table(table, candidate, self.overrides)
            elif directory.parent == directory:
                settings = self.default()
            else:
                directory = directory.parent
                settings = self._by_dir.get(directory)
        for below in unknown:  # each directory passed on the way has the settings found above it
            self._by_dir[below] = settings
        return settings
