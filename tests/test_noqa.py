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


def test_noqa_after_a_form_feed_line(tmp_path):
    # a page break (\x0c) is whitespace to Python, not a line end: the noqa stays on line 4
    source = HEAD + "\x0c\n" + "a = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101\nb = relay.transform.FoldScaleAxis()(mod)\n"
    lines = [f.start.line for f in check_tree(tmp_path, {"a.py": source}, select=["TVM101"])]
    assert lines == [5]
