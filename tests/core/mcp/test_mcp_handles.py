"""The write contract with stateless `observed` handles, through the SDK's own stdio client in both
protocol eras: read -> write with the handle commits; no / forged / foreign / stale handles are
refused and nothing is written; a cancelled read hands out nothing; sub-agents sharing one
connection each write against what *they* read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from core.keys import workspace_key
from core.store.fs import FileStore
from tests.core.mcp.mcp_support import (
    cli,
    error_of,
    handle_in,
    ok_json,
    put,
    raw_session,
    read_handle,
    record_text,
    run_client,
    seed_root,
    tree,
)

pytestmark = pytest.mark.slow

ERAS = ["legacy", "2026-07-28"]


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, Path]:
    return seed_root(tmp_path)


def _update(name: str, observed: str | None) -> dict[str, Any]:
    args: dict[str, Any] = {"changes": [put(name, f"{name} d", "A fact.")], "reason": "The user said so."}
    if observed is not None:
        args["observed"] = observed
    return args


def _ws(root: Path, cwd: Path) -> Path:
    return root / "workspaces" / workspace_key(str(cwd))


@pytest.mark.parametrize("era", ERAS)
def test_handles_gate_every_write(seeded: tuple[Path, Path], tmp_path: Path, era: str) -> None:
    root, cwd = seeded
    other = tmp_path / "other-project"
    other.mkdir()
    FileStore(root).create_workspace(str(other))

    async def foreign_handle(client: Client) -> str:
        return await read_handle(client)

    foreign = run_client(root, other, foreign_handle, mode=era)  # a real handle, for another workspace

    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        handle = await read_handle(client, "memory_recall", {"query": "packaging"})
        tampered = handle[:-3] + ("AAA" if not handle.endswith("AAA") else "BBB")
        before = tree(root)
        out["missing"] = error_of(await client.call_tool("memory_update", _update("no-handle", None)))
        out["forged"] = error_of(await client.call_tool("memory_update", _update("forged", tampered)))
        out["made_up"] = error_of(await client.call_tool("memory_update", _update("made-up", "obs1_" + "A" * 55)))
        out["foreign"] = error_of(await client.call_tool("memory_update", _update("foreign", foreign)))
        out["untouched"] = tree(root) == before
        out["ok"] = ok_json(await client.call_tool("memory_update", _update("fact-one", handle)))
        # The same handle again: memory changed since (by this very write), so it is stale now.
        out["stale"] = error_of(await client.call_tool("memory_update", _update("fact-two", handle)))
        out["chained"] = ok_json(await client.call_tool("memory_update", _update("fact-two", out["ok"]["observed"])))
        return out

    out = run_client(root, cwd, body, "--writes", "direct", mode=era)
    for refused in ("missing", "forged", "made_up", "foreign", "stale"):
        assert out[refused]["code"] == "conflict", (refused, out[refused])
        assert "memory_read" in out[refused]["message"]  # told to read again
    assert out["untouched"]
    assert out["ok"]["status"] == "committed" and out["chained"]["status"] == "committed"
    names = sorted(p.name for p in _ws(root, cwd).glob("*.md"))
    assert names == ["MEMORY.md", "build-tool.md", "fact-one.md", "fact-two.md"]


def test_a_handle_from_another_root_is_refused(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    root, cwd = seeded
    twin = tmp_path / "twin-memory"  # the same workspace and revisions, another root (so another key)
    import shutil

    shutil.copytree(root, twin)
    (twin / ".manager" / "mcp-handle.key").unlink(missing_ok=True)
    theirs = run_client(twin, cwd, read_handle)
    before = tree(root)
    err = run_client(root, cwd, lambda c: _refused(c, theirs), "--writes", "direct")
    assert err["code"] == "conflict" and tree(root) == before


async def _refused(client: Client, handle: str) -> dict[str, Any]:
    return error_of(await client.call_tool("memory_update", _update("fact-x", handle)))


@pytest.mark.parametrize("era", ERAS)
def test_a_handle_survives_reconnecting_and_a_cli_commit_makes_it_stale(seeded: tuple[Path, Path], era: str) -> None:
    root, cwd = seeded
    handle = run_client(root, cwd, read_handle, mode=era)  # connection 1 reads and goes away
    # Connection 2 (a new process) writes with it: nothing about the read was kept by the server.
    done = run_client(root, cwd, lambda c: _ok(c, handle), "--writes", "direct", mode=era)
    assert done["status"] == "committed"

    fresh = run_client(root, cwd, read_handle, mode=era)
    mine = cwd.parent / "deploy.md"
    mine.write_text(record_text("deploy-target", "Deploys go to staging", "Staging first."))
    assert cli(root, "put", "--cwd", str(cwd), "--file", str(mine)).returncode == 0
    before = tree(root)
    err = run_client(root, cwd, lambda c: _refused(c, fresh), "--writes", "direct", mode=era)
    assert err["code"] == "conflict" and tree(root) == before


async def _ok(client: Client, handle: str) -> dict[str, Any]:
    return ok_json(await client.call_tool("memory_update", _update("fact-one", handle)))


@pytest.mark.parametrize("era", ERAS)
def test_sub_agents_on_one_connection_write_against_their_own_reads(seeded: tuple[Path, Path], era: str) -> None:
    root, cwd = seeded

    async def body(client: Client) -> list[str]:
        results = []
        # Interleaving 1: A reads, B reads, A writes (ok), B writes with its older handle (refused),
        # B reads again and writes (ok).
        a = await read_handle(client, "memory_read", {"name": "build-tool"})
        b = await read_handle(client, "memory_search", {"query": "electron"})
        results.append(ok_json(await client.call_tool("memory_update", _update("from-a", a)))["status"])
        results.append(error_of(await client.call_tool("memory_update", _update("from-b", b)))["code"])
        b = await read_handle(client, "memory_index")
        results.append(ok_json(await client.call_tool("memory_update", _update("from-b", b)))["status"])
        # Interleaving 2: A reads, then B reads and writes; A's write is refused even though A is the
        # latest to have *called* the server (a per-connection observation would have let it through).
        a = await read_handle(client)
        b = await read_handle(client, "memory_recall", {"query": "facts"})
        results.append(ok_json(await client.call_tool("memory_update", _update("from-b-2", b)))["status"])
        await client.call_tool("memory_recall", {"query": "something else"})  # B reads again; A did not
        results.append(error_of(await client.call_tool("memory_update", _update("from-a-2", a)))["code"])
        return results

    results = run_client(root, cwd, body, "--writes", "direct", mode=era)
    assert results == ["committed", "conflict", "committed", "committed", "conflict"]
    ws = _ws(root, cwd)
    assert (ws / "from-a.md").exists() and (ws / "from-b.md").exists() and (ws / "from-b-2.md").exists()
    assert not (ws / "from-a-2.md").exists()


def test_a_cancelled_read_hands_out_no_handle(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = tree(root)

    async def body(client: Client) -> tuple[bool, dict[str, Any]]:
        got = False
        with anyio.CancelScope() as scope:  # the client abandons the read: notifications/cancelled
            scope.cancel()
            await client.call_tool("memory_index", {})
            got = True
        # The agent never saw an answer, so it has no handle; an update without one is refused.
        return got, error_of(await client.call_tool("memory_update", _update("fact-one", None)))

    got, err = run_client(root, cwd, body, "--writes", "direct")
    assert not got
    assert err["code"] == "conflict" and tree(root) == before


def test_a_cancelled_read_on_the_wire_then_update_is_refused(seeded: tuple[Path, Path]) -> None:
    """The issue's exact sequence, as raw JSON-RPC: memory_index, notifications/cancelled for it, then
    memory_update. Before handles the server counted the index as seen and committed."""
    import json

    root, cwd = seeded
    before = tree(root)
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_index", "arguments": {}}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "memory_update", "arguments": _update("fact-one", None)},
        },
    ]
    answers = raw_session(root, cwd, lines, until_id=3, extra=("--writes", "direct"))
    update = answers[3]["result"]
    assert update["isError"] is True
    assert json.loads(update["content"][0]["text"])["error"]["code"] == "conflict"
    assert tree(root) == before


def test_replace_global_needs_a_handle_that_saw_all_of_global(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        partial = await read_handle(client, "memory_search", {"query": "short"})  # excerpts only
        refused = error_of(
            await client.call_tool("replace_global", {"text": "# New\n", "reason": "r", "observed": partial})
        )
        whole = handle_in(
            (await client.call_tool("memory_read_global", {})).content[0].text  # type: ignore[union-attr]
        )
        done = ok_json(
            await client.call_tool("replace_global", {"text": "# User\n\n- Tabs.\n", "reason": "r", "observed": whole})
        )
        return refused, done

    refused, done = run_client(root, cwd, body, "--writes", "direct", "--allow-global")
    assert refused["code"] == "conflict" and done["status"] == "committed"
    assert "Tabs" in (root / "GLOBAL.md").read_text()


def test_the_handle_key_is_private(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    run_client(root, cwd, read_handle)
    key = root / ".manager" / "mcp-handle.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32
