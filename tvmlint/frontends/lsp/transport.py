"""What the language server reads off the wire before pygls sees it, and what it answers when a
message cannot be read: a JSON-RPC error, never a dead server (#29).

- A header line is read up to 64 KB, and a body up to `MAX_MESSAGE` bytes. A larger
  Content-Length is refused without reading it (it once made the server try to read 10^14
  bytes and die): the client gets an error with id null, and the bytes that follow are read as
  header lines until the next `Content-Length:`, where the stream is in step again.
- A body that is not JSON gets a ParseError, and one that is JSON but no JSON-RPC message
  (`{}`) an InvalidRequest, each with id null (pygls logged a traceback and answered nothing).
- A reply that cannot be written (stdout closed or on a full disk) ends the server with one
  line and exit 2, as any command's unwritable output does.
- A request whose parameters do not fit LSP's types (a negative position) gets an
  InvalidParams error for its id; pygls alone showed a message and never answered.
"""

from __future__ import annotations

import json
from typing import BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

# The largest message read: a document is bounded by max-file-size (5 MB by default), and JSON
# may double it with escapes; past this, no editor is sending a document
MAX_MESSAGE = 256 << 20
MAX_HEADER_LINE = 64 << 10
# the notification a refused message becomes, so that the server can answer it in turn
REFUSED = "$/tvmlint/refusedMessage"


class BoundedInput:
    """stdin as pygls reads it (`readline`, `read`), with the bounds above."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw

    def readline(self) -> bytes:
        return self.raw.readline(MAX_HEADER_LINE)

    def read(self, size: int) -> bytes:
        if size > MAX_MESSAGE:
            return _refusal(size, TOO_LARGE)
        data = self.raw.read(size)
        if not data:
            return data  # the end of the stream
        try:
            json.loads(data)
        except ValueError:  # pygls would log a traceback and answer nothing
            return _refusal(size, NOT_JSON)
        return data


TOO_LARGE, NOT_JSON = "too large", "not JSON"


def _refusal(length: int, reason: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": REFUSED, "params": {"length": length, "reason": reason}}).encode()


class GuardedOutput:
    """stdout as pygls writes it (`write`, then `flush`). A write that fails (a full disk, a
    closed descriptor) ends the server with one line and exit 2: with no way to answer, there is
    nothing left to serve, and pygls alone logged a traceback for every message it tried."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw

    def write(self, data: bytes) -> None:
        try:
            self.raw.write(data)
            self.raw.flush()
        except OSError as error:
            _stop_unheard(error)

    def flush(self) -> None:
        pass  # done with each write, where a failure can be told

    def close(self) -> None:
        try:
            self.raw.close()
        except OSError:
            pass


def _stop_unheard(error: OSError) -> None:
    import os
    import sys

    try:
        print(f"tvmlint: error: could not write the output: {error.strerror or error}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
    os._exit(2)  # from pygls's thread: nothing above it could still answer the client


class _Ignored:
    """What a message already answered becomes: pygls passes over a message of another version."""

    jsonrpc = "answered"

    def __repr__(self) -> str:
        return "request answered with InvalidParams"


class GuardedProtocol(LanguageServerProtocol):
    def handle_message(self, message):
        if not hasattr(message, "jsonrpc"):  # JSON, but no JSON-RPC message: `{}`, a list, a number
            self._send_data(_unread_error("tvmlint: a message that is not JSON-RPC 2.0 was not read"))
            return
        super().handle_message(message)

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], error=error.to_response_error())
                return _Ignored()
            raise


def refused_error(params: object) -> dict:
    """The answer to a message refused for its size or for not being JSON (REFUSED's params)."""
    def get(key: str) -> object:
        return params.get(key) if isinstance(params, dict) else getattr(params, key, None)

    length = get("length")
    if get("reason") == NOT_JSON:
        return _unread_error(f"tvmlint: a message of {length} bytes that is not JSON was not read",
                             types.ErrorCodes.ParseError)
    return _unread_error(f"tvmlint: a message of {length} bytes was not read (the limit is {MAX_MESSAGE >> 20} MB)")


def _unread_error(message: str, code: types.ErrorCodes = types.ErrorCodes.InvalidRequest) -> dict:
    """An error (InvalidRequest unless `code`) for a message whose id was never read: JSON-RPC's
    `"id": null` (a plain dict: pygls's converter would leave a None id out)."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": int(code), "message": message}}
