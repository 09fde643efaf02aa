"""InMemoryStore: the MemoryStore contract with no disk, for tests, previews and the GUI's demo mode.

It shares every rule with the FileStore (both are :class:`~core.store.base.StoreCore`); only where the
bytes live differs. Scopes are dicts of file name -> bytes; a transaction swaps a scope in one step
under a process-local lock, which is all-or-nothing by construction.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from core.models import HistoryEntry, RecordEntry
from core.records import INDEX_FILE, SCOPE_FILE
from core.store.base import (
    Clock,
    HistoryItem,
    ScopeChange,
    StoreCore,
    entry_from_bytes,
)
from core.store.multi import GlobalChange
from core.store.scan import WorkspaceScan, finish_scan, record_bytes
from core.store.scope_files import ScopeFiles, mark_case_duplicates


@dataclass
class _Scope:
    files: dict[str, bytes] = field(default_factory=dict)  # includes scope.json and MEMORY.md
    mtimes: dict[str, int] = field(default_factory=dict)
    archived_at: datetime | None = None


class InMemoryStore(StoreCore):
    """Same behaviour as FileStore, nothing on disk. Thread-safe (one lock for everything)."""

    def __init__(self, *, clock: Clock | None = None) -> None:
        super().__init__(clock)
        self._mutex = threading.RLock()
        self._active: dict[str, _Scope] = {}
        self._archived: dict[str, _Scope] = {}
        self._global: bytes | None = None
        self._history: dict[str, tuple[HistoryEntry, bytes]] = {}
        self._aux: dict[str, bytes] = {}
        self._tick = itertools.count(1)  # stands in for mtime_ns: bumps on every write

    @property
    def root(self) -> Path | None:
        return None

    def cache_dir(self) -> Path | None:
        return None

    @contextmanager
    def _hold(self) -> Iterator[None]:
        with self._mutex:
            yield

    def _lock(self, scope: str) -> AbstractContextManager[None]:
        return self._hold()

    def _prepare(self, scope: str) -> None:
        return None  # nothing can be half-written in memory

    def _scope_keys(self, archived: bool) -> list[str]:
        with self._mutex:
            return sorted(self._archived if archived else self._active)

    def _load_scope(self, key: str, archived: bool) -> ScopeFiles | None:
        with self._mutex:
            scope = (self._archived if archived else self._active).get(key)
            if scope is None:
                return None
            entries: list[RecordEntry] = [
                entry_from_bytes(fn, data, scope.mtimes.get(fn, 0))
                for fn, data in scope.files.items()
                if fn.endswith(".md") and fn != INDEX_FILE
            ]
            scope_json = scope.files.get(SCOPE_FILE)
            index = scope.files.get(INDEX_FILE)
            return ScopeFiles(
                key=key,
                scope_json=scope_json,
                entries=tuple(mark_case_duplicates(entries)),
                index=index,
                archived_at=scope.archived_at,
                extra_bytes=len(scope_json or b"") + len(index or b""),
            )

    def _scan_scope(self, key: str, archived: bool) -> WorkspaceScan | None:
        with self._mutex:
            scope = (self._archived if archived else self._active).get(key)
            if scope is None:
                return None
            files = dict(scope.files)
            mtimes = dict(scope.mtimes)
        items = [
            record_bytes(fn, data, mtimes.get(fn, 0))
            for fn, data in files.items()
            if fn.endswith(".md") and fn != INDEX_FILE
        ]
        scope_json = files.get(SCOPE_FILE)
        info = self._make_info(key, scope_json, None, record_count=0, invalid_count=0, size_bytes=0)
        return finish_scan(key, info.cwd, scope_json, items)

    def _file_bytes(self, key: str, file_name: str) -> bytes | None:
        with self._mutex:
            scope = self._active.get(key)
            return None if scope is None else scope.files.get(file_name)

    def _write_scope(self, change: ScopeChange, before: ScopeFiles | None) -> ScopeFiles | None:
        with self._mutex:
            old = self._active.get(change.key)
            new = _Scope(
                files=dict(old.files) if old else {},
                mtimes=dict(old.mtimes) if old else {},
                archived_at=None,
            )
            for fn, data in change.files.items():
                if data is None:
                    new.files.pop(fn, None)
                    new.mtimes.pop(fn, None)
                else:
                    new.files[fn] = data
                    new.mtimes[fn] = next(self._tick)
            self._active[change.key] = new
            self._keep_history(change.history)
            return None

    def _keep_history(self, history: Sequence[HistoryItem]) -> None:
        for item in history:
            self._history[item.entry.id] = (item.entry, item.data)

    def _global_bytes(self) -> bytes | None:
        with self._mutex:
            return self._global

    def _write_global(self, data: bytes, old: bytes | None, history: Sequence[HistoryItem]) -> None:
        with self._mutex:
            self._global = data
            self._keep_history(history)

    def _write_scopes(
        self, changes: Sequence[ScopeChange], global_change: GlobalChange | None, archive: Sequence[str],
        when: datetime,
    ) -> None:
        with self._mutex:  # one mutex: nothing else can observe a part without the rest
            for change in changes:
                self._write_scope(change, None)
            if global_change is not None:
                self._write_global(global_change.data, global_change.old, global_change.history)
            for key in archive:
                self._archive_move(key, when)

    def _archive_move(self, key: str, when: datetime) -> None:
        with self._mutex:
            scope = self._active.pop(key)
            scope.archived_at = when
            self._archived[key] = scope

    def _restore_move(self, key: str) -> None:
        with self._mutex:
            scope = self._archived.pop(key)
            scope.archived_at = None
            self._active[key] = scope

    def _purge_archived(self, key: str) -> None:
        with self._mutex:
            self._archived.pop(key, None)
            for entry_id in [i for i, (e, _) in self._history.items() if e.scope_key == key]:
                self._history.pop(entry_id, None)

    def _history_items(self, scope: str | None = None) -> list[HistoryEntry]:
        with self._mutex:
            return [e for e, _ in self._history.values() if scope is None or e.scope_key == scope]

    def _history_bytes(self, entry_id: str) -> bytes | None:
        with self._mutex:
            item = self._history.get(entry_id)
            return None if item is None else item[1]

    def _drop_history(self, entry_ids: Sequence[str]) -> None:
        with self._mutex:
            for entry_id in entry_ids:
                self._history.pop(entry_id, None)

    def _aux_read(self, rel: str) -> bytes | None:
        with self._mutex:
            return self._aux.get(rel)

    def _aux_write(self, rel: str, data: bytes) -> None:
        with self._mutex:
            self._aux[rel] = data

    def _aux_append(self, rel: str, data: bytes) -> None:
        with self._mutex:
            self._aux[rel] = self._aux.get(rel, b"") + data

    def _aux_list(self, rel_dir: str) -> list[str]:
        prefix = rel_dir.rstrip("/") + "/"
        with self._mutex:
            return sorted({k[len(prefix) :].split("/", 1)[0] for k in self._aux if k.startswith(prefix)})

    # --- internal files (core/store/files.py) ---------------------------------------------------
    def _aux_delete(self, rel: str) -> bool:
        with self._mutex:
            return self._aux.pop(rel, None) is not None

    # --- test helpers: simulate what other programs do to a root -------------------------------
    def put_raw(self, key: str, file_name: str, data: bytes) -> None:
        """Write bytes into a scope as an outside editor would (no validation, no index rebuild)."""
        with self._mutex:
            scope = self._active.setdefault(key, _Scope())
            scope.files[file_name] = data
            scope.mtimes[file_name] = next(self._tick)

    def put_global_raw(self, data: bytes) -> None:
        with self._mutex:
            self._global = data
