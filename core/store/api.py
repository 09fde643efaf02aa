"""The MemoryStore contract shared by the file store and the in-memory store.

Every read returns an immutable snapshot carrying a revision; every mutation names the revision
it was based on (compare-and-swap). ``expect=None`` means "whatever is there now" and exists for
scripted CLI use only; the GUI and consolidation always pass the revision they showed the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from core.models import (
    GlobalSnapshot,
    Op,
    Origin,
    Revision,
    RootStatus,
    ScopeBatch,
    ScopesResult,
    WorkspaceInfo,
    WorkspaceSnapshot,
)
from core.store.files import FileKind, InternalFiles
from core.store.history import RecordHistory
from core.store.inspection import RootInspection
from core.store.recycle import RecycleBin


class MemoryStore(Protocol):
    @property
    def root(self) -> Path | None:
        """The memory root on disk (None for the in-memory store)."""
        ...

    def cache_dir(self) -> Path | None:
        """Where derived data (the search index) may be kept; None: nowhere on disk."""
        ...

    # --- reading -------------------------------------------------------------------------
    def status(self, *, active: Sequence[WorkspaceInfo] | None = None) -> RootStatus:
        """Totals of the root. ``active``: a counted ``list_workspaces()`` the caller has just
        taken, reused instead of listing every scope again (ValueError if one is not counted)."""
        ...

    def read_global(self) -> GlobalSnapshot: ...

    def list_workspaces(self, *, archived: bool = False, counts: bool = True) -> list[WorkspaceInfo]:
        """Active scopes (or archived ones), sorted by display name then key.

        ``counts=False`` may skip what the counts need (a stat of every record file) and return
        infos with ``counted`` False: a first paint of a big root, followed by a counted listing."""
        ...

    def read_workspace(self, key: str, *, archived: bool = False) -> WorkspaceSnapshot:
        """Raises NotFoundError when no such scope exists."""
        ...

    def find_workspace(self, cwd: str) -> WorkspaceSnapshot | None:
        """The active scope of ``cwd`` (by workspace key), or None."""
        ...

    # --- mutations (all compare-and-swap) ------------------------------------------------
    def replace_global(
        self, text: str, expect: Revision | None, *, origin: Origin = "manual", allow_secrets: bool = False
    ) -> GlobalSnapshot: ...

    def create_workspace(self, cwd: str) -> WorkspaceSnapshot:
        """Idempotent: returns the existing scope, or writes scope.json + empty MEMORY.md."""
        ...

    def commit(
        self,
        key: str,
        ops: Sequence[Op],
        expect: Revision | None,
        *,
        origin: Origin = "manual",
        allow_secrets: bool = False,
    ) -> WorkspaceSnapshot:
        """Apply puts/deletes all-or-nothing and rebuild MEMORY.md in the same transaction.

        A batch that changes nothing touches nothing (bytes and mtimes unchanged).
        Raises ConflictError, InvalidRecordError (every reason), SecretRefusedError, NotFoundError.
        """
        ...

    def commit_scopes(
        self,
        batches: Sequence[ScopeBatch],
        *,
        global_text: str | None = None,
        global_expect: Revision | None = None,
        archive: Sequence[str] = (),
        origin: Origin = "manual",
        allow_secrets: bool = False,
    ) -> ScopesResult:
        """Batches of any number of workspaces, (when global_text is not None) a new GLOBAL.md, and
        archives of other workspaces, as ONE transaction: locks global first then keys sorted, CAS on
        every revision under them, one journal; every scope old or every scope new."""
        ...

    @property
    def recycle(self) -> RecycleBin:
        """The Recycle Bin of workspaces: ``archive(key, expect)``, ``restore(key)``, ``purge(key,
        confirm)`` (``core/store/recycle.py``)."""
        ...

    # --- history (Recycle Bin for records) and the commit log (core/store/history.py) ------
    @property
    def history(self) -> RecordHistory:
        """Entries, their bytes, restoring one, the commit log of a scope and putting versions back
        (what undo writes). Bounded: old entries expire (see the store's history limits)."""
        ...

    # --- files this app owns next to the memory (core/store/files.py) ----------------------
    def files(self, kind: FileKind) -> InternalFiles:
        """Read / write / list / delete the internal files of one kind (receipts, debug logs, agent
        proposals, review states, stale marks, settings.yml, the MCP handle key), each kind declared
        once with its ids, size bound and privacy."""
        ...

    # --- looking at the root without changing it (core/store/inspection.py) ----------------
    @property
    def inspect(self) -> RootInspection:
        """``check()`` (every problem in the root), ``has_memory()``, ``scan(key)`` (a scope's record
        files as bytes, read once), ``record_file(key, name)`` (one file as on disk), ``read_only``."""
        ...
