"""The tools agents reach for, through the SDK's stdio client: partial edits, what changed since,
paging past the byte cap, related records, prompts; and `review --apply --refresh` keeping a
concurrent edit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from core.keys import workspace_key
from core.models import PutOp, Record
from core.store.fs import FileStore
from tests.core.mcp.mcp_support import (
    cli,
    error_of,
    ok_json,
    put,
    read_handle,
    record_text,
    run_client,
    text_of,
    tree,
)

pytestmark = pytest.mark.slow

BODY = (
    "\nWe package with electron-builder.\n\n## Signing\n\nmacOS builds are notarized.\n\n## Targets\n\ndmg and nsis.\n"
)


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "memory"
    cwd = tmp_path / "project"
    cwd.mkdir()
    store = FileStore(root)
    store.replace_global("# User Preferences\n\n- Prefers short answers.\n", None)
    snap = store.create_workspace(str(cwd))
    records = [
        Record(name="build-tool", description="Packaging", type="project", body=BODY),
        Record(name="release-flow", description="How releases go", type="project", body="\nSee [[build-tool]].\n"),
        Record(name="ci-runner", description="CI", type="project", body="\nGitHub Actions, see [[release-flow]].\n"),
    ]
    store.commit(snap.key, [PutOp(record=r) for r in records], snap.revision)
    return root, cwd


def _file(root: Path, cwd: Path, name: str) -> str:
    return (root / "workspaces" / workspace_key(str(cwd)) / f"{name}.md").read_text()


def test_each_edit_op_and_an_ambiguous_find_replace(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded

    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        h = await read_handle(client, "memory_read", {"name": "build-tool"})

        async def edit(args: dict[str, Any], handle: str) -> Any:
            return await client.call_tool(
                "memory_edit", {"name": "build-tool", "reason": "r", "observed": handle, **args}
            )

        done = ok_json(
            await edit({"op": "replace_section", "heading": "Targets", "text": "dmg, nsis and AppImage."}, h)
        )
        # Appended after the last section, so the section replaced above ends before it.
        done = ok_json(await edit({"op": "append", "text": "**Why:** signing needs it."}, done["observed"]))
        done = ok_json(
            await edit({"op": "find_replace", "old": "notarized", "new": "notarized and stapled"}, done["observed"])
        )
        before = tree(root)
        out["none"] = error_of(await edit({"op": "find_replace", "old": "no such text", "new": "x"}, done["observed"]))
        out["no_heading"] = error_of(
            await edit({"op": "replace_section", "heading": "Nope", "text": "x"}, done["observed"])
        )
        out["stale"] = error_of(await edit({"op": "append", "text": "late"}, h))  # an old handle
        out["untouched"] = tree(root) == before
        out["text"] = _file(root, cwd, "build-tool")
        return out

    out = run_client(root, cwd, body, "--writes", "direct")
    text = out["text"]
    assert "**Why:** signing needs it." in text
    assert "dmg, nsis and AppImage." in text and "\ndmg and nsis.\n" not in text
    assert "notarized and stapled" in text
    assert "## Signing" in text and "## Targets" in text and "electron-builder" in text
    assert out["none"]["code"] == "usage" and "0 time(s)" in out["none"]["message"]
    assert out["no_heading"]["code"] == "usage"
    assert out["stale"]["code"] == "conflict"
    assert out["untouched"]  # refused edits wrote nothing


def test_find_replace_that_matches_twice_is_refused_with_the_count(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = tree(root)

    async def body(client: Client) -> dict[str, Any]:
        h = await read_handle(client, "memory_read", {"name": "build-tool"})
        args = {"name": "build-tool", "op": "find_replace", "old": "builds", "new": "x", "reason": "r", "observed": h}
        args["old"] = "e"  # many times
        many = error_of(await client.call_tool("memory_edit", args))
        args["old"] = "## "  # exactly twice (two headings)
        return {"many": many, "twice": error_of(await client.call_tool("memory_edit", args))}

    out = run_client(root, cwd, body, "--writes", "direct")
    assert out["twice"]["code"] == "usage" and "2 time(s)" in out["twice"]["message"]
    assert out["many"]["code"] == "usage"
    assert tree(root) == before


def test_an_edit_in_review_mode_is_a_whole_record_proposal(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded
    before = _file(root, cwd, "build-tool")

    async def body(client: Client) -> dict[str, Any]:
        h = await read_handle(client)
        return ok_json(
            await client.call_tool(
                "memory_edit",
                {"name": "build-tool", "op": "append", "text": "Also Linux.", "reason": "User said.", "observed": h},
            )
        )

    answer = run_client(root, cwd, body)
    assert answer["status"] == "pending_review"
    assert _file(root, cwd, "build-tool") == before
    shown = cli(root, "review", answer["proposal_id"])
    change = json.loads(shown.stdout)["changes"][0]
    assert change["kind"] == "put" and "+Also Linux." in change["diff"]


def test_memory_recent_names_who_changed_what(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    root, cwd = seeded
    mine = tmp_path / "deploy.md"
    mine.write_text(record_text("deploy-target", "Deploys go to staging", "Staging first."))

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        h = await read_handle(client)
        assert cli(root, "put", "--cwd", str(cwd), "--file", str(mine)).returncode == 0  # the CLI commits
        h2 = await read_handle(client)
        ok_json(
            await client.call_tool(
                "memory_update", {"changes": [put("agent-fact", "d", "b")], "reason": "r", "observed": h2}
            )
        )
        since_handle = json.loads(text_of(await client.call_tool("memory_recent", {"observed": h})))
        everything = json.loads(text_of(await client.call_tool("memory_recent", {})))
        return since_handle, everything

    since_handle, everything = run_client(root, cwd, body, "--writes", "direct", client_name="claude-code")
    rows = since_handle["changes"]
    assert [(r["who"].split(" (")[0], [c["name"] for c in r["changes"]]) for r in rows] == [
        ("agent claude-code", ["agent-fact"]),
        ("the dsh-memory CLI", ["deploy-target"]),
    ]
    assert any(c["name"] == "build-tool" for r in everything["changes"] for c in r["changes"])  # the seed, too


def test_paging_reaches_every_hit_exactly_once(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    cwd = tmp_path / "project"
    cwd.mkdir()
    store = FileStore(root)
    snap = store.create_workspace(str(cwd))
    filler = " ".join(f"detail{i}" for i in range(120))  # long snippets: the byte cap bites before the limit
    records = [
        Record(name=f"note-{i:02d}", description=f"zebra note {i}", type="project", body=f"\nzebra {filler}\n")
        for i in range(60)
    ]
    store.commit(snap.key, [PutOp(record=r) for r in records], snap.revision)

    async def body(client: Client) -> tuple[list[list[str]], int, dict[str, Any]]:
        pages: list[list[str]] = []
        args: dict[str, Any] = {"query": "zebra", "limit": 50}
        total = 0
        while True:
            page = json.loads(text_of(await client.call_tool("memory_search", args)))
            total = page["total_matches"]
            pages.append([h["name"] for h in page["hits"]])
            assert len(text_of(await client.call_tool("memory_search", args)).encode()) <= 20_000
            if page["next_cursor"] is None:
                break
            args["cursor"] = page["next_cursor"]
        bad = error_of(await client.call_tool("memory_search", {"query": "other", "cursor": args["cursor"]}))
        return pages, total, bad

    pages, total, bad = run_client(root, cwd, body)
    names = [n for page in pages for n in page]
    assert len(pages) > 1  # the cap was reached
    assert total == 60 and sorted(names) == [f"note-{i:02d}" for i in range(60)]  # each exactly once
    assert bad["code"] == "usage"  # a cursor belongs to its query


def test_related_both_ways_and_prompts(seeded: tuple[Path, Path]) -> None:
    root, cwd = seeded

    async def body(client: Client) -> tuple[dict[str, Any], list[str], str]:
        related = json.loads(text_of(await client.call_tool("memory_related", {"name": "release-flow"})))
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        got = await client.get_prompt("remember", {"fact": "we deploy on Fridays"})
        text = got.messages[0].content.text  # type: ignore[union-attr]
        return related, prompts, text

    related, prompts, text = run_client(root, cwd, body)
    assert [r["name"] for r in related["links_to"]] == ["build-tool"]
    assert [r["name"] for r in related["linked_from"]] == ["ci-runner"]
    assert related["observed"].startswith("obs1_")
    assert sorted(prompts) == ["remember", "review-memory"]
    assert "we deploy on Fridays" in text and "memory_search" in text and "observed" in text


def test_refresh_does_not_silently_drop_a_concurrent_edit(seeded: tuple[Path, Path], tmp_path: Path) -> None:
    root, cwd = seeded

    async def body(client: Client) -> str:
        h = await read_handle(client)
        answer = ok_json(
            await client.call_tool(
                "memory_update",
                {"changes": [put("build-tool", "Packaging", "We use Tauri.")], "reason": "r", "observed": h},
            )
        )
        return str(answer["proposal_id"])

    pid = run_client(root, cwd, body)
    # The user edits the same record in the app after the agent proposed (and after it read).
    store = FileStore(root)
    snap = store.find_workspace(str(cwd))
    assert snap is not None
    edited = Record(name="build-tool", description="Packaging", type="project", body="\nelectron-builder 25, signed.\n")
    store.commit(snap.key, [PutOp(record=edited)], snap.revision)
    before = tree(root)
    refused = cli(root, "review", pid, "--apply", "--refresh")
    assert refused.returncode != 0 and "build-tool" in json.loads(refused.stdout)["error"]["message"]
    assert tree(root) == before  # the user's edit survives
    forced = cli(root, "review", pid, "--apply", "--refresh", "--overwrite")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert "Tauri" in _file(root, cwd, "build-tool")
