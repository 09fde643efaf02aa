"""A store's history and commit log: ``store.history``.

History is the Recycle Bin of records: the previous bytes of every record a commit overwrote or
deleted (and of GLOBAL.md and a hand-edited MEMORY.md), as read-only copies the backend keeps in the
same transaction as the commit. :class:`RecordHistory` lists, reads and restores them, prunes them to
:data:`~core.store.rules.HISTORY_MAX_VERSIONS` per record and :data:`~core.store.rules.HISTORY_MAX_AGE`,
and keeps each scope's commit log (``core/store/commit_log.py``: what the undo of the last commit needs).
The history *files* are the backend's (``_history_items``, ``_history_bytes``, ``_drop_history``);
what is history, how long it lives and how it goes back is written here once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from core.errors import InvalidRecordError, NotFoundError, StorageError, UsageError
from core.fingerprint import content_hash
from core.models import DeleteOp, HistoryEntry, Op, PutOp, Record, Revision, WorkspaceSnapshot
from core.records import INDEX_FILE, SCOPE_FILE, parse_record, record_file_name
from core.store import rules  # the limits are read at each use (a soak or a test raises them)
from core.store.commit_log import GLOBAL_NAME, CommitLogEntry, LoggedChange, log_rel, parse_log, render_log
from core.store.rules import (
    GLOBAL_SCOPE,
    HistoryItem,
    ScopeChange,
    check_key,
    history_id,
)

if TYPE_CHECKING:
    from core.store.base import StoreCore


class RecordHistory:
    """The history of one store's records and its commit logs (see the module docstring)."""

    def __init__(self, store: StoreCore) -> None:
        self._store = store
        self.actor = ""
        """Who commits through this store, for the commit log (the MCP server's memory_recent names it):
        "" the app, "cli" the dsh-memory CLI, "agent:<client>" an MCP agent's direct write."""

    def __repr__(self) -> str:
        return f"RecordHistory({self._store!r})"

    # --- reading and restoring ----------------------------------------------------------------
    def entries(self, key: str | None = None, name: str | None = None) -> list[HistoryEntry]:
        """Newest first, of one scope (a workspace key or ``global``) and/or one record name, or all.
        Bounded: entries older than the age limit are hidden (and pruned on the next write)."""
        cutoff = self._store._clock() - rules.HISTORY_MAX_AGE
        items = [
            h
            for h in self._store._history_items(key)
            if (key is None or h.scope_key == key) and (name is None or h.name == name) and h.time >= cutoff
        ]
        return sorted(items, key=lambda h: (h.time, h.id), reverse=True)

    def read(self, entry_id: str) -> bytes:
        """The bytes a history entry kept (NotFoundError when it expired or never existed)."""
        data = self._store._history_bytes(entry_id)
        if data is None:
            raise NotFoundError(f"No history entry {entry_id!r}; it may have expired.")
        return data

    def restore(self, entry_id: str, expect: Revision | None, *, allow_secrets: bool = False) -> WorkspaceSnapshot:
        """Put the old bytes back as the record (a normal CAS commit into the active scope).

        Old bytes holding a credential-shaped value need ``allow_secrets`` (as a manual write does).
        A restore never prunes history, so restoring several versions in a row loses none of them."""
        store = self._store
        data = self.read(entry_id)
        entry = next((h for h in store._history_items(entry_id.split("/", 1)[0]) if h.id == entry_id), None)
        if entry is None:  # pragma: no cover - read found it
            raise NotFoundError(f"No history entry {entry_id!r}.")
        if entry.scope_key == GLOBAL_SCOPE:
            raise UsageError(
                "This history entry is a previous GLOBAL.md; read it with history.read and save it with "
                "replace_global."
            )
        record = _record_of(entry.name, data, "restored as one")
        if store._load_scope(entry.scope_key, False) is None:
            raise NotFoundError(
                f"Workspace {entry.scope_key} is not active (archived or purged); restore the workspace first."
            )
        # A restore is a manual write: a secret in the old bytes needs the same explicit allow. It never
        # prunes, so restoring version after version keeps every version the user is browsing.
        return store._commit(
            entry.scope_key, [(PutOp(record=record), data)], expect, "manual", allow_secrets, prune=False
        )

    def commit_versions(
        self, key: str, versions: Sequence[tuple[str, bytes | None]], expect: Revision | None, *,
        allow_secrets: bool = False,
    ) -> WorkspaceSnapshot:
        """Put exact bytes back as records (None: delete that record) in one manual CAS commit.

        What an undo writes: the versions come from history, byte for byte (never re-rendered), and
        like :meth:`restore` it never prunes. A version that is not a valid record is refused.
        """
        check_key(key)
        pairs: list[tuple[Op, bytes | None]] = []
        for name, data in versions:
            if data is None:
                pairs.append((DeleteOp(name=name), None))
            else:
                pairs.append((PutOp(record=_record_of(name, data, "put back")), data))
        return self._store._commit(key, pairs, expect, "manual", allow_secrets, prune=False)

    def commit_log(self, scope: str) -> list[CommitLogEntry]:
        """Recent commits of a workspace key or ``global`` (newest first): what each changed."""
        if scope != GLOBAL_SCOPE:
            check_key(scope)
        return list(reversed(parse_log(self._store._aux_read(log_rel(scope)), scope, self._store._log_cache)))

    # --- what a commit keeps (called by the store core, under the scope's lock) ----------------
    def item(self, scope: str, cwd: str, name: str, reason: str, data: bytes, source: str) -> HistoryItem:
        """The history entry a commit writes for bytes it displaces."""
        when = self._store._clock()
        rev = content_hash(data)
        entry = HistoryEntry(
            id=history_id(scope, when, name, reason, rev),
            scope_key=scope,
            cwd=cwd,
            name=name,
            time=when,
            reason="delete" if reason == "delete" else "overwrite",
            size=len(data),
            revision=rev,
        )
        return HistoryItem(entry=entry, data=data, source=source)

    def prune(self, scope: str, names: Sequence[str]) -> None:
        """Drop versions beyond the limits. Best effort: history is a safety net, not the truth."""
        if not names:
            return
        with contextlib.suppress(StorageError, OSError):  # the write succeeded; a later write prunes
            self._prune(scope, set(names))

    def _prune(self, scope: str, wanted: set[str]) -> None:
        cutoff = self._store._clock() - rules.HISTORY_MAX_AGE
        drop: list[str] = []
        for versions in self._store._history_versions(scope, wanted).values():
            versions.sort(reverse=True)
            drop += [i for k, (t, i) in enumerate(versions) if k >= rules.HISTORY_MAX_VERSIONS or t < cutoff]
        if drop:
            self._store._drop_history(drop)

    def log_commit(self, key: str, before: Revision, after: Revision, change: ScopeChange, origin: str) -> None:
        """Log a workspace commit: per record, the history id of the displaced bytes and the hash written."""
        displaced = {h.source: h.entry.id for h in change.history}
        changes = [
            LoggedChange(
                name=fn.removesuffix(".md"),
                before=displaced.get(fn),
                after=content_hash(data) if data is not None else None,
            )
            for fn, data in sorted(change.files.items())
            if fn not in (SCOPE_FILE, INDEX_FILE)
        ]
        if changes:
            self._append(key, before, after, changes, origin)

    def log_global(self, before: Revision, after: Revision, history: Sequence[HistoryItem], origin: str) -> None:
        old = history[0].entry.id if history else None
        self._append(GLOBAL_SCOPE, before, after, [LoggedChange(name=GLOBAL_NAME, before=old, after=after)], origin)

    def _append(self, scope: str, before: Revision, after: Revision, changes: list[LoggedChange], origin: str) -> None:
        """Under the scope's lock, after the write. Best effort: the commit happened either way, and a
        missing entry only makes that commit not undoable (an undo checks the revision first)."""
        if before == after:
            return
        store = self._store
        when: datetime = store._clock()
        entry = CommitLogEntry(
            id=content_hash(f"{scope}\n{before}\n{after}\n{when.isoformat()}".encode()),
            scope=scope,
            time=when,
            origin=origin,
            actor=self.actor,
            before=before,
            after=after,
            changes=tuple(changes),
        )
        with contextlib.suppress(StorageError, OSError):
            rel = log_rel(scope)
            entries = parse_log(store._aux_read(rel), scope, store._log_cache)
            store._write_log(rel, render_log(scope, [*entries, entry], store._log_cache))

    def forget(self, key: str) -> None:
        """After a purge: the scope's commit log goes too (nothing is left to undo into)."""
        with contextlib.suppress(StorageError, OSError):
            self._store._aux_delete(log_rel(key))


def _record_of(name: str, data: bytes, what: str) -> Record:
    try:
        return parse_record(record_file_name(name), data)
    except InvalidRecordError as exc:
        raise InvalidRecordError(
            f"The saved version of {name} is not a valid record, so it can't be {what}: " + "; ".join(exc.reasons),
            exc.reasons,
        ) from exc
