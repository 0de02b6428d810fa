"""rules/nnvm.toml: NNVM, TVM's graph compiler before Relay (TVM301, TVM304)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Tuple

from tvmlint.base.versions import Version, parse_version
from tvmlint.knowledge.tables import cached, load_table


@dataclass(frozen=True)
class Nnvm:
    removed: Version  # the first release without NNVM's Python package
    build_config_apis: FrozenSet[str]
    build_config_params: Tuple[str, ...]  # build_config(**kwargs) takes these keywords only
    fold_scale_axis_level: int  # the lowest opt_level at which its FoldScaleAxis runs
    opt_pass_level_apis: FrozenSet[str]  # the module-level dict of pass levels

    def in_use(self, version: Version) -> bool:
        """NNVM's Python package exists at `version`."""
        return version < self.removed


@cached
def nnvm() -> Nnvm:
    raw = load_table("nnvm.toml")
    return Nnvm(
        parse_version(raw["lifecycle"]["removed"]), frozenset(raw["build_config"]["api"]),
        tuple(raw["build_config"]["params"]), int(raw["fold_scale_axis_bug"]["min_opt_level"]),
        frozenset(raw["opt_pass_level"]["api"]),
    )
