"""How the file store reads a scope folder: one listing, a stat per file, a parse only for what changed.

Reads are cached per file by ``(size, mtime_ns, inode, ctime_ns)`` in the store's
:class:`~core.store.caches.StoreCaches`, so re-reading a scope only re-parses files that changed. A
file whose timestamps are within :data:`core.fingerprint.RACY_WINDOW_NS` of the moment it was read is
not trusted on its stat alone ("racily clean", as git calls it): the file system clock is coarse, and a
second write inside the same tick could keep the same stat.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from stat import S_ISDIR, S_ISLNK, S_ISREG
from typing import TypeVar

from core.errors import StorageError
from core.fingerprint import content_hash, is_racy
from core.layout import INDEX_FILE, RECORD_SUFFIX, SCOPE_FILE
from core.models import RecordEntry
from core.records import MAX_RECORD_BYTES
from core.store.base import ScopeChange, entry_from_bytes, parse_scope_json, special_entry
from core.store.caches import Cached, StoreCaches, stat_sig
from core.store.scan import RecordBytes, WorkspaceScan, finish_scan, record_bytes
from core.store.scope_files import ScopeFiles, mark_case_duplicates, scope_after

_T = TypeVar("_T")

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FDS = os.scandir in os.supports_fd and os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")
"""Scope folders are listed through one descriptor (POSIX): each stat and read then resolves one
name instead of the whole path (a 1k-record scope, re-read by every commit: ~7 ms -> ~5 ms here)."""


class JoinedPath:
    """``os.path.join(folder, name)``, joined only if a message needs it (a cold open reads 100k files)."""

    __slots__ = ("folder", "name")

    def __init__(self, folder: str, name: str) -> None:
        self.folder, self.name = folder, name

    def __str__(self) -> str:
        return os.path.join(self.folder, self.name)


def read_regular(path: Path | str, dir_fd: int | None = None, label: object = None) -> bytes | None:
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


def _same_entries(prev: ScopeFiles, entries: list[RecordEntry], cache: dict[str, Cached]) -> bool:
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


class ScopeReader:
    """Reads scope folders for one root through the caches the store owns."""

    def __init__(
        self, root: Path, caches: StoreCaches, archived_at: Callable[[str, Path], datetime | None]
    ) -> None:
        self.root = root
        self.caches = caches
        self._archived_at = archived_at  # when an archived scope was archived (its stamp, or the folder's time)

    @staticmethod
    def scope_json_bytes(d: Path) -> bytes | None:
        """scope.json as :meth:`load` reads it: a regular file's bytes, else None (a FIFO is
        never opened)."""
        try:
            if not S_ISREG(os.lstat(d / SCOPE_FILE).st_mode):
                return None
        except OSError:
            return None
        return read_regular(d / SCOPE_FILE)


    @staticmethod
    def in_dir(d: Path, read: Callable[[Path, int | None], _T]) -> _T | None:
        """``read(folder, folder descriptor)`` on a scope folder that is no symlink (None: none there)."""
        if not _DIR_FDS:  # pragma: no cover - Windows
            if os.path.islink(d):
                return None
            return read(d, None)
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
            return read(d, dfd)
        finally:
            os.close(dfd)

    def scan(self, key: str, archived: bool, d: Path, dfd: int | None) -> WorkspaceScan | None:
        """Each record file read once, nothing cached (``core.store.scan``): the same listing,
        kinds and limits as :meth:`load`; the rare file that is no record to parse gets
        its entry from :meth:`entry` for its revision."""
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
                        scope_json = self.read_in(folder, dfd, name)
                    continue
                try:
                    st = de.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # deleted while we listed
                data = None
                if S_ISREG(st.st_mode) and st.st_size <= MAX_RECORD_BYTES:
                    with contextlib.suppress(StorageError):  # (_entry reads again: reports or raises)
                        data = self.read_in(folder, dfd, name)
                if data is not None:
                    items.append(record_bytes(name, data, st.st_mtime_ns))
                    continue
                e = self.entry(de, st, now, {}, folder, dfd)  # (a throwaway cache)
                items.append(RecordBytes(name, None, e.revision, e.mtime_ns))
        cwd, _, _ = parse_scope_json(key, scope_json)
        return finish_scan(key, cwd, scope_json, items)

    def load(self, key: str, archived: bool, d: Path, dfd: int | None) -> ScopeFiles | None:
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
        cache = self.caches.entries_of(folder)
        with it:
            for de in it:
                name = de.name
                if not name.endswith(RECORD_SUFFIX):
                    if name == SCOPE_FILE:
                        if de.is_file(follow_symlinks=False):
                            scope_json = self.read_in(folder, dfd, name)
                        else:
                            blocked.append(name)
                    continue
                if name == INDEX_FILE:
                    if de.is_file(follow_symlinks=False):
                        index = self.read_in(folder, dfd, name)
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
                        if self.verified(folder, dfd, name, st, now, cached, cache):
                            entries.append(cached[1])
                            continue
                entries.append(self.entry(de, st, now, cache, folder, dfd))
        if len(cache) > len(entries) + 64:  # forget files that are gone (bounded memory)
            present = {e.file_name for e in entries}
            for gone in [n for n in list(cache) if n not in present]:  # list(): atomic under the GIL
                cache.pop(gone, None)
        prev = None if archived else self.caches.scopes.get(folder)
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
            self.caches.scopes.remember(folder, files)
        return files

    def entry(
        self,
        de: os.DirEntry[str],
        st: os.stat_result,
        now: int,
        cache: dict[str, Cached],
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
            root_real = os.path.realpath(self.root)
            inside = real == root_real or real.startswith(root_real + os.sep)
            where = "inside the memory root" if inside else "leading out of the memory root"
            return special_entry(name, f"it is a symbolic link to {target} ({where})", f"symlink:{target}")
        if S_ISDIR(st.st_mode):
            return special_entry(name, "it is a directory, not a record file", "dir")
        if not S_ISREG(st.st_mode):
            return special_entry(name, "it is not a regular file", f"special:{st.st_mode}")
        sig = stat_sig(st)
        if st.st_size > MAX_RECORD_BYTES:
            entry = self.oversize_entry(os.path.join(folder, name), name, st)
        else:
            try:
                data = self.read_in(folder, dfd, name)
            except StorageError as exc:
                if not isinstance(exc.__cause__, PermissionError):
                    raise  # a transient I/O error must fail the read, not masquerade as an invalid file
                # No read permission: a lasting condition; report it and keep the scope readable.
                return RecordEntry(
                    file_name=name,
                    record=None,
                    invalid_reasons=(f"it can't be read ({exc.message}); fix its permissions",),
                    revision=content_hash(f"unreadable:{stat_sig(st)}".encode()),
                    size=st.st_size,
                    mtime_ns=st.st_mtime_ns,
                )
            if data is None:  # replaced by something else between scandir and open
                return special_entry(name, "it changed while being read", "racy")
            entry = entry_from_bytes(name, data, st.st_mtime_ns)
            self.caches.parsed += 1
        cache[name] = (sig, entry, is_racy(st, now))
        return entry

    def verified(
        self,
        folder: str,
        dfd: int | None,
        name: str,
        st: os.stat_result,
        now: int,
        cached: Cached,
        cache: dict[str, Cached],
    ) -> bool:
        """A racily cached entry is used only if the file's bytes still hash to it (a parse is a pure
        function of name, bytes and mtime, all equal then). Once the stat is out of the racy window
        and the bytes matched, the stat alone is enough from then on."""
        if st.st_size > MAX_RECORD_BYTES:
            return False
        try:
            data = self.read_in(folder, dfd, name)
        except StorageError:
            return False  # _entry reads again and reports it
        if data is None or len(data) != st.st_size or content_hash(data) != cached[1].revision:
            return False
        if not is_racy(st, now):
            cache[name] = (cached[0], cached[1], False)
        return True

    @staticmethod
    def read_in(folder: str, dfd: int | None, name: str) -> bytes | None:
        if dfd is None:  # pragma: no cover - Windows
            return read_regular(os.path.join(folder, name))
        return read_regular(name, dfd, label=JoinedPath(folder, name))

    @staticmethod
    def oversize_entry(path: str, name: str, st: os.stat_result) -> RecordEntry:
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

    def scope_after(self, d: Path, before: ScopeFiles, change: ScopeChange) -> ScopeFiles | None:
        """The scope after a commit, from what we just wrote: no re-read of a 1k-record folder, and
        only the written entries recomputed (:func:`core.store.scope_files.scope_after`)."""
        scope_json, index = before.scope_json, before.index
        written: dict[str, RecordEntry | None] = {}
        cache = self.caches.entries_of(str(d))
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
                cache[fn] = (stat_sig(st), entry, True)
        after = scope_after(
            before,
            written,
            scope_json=scope_json,
            index=index,
            index_items=change.index_items,
            index_generated=None if change.index_bytes is None else index == change.index_bytes,
        )
        if after is not None:
            self.caches.scopes.remember(str(d), after)
        return after
