"""--print-ir-after's names as users write them -> the registered names a run reports.

`FuseTIR`, `relax.transform.FuseTIR`, `transform.FuseTIR` and `tvm.relax.transform.FuseTIR`
name one pass; an API whose registered name differs (`relax.transform.AttachExternModules`
registers `AttachExternalModules`) is looked up in rules/ for the installed release. The
child also matches on the last dotted part (tracer.Tracer.wants), so `LowerIntrin` finds
`tirx.LowerIntrin`.
"""

from __future__ import annotations

from typing import Iterable, List, Optional

from tvmlint.base.versions import Version
from tvmlint.knowledge.releases import newest_release
from tvmlint.knowledge.target import get_knowledge


def registered_names(wanted: Iterable[str], release: Optional[Version]) -> List[str]:
    knowledge = get_knowledge(release or newest_release())
    out: List[str] = []
    for name in wanted:
        name = name.strip()
        out.append(name)
        for api, spec in knowledge.passes_by_api.items():
            if api == name or api.endswith("." + name):
                out.append(spec.name)
    return list(dict.fromkeys(out))


def same_pass(name: str, wanted: str) -> bool:
    """Whether a run's pass `name` is `wanted` as a user wrote it (the rule tracer.Tracer.wants applies)."""
    return name == wanted or name.rpartition(".")[2] == wanted.rpartition(".")[2]


def missing_ir(doc: dict, wanted: str, release: Optional[Version]) -> Optional[str]:
    """Why --print-ir-after `wanted` wrote nothing in this trace, or None when it wrote something."""
    from tvmlint.companion.trace_journal import walk

    names = registered_names([wanted], release)
    runs = [run for site in doc.get("sites", ()) for run in site["runs"]]
    if any(same_pass(row["pass"], one) for run in runs for row in run["ir_after"] for one in names):
        return None
    skipped = [row for run in runs for row, _parent in walk(run["passes"])
               if row["state"] == "skipped" and any(same_pass(row["name"], one) for one in names)]
    if skipped:
        return f"--print-ir-after {wanted}: it never ran; a Sequential's gate skipped it ({skipped[0]['why']})"
    return f"--print-ir-after {wanted}: no pass of that name ran"
