"""The pre-filter wing: which files the analysis must see, and which rules must run on them.

Each rule says what it needs of a file in a declarative spec (`Rule.prefilter`, a
`tvmlint.checks.prefilter_spec.Prefilter`); this folder alone reads those specs, works out
what they name from the knowledge tables (`names.py`, `predicates.py`, once per rule and
release in `view.py`) and makes one decision per file for the engine (`decide.py`): no
rule can fire (the file is left to the parser's verdict), or these rules run on this text,
with what no rule needs blanked out (`prune.py`). It never decides what a finding is, only
what is left out of the analysis, and leaving it out never changes a finding: a run with
the wing switched off (`--no-prefilter`) gives the same ones (tests/test_speed.py's one
property test, over every rule case and the examples).
"""
