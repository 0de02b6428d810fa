"""A JSON-RPC client that frames `tvmlint lsp`'s messages by hand over stdio: it can send what a
client library would refuse to (negative positions, a huge Content-Length), and read whatever
comes back, with a deadline."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

URI_TEXT = "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class StdioServer:
    """`tvmlint lsp` in `root`, initialized, with `a.py` open (URI_TEXT). `preexec_fn` and `stdout`
    go to the child as Popen takes them."""

    def __init__(self, root: Path, options=None, preexec_fn: Optional[Callable[[], None]] = None,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE):
        self.process = subprocess.Popen([sys.executable, "-m", "tvmlint", "lsp"], cwd=root, stdin=subprocess.PIPE,
                                        stdout=stdout, stderr=stderr, preexec_fn=preexec_fn)
        self.buffer = b""
        self.uri = (root / "a.py").as_uri()
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": root.as_uri(), "capabilities": {}, "initializationOptions": options or {}}})
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        self.open(self.uri, URI_TEXT)

    def open(self, uri: str, text: str) -> None:
        self.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}}})

    def send(self, message: dict) -> None:
        self.raw(frame(message))

    def raw(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def messages(self, until, timeout: float = 30) -> List[dict]:
        """Messages read until `until(messages)` holds (or the time is up)."""
        got: List[dict] = []
        end = time.monotonic() + timeout
        while time.monotonic() < end and not until(got):
            ready, _, _ = select.select([self.process.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                self.buffer += chunk
            while b"\r\n\r\n" in self.buffer:
                header, rest = self.buffer.split(b"\r\n\r\n", 1)
                fields = dict(line.split(b":", 1) for line in header.split(b"\r\n"))
                length = int(fields[b"Content-Length"])
                if len(rest) < length:
                    break
                got.append(json.loads(rest[:length]))
                self.buffer = rest[length:]
        return got

    def request(self, request_id: int, method: str, params: dict, timeout: float = 30) -> Optional[Dict]:
        """The answer to one request, or None when none came in time."""
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        got = self.messages(lambda got: any(m.get("id") == request_id for m in got), timeout)
        answers = [m for m in got if m.get("id") == request_id]
        return answers[0] if answers else None

    def hover_answered(self, request_id: int) -> Dict:
        answer = self.request(request_id, "textDocument/hover", {
            "textDocument": {"uri": self.uri}, "position": {"line": 1, "character": 10}})
        assert answer is not None, "no answer to a hover on a small document"
        return answer

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
