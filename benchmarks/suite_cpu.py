"""CPU seconds the test suite spends per test file: a pytest plugin that prints figures and
asserts nothing.

    .venv/bin/python -m pytest -p benchmarks.suite_cpu [--suite-cpu-json OUT] [pytest's arguments]

On a shared machine wall time says more about the neighbours than about the tests; CPU time
(user + system of the test process and of every command it started and waited for) does not.
Each test phase is charged what its process spent since the phase before, so a module's
fixtures count towards the first test that used them; what a process spent collecting (importing
the test modules, building their parameters) is a figure of its own, not the first test's. With
pytest-xdist each worker measures its own tests and the figures are summed here. A process a
test leaves running (a daemon) is charged nothing: nobody waits for it.
"""

from __future__ import annotations

import json
import resource
from collections import defaultdict

import pytest

_KEY = "cpu_seconds"
_COLLECTION_KEY = "collection_cpu_seconds"
_last = None
_collected = None  # this process' collection, until its first report carries it


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_addoption(parser):
    parser.addoption("--suite-cpu-json", metavar="OUT", default=None,
                     help="write the CPU seconds per file and per test to OUT (JSON)")


def pytest_configure(config):
    global _last
    _last = _cpu()
    config._suite_cpu = {"files": defaultdict(float), "tests": defaultdict(float), "collection": 0.0}


def pytest_collection_finish(session):
    global _last, _collected
    now = _cpu()
    _collected, _last = now - _last, now


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    global _last, _collected
    outcome = yield
    report = outcome.get_result()
    now = _cpu()
    report.user_properties = [*report.user_properties, (_KEY, now - _last)]
    if _collected is not None:
        report.user_properties.append((_COLLECTION_KEY, _collected))
        _collected = None
    _last = now


def pytest_runtest_logreport(report):
    sink = _SINK.get("figures")
    if sink is None:
        return
    for name, value in report.user_properties:
        if name == _KEY:
            sink["files"][report.nodeid.split("::")[0]] += value
            sink["tests"][report.nodeid] += value
        elif name == _COLLECTION_KEY:
            sink["collection"] += value


_SINK: dict = {}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    # only the process that reports (the controller, or the one process without xdist) sums
    if not hasattr(session.config, "workerinput"):
        _SINK["figures"] = session.config._suite_cpu


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    files = config._suite_cpu["files"]
    total = sum(files.values())
    terminalreporter.section("CPU seconds per test file (test processes and the commands they waited for)")
    for name, seconds in sorted(files.items(), key=lambda pair: -pair[1]):
        terminalreporter.write_line(f"{seconds:9.1f}  {100 * seconds / total if total else 0:5.1f}%  {name}")
    terminalreporter.write_line(f"{total:9.1f}  total in tests ({len(files)} files)")
    terminalreporter.write_line(f"{config._suite_cpu['collection']:9.1f}  collecting the tests (every test process)")
    out = config.getoption("--suite-cpu-json")
    if out:
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({"files": dict(files), "tests": dict(config._suite_cpu["tests"]),
                       "collection": config._suite_cpu["collection"]}, handle, indent=1, sort_keys=True)
