"""TVM107's fix: a documented rename is safe (issue 3), a spelling guess is not."""

from helpers import check_tree

SOURCE = (
    "import tvm\n"
    "with tvm.transform.PassContext(config={'tir.disable_vectorize': True, 'tir.disable_vectorise': True}):\n"
    "    pass\n"
)


def test_rename_is_safe_and_guess_is_unsafe(tmp_path):
    findings = check_tree(tmp_path, {"a.py": SOURCE}, select=["TVM107"], target="0.27")
    fixes = {f.message.split("'")[1]: f.fix for f in findings}
    assert fixes["tir.disable_vectorize"].safe is True
    assert fixes["tir.disable_vectorize"].edits[0].content == "'tirx.disable_vectorize'"
    assert fixes["tir.disable_vectorise"].safe is False
