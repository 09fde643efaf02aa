"""``dsh-memory mcp`` as a real subprocess, driven by the MCP SDK's stdio client.

What an agent sees over the protocol: the tools offered per write mode, deterministic recall,
observation-based compare-and-swap, refusals (no observation, stale, secrets, paths), review mode
(pending proposals the user accepts through the same service the GUI uses), and ``--writes off``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from core.consolidation.agent_proposals import AgentProposals
from core.keys import workspace_key
from core.models import PutOp, Record
from core.store.fs import FileStore
from tests.core.mcp.mcp_support import (
    cli,
    error_of,
    handle_in,
    ok_json,
    put,
    read_handle,
    record_text,
    run_client,
    text_of,
    tree,
)

pytestmark = pytest.mark.slow  # each test starts the server (the MCP SDK takes seconds to import on a busy machine)

SECRET = "sk-" + "Tq8v2LmN4pX7rZ1kY9wB3cD5fG6hJ0aS"


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, Path]:
    """A root with GLOBAL.md and a workspace (of ``tmp/project``) holding one record."""
    root = tmp_path / "memory"
    cwd = tmp_path / "project"
    cwd.mkdir()
    store = FileStore(root)
    store.replace_global("# User Preferences\n\n- Prefers short answers.\n", None)
    snap = store.create_workspace(str(cwd))
    store.commit(
        snap.key,
        [
            PutOp(
                record=Record(
                    name="build-tool",
                    description="Packaging uses electron-builder",
                    type="project",
                    body="\nWe package with electron-builder.\n\n**Why:** signing.\n",
                )
            )
        ],
        snap.revision,
    )
    return root, cwd


def _ws(root: Path, cwd: Path) -> Path:
    return root / "workspaces" / workspace_key(str(cwd))


def test_tools_and_resources_offered_per_write_mode(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded

    async def offered(client: Client) -> tuple[list[types.Tool], list[str], list[str]]:
        tools = (await client.list_tools()).tools
        resources = await client.list_resources()
        texts = []
        for uri in ("memory://global", "memory://workspace/index"):
            block = (await client.read_resource(uri)).contents[0]
            assert isinstance(block, types.TextResourceContents)
            texts.append(block.text)
        return tools, sorted(str(r.uri) for r in resources.resources), texts

    tools, resources, (global_text, index_text) = run_client(root, cwd, offered)
    assert sorted(t.name for t in tools) == [
        "memory_edit",
        "memory_index",
        "memory_read",
        "memory_recall",
        "memory_recent",
        "memory_related",
        "memory_search",
        "memory_update",
    ]
    assert resources == ["memory://global", "memory://workspace/index"]
    assert "Prefers short answers" in global_text and "[build-tool](build-tool.md)" in index_text
    off_tools, _, _ = run_client(root, cwd, offered, "--writes", "off")
    assert sorted(t.name for t in off_tools) == [
        "memory_index",
        "memory_read",
        "memory_recall",
        "memory_recent",
        "memory_related",
        "memory_search",
    ]
    all_tools, _, _ = run_client(root, cwd, offered, "--writes", "direct", "--allow-global")
    assert {"replace_global", "memory_read_global"} <= {t.name for t in all_tools}
    for tool in all_tools:  # no tool takes a root, path, cwd, workspace key or revision
        assert not {"root", "path", "cwd", "key", "workspace", "revision"} & set(tool.input_schema["properties"])


def test_recall_twice_gives_the_same_bytes(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded

    async def body(client: Client) -> tuple[str, str, str]:
        a = text_of(await client.call_tool("memory_recall", {"query": "electron packaging"}))
        b = text_of(await client.call_tool("memory_recall", {"query": "electron packaging"}))
        search = text_of(await client.call_tool("memory_search", {"query": "electron", "limit": 5}))
        return a, b, search

    first, second, search = run_client(root, cwd, body)
    assert first == second
    assert first.startswith("<<<BEGIN UNTRUSTED DSH MEMORY>>>")
    frame, handle_line = first.rstrip().rsplit("\n", 1)
    assert frame.endswith("MEMORY>>>") and handle_line.startswith("observed: obs1_")  # the handle: outside the frame
    assert "electron-builder" in first and "Prefers short answers" in first
    assert f"cwd: {cwd}" in first  # no roots from the client: the scope is --cwd
    hits = json.loads(search)["hits"]
    assert hits[0]["name"] == "build-tool"
    # A fresh connection on the same memory recalls the same bytes too.
    again = run_client(root, cwd, lambda c: _recall(c, "electron packaging"))
    assert again == first


async def _recall(client: Client, query: str) -> str:
    return text_of(await client.call_tool("memory_recall", {"query": query}))


def test_update_without_observation_is_refused(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = tree(root)

    async def body(client: Client) -> dict[str, Any]:
        return error_of(await client.call_tool("memory_update", {"changes": [put("x-y", "d", "b")], "reason": "r"}))

    err = run_client(root, cwd, body, "--writes", "direct")
    assert err["code"] == "conflict"
    assert "memory_read" in err["message"]  # told how to get a handle
    assert tree(root) == before


def test_read_then_update_commits_and_keeps_history(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any], str]:
        h = await read_handle(client)
        first = ok_json(
            await client.call_tool(
                "memory_update",
                {
                    "changes": [
                        put("test-command", "How to run the tests", "Run `bash scripts/test.sh`.", "reference"),
                        put("build-tool", "Packaging uses electron-builder 25", "We package with electron-builder 25."),
                    ],
                    "reason": "The user told me how tests run and which builder version we use.",
                    "observed": h,
                },
            )
        )
        # Its own commit's answer carries a handle for the new state: a follow-up write needs no re-read.
        second = ok_json(
            await client.call_tool(
                "memory_update",
                {"changes": [{"op": "delete", "name": "test-command"}], "reason": "r", "observed": first["observed"]},
            )
        )
        read = text_of(await client.call_tool("memory_read", {"name": "build-tool"}))
        return first, second, read

    first, second, read = run_client(root, cwd, body, "--writes", "direct")
    assert first["status"] == "committed" and second["status"] == "committed"
    ws = _ws(root, cwd)
    assert "electron-builder 25" in (ws / "build-tool.md").read_text()
    assert not (ws / "test-command.md").exists()
    assert (ws / "MEMORY.md").read_text() == (
        "<!-- Generated by dsh-memory. Do not edit directly. -->\n\n"
        "- [build-tool](build-tool.md) — Packaging uses electron-builder 25\n"
    )
    assert "electron-builder 25" in read
    history = FileStore(root).history.entries(workspace_key(str(cwd)))
    assert {(h.name, h.reason) for h in history} >= {("build-tool", "overwrite"), ("test-command", "delete")}


def test_cli_commit_between_read_and_update_is_refused_as_stale(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    root, cwd = seeded
    mine = tmp_path / "deploy.md"
    mine.write_text(record_text("deploy-target", "Deploys go to staging first", "Staging, then prod."))

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        h = await read_handle(client, "memory_read", {"name": "build-tool"})
        done = cli(root, "put", "--cwd", str(cwd), "--file", str(mine))  # another writer, another process
        assert done.returncode == 0, done.stdout + done.stderr
        on_disk = tree(root)
        stale = error_of(
            await client.call_tool(
                "memory_update",
                {"changes": [put("build-tool", "Uses Tauri now", "We moved to Tauri.")], "reason": "r", "observed": h},
            )
        )
        assert tree(root) == on_disk  # refused: nothing written
        h2 = await read_handle(client)  # read again, then the same change goes through
        retried = ok_json(
            await client.call_tool(
                "memory_update",
                {"changes": [put("build-tool", "Uses Tauri now", "We moved to Tauri.")], "reason": "r", "observed": h2},
            )
        )
        return stale, retried

    ws = _ws(root, cwd)
    stale, retried = run_client(root, cwd, body, "--writes", "direct")
    assert stale["code"] == "conflict" and "changed since you last read it" in stale["message"]
    assert retried["status"] == "committed"
    assert (ws / "deploy-target.md").read_text() == mine.read_text()  # the other writer's record survived
    assert "Tauri" in (ws / "build-tool.md").read_text()


def test_secrets_are_refused(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = tree(root)

    async def body(client: Client) -> list[dict[str, Any]]:
        h = await read_handle(client)
        errors = []
        for mode_args in (
            {"changes": [put("api-key", "The DeepSeek key", f"Use {SECRET} for calls.")], "reason": "r", "observed": h},
        ):
            errors.append(error_of(await client.call_tool("memory_update", mode_args)))
        return errors

    (err,) = run_client(root, cwd, body)  # review mode: refused before anything is proposed
    assert err["code"] == "secret", err
    assert SECRET not in json.dumps(err)  # the value is never echoed back
    assert tree(root) == before  # not written, not even proposed


def test_path_traversal_names_are_refused(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = tree(root)

    async def body(client: Client) -> list[dict[str, Any]]:
        h = await read_handle(client)
        calls = [
            ("memory_update", {"changes": [put("../../escaped", "d", "b")], "reason": "r", "observed": h}),
            ("memory_update", {"changes": [put("sub/dir", "d", "b")], "reason": "r", "observed": h}),
            ("memory_update", {"changes": [{"op": "delete", "name": "../GLOBAL"}], "reason": "r", "observed": h}),
            ("memory_update", {"changes": [put("memory", "d", "b")], "reason": "r", "observed": h}),
            ("memory_read", {"name": "../../GLOBAL"}),
            (
                "memory_update",
                {
                    "changes": [
                        {
                            "op": "put",
                            "name": "x",
                            "description": "d",
                            "type": "project",
                            "body": "b",
                            "path": "/etc/passwd",
                        }
                    ],
                    "reason": "r",
                    "observed": h,
                },
            ),
        ]
        return [error_of(await client.call_tool(name, args)) for name, args in calls]

    errors = run_client(root, cwd, body, "--writes", "direct")
    assert [e["code"] for e in errors] == ["invalid", "invalid", "invalid", "invalid", "invalid", "usage"]
    assert tree(root) == before
    assert not (root.parent / "escaped.md").exists() and not (root / "escaped.md").exists()


def test_review_mode_writes_nothing_and_the_proposal_is_accepted(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    ws = _ws(root, cwd)
    before = {p.name: p.read_bytes() for p in ws.iterdir()}
    global_before = (root / "GLOBAL.md").read_bytes()

    async def body(client: Client) -> dict[str, Any]:
        h = await read_handle(client, "memory_read", {"name": "build-tool"})
        return ok_json(
            await client.call_tool(
                "memory_update",
                {
                    "changes": [put("release-day", "Releases ship on Thursdays", "We release on Thursdays.")],
                    "reason": "The user said releases ship on Thursdays.",
                    "observed": h,
                },
            )
        )

    answer = run_client(root, cwd, body, client_name="claude-code")
    assert answer["status"] == "pending_review"
    pid = answer["proposal_id"]
    assert {p.name: p.read_bytes() for p in ws.iterdir()} == before  # nothing written to memory
    assert (root / "GLOBAL.md").read_bytes() == global_before

    listed = cli(root, "reviews", "--pending")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["pending_agent_proposals"]
    assert [(r["id"], r["consolidator"], r["stale"]) for r in rows] == [(pid, "agent:claude-code", False)]

    # Accepted through the service the GUI uses: a review with diffs, the agent's reason, CAS, a receipt.
    proposals = AgentProposals(FileStore(root))
    review = proposals.open(pid)
    assert review.consolidator == "agent:claude-code"
    (change,) = review.changes
    assert change.reason == "The user said releases ship on Thursdays." and change.is_actionable
    assert "+We release on Thursdays." in change.diff
    receipt = proposals.commit(review, [change.id])
    assert receipt.status == "committed" and receipt.consolidator == "agent:claude-code"
    assert "Thursdays" in (ws / "release-day.md").read_text()
    assert "release-day" in (ws / "MEMORY.md").read_text()
    assert proposals.pending() == ([], [])
    assert "committed" in (root / "reviews" / f"{pid}.md").read_text()


def test_review_mode_cli_apply_reject_and_stale(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    root, cwd = seeded
    ws = _ws(root, cwd)

    async def body(client: Client) -> list[str]:
        h = await read_handle(client)
        ids = []
        for name in ("first-fact", "second-fact"):
            answer = ok_json(
                await client.call_tool(
                    "memory_update", {"changes": [put(name, f"{name} d", "b")], "reason": name, "observed": h}
                )
            )
            ids.append(answer["proposal_id"])
        return ids

    first, second = run_client(root, cwd, body)
    applied = cli(root, "review", first, "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert (ws / "first-fact.md").exists()
    # The second was based on the memory before the first was applied: stale, nothing written.
    conflict = cli(root, "review", second, "--apply")
    assert conflict.returncode == 5 and json.loads(conflict.stdout)["error"]["code"] == "conflict"
    assert not (ws / "second-fact.md").exists()
    rows = json.loads(cli(root, "reviews", "--pending").stdout)["pending_agent_proposals"]
    assert [(r["id"], r["stale"]) for r in rows] == [(second, True)]
    rejected = cli(root, "review", second, "--reject")
    assert rejected.returncode == 0 and json.loads(rejected.stdout)["receipt"]["status"] == "rejected"
    assert not (ws / "second-fact.md").exists()
    assert json.loads(cli(root, "reviews", "--pending").stdout)["pending_agent_proposals"] == []


def test_writes_off_offers_no_write_tool(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = tree(root)

    async def body(client: Client) -> list[MCPError]:
        h = await read_handle(client)
        errors = []
        for tool in ("memory_update", "memory_edit", "no_such_tool"):
            with pytest.raises(MCPError) as caught:
                await client.call_tool(tool, {"changes": [put("a-b", "d", "b")], "reason": "r", "observed": h})
            errors.append(caught.value)
        return errors

    errors = run_client(root, cwd, body, "--writes", "off")
    # A tool the server does not offer is a protocol error (invalid params), not a tool result.
    assert [e.error.code for e in errors] == [-32602, -32602, -32602]
    assert tree(root) == before


def test_replace_global_needs_a_whole_read_of_global(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any], str]:
        partial = await read_handle(client)  # the index does not show Global
        refused = error_of(
            await client.call_tool("replace_global", {"text": "# New\n", "reason": "r", "observed": partial})
        )
        current = text_of(await client.call_tool("memory_read_global", {}))
        done = ok_json(
            await client.call_tool(
                "replace_global",
                {
                    "text": "# User Preferences\n\n- Prefers short answers.\n- Writes in Chinese.\n",
                    "reason": "r",
                    "observed": handle_in(current),
                },
            )
        )
        return refused, done, current

    refused, done, current = run_client(root, cwd, body, "--writes", "direct", "--allow-global")
    assert refused["code"] == "conflict" and "memory_read_global" in refused["message"]
    assert "Prefers short answers" in current
    assert done["status"] == "committed"
    assert "Writes in Chinese" in (root / "GLOBAL.md").read_text()


def test_scope_comes_from_the_clients_first_root(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    root, cwd = seeded
    other = tmp_path / "elsewhere"
    other.mkdir()

    async def roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=other.as_uri(), name="elsewhere")])  # type: ignore[arg-type]

    recall = run_client(root, cwd, lambda c: _recall(c, "electron"), mode="legacy", list_roots_callback=roots)
    assert f"cwd: {other}" in recall and "electron-builder" not in recall
