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


def test_a_scan_that_stops_after_a_line_knows_as_much_up_to_it_as_the_whole_scan():
    # --add-noqa tokenizes only as far as its last finding's line (a file of megabytes with a
    # finding at the top); what it asks about lines up to there must be what the whole scan says
    from tvmlint.base.noqa import _line_ends, directives, noqa_lines

    text = (
        "import tvm  # noqa: TVM101\n"
        "s = '''\nin a string # noqa: TVM102\n'''  # noqa: TVM103\n"
        "total = 1 + \\\n    2  # noqa\n"
        "call(\n    1,  # noqa: TVM104\n    2)\n"
        "\n# a comment\nx = 1\n"
    )
    whole_ends, _ = _line_ends(text)
    whole_map, whole_directives = noqa_lines(text), directives(text)
    for through in range(1, text.count("\n") + 1):
        ends, _ = _line_ends(text, through)
        assert {line for line in ends if line <= through} == {line for line in whole_ends if line <= through}
        assert {k: v for k, v in noqa_lines(text, through).items() if k <= through} == \
            {k: v for k, v in whole_map.items() if k <= through}
        assert [d for d in directives(text, through) if d.line <= through] == \
            [d for d in whole_directives if d.line <= through]
