"""The language server behind `tvmlint lsp`.

It needs the `lsp` extra (pygls, lsprotocol). Only `tvmlint.frontends.commands.lsp`
imports this package, and only when the command runs, so `tvmlint check`
never loads pygls.
"""
