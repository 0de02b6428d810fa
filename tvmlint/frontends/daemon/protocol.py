"""Messages between client and daemon: one JSON object per line, bytes as base64."""

from __future__ import annotations

import base64
import json
import socket
import time
from typing import Optional

VERSION = 1
# a request carries the environment and perhaps a buffer from stdin; far below this
MAX_MESSAGE = 256 * 1024 * 1024


def send(connection: socket.socket, message: dict, deadline: Optional[float] = None) -> None:
    """Write one message; past `deadline` (time.monotonic()), socket.timeout."""
    data = json.dumps(message).encode() + b"\n"
    if deadline is None:
        connection.sendall(data)
        return
    view = memoryview(data)
    while view:
        connection.settimeout(_remaining(deadline))
        sent = connection.send(view)
        view = view[sent:]


def receive(connection: socket.socket, deadline: Optional[float] = None) -> Optional[dict]:
    """The next message, or None when the other side closed (or sent something that is not one).
    For a connection that carries one message each way; `Reader` reads several."""
    return Reader(connection).receive(deadline)


class Reader:
    """Messages from one connection in order: what came after a message's newline in the
    same read is the start of the next one, kept for it."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self._buffer = b""

    def receive(self, deadline: Optional[float] = None) -> Optional[dict]:
        """The next message, or None when the other side closed or sent something that is not
        one. Past `deadline` (time.monotonic(); None waits as long as the socket's own timeout),
        socket.timeout: a peer that sends half a message holds nobody longer than that."""
        chunks = [self._buffer]
        size = len(self._buffer)
        newline = self._buffer.find(b"\n")
        while newline < 0:
            if deadline is not None:
                self.connection.settimeout(_remaining(deadline))
            chunk = self.connection.recv(1 << 16)
            if not chunk:
                self._buffer = b""
                return None
            newline = chunk.find(b"\n")
            if newline >= 0:
                newline += size
            chunks.append(chunk)
            size += len(chunk)
            if newline < 0 and size > MAX_MESSAGE:
                self._buffer = b""
                return None
        data = b"".join(chunks)
        self._buffer = data[newline + 1:]
        try:
            message = json.loads(data[:newline])
        except ValueError:
            return None
        return message if isinstance(message, dict) else None


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise socket.timeout("timed out")
    return left


def pack(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unpack(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"))
