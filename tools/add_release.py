"""Add a TVM release to rules/: regenerate every derived table for the releases up to it, and check the rest.

Usage: python tools/add_release.py VERSION [--mirror DIR] [--wheel-check] [--dry-run] [--rules DIR]

VERSION is "MAJOR.MINOR" (0.28): the newest release of rules/versions.toml, or one past it, which
is then added there. Each release is read from its tag in the apache/tvm clone (--mirror, by default
the bare clone `fetch github:apache/tvm` gives), or, for the one release that has no tag (0.27), from
the apache-tvm wheel installed beside this interpreter, read as text. In order:

1. rules/versions.toml: VERSION added to `releases` and made `newest` when it is new;
2. the derived tables, each by the generator its header names, given the release list:
   executors.toml, runners.toml (below its GENERATED marker), pipelines.toml (below its marker),
   pass_names.toml, numerics.toml (its [[te_keep_dtype]] rows);
3. checks that write nothing: config_keys.toml against the keys each tag registers
   (tools/config_keys_from_source.py), api_history.toml's coverage of what VERSION removed or
   deprecated (tools/api_history_from_source.py), and with --wheel-check `tvmlint registry --verify`
   when the installed apache-tvm is VERSION (passes.toml and config_keys.toml against it).

Every table is generated into a scratch copy of rules/ first; only then are the changed ones put
in place, each by an atomic rename (--dry-run stops before that). What changed is printed per
table: rows added and removed. Exit 0 when everything regenerated and every check agreed, 1 when a
check found a difference, 2 on an error (no mirror, no source for a release, a generator failing).
CONTRIBUTING.md ("Adding a TVM release") says what to read by hand afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import config_keys_from_source  # noqa: E402
import releases  # noqa: E402

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

TOOLS = Path(__file__).resolve().parent


class Failure(Exception):
    """A step that cannot go on: one line for the user."""


def _fail(message: str) -> int:
    print(f"add_release: error: {message}", file=sys.stderr)
    return 2


# ---------------------------------------------------------------------------------------------
# where each release is read


class Plan:
    def __init__(self, version: str, mirror: str, known: List[str]):
        self.version = version
        self.mirror = mirror
        self.new = version not in known
        self.releases = releases.releases(",".join(known + ([version] if self.new else [])))
        self.tags = releases.tags(mirror)
        self.wheel = releases.installed_tvm()
        self.wheel_version = releases.wheel_version(self.wheel) if self.wheel else None
        self.wheel_release = releases.release_of(self.wheel_version) if self.wheel_version else None

    def source_of(self, release: str) -> str:
        if release in self.tags:
            return self.tags[release]
        if release == self.wheel_release:
            return f"apache-tvm {self.wheel_version} ({self.wheel})"
        raise Failure(
            f"release {release} has no tag in {self.mirror}, and the installed apache-tvm is "
            f"{self.wheel_version or 'absent'}: install apache-tvm {release} beside this interpreter, or fetch a mirror that has the tag"
        )

    def describe(self) -> List[str]:
        untagged = [f"  {release}: {self.source_of(release)}" for release in self.releases if release not in self.tags]
        tagged = [r for r in self.releases if r in self.tags]
        lines = [f"releases: {self.releases[0]} .. {self.releases[-1]} ({len(self.releases)})"
                 + (f", {self.version} new" if self.new else "")]
        lines.append(f"  tags in {self.mirror}: {self.tags[tagged[0]]} .. {self.tags[tagged[-1]]} ({len(tagged)})")
        return lines + untagged


# ---------------------------------------------------------------------------------------------
# the steps that write a table


def add_to_versions(path: Path, version: str) -> None:
    """versions.toml with `version` appended to `releases` and made `newest`; no other byte changes."""
    text = path.read_text(encoding="utf-8")
    known = tomllib.loads(text)["releases"]
    listed = ", ".join(f'"{release}"' for release in known + [version])
    text, count = re.subn(r"(?m)^releases = \[[^\]]*\]$", f"releases = [{listed}]", text)
    text, count_newest = re.subn(r'(?m)^newest = "[^"]*"$', f'newest = "{version}"', text)
    if count != 1 or count_newest != 1:
        raise Failure(f"{path}: no one `releases = [...]` and `newest = \"...\"` line to change")
    path.write_text(text, encoding="utf-8")


def _run(script: str, *args: str, stdout: Optional[Path] = None) -> None:
    command = [sys.executable, str(TOOLS / script), *args]
    done = subprocess.run(command, cwd=releases.REPO, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise Failure(f"{script} failed (exit {done.returncode}): {last}")
    if stdout is not None:
        stdout.write_text(done.stdout, encoding="utf-8")


def generators(plan: Plan, work: Path) -> Dict[str, Callable[[], None]]:
    """table -> the step that regenerates it inside `work` (a copy of rules/)."""
    mirror, listed = plan.mirror, ",".join(plan.releases)
    wheel = [str(plan.wheel)] if plan.wheel else []
    # the slowest first: they run two at a time
    return {
        "runners.toml": lambda: _run("runners_from_source.py", mirror, "--write", str(work / "runners.toml"), "--releases", listed),
        "pass_names.toml": lambda: _run("pass_names_from_source.py", mirror, *wheel, "--releases", listed,
                                        stdout=work / "pass_names.toml"),
        "executors.toml": lambda: _run("executors_from_source.py", mirror, "--write", str(work / "executors.toml"), "--releases", listed),
        "pipelines.toml": lambda: _run("relax_pipeline_from_source.py", mirror, *(["--wheel", *wheel] if wheel else []),
                                       "--write", str(work / "pipelines.toml"), "--releases", listed),
        "numerics.toml": lambda: _run("dtype_keeping_ops_from_source.py", mirror, "--write", str(work / "numerics.toml"), "--releases", listed),
    }


# ---------------------------------------------------------------------------------------------
# what changed


def _rows(text: str) -> Counter:
    """Every row of every array of tables, as canonical JSON under its table's name."""
    out: Counter = Counter()

    def walk(value, name: str) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, f"{name}.{key}" if name else key)
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            for item in value:
                out[(name, json.dumps(item, sort_keys=True))] += 1

    walk(tomllib.loads(text), "")
    return out


def summary(old: str, new: str) -> str:
    if old == new:
        return "unchanged (byte-identical)"
    before, after = _rows(old), _rows(new)
    added, removed = after - before, before - after
    per_table = sorted({name for name, _ in added} | {name for name, _ in removed})
    if not per_table:
        old_values, new_values = tomllib.loads(old), tomllib.loads(new)
        keys = [k for k in {**old_values, **new_values} if old_values.get(k) != new_values.get(k)]
        return f"{', '.join(keys)} changed" if keys else "rows unchanged; comments or layout changed"
    parts = []
    for name in per_table:
        plus = sum(count for (table, _), count in added.items() if table == name)
        minus = sum(count for (table, _), count in removed.items() if table == name)
        parts.append(f"[[{name}]] +{plus} -{minus}")
    return ", ".join(parts) + " rows"


def install(work: Path, rules: Path, changed: List[str]) -> None:
    """Each changed table into rules/, by a rename beside it: a reader sees the old file or the new. A
    table that is a symlink stays one: its target is what is rewritten."""
    for name in changed:
        target = (rules / name).resolve()
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write((work / name).read_bytes())
            shutil.copymode(target, temporary)
            os.replace(temporary, target)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise


# ---------------------------------------------------------------------------------------------
# the checks that write nothing


def check_config_keys(plan: Plan, work: Path) -> List[str]:
    return config_keys_from_source.differences(plan.mirror, plan.releases, work / "config_keys.toml")


def check_api_history(plan: Plan, scratch: Path) -> str:
    """Candidates at VERSION (removed there, or first deprecated there) api_history.toml does not cover."""
    previous = plan.releases[plan.releases.index(plan.version) - 1]
    out = scratch / "api_candidates.json"
    args = [plan.mirror, "--releases", f"{previous},{plan.version}", "--out", str(out)]
    if plan.version not in plan.tags and plan.wheel:
        args += ["--wheel", str(plan.wheel)]
    _run("api_history_from_source.py", *args)
    found = json.loads(out.read_text(encoding="utf-8"))
    at = [c for c in found if (c["status"] == "removed" and c.get("removed") == plan.version)
          or c.get("deprecated") == plan.version]
    missing = [c for c in at if not c["covered"]]
    kept = Path(tempfile.gettempdir()) / f"api_candidates_{plan.version}.json"
    kept.write_text(json.dumps(missing, indent=1) + "\n", encoding="utf-8")
    return (f"{len(at)} removals/deprecations read between {previous} and {plan.version}, "
            f"{len(missing)} not covered by api_history.toml (listed in {kept})")


def registry_verify(plan: Plan) -> Optional[int]:
    """`tvmlint registry --verify` against the installed apache-tvm, when it is VERSION."""
    if plan.wheel_release != plan.version:
        print(f"registry --verify: skipped: the installed apache-tvm is {plan.wheel_version or 'absent'}, not {plan.version}")
        return None
    done = subprocess.run([sys.executable, "-m", "tvmlint", "registry", "--verify", "--no-registry-cache"],
                          cwd=releases.REPO, capture_output=True, text=True)
    lines = (done.stdout + done.stderr).strip().splitlines()
    print(f"registry --verify (apache-tvm {plan.wheel_version}): exit {done.returncode}")
    for line in lines[-20:]:
        print(f"  {line}")
    return done.returncode


# ---------------------------------------------------------------------------------------------


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", metavar="VERSION", help='the release, "MAJOR.MINOR" (e.g. 0.28)')
    parser.add_argument("--mirror", help=f"a clone of apache/tvm with its tags (default: {releases.MIRROR})")
    parser.add_argument("--wheel-check", action="store_true",
                        help="run `tvmlint registry --verify` (only when the installed apache-tvm is VERSION)")
    parser.add_argument("--dry-run", action="store_true", help="regenerate and report, change nothing in rules/")
    parser.add_argument("--rules", type=Path, default=releases.REPO / "rules", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        return _add(args)
    except Failure as error:
        return _fail(str(error))


def _regenerate(steps: Dict[str, Callable[[], None]]) -> None:
    """Every generator, two at a time: each is a child process reading the clone, and two keep a
    two-core machine busy while the slowest (runners, pass names) run."""
    def timed(name: str) -> str:
        started = time.monotonic()
        steps[name]()
        return f"{name}: regenerated in {time.monotonic() - started:.0f}s"

    with ThreadPoolExecutor(max_workers=2) as pool:
        for line in pool.map(timed, steps):
            print(line)


def _add(args: argparse.Namespace) -> int:
    if not re.fullmatch(r"\d+\.\d+", args.version):
        raise Failure(f"{args.version!r} is no release: write MAJOR.MINOR, e.g. 0.28")
    mirror = args.mirror or str(releases.MIRROR)
    probe = subprocess.run(["git", "--git-dir", mirror, "rev-parse", "--git-dir"], capture_output=True, text=True)
    if not Path(mirror).is_dir() or probe.returncode != 0:
        raise Failure(f"{mirror} is no git clone of apache/tvm (`fetch github:apache/tvm` gives one; or pass --mirror)")
    rules = args.rules
    known = releases.known(rules / "versions.toml")
    newest = known[-1]
    if releases.key(args.version) < releases.key(newest):
        raise Failure(f"{args.version} is older than the newest release {newest}: the tables would lose {newest}")
    plan = Plan(args.version, mirror, known)
    for line in plan.describe():
        print(line)
    failed = False
    with tempfile.TemporaryDirectory(prefix="add_release.") as scratch:
        work = Path(scratch) / "rules"
        shutil.copytree(rules, work)
        changed: List[str] = []
        if plan.new:
            add_to_versions(work / "versions.toml", args.version)
        _regenerate(generators(plan, work))
        print("what changed:")
        for name in ["versions.toml", *generators(plan, work)]:
            old, new = (rules / name).read_text(encoding="utf-8"), (work / name).read_text(encoding="utf-8")
            print(f"  rules/{name}: {summary(old, new)}")
            if old != new:
                changed.append(name)
        differences = check_config_keys(plan, work)
        print("config_keys.toml against TVM_REGISTER_PASS_CONFIG_OPTION at each tag: "
              + ("agrees" if not differences else f"{len(differences)} differences"))
        for line in differences:
            print(f"  {line}")
        failed |= bool(differences)
        print(f"api_history.toml: {check_api_history(plan, Path(scratch))}")
        if args.dry_run:
            print(f"dry run: rules/ unchanged ({len(changed)} tables would change)")
        elif changed:
            install(work, rules, changed)
            print(f"written: {', '.join('rules/' + name for name in changed)}")
        else:
            print("nothing to write: every table is as regenerated")
    if args.wheel_check:
        code = registry_verify(plan)
        failed |= code not in (None, 0)
    else:
        print("registry --verify: not run (--wheel-check runs it against the installed apache-tvm)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
