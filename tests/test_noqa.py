"""`# noqa` suppressions."""

from helpers import check_tree

HEAD = "import tvm\nfrom tvm import relay\n"


def test_noqa_with_code_bare_and_other_code(tmp_path):
    source = HEAD + (
        "a = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101\n"
        "b = relay.transform.FoldScaleAxis()(mod)  # noqa\n"
        "c = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM102\n"
        "d = relay.transform.FoldScaleAxis()(mod)  # NOQA:TVM102,TVM101\n"
        "e = relay.transform.FoldScaleAxis()(mod)\n"
    )
    lines = [f.start.line for f in check_tree(tmp_path, {"a.py": source})]
    assert lines == [5, 7]
