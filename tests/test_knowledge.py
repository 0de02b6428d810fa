"""tvmlint/knowledge/: the tables read through typed accessors, and one answer to "what does
this call run"."""

from __future__ import annotations

import shutil

import pytest
from helpers import REPO, run_cli

from tvmlint.base.versions import parse_version
from tvmlint.companion.pipeline import compile_names
from tvmlint.knowledge.api_history import get_history, old_roots
from tvmlint.knowledge.harness import harness
from tvmlint.knowledge.nnvm import nnvm
from tvmlint.knowledge.numerics import (
    accumulation,
    declarations,
    fast_math,
    fast_math_builds,
)
from tvmlint.knowledge.registry import config_keys
from tvmlint.knowledge.releases import known_releases, newest_release
from tvmlint.knowledge.target import (
    BuildPipeline,
    Runner,
    get_knowledge,
    pass_constructors,
    pass_kinds,
)


@pytest.mark.parametrize("release", known_releases())
def test_every_release_reads_through_the_accessors(release):
    # a key the accessors read without a default is in every row at every release
    version = parse_version(release)
    knowledge = get_knowledge(version)
    assert knowledge.version_text == release
    assert all(kind for kind in pass_kinds(knowledge).values())
    buffer_types, decls, tensors = declarations(version)
    assert buffer_types and all(row.default_dtype for row in (*decls.values(), *tensors.values()))
    builds = fast_math_builds(version)
    assert ("tvm.compile" in builds) if version >= fast_math().config_since else builds == frozenset()
    assert knowledge.context_text and knowledge.context_fix


def test_the_tables_own_values():
    assert fast_math().pass_name == "FastMath"
    assert nnvm().build_config_params == ("opt_level", "add_pass")
    assert {"float16", "bfloat16"} <= accumulation().low_precision
    assert newest_release() == parse_version(known_releases()[-1])
    assert harness().is_test_module("pkg.test_fold")
    assert config_keys()["relay.FuseOps.max_depth"].type == "int"
    assert "tvm.relay.transform.FoldScaleAxis" in pass_constructors()
    assert old_roots() == get_history().roots == {"nnvm", "topi", "tvm"}


def test_what_a_call_runs_is_one_answer():
    relay_era = get_knowledge(parse_version("0.8"))
    build = relay_era.what_runs("tvm.relay.build")
    assert isinstance(build, Runner) and build.report == "TVM108"
    assert any(member.name == "FastMath" for member in build.runs)
    quantize = relay_era.what_runs("tvm.relay.quantize.quantize")
    assert isinstance(quantize, Runner) and "tvm.relay.quantize.quantize" in relay_era.runner_apis("TVM101")
    assert relay_era.what_runs("tvm.compile") is None  # no relax build pipeline recorded at 0.8
    relax_era = get_knowledge(parse_version("0.27"))
    pipeline = relax_era.what_runs("tvm.compile")
    assert isinstance(pipeline, BuildPipeline) and pipeline is relax_era.what_runs("tvm.relax.build")
    assert pipeline.runs[-1].name == "AttachGlobalSymbol" and pipeline.wrapper.name == "_pipeline"
    assert relax_era.what_runs("tvm.relay.build") is None  # Relay is gone at 0.27
    assert relax_era.what_runs("tvm.relax.transform.FuseOps") is None  # a pass, not a call that runs a pipeline
    # the companion asks for a whole build by the same answer's APIs (and each without `tvm.`)
    assert {"tvm.compile", "compile", "tvm.relax.build", "relax.build"} <= set(compile_names())


NNVM = "import nnvm.compiler\nwith nnvm.compiler.build_config(opt_level=2):\n    graph, lib, params = nnvm.compiler.build(net, 'llvm')\n"


def test_a_table_value_reaches_the_rule(tmp_path):
    # TVM301's level is the table's: with a copy of rules/ that says NNVM's FoldScaleAxis ran
    # from opt_level 2, the same file gets a finding it does not get with the shipped tables
    rules = tmp_path / "rules"
    shutil.copytree(REPO / "rules", rules, ignore=shutil.ignore_patterns("__pycache__"))
    table = rules / "nnvm.toml"
    text = table.read_text(encoding="utf-8")
    assert "[fold_scale_axis_bug]\nmin_opt_level = 3\n" in text
    table.write_text(text.replace("[fold_scale_axis_bug]\nmin_opt_level = 3\n", "[fold_scale_axis_bug]\nmin_opt_level = 2\n"),
                     encoding="utf-8")
    (tmp_path / "app.py").write_text(NNVM, encoding="utf-8")
    args = ("check", "app.py", "--select", "TVM301", "--target-version", "0.6", "--no-cache", "--output-format", "concise")
    shipped = run_cli(*args, cwd=tmp_path)
    assert shipped.returncode == 0, shipped.stdout + shipped.stderr
    edited = run_cli(*args, cwd=tmp_path, env={"TVMLINT_RULES_DIR": str(rules)})
    assert edited.returncode == 1, edited.stdout + edited.stderr
    assert "app.py:2:" in edited.stdout and "TVM301" in edited.stdout
