"""When a file's status vouches for its content, so that it need not be read again.

A signature is a file's size, modification and change times and inode. One
taken when the file was read vouches for the content read then only if the
file's last change was a whole clock tick before (`trusted`): a write lands on
the file system's clock tick (2 s on FAT, 1 s on some network file systems, a
few milliseconds on ext4), and within the tick of the last change a second
write of the same size could leave size, times and inode as they were. Any
later write lands on a later tick and changes a time. Signatures are not
trusted when that cannot be told, and the file is read.
"""

from __future__ import annotations

import os
import time
from typing import Tuple

RACY_NS = 2 * 10**9

Signature = Tuple[int, int, int, int, int]


def signature(status: os.stat_result) -> Signature:
    # ctime as well as mtime: tools that restore a file's mtime (rsync -t, cp -p, touch -r)
    # cannot restore its ctime
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev)


def trusted(sig: Signature, seen_ns: int) -> bool:
    """Whether a signature taken at `seen_ns` (before the content was read) vouches for
    that content whenever the file shows the same signature again."""
    return max(sig[1], sig[2]) + RACY_NS <= seen_ns


def now_ns() -> int:
    return time.time_ns()
