"""The language server under messages an editor should never send (#29): each gets a JSON-RPC
error, and the server stays up and answers the next request. Real `tvmlint lsp` over stdio,
framed by hand (a client library would refuse to send these)."""

from __future__ import annotations

import pytest

from tests.lsp_stdio import StdioServer as _Server

pytest.importorskip("pygls")


@pytest.fixture
def server(tmp_path):
    running = _Server(tmp_path)
    yield running
    running.close()


def test_negative_positions_get_invalid_params_and_the_server_goes_on(server):
    server.send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": server.uri}, "position": {"line": -1, "character": -5}}})
    server.send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeAction", "params": {
        "textDocument": {"uri": server.uri}, "range": {"start": {"line": -3, "character": -1},
                                                      "end": {"line": -1, "character": 0}}, "context": {"diagnostics": []}}})
    got = server.messages(lambda got: {2, 3} <= {m.get("id") for m in got})
    errors = {m["id"]: m["error"]["code"] for m in got if "error" in m}
    assert errors == {2: -32602, 3: -32602}
    assert "result" in server.hover_answered(4)
    assert server.process.poll() is None


def test_a_body_that_is_no_json_rpc_message_is_answered_with_an_error(server):
    for body, code, says in ((b"{}", -32600, "not JSON-RPC"), (b"[1, 2]", -32600, "not JSON-RPC"),
                             (b"7", -32600, "not JSON-RPC"), (b"{not json", -32700, "not JSON"),
                             (b"\xff\xfe", -32700, "not JSON")):
        server.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        got = server.messages(lambda got: any("id" in m and m["id"] is None for m in got))
        [refused] = [m for m in got if "id" in m and m["id"] is None]
        assert refused["error"]["code"] == code and says in refused["error"]["message"], (body, refused)
    assert "result" in server.hover_answered(5)
    server.close()
    assert b"Traceback" not in server.process.stderr.read()


def test_bad_initialization_options_are_ignored_with_a_message(tmp_path):
    running = _Server(tmp_path, options={"target-version": ["not", "a", "release"]})
    try:
        got = running.messages(lambda got: any(m.get("id") == 1 for m in got))
        [answer] = [m for m in got if m.get("id") == 1]
        assert "result" in answer and "capabilities" in answer["result"]
        shown = [m["params"]["message"] for m in got if m.get("method") == "window/showMessage"]
        assert any("initializationOptions ignored" in text for text in shown), got
        assert "result" in running.hover_answered(6)
    finally:
        running.close()
