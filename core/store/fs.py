"""FileStore: the MemoryStore on a real memory root (PRODUCT.md §2–§4).

Layout it owns (every name from :mod:`core.layout`): ``GLOBAL.md``, ``settings.yml``, ``workspaces/``,
``archived/``, ``reviews/``, ``debug/`` and ``.manager/`` (locks, journal, staging, history, archive
times, trash). Anything else in the root (``memory.json``, ``memory.db`` of other DSH plugins...) is
never read or written.

The class is the storage primitives :class:`~core.store.base.StoreCore` needs, each handed to a
collaborator of its own: reads (:mod:`core.store.fs_read`, through the :class:`StoreCaches` this store
owns), transactions (:mod:`core.store.journal`), history (:mod:`core.store.fs_history`), the Recycle
Bin's moves (:mod:`core.store.fs_moves`), app-owned files (:mod:`core.store.fs_aux`), crash recovery
(:mod:`core.store.fs_recovery`) and ``check``'s disk findings (:mod:`core.store.fs_check`). Listings
also use a persisted per-scope summary cache (:mod:`core.store.summaries`), so a fresh process lists
unchanged scopes without parsing them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from stat import S_ISDIR

from core.atomic import PRIVATE_DIR_MODE, existing_mode
from core.errors import ReadOnlyRootError, StorageError
from core.fingerprint import scope_fingerprint
from core.layout import ARCHIVED_DIR, GLOBAL_FILE, LOCKS_DIR, MANAGER_DIR, SCOPE_FILE, cache_dir_of
from core.layout import WORKSPACES_DIR as ACTIVE_DIR
from core.models import HistoryEntry, Problem, WorkspaceInfo
from core.store import journal, journal_recovery
from core.store.base import GLOBAL_SCOPE, Clock, HistoryItem, ScopeChange, StoreCore, parse_scope_json
from core.store.caches import StoreCaches
from core.store.fs_aux import AppFiles
from core.store.fs_check import fs_problems
from core.store.fs_history import FileHistory
from core.store.fs_moves import ScopeMoves
from core.store.fs_paths import new_dir_mode, new_file_mode, real_dir_or_absent
from core.store.fs_read import ScopeReader, read_regular
from core.store.fs_recovery import Settler
from core.store.journal_doc import HASHED_PREFIX
from core.store.locking import ScopeLocks
from core.store.multi import GlobalChange
from core.store.scan import WorkspaceScan
from core.store.scope_files import ScopeFiles
from core.store.stamps import scope_folders
from core.store.summaries import ScopeSummary, SummaryCache

_CANT_LOCK = (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EEXIST)


@contextlib.contextmanager
def _staging(tx: journal.Transaction) -> Iterator[None]:
    """Stage files into ``tx``; on any error abort it (nothing written) and report I/O as StorageError."""
    try:
        yield
    except BaseException as exc:
        tx.abort()
        if isinstance(exc, OSError):
            raise StorageError(f"Could not stage the change: {exc.strerror or exc}. Nothing was written.") from exc
        raise


class FileStore(StoreCore):
    """The MemoryStore over a directory. Safe to use from several threads and processes at once.

    ``caches``: what this store keeps in memory (parsed entries, scopes, history index, commit logs).
    Pass the ``caches`` of an earlier store over the same root to reopen it warm; None: a fresh set.
    """

    def __init__(self, root: Path | str, *, clock: Clock | None = None, caches: StoreCaches | None = None) -> None:
        super().__init__(clock)
        self._root = Path(os.path.abspath(os.fspath(root)))
        self._manager = self._root / MANAGER_DIR
        self.caches = caches if caches is not None else StoreCaches()
        self._log_cache = self.caches.commit_logs
        self._locks = ScopeLocks(self._manager / LOCKS_DIR)
        self._summaries = SummaryCache(self._root, self._manager)
        self._moves = ScopeMoves(self._root)
        self._reader = ScopeReader(self._root, self.caches, self._moves.archived_at)
        self.history_files = FileHistory(self._root, self.caches, self._scope_cwd)
        self._files = AppFiles(self._root, self._check_writable)
        self._settler = Settler(self._root, self._locks, self._summaries.path.parent)
        self.recovered = self._settler.recovered
        """What :meth:`recover` settled at open: ``(scope, "rolled forward" | "rolled back" | ...)``."""
        if self._manager.is_dir():
            self.recover()

    @property
    def root(self) -> Path:
        return self._root

    def cache_dir(self) -> Path:
        return Path(cache_dir_of(self._root))

    # --- recovery -----------------------------------------------------------------------------
    def recover(self) -> None:
        """Finish or undo transactions interrupted by a crash; drop leftover trash and temp files.

        A read-only root is left as it is (nothing can be settled there); ``check`` reports it.
        """
        if not self.read_only:
            self._settler.recover()

    def _prepare(self, scope: str) -> None:
        self._settler.prepare(scope)

    # --- locks --------------------------------------------------------------------------------
    @property
    def read_only(self) -> bool:
        """The root exists but can't be written (read-only mount, no write permission)."""
        try:
            if os.statvfs(self._root).f_flag & getattr(os, "ST_RDONLY", 1):
                return True
        except (OSError, AttributeError):
            pass
        return self._root.is_dir() and not os.access(self._root, os.W_OK)

    def _check_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyRootError(
                f"The memory root {self._root} is read-only (a read-only mount, or files of another "
                "user); nothing was written. Reading works; to edit, make it writable or copy it."
            )

    def _lock(self, scope: str) -> AbstractContextManager[None]:
        self._check_writable()
        return self._locks.hold(scope)

    @contextlib.contextmanager
    def _read_lock(self, scope: str) -> Iterator[None]:
        # A root that does not exist is read unlocked: reading must not create it. An existing root
        # gets .manager/locks (ours); where it can't (read-only media, another user's root), reads go
        # unlocked: nobody can be writing there through this app anyway.
        if not self._manager.is_dir():
            if not self._root.is_dir() or self.read_only:
                yield
                return
            try:
                self._manager.mkdir(exist_ok=True, mode=PRIVATE_DIR_MODE)
            except OSError:
                yield
                return
        try:
            lock = self._locks.hold(scope)
            lock.__enter__()
        except StorageError as exc:
            cause = exc.__cause__
            if not (self.read_only or (isinstance(cause, OSError) and cause.errno in _CANT_LOCK)):
                raise
            yield  # lock files can't exist here; nobody can write this root through this app
            return
        try:
            yield
        finally:
            lock.__exit__(None, None, None)

    def _quarantined_count(self) -> int:
        return len(journal_recovery.quarantined(self._root))

    # --- scopes -------------------------------------------------------------------------------
    def _scope_dir(self, key: str, archived: bool) -> Path:
        return self._moves.scope_dir(key, archived)

    def _scope_keys(self, archived: bool) -> list[str]:
        return scope_folders(self._root, archived)

    def _scope_cwd(self, key: str) -> str:
        for archived in (False, True):
            data = read_regular(self._scope_dir(key, archived) / SCOPE_FILE)
            if data is not None:
                cwd, _, _ = parse_scope_json(key, data)
                return cwd
        return ""

    def list_workspaces(self, *, archived: bool = False, counts: bool = True) -> list[WorkspaceInfo]:
        """As :meth:`StoreCore.list_workspaces`, but unchanged scopes come from the persisted
        summary cache (:mod:`core.store.summaries`): a stat per file instead of a parse.

        ``counts=False`` reads only each scope's ``scope.json`` (one small file per scope, ~0.15 s
        for 1,000 scopes against ~1.2 s for the stat of all 100,000 record files the cache check
        needs): every info is ``counted=False``. Nothing cached is shown unchecked."""
        if not counts:
            return self._list_uncounted(archived)
        section = "archived" if archived else "active"
        summaries = self._summaries.load()
        old = summaries[section]
        new = {}
        infos: list[WorkspaceInfo] = []
        for key in self._scope_keys(archived):
            d = self._scope_dir(key, archived)
            with self._read_lock(key):
                fp = scope_fingerprint(str(d), time.time_ns())
                hit = old.get(key)
                if fp is not None and hit is not None and hit.fingerprint == fp:
                    info = self._make_info(
                        key,
                        ScopeReader.scope_json_bytes(d),
                        self._moves.archived_at(key, d) if archived else None,
                        record_count=hit.record_count,
                        invalid_count=hit.invalid_count,
                        size_bytes=hit.size_bytes,
                    )
                    new[key] = hit
                else:
                    files = self._load_scope(key, archived)
                    if files is None:
                        continue
                    info = self._info(files)
                    if fp is not None:
                        new[key] = ScopeSummary(fp, info.record_count, info.invalid_count, info.size_bytes)
            infos.append(info)
        if new != old:
            summaries[section] = new
            self._summaries.save(summaries)
        return sorted(infos, key=lambda i: (i.display_name.lower(), i.key))

    def _list_uncounted(self, archived: bool) -> list[WorkspaceInfo]:
        # No scope lock (a lock file opened and flocked per scope was 40 % of this listing): the one
        # file read, scope.json, is only ever replaced whole (os.replace), so it reads as the old or
        # the new version; no count is claimed, so no other file must agree with it; and the counted
        # list that follows reads under the locks.
        infos: list[WorkspaceInfo] = []
        for key in self._scope_keys(archived):
            d = self._scope_dir(key, archived)
            scope_json = ScopeReader.scope_json_bytes(d)
            try:  # gone since the scan (archived, purged), or replaced by a symlink: not listed
                if not S_ISDIR(os.lstat(d).st_mode):
                    continue
            except OSError:
                continue
            when = self._moves.archived_at(key, d) if archived else None
            infos.append(
                self._make_info(key, scope_json, when, record_count=0, invalid_count=0, size_bytes=0, counted=False)
            )
        return sorted(infos, key=lambda i: (i.display_name.lower(), i.key))

    def _load_scope(self, key: str, archived: bool) -> ScopeFiles | None:
        reader = self._reader
        return reader.in_dir(self._scope_dir(key, archived), lambda d, dfd: reader.load(key, archived, d, dfd))

    def _scan_scope(self, key: str, archived: bool) -> WorkspaceScan | None:
        reader = self._reader
        return reader.in_dir(self._scope_dir(key, archived), lambda d, dfd: reader.scan(key, archived, d, dfd))

    def _file_bytes(self, key: str, file_name: str) -> bytes | None:
        return read_regular(self._scope_dir(key, False) / file_name)

    # --- writing ------------------------------------------------------------------------------
    def _stage_scope(self, tx: journal.Transaction, change: ScopeChange) -> None:
        rel = f"{ACTIVE_DIR}/{change.key}"
        d = self._root / rel
        if not real_dir_or_absent(self._root, rel):
            tx.ensure_scope_dir(change.key)
        fresh = new_file_mode(d)
        for fn, data in change.files.items():
            old = change.old.get(fn)
            if data is None:
                if old is not None:
                    tx.delete(change.key, fn, old)
            else:
                tx.write(change.key, fn, data, old, existing_mode(d / fn, default=fresh))
        for item in change.history:
            tx.keep_history(change.key, item.source, FileHistory.file_name(item.entry.id))

    def _stage_global(
        self, tx: journal.Transaction, data: bytes, old: bytes | None, history: Sequence[HistoryItem]
    ) -> None:
        mode = existing_mode(self._root / GLOBAL_FILE, default=new_file_mode(self._root))
        tx.write(GLOBAL_SCOPE, GLOBAL_FILE, data, old, mode)
        for item in history:
            tx.keep_history(GLOBAL_SCOPE, GLOBAL_FILE, FileHistory.file_name(item.entry.id))

    def _write_scope(self, change: ScopeChange, before: ScopeFiles | None) -> ScopeFiles | None:
        tx = journal.Transaction(self._root, (change.key,), dir_mode=new_dir_mode(self._root))
        with _staging(tx):
            self._stage_scope(tx, change)
        with self.history_files.added(change.history):
            tx.commit()
        d = self._scope_dir(change.key, False)
        return None if before is None else self._reader.scope_after(d, before, change)

    def _write_scopes(
        self, changes: Sequence[ScopeChange], global_change: GlobalChange | None, archive: Sequence[str],
        when: datetime,
    ) -> None:
        scopes = sorted({c.key for c in changes} | set(archive))
        tx = journal.Transaction(
            self._root, (GLOBAL_SCOPE, *scopes) if global_change else tuple(scopes), dir_mode=new_dir_mode(self._root)
        )
        hashed = tx.name.startswith(HASHED_PREFIX)
        with self._locks.hold(tx.name) if hashed else contextlib.nullcontext(), _staging(tx):
            if global_change is not None:
                self._stage_global(tx, global_change.data, global_change.old, global_change.history)
            for change in changes:
                self._stage_scope(tx, change)
            for key in archive:
                for d in (ARCHIVED_DIR, MANAGER_DIR):
                    real_dir_or_absent(self._root, d)
                tx.archive(key, when)
        history = [*(global_change.history if global_change else ()), *(h for c in changes for h in c.history)]
        with self.history_files.added(history):
            tx.commit()

    # --- global -------------------------------------------------------------------------------
    def _global_bytes(self) -> bytes | None:
        return read_regular(self._root / GLOBAL_FILE)

    def _global_problem(self) -> str | None:
        path = self._root / GLOBAL_FILE
        if path.is_symlink():
            return (
                f"GLOBAL.md is a symbolic link (to {os.readlink(path)}); the store only reads and writes a "
                "regular file there. Replace the link with the file itself."
            )
        if path.exists() and not path.is_file():
            return "GLOBAL.md is not a regular file (a folder?); move it away so memory can use the name."
        return None

    def _write_global(self, data: bytes, old: bytes | None, history: Sequence[HistoryItem]) -> None:
        tx = journal.Transaction(self._root, (GLOBAL_SCOPE,))
        with _staging(tx):
            self._stage_global(tx, data, old, history)
        with self.history_files.added(history):
            tx.commit()

    # --- Recycle Bin (core/store/fs_moves.py) --------------------------------------------------
    def _archive_move(self, key: str, when: datetime) -> None:
        self._moves.archive(key, when)

    def _restore_move(self, key: str) -> None:
        self._moves.restore(key)

    def _purge_archived(self, key: str) -> None:
        self._moves.purge(key)

    # --- history (core/store/fs_history.py) ----------------------------------------------------
    def _history_items(self, scope: str | None = None) -> list[HistoryEntry]:
        return self.history_files.items(scope)

    def _history_bytes(self, entry_id: str) -> bytes | None:
        return self.history_files.read(entry_id)

    def _drop_history(self, entry_ids: Sequence[str]) -> None:
        self.history_files.drop(entry_ids)

    def _history_versions(self, scope: str, names: set[str]) -> dict[str, list[tuple[datetime, str]]]:
        return self.history_files.versions(scope, names)

    # --- app-owned files (core/store/fs_aux.py) ------------------------------------------------
    def _aux_read(self, rel: str) -> bytes | None:
        return self._files.read(rel)

    def _aux_write(self, rel: str, data: bytes) -> None:
        self._files.write(rel, data)

    def _aux_append(self, rel: str, data: bytes) -> None:
        self._files.append(rel, data)

    def _aux_list(self, rel_dir: str) -> list[str]:
        return self._files.list(rel_dir)

    def _aux_delete(self, rel: str) -> bool:
        return self._files.delete(rel)

    def _aux_write_private(self, rel: str, data: bytes) -> None:
        self._files.write_private(rel, data)

    def _write_log(self, rel: str, data: bytes) -> None:
        self._files.write_log(rel, data)

    # --- private state (core/store/files.py: kinds declared ``confined``) ----------------------
    def _aux_read_confined(self, rel: str) -> bytes | None:
        return self._files.read_confined(rel)

    def _aux_list_confined(self, rel_dir: str) -> list[str]:
        self._files.sweep_temps(rel_dir)
        return self._aux_list(rel_dir)

    # --- check (core/store/fs_check.py) --------------------------------------------------------
    def _extra_problems(self) -> list[Problem]:
        return fs_problems(self._root, self.read_only, self._scope_keys)
