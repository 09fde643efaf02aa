"""DSH workspace memory (seed ``000_*``): ``$DSH_HOME/workspace-memory/{global,scopes,archived}``, read-only.

Layout as its own code writes it: ``global/`` and ``scopes|archived/ws-<key>/`` each with
``scope.json`` ``{"key","cwd"}``, ``memory_entries.json`` (a JSON array of entries),
``memory_summary.md``, ``state.json``, ``checkpoints/`` and ``summary_history/``. A scope folder
counts only when the key recomputed from its ``scope.json`` cwd is the folder name: anything
else is reported and left alone (it may be a half-written folder of the store itself).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from core.sources.files import Unreadable, as_str, as_strings, is_dir, parse_time, read_json, read_text
from core.sources.markdown import body_of
from core.sources.models import EntryStatus, ForeignEntry, SourceProblem, SourceScope, SourceSnapshot

KIND: Final = "workspace-memory"
GLOBAL_SCOPE = "global"
ENTRY_TYPES = ("preference", "decision", "architecture", "rule", "fact", "fix")
_KEY_RE = re.compile(r"^ws-[0-9a-f]{20}$")
_STATUSES: dict[str, EntryStatus] = {
    "active": "active",
    "conflict": "conflict",
    "superseded": "superseded",
    "deleted": "deleted",
}


def scope_key(cwd: str, *, windows: bool | None = None) -> str:
    """The store's key of an absolute cwd: ``ws-`` + the first 20 hex chars of SHA-256.

    Exactly its rule: backslashes become ``/``, one trailing ``/`` is removed, and the path is
    lower-cased on Windows only. No other normalization (no abspath), so a cwd written on
    Windows still hashes as the store hashed it.
    """
    windows = sys.platform == "win32" if windows is None else windows
    text = cwd.replace("\\", "/")
    if text.endswith("/"):
        text = text[:-1]
    if windows:
        text = text.lower()
    return "ws-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def cwd_name(cwd: str) -> str:
    """What a user types to confirm a purge: the last part of the cwd (either slash)."""
    trimmed = cwd.replace("\\", "/").rstrip("/")
    return trimmed.rsplit("/", 1)[-1] or trimmed


@dataclass(frozen=True)
class ScopeFolder:
    """One scope folder as read: its key, cwd (``""`` for global), entries and what was wrong."""

    key: str
    cwd: str
    path: Path
    archived: bool
    entries: tuple[ForeignEntry, ...]
    problems: tuple[SourceProblem, ...]
    summary: str = ""
    valid: bool = True  # False: not a scope the store would use (bad key, unreadable scope.json)

    @property
    def is_global(self) -> bool:
        return self.key == GLOBAL_SCOPE

    @property
    def cwd_exists(self) -> bool | None:
        if self.is_global or not self.cwd:
            return None
        return is_dir(Path(self.cwd))

    def as_scope(self) -> SourceScope:
        return SourceScope(
            key=self.key,
            cwd=self.cwd or None,
            path=str(self.path),
            archived=self.archived,
            entries=len(self.entries),
            cwd_exists=self.cwd_exists,
            note="global scope (about the user in general)" if self.is_global else "",
        )


def _entries(
    doc: Any, path: Path, scope: str, cwd: str | None, *, global_scope: bool
) -> tuple[list[ForeignEntry], list[SourceProblem]]:
    problems: list[SourceProblem] = []
    if not isinstance(doc, list):
        return [], [SourceProblem(path=str(path), reason="is not a JSON array of entries; skipped")]
    raw: list[dict[str, Any]] = []
    for i, item in enumerate(doc):
        if not isinstance(item, dict) or not as_str(item.get("id")):
            problems.append(SourceProblem(path=str(path), reason=f"entry {i} has no id (not an entry object); skipped"))
            continue
        raw.append(item)
    by_id = {as_str(item.get("id")): item for item in raw}
    out: list[ForeignEntry] = []
    for item in raw:
        entry_id = as_str(item.get("id"))
        status_text = as_str(item.get("status")) or "active"
        status: EntryStatus = _STATUSES.get(status_text, "unknown")
        detail, related = _status_detail(item, status, status_text, by_id, raw)
        title = as_str(item.get("title")).strip()
        content = as_str(item.get("content")).strip()
        if not (title or content):
            problems.append(SourceProblem(path=str(path), reason=f"entry {entry_id} has neither title nor content"))
            continue
        out.append(
            ForeignEntry(
                source=KIND,
                id=entry_id,
                scope=scope,
                cwd=cwd,
                kind=as_str(item.get("type")) or "fact",
                title=title or content.splitlines()[0][:80],
                text=content or title,
                description=as_str(item.get("description")).strip(),
                tags=as_strings(item.get("tags")) + as_strings(item.get("retrievalTerms")),
                status=status,
                status_detail=detail,
                related=related,
                updated=parse_time(item.get("updatedAt")) or parse_time(item.get("createdAt")),
                path=str(path),
                global_fact=global_scope,
            )
        )
    return out, problems


def _status_detail(
    item: dict[str, Any],
    status: EntryStatus,
    status_text: str,
    by_id: dict[str, dict[str, Any]],
    raw: list[dict[str, Any]],
) -> tuple[str, tuple[str, ...]]:
    def name(other: str) -> str:
        found = by_id.get(other)
        title = as_str(found.get("title")) if found is not None else ""
        return f"{other} {title!r}" if title else other

    if status == "superseded":
        newer = as_strings(item.get("supersededBy"))
        return ("superseded by " + ", ".join(name(o) for o in newer) if newer else "superseded"), newer
    if status == "conflict":
        group = as_str(item.get("conflictGroupId"))
        others = tuple(
            as_str(o.get("id")) for o in raw if o is not item and group and as_str(o.get("conflictGroupId")) == group
        )
        if others:
            return "conflicts with " + ", ".join(name(o) for o in others), others
        return f"in conflict group {group or '(none)'} with no other entry", ()
    if status == "deleted":
        return "deleted in workspace memory", ()
    if status == "unknown":
        return f"unknown status {status_text!r}", ()
    return "", ()


def read_scope(folder: Path, *, archived: bool = False) -> ScopeFolder:
    """Read one scope folder (``global/`` or ``ws-<key>/``). Never raises for a malformed store."""
    problems: list[SourceProblem] = []
    is_global = folder.name == GLOBAL_SCOPE and not archived and folder.parent.name != "scopes"
    key = GLOBAL_SCOPE if is_global else folder.name
    cwd = ""
    scope_file = folder / "scope.json"
    try:
        doc = read_json(scope_file)
        if not isinstance(doc, dict):
            raise Unreadable(SourceProblem(path=str(scope_file), reason="is not a JSON object"))
        cwd = as_str(doc.get("cwd"))
    except Unreadable as exc:
        if not (is_global and not scope_file.exists()):
            problems.append(exc.problem)
        if not is_global:
            return ScopeFolder(key, "", folder, archived, (), tuple(problems), valid=False)
    if not is_global:
        if not _KEY_RE.match(folder.name):
            problems.append(SourceProblem(path=str(folder), reason="is not a ws-<key> scope folder; skipped"))
            return ScopeFolder(key, cwd, folder, archived, (), tuple(problems), valid=False)
        expected = scope_key(cwd) if cwd else ""
        if not cwd or expected != folder.name:
            problems.append(
                SourceProblem(
                    path=str(scope_file),
                    reason=f"its cwd {cwd!r} gives key {expected or '(none)'}, not the folder name; the scope is "
                    "skipped (it may be half-written or copied)",
                )
            )
            return ScopeFolder(key, cwd, folder, archived, (), tuple(problems), valid=False)
    entries: list[ForeignEntry] = []
    entries_file = folder / "memory_entries.json"
    if entries_file.exists():
        try:
            found, entry_problems = _entries(
                read_json(entries_file), entries_file, key, cwd or None, global_scope=is_global
            )
            entries, problems = found, problems + entry_problems
        except Unreadable as exc:
            problems.append(exc.problem)
    summary = ""
    summary_file = folder / "memory_summary.md"
    if summary_file.exists():
        try:
            summary = body_of(read_text(summary_file))
        except Unreadable as exc:
            problems.append(exc.problem)
    return ScopeFolder(key, cwd, folder, archived, tuple(entries), tuple(problems), summary)


def _scope_dirs(parent: Path) -> list[Path]:
    try:
        children = sorted(p for p in parent.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    return children


def read_scopes(root: Path) -> list[ScopeFolder]:
    """Global (if present), then active scopes, then archived ones, each sorted by key."""
    out: list[ScopeFolder] = []
    if is_dir(root / GLOBAL_SCOPE):
        out.append(read_scope(root / GLOBAL_SCOPE))
    out += [read_scope(p) for p in _scope_dirs(root / "scopes")]
    out += [read_scope(p, archived=True) for p in _scope_dirs(root / "archived")]
    return out


def read_workspace_memory(root: Path) -> SourceSnapshot:
    """The store at ``root``: scopes (archived ones flagged), the entries of global and active scopes."""
    scopes = read_scopes(root)
    problems = [p for s in scopes for p in s.problems]
    if not os.access(root, os.R_OK):
        problems.insert(0, SourceProblem(path=str(root), reason="cannot be read (permission denied)"))
    entries = tuple(e for s in scopes if not s.archived for e in s.entries)
    return SourceSnapshot(
        kind=KIND,
        path=str(root),
        scopes=tuple(s.as_scope() for s in scopes if s.valid),
        entries=entries,
        problems=tuple(problems),
    )
