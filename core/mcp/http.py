"""``dsh-memory mcp --http HOST:PORT``: the same server over Streamable HTTP (the SDK's own app),
for agents that do not run on this machine (reach it through an SSH tunnel, see docs/mcp.md).

Every request needs ``Authorization: Bearer <token>``; anything else is answered 401 before the
MCP app sees it. The token is generated once and kept owner-only in the user's config folder
(``platformdirs``), or read from ``--token-file``. DNS-rebinding protection is on (Host and Origin
must name the address the server listens on). One scope per server, as on stdio: the workspace of
``--cwd`` (nearest known ancestor); clients' roots are not asked for (several clients share it).
"""

from __future__ import annotations

import hmac
import logging
import secrets
import sys
from pathlib import Path
from typing import Any

from core.errors import UsageError
from core.mcp.agent import AgentSession
from core.mcp.insight import resolve_scope

log = logging.getLogger("dsh-memory.mcp")

TOKEN_FILE_NAME = "mcp-http.token"
MIN_TOKEN_CHARS = 24


def parse_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``:PORT`` (host 127.0.0.1); ``[::1]:PORT`` for IPv6."""
    host, sep, port = value.strip().rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--http takes HOST:PORT (e.g. 127.0.0.1:8765), not {value!r}.")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


def default_token_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("dsh-memory", appauthor=False)) / TOKEN_FILE_NAME


def load_token(token_file: str | None) -> tuple[str, Path, bool]:
    """The bearer token, its file, and whether it was generated just now (then it is printed once)."""
    path = Path(token_file).expanduser() if token_file else default_token_file()
    try:
        text = path.read_text(encoding="utf-8").strip() if path.is_file() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"The token file {path} could not be read: {exc}.") from exc
    if text is not None:
        if len(text) < MIN_TOKEN_CHARS or any(c.isspace() for c in text):
            raise UsageError(f"The token in {path} is shorter than {MIN_TOKEN_CHARS} characters or has spaces.")
        return text, path, False
    if token_file:
        raise UsageError(f"The token file {path} does not exist.")
    from core.atomic import write_atomic

    token = secrets.token_urlsafe(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(path, (token + "\n").encode("ascii"), mode=0o600)
    except OSError as exc:
        raise UsageError(f"The token file {path} could not be written: {exc.strerror or exc}.") from exc
    return token, path, True


class BearerGate:
    """ASGI wrapper: an HTTP request without this token is answered 401 and goes no further."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode("ascii")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error": "unauthorized", "message": "a valid bearer token is required"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="dsh-memory"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def build_app(session: AgentSession, host: str, port: int, token: str) -> Any:
    """The SDK's Streamable HTTP app for this session's server, behind the bearer gate."""
    from mcp.server.transport_security import TransportSecuritySettings

    from core.mcp.server import MemoryServer

    server = MemoryServer(session, use_roots=False)
    bracketed = f"[{host}]" if ":" in host else host
    names = {bracketed, "127.0.0.1", "localhost", "[::1]"} if host in ("127.0.0.1", "localhost", "::1") else {bracketed}
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:{port}" for n in sorted(names)],
        allowed_origins=[f"http://{n}:{port}" for n in sorted(names)],
    )
    app = server.server.streamable_http_app(host=host, transport_security=security)
    return BearerGate(app, token)


def serve_http(session: AgentSession, address: str, *, token_file: str | None) -> None:
    """Serve until interrupted. Logs go to stderr; the token is printed there once, when generated."""
    import uvicorn

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="dsh-memory mcp: %(message)s")
    host, port = parse_address(address)
    token, path, fresh = load_token(token_file)
    session.set_scope(resolve_scope(session.store, session.cwd))
    session.connection = f"http-{port}"
    if fresh:
        sys.stderr.write(f"dsh-memory mcp: new bearer token (saved owner-only in {path}; shown only now): {token}\n")
    else:
        sys.stderr.write(f"dsh-memory mcp: bearer token in {path}\n")
    sys.stderr.write(f"dsh-memory mcp: serving {session.cwd} on http://{host}:{port}/mcp\n")
    sys.stderr.flush()
    app = build_app(session, host, port, token)
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
