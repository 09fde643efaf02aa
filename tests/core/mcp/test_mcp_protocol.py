"""Protocol details, wrong roots and the scope rule, through the SDK's own stdio client (or raw
JSON-RPC lines where the SDK client cannot send what a broken client would)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.core.mcp.mcp_support import (
    REPO,
    env_for,
    error_of,
    ok_json,
    put,
    raw_session,
    read_handle,
    run_client,
    seed_root,
    text_of,
    tree,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, Path]:
    return seed_root(tmp_path)


def test_arguments_are_checked_against_the_tools_own_schema(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = tree(root)

    async def body(client: Client) -> dict[str, Any]:
        h = await read_handle(client)
        calls = {
            "missing_query": ("memory_recall", {}),
            "unknown_key": ("memory_search", {"query": "x", "path": "/etc"}),
            "limit_too_big": ("memory_search", {"query": "x", "limit": 999}),
            "limit_wrong_type": ("memory_search", {"query": "x", "limit": "ten"}),
            "changes_not_a_list": ("memory_update", {"changes": "notjson", "reason": "r", "observed": h}),
            "bad_edit_op": ("memory_edit", {"name": "build-tool", "op": "rewrite", "reason": "r", "observed": h}),
        }
        out = {k: error_of(await client.call_tool(tool, args)) for k, (tool, args) in calls.items()}
        out["fine"] = json.loads(text_of(await client.call_tool("memory_search", {"query": "electron", "limit": 50})))
        return out

    out = run_client(root, cwd, body, "--writes", "direct")
    for key in (
        "missing_query",
        "unknown_key",
        "limit_too_big",
        "limit_wrong_type",
        "changes_not_a_list",
        "bad_edit_op",
    ):
        assert out[key]["code"] == "usage", (key, out[key])
    assert "query" in out["missing_query"]["message"]
    assert "path" in out["unknown_key"]["message"]
    assert "999" in out["limit_too_big"]["message"]
    assert "changes" in out["changes_not_a_list"]["message"]  # not "you have not read"
    assert out["fine"]["hits"][0]["name"] == "build-tool"
    assert tree(root) == before


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
def test_unknown_resource_and_tool_are_invalid_params(seeded: tuple[Path, Path], era: str) -> None:
    root, cwd = seeded

    async def body(client: Client) -> tuple[MCPError, MCPError]:
        with pytest.raises(MCPError) as resource:
            await client.read_resource("memory://nothing/here")
        with pytest.raises(MCPError) as tool:
            await client.call_tool("memory_teleport", {})
        return resource.value, tool.value

    resource, tool = run_client(root, cwd, body, mode=era)
    assert resource.error.code == -32602 and resource.error.data == {"uri": "memory://nothing/here"}
    assert tool.error.code == -32602


def test_a_malformed_stdin_line_is_answered_and_logged(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    answers = raw_session(
        root,
        cwd,
        [
            "this is not json",
            '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", '
            '"capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}',
        ],
        until_id=1,
    )
    assert answers[None]["error"]["code"] == -32700
    assert answers[1]["result"]["serverInfo"]["name"] == "dsh-memory"  # the connection carried on
    assert "not a JSON-RPC message" in answers["stderr"]["text"]


def test_a_roots_timeout_says_why(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    from mcp.client.stdio import stdio_client

    from tests.core.mcp.mcp_support import server_params

    root, cwd = seeded
    log = tmp_path / "server-stderr.txt"

    async def slow_roots(context: Any) -> types.ListRootsResult:
        await anyio.sleep(30)
        return types.ListRootsResult(roots=[])

    async def main() -> str:
        with log.open("w") as errlog:
            async with Client(
                stdio_client(server_params(root, cwd), errlog=errlog),
                mode="legacy",
                read_timeout_seconds=60,
                cache=None,
                list_roots_callback=slow_roots,
            ) as client:
                return text_of(await client.call_tool("memory_recall", {"query": "electron"}))

    assert "electron-builder" in anyio.run(main)  # kept --cwd
    line = next(ln for ln in log.read_text().splitlines() if "roots/list failed" in ln)
    assert "roots/list failed ()" not in line and re.search(r"no answer within \d+ s", line)


def _start(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "core.cli.main", "--root", str(root), "mcp", *extra],
        input="",
        env=env_for(root.parent),
        cwd=str(REPO),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_wrong_root_refuses_to_start(tmp_path: Path) -> None:
    missing = tmp_path / "memroy"  # a typo
    done = _start(missing)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and str(missing) in done.stderr and "does not exist" in done.stderr
    assert not missing.exists()  # nothing created

    a_file = tmp_path / "memory.txt"
    a_file.write_text("not a root\n")
    done = _start(a_file, "--create-root")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "not a directory" in done.stderr
    assert a_file.read_text() == "not a root\n"

    done = _start(missing, "--create-root")  # with the flag: created, then served (stdin closed at once)
    assert done.returncode == 0, done.stderr
    assert missing.is_dir()


def test_an_empty_root_says_so(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    cwd = tmp_path / "project"
    cwd.mkdir()

    async def body(client: Client) -> tuple[str, str]:
        recall = text_of(await client.call_tool("memory_recall", {"query": "anything"}))
        index = text_of(await client.call_tool("memory_index", {}))
        return recall, index

    recall, index = run_client(root, cwd, body)
    assert recall.startswith(f"memory root {root} (empty)")
    assert index.startswith(f"memory root {root} (empty)")


def _readme_claude_line() -> list[str]:
    """The server command of the README's first `claude mcp add` line (what Claude Code will run)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    line = next(ln for ln in readme.splitlines() if ln.startswith("claude mcp add "))
    words = shlex.split(line.split("#", 1)[0])
    return words[words.index("--") + 1 :]


def test_the_readme_claude_line_from_a_subdirectory_lands_in_the_workspace(
    seeded: tuple[Path, Path], tmp_path: Path
) -> None:
    root, cwd = seeded
    sub = cwd / "src" / "deep"
    sub.mkdir(parents=True)
    command = _readme_claude_line()
    assert command[:2] == ["dsh-memory", "mcp"]
    env = env_for(tmp_path)
    env["DSH_MEMORY_ROOT"] = str(root)
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"  # the venv's dsh-memory, as if installed
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(sub))

    async def recall_in(mode: str, roots: Path | None) -> str:
        async def list_roots(context: Any) -> types.ListRootsResult:
            assert roots is not None
            return types.ListRootsResult(roots=[types.Root(uri=roots.as_uri())])  # type: ignore[arg-type]

        async with Client(
            params,
            mode=mode,
            read_timeout_seconds=60,
            cache=None,
            list_roots_callback=list_roots if roots is not None else None,
        ) as client:
            return text_of(await client.call_tool("memory_recall", {"query": "electron packaging"}))

    modern = anyio.run(recall_in, "2026-07-28", None)  # no roots in this era: the cwd, then its ancestors
    legacy = anyio.run(recall_in, "legacy", sub)  # a client whose root is the subdirectory
    for text in (modern, legacy):
        assert f"cwd: {cwd}\n" in text and "electron-builder" in text  # the workspace above, not an empty one


def test_a_fresh_directory_without_memory_above_is_its_own_workspace(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    root, _ = seeded
    fresh = tmp_path / "elsewhere" / "new-repo"
    fresh.mkdir(parents=True)

    async def body(client: Client) -> dict[str, Any]:
        h = await read_handle(client)
        return ok_json(
            await client.call_tool("memory_update", {"changes": [put("a-b", "d", "b")], "reason": "r", "observed": h})
        )

    done = run_client(root, fresh, body, "--writes", "direct")
    assert done["workspace"] == str(fresh)
