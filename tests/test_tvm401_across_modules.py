"""TVM401 where the dtype is set in another module of the project: a kernel builder's parameter
given by other modules' calls (ArgumentWait), a constant another module defines and the
kernel's module imports (ConstantWait). Each judged in the project step, the same whether the
tree or the kernel's file alone is checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import check_tree, run_cli

KERNEL = '''\
import tvm
from tvm import te
{imports}

def build(n{params}):
    A = te.placeholder((n, n), dtype={dtype}, name="A")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * A[j, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    return tvm.build(s, [A, C])
'''
SUM_LINE = 8  # with one import line


def _sum_line(text: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if "te.sum(" in line)


def _kernel(imports: str = "", params: str = "", dtype: str = "DTYPE", call: str = "build(64)") -> str:
    return KERNEL.format(imports=imports, params=params, dtype=dtype) + (f"\n\n{call}\n" if call else "")


def _tvm401(findings):
    return [(Path(f.path).name, f.start.line) for f in findings if f.code == "TVM401"]


@pytest.mark.parametrize("imports", ["from config import *", "from config import DTYPE",
                                     "from settings import *\nfrom config import *"])
def test_a_constant_another_module_sets_to_float16(tmp_path, imports):
    # config.py need not import TVM: a settings module seldom does
    files = {"config.py": 'DTYPE = "float16"\n', "settings.py": 'OTHER = "float32"\n', "kern.py": _kernel(imports)}
    found = check_tree(tmp_path, files, select=["TVM401"], target="0.10")
    assert _tvm401(found) == [("kern.py", _sum_line(files["kern.py"]))]
    message = next(f.message for f in found if f.code == "TVM401")
    assert '`DTYPE` is "float16" as' in message and "config.py:1" in message


@pytest.mark.parametrize("config", [
    'DTYPE = "float32"\n',                                       # not low
    'DTYPE = "float16"\nDTYPE = "float32"\n',                    # bound twice: either may be read
    'DTYPE = "float16"\n\ndef use32():\n    global DTYPE\n    DTYPE = "float32"\n',  # a function rebinds it
    'import os\nDTYPE = os.environ.get("DTYPE", "float32")\n',   # not a literal
    'if FAST:\n    DTYPE = "float16"\n',                          # not a top-level binding
])
def test_no_finding_where_the_constant_is_not_surely_float16(tmp_path, config):
    files = {"config.py": config, "kern.py": _kernel("from config import *")}
    assert _tvm401(check_tree(tmp_path, files, select=["TVM401"], target="0.10")) == []


def test_a_later_star_import_rebinds_the_name(tmp_path):
    files = {"a.py": 'DTYPE = "float16"\n', "b.py": 'DTYPE = "float32"\n',
             "kern.py": _kernel("from a import *\nfrom b import *")}
    assert _tvm401(check_tree(tmp_path, files, select=["TVM401"], target="0.10")) == []
    files["kern.py"] = _kernel("from b import *\nfrom a import *")
    assert _tvm401(check_tree(tmp_path, files, select=["TVM401"], target="0.10")) == [("kern.py", SUM_LINE + 1)]


def test_two_config_modules_of_one_name_the_one_beside_the_script_counts(tmp_path):
    files = {"x/config.py": 'DTYPE = "float16"\n', "x/kern.py": _kernel("from config import *"),
             "y/config.py": 'DTYPE = "float32"\n', "y/kern.py": _kernel("from config import *")}
    assert _tvm401(check_tree(tmp_path, files, select=["TVM401"], target="0.10")) == [("kern.py", SUM_LINE)]
    found = [f for f in check_tree(tmp_path, files, select=["TVM401"], target="0.10") if f.code == "TVM401"]
    assert [Path(f.path).parent.name for f in found] == ["x"]


def test_a_name_the_module_binds_itself_is_not_the_imported_one(tmp_path):
    files = {"config.py": 'DTYPE = "float16"\n',
             "kern.py": _kernel("from config import *\nDTYPE = \"float32\"")}
    assert _tvm401(check_tree(tmp_path, files, select=["TVM401"], target="0.10")) == []


def test_a_builder_parameter_that_another_module_passes_float16(tmp_path):
    files = {"ops.py": _kernel(params=", dtype", dtype="dtype", call=""),
             "run.py": "from ops import build\n\nbuild(64, \"float16\")\n"}
    found = check_tree(tmp_path, files, select=["TVM401"], target="0.10")
    assert _tvm401(found) == [("ops.py", SUM_LINE)]
    assert "run.py:3" in next(f.message for f in found if f.code == "TVM401")
    files["run.py"] = "from ops import build\n\nbuild(64, \"float32\")\n"
    assert _tvm401(check_tree(tmp_path, files, select=["TVM401"], target="0.10")) == []


def test_the_kernel_file_checked_alone_gets_the_same_finding(tmp_path):
    # pre-commit and editors name one file: its project's constants still count
    files = {"config.py": 'DTYPE = "float16"\n', "kern.py": _kernel("from config import *")}
    check_tree(tmp_path, files, select=["TVM401"], target="0.10")
    alone = run_cli("check", "--select", "TVM401", "--target-version", "0.10", "--no-cache",
                    "--output-format", "concise", "kern.py", cwd=tmp_path)
    assert alone.returncode == 1, alone.stderr
    assert f"kern.py:{SUM_LINE}:" in alone.stdout


# -- a benchmark's workload table, called with a dtype from its command line ------------------
# (Hzfengsy/asplos-tvm benchmark/op: workloads_fp16.py's CONFIGS_F16[name](*param, out_dtype=...),
# tune_tvm.py's ARGS = parse_args() from benchmark/utils.py; ybai62868/AutoBench4TensorComputation
# bench.py, which sets args.out_dtype = "float16" for "f16")

WORKLOADS = '''\
from tvm import te, tir


def add_one(n, out_dtype="float32"):
    A = te.placeholder((n,), dtype="float16", name="A")
    return te.compute((n,), lambda i: A[i] + 1)


def matmul_f16(n, out_dtype="float32"):
    A = te.placeholder((n, n), dtype="float16", name="A")
    k = te.reduce_axis((0, n), name="k")
    return te.compute((n, n), lambda i, j: te.sum(
        tir.Cast(value=A[i, k], dtype=out_dtype) * tir.Cast(out_dtype, A[j, k]), axis=k))


def create(name, n=64, out_dtype="float32"):
    workload = CONFIGS[name]
    return te.create_prim_func([workload(n, out_dtype=out_dtype)])


CONFIGS = {"ADD": add_one, "GMM": matmul_f16}
'''

PARSE_ARGS = '''\
import argparse
import os


def parse_args():
    args = argparse.ArgumentParser()
    args.add_argument("-t", "--target", type=str)
    args.add_argument("--out-dtype", type=str, default="{default}")
    parsed = args.parse_args()
    parsed.target = parsed.target or os.environ.get("TVM_TARGET")
    {again}return parsed
'''

TUNE = '''\
from workloads import create
from utils import parse_args

ARGS = parse_args()


def tune():
    return create("GMM", 64, ARGS.out_dtype)


if __name__ == "__main__":
    tune()
'''

BENCH = '''\
import argparse
from workloads import create


def bench(args):
    if args.out_dtype == "f16":
        args.out_dtype = "{f16}"
    elif args.out_dtype == "f32":
        args.out_dtype = "float32"
    else:
        raise ValueError(args.out_dtype)
    return create("GMM", 64, out_dtype=args.out_dtype)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out_dtype", choices=["f16", "f32"], default="f16")
    bench(parser.parse_args())
'''

TABLE_SUM_LINE = 12


@pytest.mark.parametrize("caller, found", [
    ('from workloads import create\n\nmod = create("GMM", 64, "float16")\n', True),
    ('from workloads import create\n\nmod = create("GMM", 64, "float32")\n', False),
    ('from workloads import create\n\nmod = create("GMM", 64)\n', False),  # keeps float32
])
def test_a_workload_table_passes_on_what_its_caller_gives(tmp_path, caller, found):
    files = {"workloads.py": WORKLOADS, "run.py": caller}
    expected = [("workloads.py", TABLE_SUM_LINE)] if found else []
    assert _tvm401(check_tree(tmp_path, files, select=["TVM401"], target="0.9")) == expected


def test_the_default_of_an_option_another_module_parses(tmp_path):
    files = {"workloads.py": WORKLOADS, "tune.py": TUNE, "utils.py": PARSE_ARGS.format(default="float16", again="")}
    found = check_tree(tmp_path, files, select=["TVM401"], target="0.9")
    assert _tvm401(found) == [("workloads.py", TABLE_SUM_LINE)]
    assert "parse_args() in utils.py" in next(f.message for f in found if f.code == "TVM401")


@pytest.mark.parametrize("default, again", [
    ("float32", ""),
    ("float16", "parsed.out_dtype = 'float32'\n    "),  # set again after parsing: not the default
])
def test_no_finding_where_the_parsed_option_is_not_float16(tmp_path, default, again):
    files = {"workloads.py": WORKLOADS, "tune.py": TUNE, "utils.py": PARSE_ARGS.format(default=default, again=again)}
    assert _tvm401(check_tree(tmp_path, files, select=["TVM401"], target="0.9")) == []


@pytest.mark.parametrize("f16, found", [("float16", True), ("float32", False)])
def test_an_option_the_caller_sets_in_a_branch(tmp_path, f16, found):
    files = {"workloads.py": WORKLOADS, "bench.py": BENCH.format(f16=f16)}
    result = check_tree(tmp_path, files, select=["TVM401"], target="0.9")
    assert _tvm401(result) == ([("workloads.py", TABLE_SUM_LINE)] if found else [])
    if found:
        assert "one of the values it passes" in next(f.message for f in result if f.code == "TVM401")
