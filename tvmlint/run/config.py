"""Settings: `[tool.tvmlint]` of the nearest pyproject.toml above each file, then CLI flags."""

from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from tvmlint.base.formats import FORMATS
from tvmlint.base.versions import (
    Version,
    format_version,
    parse_version,
    release_of_package,
)
from tvmlint.knowledge.catalog import load_catalog
from tvmlint.knowledge.location import rules_dir
from tvmlint.knowledge.releases import known_releases, newest_release
from tvmlint.knowledge.tables import toml
from tvmlint.run.discovery import is_regular_file, resolve
from tvmlint.run.selection import Layer, enabled_codes, expand


class ConfigError(Exception):
    """A configuration mistake; the message names the file and the key."""


# key -> expected type, for error messages and validation
KEYS: Dict[str, str] = {
    "target-version": "a TVM release string such as \"0.18\"",
    "select": "a list of rule codes or prefixes",
    "ignore": "a list of rule codes or prefixes",
    "extend-select": "a list of rule codes or prefixes",
    "extend-ignore": "a list of rule codes or prefixes",
    "per-file-ignores": "a table of glob -> list of rule codes",
    "fixable": "a list of rule codes or prefixes",
    "unfixable": "a list of rule codes or prefixes",
    "exclude": "a list of glob patterns",
    "extend-exclude": "a list of glob patterns",
    "force-exclude": "true or false",
    "respect-gitignore": "true or false",
    "cache-dir": "a directory for the result cache, relative to this file (default .tvmlint_cache)",
    "max-file-size": "a size in megabytes (a number; 0: no limit)",
    "max-analysis-time": "a time in seconds (a number; 0: no limit)",
    "output-format": "the report's format when --format is not given: " + ", ".join(f'"{name}"' for name in FORMATS),
}

# Files larger than this many megabytes are not parsed: one finding of TVM001 says so. The stdlib
# parser alone takes about 150 MB of memory per MB of source, and a file small enough to be
# analysed (under guards.MAX_NODES) peaks near 900 MB: at 5 MB the largest run stays under 1 GB
# (benchmarks/large_files.py prints the figures).
DEFAULT_MAX_FILE_SIZE = 5.0
# A file whose analysis runs longer than this many seconds is stopped: one TVM001 says so, and
# check exits 2. The largest file the other guards let through (under guards.MAX_NODES, about
# 1 MB) took up to 26 s on a loaded 2-core machine (benchmarks/large_files.py): twice that is
# room for a slower machine, and still ends a hang well within a CI job.
DEFAULT_MAX_ANALYSIS_TIME = 60.0


# What `exclude` replaces and `extend-exclude` adds to, as in ruff: directories that hold no
# code of the user's own (VCS data, environments, builds, caches). A bare name matches a file or
# directory of that name anywhere; a pattern with a `/` matches a path below the settings' root.
DEFAULT_EXCLUDE: Tuple[str, ...] = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".tvmlint", ".tvmlint_cache", ".venv",
    ".vscode", "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv", "*.egg-info",
)


@dataclass(frozen=True)
class Overrides:
    """What the command line says; it wins over every pyproject.toml."""

    target_version: Optional[str] = None
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    config: Optional[Path] = None
    extend_ignore: Tuple[str, ...] = ()
    fixable: Optional[Tuple[str, ...]] = None
    unfixable: Tuple[str, ...] = ()
    extend_fixable: Tuple[str, ...] = ()
    # `--per-file-ignores` replaces the files' tables, `--extend-per-file-ignores` adds to them;
    # "pattern:CODE,CODE" with the pattern relative to `cwd`
    per_file_ignores: Optional[Tuple[str, ...]] = None
    extend_per_file_ignores: Tuple[str, ...] = ()
    force_exclude: Optional[bool] = None
    respect_gitignore: Optional[bool] = None
    max_file_size: Optional[float] = None  # megabytes; 0: no limit
    max_analysis_time: Optional[float] = None  # seconds; 0: no limit
    # `--exclude` replaces `exclude`, `--extend-exclude` adds to `extend-exclude`; a pattern with
    # a `/` is relative to `cwd` (as in ruff), a bare name matches anywhere
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    cwd: Optional[Path] = None
    # `--no-prefilter`: every file through the analysis with every selected rule, for the whole
    # run (tvmlint.run.runner.RunTask.prefilter); no file's settings change
    prefilter: bool = True


class ExcludeMatcher:
    """`exclude` and `extend-exclude` of one settings object, as walking and every other way
    a file arrives (named on the command line, --stdin-filename, the editor) ask them."""

    def __init__(self, root: Path, patterns: Sequence[str]):
        self.root = root
        self.names = frozenset(p.rstrip("/") for p in patterns if "/" not in p.rstrip("/") and not _is_glob(p))
        self.name_globs = tuple(p.rstrip("/") for p in patterns if "/" not in p.rstrip("/") and _is_glob(p))
        self.path_globs = tuple(p for p in patterns if "/" in p.rstrip("/"))

    def name_matches(self, name: str) -> bool:
        return name in self.names or any(fnmatch.fnmatch(name, glob) for glob in self.name_globs)

    def matches(self, path, walked: bool = False) -> bool:
        """Whether `path` (or, unless `walked`, any directory above it up to the root) is excluded.
        `walked`: the walk reached it, so the directories above it were asked already."""
        if walked:
            if self.name_matches(os.path.basename(os.fspath(path))):
                return True
            if not self.path_globs:
                return False
        relative = _relative_posix(Path(path), self.root)
        if not walked and any(self.name_matches(part) for part in relative.split("/") if part not in ("", ".", "..")):
            return True
        return any(_matches(relative, pattern) for pattern in self.path_globs)


def _patterns_from(patterns: Sequence[str], cwd: Path, root: Path) -> Tuple[str, ...]:
    """Exclude patterns given on the command line, where one with a `/` is relative to the working
    directory, as patterns of a settings object whose patterns are relative to `root`."""
    out = []
    for pattern in patterns:
        if "/" not in pattern.rstrip("/"):
            out.append(pattern)
            continue
        rebased = os.path.relpath(os.path.join(os.path.abspath(cwd), pattern), os.path.abspath(root))
        out.append(Path(rebased).as_posix() + ("/" if pattern.endswith("/") else ""))
    return tuple(out)


def _is_glob(pattern: str) -> bool:
    return any(char in pattern for char in "*?[")


@dataclass(frozen=True)
class Settings:
    root: Path
    config_file: Optional[Path]
    target_version: Version
    target_source: str
    # the configuration's own selection (tvmlint.run.selection resolves it)
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    # the command line's `--select`, `--extend-select`, `--ignore` with `--extend-ignore`, a
    # layer of its own above the configuration's, as in ruff: a `--select` starts over
    command_line: Optional[Layer] = None
    # (pattern, codes, base): base is the directory the pattern is relative to ("" for `root`)
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...], str], ...] = ()
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDE
    cache_dir: Optional[Path] = None  # from `cache-dir`; None: .tvmlint_cache beside the config
    extend_exclude: Tuple[str, ...] = ()
    force_exclude: bool = False
    respect_gitignore: bool = True
    fixable: Optional[Tuple[str, ...]] = None  # None: every rule's fixes
    unfixable: Tuple[str, ...] = ()
    max_file_size: float = DEFAULT_MAX_FILE_SIZE  # megabytes; 0: no limit
    max_analysis_time: float = DEFAULT_MAX_ANALYSIS_TIME  # seconds per file; 0: no limit
    output_format: Optional[str] = None  # `output-format`: check's format when --format is not given
    # where each setting came from (`--show-settings`): key -> a pyproject.toml, a flag; unlisted: default
    origins: Tuple[Tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def target_text(self) -> str:
        return format_version(self.target_version)

    def origin(self, key: str) -> str:
        return dict(self.origins).get(key, "default")

    def enabled_codes(self) -> FrozenSet[str]:
        layers = ((self.select, self.extend_select, self.ignore),)
        if self.command_line is not None:
            layers += (self.command_line,)
        return enabled_codes(layers, str(rules_dir()))

    def codes_for(self, path: Path) -> FrozenSet[str]:
        # one shared frozenset per distinct selection, not one per file: a run keeps every file's
        # codes until its end, and 20,000 copies cost megabytes
        codes = self.enabled_codes()
        if not self.per_file_ignores:
            return codes  # resolving the path costs more than the rest of a cached file
        relative = _relative_posix(Path(path), self.root)
        for pattern, ignored, base in self.per_file_ignores:
            if _matches(_relative_posix(Path(path), Path(base)) if base else relative, pattern):
                codes = _without(codes, ignored, str(rules_dir()))
        return codes

    @property
    def excluder(self) -> ExcludeMatcher:
        matcher = self.__dict__.get("_excluder")
        if matcher is None:
            matcher = ExcludeMatcher(self.root, self.exclude + self.extend_exclude)
            object.__setattr__(self, "_excluder", matcher)
        return matcher

    def is_excluded(self, path: Path, walked: bool = False) -> bool:
        """Whether `exclude`/`extend-exclude` name the file or a directory above it (up to the
        settings' root). The one matcher of the walk, named files with `force-exclude`,
        `--stdin-filename` and the language server."""
        return self.excluder.matches(path, walked)

    def skips_named(self, path: Path) -> bool:
        """A file or directory named on the command line (or with --stdin-filename) is left out:
        with `force-exclude`, when excluded."""
        return self.force_exclude and self.is_excluded(path)

    def is_fixable(self, code: str) -> bool:
        return code in _fixable_codes(self.fixable, self.unfixable, str(rules_dir()))

    @property
    def max_file_bytes(self) -> Optional[int]:
        """`max-file-size` in bytes; None: no limit."""
        return int(self.max_file_size * 1024 * 1024) if self.max_file_size > 0 else None

    @property
    def analysis_seconds(self) -> Optional[float]:
        """`max-analysis-time`; None: no limit. (Not in the fingerprint: an analysis that ends
        does not depend on it, and one that does not end is never cached.)"""
        return self.max_analysis_time if self.max_analysis_time > 0 else None

    def fingerprint(self) -> str:
        return repr((self.target_text, sorted(self.enabled_codes()), self.per_file_ignores, self.max_file_size))


@functools.lru_cache(maxsize=None)
def _fixable_codes(fixable, unfixable, rules: str) -> FrozenSet[str]:
    catalog = load_catalog()
    codes = set(catalog) if fixable is None else expand(fixable, catalog)
    return frozenset(codes - expand(unfixable, catalog))


@functools.lru_cache(maxsize=None)
def _without(codes: FrozenSet[str], ignored: Tuple[str, ...], rules: str) -> FrozenSet[str]:
    return codes - expand(ignored, load_catalog())


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
    from importlib import (
        metadata,  # only when no target-version is given: it costs a tenth of a run
    )

    for distribution in ("apache-tvm", "tlcpack", "tlcpack-nightly", "mlc-ai-nightly"):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return None


def _unless_overridden(overrides: "Overrides", project: Optional[Path] = None) -> Tuple[Version, str]:
    # --target-version replaces the default anyway (apply_overrides): skip reading package metadata
    if overrides.target_version is not None:
        return newest_release(), "--target-version"
    return default_target(project)


# how a target-version that nothing set was guessed: `target_source` starts with it, and a run
# says so once (tvmlint.frontends.commands.reporting.note_guessed_target)
GUESSED = "guessed: "


def default_target(project: Optional[Path] = None) -> Tuple[Version, str]:
    """The target of a project that sets none: the TVM its pyproject.toml or requirements
    files declare, else the installed one, else the newest release tvmlint knows. A release
    tvmlint does not know is never taken for another one without saying so."""
    from tvmlint.run.declared_target import declared_release, unknown_release_note

    known = known_releases()
    newest = newest_release()
    unknown = None
    declared = declared_release(project) if project is not None else None
    if declared is not None:
        if format_version(declared.release) in known:
            return declared.release, f"declared: {declared.describe()}"
        unknown = unknown_release_note(declared, known)
    installed = installed_tvm_version()
    if installed and unknown is None:
        version = release_of_package(installed)
        if version is not None and format_version(version) in known:
            return version, f"{GUESSED}the installed apache-tvm {installed} (the project declares no TVM)"
        unknown = f"the installed apache-tvm {installed} is a release tvmlint does not know ({known[0]} to {known[-1]})"
    why = unknown or "the project declares no TVM and none is installed"
    return newest, f"{GUESSED}the newest release tvmlint knows, {format_version(newest)} ({why})"


MAX_CONFIG_BYTES = 8 << 20  # a configuration file larger than this is no configuration


def read_tool_table(path: Path) -> Optional[dict]:
    tomllib = toml()
    from tvmlint.base.source import TooLarge, read_file

    try:
        # a regular file, and a bounded one: a FIFO or /dev/zero named as the config is refused
        data = tomllib.loads(read_file(path, MAX_CONFIG_BYTES).decode("utf-8"))
    except TooLarge:
        raise ConfigError(f"{path}: cannot read: larger than {MAX_CONFIG_BYTES >> 20} MB") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply to read") from None
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

    def flag(key: str, default: bool) -> bool:
        value = table.get(key, default)
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {key!r} must be {KEYS[key]}, got {value!r}")
        return value

    def codes(key: str) -> Tuple[str, ...]:
        return validate_selectors(string_list(key), f"{where} {key}")

    origins = {key: str(path) for key in table}
    if "target-version" in table:
        version = validate_version(table["target-version"], f"{where} target-version")
        source = f"target-version in {path}"
    else:
        version, source = _unless_overridden(overrides, path.parent)
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: 'per-file-ignores' must be {KEYS['per-file-ignores']}")
    per_file_ignores = []
    for pattern, listed in per_file.items():
        if not isinstance(listed, list):
            raise ConfigError(f"{where}: per-file-ignores {pattern!r} must be a list of rule codes")
        per_file_ignores.append((pattern, validate_selectors(listed, f"{where} per-file-ignores {pattern!r}"), ""))
    settings = Settings(
        root=path.parent,
        config_file=path,
        target_version=version,
        target_source=source,
        select=codes("select") if "select" in table else None,
        # ruff's extend-ignore: more codes to leave out (there is no inherited `ignore` to keep apart from)
        ignore=codes("ignore") + codes("extend-ignore"),
        extend_select=codes("extend-select"),
        per_file_ignores=tuple(per_file_ignores),
        exclude=string_list("exclude") if "exclude" in table else DEFAULT_EXCLUDE,
        extend_exclude=string_list("extend-exclude"),
        force_exclude=flag("force-exclude", False),
        respect_gitignore=flag("respect-gitignore", True),
        fixable=codes("fixable") if "fixable" in table else None,
        unfixable=codes("unfixable"),
        cache_dir=_cache_dir(table, path, where),
        max_file_size=validate_max_file_size(table.get("max-file-size", DEFAULT_MAX_FILE_SIZE), f"{where} max-file-size"),
        max_analysis_time=validate_limit(table.get("max-analysis-time", DEFAULT_MAX_ANALYSIS_TIME), "max-analysis-time",
                                         f"{where} max-analysis-time"),
        output_format=_output_format(table, where),
        origins=tuple(sorted(origins.items())),
    )
    return apply_overrides(settings, overrides)


def _output_format(table: dict, where: str) -> Optional[str]:
    if "output-format" not in table:
        return None
    value = table["output-format"]
    if value not in FORMATS:
        raise ConfigError(f"{where}: 'output-format' must be {KEYS['output-format']}, got {value!r}")
    return value


def _cache_dir(table: dict, path: Path, where: str) -> Optional[Path]:
    if "cache-dir" not in table:
        return None
    value = table["cache-dir"]
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: 'cache-dir' must be {KEYS['cache-dir']}, got {value!r}")
    return path.parent / Path(value).expanduser()


def validate_max_file_size(value: object, where: str) -> float:
    return validate_limit(value, "max-file-size", where)


def validate_limit(value: object, key: str, where: str) -> float:
    """A limit's value (`max-file-size`, `max-analysis-time`): a finite number, 0 or more."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0 or value == float("inf"):
        raise ConfigError(f"{where}: expected {KEYS[key]}, got {value!r}")
    return float(value)


def parse_per_file_ignores(entries: Iterable[str], flag: str, cwd: Path) -> Tuple[Tuple[str, Tuple[str, ...], str], ...]:
    """`--per-file-ignores "tests/*:TVM401,TVM101"`: the pattern is relative to the working directory."""
    out = []
    for entry in entries:
        pattern, colon, listed = entry.rpartition(":")
        if not colon or not pattern or not listed.strip():
            raise ConfigError(f"{flag} {entry!r}: expected PATTERN:CODES, such as \"tests/*:TVM401\"")
        selectors = [part.strip() for part in listed.split(",") if part.strip()]
        out.append((pattern, validate_selectors(selectors, f"{flag} {entry!r}"), str(cwd)))
    return tuple(out)


def apply_overrides(settings: Settings, overrides: Overrides) -> Settings:
    changes = {}
    origins = dict(settings.origins)
    if overrides.target_version is not None:
        changes["target_version"] = validate_version(overrides.target_version, "--target-version")
        changes["target_source"] = "--target-version"
        origins["target-version"] = "--target-version"
    if overrides.select is not None or overrides.extend_select or overrides.ignore or overrides.extend_ignore:
        changes["command_line"] = (
            validate_selectors(overrides.select, "--select") if overrides.select is not None else None,
            validate_selectors(overrides.extend_select, "--extend-select"),
            validate_selectors(overrides.ignore, "--ignore") + validate_selectors(overrides.extend_ignore, "--extend-ignore"),
        )
    if overrides.fixable is not None:
        changes["fixable"] = validate_selectors(overrides.fixable, "--fixable")
        origins["fixable"] = "--fixable"
    if overrides.extend_fixable:
        base = changes.get("fixable", settings.fixable)
        if base is not None:
            changes["fixable"] = base + validate_selectors(overrides.extend_fixable, "--extend-fixable")
        origins["fixable"] = " + ".join(([origins["fixable"]] if "fixable" in origins else []) + ["--extend-fixable"])
    if overrides.unfixable:
        changes["unfixable"] = settings.unfixable + validate_selectors(overrides.unfixable, "--unfixable")
        origins["unfixable"] = " + ".join(([origins["unfixable"]] if "unfixable" in origins else []) + ["--unfixable"])
    cwd = overrides.cwd or Path.cwd()
    if overrides.per_file_ignores is not None:
        changes["per_file_ignores"] = parse_per_file_ignores(overrides.per_file_ignores, "--per-file-ignores", cwd)
        origins["per-file-ignores"] = "--per-file-ignores"
    if overrides.extend_per_file_ignores:
        changes["per_file_ignores"] = changes.get("per_file_ignores", settings.per_file_ignores) + parse_per_file_ignores(
            overrides.extend_per_file_ignores, "--extend-per-file-ignores", cwd
        )
        origins["per-file-ignores"] = " + ".join(
            ([origins["per-file-ignores"]] if "per-file-ignores" in origins else []) + ["--extend-per-file-ignores"]
        )
    if overrides.force_exclude is not None:
        changes["force_exclude"] = overrides.force_exclude
        origins["force-exclude"] = "--force-exclude" if overrides.force_exclude else "--no-force-exclude"
    if overrides.respect_gitignore is not None:
        changes["respect_gitignore"] = overrides.respect_gitignore
        origins["respect-gitignore"] = "--respect-gitignore" if overrides.respect_gitignore else "--no-respect-gitignore"
    if overrides.max_file_size is not None:
        changes["max_file_size"] = validate_max_file_size(overrides.max_file_size, "--max-file-size")
        origins["max-file-size"] = "--max-file-size"
    if overrides.max_analysis_time is not None:
        changes["max_analysis_time"] = validate_limit(overrides.max_analysis_time, "max-analysis-time", "--max-analysis-time")
        origins["max-analysis-time"] = "--max-analysis-time"
    if overrides.exclude is not None:
        changes["exclude"] = _patterns_from(overrides.exclude, cwd, settings.root)
        origins["exclude"] = "--exclude"
    if overrides.extend_exclude:
        changes["extend_exclude"] = settings.extend_exclude + _patterns_from(overrides.extend_exclude, cwd, settings.root)
        origins["extend-exclude"] = " + ".join(
            ([origins["extend-exclude"]] if "extend-exclude" in origins else []) + ["--extend-exclude"]
        )
    if not changes:
        return settings
    return replace(settings, **changes, origins=tuple(sorted(origins.items())))


class SettingsResolver:
    """Finds the settings for each file; one lookup per directory."""

    def __init__(self, overrides: Overrides = Overrides(), cwd: Optional[Path] = None):
        self.overrides = overrides
        self.cwd = (cwd or Path.cwd()).resolve()
        self._by_dir: Dict[Path, Settings] = {}
        self._resolved: Dict[str, Path] = {}
        self._by_head: Dict[str, Settings] = {}
        self._defaults: Dict[Path, Settings] = {}
        self._fixed: Optional[Settings] = None
        # what kind each path is, looked at once a run: the walk, the settings, the gate and the
        # tasks all ask it of every file of a project (a run takes its files as they are when
        # it first looks, as it takes their content)
        self._regular: Dict[str, bool] = {}
        # a bad flag is an error even when no file is checked; the default target itself waits
        # until a file has no configuration (reading the installed TVM's metadata costs 20 ms)
        if overrides.cwd is None:
            self.overrides = overrides = replace(overrides, cwd=self.cwd)
        apply_overrides(Settings(self.cwd, None, newest_release(), ""), overrides)
        if overrides.config is not None:
            path = overrides.config
            if not path.is_file():
                raise ConfigError(f"--config {path}: {'not a regular file' if path.exists() else 'no such file'}")
            table = read_tool_table(path)
            if table is None:
                # tvmlint reads [tool.tvmlint] of a pyproject.toml-style file and nothing else: a file
                # without it given on purpose is a wrong path or a table misspelt, not "use defaults"
                raise ConfigError(f"--config {path}: has no [tool.tvmlint] table (tvmlint reads its settings "
                                  "from [tool.tvmlint] in a pyproject.toml-style file)")
            self._fixed = settings_from_table(table, path.resolve(), overrides)

    def default(self, project: Optional[Path] = None) -> Settings:
        """The settings of a file no [tool.tvmlint] applies to; `project`: the directory of the
        nearest pyproject.toml above it (or the working directory), whose declared TVM
        requirement decides the target."""
        project = project or self.cwd
        known = self._defaults.get(project)
        if known is None:
            version, source = _unless_overridden(self.overrides, project)
            known = self._defaults[project] = apply_overrides(Settings(self.cwd, None, version, source), self.overrides)
        return known

    def guessed_targets(self) -> List[Settings]:
        """The settings this resolver gave whose target-version nothing set or declared."""
        seen = {id(s): s for s in [*self._by_dir.values(), *self._defaults.values()] + ([self._fixed] if self._fixed else [])}
        return [s for s in seen.values() if s.target_source.startswith(GUESSED)]

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

    def is_regular_file(self, path: str) -> bool:
        """`tvmlint.run.discovery.is_regular_file`, asked of the file system once a run."""
        known = self._regular.get(path)
        if known is None:
            known = self._regular[path] = is_regular_file(path)
        return known

    def for_path(self, path) -> Settings:
        if self._fixed is not None:
            return self._fixed
        # a regular file (not a link, not a directory) has the settings of its directory's
        # other files: one lstat instead of resolving every file of a run
        text = os.fspath(path)
        head = os.path.dirname(text)
        regular = self.is_regular_file(text)
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

    def for_directory(self, directory) -> Settings:
        """The settings of the files directly in `directory` (the run's own, for `output-format`)."""
        if self._fixed is not None:
            return self._fixed
        return self._for_dir(self.resolve(directory))

    def _for_dir(self, directory: Path) -> Settings:
        # up the tree in a loop, not by recursion: a file thousands of directories deep is possible
        unknown: List[Path] = []
        project: Optional[Path] = None  # the nearest pyproject.toml's directory, [tool.tvmlint] or not
        settings = self._by_dir.get(directory)
        while settings is None:
            unknown.append(directory)
            candidate = directory / "pyproject.toml"
            present = os.path.isfile(candidate)
            table = read_tool_table(candidate) if present else None
            if present and project is None:
                project = directory
            if table is not None:
                settings = settings_from_table(table, candidate, self.overrides)
            elif directory.parent == directory:
                settings = self.default(project)
            else:
                directory = directory.parent
                settings = self._by_dir.get(directory)
                if settings is not None and project is not None and settings.config_file is None:
                    settings = self.default(project)  # this project's own declared TVM, not the one above's
        for below in unknown:  # each directory passed on the way has the settings found above it
            self._by_dir[below] = settings
        return settings


def describe_settings(settings: Settings, path: Path, project: Optional[str] = None) -> str:
    """`check --show-settings PATH`: the settings that apply to `path`, each with where it came from;
    `project`: where the callers of a file named alone are read from (tvmlint.run.project_scope)."""

    def codes(values) -> str:
        return "[" + ", ".join(f'"{value}"' for value in values) + "]"

    def line(key: str, value: str, origin: str) -> str:
        return f"{key} = {value}".ljust(48) + f"  # {origin}\n"

    origin = settings.origin
    out = [f"Settings for: {path}\n", f"Settings file: {settings.config_file or '(none: defaults and flags)'}\n",
           f"Project root: {settings.root}\n"]
    if project is not None:
        out.append(f"Callers read from: {project}\n")
    out.append("\n")
    out.append(line("target-version", f'"{settings.target_text}"', settings.target_source))
    out.append(line("select", codes(settings.select) if settings.select is not None else "(the default rules)", origin("select")))
    out.append(line("extend-select", codes(settings.extend_select), origin("extend-select")))
    ignore_origin = " + ".join(o for o in (origin("ignore"), origin("extend-ignore")) if o != "default") or "default"
    out.append(line("ignore (with extend-ignore)", codes(settings.ignore), ignore_origin))
    if settings.command_line is not None:
        select, extend_select, ignore = settings.command_line
        if select is not None:
            out.append(line("--select", codes(select), "command line: replaces the selection above, its ignores too"))
        if extend_select:
            out.append(line("--extend-select", codes(extend_select), "command line: added to the selection"))
        if ignore:
            out.append(line("--ignore (with --extend-ignore)", codes(ignore), "command line: left out of the selection"))
    table = ", ".join(f'"{pattern}" = {codes(listed)}' + (f" (from {base})" if base else "")
                      for pattern, listed, base in settings.per_file_ignores)
    out.append(line("per-file-ignores", "{" + table + "}", origin("per-file-ignores")))
    out.append(line("fixable", codes(settings.fixable) if settings.fixable is not None else '["ALL"]', origin("fixable")))
    out.append(line("unfixable", codes(settings.unfixable), origin("unfixable")))
    out.append(line("exclude", codes(settings.exclude), origin("exclude")))
    out.append(line("extend-exclude", codes(settings.extend_exclude), origin("extend-exclude")))
    out.append(line("force-exclude", str(settings.force_exclude).lower(), origin("force-exclude")))
    out.append(line("respect-gitignore", str(settings.respect_gitignore).lower(), origin("respect-gitignore")))
    out.append(line("max-file-size", f"{settings.max_file_size:g}" + (" (MB)" if settings.max_file_size else " (no limit)"),
                    origin("max-file-size")))
    out.append(line("max-analysis-time", f"{settings.max_analysis_time:g}" + (" (s)" if settings.max_analysis_time else " (no limit)"),
                    origin("max-analysis-time")))
    out.append(line("output-format", f'"{settings.output_format or "text"}"', origin("output-format")))
    out.append(line("cache-dir", f'"{settings.cache_dir}"' if settings.cache_dir else '".tvmlint_cache" beside the settings file',
                    origin("cache-dir")))
    out.append("\n")
    out.append(f"Rules checked in this file: {', '.join(sorted(settings.codes_for(path))) or '(none)'}\n")
    fixable = sorted(code for code in settings.codes_for(path) if settings.is_fixable(code))
    out.append(f"Rules whose fixes may be applied: {', '.join(fixable) or '(none)'}\n")
    excluded = settings.is_excluded(path)
    if excluded:
        why = "skipped when walking; " + ("skipped when named too (force-exclude)" if settings.force_exclude
                                          else "checked when named (force-exclude is off)")
    else:
        why = "no"
    out.append(f"Excluded: {why}\n")
    return "".join(out)
