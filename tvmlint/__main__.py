from tvmlint.frontends.cli import entry

entry()
