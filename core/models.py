"""Immutable value types the store hands out: records, snapshots, revisions, operations, history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RecordType = Literal["feedback", "project", "reference"]
RECORD_TYPES: tuple[RecordType, ...] = ("feedback", "project", "reference")
Origin = Literal["manual", "automatic"]
"""``automatic`` writes (consolidation) are refused outright when they carry secrets;
``manual`` writes are refused unless the caller explicitly allows them."""

Revision = str
"""A content hash of a scope (or of one file). Opaque to callers; compare for equality only."""

EMPTY_REVISION: Revision = "0" * 16
"""Revision of a scope that does not exist yet (e.g. no GLOBAL.md, a workspace never written)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Record(_Frozen):
    """One workspace memory record (``<name>.md``).

    ``extra_frontmatter`` keeps the raw YAML text of frontmatter keys this app does not know
    (top-level keys other than name/description/metadata, and metadata keys other than type), so a
    save preserves them byte for byte. ``body`` is everything after the closing ``---`` line,
    exactly as on disk (decoded UTF-8), including its leading blank line if any.
    """

    name: str
    description: str
    type: RecordType
    body: str
    extra_frontmatter: str = ""

    def __repr__(self) -> str:
        return f"Record(name={self.name!r}, type={self.type!r}, body={len(self.body)} chars)"


class RecordEntry(_Frozen):
    """A ``*.md`` file in a workspace scope (other than ``MEMORY.md``): valid, or invalid with reasons."""

    file_name: str
    record: Record | None
    invalid_reasons: tuple[str, ...] = ()
    revision: Revision  # hash of the file's bytes
    size: int
    mtime_ns: int = 0

    @property
    def name(self) -> str:
        return self.record.name if self.record else self.file_name.removesuffix(".md")

    @property
    def is_valid(self) -> bool:
        return self.record is not None and not self.invalid_reasons


class WorkspaceInfo(_Frozen):
    key: str
    cwd: str
    created: datetime | None = None
    archived_at: datetime | None = None
    record_count: int = 0
    invalid_count: int = 0
    size_bytes: int = 0
    cwd_exists: bool = True
    scope_problem: str | None = None  # e.g. unreadable scope.json; the scope is still listed
    counted: bool = True
    """False in a quick listing (``list_workspaces(counts=False)``): ``record_count``,
    ``invalid_count`` and ``size_bytes`` are not known yet (they read 0); a UI shows "…" for them."""

    @property
    def display_name(self) -> str:
        from core.keys import workspace_name

        return workspace_name(self.cwd) if self.cwd else self.key


class WorkspaceSnapshot(_Frozen):
    info: WorkspaceInfo
    revision: Revision
    entries: tuple[RecordEntry, ...] = Field(default=())  # sorted by file_name
    index_text: str = ""  # current MEMORY.md as on disk ("" if missing)

    @property
    def key(self) -> str:
        return self.info.key

    def records(self) -> list[Record]:
        return [e.record for e in self.entries if e.record is not None and e.is_valid]

    def get(self, name: str) -> RecordEntry | None:
        for e in self.entries:
            if e.name == name:
                return e
        return None


class GlobalSnapshot(_Frozen):
    text: str
    revision: Revision
    size: int
    exists: bool
    invalid_reasons: tuple[str, ...] = ()  # e.g. invalid UTF-8: shown, never rewritten silently


class PutOp(_Frozen):
    """Write a whole record (create or replace ``<name>.md``)."""

    op: Literal["put"] = "put"
    record: Record


class DeleteOp(_Frozen):
    op: Literal["delete"] = "delete"
    name: str


Op = PutOp | DeleteOp


class HistoryEntry(_Frozen):
    """Previous bytes of a record that was overwritten or deleted (kept under ``.manager/history``)."""

    id: str
    scope_key: str
    cwd: str
    name: str
    time: datetime
    reason: Literal["overwrite", "delete"]
    size: int
    revision: Revision


class Problem(_Frozen):
    """One thing ``check`` found wrong in the root.

    ``reason`` is the English sentence (with what to do); ``kind`` names the finding so a front
    end can say it in its own words (the window translates by kind), ``params`` its fields
    (``file``: a file name, ``detail``: a nested free-text reason). "" = a finding without a kind.
    """

    path: str
    reason: str
    scope_key: str | None = None
    kind: str = ""
    params: tuple[tuple[str, str], ...] = ()


class RootStatus(_Frozen):
    root: str
    total_bytes: int
    workspace_count: int
    archived_count: int
    global_size: int
    read_only: bool = False
    """Reads work, every write raises ReadOnlyRootError: a UI shows a read-only banner and disables editing."""
    quarantined: int = 0
    """Damaged internal files moved to ``.manager/quarantine/`` (``check`` lists them with what to do)."""


@dataclass(frozen=True)
class ScopeBatch:
    """One workspace's part of a multi-scope commit (``MemoryStore.commit_scopes``)."""

    key: str
    ops: Sequence[PutOp | DeleteOp]
    expect: Revision | None


@dataclass(frozen=True)
class ScopesResult:
    """What ``commit_scopes`` leaves: each batch's workspace, Global (None if not asked), the archived."""

    workspaces: dict[str, WorkspaceSnapshot]
    global_: GlobalSnapshot | None
    archived: list[WorkspaceInfo]
