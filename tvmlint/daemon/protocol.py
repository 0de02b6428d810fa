"""Messages between client and daemon: one JSON object per line, bytes as base64."""

from __future__ import annotations

import base64
import json
import socket
from typing import Optional

VERSION = 1
# a request carries the environment and perhaps a buffer from stdin; far below this
MAX_MESSAGE = 256 * 1024 * 1024


def send(connection: socket.socket, message: dict) -> None:
    connection.sendall(json.dumps(message).encode() + b"\n")


def receive(connection: socket.socket) -> Optional[dict]:
    """The next message, or None when the other side closed (or sent something that is not one)."""
    chunks = []
    size = 0
    while True:
        chunk = connection.recv(1 << 16)
        if not chunk:
            return None
        newline = chunk.find(b"\n")
        if newline >= 0:
            chunks.append(chunk[:newline])
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_MESSAGE:
            return None
    try:
        message = json.loads(b"".join(chunks))
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def pack(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unpack(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"))
