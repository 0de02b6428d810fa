"""`tvmlint registry --pipeline NAME`: which passes the installed TVM runs, and which its gates skip.

The child (child.py's "pipeline" op, instrumented.py) runs the pipeline on
tvmlint's own small module under a PassInstrument; this side asks it and shows
the answer: a tree on a terminal (rich), plain text on a pipe, or JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterable, Iterator, List, NamedTuple, Optional, Sequence, TextIO

from tvmlint.companion import CompanionError
from tvmlint.companion.process import (
    default_timeout,
    interpreter,
    run_child,
)
from tvmlint.companion.registry import build_recipe
from tvmlint.output.pass_tree import NESTED, add_rich, plain_lines


@dataclass
class PipelineRun:
    answer: dict
    setting: dict = field(init=False)
    tree: List[dict] = field(init=False)

    def __post_init__(self):
        self.setting = self.answer["setting"]
        self.tree = self.answer.get("tree", [])

    def walk(self, rows: Optional[Sequence[dict]] = None, parent: Optional[str] = None) -> Iterator[tuple]:
        for row in self.tree if rows is None else rows:
            yield row, parent
            yield from self.walk(row.get("children", ()), row["name"])

    def ran(self) -> List[dict]:
        return [row for row, _parent in self.walk() if row["state"] == "ran"]

    def skipped(self) -> List[dict]:
        """The members a Sequential's gate skipped (not those inside a skipped Sequential), with their Sequential."""
        return [dict(row, sequential=parent) for row, parent in self.walk() if row["state"] == "skipped" and row["why"] != NESTED]

    def skipped_names(self) -> List[str]:
        return [row["name"] for row, _parent in self.walk() if row["state"] == "skipped"]

    @property
    def resolved(self) -> str:
        return self.answer["resolved"]

    @property
    def ir(self) -> List[dict]:
        return self.answer.get("ir", [])

    @property
    def failed(self) -> Optional[str]:
        return self.answer.get("failed")

    def describe_setting(self) -> str:
        text = f"opt_level={self.setting['opt_level']}"
        if self.setting.get("required"):
            text += f", required_pass={self.setting['required']}"
        if self.setting.get("disabled"):
            text += f", disabled_pass={self.setting['disabled']}"
        return f"PassContext({text})"


def compile_names() -> tuple:
    """The names that ask for a whole build (tvm.compile, relax.build): the APIs whose call runs a
    build pipeline (the knowledge's one answer to what a call runs), and each without `tvm.`."""
    from tvmlint.knowledge.target import build_apis

    apis = sorted(build_apis())
    return (*apis, *(api[len("tvm."):] for api in apis if api.startswith("tvm.")))


class Setting(NamedTuple):
    """The PassContext a pipeline runs under."""

    opt_level: int
    required: Iterable[str] = ()
    disabled: Iterable[str] = ()


def request(name: str, setting: Setting, target: str = "llvm", print_ir_after: Optional[str] = None,
            members: Sequence[str] = ()) -> dict:
    """What to ask the child: run `name` (or, with `members`, a Sequential of those pass APIs)."""
    ask = {
        "op": "pipeline", "pipeline": name, "opt_level": setting.opt_level, "required": sorted(setting.required),
        "disabled": sorted(setting.disabled), "target": target, "print_ir_after": print_ir_after,
        "build": build_recipe(name), "compile": name.strip() in compile_names(),
    }
    if members:
        ask["members"] = list(members)
        ask["builds"] = {api: build_recipe(api) for api in members if build_recipe(api)}
    return ask


def run_pipeline(tvm_python: Optional[str], timeout: Optional[float], ask: dict) -> PipelineRun:
    """The instrumented run; CompanionError (one line) for no TVM, a crash, a timeout or an unknown name."""
    python = interpreter(tvm_python)
    limit = timeout if timeout is not None else default_timeout()
    where = run_child(python, {"op": "locate"}, limit)
    if not where.get("found"):
        raise CompanionError(f"no TVM is installed for {where.get('python') or python} (`import tvm` would fail)")
    answer = run_child(python, ask, limit)
    return checked(answer)


class UnknownPipeline(CompanionError):
    """The child found nothing of that name to run."""


def checked(answer: dict) -> PipelineRun:
    if "unknown" in answer:
        version = answer.get("tvm", {}).get("version") or "?"
        raise UnknownPipeline(f"the installed TVM {version}: {answer['unknown']}")
    return PipelineRun(answer)


def names_a_pipeline(name: str) -> bool:
    """Whether `name` is one the child reads as a whole pipeline or an API path as it stands
    (`default`, `tvm.compile`, `relax:NAME`, `tvm.X`), not a pass written as users write it."""
    from tvmlint.companion.instrumented import DEFAULT_NAMES  # constants only: no TVM

    return name in compile_names() or name in DEFAULT_NAMES or name.startswith(("relax:", "tvm."))


# -- output --------------------------------------------------------------------------------

def header(run: PipelineRun) -> List[str]:
    answer = run.answer
    tvm = answer.get("tvm", {})
    ran, skipped = run.ran(), run.skipped()
    nested = len(run.skipped_names()) - len(skipped)
    counts = f"{len(ran)} pass{'es' if len(ran) != 1 else ''} ran, {len(skipped)} skipped by a Sequential's gate"
    if nested:
        counts += f" ({nested} more inside the skipped Sequentials)"
    return [
        f"TVM {tvm.get('version')} ({tvm.get('location')}), Python {tvm.get('python')}",
        f"{answer['resolved']} on tvmlint's own module ({answer['module']}), target {target_kind(answer)}",
        f"{run.describe_setting()}: {counts}",
    ]


def target_kind(answer: dict) -> str:
    try:
        return json.loads(answer["target"]).get("kind", answer["target"])
    except (ValueError, AttributeError):
        return str(answer.get("target"))


def render_plain(run: PipelineRun, out: TextIO) -> None:
    lines = header(run) + [""] + plain_lines(run.tree)
    out.write("\n".join(lines) + "\n")
    render_ir(run, out)


def render_rich(run: PipelineRun, out: TextIO) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.tree import Tree

    console = Console(file=out, highlight=False)
    for line in header(run):
        console.print(escape(line))
    root = Tree(escape(run.answer["resolved"]), guide_style="dim")
    add_rich(root, run.tree)
    console.print(root)
    out.flush()
    render_ir(run, out)


def render_ir(run: PipelineRun, out: TextIO) -> None:
    for row in run.ir:
        times = f" (run {row['occurrence']})" if row["occurrence"] > 1 or sum(r["pass"] == row["pass"] for r in run.ir) > 1 else ""
        out.write(f"\n# IR after {row['pass']}{times}\n{row['text'].rstrip()}\n")


def to_json(run: PipelineRun) -> dict:
    answer = run.answer
    return {
        "tvm": answer.get("tvm"),
        "pipeline": answer["pipeline"],
        "resolved": answer["resolved"],
        "module": answer["module"],
        "target": target_kind(answer),
        "setting": run.setting,
        "passes": run.tree,
        "ran": [{"name": row["name"], "opt_level": row["opt_level"], "seconds": row.get("seconds")} for row in run.ran()],
        "skipped": [
            {"name": row["name"], "opt_level": row["opt_level"], "why": row["why"], "sequential": row["sequential"]}
            for row in run.skipped()
        ],
        "ir_after": run.ir,
        "failed": run.failed,
    }


def missing_ir(run: PipelineRun, wanted: str) -> Optional[str]:
    """Why --print-ir-after printed nothing, or None when it printed."""
    if run.ir:
        return None

    def matches(name: str) -> bool:
        return name == wanted or name.endswith("." + wanted) or wanted.endswith("." + name)

    skipped = [row for row, _parent in run.walk() if row["state"] == "skipped" and matches(row["name"])]
    if skipped:
        return f"--print-ir-after {wanted}: it did not run here ({skipped[0]['why']})"
    import difflib

    near = difflib.get_close_matches(wanted, sorted({row["name"] for row, _parent in run.walk()}), n=5, cutoff=0.6)
    hint = f"; the closest: {', '.join(near)}" if near else ""
    return f"--print-ir-after {wanted}: no pass of that name ran in this pipeline{hint}"
