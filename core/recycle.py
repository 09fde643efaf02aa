"""What the Recycle Bin tab reads and decides, without Qt: its contents, and where a deleted record
would go back to (read just before asking the user, so the question matches the disk)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.errors import NotFoundError
from core.models import HistoryEntry, Revision, WorkspaceInfo, WorkspaceSnapshot
from core.store.api import MemoryStore


@dataclass(frozen=True)
class RecycleBin:
    """Archived workspaces and the kept history (deleted records and earlier versions)."""

    workspaces: list[WorkspaceInfo]
    history: list[HistoryEntry]


def read_recycle_bin(store: MemoryStore) -> RecycleBin:
    return RecycleBin(store.list_workspaces(archived=True), store.history())


@dataclass(frozen=True)
class RestoreTarget:
    """Where a deleted record would go back to.

    ``state`` is "active" (its workspace exists; ``revision`` is the CAS base and
    ``record_exists`` says whether a record of that name would be replaced), "archived" (restore
    the workspace first) or "missing" (the workspace must be created again from the entry's cwd).
    """

    state: Literal["active", "archived", "missing"]
    revision: Revision | None = None
    record_exists: bool = False


def restore_target(store: MemoryStore, entry: HistoryEntry) -> RestoreTarget:
    try:
        snap = store.read_workspace(entry.scope_key)
    except NotFoundError:
        archived = {w.key for w in store.list_workspaces(archived=True)}
        return RestoreTarget("archived" if entry.scope_key in archived else "missing")
    return RestoreTarget("active", snap.revision, snap.get(entry.name) is not None)


def restore_entry(
    store: MemoryStore, entry: HistoryEntry, expect: Revision | None, create: bool, allow_secrets: bool = False
) -> WorkspaceSnapshot:
    """Put ``entry`` back (CAS on ``expect``); ``create`` first creates its missing workspace.
    A version holding a credential-shaped value needs ``allow_secrets``, as a manual save does."""
    if create:
        expect = store.create_workspace(entry.cwd).revision
    return store.restore_history(entry.id, expect, allow_secrets=allow_secrets)


def global_version(store: MemoryStore, entry_id: str) -> tuple[str, Revision]:
    """An earlier GLOBAL.md's text and the current GLOBAL.md revision (the CAS base to replace it)."""
    return store.read_history(entry_id).decode("utf-8"), store.read_global().revision
