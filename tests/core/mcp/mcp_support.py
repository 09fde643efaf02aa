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


def record_text(name: str, description: str, body: str, rtype: str = "project") -> str:
    return f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: {rtype}\n---\n\n{body}\n"


def put(name: str, description: str, body: str, rtype: str = "project") -> dict[str, str]:
    return {"op": "put", "name": name, "description": description, "type": rtype, "body": body}


def tree(root: Path) -> dict[str, bytes]:
    """Every file under the root except the store's own locks and caches (to prove nothing was written)."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".manager/locks/", ".manager/cache/")):
            out[rel] = path.read_bytes()
    return out
