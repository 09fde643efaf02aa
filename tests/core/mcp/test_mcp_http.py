"""``dsh-memory mcp --http``: a real loopback server process, the SDK's own Streamable HTTP client,
both protocol eras; the bearer token and DNS-rebinding protection in front of everything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from tests.core.mcp.mcp_support import (
    HttpServer,
    error_of,
    ok_json,
    put,
    read_handle,
    run_client,
    run_http_client,
    seed_root,
    tree,
)

pytestmark = pytest.mark.slow

PING = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_index", "arguments": {}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, Path]:
    return seed_root(tmp_path)


def test_without_or_with_a_wrong_token_nothing_is_served(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = tree(root)
    with HttpServer(root, cwd, "--writes", "direct") as server:
        answers = [
            httpx.post(server.url, json=PING, headers=HEADERS, timeout=30),
            httpx.post(server.url, json=PING, headers={**HEADERS, "Authorization": "Bearer wrong"}, timeout=30),
            httpx.post(server.url, json=PING, headers={**HEADERS, "Authorization": server.token}, timeout=30),
            httpx.get(server.url, headers={"Authorization": "Basic eDp5"}, timeout=30),
        ]
        # The right token but a foreign Host header (DNS rebinding): refused too.
        rebound = httpx.post(
            server.url,
            json=PING,
            headers={**HEADERS, "Authorization": f"Bearer {server.token}", "Host": "evil.example:80"},
            timeout=30,
        )
    assert [a.status_code for a in answers] == [401, 401, 401, 401]
    assert all("observed" not in a.text and "build-tool" not in a.text for a in answers)
    assert rebound.status_code in (403, 421) and "build-tool" not in rebound.text
    assert tree(root) == before and not (root / ".manager" / "mcp-handle.key").exists()  # no read happened


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
def test_handles_work_over_http_in_both_eras(seeded: tuple[Path, Path], era: str) -> None:
    root, cwd = seeded

    async def body(client: Client) -> list[Any]:
        h = await read_handle(client, "memory_read", {"name": "build-tool"})
        before = tree(root)
        missing = error_of(await client.call_tool("memory_update", {"changes": [put("x-y", "d", "b")], "reason": "r"}))
        forged = error_of(
            await client.call_tool(
                "memory_update", {"changes": [put("x-y", "d", "b")], "reason": "r", "observed": h[:-4] + "AAAA"}
            )
        )
        assert [missing["code"], forged["code"]] == ["conflict", "conflict"] and tree(root) == before
        done = ok_json(
            await client.call_tool(
                "memory_update", {"changes": [put("fact-one", "d", "b")], "reason": "r", "observed": h}
            )
        )
        stale = error_of(
            await client.call_tool(
                "memory_update", {"changes": [put("fact-two", "d", "b")], "reason": "r", "observed": h}
            )
        )
        return [done["status"], stale["code"]]

    with HttpServer(root, cwd, "--writes", "direct") as server:
        assert run_http_client(server.url, server.token, body, mode=era) == ["committed", "conflict"]
        # A handle from a stdio connection is good over HTTP: the server keeps nothing per connection.
        from_stdio = run_client(root, cwd, read_handle)

        async def write(client: Client) -> dict[str, Any]:
            args = {"changes": [put("fact-three", "d", "b")], "reason": "r", "observed": from_stdio}
            return ok_json(await client.call_tool("memory_update", args))

        assert run_http_client(server.url, server.token, write, mode=era)["status"] == "committed"
    assert (root / "workspaces").exists()


def test_the_token_is_generated_once_private_and_printed_once(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    with HttpServer(root, cwd) as first:
        token = first.token
        mode = first.token_file.stat().st_mode & 0o777
    err_first = first.stderr
    with HttpServer(root, cwd) as second:
        assert second.token == token  # kept, not regenerated
    err_second = second.stderr
    assert mode == 0o600 and len(token) >= 32
    assert token in err_first and token not in err_second
    assert str(first.token_file).startswith(str(root.parent))  # the config dir of the test, never $HOME


def test_a_token_file_of_your_own(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    root, cwd = seeded
    mine = tmp_path / "my.token"
    mine.write_text("a-token-of-my-own-that-is-long-enough\n")
    mine.chmod(0o600)
    with HttpServer(root, cwd, "--token-file", str(mine)) as server:
        ok = run_http_client(server.url, "a-token-of-my-own-that-is-long-enough", read_handle)
        other = httpx.post(server.url, json=PING, headers={**HEADERS, "Authorization": "Bearer " + "x" * 43})
    assert ok.startswith("obs1_")
    assert other.status_code == 401
    assert not server.token_file.exists()  # nothing generated when you bring your own
