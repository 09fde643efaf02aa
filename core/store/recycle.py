"""The Recycle Bin of workspaces: ``store.recycle`` archives, restores and purges whole scopes.

Archive moves ``workspaces/<key>`` to ``archived/<key>`` in one step (recording when), restore moves it
back byte-identical, purge deletes an archived scope and its history for good (one journaled operation
in the file store). Each runs under the scope's lock after finishing any interrupted transaction, like
a commit. The moves themselves are the backend's (``_archive_move``, ``_restore_move``,
``_purge_archived``); the rules (which copy may go where, what confirms a purge) are here.
What a purge leaves elsewhere (receipts, pending reviews, the search cache...) is swept by
``core/recycle.py``.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from core.errors import (
    ConfirmationRequiredError,
    ConflictError,
    NotFoundError,
    RefusedError,
    StorageError,
    UsageError,
)
from core.models import Revision, WorkspaceInfo
from core.store.files import STALE_MARKS
from core.store.rules import GLOBAL_SCOPE, check_key

if TYPE_CHECKING:
    from core.store.base import StoreCore


class RecycleBin:
    """Archive / restore / purge of one store's workspaces (see the module docstring)."""

    def __init__(self, store: StoreCore) -> None:
        self._store = store

    def __repr__(self) -> str:
        return f"RecycleBin({self._store!r})"

    def archive(self, key: str, expect: Revision | None = None) -> WorkspaceInfo:
        """Move ``workspaces/<key>`` to ``archived/<key>`` atomically, recording the archive time.
        ConflictError when ``expect`` is stale or the Recycle Bin already holds a copy of the key."""
        store = self._store
        check_key(key)
        with store._lock(key):
            store._prepare(key)
            snap = store._snapshot(store._must_load(key))
            if expect is not None and expect != snap.revision:
                raise store._conflict(f"Workspace {snap.info.display_name}", expect, snap, snap.revision)
            if store._load_scope(key, True) is not None:
                raise ConflictError(
                    f"The Recycle Bin already holds an archived copy of {snap.info.display_name} ({key}). "
                    "Restore or purge that copy first; nothing was archived.",
                    snap.revision,
                    snap,
                )
            store._archive_move(key, store._clock())
            return store._after_write(lambda: store._info(store._must_load(key, True)))

    def restore(self, key: str) -> WorkspaceInfo:
        """Move an archived scope back, byte-identical. Conflict if an active scope has the key."""
        store = self._store
        check_key(key)
        with store._lock(key):
            store._prepare(key)
            store._must_load(key, True)
            active = store._load_scope(key, False)
            if active is not None:
                snap = store._snapshot(active)
                raise ConflictError(
                    f"An active workspace {snap.info.display_name} ({key}) already exists; "
                    "archive or clear it before restoring this copy. Nothing was restored.",
                    snap.revision,
                    snap,
                )
            store._restore_move(key)
            return store._after_write(lambda: store._info(store._must_load(key)))

    def purge(self, key: str, confirm: str) -> None:
        """Delete an archived scope (and its history) for good. ``confirm`` must equal the workspace's
        name as listed, or its full key when its scope.json is invalid, else ConfirmationRequiredError.
        Global can never be purged."""
        store = self._store
        if key.lower() in (GLOBAL_SCOPE, "global.md"):
            raise UsageError("Global memory can't be archived or purged; edit GLOBAL.md instead.")
        check_key(key)
        with store._lock(key):
            store._prepare(key)
            files = store._load_scope(key, True)
            if files is None:
                if store._load_scope(key, False) is not None:
                    raise RefusedError(
                        f"Workspace {key} is active; archive it first, then purge it from the Recycle Bin.",
                        reason="active-workspace",
                    )
                raise NotFoundError(f"No archived workspace {key!r}. Run `dsh-memory workspaces --archived`.")
            info = store._info(files)
            # The name the user sees in the list confirms; a scope.json that is missing, broken or
            # belongs to another key (say cwd "/etc") proves nothing, so then only the full key does.
            expected = key if info.scope_problem or not info.cwd else info.display_name
            if confirm != expected:
                what = "workspace name" if expected != key else "full workspace key (its scope.json is invalid)"
                raise ConfirmationRequiredError(
                    f"Purging deletes {info.display_name} for good. Type the {what} {expected!r} "
                    "to confirm; nothing was deleted.",
                    reason="workspace-name" if expected != key else "full-key",
                    expected=expected,
                )
            # One journaled operation: the folder, its history and its archive stamp, finished on the
            # next open if interrupted.
            store._purge_archived(key)
            store.history.forget(key)  # its commit log: nothing left to undo into
            with contextlib.suppress(StorageError, OSError):
                store.files(STALE_MARKS).delete(key)  # names of its records (issue 25: no remnant)
