"""A long-lived tvmlint process that `tvmlint check --daemon` hands its run to.

A fresh process that must analyse a file pays for importing libcst (0.2 s on a
2-core machine) before it reads a line: more than pre-commit's budget for one
file. The daemon pays it once; each `check --daemon` then costs a small client
(Python, argument parsing, a socket) and the analysis itself. The client falls
back to checking in its own process whenever the daemon is absent, stale or
fails, so `--daemon` can change how fast a run is, never what it reports.
"""

# True inside the daemon while it runs a client's command: that run must not forward again
SERVING = False
