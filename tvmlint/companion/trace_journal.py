"""The journal a traced process appends (tracer.py) -> the trace document (docs/trace-format.md).

The journal may end anywhere: the process failed, exited, was stopped by
--timeout or Ctrl-C, or forked and its children wrote to it too. A run that
never ended has its tree rebuilt from the pass events it did write, the pass
it was in marked `unfinished`; a half-written last line is left out.
"""

from __future__ import annotations

import json
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

SCHEMA = "tvmlint-trace"
VERSION = 1
NESTED = "its Sequential is skipped"


def read_events(data: bytes) -> Iterator[dict]:
    for line in data.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # the line a killed process was writing
        if isinstance(event, dict) and "e" in event:
            yield event


def _rebuilt(events: List[dict]) -> List[dict]:
    """The tree of a run that never ended, from its before/after events."""
    roots: List[dict] = []
    open_rows: List[dict] = []
    for event in events:
        if event["e"] == "b":
            row = {"name": event["name"], "opt_level": event["opt_level"], "state": "unfinished",
                   "why": "it was running when the process ended", "seconds": None}
            (open_rows[-1].setdefault("children", []) if open_rows else roots).append(row)
            open_rows.append(row)
        elif event["e"] == "a" and open_rows:
            row = open_rows.pop()
            row["seconds"] = event.get("seconds")
            row["state"], row["why"] = ("failed", event["failed"]) if event.get("failed") else ("ran", None)
            if row["why"] is None:
                del row["why"]
    return roots


def walk(rows: Iterable[dict], parent: Optional[str] = None) -> Iterator[Tuple[dict, Optional[str]]]:
    for row in rows:
        yield row, parent
        yield from walk(row.get("children", ()), row["name"])


def _run(start: dict, events: List[dict], done: Optional[dict], ir: List[dict]) -> dict:
    if done is not None:
        tree, status = done["tree"], done.get("status") or ("failed" if done.get("failed") else "finished")
    else:
        tree, status = _rebuilt(events), "unfinished"
    skipped = [
        {"name": row["name"], "opt_level": row["opt_level"], "why": row["why"], "sequential": parent}
        for row, parent in walk(tree) if row["state"] == "skipped" and row.get("why") != NESTED
    ]
    return {
        "run": start["run"],
        "pid": start.get("pid"),
        "stack": start.get("stack", []),
        "context": start.get("context", {}),
        "status": status,
        "failed": (done or {}).get("failed"),
        "passes": tree,
        "skipped": skipped,
        "ir_after": ir,
    }


def _site_key(site: Optional[dict]) -> tuple:
    return (site["file"], site["line"]) if site else ("", 0)


def document(data: bytes, meta: dict) -> dict:
    """The trace document for a journal's bytes; `meta` has command, cwd, exit, started, seconds, options."""
    tvm, unsupported = None, None
    starts: Dict[tuple, dict] = {}
    order: List[tuple] = []
    events: Dict[tuple, List[dict]] = {}
    done: Dict[tuple, dict] = {}
    ir: Dict[tuple, List[dict]] = {}
    problems: List[str] = []
    for event in read_events(data):
        kind, key = event["e"], (event.get("pid"), event.get("run"))
        if kind == "tvm":
            tvm = tvm or {name: event.get(name) for name in ("version", "location", "python")}
        elif kind == "unsupported":
            unsupported = event
            tvm = tvm or {"version": event.get("tvm") or None, "location": None, "python": None}
        elif kind == "run":
            starts[key] = event
            order.append(key)
        elif kind in ("b", "a"):
            events.setdefault(key, []).append(event)
        elif kind == "done":
            done[key] = event
        elif kind == "ir":
            ir.setdefault(key, []).append({"pass": event["pass"], "file": event["file"]})
        elif kind == "ir_error":
            problems.append(f"the IR after {event['pass']} could not be written: {event['error']}")
    sites: Dict[tuple, dict] = {}
    for key in order:
        start = starts[key]
        site = start.get("site")
        row = sites.get(_site_key(site))
        if row is None:
            row = dict(site) if site else {"file": None, "line": None, "function": None, "code": None}
            row["runs"] = []
            sites[_site_key(site)] = row
        row["runs"].append(_run(start, events.get(key, []), done.get(key), ir.get(key, [])))
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "command": meta.get("command"),
        "cwd": meta.get("cwd"),
        "started": meta.get("started"),
        "seconds": meta.get("seconds"),
        "exit": meta.get("exit"),
        "tvm": tvm,
        "unsupported": unsupported.get("why") if unsupported else None,
        "sites": list(sites.values()),
        "timing": timing(sites.values()),
        "problems": problems,
    }


def timing(sites: Iterable[dict]) -> List[dict]:
    """Time per pass name over the whole trace, as PassTimingInstrument sums it (a Sequential's time holds its members')."""
    total: Dict[str, List[float]] = {}
    for site in sites:
        for run in site["runs"]:
            for row, _parent in walk(run["passes"]):
                if row["state"] in ("ran", "failed") and row.get("seconds") is not None:
                    entry = total.setdefault(row["name"], [0, 0.0])
                    entry[0] += 1
                    entry[1] += row["seconds"]
    ranked = sorted(total.items(), key=lambda item: (-item[1][1], item[0]))
    return [{"name": name, "calls": calls, "seconds": seconds} for name, (calls, seconds) in ranked]
