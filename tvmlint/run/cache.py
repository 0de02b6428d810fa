"""The result cache: what a run learnt of each file, kept for the next run.

One store per tvmlint build and rules/ data (`<cache-dir>/store-<salt>.pickle`,
the salt hashing tvmlint's version, its code and the rules/ data), read once at
the start of a run and written once at its end. It holds:

- `files`: path -> (stat signature, when it was taken, content digest). A file
  whose signature is unchanged, and vouches for its content
  (tvmlint.base.filestate.trusted), is not read again: the run only stats it.
  Otherwise it is read and hashed.
- `results`: key -> one file's result (tvmlint.run.compact.pack). A key hashes the
  content digest and where and how the file was checked (shown path, module
  name, the effective settings and rule codes, the stage).
- `runs`: key -> the findings of a whole run, the key hashing every file's
  result key. The project-wide step (contexts followed across modules) depends
  on every file, so only a run where no file changed reuses it; it then reads
  no result and imports no rule. A changed helper reaches its callers.
- `facts` (a file of its own, `facts-<salt>.pickle`, sealed the same way, read only by
  a run that asks one): (content digest, question) -> what those bytes answer: a file's
  words (tvmlint.run.words), whether a project-gate pattern matches it
  (tvmlint.run.gate), the modules it may name (tvmlint.run.low_contexts). A run over a
  project asks them of most of its files, nearly all unchanged: kept for the digests
  `files` knows, they are read from here instead of from every file. Apart, they cost
  nothing to the many runs that never ask (a file that settles alone).
- `readers`: the files (by absolute path) whose last check on their own had to read
  their project (tvmlint.run.runner._in_project): the next check of one goes to its
  project at once, without the check alone that would only find that out again.

The store lives in the checked tree, and unpickling runs code: a repository
could ship one. So a store is sealed with an HMAC under a key of the user's own,
kept outside any tree (`user_cache_dir()/result-cache.key`, made on first use),
and is unpickled only when its seal is right; another user's store, or one that
came with the tree, is not read, only replaced. Where no key can be kept, the
result cache is off.

Concurrent runs may share the directory: the store is replaced atomically and
merged with what another run wrote since this one read it, so at worst a
result is computed again. Results unused for a month go, and so do the stores
of other tvmlint builds but the newest few.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import re
import time
from pathlib import Path
from typing import Dict, Optional, Tuple

from tvmlint.base.filestate import Signature, now_ns, signature, trusted
from tvmlint.base.source import read_file_stat
from tvmlint.run.fingerprints import code_fingerprint

# what the store keeps of a file: (its status signature, when that was seen, its content digest)
FileState = Tuple[Signature, int, str]
from tvmlint.run.user_dirs import user_cache_dir

DEFAULT_DIR = ".tvmlint_cache"
STORE_PREFIX = "store-"
FACTS_PREFIX = "facts-"
STORE_FORMAT = 3
SEAL = b"tvmlint result store, sealed\n"  # then the HMAC-SHA256 of the pickle, then the pickle
KEY_NAME = "result-cache.key"
KEEP_STORES = 4  # other tvmlint builds' stores (an editable install changes with every edit)
KEEP_RUNS = 8  # whole runs (`tvmlint check .`, a subdirectory, the pre-commit hook's files)
STALE_DAYS = 30
RESULTS_PER_FILE, SPARE_RESULTS = 4, 1000  # past that many results, the least recently used go
DAY = 24 * 3600


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def read_signed(path) -> Tuple[bytes, Signature, int]:
    """A file's bytes, its signature, and when it was taken (before reading, so a write
    during the read is a later write)."""
    seen = now_ns()
    data, status = read_file_stat(path)
    return data, signature(status), seen


def user_key() -> Optional[bytes]:
    """The user's key for sealing stores, made on first use (readable by the user alone);
    None where it can be neither read nor made (no home, a read-only one)."""
    try:
        path = user_cache_dir() / KEY_NAME
    except RuntimeError:  # Path.home() with no home to find
        return None
    for _ in range(2):
        try:
            with open(path, "rb") as handle:
                key = handle.read()
            return key if len(key) >= 32 else None
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue  # another run made it meanwhile: read that one
        except OSError:
            return None
        key = os.urandom(32)
        with os.fdopen(fd, "wb") as out:
            out.write(key)
        return key
    return None


TAG_NAME = "CACHEDIR.TAG"
TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# tvmlint's result cache\n"


def owned(directory: Path) -> bool:
    """Whether `directory` may hold the store: it does not exist yet, is empty, or is a cache
    tvmlint made (its CACHEDIR.TAG). `cache-dir` can name any directory ("." or build/):
    tvmlint's .gitignore (`*`) and CACHEDIR.TAG would make git and backups skip it, and the
    clean-up of old stores would delete what is not tvmlint's."""
    try:
        if not any(os.scandir(directory)):
            return True
    except FileNotFoundError:
        return True
    except OSError:  # a file of that name, or a directory that cannot be listed
        return False
    try:
        # a regular file only: a FIFO or a link to a terminal (a tree can ship either) would wait
        data, _status = read_file_stat(directory / TAG_NAME, limit=4096)
    except OSError:
        return False
    return b"tvmlint" in data[:200]


def _seal(key: bytes, body: bytes) -> bytes:
    return hmac.new(key, body, hashlib.sha256).digest()


class ResultCache:
    def __init__(self, directory: Path):
        from tvmlint.knowledge.tables import data_fingerprint

        self.directory = directory
        self.owned = owned(directory)
        self.key_bytes = user_key() if self.owned else None  # no key: neither read nor written
        self.salt = f"{code_fingerprint()}:{data_fingerprint()}"
        name = hashlib.blake2b(self.salt.encode(), digest_size=10).hexdigest()
        self.path = directory / f"{STORE_PREFIX}{name}.pickle"
        self.facts_path = directory / f"{FACTS_PREFIX}{name}.pickle"
        self.hits = 0
        self.writes = 0
        self._today = int(time.time() // DAY)
        self._changed = False
        self._loaded_as: Optional[Tuple[int, int, int]] = None
        self.files: Dict[str, FileState] = {}
        self.results: Dict[str, Tuple[int, bytes]] = {}  # key -> (day last used, packed result)
        self.runs: Dict[str, Tuple[int, bytes]] = {}
        self._facts: Optional[Dict[Tuple[str, str], object]] = None  # read when first asked
        self._facts_changed = False
        self._facts_loaded_as: Optional[Tuple[int, int, int]] = None
        self.readers: Dict[str, bool] = {}  # absolute path -> its last one-file check read its project
        self._used: set = set()
        self._load()

    def still_current(self) -> bool:
        """Whether the store on disk is what this one holds: nothing left unwritten, nobody
        wrote it since, and it is still tvmlint's directory. (Facts written by another run
        since are read again when asked.)"""
        if self._changed or self._facts_changed or not owned(self.directory):
            return False
        if self._loaded_as is None or _stamp(self.path) != self._loaded_as:
            return False
        if self._facts is not None and _stamp(self.facts_path) != self._facts_loaded_as:
            self._facts, self._facts_loaded_as = None, None
        return True

    def begin_run(self) -> None:
        """What a run counts starts afresh (a kept store's next run)."""
        self.hits = 0
        self.writes = 0
        self._today = int(time.time() // DAY)
        self._used = set()

    def _load(self) -> None:
        stored = self._read()
        if stored is not None:
            self.files, self.results, self.runs, self.readers = stored

    def _read(self):
        found = self._read_sealed(self.path, 5)
        if found is None:
            return None
        self._loaded_as = found[1]
        return found[0]

    def _read_sealed(self, path: Path, length: int):
        """(the tables a sealed pickle holds, its file's stamp), or None: missing, not sealed by
        this user's key (never unpickled, replaced at the end), damaged or of another format."""
        if self.key_bytes is None:
            return None
        try:
            data, status = read_file_stat(path)  # a regular file only (a FIFO would wait)
        except OSError:
            return None
        seal, body = data[len(SEAL) : len(SEAL) + 32], data[len(SEAL) + 32 :]
        if not data.startswith(SEAL) or not hmac.compare_digest(seal, _seal(self.key_bytes, body)):
            return None
        try:
            stored = pickle.loads(body)
        except (EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
            return None  # damaged, or of another format: start afresh
        if not (isinstance(stored, tuple) and len(stored) == length and stored[0] == STORE_FORMAT):
            return None
        return stored[1:], (status.st_mtime_ns, status.st_size, status.st_ino)

    @property
    def facts(self) -> Dict[Tuple[str, str], object]:
        if self._facts is None:
            found = self._read_sealed(self.facts_path, 2)
            self._facts = found[0][0] if found is not None else {}
            self._facts_loaded_as = found[1] if found is not None else None
        return self._facts

    def key(self, digest: str, *parts: object) -> str:
        text = "\x1f".join([self.salt, digest, *map(repr, parts)])
        return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()

    def digest(self, path: str) -> Optional[str]:
        """The content digest of a file: from the store when its signature vouches for it,
        else by reading it. None when it cannot be read."""
        where = os.path.abspath(path)
        known = self.files.get(where)
        if known is not None:
            try:
                current = signature(os.stat(where))
            except OSError:
                return None
            if current == known[0] and trusted(known[0], known[1]):
                return known[2]
        try:
            data, sig, seen = read_signed(where)
        except OSError:
            return None
        digest = content_digest(data)
        self.record(where, (sig, seen, digest))
        return digest

    def known_digest(self, path: str) -> Optional[str]:
        """The digest recorded for a file during this run (by `digest` or `record`)."""
        known = self.files.get(os.path.abspath(path))
        return known[2] if known is not None else None

    def record(self, path: str, state: FileState) -> None:
        where = os.path.abspath(path)
        if self.files.get(where) != state:
            self.files[where] = state
            self._changed = True

    def get(self, key: str) -> Optional[bytes]:
        found = self._use(self.results, key)
        if found is not None:
            self.hits += 1
            self._used.add(key)
        return found

    def put(self, key: str, packed: bytes) -> None:
        self.results[key] = (self._today, packed)
        self._used.add(key)
        self.writes += 1
        self._changed = True

    def get_fact(self, digest: str, question: str) -> object:
        """What content of this digest answered to `question` (a pure function of the bytes), or None."""
        return self.facts.get((digest, question))

    def put_fact(self, digest: str, question: str, answer: object) -> None:
        facts = self.facts
        if facts.get((digest, question)) != answer:
            facts[(digest, question)] = answer
            self._facts_changed = True

    def read_its_project(self, path: str) -> bool:
        """Whether the last check of this file on its own read its project."""
        return self.readers.get(os.path.abspath(path), False)

    def note_read_its_project(self, path: str, read: bool) -> None:
        where = os.path.abspath(path)
        if self.readers.get(where, False) != read:
            if read:
                self.readers[where] = True
            else:
                self.readers.pop(where, None)
            self._changed = True

    def get_run(self, key: str) -> Optional[bytes]:
        return self._use(self.runs, key)

    def put_run(self, key: str, packed: bytes) -> None:
        self.runs.pop(key, None)  # the most recent last: the oldest go first
        self.runs[key] = (self._today, packed)
        self._changed = True

    def _use(self, table: Dict[str, Tuple[int, bytes]], key: str) -> Optional[bytes]:
        found = table.get(key)
        if found is None:
            return None
        if found[0] != self._today:  # the store remembers the day each entry was last used
            del table[key]
            table[key] = (self._today, found[1])
            self._changed = True
        return found[1]

    def save(self) -> None:
        """Write the store if this run changed it; a read-only or full disk costs speed, never a result."""
        if not (self._changed or self._facts_changed) or self.key_bytes is None:
            return
        try:
            if self._changed:
                self._merge_theirs()
                self._drop_stale()
                self._prepare()
                self._loaded_as = self._write_sealed(self.path, (self.files, self.results, self.runs, self.readers))
                self._changed = False
            if self._facts_changed:
                self._save_facts()
            self._drop_other_stores()
        except OSError:
            pass

    def _save_facts(self) -> None:
        theirs = self._theirs(self.facts_path, self._facts_loaded_as, 2)
        facts = self.facts
        if theirs is not None:
            for key, value in theirs[0].items():
                facts.setdefault(key, value)
        # facts only of content some file still has: an edited file's old ones go
        current = {state[2] for state in self.files.values()}
        self._facts = {key: answer for key, answer in facts.items() if key[0] in current}
        self._prepare()
        self._facts_loaded_as = self._write_sealed(self.facts_path, (self._facts,))
        self._facts_changed = False

    def _write_sealed(self, path: Path, tables: tuple) -> Tuple[int, int, int]:
        """Replace `path` with the sealed pickle of `tables`; its new file's stamp: what it holds
        now is this run's, so a later save merges only what others write after."""
        import tempfile

        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
        try:
            body = pickle.dumps((STORE_FORMAT, *tables), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(handle, "wb") as out:
                out.write(SEAL + _seal(self.key_bytes, body) + body)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        status = os.stat(path)
        return status.st_mtime_ns, status.st_size, status.st_ino

    def _theirs(self, path: Path, loaded_as, length: int):
        """What another run wrote to `path` since this one read it, or None."""
        try:
            status = os.stat(path)
        except OSError:
            return None
        if (status.st_mtime_ns, status.st_size, status.st_ino) == loaded_as:
            return None
        found = self._read_sealed(path, length)
        return found[0] if found is not None else None

    def _merge_theirs(self) -> None:
        """Another run may have written the store since this one read it: keep its entries too."""
        theirs = self._theirs(self.path, self._loaded_as, 5)
        if theirs is None:
            return
        for mine, other in zip((self.files, self.results, self.runs, self.readers), theirs):
            for key, value in other.items():
                mine.setdefault(key, value)

    def _drop_stale(self) -> None:
        oldest_day = self._today - STALE_DAYS
        oldest_ns = (self._today - STALE_DAYS) * DAY * 10**9
        self.results = {k: v for k, v in self.results.items() if v[0] >= oldest_day or k in self._used}
        self.runs = dict(sorted(self.runs.items(), key=lambda item: item[1][0])[-KEEP_RUNS:])
        # a file unread for a month is hashed once more, then vouched for again
        self.files = {k: v for k, v in self.files.items() if v[1] >= oldest_ns}
        self.readers = {path: read for path, read in self.readers.items() if path in self.files}
        # results of files edited often pile up within a month: past a few per file the store
        # knows (each file has a result per stage, and per settings), the least recently used go
        limit = RESULTS_PER_FILE * len(self.files) + SPARE_RESULTS
        if len(self.results) > limit:
            ranked = sorted(self.results.items(), key=lambda item: (item[0] in self._used, item[1][0]))
            self.results = dict(ranked[-limit:])

    def _prepare(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# Created by tvmlint: the result cache.\n*\n", encoding="utf-8")
        tag = self.directory / TAG_NAME
        if not tag.exists():
            tag.write_text(TAG, encoding="utf-8")

    def _drop_other_stores(self) -> None:
        """Other builds' stores but the newest few, and the one-file-per-result layout of old."""
        # only names tvmlint gives its stores (store-<20 hex digits>.pickle, facts-<...>.pickle)
        for prefix in (STORE_PREFIX, FACTS_PREFIX):
            named = re.compile(rf"{prefix}[0-9a-f]{{20}}\.pickle")
            stores = sorted((p for p in self.directory.glob(f"{prefix}*.pickle") if named.fullmatch(p.name)), key=_mtime)
            for old in stores[:-KEEP_STORES - 1]:
                try:
                    old.unlink()
                except OSError:
                    pass
        legacy = self.directory / "results"
        if legacy.is_dir():
            import shutil

            shutil.rmtree(legacy, ignore_errors=True)


# A long-lived process (the daemon) keeps each store it opened, as it last read or wrote it,
# and hands it to its next run while the files on disk are still the ones it holds: that run
# neither reads nor unseals them again. Only speed turns on it: what a store holds is the same.
# (A store is still written before its run ends: one written after the run had answered came
# back after a `rm -rf .tvmlint_cache` that followed, and a cold run found it.)
_KEPT: Optional[Dict[Tuple[Path, bytes], "ResultCache"]] = None
KEEP_OPEN = 4  # stores kept (a project's is a few MB in memory)


def keep_stores() -> None:
    """Keep the stores this process opens for its later runs (`open_store`)."""
    global _KEPT
    if _KEPT is None:
        _KEPT = {}


def open_store(directory: Path) -> "ResultCache":
    """The result store of `directory`: the one this process kept (`keep_stores`) while its
    files are unchanged on disk, else read afresh."""
    if _KEPT is None:
        return ResultCache(directory)
    key_bytes = user_key()
    kept = _KEPT.pop((directory, key_bytes or b""), None)
    if kept is not None and key_bytes is not None and kept.still_current():
        kept.begin_run()
        _KEPT[(directory, key_bytes)] = kept  # the most recent last
        return kept
    store = ResultCache(directory)
    if store.key_bytes is not None:
        _KEPT[(directory, store.key_bytes)] = store
        while len(_KEPT) > KEEP_OPEN:  # a daemon asked about many projects holds the latest few
            del _KEPT[next(iter(_KEPT))]
    return store


def _stamp(path: Path) -> Optional[Tuple[int, int, int]]:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size, status.st_ino


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def cache_directory(settings) -> Path:
    if settings.cache_dir is not None:
        return settings.cache_dir
    return settings.root / DEFAULT_DIR
