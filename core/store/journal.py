"""Crash-safe multi-file transactions that never displace bytes they did not read.

A transaction covers one scope, or ``global`` (optional) plus any number of workspaces
(``commit_scopes``), and may archive workspaces (rename ``workspaces/<key>`` to ``archived/<key>``
with its stamp, after every file op; undone first). Its folder is ``.manager/staging/<name>/`` where
``<name>`` is the scopes in lock order (``global`` first, keys sorted) joined by ``+``, or, when that
would be long, ``+many-<hash>`` with the scopes in a ``scopes.json`` beside the journal:

1. **stage** every new file (written, fsynced, with the mode of the file it replaces), and a private
   read-only copy of every version it will displace (the history entry, never a hard link);
2. **commit point**: write the journal, twice (``journal.json`` holds two copies, each
   checksummed, on two lines of one file written atomically); one directory fsync makes the staged
   files and the journal durable;
3. **apply**, one op at a time, each op *checking what it displaces at the moment it displaces it*:
   a replace swaps the staged file and the target with ``renameat2(RENAME_EXCHANGE)`` and hashes what
   came out; a create uses ``RENAME_NOREPLACE``; a delete renames the target into the staging folder
   and hashes it. A mismatch (someone wrote the file without our lock since we read it) swaps back and
   rolls the whole transaction back: a :class:`DisplacedError` (a ConflictError), nothing written. Then
   the history copies are renamed into ``.manager/history/``;
4. remove both journal copies, then the staging folder.

Recovery (on open, and under the scopes' locks before every mutation) reads the journal through a
pydantic schema with a checksum, confines every path it names to the scope's own folder, and decides
from what is on disk (content hashes of staged files and targets), so it is idempotent at every
instant: ``journal.json`` means roll forward, ``rollback.json`` (the journal renamed: no space needed)
means undo, and no journal means the commit point was never reached (discard). A journal copy that is
invalid in any way (bad JSON, missing keys, wrong checksum, a path leaving the scope, a directory) is
reported through ``.manager/quarantine/`` and the other copy is used; if neither is valid the whole staging
folder is quarantined untouched and ``check`` reports it.

Without renameat2 (other systems, some network file systems) the portable fallback hard-links the
target, checks those bytes immediately before the rename and again after it: it narrows the window a
direct writer can hit but cannot close it (see docs/store.md).

Purge is a journaled operation too (``kind: "purge"``): the journal is written before the archived
folder moves to the trash, and recovery finishes it (history and archive stamp dropped).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from core.atomic import (
    PRIVATE_DIR_MODE,
    TEMP_PREFIX,
    exchange_supported,
    fsync_dir,
    open_real_dir,
    read_nofollow,
    remove_tree_quietly,
    rename_exchange,
    rename_noreplace,
    write_atomic,
    write_durable,
)
from core.errors import ConflictError, StorageError
from core.fingerprint import content_hash
from core.layout import ARCHIVE_STAMPS_DIR, ARCHIVED_DIR, HISTORY_DIR, MANAGER_DIR, STAGING_DIR, WORKSPACES_DIR
from core.store.journal_doc import (
    GLOBAL,
    GLOBAL_FILE,
    HASHED_PREFIX,
    HISTORY_MODE,
    JOURNAL_NAMES,
    ROLLBACK_NAMES,
    SCOPES_FILE,
    JournalDoc,
    OpDoc,
    archive_stamp_bytes,
    history_dir_rel,
    make_doc,
    scope_dir_rel,
    staging_dir,
    tx_name,
)

_USE_EXCHANGE: bool | None = None
"""Tests set this to False to run the portable fallback; None means "use renameat2 when available"."""


class DisplacedError(ConflictError):
    """A file changed on disk (a direct writer) between our read and the moment we would replace it."""

    def __init__(self, target: str) -> None:
        super().__init__(
            f"{target} was changed by another program while it was being saved; nothing was written. "
            "Reload and save again.",
            "",
        )
        self.target = target


_hash = content_hash  # a journal names file contents by the same revision the store uses



# --- staging --------------------------------------------------------------------------------------
@dataclass
class _Staged:
    scope: int
    name: str
    staged: str
    old: bytes | None
    new_hash: str | None
    history: str | None = None
    hist_staged: str | None = None


@dataclass
class Transaction:
    """Collects file writes/deletes for one or two scopes, then commits them all or none."""

    root: Path
    scopes: tuple[str, ...]
    ops: list[_Staged] = field(default_factory=list)
    new_dirs: list[int] = field(default_factory=list)
    archived: list[tuple[int, str]] = field(default_factory=list)
    dir_mode: int = PRIVATE_DIR_MODE
    _counter: int = 0
    _fd: int | None = None
    _started: bool = False

    @property
    def name(self) -> str:
        return tx_name(self.scopes)

    @property
    def staging(self) -> Path:
        return staging_dir(self.root, self.name)

    def _begin(self) -> int:
        if self._fd is not None:
            return self._fd
        if os.path.lexists(self.staging):  # a leftover; recover() (run under the locks first) settled it
            remove_tree_quietly(self.staging)
        try:
            # A new root is private too (its parents, outside the root, are the user's business).
            self.root.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
            (self.root / MANAGER_DIR).mkdir(exist_ok=True, mode=PRIVATE_DIR_MODE)
            (self.root / MANAGER_DIR / STAGING_DIR).mkdir(exist_ok=True, mode=PRIVATE_DIR_MODE)
            self.staging.mkdir(mode=PRIVATE_DIR_MODE)
            if self.name.startswith(HASHED_PREFIX):  # (the caller holds the lock named after it)
                write_durable(self.staging / SCOPES_FILE, json.dumps(list(self.scopes)).encode(), mode=0o600)
            self._started = True
            self._fd = open_real_dir(self.root, f"{MANAGER_DIR}/{STAGING_DIR}/{self.name}")
        except OSError as exc:
            raise StorageError(f"Could not prepare the change: {exc.strerror or exc}. Nothing was written.") from exc
        return self._fd

    def _next(self, kind: str) -> str:
        self._counter += 1
        return f"{self._counter:04d}.{kind}"

    def ensure_scope_dir(self, scope: str) -> None:
        """Create the scope's folder when applying (a workspace created by this transaction)."""
        i = self.scopes.index(scope)
        if i not in self.new_dirs:
            self.new_dirs.append(i)

    def write(self, scope: str, name: str, data: bytes, old: bytes | None, mode: int) -> None:
        """Replace (``old`` = the bytes read under the lock) or create (``old`` None) ``name``."""
        fd = self._begin()
        staged = self._next("new")
        write_durable(staged, data, mode=mode, dir_fd=fd)
        self.ops.append(_Staged(self.scopes.index(scope), name, staged, old, _hash(data)))

    def archive(self, scope: str, when: datetime) -> None:
        """Move the workspace's folder to ``archived/`` (with its archive stamp) once every file op applied."""
        self._begin()
        self.archived.append((self.scopes.index(scope), when.isoformat()))

    def delete(self, scope: str, name: str, old: bytes) -> None:
        self._begin()
        self.ops.append(_Staged(self.scopes.index(scope), name, self._next("del"), old, None))

    def keep_history(self, scope: str, name: str, history_name: str) -> None:
        """Keep the bytes ``name`` had (the ``old`` of its op) as ``history_name``: a read-only copy."""
        fd = self._begin()
        i = self.scopes.index(scope)
        for op in self.ops:
            if op.scope == i and op.name == name and op.old is not None:
                op.hist_staged = self._next("hst")
                op.history = history_name
                write_durable(op.hist_staged, op.old, mode=HISTORY_MODE, dir_fd=fd)
                return

    def abort(self) -> None:
        """Drop everything staged (only valid before :meth:`commit` reached its commit point)."""
        self._close()
        if self._started and not any(os.path.lexists(self.staging / n) for n in JOURNAL_NAMES):
            remove_tree_quietly(self.staging)

    def _close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def doc(self) -> JournalDoc:
        # Plain dicts: the whole document is validated once, by make_doc (not each op twice).
        ops: list[OpDoc | dict[str, object]] = [
            {
                "scope": o.scope,
                "name": o.name,
                "staged": o.staged,
                "old_hash": None if o.old is None else _hash(o.old),
                "new_hash": o.new_hash,
                "history": o.history,
                "hist_staged": o.hist_staged,
            }
            for o in self.ops
        ]
        return make_doc("commit", self.scopes, ops=ops, new_dirs=self.new_dirs, archive=self.archived)

    def commit(self) -> None:
        """Make every staged change durable, or none; StorageError or DisplacedError (nothing written)."""
        if not self.ops and not self.archived:
            self.abort()
            return
        doc = self.doc()
        try:
            _write_journal(self.staging, doc)
        except (OSError, StorageError) as exc:
            # A copy may have landed with its durability unknown. Withdraw both, so the commit point
            # is clearly not passed; staged files are never dropped while a journal still names them.
            self._close()
            try:
                for n in JOURNAL_NAMES:
                    _unlink_durable(self.staging / n)
            except OSError:
                raise StorageError(
                    "Could not finish writing the change; it will be completed or undone the next time "
                    "the memory is opened."
                ) from exc
            remove_tree_quietly(self.staging)
            if isinstance(exc, StorageError):
                raise
            raise StorageError(f"Could not prepare the change: {exc.strerror or exc}. Nothing was written.") from exc
        self._close()
        try:
            _apply(self.root, self.staging, doc, self.dir_mode)
        except BaseException as exc:
            # Every failure after the commit point (I/O, a displaced file, StorageError, even an
            # interrupt) is undone here, so a failed commit stays failed after a reopen too.
            undone = _abort_after_commit_point(self.root, self.staging, doc)
            if isinstance(exc, DisplacedError):
                raise
            if not isinstance(exc, Exception):
                raise
            detail = exc.message if isinstance(exc, StorageError) else (getattr(exc, "strerror", None) or exc)
            if undone:
                raise StorageError(
                    f"Could not write the change ({detail}); it was rolled back and nothing changed. "
                    "Check permissions and free space.",
                    reason="rolled-back",
                ) from exc
            raise StorageError(
                f"Could not write the change ({detail}); it will be undone the next time the memory is "
                "opened. Check permissions and free space."
            ) from exc
        _finish(self.staging)


def _write_journal(staging: Path, doc: JournalDoc) -> None:
    """The commit point: the journal (twice, on two lines) atomically, and one fsync of the staging
    folder that also makes the staged files' names durable. A crash leaves no journal or a whole one."""
    data = doc.to_json().encode("utf-8")
    write_atomic(staging / JOURNAL_NAMES[0], data + b"\n" + data, mode=0o600)


def _unlink_durable(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    fsync_dir(path.parent)


def _abort_after_commit_point(root: Path, staging: Path, doc: JournalDoc) -> bool:
    """Mark the transaction as rolling back (a rename: works on a full disk) and undo it."""
    try:
        _mark_rollback(staging)
        _undo(root, staging, doc)
    except BaseException:  # can't undo now; the renamed journal tells the next open what to do
        return False
    _finish(staging)
    return True


def _mark_rollback(staging: Path) -> None:
    for src, dst in zip(JOURNAL_NAMES, ROLLBACK_NAMES, strict=True):
        with contextlib.suppress(FileNotFoundError):
            os.rename(staging / src, staging / dst)
    fsync_dir(staging)


# --- applying and undoing, from what is on disk ---------------------------------------------------
class _Dirs:
    """Directory descriptors opened without following symlinks, one per folder, closed at the end."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fds: dict[str, int] = {}

    def get(self, rel: str) -> int:
        fd = self._fds.get(rel)
        if fd is None:
            try:
                fd = open_real_dir(self.root, rel)
            except OSError as exc:
                raise StorageError(
                    f"{rel or 'the memory root'} is not a real folder inside the memory root "
                    f"({exc.strerror or exc}); the store never writes through a symbolic link. "
                    "Run `dsh-memory check`."
                ) from exc
            self._fds[rel] = fd
        return fd

    def sync(self, rels: Sequence[str] | None = None) -> None:
        """fsync the given folders (default: every folder opened), making renames in them durable."""
        for rel, fd in self._fds.items():
            if rels is None or rel in rels:
                os.fsync(fd)

    def close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()


@contextlib.contextmanager
def _dirs(root: Path) -> Iterator[_Dirs]:
    d = _Dirs(root)
    try:
        yield d
    finally:
        d.close()


def _h(name: str, fd: int) -> str | None:
    data = read_nofollow(name, fd)
    return None if data is None else _hash(data)


def _staging_rel(staging: Path, root: Path) -> str:
    return staging.relative_to(root).as_posix()


def _make_dirs(dirs: _Dirs, doc: JournalDoc, mode: int) -> None:
    if not doc.new_dirs:
        return
    rootfd = dirs.get("")
    with contextlib.suppress(FileExistsError):
        os.mkdir(WORKSPACES_DIR, mode, dir_fd=rootfd)
    top = dirs.get(WORKSPACES_DIR)
    for i in doc.new_dirs:
        with contextlib.suppress(FileExistsError):
            os.mkdir(doc.scopes[i], mode, dir_fd=top)
    os.fsync(top)
    os.fsync(rootfd)


Rescue = Callable[[str, int], None]


def _rescuer(root: Path, dirs: _Dirs, scope: str, name: str) -> Rescue:
    """Keeps bytes a race left in the staging folder (someone else's version) as a history entry."""

    def rescue(staged: str, sfd: int) -> None:
        data = read_nofollow(staged, sfd)
        if data is None:
            return
        hrel = history_dir_rel(scope)
        _ensure_history_dir(root, dirs, hrel)
        hfd = dirs.get(hrel)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        label = "GLOBAL" if name == GLOBAL_FILE else name.removesuffix(".md")
        with contextlib.suppress(FileExistsError):
            write_durable(f"{stamp}-overwrite-{_hash(data)}-{label}.hist", data, mode=HISTORY_MODE, dir_fd=hfd)
        os.fsync(hfd)

    return rescue


def _apply(root: Path, staging: Path, doc: JournalDoc, dir_mode: int = PRIVATE_DIR_MODE) -> None:
    """Roll forward, op by op, each idempotent and each checking what it displaces."""
    srel = _staging_rel(staging, root)
    use_exchange = exchange_supported() if _USE_EXCHANGE is None else _USE_EXCHANGE
    with _dirs(root) as dirs:
        _make_dirs(dirs, doc, dir_mode)
        sfd = dirs.get(srel)
        for op in doc.ops:
            scope = doc.scopes[op.scope]
            tfd = dirs.get(scope_dir_rel(scope))
            label = op.name if scope == GLOBAL else f"{scope}/{op.name}"
            rescue = _rescuer(root, dirs, scope, op.name)
            assert op.staged is not None  # the schema guarantees it
            if op.staged.endswith(".del"):
                _apply_delete(op, op.staged, sfd, tfd, label, rescue)
            elif op.old_hash is None:
                _apply_create(op, op.staged, sfd, tfd, label)
            else:
                _apply_replace(op, op.staged, sfd, tfd, label, use_exchange, rescue)
        for op in doc.ops:  # history last: only versions that really were displaced
            if op.hist_staged is not None and op.history is not None:
                if read_nofollow(op.hist_staged, sfd) is None:
                    continue  # moved already
                hrel = history_dir_rel(doc.scopes[op.scope])
                _ensure_history_dir(root, dirs, hrel)
                hfd = dirs.get(hrel)
                os.replace(op.hist_staged, op.history, src_dir_fd=sfd, dst_dir_fd=hfd)
        _apply_archive(dirs, doc, dir_mode)
        # One round of folder fsyncs for the applied files and the history entries, before the journal
        # is removed. Their order among themselves does not matter: until the journal is gone, a replay
        # after a power loss finds each op applied or not (decided from hashes) and each history copy
        # staged or moved, and finishes what is left; and the copies move only once every op applied
        # (a DisplacedError above means none moved). One round instead of two saves a journal commit.
        dirs.sync()


def _subdir(dirs: _Dirs, parent: str, name: str, mode: int) -> int:
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, mode, dir_fd=dirs.get(parent))
    return dirs.get(f"{parent}/{name}" if parent else name)


def _apply_archive(dirs: _Dirs, doc: JournalDoc, dir_mode: int) -> None:
    """Each archived workspace: its stamp first (meaningless until the folder moves), then the
    folder's rename to ``archived/``. Idempotent: a folder already moved is left where it is."""
    if not doc.archive:
        return
    active = dirs.get(WORKSPACES_DIR)
    shelf = _subdir(dirs, "", ARCHIVED_DIR, dir_mode)
    stamps = _subdir(dirs, MANAGER_DIR, ARCHIVE_STAMPS_DIR, PRIVATE_DIR_MODE)
    for a in doc.archive:
        key = doc.scopes[a.scope]
        if not _lexists(key, active) or _lexists(key, shelf):
            continue  # moved already
        tmp = f"{TEMP_PREFIX}{key}.json"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=stamps)
        write_durable(tmp, archive_stamp_bytes(a.archived_at), mode=0o600, dir_fd=stamps)
        os.replace(tmp, f"{key}.json", src_dir_fd=stamps, dst_dir_fd=stamps)
        os.rename(key, key, src_dir_fd=active, dst_dir_fd=shelf)


def _undo_archive(dirs: _Dirs, doc: JournalDoc) -> None:
    """Put every archived folder back (never over a folder someone made meanwhile) and drop our stamp."""
    if not doc.archive:
        return
    active = dirs.get(WORKSPACES_DIR)
    try:
        shelf = dirs.get(ARCHIVED_DIR)
    except StorageError:
        return  # never created: nothing moved
    for a in reversed(doc.archive):
        key = doc.scopes[a.scope]
        if _lexists(key, shelf) and not _lexists(key, active):
            os.rename(key, key, src_dir_fd=shelf, dst_dir_fd=active)
        if _lexists(key, active):
            with contextlib.suppress(OSError, StorageError):
                stamps = dirs.get(f"{MANAGER_DIR}/{ARCHIVE_STAMPS_DIR}")
                if read_nofollow(f"{key}.json", stamps) == archive_stamp_bytes(a.archived_at):
                    os.unlink(f"{key}.json", dir_fd=stamps)


def _ensure_history_dir(root: Path, dirs: _Dirs, hrel: str) -> None:
    try:
        dirs.get(hrel)
        return  # the common case: it exists
    except StorageError:
        pass
    parent = dirs.get(f"{MANAGER_DIR}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(HISTORY_DIR, PRIVATE_DIR_MODE, dir_fd=parent)
        os.fsync(parent)
    hist = dirs.get(f"{MANAGER_DIR}/{HISTORY_DIR}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(hrel.rsplit("/", 1)[1], PRIVATE_DIR_MODE, dir_fd=hist)
        os.fsync(hist)


def _settle_check_link(staged: str, sfd: int) -> None:
    """The portable path keeps the displaced bytes as NNNN.chk until they move to NNNN.new."""
    check = staged.replace(".new", ".chk")
    if not _lexists(staged, sfd) and _lexists(check, sfd):
        os.replace(check, staged, src_dir_fd=sfd, dst_dir_fd=sfd)


def _apply_replace(
    op: OpDoc, staged: str, sfd: int, tfd: int, label: str, use_exchange: bool, rescue: Rescue | None = None
) -> None:
    _settle_check_link(staged, sfd)
    here = _h(staged, sfd)
    if here is None or here == op.old_hash:
        return  # swapped already (the displaced old bytes wait in the staging folder), or settled
    if here != op.new_hash:
        # A crash between a swap and its check displaced someone else's bytes: put them back.
        if not (use_exchange and rename_exchange(staged, op.name, src_dir_fd=sfd, dst_dir_fd=tfd)):
            _put_back(staged, sfd, tfd, op.name, rescue)
        elif rescue is not None and _h(staged, sfd) != op.new_hash:
            rescue(staged, sfd)
        raise DisplacedError(label)
    if use_exchange and _exchange_checked(staged, sfd, tfd, op.name, op.old_hash, label, rescue, op.new_hash):
        return
    _replace_portable(op, staged, sfd, tfd, label, rescue)


def _exchange_checked(
    staged: str,
    sfd: int,
    tfd: int,
    name: str,
    want: str | None,
    label: str,
    rescue: Rescue | None = None,
    new_hash: str | None = None,
) -> bool:
    """Swap staged <-> target and check what came out; swap back on a mismatch. False: unsupported.

    If the owner of the bytes we displaced wrote again in the instant before we swapped back, the swap
    back displaces that newer version instead: it is kept in history (``rescue``), never dropped.
    """
    try:
        swapped = rename_exchange(staged, name, src_dir_fd=sfd, dst_dir_fd=tfd)
    except FileNotFoundError:
        raise DisplacedError(label) from None  # the target vanished (deleted by someone else)
    if not swapped:
        return False
    if _h(staged, sfd) != want:
        rename_exchange(staged, name, src_dir_fd=sfd, dst_dir_fd=tfd)  # theirs back in place
        if rescue is not None and _h(staged, sfd) != new_hash:
            rescue(staged, sfd)
        raise DisplacedError(label)
    return True


def _replace_portable(op: OpDoc, staged: str, sfd: int, tfd: int, label: str, rescue: Rescue | None = None) -> None:
    # Hard-link the target next to the staged file, check it right before and right after the
    # rename. A rename-replacing writer inside that window is not seen (docs/store.md says so).
    check = staged.replace(".new", ".chk")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(check, dir_fd=sfd)
    try:
        os.link(op.name, check, src_dir_fd=tfd, dst_dir_fd=sfd, follow_symlinks=False)
    except FileNotFoundError:
        raise DisplacedError(label) from None
    if _h(check, sfd) != op.old_hash:
        os.unlink(check, dir_fd=sfd)
        raise DisplacedError(label)
    os.replace(staged, op.name, src_dir_fd=sfd, dst_dir_fd=tfd)
    # Keep the displaced bytes where an exchange would have left them (the undo source).
    os.replace(check, staged, src_dir_fd=sfd, dst_dir_fd=sfd)
    if _h(staged, sfd) != op.old_hash:  # written in place during the rename
        if rescue is not None:
            rescue(staged, sfd)
        os.replace(staged, op.name, src_dir_fd=sfd, dst_dir_fd=tfd)
        raise DisplacedError(label)


def _apply_create(op: OpDoc, staged: str, sfd: int, tfd: int, label: str) -> None:
    if not _lexists(staged, sfd):
        return  # created already
    try:
        rename_noreplace(staged, op.name, src_dir_fd=sfd, dst_dir_fd=tfd)
    except FileExistsError:
        if _h(op.name, tfd) == op.new_hash:  # created before a crash, staged link not yet removed
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staged, dir_fd=sfd)
            return
        raise DisplacedError(label) from None


def _apply_delete(op: OpDoc, slot: str, sfd: int, tfd: int, label: str, rescue: Rescue | None = None) -> None:
    if _lexists(slot, sfd):
        if _h(slot, sfd) != op.old_hash:  # a crash between the move and its check
            _put_back(slot, sfd, tfd, op.name, rescue)
            raise DisplacedError(label)
        return
    if not _lexists(op.name, tfd):
        return  # gone already (deleted by someone else): nothing of theirs to keep
    os.rename(op.name, slot, src_dir_fd=tfd, dst_dir_fd=sfd)
    if _h(slot, sfd) != op.old_hash:
        _put_back(slot, sfd, tfd, op.name, rescue)
        raise DisplacedError(label)


def _put_back(slot: str, sfd: int, tfd: int, name: str, rescue: Rescue | None = None) -> None:
    """Move someone's bytes back from the staging folder; if they already wrote a newer file there,
    that one stays and the version we moved aside is kept in history."""
    try:
        rename_noreplace(slot, name, src_dir_fd=sfd, dst_dir_fd=tfd)
    except FileExistsError:
        if rescue is not None:
            rescue(slot, sfd)
            os.unlink(slot, dir_fd=sfd)  # kept in history now; never rescued twice


def _lexists(name: str, fd: int) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _undo(root: Path, staging: Path, doc: JournalDoc) -> None:
    """Put back every op that was applied, newest first, never displacing a newer direct write."""
    srel = _staging_rel(staging, root)
    use_exchange = exchange_supported() if _USE_EXCHANGE is None else _USE_EXCHANGE
    with _dirs(root) as dirs:
        _undo_archive(dirs, doc)
        sfd = dirs.get(srel)
        for op in reversed(doc.ops):
            scope = doc.scopes[op.scope]
            if op.history is not None and not _lexists(op.hist_staged or "", sfd):
                with contextlib.suppress(OSError, StorageError):
                    hfd = dirs.get(history_dir_rel(scope))
                    os.rename(op.history, op.hist_staged or "", src_dir_fd=hfd, dst_dir_fd=sfd)
            rel = scope_dir_rel(scope)
            rescue = _rescuer(root, dirs, scope, op.name)
            try:
                tfd = dirs.get(rel)
            except StorageError:
                if doc.new_dirs and op.scope in doc.new_dirs:
                    continue  # the folder was never created
                raise
            assert op.staged is not None
            if op.staged.endswith(".new"):
                _settle_check_link(op.staged, sfd)
            if op.staged.endswith(".del"):
                if _lexists(op.staged, sfd):
                    _put_back(op.staged, sfd, tfd, op.name, rescue)
            elif op.old_hash is None:
                if not _lexists(op.staged, sfd) and _h(op.name, tfd) == op.new_hash:
                    aside = op.staged.replace(".new", ".und")
                    os.rename(op.name, aside, src_dir_fd=tfd, dst_dir_fd=sfd)
                    if _h(aside, sfd) != op.new_hash:  # someone replaced it right now: theirs stays
                        _put_back(aside, sfd, tfd, op.name, rescue)
            elif _h(op.staged, sfd) == op.old_hash and op.new_hash != op.old_hash:
                if _h(op.name, tfd) != op.new_hash:
                    # Rewritten by someone after we applied: their newer bytes stay, and the version
                    # we displaced (and now can't put back) is kept in history.
                    rescue(op.staged, sfd)
                    continue
                if use_exchange and rename_exchange(op.staged, op.name, src_dir_fd=sfd, dst_dir_fd=tfd):
                    if _h(op.staged, sfd) != op.new_hash:
                        rename_exchange(op.staged, op.name, src_dir_fd=sfd, dst_dir_fd=tfd)
                        rescue(op.staged, sfd)
                else:
                    os.replace(op.staged, op.name, src_dir_fd=sfd, dst_dir_fd=tfd)
        dirs.sync()
        for i in doc.new_dirs:
            with contextlib.suppress(OSError, StorageError):
                os.rmdir(doc.scopes[i], dir_fd=dirs.get(WORKSPACES_DIR))  # only if empty


def _finish(staging: Path) -> None:
    """Drop the journal copies (the transaction is settled), then the staging folder.

    No fsync for the removal: replaying a settled journal is harmless (every op checks the hashes on
    disk first), so durability would buy nothing but milliseconds per commit.
    """
    for n in (*JOURNAL_NAMES, *ROLLBACK_NAMES):
        for _ in range(2):
            try:
                os.unlink(staging / n)
                break
            except FileNotFoundError:
                break
            except OSError:
                continue
        else:
            return
    remove_tree_quietly(staging)
