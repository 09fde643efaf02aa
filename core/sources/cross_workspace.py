"""DSH cross-workspace notes (seed ``003_*``): one ``memory.json`` in our own root. Read-only: we never write it.

``{"version": 1, "items": [{"id","kind","text","tags","project","projectName","created","updated",
"source"}]}`` with kinds ``preference decision project fact todo activity`` (or their Chinese
aliases); ``project`` is the workspace path, times are epoch ms. Its own writers merge by id
and replace the file atomically, so reading it whole is always consistent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from core.sources.files import Unreadable, as_str, as_strings, parse_time, read_json
from core.sources.models import ForeignEntry, SourceProblem, SourceScope, SourceSnapshot

KIND: Final = "cross-workspace"
FILE_NAME = "memory.json"
KINDS = ("preference", "decision", "project", "fact", "todo", "activity")
ALIASES = {
    "偏好": "preference",
    "决策": "decision",
    "项目": "project",
    "事实": "fact",
    "待办": "todo",
    "进度": "activity",
}
NO_PROJECT = "(no project)"


def canonical_kind(kind: str) -> str:
    kind = kind.strip()
    return ALIASES.get(kind, kind.lower())


def project_cwd(project: str) -> str | None:
    """The workspace path of an item, when it is an absolute path on this machine (else None)."""
    project = project.strip()
    if not project or not os.path.isabs(project):
        return None
    return os.path.normpath(project)


def _title(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    cuts = [c for c in (first.find(stop) for stop in ("。", ". ", "；", "; ", "：", ": ", "，", ", ")) if 0 < c < 80]
    return first[: min(cuts)] if cuts else first[:80]


def read_cross_workspace(path: Path) -> SourceSnapshot:
    """The notes in ``path`` (a ``memory.json``); a broken file is one problem and no entries."""
    problems: list[SourceProblem] = []
    try:
        doc: Any = read_json(path)
    except Unreadable as exc:
        return SourceSnapshot(kind=KIND, path=str(path), problems=(exc.problem,))
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
        return SourceSnapshot(
            kind=KIND,
            path=str(path),
            problems=(SourceProblem(path=str(path), reason='has no "items" array; not understood'),),
        )
    if doc.get("version") != 1:
        problems.append(
            SourceProblem(
                path=str(path), reason=f"has version {doc.get('version')!r}; read as version 1", severity="note"
            )
        )
    entries: list[ForeignEntry] = []
    for i, item in enumerate(doc["items"]):
        if not isinstance(item, dict) or not as_str(item.get("id")) or not as_str(item.get("text")).strip():
            problems.append(SourceProblem(path=str(path), reason=f"item {i} has no id or no text; skipped"))
            continue
        kind = canonical_kind(as_str(item.get("kind")) or "fact")
        if kind not in KINDS:
            problems.append(
                SourceProblem(path=str(path), reason=f"item {item['id']} has unknown kind {kind!r}", severity="note")
            )
        project = as_str(item.get("project"))
        cwd = project_cwd(project)
        if project.strip() and cwd is None:
            problems.append(
                SourceProblem(
                    path=str(path),
                    reason=f"item {item['id']} belongs to {project!r}, which is not a path on this machine",
                    severity="note",
                )
            )
        text = as_str(item.get("text")).strip()
        entries.append(
            ForeignEntry(
                source=KIND,
                id=as_str(item.get("id")),
                scope=project or NO_PROJECT,
                cwd=cwd,
                kind=kind,
                title=_title(text),
                text=text,
                tags=as_strings(item.get("tags")),
                updated=parse_time(item.get("updated")) or parse_time(item.get("created")),
                path=str(path),
                global_fact=not project.strip(),
            )
        )
    scopes: dict[str, SourceScope] = {}
    for e in entries:
        prev = scopes.get(e.scope)
        count = prev.entries + 1 if prev is not None else 1
        scopes[e.scope] = SourceScope(
            key=e.scope,
            cwd=e.cwd,
            path=str(path),
            entries=count,
            cwd_exists=os.path.isdir(e.cwd) if e.cwd else None,
        )
    return SourceSnapshot(
        kind=KIND,
        path=str(path),
        scopes=tuple(sorted(scopes.values(), key=lambda s: s.key)),
        entries=tuple(entries),
        problems=tuple(problems),
    )
