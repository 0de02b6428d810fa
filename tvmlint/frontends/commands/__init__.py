"""Subcommands of `tvmlint`: each module has `add_parser(subparsers)` and `run(args) -> int`.

Adding a command means adding a module and its name to COMMANDS.
"""

COMMANDS = ("check", "fix", "rule", "rules", "lsp", "registry", "daemon", "explain", "trace")

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A mistake in how tvmlint was called; printed as one line, exit 2."""
