"""Checking tasks, in this process or in worker processes.

Tasks stream in and results stream out in completion order (the caller files
them by index): a run never holds more than a few tasks per worker, whatever
the size of the tree.
"""

from __future__ import annotations

import os
import sys
from typing import Iterable, Iterator, List, Optional, Tuple

from tvmlint.analysis.results import FileResult
from tvmlint.base.notebook import decode_file, file_bound, is_notebook
from tvmlint.base.source import read_file, undecodable_at
from tvmlint.run.engine import Checked, check_module, parse_error
from tvmlint.run.guards import too_large
from tvmlint.run.task import Task

# (index, what the cache records of the file read: (signature, when, digest), what was found)
Outcome = Tuple[int, Optional[tuple], Checked]

# batches handed to the pool ahead of the workers, per worker: enough to keep them busy
AHEAD = 4
# Small files go to a worker together: each hand-over costs both processes a pickle and a
# wake-up, about a millisecond, as much as checking a small file. A batch ends at this many
# files or bytes, whichever comes first.
BATCH_FILES = 16
BATCH_BYTES = 64 * 1024


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def failed(task: Task, why: str, where: Tuple[int, int] = (1, 1)) -> Checked:
    result = FileResult(task.shown, task.module_name, task.version, task.codes)
    result.findings = parse_error(task.shown, task.codes, *where, why)
    return Checked(result, False)


def run_task(task: Task) -> Outcome:
    """Read and check one file; one larger than `max-file-size` is not parsed (TVM001 says so)."""
    if task.text is not None:
        return _run_text(task)
    notebook = is_notebook(task.path)
    # a notebook's outputs (plots, tables) are no source: its file may hold more, its code no more
    file_limit = file_bound(task.max_bytes) if notebook else task.max_bytes
    if file_limit is not None and not task.cached:  # not even read: the cache would want its digest
        why = too_large(_size(task.path), file_limit)
        if why is not None:
            return task.index, None, failed(task, why)
    try:
        data, state = _read(task)
    except OSError as error:
        return task.index, None, failed(task, f"The file could not be read: {error.strerror}")
    why = too_large(len(data), file_limit)
    if why is not None:
        return task.index, state, failed(task, why)
    source, why = decode_file(task.path, data)
    if source is None:
        return task.index, state, failed(task, f"The file could not be decoded: {why}", (1, 1) if notebook else undecodable_at(data))
    del data
    why = too_large(len(source.text.encode("utf-8", "surrogatepass")), task.max_bytes) if notebook else None
    if why is not None:
        return task.index, state, failed(task, why)
    checked = check_module(source.text, task)
    if notebook and source.broken:  # cells that do not parse, left blank in its text: TVM001 each
        checked.result.findings.extend(
            finding for line, why in source.parse_errors() for finding in parse_error(task.shown, task.codes, line, 1, why))
    return task.index, state, checked


def _run_text(task: Task) -> Outcome:
    """An editor's buffer, as its file's text would be checked (a notebook's cells come joined)."""
    why = too_large(len(task.text.encode("utf-8", "surrogatepass")), task.max_bytes)
    if why is not None:
        return task.index, None, failed(task, why)
    checked = check_module(task.text, task)
    return task.index, None, checked


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # reading it says why it cannot be read


def run_batch(tasks: List[Task]) -> List[Outcome]:
    return [run_task(task) for task in tasks]


def _batches(tasks: Iterator[Task]) -> Iterator[List[Task]]:
    batch: List[Task] = []
    size = 0
    for task in tasks:
        try:
            size += os.path.getsize(task.path)
        except OSError:
            pass  # its own task says why it cannot be read
        batch.append(task)
        if len(batch) >= BATCH_FILES or size >= BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _read(task: Task) -> Tuple[bytes, Optional[tuple]]:
    if not task.cached:
        return read_file(task.path), None
    from tvmlint.run.cache import content_digest, read_signed

    data, signature, seen = read_signed(task.path)
    return data, (signature, seen, content_digest(data))


class Workers:
    """The worker processes of one run, kept from one round to the next: a new pool would fork
    workers that import libcst again (a sixth of a second each) for a round of a few files.
    A `with` block: the processes end with it."""

    def __init__(self, jobs: int):
        self.jobs = jobs
        self._pool = None
        self._size = 0
        self._context = None

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *_: object) -> None:
        self._discard()

    def _discard(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _executor(self, workers: int):
        if self._pool is None or self._size < workers:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._discard()
            # fork shares what the parent already imported and loaded (rules, knowledge);
            # elsewhere the platform's default start method is used. Unlike
            # multiprocessing.Pool, which would wait for a dead worker's task forever, the
            # executor says when a worker dies.
            methods = multiprocessing.get_all_start_methods()
            self._context = multiprocessing.get_context("fork" if "fork" in methods and sys.platform != "darwin" else None)
            self._pool = ProcessPoolExecutor(
                workers, mp_context=self._context, initializer=_exit_with_parent, initargs=(os.getpid(),),
            )
            self._size = workers
        return self._pool

    def execute(self, tasks: Iterable[Task], count: int) -> Iterator[Outcome]:
        """Outcomes of `count` tasks in completion order, with up to `jobs` worker processes."""
        if self.jobs <= 1 or count <= 1:
            for task in tasks:
                yield run_task(task)
            return
        pending = _batches(iter(tasks))
        workers = min(self.jobs, count)
        while True:
            suspects: List[Task] = []
            yield from _pool(pending, workers, self._executor(workers), suspects)
            if not suspects:
                return
            # The pool broke (a crash inside the parser, the OOM killer): one of the tasks it
            # held killed it. Each runs alone, so the one that kills its process is reported
            # instead of checked; the tasks not yet handed out go on in a new pool.
            self._discard()
            for task in sorted(suspects, key=lambda task: task.index):
                yield _alone(task, self._context)


def _pool(pending: Iterator[List[Task]], workers: int, pool, suspects: List[Task]) -> Iterator[Outcome]:
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    running = {}

    def fill() -> None:
        while len(running) < workers * AHEAD:
            batch = next(pending, None)
            if batch is None:
                return
            try:
                running[pool.submit(run_batch, batch)] = batch
            except BrokenProcessPool:
                suspects.extend(batch)
                return

    fill()
    while running:
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in done:
            batch = running.pop(future)
            try:
                yield from future.result()
            except BrokenProcessPool:
                suspects.extend(batch)
        if suspects:
            # the pool is gone: what it still held either finished before it broke or went with it
            for future, batch in running.items():
                try:
                    yield from future.result()
                except BrokenProcessPool:
                    suspects.extend(batch)
            return
        fill()


def _alone(task: Task, context) -> Outcome:
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(1, mp_context=context) as single:
        try:
            return single.submit(run_task, task).result()
        except BrokenProcessPool:
            return task.index, None, failed(task, "The file could not be analysed: the analysis crashed on it")


def _exit_with_parent(parent: int) -> None:
    """A worker whose run was killed (not interrupted) would wait for tasks forever: let it go."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
