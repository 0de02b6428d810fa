"""--print-ir-after's names as users write them -> the registered names a run reports.

`FuseTIR`, `relax.transform.FuseTIR`, `transform.FuseTIR` and `tvm.relax.transform.FuseTIR`
name one pass; an API whose registered name differs (`relax.transform.AttachExternModules`
registers `AttachExternalModules`) is looked up in rules/ for the installed release. The
child also matches on the last dotted part (tracer.Tracer.wants), so `LowerIntrin` finds
`tirx.LowerIntrin`.
"""

from __future__ import annotations

from typing import Iterable, List, Optional

from tvmlint.analysis.knowledge import get_knowledge, newest_release
from tvmlint.base.versions import Version


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
