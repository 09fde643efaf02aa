"""Issue 25, finding 8: ``dsh-memory mcp`` answers every line it cannot parse.

A raw stdio client (the SDK's own client cannot even build a 100k-deep ``arguments``) sends the
handshake, then hostile lines, each with a deadline. Before issue 25 the deep request got no answer
at all (this test timed out waiting for it); now each gets a JSON-RPC error, and the server still
serves the next request."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.core.mcp.mcp_support import REPO, env_for

pytestmark = pytest.mark.slow

DEPTH = 100_000


def _reader(stream: Any, lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def _next(lines: queue.Queue[str], timeout: float = 60) -> dict[str, Any]:
    try:
        answer: dict[str, Any] = json.loads(lines.get(timeout=timeout))
    except queue.Empty:
        pytest.fail(f"no answer within {timeout} s: the client would wait forever")
    return answer


def test_deep_and_malformed_requests_get_json_rpc_errors(tmp_path: Path) -> None:
    root, cwd = tmp_path / "memory", tmp_path / "project"
    cwd.mkdir()
    root.mkdir()  # a root that does not exist refuses to start (issue 29)
    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli.main", "--root", str(root), "mcp", "--cwd", str(cwd)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env_for(tmp_path),
        cwd=str(REPO),
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()

    def send(text: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(text + "\n")
        proc.stdin.flush()

    try:
        send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "1"},
                    },
                }
            )
        )
        assert _next(lines)["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        deep = '{"a":' * DEPTH + "1" + "}" * DEPTH
        send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_index","arguments":' + deep + "}}")
        answer = _next(lines)
        assert answer["id"] == 7 and answer["error"]["code"] == -32700
        send("this is not json")
        answer = _next(lines)
        assert answer["id"] is None and answer["error"]["code"] == -32700
        send(json.dumps({"jsonrpc": "2.0", "id": 8, "flavour": "no method"}))
        answer = _next(lines)
        assert answer["id"] in (8, None) and answer["error"]["code"] == -32600
        send(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}))
        answer = _next(lines)
        assert answer["id"] == 9 and "memory_index" in json.dumps(answer["result"])
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
