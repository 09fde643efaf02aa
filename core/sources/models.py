"""Typed snapshots of other memory stores: what each store holds, read-only, with what we could not read."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

SourceKind = Literal["markdown", "workspace-memory", "cross-workspace", "project-memory", "claude-code"]
SOURCE_KINDS: tuple[SourceKind, ...] = (
    "markdown",
    "workspace-memory",
    "cross-workspace",
    "project-memory",
    "claude-code",
)
IMPORTABLE_KINDS: tuple[SourceKind, ...] = SOURCE_KINDS[1:]

SOURCE_LABELS: dict[str, str] = {
    "markdown": "DSH Markdown memory (this app)",
    "workspace-memory": "DSH workspace memory",
    "cross-workspace": "DSH cross-workspace notes",
    "project-memory": "DSH project memory",
    "claude-code": "Claude Code memory",
}

EntryStatus = Literal["active", "conflict", "superseded", "deleted", "unknown"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceProblem(_Frozen):
    """Something in a foreign store we could not read or did not understand. Never fixed by us.

    ``severity`` is ``error`` for a file that should be readable and is not (malformed JSON, a
    scope whose key does not match its cwd) and ``note`` for parts we skip on purpose or whose
    format is not documented ("not understood").
    """

    path: str
    reason: str
    severity: Literal["error", "note"] = "error"


class ForeignEntry(_Frozen):
    """One memory entry of another store, as that store describes it (read-only).

    ``cwd`` is the workspace the entry belongs to (None: about the user in general, or a
    workspace we could not determine; ``global_fact`` tells which). ``status_detail`` says why a
    non-active entry is what it is, naming the other side ("superseded by mem-…", "conflicts with
    mem-… 'Title'"). ``related`` holds those other entries' ids.
    """

    source: SourceKind
    id: str
    scope: str
    cwd: str | None
    kind: str
    title: str
    text: str
    description: str = ""
    tags: tuple[str, ...] = ()
    status: EntryStatus = "active"
    status_detail: str = ""
    related: tuple[str, ...] = ()
    updated: datetime | None = None
    path: str
    global_fact: bool = False

    @property
    def is_live(self) -> bool:
        """What may be imported: active entries and either side of a conflict."""
        return self.status in ("active", "conflict")

    def __repr__(self) -> str:
        return f"ForeignEntry(source={self.source!r}, id={self.id!r}, kind={self.kind!r}, status={self.status!r})"


class SourceScope(_Frozen):
    """A scope of a foreign store: a workspace-memory scope, a Claude Code project folder, a subproject..."""

    key: str
    cwd: str | None  # None: unknown (e.g. a Claude Code folder no known workspace encodes to)
    path: str
    archived: bool = False
    entries: int = 0
    cwd_exists: bool | None = None  # None when there is no cwd to check
    candidates: tuple[str, ...] = ()  # Claude Code: every known cwd that encodes to this folder
    note: str = ""


class SourceSnapshot(_Frozen):
    """One store found on this machine: where it is, its scopes, its (non-archived) entries, its problems."""

    kind: SourceKind
    path: str
    scopes: tuple[SourceScope, ...] = ()
    entries: tuple[ForeignEntry, ...] = ()
    problems: tuple[SourceProblem, ...] = ()
    entry_count: int | None = None  # for stores whose entries are not loaded here (our own Markdown store)

    @property
    def label(self) -> str:
        return SOURCE_LABELS[self.kind]

    @property
    def active_scopes(self) -> tuple[SourceScope, ...]:
        return tuple(s for s in self.scopes if not s.archived)

    @property
    def count(self) -> int:
        return self.entry_count if self.entry_count is not None else len(self.entries)

    def __repr__(self) -> str:
        return (
            f"SourceSnapshot(kind={self.kind!r}, path={self.path!r}, scopes={len(self.scopes)}, "
            f"entries={self.count}, problems={len(self.problems)})"
        )
