#!/usr/bin/env python3
"""The ecosystem check: tvmlint on pinned real trees, compared with judged verdicts.

    python ecosystem/run.py                      # every tree in ecosystem/trees.toml
    python ecosystem/run.py --tree tvm-v0.8.0    # one tree
    python ecosystem/run.py --unjudged out.toml  # also write stubs for findings without a verdict
    python ecosystem/run.py --recall             # recall on the labels of ecosystem/recall/

Each tree is a pinned revision of a public repository (apache/tvm at several
releases, mlc-llm). The script extracts that revision from a local clone or
mirror with `git archive` into a scratch folder (once; the folder is reused),
runs `tvmlint check --select ALL --format json --target-version <tree's release>`
on it, and compares every finding with ecosystem/verdicts.toml, where each finding
was judged true or false by reading the code and TVM's source at that release.

It prints, per tree and rule: findings, judged true, judged false, unjudged and
precision (true / judged); then the same per rule over all trees; then the
differences to the verdicts (findings without a verdict, verdicts whose finding is
gone). It exits 1 when a finding has no verdict or a default rule is under the
precision bar, so a change to what a finding is cannot land unjudged.

Mirrors: `--mirrors DIR` (or $TVMLINT_MIRRORS; default ~/.cache/tvmlint/mirrors) holds one
git directory per repository, as `DIR/<owner>+<name>/repo` (what the search
tool's `fetch` writes) or `DIR/<name>` (a plain clone). A missing one is named
with the command that brings it, and that tree is skipped.

It does not run in CI: the trees are hundreds of MB of history.

Recall (`--recall`, reading ecosystem/recall/*.toml): a labelled set of real mistakes in
public code that drives TVM, each a line of a pinned revision that one rule should
report at the release that code targets, and of correct uses (`[[silent]]`) on whose
line that rule must stay silent. Each (repository, revision) is extracted once,
all its Python files, into <scratch>/recall/; tvmlint runs on the whole of it, once per target
its labels name, as its user would run it; the script prints, per rule, labelled, found (a finding
of that code on that path and line), missed and recall, then every miss with its why.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
# the tvmlint checkout whose code runs on the trees (--root): this one, or another commit's
# worktree for a before/after comparison on the same labels and verdicts
TVMLINT_ROOT = [ROOT]

from tvmlint.knowledge.catalog import load_catalog  # noqa: E402
from tvmlint.knowledge.tables import load_toml  # noqa: E402

PRECISION_BAR = 0.95
RECALL_BAR = 0.90  # per family, on the labelled set: under it the family is unfinished (reported, not failed)
Key = Tuple[str, str, int, str]  # tree, path, line, code


@dataclass(frozen=True)
class Tree:
    name: str
    repo: str
    rev: str
    target: str
    paths: Tuple[str, ...]


@dataclass
class Tally:
    findings: int = 0
    true: int = 0
    false: int = 0

    @property
    def unjudged(self) -> int:
        return self.findings - self.true - self.false

    def precision(self) -> Optional[float]:
        judged = self.true + self.false
        return self.true / judged if judged else None


@dataclass
class Outcome:
    tree: Tree
    findings: List[dict] = field(default_factory=list)
    missing: Optional[str] = None


def load_trees(path: Path) -> List[Tree]:
    raw = load_toml(path)
    return [Tree(t["name"], t["repo"], t["rev"], t["target"], tuple(t["paths"])) for t in raw["tree"]]


def load_verdicts(path: Path) -> Dict[Key, dict]:
    """Every verdict in path: one TOML file, or a folder of them (one per rule, so judges of
    different rules never edit the same file)."""
    files = sorted(path.glob("*.toml")) if path.is_dir() else [path] if path.exists() else []
    verdicts: Dict[Key, dict] = {}
    for entry in (e for f in files for e in load_toml(f).get("verdict", [])):
        key = (entry["tree"], entry["path"], int(entry["line"]), entry["code"])
        if entry["verdict"] not in ("true", "false"):
            raise SystemExit(f"{path}: {key}: verdict must be \"true\" or \"false\", not {entry['verdict']!r}")
        if key in verdicts:
            raise SystemExit(f"{path}: {key} is judged twice")
        entry.setdefault("why", "")
        verdicts[key] = entry
    return verdicts


def find_mirror(mirrors: Path, repo: str) -> Optional[Path]:
    owner, name = repo.split("/")
    for candidate in (mirrors / f"{owner}+{name}" / "repo", mirrors / f"{owner}+{name}", mirrors / name):
        if candidate.is_dir() and _is_git(candidate):
            return candidate
    return None


def _is_git(path: Path) -> bool:
    done = subprocess.run(["git", "-C", str(path), "rev-parse", "--git-dir"], capture_output=True, text=True)
    return done.returncode == 0


def resolve(mirror: Path, rev: str) -> str:
    """The commit of rev, a tag before a branch of the same name (apache/tvm has both for v0.12.0)."""
    for ref in (f"refs/tags/{rev}^{{commit}}", f"{rev}^{{commit}}"):
        done = subprocess.run(["git", "-C", str(mirror), "rev-parse", "--verify", "-q", ref], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout.strip()
    raise SystemExit(f"{mirror} has no revision {rev}: fetch a newer mirror")


def extract(tree: Tree, mirror: Path, scratch: Path) -> Path:
    """The pinned revision's paths, unpacked once into scratch/<tree> (a marker says it is whole)."""
    into = scratch / tree.name
    marker = into / ".tvmlint-ecosystem-rev"
    commit = resolve(mirror, tree.rev)
    if marker.exists() and marker.read_text() == commit:
        return into
    if into.exists():
        subprocess.run(["rm", "-rf", str(into)], check=True)
    into.mkdir(parents=True)
    present = subprocess.run(
        ["git", "-C", str(mirror), "ls-tree", "--name-only", commit, *[p.rstrip("/") for p in tree.paths]],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    archive = subprocess.Popen(["git", "-C", str(mirror), "archive", commit, *present], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"git archive {tree.rev} failed in {mirror}")
    marker.write_text(commit)
    return into


def run_tvmlint(tree: Tree, root: Path, python: str, extra: Sequence[str]) -> List[dict]:
    paths = [p for p in tree.paths if (root / p).exists()]
    command = [python, "-m", "tvmlint", "check", "--select", "ALL", "--format", "json", "--exit-zero",
               "--target-version", tree.target, *extra, *paths]
    env = dict(os.environ, PYTHONPATH=str(TVMLINT_ROOT[0]) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, env=env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"tvmlint failed on {tree.name} (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout or "[]")


def key_of(tree: Tree, finding: dict) -> Key:
    return (tree.name, finding["path"], int(finding["line"]), finding["code"])


def tally(outcomes: Iterable[Outcome], verdicts: Dict[Key, dict]) -> Dict[Tuple[str, str], Tally]:
    table: Dict[Tuple[str, str], Tally] = defaultdict(Tally)
    for outcome in outcomes:
        for finding in outcome.findings:
            verdict = verdicts.get(key_of(outcome.tree, finding))
            for row in ((outcome.tree.name, finding["code"]), ("ALL", finding["code"])):
                table[row].findings += 1
                if verdict is not None:
                    setattr(table[row], verdict["verdict"], getattr(table[row], verdict["verdict"]) + 1)
    return table


def format_precision(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def print_table(table: Dict[Tuple[str, str], Tally], trees: Sequence[str], out) -> List[str]:
    """The per-tree and per-rule table; returns the default rules under the bar."""
    catalog = load_catalog()
    under: List[str] = []
    header = f"{'tree':<14} {'rule':<7} {'default':<7} {'findings':>8} {'true':>6} {'false':>6} {'unjudged':>8} {'precision':>9}"
    print(header, file=out)
    print("-" * len(header), file=out)
    for tree in [*trees, "ALL"]:
        rows = sorted(code for (name, code) in table if name == tree)
        for code in rows:
            cell = table[(tree, code)]
            default = "yes" if catalog.get(code) and catalog[code].default else "no"
            print(f"{tree:<14} {code:<7} {default:<7} {cell.findings:>8} {cell.true:>6} {cell.false:>6} "
                  f"{cell.unjudged:>8} {format_precision(cell.precision()):>9}", file=out)
            if tree == "ALL" and default == "yes":
                precision = cell.precision()
                if precision is not None and precision < PRECISION_BAR:
                    under.append(code)
        if rows:
            print("", file=out)
    return under


def write_unjudged(folder: Path, stubs: List[Tuple[Key, dict]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    by_code: Dict[str, List[Tuple[Key, dict]]] = defaultdict(list)
    for key, finding in stubs:
        by_code[key[3]].append((key, finding))
    for code, rows in by_code.items():
        write_stubs(folder / f"{code}.toml", rows)


def write_stubs(path: Path, stubs: List[Tuple[Key, dict]]) -> None:
    lines = ["# Findings without a verdict: judge each (verdict = \"true\" or \"false\", why = one line)",
             "# and move it into ecosystem/verdicts/<code>.toml.", ""]
    for (tree, rel, line, code), finding in stubs:
        lines += ["[[verdict]]", f"tree = {json.dumps(tree)}", f"path = {json.dumps(rel)}", f"line = {line}",
                  f"code = {json.dumps(code)}", "verdict = \"\"", "why = \"\"",
                  "# message: " + finding.get("message", "").replace("\n", " "), ""]
    fd, temporary = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    os.replace(temporary, path)


@dataclass(frozen=True)
class Mistake:
    """One label: a real mistake the rule `code` should report on that line (`silent` False),
    or a correct use on which it must stay silent (`silent` True)."""

    repo: str
    rev: str
    target: str
    path: str
    line: int
    code: str
    why: str
    silent: bool = False
    void: str = ""  # a label found wrong after measuring: kept with its why, not counted


def load_mistakes(path: Path) -> List[Mistake]:
    """Every label of path: one TOML file or a folder of them (one per labelling session)."""
    files = sorted(path.glob("*.toml")) if path.is_dir() else [path]
    mistakes: List[Mistake] = []
    for file in files:
        raw = load_toml(file)
        for kind, silent in (("mistake", False), ("silent", True)):
            mistakes += [Mistake(m["repo"], m["rev"], str(m["target"]), m["path"], int(m["line"]), m["code"],
                                 m.get("why", ""), silent, m.get("void", "")) for m in raw.get(kind, [])]
    seen = set()
    for mistake in mistakes:
        if mistake.void:
            continue  # a void label may repeat a counted one (it says which)
        key = (mistake.repo, mistake.rev, mistake.path, mistake.line, mistake.code)
        if key in seen:
            raise SystemExit(f"{path}: {key} is labelled twice")
        seen.add(key)
    return mistakes


def _present_blobs(mirror: Path, commit: str, names: Sequence[str]) -> set:
    """Which of the paths at commit have their blob in the mirror."""
    specs = "".join(f"{commit}:{name}\n" for name in names)
    done = subprocess.run(["git", "-C", str(mirror), "cat-file", "--batch-check"], input=specs.encode(),
                          capture_output=True, check=True)
    answers = done.stdout.decode(errors="surrogateescape").splitlines()
    return {name for name, answer in zip(names, answers) if not answer.endswith(" missing")}


def extract_files(repo: str, rev: str, mirror: Path, paths: Sequence[str], scratch: Path) -> Path:
    """Every Python file of repo at rev, unpacked once into scratch/recall/<owner+name>-<rev> (a
    marker holding the commit says the folder is whole). The whole repository, not only the
    labelled files: tvmlint is run on it as its user would run it, so a `from utils import *`, a
    caller in another module or a constant imported from one is there to be followed."""
    commit = resolve(mirror, rev)
    into = scratch / "recall" / f"{repo.replace('/', '+')}-{commit[:12]}"
    marker = into / ".tvmlint-ecosystem-rev"
    wanted = commit + "\nwhole, with notebooks\n"
    if marker.exists() and marker.read_text() == wanted:
        return into
    if into.exists():
        subprocess.run(["rm", "-rf", str(into)], check=True)
    into.mkdir(parents=True)
    listed = subprocess.run(["git", "-C", str(mirror), "ls-tree", "-r", "-z", "--name-only", commit],
                            capture_output=True, check=True).stdout.decode(errors="surrogateescape").split("\0")
    python = sorted({name for name in listed if name.endswith((".py", ".ipynb"))} | set(paths))
    # a snapshot may lack a large file's blob (a generated model): left out, unless labelled
    present = _present_blobs(mirror, commit, python)
    missing = [name for name in python if name not in present]
    if set(missing) & set(paths):
        raise SystemExit(f"{repo}@{rev}: the mirror lacks labelled files {sorted(set(missing) & set(paths))}")
    python = [name for name in python if name in present]
    # stderr is kept apart: a snapshot lacks its largest files, and git names them even when
    # they are not asked for; it is shown only when the archive fails
    archive = subprocess.Popen(["git", "-C", str(mirror), "archive", commit, "--", *python],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"git archive {rev} failed in {mirror} (is every labelled path at that "
                         f"revision?):\n{archive.stderr.read().decode(errors='replace')[-2000:]}")
    marker.write_text(wanted)
    return into


def run_on_files(root: Path, target: str, paths: Sequence[str], python: str, extra: Sequence[str]) -> List[dict]:
    command = [python, "-m", "tvmlint", "check", "--select", "ALL", "--format", "json", "--exit-zero",
               "--target-version", target, *extra, *sorted(set(paths))]
    env = dict(os.environ, PYTHONPATH=str(TVMLINT_ROOT[0]) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, env=env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"tvmlint failed on {root} at {target} (exit {done.returncode}):\n{done.stderr[-3000:]}")
    findings = json.loads(done.stdout or "[]")
    for finding in findings:  # paths relative to the extracted root, as the labels are
        path = Path(finding["path"])
        finding["path"] = (path.resolve().relative_to(root.resolve()) if path.is_absolute() else path).as_posix()
    return findings


def check_recall(recall: Path, mirrors: Path, scratch: Path, python: str, extra: Sequence[str], out,
                 findings_out: Optional[Path] = None) -> int:
    """Run tvmlint on every labelled mistake's file at its target; print recall per rule and the misses.
    `findings_out`: every finding of those runs as JSON (repo, rev, target and the finding), to set
    the findings of two checkouts side by side and judge those only one of them reports."""
    everything: List[dict] = []
    mistakes = load_mistakes(recall)
    by_source: Dict[Tuple[str, str], List[Mistake]] = defaultdict(list)
    for mistake in mistakes:
        by_source[(mistake.repo, mistake.rev)].append(mistake)
    found: Dict[Mistake, bool] = {}
    reported: Dict[Mistake, List[str]] = {}
    missing: List[str] = []
    for (repo, rev), group in by_source.items():
        mirror = find_mirror(mirrors, repo)
        if mirror is None:
            missing.append(repo)
            print(f"no mirror of {repo} under {mirrors}: fetch it (the search tool's `fetch github:{repo}`); "
                  f"its {len(group)} labelled mistakes are skipped", file=sys.stderr)
            continue
        root = extract_files(repo, rev, mirror, [m.path for m in group], scratch)
        by_target: Dict[str, List[Mistake]] = defaultdict(list)
        for mistake in group:
            by_target[mistake.target].append(mistake)
        for target, labelled in sorted(by_target.items()):
            print(f"recall: {repo}@{rev[:12]} at target {target}: {len(set(m.path for m in labelled))} files ({root})",
                  file=sys.stderr)
            findings = run_on_files(root, target, ["."], python, extra)
            everything.extend({"repo": repo, "rev": rev, "target": target, **finding} for finding in findings)
            at: Dict[Tuple[str, int], List[str]] = defaultdict(list)
            for finding in findings:
                at[(finding["path"], int(finding["line"]))].append(finding["code"])
            for mistake in labelled:
                codes = at.get((mistake.path, mistake.line), [])
                found[mistake] = mistake.code in codes
                reported[mistake] = sorted(set(codes))
    void = [m for m in mistakes if m.void]
    checked = [m for m in mistakes if m in found and not m.silent and not m.void]
    quiet = [m for m in mistakes if m in found and m.silent and not m.void]
    catalog = load_catalog()

    def family(code: str) -> str:
        return catalog[code].family if code in catalog else "?"

    header = f"{'rule':<8} {'default':<7} {'labelled':>8} {'found':>6} {'missed':>6} {'recall':>7} {'silent kept':>12}"
    print(header, file=out)
    print("-" * len(header), file=out)
    rows = sorted({m.code for m in checked + quiet})
    families = sorted({family(code) for code in rows})
    for code in [*rows, *(f"[{name}]" for name in families), "ALL"]:
        def wanted(m: Mistake) -> bool:
            return code == "ALL" or code == m.code or code == f"[{family(m.code)}]"
        cell = [m for m in checked if wanted(m)]
        silent = [m for m in quiet if wanted(m)]
        hits = sum(found[m] for m in cell)
        kept = sum(not found[m] for m in silent)
        default = "yes" if catalog.get(code) and catalog[code].default else "no" if code in catalog else "-"
        recall_value = format_precision(hits / len(cell) if cell else None)
        print(f"{code:<8} {default:<7} {len(cell):>8} {hits:>6} {len(cell) - hits:>6} {recall_value:>7} "
              f"{f'{kept}/{len(silent)}':>12}", file=out)
    under = []
    for name in families:
        cell = [m for m in checked if family(m.code) == name]
        if cell and sum(found[m] for m in cell) / len(cell) < RECALL_BAR:
            under.append(name)
    misses = [m for m in checked if not found[m]]
    print(f"\nmissed: {len(misses)} of {len(checked)} labelled mistakes; silent labels reported: "
          f"{sum(found[m] for m in quiet)} of {len(quiet)}; {len({m.repo for m in checked + quiet})} repositories",
          file=out)
    for m in misses:
        other = f" (reported there: {', '.join(reported[m])})" if reported[m] else ""
        print(f"  - {m.code} {m.repo} {m.path}:{m.line} at {m.target}{other}\n      {m.why}", file=out)
    for m in (m for m in quiet if found[m]):
        print(f"  ! {m.code} reported on a correct use: {m.repo} {m.path}:{m.line} at {m.target}\n      {m.why}",
              file=out)
    for m in void:
        print(f"  ~ void label (not counted): {m.code} {m.repo} {m.path}:{m.line}\n      {m.void}", file=out)
    if under:
        print(f"families under {RECALL_BAR:.0%} recall: {', '.join(under)}", file=out)
    if findings_out is not None:
        findings_out.write_text(json.dumps(everything, indent=1, sort_keys=True))
    return 1 if missing else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", type=Path, default=HERE / "trees.toml")
    parser.add_argument("--verdicts", type=Path, default=HERE / "verdicts", help="a TOML file or a folder of them")
    parser.add_argument("--tree", action="append", help="only this tree (repeatable)")
    parser.add_argument("--mirrors", type=Path,
                        default=Path(os.environ.get("TVMLINT_MIRRORS", Path.home() / ".cache" / "tvmlint" / "mirrors")))
    parser.add_argument("--scratch", type=Path,
                        default=Path(os.environ.get("TVMLINT_ECOSYSTEM_DIR", Path(tempfile.gettempdir()) / "tvmlint-ecosystem")))
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs tvmlint")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tvmlint checkout to run (default: this one; "
                        "a worktree of another commit measures before/after on the same labels and verdicts)")
    parser.add_argument("--unjudged", type=Path, help="write TOML stubs for the findings without a verdict into "
                        "this folder, one file per rule")
    parser.add_argument("--findings", type=Path, help="write every finding (with its verdict, if any; with --recall, with its repository and target) as JSON")
    parser.add_argument("--jobs", default=None, help="passed to tvmlint --jobs")
    parser.add_argument("--replay", type=Path, help="tally the findings a --findings file saved (an earlier "
                        "run, such as the baseline before a change) against today's verdicts; runs nothing")
    parser.add_argument("--recall", nargs="?", const=HERE / "recall", type=Path, metavar="PATH",
                        help="measure recall on the labels of PATH, a TOML file or a folder of them "
                        "(default ecosystem/recall/) "
                        "instead of checking the trees")
    args = parser.parse_args(argv)
    TVMLINT_ROOT[0] = args.root.resolve()

    trees = [t for t in load_trees(args.trees) if not args.tree or t.name in args.tree]
    if args.tree and len(trees) != len(set(args.tree)):
        known = ", ".join(t.name for t in load_trees(args.trees))
        parser.error(f"unknown tree in {args.tree}; known: {known}")
    verdicts = load_verdicts(args.verdicts)
    extra = ["--jobs", args.jobs] if args.jobs else []
    if args.recall:
        return check_recall(args.recall, args.mirrors, args.scratch, args.python, extra, sys.stdout, args.findings)

    outcomes: List[Outcome] = []
    if args.replay:
        saved = json.loads(args.replay.read_text())
        for tree in trees:
            outcomes.append(Outcome(tree, [f for f in saved if f["tree"] == tree.name]))
        trees = []
    for tree in trees:
        mirror = find_mirror(args.mirrors, tree.repo)
        if mirror is None:
            message = (f"no mirror of {tree.repo} under {args.mirrors}: fetch it (the search tool's "
                       f"`fetch github:{tree.repo}`, or `git clone` it to {args.mirrors / tree.repo.split('/')[1]}); "
                       f"tree {tree.name} skipped")
            print(message, file=sys.stderr)
            outcomes.append(Outcome(tree, missing=message))
            continue
        root = extract(tree, mirror, args.scratch)
        print(f"{tree.name}: {tree.repo}@{tree.rev} at target {tree.target} ({root})", file=sys.stderr)
        outcomes.append(Outcome(tree, run_tvmlint(tree, root, args.python, extra)))

    checked = [o for o in outcomes if o.missing is None]
    table = tally(checked, verdicts)
    under = print_table(table, [o.tree.name for o in checked], sys.stdout)

    seen = {key_of(o.tree, f) for o in checked for f in o.findings}
    new = [(key_of(o.tree, f), f) for o in checked for f in o.findings if key_of(o.tree, f) not in verdicts]
    checked_names = {o.tree.name for o in checked}
    gone = [k for k in verdicts if k[0] in checked_names and k not in seen]
    print(f"new findings (no verdict): {len(new)}")
    for (tree, rel, line, code), finding in new[:60]:
        print(f"  + {tree} {rel}:{line} {code} {finding.get('message', '')[:160]}")
    if len(new) > 60:
        print(f"  ... and {len(new) - 60} more (--unjudged FILE writes them all)")
    print(f"findings gone (verdict, no finding): {len(gone)}")
    for tree, rel, line, code in gone[:60]:
        verdict = verdicts[(tree, rel, line, code)]
        accepted = f"; lost on purpose: {verdict['lost']}" if verdict.get("lost") else ""
        print(f"  - {tree} {rel}:{line} {code} (was {verdict['verdict']}{accepted})")
    if len(gone) > 60:
        print(f"  ... and {len(gone) - 60} more")
    counts = Counter(v["verdict"] for k, v in verdicts.items() if k in seen)
    print(f"verdicts in use: {counts.get('true', 0)} true, {counts.get('false', 0)} false")
    # a true finding may only go with a why written into its verdict (`lost = "..."`), or with its
    # verdict changed to false: recall on the trees is held like precision
    lost = [k for k in gone if verdicts[k]["verdict"] == "true" and not verdicts[k].get("lost")]
    print_kept(verdicts, seen, checked_names, sys.stdout)
    if lost:
        print(f"true findings lost without a why (add lost = \"why\" to the verdict, or change it): {len(lost)}")

    if args.unjudged:
        write_unjudged(args.unjudged, new)
    if args.findings:
        rows = [dict(f, tree=o.tree.name, verdict=verdicts.get(key_of(o.tree, f), {}).get("verdict"),
                     why=verdicts.get(key_of(o.tree, f), {}).get("why")) for o in checked for f in o.findings]
        args.findings.write_text(json.dumps(rows, indent=1))
    if under:
        print(f"default rules under {PRECISION_BAR:.0%} precision: {', '.join(under)}")
    missing = [o for o in outcomes if o.missing]
    return 1 if new or under or missing or lost else 0


def print_kept(verdicts: Dict[Key, dict], seen, trees, out) -> None:
    """Recall on the trees, per rule: the findings judged true that are still found, of all judged true."""
    table: Dict[str, List[int]] = defaultdict(lambda: [0, 0])
    for key, verdict in verdicts.items():
        if key[0] in trees and verdict["verdict"] == "true":
            for row in (key[3], "ALL"):
                table[row][1] += 1
                table[row][0] += key in seen
    print(f"{'rule':<7} {'true kept':>10} {'recall on the trees':>20}", file=out)
    for code in sorted(table, key=lambda c: (c == "ALL", c)):
        kept, total = table[code]
        print(f"{code:<7} {f'{kept}/{total}':>10} {format_precision(kept / total):>20}", file=out)


if __name__ == "__main__":
    sys.exit(main())
