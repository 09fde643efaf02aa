"""What the Recycle Bin tab reads and decides, without Qt: its contents, and where a deleted record
would go back to (read just before asking the user, so the question matches the disk)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from core.errors import NotFoundError
from core.models import HistoryEntry, Revision, WorkspaceInfo, WorkspaceSnapshot
from core.store.api import MemoryStore
from core.store.base import GLOBAL_SCOPE


@dataclass(frozen=True)
class RecycleBin:
    """Archived workspaces and the kept history (deleted records and earlier versions).

    ``back``: ids of "delete" entries whose record exists again in its active workspace (restored,
    or written anew). They are no longer deleted, so the list stops calling them that; their
    bytes stay in history as earlier versions.
    """

    workspaces: list[WorkspaceInfo]
    history: list[HistoryEntry]
    back: frozenset[str] = field(default_factory=frozenset)

    def history_of(self, key: str) -> list[HistoryEntry]:
        """Every kept entry of workspace ``key``: what a purge of it deletes with it."""
        return [h for h in self.history if h.scope_key == key]


def read_recycle_bin(store: MemoryStore) -> RecycleBin:
    history = store.history()
    present: dict[str, set[str]] = {}
    for key in {h.scope_key for h in history if h.reason == "delete" and h.scope_key != GLOBAL_SCOPE}:
        try:
            present[key] = {e.name for e in store.read_workspace(key).entries}
        except NotFoundError:  # archived or gone: its deleted records are still deleted
            present[key] = set()
    back = frozenset(h.id for h in history if h.reason == "delete" and h.name in present.get(h.scope_key, ()))
    return RecycleBin(store.list_workspaces(archived=True), history, back)


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
    same_as_current: bool = False  # the record holds exactly these bytes now: nothing to restore


def restore_target(store: MemoryStore, entry: HistoryEntry) -> RestoreTarget:
    try:
        snap = store.read_workspace(entry.scope_key)
    except NotFoundError:
        archived = {w.key for w in store.list_workspaces(archived=True)}
        return RestoreTarget("archived" if entry.scope_key in archived else "missing")
    current = snap.get(entry.name)
    same = current is not None and current.revision == entry.revision
    return RestoreTarget("active", snap.revision, current is not None, same)


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
