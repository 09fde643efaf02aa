"""Other stores at scale: discovery and an import dry run over a big workspace memory and Claude Code tree.

Builds 100 workspace-memory scopes × 100 entries (mixed English/Chinese, some superseded or in
conflict), a 2,000-item ``memory.json`` and 50 Claude Code folders × 20 topic files in a temp
HOME/DSH_HOME, then prints how long ``discover`` and a dry-run import plan + review take.
``python benchmarks/sources_bench.py``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.sources.claude_code import encode_project
from core.sources.discovery import SourcePaths, discover
from core.sources.importer import ImportService, plan_import
from core.sources.workspace_memory import scope_key
from core.store.fs import FileStore


def _build(tmp: Path) -> tuple[SourcePaths, FileStore]:
    home, dsh = tmp / "home", tmp / "dsh"
    wm = dsh / "workspace-memory"
    items = []
    for w in range(100):
        cwd = str(tmp / "work" / f"proj-{w}")
        os.makedirs(cwd)
        folder = wm / "scopes" / scope_key(cwd)
        folder.mkdir(parents=True)
        (folder / "scope.json").write_text(json.dumps({"key": scope_key(cwd), "cwd": cwd}))
        entries = []
        for n in range(100):
            zh = n % 3 == 0
            entries.append(
                {
                    "id": f"mem-{w:04x}{n:08x}",
                    "type": ("preference", "decision", "fact", "rule")[n % 4],
                    "title": f"打包规则 {n}" if zh else f"Build rule {n}",
                    "description": "",
                    "content": (f"打包用 electron-builder，第 {n} 条。" if zh else f"Rule {n}: lint first.") * 8,
                    "status": "superseded" if n % 10 == 0 else ("conflict" if n % 17 == 0 else "active"),
                    "conflictGroupId": "cg" if n % 17 == 0 else None,
                    "createdAt": "2026-10-01T10:00:00Z",
                    "updatedAt": "2026-10-01T10:00:00Z",
                }
            )
        (folder / "memory_entries.json").write_text(json.dumps(entries, ensure_ascii=False))
        items += [
            {"id": f"m{w}-{i}", "kind": "decision", "text": f"Decision {i} of project {w}", "project": cwd}
            for i in range(20)
        ]
        if w < 50:
            memory = home / ".claude" / "projects" / encode_project(cwd) / "memory"
            memory.mkdir(parents=True)
            for i in range(20):
                (memory / f"topic_{i}.md").write_text(
                    f"---\nname: topic-{i}\ndescription: Topic {i}\ntype: project\n---\n\nTopic {i} of {w}.\n"
                )
    root = dsh / "memory"
    root.mkdir(parents=True)
    (root / "memory.json").write_text(json.dumps({"version": 1, "items": items}))
    return SourcePaths(dsh_home=dsh, home=home, memory_root=root), FileStore(root)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths, store = _build(Path(tmp))
        start = time.perf_counter()
        found = discover(paths, store)
        discovered = time.perf_counter() - start
        entries = sum(len(s.entries) for s in found.sources)
        print(f"discover: {discovered * 1000:.0f} ms for {len(found.sources)} stores, {entries:,} entries")
        service = ImportService(store)
        for kind in ("workspace-memory", "cross-workspace", "claude-code"):
            start = time.perf_counter()
            plan = plan_import(kind, found.sources)
            reviews = [service.review(service.prepare(t)) for t in plan.targets]
            took = time.perf_counter() - start
            changes = sum(len(r.changes) for r in reviews)
            print(f"import {kind} dry run: {took * 1000:.0f} ms for {len(reviews)} reviews, {changes:,} changes")


if __name__ == "__main__":
    main()
