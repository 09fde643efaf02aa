"""Test support for consolidation: evidence builders, DSH log writers and a loopback chat server.

The chat server is a real ``http.server`` on 127.0.0.1 speaking the OpenAI chat-completions wire
format; each test scripts its replies. Nothing here mocks the code under test.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from core.sessions import render_evidence
from core.sessions.models import Evidence, EvidenceMessage, EvidenceTurn

CWD = "/home/ada/projects/shop"


def make_evidence(
    messages: Sequence[tuple[int, str, str]],
    *,
    cwd: str | None = CWD,
    session_id: str = "sess-1",
    revision: str = "rev-0001",
    title: str = "A test session",
) -> tuple[Evidence, str]:
    """Evidence with one turn per user message (assistant messages join the current turn)."""
    turns: list[list[EvidenceMessage]] = []
    for seq, role, text in messages:
        msg = EvidenceMessage(seq=seq, role=role, text=text)  # type: ignore[arg-type]
        if role == "user" or not turns:
            turns.append([msg])
        else:
            turns[-1].append(msg)
    evidence = Evidence(
        session_id=session_id,
        session_revision=revision,
        cwd=cwd,
        title=title,
        turns=tuple(EvidenceTurn(index=i, messages=tuple(t)) for i, t in enumerate(turns, start=1)),
        size_bytes=0,
    )
    text = render_evidence(evidence)
    return evidence.model_copy(update={"size_bytes": len(text.encode("utf-8"))}), text


# --- DSH session logs (format v1: data.message) ------------------------------------------------
T0 = 1_785_000_000_000


def write_dsh_session(
    sessions_root: Path,
    session_id: str,
    cwd: str,
    exchanges: Sequence[tuple[str, str]],
    *,
    title: str = "Session title",
    old: bool = True,
) -> Path:
    """A v1 session log with ``(user text, assistant text)`` exchanges; mtime pushed into the past."""
    rows: list[dict[str, Any]] = [
        {"type": "session", "version": 1, "id": session_id, "createdAt": T0, "cwd": cwd, "delegationDepth": 0}
    ]
    seq = 1
    for user_text, assistant_text in exchanges:
        rows.append(
            {
                "type": "user/message",
                "seq": seq,
                "time": T0 + seq,
                "data": {
                    "message": {
                        "role": "user",
                        "content": [{"type": "text", "text": user_text}],
                        "source": {"kind": "user"},
                    }
                },
            }
        )
        seq += 1
        rows.append(
            {
                "type": "assistant/message",
                "seq": seq,
                "time": T0 + seq,
                "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": assistant_text}]}},
            }
        )
        seq += 1
    rows.append({"type": "session/title", "seq": seq, "time": T0 + seq, "data": {"title": title}})
    folder = sessions_root / ("-" + cwd.replace("/", "-") + "--") / session_id
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "session.jsonl"
    path.write_bytes(b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows))
    if old:
        past = 1_700_000_000
        os.utime(path, (past, past))
        os.utime(folder, (past, past))
    return folder


# --- the loopback chat-completions server ------------------------------------------------------


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    hold: bool = False  # wait for ChatServer.release before answering (slow model)
    stall_after: int | None = None  # send headers and this many body bytes, then stall until released


def chat_body(content: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        }
    ).encode()


def proposal_reply(changes: list[dict[str, Any]], summary: str = "test proposal") -> Reply:
    return Reply(body=chat_body(json.dumps({"summary": summary, "changes": changes})))


Script = Callable[[dict[str, Any]], Reply]


class ChatServer:
    """``POST /v1/chat/completions`` and ``GET /v1/models`` on 127.0.0.1:<free port>."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.replies: list[Reply | Script] = []
        self.seen = threading.Event()
        self.release = threading.Event()
        self.stalled = threading.Event()  # a stall_after reply has sent its first bytes
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def _send(self, reply: Reply) -> None:
                if reply.hold:
                    server.release.wait(15)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    if reply.stall_after is not None:
                        # A slow stream: the answer has started but its body stops coming.
                        self.wfile.write(reply.body[: reply.stall_after])
                        self.wfile.flush()
                        server.stalled.set()
                        server.release.wait(15)
                        self.wfile.write(reply.body[reply.stall_after :])
                    else:
                        self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout or cancel): expected in those tests

            def do_GET(self) -> None:
                server.headers.append(dict(self.headers))
                if self.path.rstrip("/") != "/v1/models":
                    self._send(Reply(404, b'{"error": {"message": "no such path"}}'))
                    return
                if self.headers.get("Authorization") != "Bearer test-key-123":
                    self._send(Reply(401, b'{"error": {"message": "bad key"}}'))
                    return
                self._send(Reply(200, json.dumps({"data": [{"id": "test-model"}]}).encode()))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                payload = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(payload)
                server.headers.append(dict(self.headers))
                server.seen.set()
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(Reply(404, b'{"error": {"message": "no such path"}}'))
                    return
                item = server.replies.pop(0) if server.replies else Reply(500, b"{}")
                reply = item(payload) if callable(item) else item
                self._send(reply)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = False
        self._httpd.block_on_close = True  # server_close() joins the handler threads
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="chat-server", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def close(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(10)
