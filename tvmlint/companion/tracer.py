"""`tvmlint trace`, child side: a PassInstrument in the user's own process (stdlib and TVM only).

Loaded by path from trace_boot/sitecustomize.py once `import tvm` has run in the
user's script, never imported by tvmlint. It changes no line of the user's code:
every PassContext the process creates gets the Recorder appended to its
instruments (PassContext.__init__ and override_instruments are wrapped), and the
default context, the one a pass called outside any `with` runs in, gets it
through override_instruments.

Each pass run where no other is running starts a "run" (a pipeline): its call
site is the innermost frame in the user's files, its context what
PassContext.current() says then. What a Sequential's gate skipped never reaches
an instrument; as in instrumented.py (whose pieces are reused), it is found from
the Sequential's members once the run ends.

Everything is appended to a journal (one JSON object a line, one write each, so
a process killed or forked mid-run leaves whole lines) which tvmlint turns into
the trace file; nothing is kept to write at exit.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import json
import os
import re
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sibling(name):
    spec = importlib.util.spec_from_file_location("tvmlint_" + name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pieces = sibling("instrumented")
frames = sibling("trace_frames")


class TracedNode(pieces.Node):
    failed = None  # why, when the pass raised before it ended
    stopped = False  # it was a KeyboardInterrupt: Ctrl-C or --timeout
    built_at = None  # the line of the user's code that built this Sequential

    def to_json(self):
        row = super().to_json()
        if self.failed:
            row["state"], row["why"] = "unfinished" if self.stopped else "failed", self.failed
        if self.built_at:
            row["built_at"] = self.built_at
        return row


class Journal:
    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def write(self, event):
        event["pid"] = os.getpid()
        line = (json.dumps(event, default=str) + "\n").encode("utf-8", "surrogateescape")
        try:
            os.write(self.fd, line)
        except OSError:
            pass  # a full disk must not break the user's run


def printed(mod):
    """The module as TVMScript; a relay-era module as its text format (duck typing: whichever it has)."""
    errors = []
    for method in ("script", "astext"):
        show = getattr(mod, method, None)
        if show is None:
            continue
        try:
            return show()
        except Exception as error:  # a module that printer cannot print: try the next
            errors.append(pieces.one_line(error))
    return "# the module could not be printed: " + "; ".join(errors or ["it has no script() nor astext()"]) + "\n"


def plain(value):
    """A config value as JSON: numbers, strings and booleans as they are, TVM objects as text."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    inner = getattr(value, "value", None)
    if isinstance(inner, (bool, int, float, str)):
        return inner
    text = str(value)
    return text if len(text) <= 200 else text[:197] + "..."


class Tracer:
    def __init__(self, tvm, options, journal):
        self.tvm = tvm
        self.options = options
        self.journal = journal
        self.sites = frames.Sites(tvm)
        transform = tvm.ir.transform
        self.PassContext, self.Sequential = transform.PassContext, transform.Sequential
        self.known = {}  # PassInfo -> the Sequential it belongs to
        self.built = {}  # PassInfo -> where the user's code built that Sequential
        self.entered = []  # (context, where the user's code entered it), innermost last
        self.defaults = []  # the threads' default contexts, given the recorder
        self.local = threading.local()  # each thread's passes nest on their own stack
        self.runs = itertools.count(1)
        self.ir_files = itertools.count(int(options.get("ir_first", 1)))
        self.wanted = [name for name in options.get("ir_after", ())]
        self.all_ir = bool(options.get("ir_after_all"))
        self.recorder = self.make_recorder()
        self.pid = os.getpid()  # a forked process's IR files carry its own
        self.interrupted = False
        self.wakeup = None  # the read end of the signal wakeup pipe

    @property
    def stack(self):
        if not hasattr(self.local, "stack"):
            self.local.stack = []
        return self.local.stack

    @property
    def run(self):
        return getattr(self.local, "run", None)

    @run.setter
    def run(self, value):
        self.local.run = value

    # -- what a Sequential holds, learnt as Sequentials are built and called ------------------
    def learn(self, seq):
        if not isinstance(seq, self.Sequential):
            return
        info = seq.info
        if info in self.known:
            return
        self.known[info] = seq
        for member in seq.passes:
            self.learn(member)

    # -- a run --------------------------------------------------------------------------------
    def context_facts(self):
        ctx = self.PassContext.current()
        entered_at = None
        for other, where in reversed(self.entered):
            if other.same_as(ctx):
                entered_at = where
                break
        try:
            config = {str(key): plain(value) for key, value in ctx.config.items()}
        except Exception:  # a config the FFI cannot list
            config = {}
        setting = {
            "opt_level": int(ctx.opt_level),
            "required": [str(name) for name in ctx.required_pass],
            "disabled": [str(name) for name in ctx.disabled_pass],
        }
        default = entered_at is None and any(ctx.same_as(one) for one in self.defaults)
        facts = dict(setting, config=config, entered_at=entered_at, default=default)
        return setting, facts

    def begin(self):
        number = next(self.runs)  # one step under the GIL: threads never share a number
        setting, facts = self.context_facts()
        stack = self.sites.stack()
        self.run = {"id": number, "setting": setting, "site": stack[0] if stack else None}
        self.journal.write({"e": "run", "run": number, "site": stack[0] if stack else None,
                            "stack": stack, "context": facts, "time": time.time()})

    def before(self, info):
        if not self.stack:
            self.begin()
        node = TracedNode(str(info.name), int(info.opt_level), len(self.stack))
        seq = self.known.get(info)
        if seq is not None:
            node.sequential, node.kind = seq, "sequential"
            node.built_at = self.built.get(info)
        (self.stack[-1].children if self.stack else self.run.setdefault("roots", [])).append(node)
        self.stack.append(node)
        self.journal.write({"e": "b", "run": self.run["id"], "name": node.name, "opt_level": node.opt_level,
                            "depth": node.depth})
        node.start = time.perf_counter()

    def after(self, mod, info):
        if not self.stack:
            return
        node = self.stack.pop()
        node.seconds = time.perf_counter() - node.start
        self.journal.write({"e": "a", "run": self.run["id"], "name": node.name, "seconds": node.seconds})
        if self.all_ir or any(self.wants(node.name, wanted) for wanted in self.wanted):
            self.dump(mod, node)
        if not self.stack:
            self.finish()

    @staticmethod
    def wants(name, wanted):
        # the name as users write it: FuseTIR, relax.transform.FuseTIR, transform.FuseTIR, tirx.LowerIntrin
        return name == wanted or name.rpartition(".")[2] == wanted.rpartition(".")[2]

    def finish(self, failed=None, status="finished"):
        run, self.run = self.run, None
        if status == "finished":
            self.interrupted = False  # a Ctrl-C the script caught is over once a run ends well
        tree = [pieces.merge(node, run["setting"]) for node in run.get("roots", ())]
        self.journal.write({"e": "done", "run": run["id"], "tree": tree, "failed": failed, "status": status})

    def abandon(self, depth, error):
        """The passes a Python call began and never ended (one raised): closed, marked failed, or
        unfinished when it was Ctrl-C or --timeout (KeyboardInterrupt) that stopped them."""
        # TVM hands a KeyboardInterrupt raised inside a pass back as a bare RuntimeError
        stopped = isinstance(error, KeyboardInterrupt) or self.was_interrupted()
        why = pieces.one_line(error)
        while len(self.stack) > depth:
            node = self.stack.pop()
            node.seconds, node.failed, node.stopped = time.perf_counter() - node.start, why, stopped
            self.journal.write({"e": "a", "run": self.run["id"], "name": node.name, "seconds": node.seconds,
                                "failed": why})
        if not self.stack and self.run is not None:
            self.finish(failed=why, status="unfinished" if stopped else "failed")

    def dump(self, mod, node):
        number = next(self.ir_files)
        site = self.run_site()
        where = "nosite"
        if site:
            where = f"{os.path.basename(site['file'])}-{site['line']}"
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{number:04d}_{where}_{node.name}")
        if os.getpid() != self.pid:
            name += f"_pid{os.getpid()}"
        path = os.path.join(self.options["ir_dir"], name + ".py")
        text = printed(mod)
        try:
            with open(path, "x", encoding="utf-8") as out:
                out.write(f"# IR after {node.name}, run {self.run['id']}, at {where}\n{text}\n")
        except OSError as error:
            self.journal.write({"e": "ir_error", "run": self.run["id"], "pass": node.name, "error": str(error)})
            return
        self.journal.write({"e": "ir", "run": self.run["id"], "pass": node.name, "file": path})

    def run_site(self):
        return self.run.get("site") if self.run else None

    # -- the instrument and the wrapped API ----------------------------------------------------
    def make_recorder(self):
        tracer = self

        @self.tvm.instrument.pass_instrument
        class TvmlintTraceRecorder:
            def run_before_pass(self, mod, info):
                tracer.before(info)

            def run_after_pass(self, mod, info):
                tracer.after(mod, info)

        return TvmlintTraceRecorder()

    def install(self):
        PassContext, Pass, tracer = self.PassContext, self.tvm.ir.transform.Pass, self
        signature = inspect.signature(PassContext.__init__)
        if "instruments" not in signature.parameters:
            raise Unsupported("its PassContext takes no instruments")
        original_init, original_enter, original_exit = PassContext.__init__, PassContext.__enter__, PassContext.__exit__
        original_override, original_call = PassContext.override_instruments, Pass.__call__
        original_seq_init = self.Sequential.__init__

        def with_recorder(instruments):
            instruments = list(instruments) if instruments else []
            if not any(tracer.recorder.same_as(one) for one in instruments):
                instruments.append(tracer.recorder)
            return instruments

        def init(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            bound.arguments["instruments"] = with_recorder(bound.arguments.get("instruments"))
            original_init(*bound.args, **bound.kwargs)

        def enter(self):
            stack = tracer.sites.stack()
            tracer.entered.append((self, stack[0] if stack else None))
            return original_enter(self)

        def exit_(self, *exc):
            for index in range(len(tracer.entered) - 1, -1, -1):
                if tracer.entered[index][0].same_as(self):
                    del tracer.entered[index]
                    break
            return original_exit(self, *exc)

        def override(self, instruments):
            return original_override(self, with_recorder(instruments))

        def call(self, *args, **kwargs):
            tracer.learn(self)
            depth = len(tracer.stack)
            if not depth:
                tracer.instrument_current(original_override)
            try:
                return original_call(self, *args, **kwargs)
            except BaseException as error:
                if len(tracer.stack) > depth:
                    tracer.abandon(depth, error)
                raise

        def seq_init(self, *args, **kwargs):
            original_seq_init(self, *args, **kwargs)
            tracer.learn(self)
            caller = sys._getframe(1).f_code
            if tracer.sites.is_user(caller.co_filename):  # built by the user's code, not by a TVM pipeline
                line = sys._getframe(1).f_lineno
                tracer.built[self.info] = {"file": tracer.sites.describe(caller.co_filename, line, caller.co_name)["file"],
                                           "line": line}

        PassContext.__init__, PassContext.__enter__, PassContext.__exit__ = init, enter, exit_
        PassContext.override_instruments, Pass.__call__ = override, call
        self.Sequential.__init__ = seq_init
        self.with_recorder = with_recorder
        self.instrument_current(original_override)

        self.watch_interrupts()

        def forked():
            self.local = threading.local()
            self.runs = itertools.count(1)  # numbered per process: runs are keyed by pid and number

        os.register_at_fork(after_in_child=forked)


    def instrument_current(self, override):
        """Give the current context the recorder when it has none: each thread's default context (a
        pass called outside any `with`), or one C++ code created. Contexts made in Python have it."""
        ctx = self.PassContext.current()
        instruments = list(ctx.instruments)
        if any(self.recorder.same_as(one) for one in instruments):
            return
        if not any(ctx.same_as(other) for other, _where in self.entered):
            self.defaults.append(ctx)
        override(ctx, self.with_recorder(instruments))

    def watch_interrupts(self):
        """Note SIGINT (Ctrl-C, or tvmlint's --timeout) at the C level: the signal module writes each
        signal's number to a wakeup pipe, and Python's own handler still raises KeyboardInterrupt
        where the user's code is (a Python handler of ours would show in its traceback)."""
        import signal

        try:
            read, write = os.pipe()
            os.set_blocking(read, False)
            os.set_blocking(write, False)
            previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        except (ValueError, OSError):  # TVM imported outside the main thread
            return
        if previous != -1:  # someone's already (an event loop): theirs stays
            signal.set_wakeup_fd(previous)
            return
        self.wakeup = read

    def was_interrupted(self):
        import signal

        if self.wakeup is not None and not self.interrupted:
            try:
                self.interrupted = int(signal.SIGINT) in os.read(self.wakeup, 65536)
            except OSError:  # nothing arrived
                pass
        return self.interrupted


class Unsupported(Exception):
    pass


def start(tvm, options):
    """Install the tracer in this process; what a TVM without instruments lacks goes to the journal."""
    journal = Journal(options["journal"])
    version = str(getattr(tvm, "__version__", ""))
    instrument = getattr(tvm, "instrument", None)
    if instrument is None or not hasattr(instrument, "pass_instrument"):
        journal.write({"e": "unsupported", "tvm": version, "why": "it has no tvm.instrument.pass_instrument"})
        return None
    tracer = Tracer(tvm, options, journal)
    try:
        tracer.install()
    except Unsupported as error:
        journal.write({"e": "unsupported", "tvm": version, "why": str(error)})
        return None
    journal.write({"e": "tvm", "version": version, "location": os.path.dirname(os.path.abspath(tvm.__file__)),
                   "python": sys.executable})
    return tracer
