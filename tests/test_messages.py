"""A finding's message is one sentence with this site's facts; why and what to do are its detail.

Run over every rule's INVALID cases (the same runs as tests/test_rule_cases.py). What "one
sentence" means here, precisely (`problems`):

- no sentence ends inside it: no `.`, `!` or `?` followed by a blank and more text;
- no `;` followed by a blank at its top level, and at most one `: ` there (a cause after a
  colon, "could not be parsed: invalid syntax", is one sentence; "X: why: what to do" is a
  chain). The top level is what is outside parentheses, brackets and braces, `code spans`
  and quoted strings: a parenthesis may list facts ("when f is called from a.py:3; ...");
- at most LONGEST characters.
"""

from __future__ import annotations

import re
from typing import List

# the longest message a rule case may give. Most are under 160 (the median is about 115); the
# longest name where a value comes from: TVM401's te.sum with two tensors' dtypes given by a
# caller (226), TVM101 with its skipped passes and the call in another file that decides the context
LONGEST = 230

# TVM001's message is the parser's (analysis/used_names.py, run/engine.py, run/guards.py): it has no
# detail, and what follows its first ": " is Python's own SyntaxError text, quoted as Python words it
# ("Missing parentheses in call to 'print'. Did you mean print(...)?")
NO_DETAIL = {"TVM001"}
QUOTES_PYTHON = {"TVM001"}

_SENTENCE_END = re.compile(r"[.!?]\s+\S")
OPEN, CLOSE = "([{", ")]}"


def top_level(text: str) -> str:
    """`text` with what is inside brackets, `code spans` and quoted strings blanked out (an
    apostrophe inside a word, "TVM's", opens no quote)."""
    out: List[str] = []
    depth, quote = 0, None
    for index, char in enumerate(text):
        before = text[index - 1] if index else " "
        after = text[index + 1] if index + 1 < len(text) else " "
        if quote is not None:
            if char == quote and (quote == "`" or not after.isalnum()):
                quote = None
            out.append(" ")
        elif char == "`" or (char in "'\"" and not before.isalnum()):
            quote = char
            out.append(" ")
        elif char in OPEN:
            depth += 1
            out.append(" ")
        elif char in CLOSE:
            depth = max(depth - 1, 0)
            out.append(" ")
        else:
            out.append(char if depth == 0 else " ")
    return "".join(out)


def problems(message: str) -> List[str]:
    found = []
    unquoted = top_level(message) if message else ""
    outside_code = re.sub(r"`[^`]*`", "``", message)
    if _SENTENCE_END.search(outside_code):
        found.append("more than one sentence")
    if "; " in unquoted:
        found.append("'; ' at the top level")
    if unquoted.count(": ") > 1:
        found.append("a chain of ': '")
    if len(message) > LONGEST:
        found.append(f"{len(message)} characters (at most {LONGEST})")
    return found


def test_the_sentence_check_itself():
    # what a rule used to say: three sentences, chained by colons
    old = ("relay.transform.FoldScaleAxis() runs its passes through a Sequential, whose opt_level gate skips "
           "BackwardFoldScaleAxis (opt_level 3) at opt_level 2 (the default context): only FoldConstant runs. "
           "It needs opt_level 3: run it inside `with tvm.transform.PassContext(opt_level=3):`")
    assert "more than one sentence" in problems(old) and "a chain of ': '" in problems(old)
    assert problems("X is wrong: why; what to do") == ["'; ' at the top level"]
    assert problems("X: because: do this") == ["a chain of ': '"]
    assert problems("x" * (LONGEST + 1)) == [f"{LONGEST + 1} characters (at most {LONGEST})"]
    # facts in parentheses, code and quotes are not sentences; an apostrophe is no quote
    assert problems("TVM's `a. B: c; d` skips 'x: y' (when f is called from a.py:3; when g is called from b.py:4)") == []
    assert problems("The file could not be parsed: invalid syntax") == []
    assert problems("did you mean 'FuseOps'? It is") == ["more than one sentence"]


def shape_problems(code: str, finding) -> List[str]:
    """What is wrong with a finding's message and detail (empty: nothing), as rule `code` gives
    them: test_rule_cases asks it of every finding of every INVALID case it runs."""
    ours = finding.message.partition(": ")[0] if code in QUOTES_PYTHON else finding.message
    found = [f"{problem}: {finding.message}" for problem in problems(ours)]
    if finding.message.endswith("."):
        found.append(f"ends with a full stop, as ruff's do not: {finding.message}")
    if code not in NO_DETAIL:
        if not (finding.detail and finding.detail.endswith((".", "?"))):
            found.append(f"no detail of whole sentences: {finding.message} / {finding.detail}")
        elif finding.detail == finding.message:
            found.append(f"the detail repeats the message: {finding.message}")
    return found


def test_the_shape_check_sees_a_long_message_and_a_missing_detail():
    class Said:
        message = "x " * 200
        detail = ""
    assert len(shape_problems("TVM101", Said())) == 2
