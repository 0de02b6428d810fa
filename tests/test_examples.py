"""The bundled examples: every seed situation is reported; correct code is not."""

from __future__ import annotations

import json

from helpers import REPO, run_cli

# (file, code) pairs the seed reports call for; other rules may add more findings.
EXPECTED = {
    ("examples/relay_era/fold_scale_axis.py", "TVM101"),  # seed 002: FoldScaleAxis called directly
    ("examples/relay_era/fold_scale_axis.py", "TVM102"),
    ("examples/relay_era/passes.py", "TVM101"),  # a helper called outside a context, from another module
    ("examples/relay_era/compile_model.py", "TVM103"),
    ("examples/relay_era/compile_model.py", "TVM108"),
    ("examples/relay_era/quantize_layout.py", "TVM101"),  # seed 004: quantize under opt_level 2
    ("examples/relay_era/quantize_layout.py", "TVM108"),  # seed 004: AlterOpLayout needs opt_level 3
    ("examples/relax_era/canonicalize_at_opt0.py", "TVM101"),
    ("examples/nnvm_era/tune_and_build.py", "TVM301"),  # seed 000: NNVM at opt_level 3, 93% -> 62%
    ("examples/nnvm_era/tune_and_build.py", "TVM304"),  # seed 000: OPT_PASS_LEVEL edited by hand
    ("examples/relax_era/pass_settings.py", "TVM104"),  # 'FuseOP'
    ("examples/relax_era/pass_settings.py", "TVM107"),  # tir.disable_vectorize at 0.27
    ("examples/relax_era/pass_settings.py", "TVM303"),  # opt_level=7
    ("examples/relax_era/fp16_conv2d.py", "TVM401"),  # seed 003: float16 accumulator
    ("examples/relay_era/fast_math_build.py", "TVM302"),
    ("examples/relay_era/fast_math_build.py", "TVM105"),
    ("examples/relay_era/fast_math_build.py", "TVM106"),
}


def test_examples_report_the_seed_bugs():
    result = run_cli("check", "examples", "--format", "json", cwd=REPO)
    assert result.returncode == 1, result.stderr
    found = {(f["path"], f["code"]) for f in json.loads(result.stdout)}
    assert EXPECTED <= found, EXPECTED - found


def test_correct_relay_and_relax_code_reports_nothing():
    result = run_cli("check", "tests/data/clean", "--format", "concise", cwd=REPO)
    assert result.returncode == 0, result.stdout
