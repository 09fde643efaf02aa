"""Fixture stores written by the tests to the formats the other stores' own code writes (issue 12)."""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.sources.claude_code import encode_project
from core.sources.workspace_memory import scope_key
from core.store.fs import FileStore

TOKEN = "ghp_" + "Zx81kLmQ02pRtY7uWv3sNa9bCd4eFg6hJk1L"  # credential-shaped (GitHub token pattern)


def wm_entry(
    entry_id: str, etype: str, title: str, content: str, status: str | None = "active", **extra: Any
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": entry_id,
        "scope": "workspace",
        "type": etype,
        "title": title,
        "description": extra.pop("description", title),
        "retrievalTerms": extra.pop("retrievalTerms", []),
        "content": content,
        "tags": extra.pop("tags", []),
        "importance": extra.pop("importance", 2),
        "supersedes": extra.pop("supersedes", []),
        "revisions": extra.pop("revisions", []),
        "provenance": {"messageIds": ["m1"], "reason": "stated by the user"},
        "createdAt": "2026-10-01T10:00:00.000Z",
        "updatedAt": "2026-10-02T10:00:00.000Z",
    }
    if status is not None:
        entry["status"] = status
    entry.update(extra)
    return entry


def write_json(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=2), encoding="utf-8")


def wm_scope(
    root: Path, cwd: str, entries: list[dict[str, Any]], *, archived: bool = False, key: str | None = None
) -> Path:
    """One workspace-memory scope with every file the store writes."""
    folder = root / ("archived" if archived else "scopes") / (key or scope_key(cwd)) if cwd else root / "global"
    write_json(folder / "scope.json", {"key": key or (scope_key(cwd) if cwd else "global"), "cwd": cwd})
    write_json(folder / "memory_entries.json", entries)
    (folder / "memory_summary.md").write_text(
        "# Summary\n\n" + "\n".join(f"- {e['title']}" for e in entries) + "\n", encoding="utf-8"
    )
    write_json(folder / "state.json", {"checkpoints": 3, "pendingMessages": [], "seenMessageIds": ["m1", "m2"]})
    (folder / "checkpoints").mkdir(exist_ok=True)
    (folder / "checkpoints" / f"2026-10-02T10-00-00.000Z.{uuid.UUID(int=1)}.md").write_text(
        "checkpoint\n", encoding="utf-8"
    )
    (folder / "summary_history").mkdir(exist_ok=True)
    (folder / "summary_history" / f"1759400000000-{uuid.UUID(int=2)}.md").write_text("old summary\n", encoding="utf-8")
    return folder


@dataclass
class World:
    home: Path
    dsh_home: Path
    root: Path  # our memory root ($DSH_HOME/memory)
    alpha: str  # an English workspace
    beta: str  # a Chinese workspace
    gone: str  # a workspace folder that no longer exists
    ambiguous: tuple[str, str]  # two known cwds that Claude Code encodes to one folder

    @property
    def wm_root(self) -> Path:
        return self.dsh_home / "workspace-memory"

    @property
    def claude(self) -> Path:
        return self.home / ".claude" / "projects"

    def store(self) -> FileStore:
        return FileStore(self.root)

    def foreign_state(self) -> dict[str, tuple[bytes | None, int]]:
        """Bytes and mtimes of every foreign store (and the workspace folders holding project memory)."""
        return tree_state(self.home, self.wm_root, Path(self.alpha).parent, self.root / "memory.json")

    def all_state(self) -> dict[str, tuple[bytes | None, int]]:
        """Every file under HOME, DSH_HOME (our root included) and the workspace folders."""
        return tree_state(self.home, self.dsh_home, Path(self.alpha).parent)


def build_world(tmp: Path) -> World:
    home = tmp / "home"
    dsh = tmp / "dsh-home"
    work = tmp / "work"
    alpha = str(work / "alpha")
    beta = str(work / "项目-beta")
    gone = str(work / "gone")
    amb = (str(work / "my.app"), str(work / "my-app"))
    for d in (alpha, beta, *amb):
        os.makedirs(d)
    home.mkdir()
    world = World(home, dsh, dsh / "memory", alpha, beta, gone, amb)

    # Our own store knows the two folders Claude Code cannot tell apart, and one English record.
    store = world.store()
    for cwd in amb:
        store.create_workspace(cwd)

    wm = world.wm_root
    wm_scope(
        wm, "", [wm_entry("mem-000000000001", "preference", "Answer concisely", "I prefer short, direct answers.")]
    )
    wm_scope(
        wm,
        alpha,
        [
            wm_entry("mem-aaaaaaaaaa01", "decision", "Use pnpm", "The alpha project builds with pnpm, never npm."),
            wm_entry("mem-aaaaaaaaaa02", "preference", "中文提交信息", "提交信息使用中文，并保持一行。"),
            wm_entry(
                "mem-aaaaaaaaaa03",
                "fact",
                "Old port",
                "The dev server runs on port 3000.",
                status="superseded",
                supersededBy=["mem-aaaaaaaaaa04"],
            ),
            wm_entry("mem-aaaaaaaaaa04", "fact", "Dev port", "The dev server runs on port 5173."),
            wm_entry(
                "mem-aaaaaaaaaa05", "rule", "Tabs", "Indent with tabs.", status="conflict", conflictGroupId="cg-1"
            ),
            wm_entry(
                "mem-aaaaaaaaaa06",
                "rule",
                "Spaces",
                "Indent with four spaces.",
                status="conflict",
                conflictGroupId="cg-1",
            ),
            wm_entry("mem-aaaaaaaaaa07", "fix", "Removed", "A deleted note about the cache.", status="deleted"),
            wm_entry("mem-aaaaaaaaaa08", "fact", "Docs", "https://example.com/alpha/docs"),
            wm_entry("mem-aaaaaaaaaa09", "fact", "CI token", f"The CI token is {TOKEN}"),
            wm_entry("mem-aaaaaaaaaa10", "architecture", "Layers", "Core never imports the UI.", status=None),
        ],
    )
    wm_scope(
        wm, beta, [wm_entry("mem-bbbbbbbbbb01", "decision", "打包工具", "打包用 electron-builder，先 --dir 验证。")]
    )
    wm_scope(wm, gone, [wm_entry("mem-cccccccccc01", "fact", "Gone fact", "This project was retired.")], archived=True)
    wm_scope(wm, str(work / "vanished"), [wm_entry("mem-dddddddddd01", "fact", "Vanished", "A folder that is gone.")])
    # Malformed: entries that are not JSON, and a folder whose key does not match its cwd.
    broken = wm_scope(wm, str(work / "broken"), [])
    (broken / "memory_entries.json").write_text("[{not json", encoding="utf-8")
    wm_scope(wm, alpha, [], key="ws-00000000000000000000")

    # Cross-workspace notes, in our own root.
    write_json(
        world.root / "memory.json",
        {
            "version": 1,
            "items": [
                _item("m1", "decision", "Chose a JSON file over storageDomain: it needs zod for validation", alpha),
                _item("m2", "偏好", "回答时先给结论，再给理由。", ""),
                _item("m3", "activity", "ran tests 3 times, touched core.py", alpha),
                _item("m4", "fact", "https://example.com/spec", alpha),
                _item("m5", "决策", "选择 SQLite 而不是 JSON：需要并发写入。", beta),
                _item("m6", "project", "Plugin lives in D:/dshproject/plugin", "D:/dshproject/plugin"),
                _item("m7", "todo", "Write the migration guide", alpha),
            ],
        },
    )

    # Project memory inside alpha.
    pm = Path(alpha) / "project_memory"
    write_json(pm / ".registry.json", {"workspaces": [{"id": "sp1", "name": "Alpha app", "path": alpha}]})
    write_json(
        pm / "sp1" / "manifest.json",
        {"schema": 3, "graphVersion": 2, "nodes": [{"id": "n1", "p": "Build pipeline"}, {"id": "n2", "p": "界面约定"}]},
    )
    funnel = pm / "sp1" / "nodes" / "n1" / "funnel"
    funnel.mkdir(parents=True)
    (funnel / "core.md").write_text(
        "# Core\n\n- Release builds run on CI only.\n- Artifacts go to dist/,\n  never to build/.\n", encoding="utf-8"
    )
    (funnel / "regular.md").write_text(
        "Nightly builds are kept for a week.\n\nOld builds are pruned by a cron job.\n", encoding="utf-8"
    )
    (funnel / "log").mkdir()
    (funnel / "log" / "s1.md").write_text("raw log\n", encoding="utf-8")
    funnel2 = pm / "sp1" / "nodes" / "n2" / "funnel"
    funnel2.mkdir(parents=True)
    (funnel2 / "core.md").write_text("- 按钮文字使用动词开头。\n", encoding="utf-8")
    write_json(pm / "sp1" / "graph.json", {"nodeEdges": [], "entryLinks": []})
    write_json(pm / "sp1" / "vec" / "index.json", {"dims": 3})
    (pm / "sp1" / "doctrine.md").write_text("doctrine\n", encoding="utf-8")
    (pm / "sp2").mkdir()
    (pm / "sp2" / "manifest.json").write_text("{broken", encoding="utf-8")

    # Claude Code: alpha's folder, an ambiguous one, an unknown one.
    folder = world.claude / encode_project(alpha) / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(
        "- [Test style](feedback_tests.md) — how tests are written\n- [About me](user_role.md) — who I am\n"
        "- [Missing](missing.md) — gone\n",
        encoding="utf-8",
    )
    (folder / "feedback_tests.md").write_text(
        "---\nname: test-style\ndescription: Tests use real files, no mocks\ntype: feedback\n---\n\n"
        "Integration tests must hit real files, not mocks.\n\n**Why:** mocks hid a broken migration.\n\n"
        "**How to apply:** use tmp_path.\n",
        encoding="utf-8",
    )
    (folder / "user_role.md").write_text(
        "---\nname: user-role\ndescription: The user is a data scientist\ntype: user\n---\n\n"
        "The user is a data scientist who mostly writes Python.\n",
        encoding="utf-8",
    )
    (folder / "bad.md").write_text("---\nname: [unclosed\ntype: project\n---\n\nbody\n", encoding="utf-8")
    amb_folder = world.claude / encode_project(amb[0]) / "memory"
    amb_folder.mkdir(parents=True)
    (amb_folder / "project_x.md").write_text(
        "---\nname: release-day\ndescription: Releases on Fridays\ntype: project\n---\n\nWe release on Fridays.\n",
        encoding="utf-8",
    )
    unknown = world.claude / "-nowhere-at-all" / "memory"
    unknown.mkdir(parents=True)
    (unknown / "note.md").write_text(
        "---\nname: unknown-note\ndescription: A note\ntype: reference\n---\n\nSee the wiki.\n", encoding="utf-8"
    )
    return world


def _item(item_id: str, kind: str, text: str, project: str) -> dict[str, Any]:
    return {
        "id": item_id,
        "kind": kind,
        "text": text,
        "tags": [],
        "project": project,
        "projectName": os.path.basename(project) if project else "",
        "created": 1761000000000,
        "updated": 1761000000000,
        "source": "manual",
    }


STORE_PLUMBING = (os.sep + os.path.join(".manager", "locks"), os.sep + os.path.join(".manager", "cache"))
"""Our store's lock files (created empty by the first read of a scope) and its listing cache: any read
makes them, so they (and the mtime of ``.manager`` itself) are left out of "nothing was written"
checks. Every memory file, receipt, journal and history entry is compared."""


def tree_state(*roots: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every file and folder under ``roots`` with its bytes (None for folders) and mtime_ns."""
    state = _tree_state(*roots)
    return {
        p: v
        for p, v in state.items()
        if not any(part in p for part in STORE_PLUMBING) and not p.endswith(os.sep + ".manager")
    }


def _tree_state(*roots: Path) -> dict[str, tuple[bytes | None, int]]:
    out: dict[str, tuple[bytes | None, int]] = {}
    for root in roots:
        if root.is_file():
            out[str(root)] = (root.read_bytes(), os.lstat(root).st_mtime_ns)
            continue
        if not root.exists():
            continue
        for dirpath, dirs, files in os.walk(root):
            for d in dirs:
                p = os.path.join(dirpath, d)
                out[p] = (None, os.lstat(p).st_mtime_ns)
            for f in files:
                p = os.path.join(dirpath, f)
                with open(p, "rb") as fh:
                    out[p] = (fh.read(), os.lstat(p).st_mtime_ns)
    return out
