"""One file to check, as plain data: what the engine is asked, and what goes to a worker process.

A frozen `Task` is handed down whole (`tvmlint.run.engine.check_module(text, task)`), in
place of a dozen parameters each function passed on to the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Optional, Tuple

from tvmlint.base.versions import Version

# a later round's (names whose callers matter, names whose definitions matter): see check_module
Follow = Optional[Tuple[FrozenSet[str], FrozenSet[str]]]


@dataclass(frozen=True)
class Task:
    shown: str  # the path as findings name it
    module_name: str
    codes: FrozenSet[str]  # the selected rules' codes
    version: Version  # the target release
    is_package: bool = False
    path: str = ""  # where the file is read from (a run's); "" when the text is given
    index: int = 0  # the file's place in its run
    prefilter: bool = True  # the pre-filter wing decides which rules run (tvmlint.prefilter)
    follow: Follow = None
    cached: bool = False  # the cache wants the file's signature and digest
    confirm: bool = False  # analysed only if it names a followed name (tvmlint.prefilter.decide)
    defer_low: bool = False  # a first round's: left out if only a low context can set its rules off
    max_bytes: Optional[int] = None  # `max-file-size`: a larger file is not parsed (TVM001 says so)
    max_seconds: Optional[float] = None  # `max-analysis-time`: an analysis that runs longer is stopped
    text: Optional[str] = None  # an editor's buffer, checked instead of the file's content
    # TVM's packages the project carries itself, (name, directory) (tvmlint.analysis.own_tree):
    # a name a release removed may still be in them, so removed-API findings under one wait
    own_tree: Tuple[Tuple[str, str], ...] = ()
