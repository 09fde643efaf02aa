"""FileStore: the MemoryStore on a real memory root (PRODUCT.md §2–§4).

Layout it owns: ``GLOBAL.md``, ``settings.yml``, ``workspaces/``, ``archived/``, ``reviews/``,
``debug/`` and ``.manager/`` (locks, journal, staging, history, archive times, trash). Anything else in
the root (``memory.json``, ``memory.db`` of other DSH plugins...) is never read or written.

Reads are cached per file by ``(size, mtime_ns, inode, ctime_ns)`` in a process-wide cache, so
re-reading a scope only re-parses files that changed. A file whose timestamps are within
:data:`core.fingerprint.RACY_WINDOW_NS` of the moment it was read is not cached ("racily clean", as git calls it): the
file system clock is coarse, and a second write inside the same tick could keep the same stat.
Listings also use a persisted per-scope summary cache (:mod:`core.store.summaries`, same racy rule),
so a fresh process lists unchanged scopes without parsing them.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISDIR, S_ISLNK, S_ISREG
from typing import TypeVar

from core.atomic import (
    PRIVATE_DIR_MODE,
    PRIVATE_FILE_MODE,
    TEMP_PREFIX,
    append_durable,
    existing_mode,
    fsync_dir,
    remove_tree_quietly,
    write_atomic,
)
from core.errors import DshMemoryError, ReadOnlyRootError, StorageError
from core.fingerprint import content_hash, is_racy, scope_fingerprint
from core.layout import ARCHIVED_DIR as ARCHIVED_DIR
from core.layout import GLOBAL_FILE as GLOBAL_FILE
from core.layout import WORKSPACES_DIR as ACTIVE_DIR  # every layout name comes from core/layout.py
from core.layout import cache_dir_of
from core.models import HistoryEntry, Problem, RecordEntry, WorkspaceInfo
from core.private_modes import tighten_tree
from core.records import INDEX_FILE, MAX_RECORD_BYTES, RECORD_SUFFIX, SCOPE_FILE
from core.store import journal
from core.store.base import (
    GLOBAL_SCOPE,
    HISTORY_ID_RE,
    HISTORY_STAMP,
    Clock,
    HistoryItem,
    ScopeChange,
    StoreCore,
    check_key,
    entry_from_bytes,
    parse_scope_json,
    special_entry,
)
from core.store.history_index import HistoryIndex, stamp_time
from core.store.locking import ScopeLocks
from core.store.scan import RecordBytes, WorkspaceScan, finish_scan, record_bytes
from core.store.scope_files import ScopeFiles, mark_case_duplicates, scope_after
from core.store.summaries import ScopeSummary, SummaryCache

MANAGER = journal.MANAGER_DIR
HISTORY_SUFFIX = ".hist"
STALE_TEMP_S = 600

_StatSig = tuple[int, int, int, int]
_CANT_LOCK = (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EEXIST)
_HISTORY_INDEX = HistoryIndex(HISTORY_SUFFIX, HISTORY_ID_RE)
_Cached = tuple[_StatSig, RecordEntry, bool]
_ENTRY_CACHE: dict[str, dict[str, _Cached]] = {}
"""Parsed entries by folder, then file name: ``(stat, entry, verify)``; shared by every FileStore in the
process (warm reopen). ``verify`` marks an entry cached while its file was racily clean (touched within
the racy window, so a same-tick rewrite could keep the stat): it is used only after re-reading the
bytes and finding the entry's content hash, which saves the parse but never trusts the stat alone."""
_SCOPE_CACHE: dict[str, ScopeFiles] = {}
"""The last ScopeFiles read or written per active folder (the :data:`_SCOPE_CACHE_MAX` most recent).
A re-read that finds every entry, scope.json, MEMORY.md and blocked name equal to it returns that
object, with the revision, name map and MEMORY.md items it already computed: the next commit then
pays the stats of the re-read, not the recomputation."""
_SCOPE_CACHE_MAX = 16


def _remember_scope(folder: str, files: ScopeFiles) -> None:
    _SCOPE_CACHE.pop(folder, None)
    _SCOPE_CACHE[folder] = files  # newest last
    while len(_SCOPE_CACHE) > _SCOPE_CACHE_MAX:
        with contextlib.suppress(StopIteration, KeyError, RuntimeError):  # another thread may be trimming too
            _SCOPE_CACHE.pop(next(iter(_SCOPE_CACHE)))


def _sig(st: os.stat_result) -> _StatSig:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


_T = TypeVar("_T")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FDS = os.scandir in os.supports_fd and os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")
"""Scope folders are listed through one descriptor (POSIX): each stat and read then resolves one
name instead of the whole path (a 1k-record scope, re-read by every commit: ~7 ms -> ~5 ms here)."""


class _JoinedPath:
    """``os.path.join(folder, name)``, joined only if a message needs it (a cold open reads 100k files)."""

    __slots__ = ("folder", "name")

    def __init__(self, folder: str, name: str) -> None:
        self.folder, self.name = folder, name

    def __str__(self) -> str:
        return os.path.join(self.folder, self.name)


def _read_regular(path: Path | str, dir_fd: int | None = None, label: object = None) -> bytes | None:
    """Bytes of a regular file (never through a symlink), or None. With ``dir_fd``, ``path`` is a
    name in that folder and ``label`` the full path for messages."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW, dir_fd=dir_fd)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno in (40, 20, 21):  # ELOOP (symlink), ENOTDIR, EISDIR
            return None
        raise StorageError(f"Could not read {label or path}: {exc.strerror or exc}.") from exc
    try:
        chunks = []
        while True:
            # (64 KB, not 1 MB: records are a few KB, and in a process with a big heap every 1 MB
            # buffer cost page faults: a cold build's read phase at 100k records took ~10 % longer.)
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    except IsADirectoryError:
        return None
    finally:
        os.close(fd)


def _same_entries(
    prev: ScopeFiles, entries: list[RecordEntry], cache: dict[str, _Cached]
) -> bool:
    """Whether ``entries`` (as just read, in listing order, unmarked) are exactly ``prev``'s.

    Entries from the parse cache are usually the very objects ``prev`` holds; a file re-read because
    it was written within the racy window compares equal field by field (the same bytes and mtime),
    and the cache is then pointed at ``prev``'s object so the next check is an identity check.
    """
    if len(entries) != len(prev.entries):
        return False
    by_name = prev.by_name
    for e in entries:
        p = by_name.get(e.file_name)
        if p is e:
            continue
        if p is None or p != e:
            return False
        hit = cache.get(e.file_name)
        if hit is not None and hit[1] is e:
            cache[e.file_name] = (hit[0], p, hit[2])
    return True


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
    """The MemoryStore over a directory. Safe to use from several threads and processes at once."""

    def __init__(self, root: Path | str, *, clock: Clock | None = None) -> None:
        super().__init__(clock)
        self._root = Path(os.path.abspath(os.fspath(root)))
        self._manager = self._root / MANAGER
        self._locks = ScopeLocks(self._manager / "locks")
        self._thread = threading.local()
        self._summaries = SummaryCache(self._root, self._manager)
        self.recovered: list[tuple[str, str]] = []
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
        if self.read_only:
            return
        for name in journal.pending(self._root):
            self._settle(name)
        trash = self._manager / "trash"
        if trash.is_dir() and not trash.is_symlink():
            unsettled = set(journal.pending(self._root))  # a purge that could not finish keeps its trash
            for p in trash.iterdir():
                if p.name.rsplit("-", 1)[0] not in unsettled:
                    remove_tree_quietly(p)
        # Temp files of single-file atomic writes interrupted by a crash. Only old ones: a young
        # one may belong to a write in progress in another process (receipts take no lock).
        cutoff = time.time() - STALE_TEMP_S
        for d in (self._root, self._root / "reviews", self._manager / "archive", self._summaries.path.parent):
            with contextlib.suppress(OSError):
                for p in d.glob(f"{TEMP_PREFIX}*"):
                    with contextlib.suppress(OSError):
                        if p.lstat().st_mtime < cutoff:
                            p.unlink()
        self._sweep_commit_log_temps()
        for derived in ("cache", "archive"):  # issue 25: derived data no wider than its source
            tighten_tree(self._manager / derived)

    def _sweep_commit_log_temps(self) -> None:
        """A commit log (``.dshtmp-<hex>-<scope>.json``) is only written under its scope's lock, so
        a temp file found while holding that lock is a crashed write's, whatever its age."""
        with contextlib.suppress(OSError):
            for p in (self._manager / "commit-log").glob(f"{TEMP_PREFIX}*"):
                scope = p.name[len(TEMP_PREFIX) :].split("-", 1)[-1].removesuffix(".json")
                with contextlib.suppress(OSError, DshMemoryError):
                    if scope != GLOBAL_SCOPE:
                        check_key(scope)
                    with self._locks.hold(scope):
                        p.unlink()

    def _settle(self, name: str) -> None:
        """Recover one staging folder under the locks of every scope it names (global first)."""
        scopes = journal.scopes_of(name)
        if scopes is None:  # not a name we make: never act on it, keep it for the user
            with contextlib.suppress(StorageError):
                journal._quarantine(self._root, journal.staging_dir(self._root, name), "unknown staging entry")
            return
        with contextlib.ExitStack() as stack:
            for scope in scopes:
                stack.enter_context(self._locks.hold(scope))
            done = journal.recover(self._root, name)
        if done:
            self.recovered.append((name, done))

    def _prepare(self, scope: str) -> None:
        """Under ``scope``'s lock: settle its own interrupted transaction and any Global+workspace one."""
        done = journal.recover(self._root, scope)
        if done:
            self.recovered.append((scope, done))
        if scope == GLOBAL_SCOPE:
            for name in journal.pending(self._root):
                if name.startswith(GLOBAL_SCOPE + "+"):
                    self._settle(name)  # global is held; the workspace lock comes second: the fixed order
        elif os.path.lexists(journal.staging_dir(self._root, f"{GLOBAL_SCOPE}+{scope}")):
            # We hold the workspace lock, and the order says global first: only *try* for it, so a
            # writer holding global and waiting for us is never deadlocked.
            with self._locks.try_hold(GLOBAL_SCOPE, timeout=2.0) as got:
                if not got:
                    raise StorageError(
                        "An interrupted change to Global and this workspace is being settled by another "
                        "program. Try again in a moment; nothing was changed."
                    )
                self._settle(f"{GLOBAL_SCOPE}+{scope}")

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

    def _lock(self, scope: str) -> AbstractContextManager[None]:
        if self.read_only:
            raise ReadOnlyRootError(
                f"The memory root {self._root} is read-only (a read-only mount, or files of another "
                "user); nothing was written. Reading works; to edit, make it writable or copy it."
            )
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
        return len(journal.quarantined(self._root))

    # --- scopes -------------------------------------------------------------------------------
    def _scope_dir(self, key: str, archived: bool) -> Path:
        return self._root / (ARCHIVED_DIR if archived else ACTIVE_DIR) / key

    def _scope_keys(self, archived: bool) -> list[str]:
        top = self._root / (ARCHIVED_DIR if archived else ACTIVE_DIR)
        try:
            with os.scandir(top) as it:
                return sorted(
                    e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
                )
        except (FileNotFoundError, NotADirectoryError):
            return []

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
                        self._scope_json_bytes(d),
                        self._archived_at(key, d) if archived else None,
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
            scope_json = self._scope_json_bytes(d)
            try:  # gone since the scan (archived, purged), or replaced by a symlink: not listed
                if not S_ISDIR(os.lstat(d).st_mode):
                    continue
            except OSError:
                continue
            when = self._archived_at(key, d) if archived else None
            infos.append(
                self._make_info(key, scope_json, when, record_count=0, invalid_count=0, size_bytes=0, counted=False)
            )
        return sorted(infos, key=lambda i: (i.display_name.lower(), i.key))

    @staticmethod
    def _scope_json_bytes(d: Path) -> bytes | None:
        """scope.json as :meth:`_load_scope` reads it: a regular file's bytes, else None (a FIFO is
        never opened)."""
        try:
            if not S_ISREG(os.lstat(d / SCOPE_FILE).st_mode):
                return None
        except OSError:
            return None
        return _read_regular(d / SCOPE_FILE)

    def _load_scope(self, key: str, archived: bool) -> ScopeFiles | None:
        return self._in_scope_dir(key, archived, self._load_scope_in)

    def _scan_scope(self, key: str, archived: bool) -> WorkspaceScan | None:
        return self._in_scope_dir(key, archived, self._scan_in)

    def _in_scope_dir(self, key: str, archived: bool, read: Callable[[str, bool, Path, int | None], _T]) -> _T | None:
        """``read(key, archived, folder, folder descriptor)`` on a scope folder that is no symlink."""
        d = self._scope_dir(key, archived)
        if not _DIR_FDS:  # pragma: no cover - Windows
            if os.path.islink(d):
                return None
            return read(key, archived, d, None)
        try:
            # O_NOFOLLOW: never read or write through a symlinked scope (check() reports it).
            dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return None
            raise StorageError(f"Could not list {d}: {exc.strerror or exc}.") from exc
        try:
            return read(key, archived, d, dfd)
        finally:
            os.close(dfd)

    def _scan_in(self, key: str, archived: bool, d: Path, dfd: int | None) -> WorkspaceScan | None:
        """Each record file read once, nothing cached (``core.store.scan``): the same listing,
        kinds and limits as :meth:`_load_scope_in`; the rare file that is no record to parse gets
        its entry from :meth:`_entry` for its revision."""
        try:
            it = os.scandir(d if dfd is None else dfd)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise StorageError(f"Could not list {d}: {exc.strerror or exc}.") from exc
        items: list[RecordBytes] = []
        scope_json: bytes | None = None
        folder, now = str(d), time.time_ns()
        with it:
            for de in it:
                name = de.name
                if not name.endswith(RECORD_SUFFIX) or name == INDEX_FILE:
                    if name == SCOPE_FILE and de.is_file(follow_symlinks=False):
                        scope_json = self._read_in(folder, dfd, name)
                    continue
                try:
                    st = de.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # deleted while we listed
                data = None
                if S_ISREG(st.st_mode) and st.st_size <= MAX_RECORD_BYTES:
                    with contextlib.suppress(StorageError):  # (_entry reads again: reports or raises)
                        data = self._read_in(folder, dfd, name)
                if data is not None:
                    items.append(record_bytes(name, data, st.st_mtime_ns))
                    continue
                e = self._entry(de, st, now, {}, folder, dfd)  # (a throwaway cache)
                items.append(RecordBytes(name, None, e.revision, e.mtime_ns))
        info = self._make_info(key, scope_json, None, record_count=0, invalid_count=0, size_bytes=0)
        return finish_scan(key, info.cwd, scope_json, items)

    def _load_scope_in(self, key: str, archived: bool, d: Path, dfd: int | None) -> ScopeFiles | None:
        try:
            it = os.scandir(d if dfd is None else dfd)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise StorageError(f"Could not list {d}: {exc.strerror or exc}.") from exc
        entries: list[RecordEntry] = []
        scope_json: bytes | None = None
        index: bytes | None = None
        blocked: list[str] = []
        now = time.time_ns()
        folder = str(d)
        cache = _ENTRY_CACHE.setdefault(folder, {})
        with it:
            for de in it:
                name = de.name
                if not name.endswith(RECORD_SUFFIX):
                    if name == SCOPE_FILE:
                        if de.is_file(follow_symlinks=False):
                            scope_json = self._read_in(folder, dfd, name)
                        else:
                            blocked.append(name)
                    continue
                if name == INDEX_FILE:
                    if de.is_file(follow_symlinks=False):
                        index = self._read_in(folder, dfd, name)
                    else:
                        blocked.append(name)
                    continue
                # Hot path (a 1k-record scope is re-read under the lock by every commit): one stat,
                # one dict lookup for an unchanged file.
                try:
                    st = de.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # deleted while we listed
                if S_ISREG(st.st_mode):
                    cached = cache.get(name)
                    if cached is not None and cached[0] == (
                        st.st_size,
                        st.st_mtime_ns,
                        st.st_ino,
                        st.st_ctime_ns,
                    ):
                        if not cached[2]:
                            entries.append(cached[1])
                            continue
                        if self._verified(folder, dfd, name, st, now, cached, cache):
                            entries.append(cached[1])
                            continue
                entries.append(self._entry(de, st, now, cache, folder, dfd))
        if len(cache) > len(entries) + 64:  # forget files that are gone (bounded memory)
            present = {e.file_name for e in entries}
            for gone in [n for n in list(cache) if n not in present]:  # list(): atomic under the GIL
                cache.pop(gone, None)
        prev = None if archived else _SCOPE_CACHE.get(folder)
        if (
            prev is not None
            and prev.scope_json == scope_json
            and prev.index == index
            and prev.blocked == tuple(blocked)
            and _same_entries(prev, entries, cache)
        ):
            return prev
        extra = len(scope_json or b"") + len(index or b"")
        files = ScopeFiles(
            key=key,
            scope_json=scope_json,
            entries=tuple(mark_case_duplicates(entries)),
            index=index,
            archived_at=self._archived_at(key, d) if archived else None,
            extra_bytes=extra,
            blocked=tuple(blocked),
        )
        if not archived:
            _remember_scope(folder, files)
        return files

    def _entry(
        self,
        de: os.DirEntry[str],
        st: os.stat_result,
        now: int,
        cache: dict[str, _Cached],
        folder: str,
        dfd: int | None,
    ) -> RecordEntry:
        # Hot path of a cold open (100k calls): plain strings, no pathlib, no path joined unless needed.
        name = de.name
        if S_ISLNK(st.st_mode):
            path = os.path.join(folder, name)  # de.path is relative to dfd when listed through it
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            real = os.path.realpath(path)
            root_real = os.path.realpath(self._root)
            inside = real == root_real or real.startswith(root_real + os.sep)
            where = "inside the memory root" if inside else "leading out of the memory root"
            return special_entry(name, f"it is a symbolic link to {target} ({where})", f"symlink:{target}")
        if S_ISDIR(st.st_mode):
            return special_entry(name, "it is a directory, not a record file", "dir")
        if not S_ISREG(st.st_mode):
            return special_entry(name, "it is not a regular file", f"special:{st.st_mode}")
        sig = _sig(st)
        if st.st_size > MAX_RECORD_BYTES:
            entry = self._oversize_entry(os.path.join(folder, name), name, st)
        else:
            try:
                data = self._read_in(folder, dfd, name)
            except StorageError as exc:
                if not isinstance(exc.__cause__, PermissionError):
                    raise  # a transient I/O error must fail the read, not masquerade as an invalid file
                # No read permission: a lasting condition; report it and keep the scope readable.
                return RecordEntry(
                    file_name=name,
                    record=None,
                    invalid_reasons=(f"it can't be read ({exc.message}); fix its permissions",),
                    revision=content_hash(f"unreadable:{_sig(st)}".encode()),
                    size=st.st_size,
                    mtime_ns=st.st_mtime_ns,
                )
            if data is None:  # replaced by something else between scandir and open
                return special_entry(name, "it changed while being read", "racy")
            entry = entry_from_bytes(name, data, st.st_mtime_ns)
        cache[name] = (sig, entry, is_racy(st, now))
        return entry

    def _verified(
        self,
        folder: str,
        dfd: int | None,
        name: str,
        st: os.stat_result,
        now: int,
        cached: _Cached,
        cache: dict[str, _Cached],
    ) -> bool:
        """A racily cached entry is used only if the file's bytes still hash to it (a parse is a pure
        function of name, bytes and mtime, all equal then). Once the stat is out of the racy window
        and the bytes matched, the stat alone is enough from then on."""
        if st.st_size > MAX_RECORD_BYTES:
            return False
        try:
            data = self._read_in(folder, dfd, name)
        except StorageError:
            return False  # _entry reads again and reports it
        if data is None or len(data) != st.st_size or content_hash(data) != cached[1].revision:
            return False
        if not is_racy(st, now):
            cache[name] = (cached[0], cached[1], False)
        return True

    @staticmethod
    def _read_in(folder: str, dfd: int | None, name: str) -> bytes | None:
        if dfd is None:  # pragma: no cover - Windows
            return _read_regular(os.path.join(folder, name))
        return _read_regular(name, dfd, label=_JoinedPath(folder, name))

    @staticmethod
    def _oversize_entry(path: str, name: str, st: os.stat_result) -> RecordEntry:
        # Hash without holding a 10 MB (or 10 GB) file in memory; never parse it.
        h = hashlib.blake2b(digest_size=8)
        with contextlib.suppress(OSError), open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return RecordEntry(
            file_name=name,
            record=None,
            invalid_reasons=(
                f"is {st.st_size:,} bytes; a record may be at most {MAX_RECORD_BYTES // 1024} KiB "
                "(split it or move the bulk elsewhere)",
            ),
            revision=h.hexdigest(),
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
        )

    def _file_bytes(self, key: str, file_name: str) -> bytes | None:
        return _read_regular(self._scope_dir(key, False) / file_name)

    def _real_dir_or_absent(self, rel: str) -> bool:
        """True if ``root/rel`` is a real folder (no symlink on the way), False if absent.

        Anything else (a symlink, a file) raises: the store never writes through it, ``check`` lists it.
        """
        p = self._root
        for part in rel.split("/"):
            p = p / part
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                return False
            except OSError as exc:
                raise StorageError(f"Could not inspect {p}: {exc.strerror or exc}.") from exc
            if not S_ISDIR(st.st_mode):
                kind = "a symbolic link" if S_ISLNK(st.st_mode) else "not a folder"
                raise StorageError(
                    f"{p.relative_to(self._root)} is {kind}; the store never writes through it. "
                    "Nothing was written. Run `dsh-memory check` and move it out of the memory root.",
                    reason="not-a-folder",
                )
        return True

    def _new_file_mode(self, d: Path) -> int:
        """New files are no wider than their folder's existing files (private when there are none)."""
        for probe in (SCOPE_FILE, INDEX_FILE, GLOBAL_FILE):
            mode = existing_mode(d / probe, default=-1)
            if mode >= 0:
                return mode & 0o666
        return PRIVATE_FILE_MODE

    def _new_dir_mode(self) -> int:
        try:
            st = os.lstat(self._root / ACTIVE_DIR)
            if S_ISDIR(st.st_mode):
                return st.st_mode & 0o777
        except OSError:
            pass
        return PRIVATE_DIR_MODE

    def _stage_scope(self, tx: journal.Transaction, change: ScopeChange) -> None:
        rel = f"{ACTIVE_DIR}/{change.key}"
        d = self._root / rel
        if not self._real_dir_or_absent(rel):
            tx.ensure_scope_dir(change.key)
        fresh = self._new_file_mode(d)
        for fn, data in change.files.items():
            old = change.old.get(fn)
            if data is None:
                if old is not None:
                    tx.delete(change.key, fn, old)
            else:
                tx.write(change.key, fn, data, old, existing_mode(d / fn, default=fresh))
        for item in change.history:
            tx.keep_history(change.key, item.source, self._history_file_name(item.entry.id))

    def _stage_global(
        self, tx: journal.Transaction, data: bytes, old: bytes | None, history: Sequence[HistoryItem]
    ) -> None:
        mode = existing_mode(self._root / GLOBAL_FILE, default=self._new_file_mode(self._root))
        tx.write(GLOBAL_SCOPE, GLOBAL_FILE, data, old, mode)
        for item in history:
            tx.keep_history(GLOBAL_SCOPE, GLOBAL_FILE, self._history_file_name(item.entry.id))

    def _write_scope(self, change: ScopeChange, before: ScopeFiles | None) -> ScopeFiles | None:
        tx = journal.Transaction(self._root, (change.key,), dir_mode=self._new_dir_mode())
        with _staging(tx):
            self._stage_scope(tx, change)
        with self._history_added(change.history):
            tx.commit()
        d = self._scope_dir(change.key, False)
        return None if before is None else self._scope_after(d, before, change)

    def _write_together(
        self,
        change: ScopeChange,
        before: ScopeFiles,
        global_data: bytes,
        global_old: bytes | None,
        global_history: Sequence[HistoryItem],
    ) -> None:
        tx = journal.Transaction(self._root, (GLOBAL_SCOPE, change.key), dir_mode=self._new_dir_mode())
        with _staging(tx):
            self._stage_global(tx, global_data, global_old, global_history)
            self._stage_scope(tx, change)
        with self._history_added([*global_history, *change.history]):
            tx.commit()

    def _scope_after(self, d: Path, before: ScopeFiles, change: ScopeChange) -> ScopeFiles | None:
        """The scope after a commit, from what we just wrote: no re-read of a 1k-record folder, and
        only the written entries recomputed (:func:`core.store.scope_files.scope_after`)."""
        scope_json, index = before.scope_json, before.index
        written: dict[str, RecordEntry | None] = {}
        cache = _ENTRY_CACHE.setdefault(str(d), {})
        for fn, data in change.files.items():
            if fn == SCOPE_FILE:
                scope_json = data
            elif fn == INDEX_FILE:
                index = data
            elif data is None:
                written[fn] = None
            else:
                try:
                    st = os.stat(d / fn, follow_symlinks=False)
                except OSError:
                    written[fn] = entry_from_bytes(fn, data, 0)
                    continue
                written[fn] = entry = entry_from_bytes(fn, data, st.st_mtime_ns)
                # Cached for verification only (just written: racy): the next re-read hashes the
                # file's bytes against it instead of parsing them again.
                cache[fn] = (_sig(st), entry, True)
        after = scope_after(
            before,
            written,
            scope_json=scope_json,
            index=index,
            index_items=change.index_items,
            index_generated=None if change.index_bytes is None else index == change.index_bytes,
        )
        if after is not None:
            _remember_scope(str(d), after)
        return after

    # --- global -------------------------------------------------------------------------------
    def _global_bytes(self) -> bytes | None:
        return _read_regular(self._root / GLOBAL_FILE)

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
        with self._history_added(history):
            tx.commit()

    # --- Recycle Bin --------------------------------------------------------------------------
    def _archive_stamp(self, key: str) -> Path:
        return self._manager / "archive" / f"{key}.json"

    def _archived_at(self, key: str, d: Path) -> datetime | None:
        try:
            doc = json.loads(self._archive_stamp(key).read_text("utf-8"))
            return datetime.fromisoformat(doc["archived_at"])
        except (OSError, ValueError, KeyError, TypeError):
            # No stamp (archived by hand, or a crash right after the move): the folder's time is
            # the best we know.
            try:
                return datetime.fromtimestamp(d.stat().st_mtime).astimezone()
            except OSError:
                return None

    def _move_scope(self, src: Path, dst: Path, what: str) -> None:
        """Rename a scope folder (the one atomic step of archive/restore) and make it durable.

        If the rename can't be made durable it is undone, so a StorageError always means "not moved".
        Both folders must be real folders of the root (a symlinked ``archived/`` would move memory out).
        """
        for d in (src, dst.parent):
            self._real_dir_or_absent(d.relative_to(self._root).as_posix())
        try:
            dst.parent.mkdir(exist_ok=True, mode=self._new_dir_mode())
            if os.path.lexists(dst):
                raise FileExistsError(17, "already exists", str(dst))
            os.rename(src, dst)
        except OSError as exc:
            raise StorageError(f"Could not {what}: {exc.strerror or exc}. Nothing was moved.") from exc
        try:
            fsync_dir(dst.parent)
            fsync_dir(src.parent)
        except OSError as exc:
            try:
                os.rename(dst, src)
                fsync_dir(src.parent)
            except OSError:
                raise StorageError(
                    f"Could not {what} durably ({exc.strerror or exc}); it was moved but may be undone by "
                    "a crash. Check the disk."
                ) from exc
            raise StorageError(f"Could not {what}: {exc.strerror or exc}. Nothing was moved.") from exc

    def _archive_move(self, key: str, when: datetime) -> None:
        stamp = self._archive_stamp(key)
        try:
            stamp.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        except OSError as exc:
            raise StorageError(f"Could not archive {key}: {exc.strerror or exc}. Nothing was moved.") from exc
        try:
            # The stamp first: it means nothing until the folder is in archived/, and the rename
            # below is the single atomic step that archives.
            write_atomic(stamp, json.dumps({"archived_at": when.isoformat()}).encode("utf-8"), mode=0o600)
            self._move_scope(self._scope_dir(key, False), self._scope_dir(key, True), f"archive {key}")
        except StorageError:
            with contextlib.suppress(OSError):
                os.unlink(stamp)
            raise

    def _restore_move(self, key: str) -> None:
        self._move_scope(self._scope_dir(key, True), self._scope_dir(key, False), f"restore {key}")
        remove_tree_quietly(self._archive_stamp(key))  # meaningless once restored; best effort

    def _purge_archived(self, key: str) -> None:
        self._real_dir_or_absent(MANAGER)
        journal.purge(self._root, key)

    # --- history ------------------------------------------------------------------------------
    def _history_dir(self) -> Path:
        return self._manager / "history"

    def _history_path(self, entry_id: str) -> Path:
        scope = entry_id.partition("/")[0]
        return self._history_dir() / scope / self._history_file_name(entry_id)

    @staticmethod
    def _history_file_name(entry_id: str) -> str:
        scope, _, rest = entry_id.partition("/")
        for part in (scope, rest):
            if not part or "/" in part or "\\" in part or part.startswith(".") or "\0" in part:
                raise StorageError(f"Invalid history id {entry_id!r}.")
        return f"{rest}{HISTORY_SUFFIX}"

    def _history_items(self, scope: str | None = None) -> list[HistoryEntry]:
        """History entries, read from file names (time, reason, revision, name) and sizes."""
        out: list[HistoryEntry] = []
        base = self._history_dir()
        try:
            if scope is not None:
                scopes = [scope] if (base / scope).is_dir() and "/" not in scope else []
            else:
                with os.scandir(base) as it:
                    scopes = [e.name for e in it if e.is_dir(follow_symlinks=False)]
        except (FileNotFoundError, NotADirectoryError):
            return out
        for name in scopes:
            cwd = "" if name == GLOBAL_SCOPE else self._scope_cwd(name)
            with os.scandir(base / name) as it:
                for fe in it:
                    if not fe.name.endswith(HISTORY_SUFFIX):
                        continue
                    m = HISTORY_ID_RE.match(fe.name[: -len(HISTORY_SUFFIX)])
                    if m is None:
                        continue
                    try:
                        size = fe.stat(follow_symlinks=False).st_size
                        when = datetime.strptime(m.group(1), HISTORY_STAMP).replace(tzinfo=UTC)
                    except (OSError, ValueError):
                        continue
                    out.append(
                        HistoryEntry(
                            id=f"{name}/{fe.name[: -len(HISTORY_SUFFIX)]}",
                            scope_key=name,
                            cwd=cwd,
                            name=m.group(4),
                            time=when,
                            reason="delete" if m.group(2) == "delete" else "overwrite",
                            size=size,
                            revision=m.group(3),
                        )
                    )
        return out

    def _scope_cwd(self, key: str) -> str:
        for archived in (False, True):
            data = _read_regular(self._scope_dir(key, archived) / SCOPE_FILE)
            if data is not None:
                cwd, _, _ = parse_scope_json(key, data)
                return cwd
        return ""

    def _history_bytes(self, entry_id: str) -> bytes | None:
        try:
            path = self._history_path(entry_id)
        except StorageError:
            return None
        return _read_regular(path)

    def _drop_history(self, entry_ids: Sequence[str]) -> None:
        by_scope: dict[str, list[str]] = {}
        for entry_id in entry_ids:
            scope, _, stem = entry_id.partition("/")
            by_scope.setdefault(scope, []).append(stem)
        for scope, stems in by_scope.items():
            with _HISTORY_INDEX.changing(str(self._history_dir() / scope), removed=stems):
                for stem in stems:
                    with contextlib.suppress(OSError, StorageError):
                        os.unlink(self._history_path(f"{scope}/{stem}"))

    def _history_versions(self, scope: str, names: set[str]) -> dict[str, list[tuple[datetime, str]]]:
        """From the history index (:mod:`core.store.history_index`): no listing of a scope's whole
        history per commit."""
        if "/" in scope or scope.startswith("."):
            return {}
        out: dict[str, list[tuple[datetime, str]]] = {}
        for name, stems in _HISTORY_INDEX.versions(str(self._history_dir() / scope), names).items():
            for stem in stems:
                m = HISTORY_ID_RE.match(stem)
                when = stamp_time(m.group(1), HISTORY_STAMP) if m is not None else None
                if when is not None:
                    out.setdefault(name, []).append((when, f"{scope}/{stem}"))
        return out

    @contextlib.contextmanager
    def _history_added(self, items: Sequence[HistoryItem]) -> Iterator[None]:
        """Around a transaction that moves ``items`` into history: keeps the history index current."""
        with contextlib.ExitStack() as stack:
            by_scope: dict[str, list[str]] = {}
            for item in items:
                scope, _, stem = item.entry.id.partition("/")
                by_scope.setdefault(scope, []).append(stem)
            for scope, stems in by_scope.items():
                stack.enter_context(_HISTORY_INDEX.changing(str(self._history_dir() / scope), added=stems))
            yield

    # --- app-owned files ----------------------------------------------------------------------
    def _aux_read(self, rel: str) -> bytes | None:
        return _read_regular(self._root / rel)

    def _aux_write(self, rel: str, data: bytes) -> None:
        target = self._root / rel
        if self.read_only:
            self._lock("settings")  # raises ReadOnlyRootError
        if "/" in rel:
            self._real_dir_or_absent(Path(rel).parent.as_posix())
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        except OSError as exc:
            raise StorageError(f"Could not create {target.parent}: {exc.strerror or exc}.") from exc
        write_atomic(target, data)

    def _aux_append(self, rel: str, data: bytes) -> None:
        target = self._root / rel
        if self.read_only:
            self._lock("settings")  # raises ReadOnlyRootError
        self._real_dir_or_absent(Path(rel).parent.as_posix())
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        except OSError as exc:
            raise StorageError(f"Could not create {target.parent}: {exc.strerror or exc}.") from exc
        append_durable(target, data)

    def _aux_list(self, rel_dir: str) -> list[str]:
        try:
            return sorted(os.listdir(self._root / rel_dir))
        except (FileNotFoundError, NotADirectoryError):
            return []

    # --- private state (core/store/files.py: kinds declared private / confined) ----------------
    def _confined_aux(self, rel: str) -> Path:
        """``rel`` under the root with no symlinked folder on the way (``.manager`` included):
        private review state must never be written or removed through a link out of the root."""
        path = self._root
        for part in Path(rel).parts[:-1]:
            path = path / part
            if path.is_symlink():
                raise StorageError(
                    f"{path} is a symbolic link; pending reviews are only kept inside the memory root. "
                    "Replace it with a real folder (or remove it) and try again."
                )
        return path / Path(rel).name

    def _aux_delete(self, rel: str) -> bool:
        """Remove one app-owned file; False when absent. Never acts on what we did not write (links, folders)."""
        from core.atomic import remove_durable  # imported here: this block stays separate from the rest

        target = self._confined_aux(rel)
        try:
            st = os.lstat(target)
        except (FileNotFoundError, NotADirectoryError):
            return False
        if not S_ISREG(st.st_mode):
            raise StorageError(f"{rel} is not a regular file; it was left alone.")
        return remove_durable(target)

    def _aux_write_private(self, rel: str, data: bytes) -> None:
        """Like ``_aux_write``, readable by the owner only: it holds memory bodies and the user's words."""
        target = self._confined_aux(rel)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"Could not create {target.parent}: {exc.strerror or exc}.") from exc
        write_atomic(target, data, mode=0o600)

    def _write_log(self, rel: str, data: bytes) -> None:
        """The commit log is written atomically but not fsynced (2 fsyncs, 1-6 ms of every commit):
        a power cut can leave it one commit behind or empty, and either only makes the undo of the
        last commit unavailable, exactly like a crash between the commit and the log write (which the
        log's design accepts: an undo acts only when the revision on disk equals the logged one)."""
        target = self._confined_aux(rel)
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        except OSError as exc:
            raise StorageError(f"Could not create {target.parent}: {exc.strerror or exc}.") from exc
        write_atomic(target, data, mode=0o600, durable=False)

    def _aux_read_confined(self, rel: str) -> bytes | None:
        self._confined_aux(rel)  # private state is never read through a link out of the root
        return self._aux_read(rel)

    def _aux_list_confined(self, rel_dir: str) -> list[str]:
        folder = self._confined_aux(f"{rel_dir}/probe").parent  # checked like a state file's
        # Temp files of a state write interrupted by a crash (recover() does not look here). Only
        # old ones: a young one may be another process's write in progress.
        cutoff = time.time() - STALE_TEMP_S
        with contextlib.suppress(OSError):
            for p in folder.glob(f"{TEMP_PREFIX}*"):
                if p.is_file() and not p.is_symlink() and p.stat().st_mtime < cutoff:
                    p.unlink()
        return self._aux_list(rel_dir)

    # --- check --------------------------------------------------------------------------------
    def _extra_problems(self) -> list[Problem]:
        """What the file system shows beyond invalid records: each with what to do about it."""
        problems: list[Problem] = []
        if self.read_only:
            problems.append(
                Problem(
                    path=".",
                    reason="the memory root is read-only: it can be read but not edited; make it "
                    "writable (or copy it) to edit memory",
                    kind="root_read_only",
                )
            )
        for top in (ACTIVE_DIR, ARCHIVED_DIR, MANAGER, "reviews", "debug"):
            p = self._root / top
            if p.is_symlink() or (p.exists() and not p.is_dir()):
                problems.append(
                    Problem(
                        path=top,
                        reason="a symbolic link or file where the store's folder belongs; the store never "
                        "writes through it. Replace it with a real folder (move its contents in)",
                        kind="store_folder_blocked",
                    )
                )
        for top in (ACTIVE_DIR, ARCHIVED_DIR):
            try:
                with os.scandir(self._root / top) as it:
                    for e in it:
                        if e.is_symlink():
                            problems.append(
                                Problem(
                                    path=f"{top}/{e.name}",
                                    reason="a symbolic link where a workspace folder belongs; the store never "
                                    "reads or writes through it. Move the real folder here or delete the link",
                                    kind="workspace_symlink",
                                )
                            )
                        elif not e.is_dir(follow_symlinks=False):
                            problems.append(
                                Problem(
                                    path=f"{top}/{e.name}",
                                    reason="a file where only workspace folders belong; move it elsewhere",
                                    kind="stray_file",
                                )
                            )
                        else:
                            problems += self._blocked_problems(top, e.name)
            except (FileNotFoundError, NotADirectoryError):
                continue
        for name in journal.pending(self._root):
            problems.append(
                Problem(
                    path=f"{MANAGER}/staging/{name}",
                    reason="an interrupted change is waiting to be settled; open the memory with write "
                    "access (any command that writes) to finish or undo it",
                    kind="pending_change",
                )
            )
        for name in journal.quarantined(self._root):
            problems.append(
                Problem(
                    path=f"{MANAGER}/{journal.QUARANTINE}/{name}",
                    reason="a damaged internal file was moved aside and never acted on; memory was "
                    "settled from what is on disk. Look at it (its .why file says why), then delete it",
                    kind="quarantined",
                )
            )
        problems += self._orphaned_history()
        return problems

    def _blocked_problems(self, top: str, key: str) -> list[Problem]:
        out: list[Problem] = []
        for fn in (SCOPE_FILE, INDEX_FILE):
            p = self._root / top / key / fn
            if os.path.lexists(p) and (p.is_symlink() or not p.is_file()):
                out.append(
                    Problem(
                        path=f"{top}/{key}/{fn}",
                        reason=f"{fn} is a symbolic link or not a regular file; the store never replaces it. "
                        "Replace it with a regular file (the next commit rebuilds MEMORY.md)",
                        scope_key=key,
                        kind="scope_file_blocked",
                        params=(("file", fn),),
                    )
                )
        return out

    def _orphaned_history(self) -> list[Problem]:
        base = self._history_dir()
        try:
            with os.scandir(base) as it:
                scopes = [e.name for e in it if e.is_dir(follow_symlinks=False)]
        except (FileNotFoundError, NotADirectoryError):
            return []
        known = set(self._scope_keys(False)) | set(self._scope_keys(True)) | {GLOBAL_SCOPE}
        return [
            Problem(
                path=f"{MANAGER}/history/{scope}",
                reason="history of a workspace that no longer exists (purged or deleted by hand); it may "
                "hold old secrets. Delete this folder if you don't need those versions",
                scope_key=scope,
                kind="orphaned_history",
            )
            for scope in sorted(scopes)
            if scope not in known
        ]
