"""`tvmlint trace`'s report for people: per call site in the user's code, each pipeline run as a tree."""

from __future__ import annotations

import os
from typing import List, Optional, TextIO

from tvmlint.output.pass_tree import add_rich, milliseconds, plain_lines
from tvmlint.output.safe import printable, printable_path

WIDTH = 10  # "unfinished"


def shown_path(path: Optional[str], cwd: Optional[str] = None) -> str:
    if not path:
        return "?"
    if path.startswith("<"):
        return path
    try:
        relative = os.path.relpath(path, cwd or os.getcwd())
    except ValueError:
        return printable_path(path)
    return printable_path(path if relative.startswith("..") else relative)


def where(frame: Optional[dict]) -> str:
    if not isinstance(frame, dict) or not isinstance(frame.get("file"), str):
        return "?"  # a trace file written by hand, or cut: its frames are shown as far as they go
    return f"{shown_path(frame['file'])}:{frame.get('line')}"


def context_text(context: dict) -> str:
    args = [f"opt_level={context.get('opt_level')}"]
    for key, name in (("required", "required_pass"), ("disabled", "disabled_pass")):
        if context.get(key):
            args.append(f"{name}={context[key]}")
    if context.get("config"):
        args.append(f"config={context['config']}")
    text = f"PassContext({', '.join(args)})"
    if context.get("default"):
        return text + ", the default context (no PassContext entered)"
    if context.get("entered_at"):
        return text + f" entered at {where(context['entered_at'])}"
    return text + " (entered where no frame of yours was on the stack)"


def built(row: dict) -> str:
    """Where the user's code built a Sequential, after its line (TVM102 points there, not at the run)."""
    return f"  [built at {where(row['built_at'])}]" if isinstance(row.get("built_at"), dict) else ""


def run_heading(run: dict) -> str:
    text = f"run {run['run']}: {printable(context_text(run['context']))}"
    callers = run.get("stack", [])[1:]
    if callers:
        text += ", called from " + " <- ".join(where(frame) for frame in callers[:3])
    if run["status"] != "finished":
        text += f"  [{run['status']}{': ' + printable(run['failed']) if run.get('failed') else ''}]"
    return text


def site_heading(site: dict) -> str:
    if not site.get("file"):
        return "(no frame of your code on the stack: a pass run from TVM's own threads or callbacks)"
    code = f": {printable(site['code'])}" if site.get("code") else ""
    return f"{where(site)} in {printable(site.get('function') or '?')}{code}"


def summary(doc: dict) -> List[str]:
    tvm = doc.get("tvm") or {}
    lines = []
    if tvm:
        lines.append(f"TVM {tvm.get('version')} ({printable_path(tvm.get('location') or '?')}), Python {printable_path(tvm.get('python') or '?')}")
    runs = sum(len(site["runs"]) for site in doc["sites"])
    skipped = sum(len(run["skipped"]) for site in doc["sites"] for run in site["runs"])
    command = printable(" ".join(doc.get("command") or []))
    lines.append(f"{command}: {exit_text(doc.get('exit'))}; {runs} pipeline run{'s' if runs != 1 else ''} "
                 f"from {len(doc['sites'])} line{'s' if len(doc['sites']) != 1 else ''} of your code, "
                 f"{skipped} pass{'es' if skipped != 1 else ''} skipped by a Sequential's gate")
    return lines


def exit_text(exit_: Optional[dict]) -> str:
    if not exit_:
        return "still running"
    if exit_.get("timed_out"):
        return "stopped by --timeout"
    if exit_.get("interrupted"):
        return "interrupted"
    if exit_.get("signal"):
        return f"ended by {exit_['signal']}"
    return f"exit {exit_.get('code')}"


def timing_lines(doc: dict) -> List[str]:
    rows = doc.get("timing") or []
    if not rows:
        return ["Time per pass: no pass ran."]
    lines = ["Time per pass, over the whole run (a Sequential's time holds its members', as PassTimingInstrument counts):"]
    for row in rows:
        lines.append(f"  {milliseconds(row['seconds']):>10}  x{row['calls']:<4} {printable(row['name'])}")
    return lines


def ir_lines(run: dict) -> List[str]:
    return [f"    IR after {printable(row['pass'])}: {printable_path(row['file'])}" for row in run.get("ir_after", ())]


def render(doc: dict, out: TextIO, timing: bool = False, color: Optional[bool] = None) -> None:
    if color is None:
        color = out.isatty() and "NO_COLOR" not in os.environ
    if color:
        return _render_rich(doc, out, timing)
    lines = summary(doc)
    for site in doc["sites"]:
        lines += ["", site_heading(site)]
        for run in site["runs"]:
            lines.append("  " + run_heading(run))
            lines += plain_lines(run["passes"], indent="    ", width=WIDTH, note=built)
            lines += ir_lines(run)
    lines += _notes(doc, timing)
    out.write("\n".join(lines) + "\n")


def _notes(doc: dict, timing: bool) -> List[str]:
    lines = []
    if timing:
        lines += [""] + timing_lines(doc)
    for problem in doc.get("problems", ()):
        lines.append(f"note: {printable(problem)}")
    return lines


def _render_rich(doc: dict, out: TextIO, timing: bool) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.tree import Tree

    console = Console(file=out, highlight=False)  # long lines wrap: a cropped path would lose its line number
    for line in summary(doc):
        console.print(escape(line))
    for site in doc["sites"]:
        console.print()
        root = Tree(f"[bold]{escape(site_heading(site))}[/]", guide_style="dim")
        for run in site["runs"]:
            branch = root.add(escape(run_heading(run)))
            add_rich(branch, run["passes"], built)
            for line in ir_lines(run):
                branch.add(f"[cyan]{escape(line.strip())}[/]")
        console.print(root)
    for line in _notes(doc, timing):
        console.print(escape(line))


def traced_lines(runs: List[dict], source: str) -> List[str]:
    """What the traced runs did at one place (explain): each run's heading and tree."""
    if not runs:
        return [f"Traced ({printable_path(source)}): no pass ran from this line in that run."]
    lines = [f"Traced ({printable_path(source)}): {len(runs)} run{'s' if len(runs) != 1 else ''} from this line"]
    for run in runs:
        lines.append("  " + run_heading(run))
        lines += plain_lines(run["passes"], indent="    ", width=WIDTH, note=built)
    return lines


def traced_markdown(runs: List[dict], source: str) -> str:
    """The same for a hover: a fenced block keeps the tree's columns."""
    head, *rest = traced_lines(runs, source)
    return f"**{head}**" + ("\n\n```text\n" + "\n".join(rest) + "\n```" if rest else "")
