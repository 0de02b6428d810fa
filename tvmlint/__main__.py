from tvmlint.cli import entry

entry()
