"""tools/runners_from_source.py: what it counts as a runner, on a small made-up TVM tree, and the
shape of the generated part of rules/runners.toml."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import runners_from_source as R  # noqa: E402

from tvmlint.base.versions import parse_version  # noqa: E402
from tvmlint.knowledge.target import Knowledge  # noqa: E402

TREE = {
    "python/tvm/__init__.py": "from .ir import transform\n",
    "python/tvm/ir/__init__.py": "from . import transform\n",
    "python/tvm/ir/transform.py": "class Sequential:\n    pass\n\nclass PassContext:\n    pass\n",
    "python/tvm/relay/__init__.py": "from .build_module import build\nfrom . import transform\n",
    "python/tvm/relay/build_module.py": "def build(mod, target):\n    pass\n",
    "python/tvm/relay/transform/__init__.py": "from .transform import *\n",
    "python/tvm/relay/transform/transform.py": (
        "def FoldConstant():\n    pass\n\ndef ConvertLayout(layouts):\n    pass\n\n"
        "def FoldScaleAxis():\n    pass\n\ndef InferType():\n    pass\n\n"
        "@function_pass(opt_level=0)\nclass RemoveDropout:\n    pass\n"
    ),
    "python/tvm/relay/mylib/__init__.py": "from .lib import *\n",
    "python/tvm/relay/mylib/lib.py": """
import contextlib
import tvm
from tvm import relay
from tvm.relay import transform
from tvm.relay.transform import function_pass


def runs_gated(mod):
    seq = tvm.transform.Sequential([transform.FoldConstant(), transform.ConvertLayout({})])
    return seq(mod)


def direct_wrapper(mod):
    return transform.FoldScaleAxis()(mod)


def appended(mod, params):
    passes = [transform.InferType()]
    passes.append(transform.ConvertLayout({}))
    return tvm.transform.Sequential(passes)(mod)


def own_context(mod):
    seq = tvm.transform.Sequential([transform.ConvertLayout({})])
    with tvm.transform.PassContext(opt_level=3):
        return seq(mod)


def stacked(mod):
    with contextlib.ExitStack() as stack:
        stack.enter_context(tvm.transform.PassContext(opt_level=3))
        return tvm.transform.Sequential([transform.ConvertLayout({})])(mod)


def low_levels(mod):
    return tvm.transform.Sequential([transform.FoldConstant(), transform.InferType()])(mod)


def only_when(mod, args):
    if args.get("layout"):
        mod = runs_gated(mod)
    return mod


def caller(mod):
    return runs_gated(mod)


def caller_in_context(mod):
    with tvm.transform.PassContext(opt_level=3):
        return runs_gated(mod)


def builds(mod):
    return relay.build(mod, "llvm")


def _private(mod):
    return runs_gated(mod)


class Executor:
    def _make(self, mod):
        return relay.build(mod, "llvm")
""",
}


@pytest.fixture(scope="module")
def found():
    src = R.Source(None, "v0.12.0", files=TREE)
    tables = R.Tables(src, Knowledge(parse_version("0.12")))
    hand = R.hand_entries(str(ROOT / "rules" / "runners.toml"))
    return src, R.runners_at(src, tables, hand, "0.12", [])


def test_runners_found(found):
    src, runners = found
    lib = "tvm.relay.mylib.lib."
    assert set(runners) == {lib + n for n in (
        "runs_gated", "direct_wrapper", "appended", "caller", "builds", "_private", "Executor._make",
    )}
    assert runners[lib + "runs_gated"].report == "TVM101"
    assert [leaf.name for leaf in runners[lib + "runs_gated"].leaves] == ["FoldConstant", "ConvertLayout"]
    assert {leaf.via for leaf in runners[lib + "direct_wrapper"].leaves} == {"FoldScaleAxis"}
    # a caller runs what it calls, and says through what
    assert runners[lib + "caller"].chain[0].startswith(lib + "runs_gated")
    # relay.build's pipeline (a hand-kept entry) is followed into its callers, with its report code
    assert runners[lib + "builds"].report == "TVM108"
    assert any(leaf.name == "AlterOpLayout" for leaf in runners[lib + "builds"].leaves)


def test_a_hand_kept_members_releases_go_with_it_into_its_callers(found, monkeypatch):
    """relay.build runs FastMath only from 0.7 (the hand-kept entry's member says so); a function that
    calls relay.build runs it on the same terms, and the generated entry writes them."""
    _src, runners = found
    fast = [leaf for leaf in runners["tvm.relay.mylib.lib.builds"].leaves if leaf.name == "FastMath"]
    assert [(leaf.since, leaf.until) for leaf in fast] == [("0.7", None)]
    monkeypatch.setattr(R, "RELAY_TAGS", ["v0.6.0", "v0.19.0"])
    entry = {"api": ["tvm.relay.mylib.builds"], "since": "0.6", "until": "0.20", "runs": fast}
    assert '  { name = "FastMath", opt_level = 4, since = "0.7" },' in R.render([entry], [], [], []).splitlines()


def test_public_names_through_reexports(found):
    src, runners = found
    apis = R.public_apis("tvm.relay.mylib.lib.runs_gated", src.aliases())
    assert apis == ["tvm.relay.mylib.runs_gated", "tvm.relay.mylib.lib.runs_gated"]
    assert R.public_apis("tvm.relay.mylib.lib._private", src.aliases()) == []


def test_generated_part_of_runners_toml():
    text = (ROOT / "rules" / "runners.toml").read_text(encoding="utf-8")
    assert R.MARKER in text
    head, generated = text.split(R.MARKER)
    # above the marker: only the C++ pipelines the script confirms
    assert set(re.findall(r'^api = \["([^"]+)"', head, re.M)) == set(R.CPP_FILES)
    assert "NOT CONFIRMED" not in generated
    entries = generated.split("[[runner]]")[1:]
    assert entries
    for entry in entries:
        assert re.search(r'^source = "v0\.\d+\.0:python/', entry, re.M), entry
        assert re.search(r'^report = "TVM10[18]"', entry, re.M), entry
