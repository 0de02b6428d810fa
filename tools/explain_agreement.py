"""Compare `tvmlint explain` with TVM101 on a whole tree: every site explain finds, against the findings.

Usage: python tools/explain_agreement.py TREE TARGET FINDINGS_JSON
  (FINDINGS_JSON from `tvmlint check TREE --select TVM101 --target-version TARGET --format json`, run in TREE)

Every module whose text holds one of TVM101's trigger words is explained site by site
(tvmlint.frontends.explain.explain_all, the tree as the project); the sites explain says TVM101 reports
(`Explanation.reported`) must be the findings, no more and no fewer. The project's files are read
and checked once for the whole tree (shared caches), not once per module.
"""
import json
import os
import sys
import time
from pathlib import Path

from tvmlint.base.versions import parse_version
from tvmlint.checks.tvm101_gated_pass_skipped import GatedPassSkipped
from tvmlint.frontends import explain as ex
from tvmlint.knowledge.target import get_knowledge
from tvmlint.prefilter.view import view_of
from tvmlint.run.config import Overrides, SettingsResolver

tree, target, findings = sys.argv[1], sys.argv[2], sys.argv[3]
os.chdir(tree)
resolver = SettingsResolver(Overrides(target_version=target), cwd=Path(tree))
TEXTS, FILES, CHECKED = {}, None, {}
orig_text, orig_files, orig_checked = ex.ProjectView.text_of, ex.ProjectView.files, ex.ProjectView.checked
def text_of(self, f):
    if f not in TEXTS: TEXTS[f] = orig_text(self, f)
    return TEXTS[f]
def files(self):
    global FILES
    if FILES is None: FILES = orig_files(self)
    here = os.path.normcase(os.path.abspath(self.path))
    return [f for f in FILES if os.path.normcase(os.path.abspath(f)) != here]
def checked(self, f, follow):
    key = (f, follow)
    if key not in CHECKED: CHECKED[key] = orig_checked(self, f, follow)
    return CHECKED[key]
ex.ProjectView.text_of, ex.ProjectView.files, ex.ProjectView.checked = text_of, files, checked
tokens = view_of(GatedPassSkipped, get_knowledge(parse_version(target))).tokens
reported = {(f["path"], f["line"], f["column"]) for f in json.load(open(findings)) if f["code"] == "TVM101"}
mine, sites, errors = set(), 0, 0
start = time.time()
from tvmlint.run.discovery import discover

for path in discover([Path(".")], lambda p: False).files:
    try:
        text = open(path, encoding="utf-8").read()
    except Exception:
        continue
    if not any(t in text for t in tokens):
        continue
    rel = os.path.relpath(path)
    try:
        for e in ex.explain_all(Path(rel), resolver, shown=rel, root=Path(".")):
            sites += 1
            if e.reported:
                mine.add((rel, e.line, e.column))
    except ex.NotASite:
        pass
    except Exception as err:
        errors += 1
        print("ERROR", rel, type(err).__name__, err)
print(f"sites {sites}, explain reports {len(mine)}, TVM101 {len(reported)}, errors {errors}, {time.time()-start:.0f}s")
print("only explain:", sorted(mine - reported)[:20])
print("only TVM101:", sorted(reported - mine)[:20])
