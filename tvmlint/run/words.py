"""The words of a run's files, for the steps that pick files by the names they may write.

The low-context step (tvmlint.run.low_contexts) and the later rounds' search of the files
whose names were never resolved (tvmlint.run.runner._may_mention) ask of many files, most
of them unchanged since the last run, whether a name's parts are among their words. Making
those words means reading and splitting every file again: on a project of 1,500 files that
was most of a one-file check after an edit. The words are a function of the bytes alone, so
the result cache keeps them under the file's content digest (`ResultCache.facts`), and a run
whose keys vouched for a file's digest reads them from there instead of from the file.

A file's words are kept as one string, sorted and joined by spaces. A name made of word
bytes alone is a substring of the file exactly when it is a substring of one of its words,
which is the question the callers ask before splitting (`holds_any`).
"""

from __future__ import annotations

from typing import Callable, Dict, Iterable, Optional, Set, Tuple

from tvmlint.base.source import read_file

# every byte that cannot be part of an identifier, to a space: the rest split into words
# (bytes above 127 stay: a non-ASCII identifier is one word of its encoded bytes)
NOT_WORD = bytes(
    byte if chr(byte).isalnum() and byte < 128 or byte == ord("_") or byte > 127 else ord(" ") for byte in range(256)
)
WORDS = "words"  # the question the cache keeps a file's words under
_WORD_BYTES = frozenset(byte for byte in range(256) if NOT_WORD[byte] != ord(" "))


def words_of(data: bytes) -> Set[bytes]:
    return set(data.translate(NOT_WORD).split())


def joined(data: bytes) -> bytes:
    """`words_of(data)` as it is kept: sorted, joined by spaces."""
    return b" ".join(sorted(words_of(data)))


class Words:
    """The words of a run's files, each file's made once a run and, with a result cache,
    kept under its content digest. `read`: the run's reader (a buffer in place of its file:
    a path in `buffers` is never looked up in the cache, its file may say otherwise)."""

    def __init__(self, read: Callable[[str], bytes] = read_file, cache=None, buffers: Iterable[str] = (),
                 digests: Optional[Dict[str, Optional[str]]] = None):
        self.read = read
        self.cache = cache
        self.buffers = frozenset(buffers)
        # path -> its content digest as the run's cache keys took it
        self.digests = digests if digests is not None else {}
        self._joined: Dict[str, Optional[bytes]] = {}
        # without the cache, the file last read: a step asks of it again at once (its words after
        # a substring test), and a run does not hold every file's bytes or words
        self._last: Optional[Tuple[str, Optional[bytes]]] = None

    def _kept(self, path: str) -> bool:
        """Whether the file's words go through the cache (not a buffer, and a cache to use)."""
        return self.cache is not None and path not in self.buffers

    def _digest(self, path: str) -> Optional[str]:
        """The digest a kept file's facts are under (the run's keys took it), else None."""
        return self.digests.get(path) if self._kept(path) else None

    def _bytes(self, path: str) -> Optional[bytes]:
        if self._last is None or self._last[0] != path:
            try:
                data = self.read(path)
            except OSError:
                data = None  # as it was when the cheap stage tried: its result says why
            self._last = (path, data)
        return self._last[1]

    def _joined_words(self, path: str) -> Optional[bytes]:
        """A kept file's words, sorted and joined by spaces, from the cache or made and put
        there; None when it cannot be read."""
        try:
            return self._joined[path]
        except KeyError:
            pass
        digest = self.digests.get(path)  # what the run's keys took the file to be
        found = self.cache.get_fact(digest, WORDS) if digest is not None else None
        if found is None:
            data = self._bytes(path)
            if data is not None:
                from tvmlint.run.cache import content_digest

                found = joined(data)
                # under the digest the run's keys took, when they took one: the bytes are not
                # hashed twice (a file changed meanwhile leaves the run incomplete anyway)
                self.cache.put_fact(digest or content_digest(data), WORDS, found)
        self._joined[path] = found  # the cache's own object: the run holds nothing more
        return found

    def fact(self, path: str, question: str, answer: Callable[[], object]) -> object:
        """`answer()`, a function of the file's bytes (None: it cannot be read), kept in the
        cache under the file's digest and `question` (which names whatever else it depends on)."""
        digest = self._digest(path)
        if digest is not None:
            known = self.cache.get_fact(digest, question)
            if known is not None:
                return known
        found = answer()
        if digest is not None and found is not None:
            self.cache.put_fact(digest, question, found)
        return found

    def replace_fact(self, path: str, question: str, answer: object) -> None:
        """Keep `answer` for `question` in place of the cached one (what it depended on changed)."""
        digest = self._digest(path)
        if digest is not None and answer is not None:
            self.cache.put_fact(digest, question, answer)

    def of(self, path: str) -> Optional[Set[bytes]]:
        """A file's words (a new set, the caller's to change); None when it cannot be read."""
        if not self._kept(path):
            data = self._bytes(path)
            return None if data is None else words_of(data)
        found = self._joined_words(path)
        return None if found is None else set(found.split())

    def holds_any(self, path: str, needles: Iterable[bytes]) -> Optional[bool]:
        """Whether one of `needles` is a substring of the file (None: it cannot be read). A
        needle of word bytes is asked of the words; any other, of the file's bytes."""
        needles = list(needles)
        if not self._kept(path):
            data = self._bytes(path)
            return None if data is None else any(needle in data for needle in needles)
        plain = [needle for needle in needles if _WORD_BYTES.issuperset(needle)]
        found = self._joined_words(path)
        if found is None:
            return None
        if any(needle in found for needle in plain):
            return True
        if len(plain) == len(needles):
            return False
        data = self._bytes(path)
        return None if data is None else any(needle in data for needle in needles if needle not in plain)
