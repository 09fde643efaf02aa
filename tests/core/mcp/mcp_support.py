"""Start ``dsh-memory mcp`` as a real subprocess and talk to it with the MCP SDK's own stdio client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[3]


def env_for(tmp: Path) -> dict[str, str]:
    home = tmp / "home"
    (home / ".dsh").mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "DSH_HOME": str(home / ".dsh"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO),
        "QT_QPA_PLATFORM": "offscreen",
    }


def server_params(root: Path, cwd: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "core.cli.main", "--root", str(root), "mcp", "--cwd", str(cwd), *extra],
        env=env_for(root.parent),
        cwd=str(REPO),
    )


def run_client(
    root: Path,
    cwd: Path,
    body: Callable[[Client], Awaitable[Any]],
    *extra: str,
    mode: str = "auto",
    client_name: str = "pytest-agent",
    **client_kwargs: Any,
) -> Any:
    async def main() -> Any:
        async with Client(
            server_params(root, cwd, *extra),
            mode=mode,
            client_info=types.Implementation(name=client_name, version="1"),
            read_timeout_seconds=60,
            cache=None,
            **client_kwargs,
        ) as client:
            return await body(client)

    return anyio.run(main)


def text_of(result: types.CallToolResult) -> str:
    assert result.content, result
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error, text_of(result)
    err: dict[str, Any] = json.loads(text_of(result))["error"]
    return err


def ok_json(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    data: dict[str, Any] = json.loads(text_of(result))
    return data


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``dsh-memory --root ROOT --json ARGS`` in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "core.cli.main", "--root", str(root), "--json", *args],
        env=env_for(root.parent),
        cwd=str(REPO),
        capture_output=True,
        text=True,
        timeout=120,
    )


def seed_root(tmp: Path) -> tuple[Path, Path]:
    """A root with GLOBAL.md and a workspace (of ``tmp/project``) holding one record, build-tool."""
    from core.models import PutOp, Record
    from core.store.fs import FileStore

    root = tmp / "memory"
    cwd = tmp / "project"
    cwd.mkdir()
    store = FileStore(root)
    store.replace_global("# User Preferences\n\n- Prefers short answers.\n", None)
    snap = store.create_workspace(str(cwd))
    record = Record(name="build-tool", description="Packaging", type="project", body="\nelectron-builder\n")
    store.commit(snap.key, [PutOp(record=record)], snap.revision)
    return root, cwd


def record_text(name: str, description: str, body: str, rtype: str = "project") -> str:
    return f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: {rtype}\n---\n\n{body}\n"


def put(name: str, description: str, body: str, rtype: str = "project") -> dict[str, str]:
    return {"op": "put", "name": name, "description": description, "type": rtype, "body": body}


def tree(root: Path) -> dict[str, bytes]:
    """Every file under the root except the store's own locks and caches and the server's handle key
    (created at the first read) and the usage ledger (what reads served), to prove no memory,
    proposal or receipt was written."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(
            (".manager/locks/", ".manager/cache/", ".manager/mcp-handle.key", ".manager/usage/")
        ):
            out[rel] = path.read_bytes()
    return out


def handle_in(text: str) -> str:
    """The `observed` handle an answer hands out: a JSON answer's "observed", or a text answer's last line."""
    stripped = text.strip()
    if stripped.startswith("{"):
        handle = json.loads(stripped)["observed"]
        assert isinstance(handle, str) and handle.startswith("obs1_"), text
        return handle
    last = stripped.splitlines()[-1]
    assert last.startswith("observed: obs1_"), text
    return last.removeprefix("observed: ")


async def read_handle(client: Client, tool: str = "memory_index", args: dict[str, Any] | None = None) -> str:
    """Read with ``tool`` and return the handle its answer carries."""
    return handle_in(text_of(await client.call_tool(tool, args or {})))


class HttpServer:
    """``dsh-memory mcp --http 127.0.0.1:PORT`` as a real subprocess, its config dir in tmp."""

    def __init__(self, root: Path, cwd: Path, *extra: str) -> None:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.env = env_for(root.parent)
        self.env["XDG_CONFIG_HOME"] = str(root.parent / "config")  # platformdirs: never the real home
        self.token_file = root.parent / "config" / "dsh-memory" / "mcp-http.token"
        args = ["--root", str(root), "mcp", "--cwd", str(cwd), "--http", f"127.0.0.1:{self.port}", *extra]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "core.cli.main", *args],
            env=self.env,
            cwd=str(REPO),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._wait()

    def _wait(self) -> None:
        import socket
        import time

        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited: {self.proc.stderr.read() if self.proc.stderr else ''}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.2)
        raise AssertionError("the HTTP server did not start")

    @property
    def token(self) -> str:
        return self.token_file.read_text().strip()

    def stop(self) -> str:
        """Stop the server; its stderr (also kept in ``self.stderr``)."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        self.stderr: str = (getattr(self, "stderr", "") or "") + (err or "")
        return self.stderr

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_http_client(
    url: str,
    token: str,
    body: Callable[[Client], Awaitable[Any]],
    *,
    mode: str = "auto",
    client_name: str = "http-agent",
) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> Any:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
            Client(
                streamable_http_client(url, http_client=http),
                mode=mode,
                client_info=types.Implementation(name=client_name, version="1"),
                read_timeout_seconds=60,
                cache=None,
            ) as client,
        ):
            return await body(client)

    return anyio.run(main)


def raw_session(
    root: Path, cwd: Path, lines: list[Any], *, until_id: int, extra: tuple[str, ...] = ()
) -> dict[Any, dict[str, Any]]:
    """Write raw lines (dicts as JSON, strings as they are) to a stdio server and collect the answers
    until the one with id ``until_id`` arrived; stdin stays open until then. Answers by id (None:
    answers to lines that had no id), plus ``"stderr"``: what the server logged."""
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli.main", "--root", str(root), "mcp", "--cwd", str(cwd), *extra],
        env=env_for(root.parent),
        cwd=str(REPO),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    timer = threading.Timer(120, proc.kill)
    timer.start()
    try:
        for line in lines:
            proc.stdin.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
        proc.stdin.flush()
        answers: dict[Any, dict[str, Any]] = {}
        for out in proc.stdout:
            msg = json.loads(out)
            answers[msg.get("id")] = msg
            if msg.get("id") == until_id:
                break
        proc.stdin.close()
        proc.wait(timeout=60)
        answers["stderr"] = {"text": proc.stderr.read() if proc.stderr else ""}
        return answers
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
