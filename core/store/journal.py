"""Crash-safe multi-file transactions: stage, journal (the commit point), apply, clean up.

A transaction on one scope:

1. **stage** every new file under ``.manager/staging/<scope>/`` (written and fsynced), and hard-link
   (or copy) every file it will replace or delete there as a backup;
2. **commit point**: write the journal atomically (state ``commit``) into the staging folder;
3. **apply**: rename staged files over their targets, unlink deleted ones, fsync the directories;
4. remove the journal, then the staging folder.

The journal lives at ``.manager/staging/<scope>/journal.json``, next to the files it names.

Recovery (on open, and under the scope lock before every mutation): a journal in state ``commit`` is
rolled forward (idempotent: a staged file that is gone was already renamed); a journal in state
``rollback`` is undone from the backups; a staging folder with no journal is a transaction that never
reached its commit point and is simply deleted. So after ``kill -9`` at any instant the next open
sees exactly the old or the new scope.

If applying fails in-process (disk error), the journal is switched to ``rollback`` and undone, so the
caller gets a StorageError and an unchanged scope.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.atomic import fsync_dir, remove_durable, write_atomic, write_durable
from core.errors import StorageError

MANAGER_DIR = ".manager"
JOURNAL_NAME = "journal.json"


def staging_dir(root: Path, scope: str) -> Path:
    return root / MANAGER_DIR / "staging" / scope


def journal_path(root: Path, scope: str) -> Path:
    # Inside the staging folder: one directory fsync then makes both the staged files and the
    # journal durable (two fewer fsyncs per commit than a separate journal folder).
    return staging_dir(root, scope) / JOURNAL_NAME


@dataclass
class _Op:
    target: str  # relative to root
    staged: str | None  # None: delete the target
    backup: str | None = None  # relative path of the old target's backup, if it existed
    old_hash: str | None = None  # deletes: hash of the bytes deleted (replay deletes only those)
    history: str | None = None  # where the old bytes are kept as history (a hard link of the backup)


@dataclass
class Transaction:
    """Collects file writes/deletes for one scope, then commits them all or none."""

    root: Path
    scope: str
    ops: list[_Op] = field(default_factory=list)
    new_dirs: list[str] = field(default_factory=list)
    _counter: int = 0
    _started: bool = False

    @property
    def staging(self) -> Path:
        return staging_dir(self.root, self.scope)

    def _begin(self) -> None:
        if self._started:
            return
        if self.staging.exists():  # a leftover; recover() (run under the lock first) settled it
            shutil.rmtree(self.staging)
        self.staging.mkdir(parents=True)
        self._started = True

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _next(self, kind: str) -> Path:
        self._counter += 1
        return self.staging / f"{self._counter:04d}.{kind}"

    def ensure_dir(self, path: Path) -> None:
        """Create ``path`` (and parents) when applying; undone if it was new and stays empty."""
        missing: list[str] = []
        p = path
        while not p.exists() and p != self.root:
            missing.append(self._rel(p))
            p = p.parent
        for rel in reversed(missing):
            if rel not in self.new_dirs:
                self.new_dirs.append(rel)

    def _backup(self, target: Path) -> str | None:
        if not os.path.lexists(target):
            return None
        bak = self._next("bak")
        try:
            os.link(target, bak)  # free: the old inode stays alive under the staging folder
        except OSError:
            write_durable(bak, target.read_bytes())  # file systems without hard links
        return self._rel(bak)

    def abort(self) -> None:
        """Drop everything staged (only valid before :meth:`commit` reached its commit point)."""
        if self._started and not journal_path(self.root, self.scope).exists():
            _remove_tree(self.staging)

    def write(self, target: Path, data: bytes) -> None:
        self._begin()
        staged = self._next("new")
        write_durable(staged, data)
        self.ops.append(_Op(self._rel(target), self._rel(staged), self._backup(target)))

    def delete(self, target: Path) -> None:
        self._begin()
        try:
            old_hash = _hash(target.read_bytes())
        except FileNotFoundError:
            return
        self.ops.append(_Op(self._rel(target), None, self._backup(target), old_hash=old_hash))

    def keep_history(self, target: Path, dest: Path) -> None:
        """Keep the bytes ``target`` had before this transaction at ``dest`` (free: a hard link)."""
        rel = self._rel(target)
        for op in self.ops:
            if op.target == rel and op.backup is not None:
                self.ensure_dir(dest.parent)
                op.history = self._rel(dest)
                return

    def _doc(self, state: str) -> dict[str, Any]:
        return {
            "version": 1,
            "scope": self.scope,
            "state": state,
            "dirs": self.new_dirs,
            "ops": [
                {"target": o.target, "staged": o.staged, "backup": o.backup, "old": o.old_hash, "history": o.history}
                for o in self.ops
            ],
        }

    def commit(self) -> None:
        """Make every staged change durable, or none of them; raises StorageError on failure."""
        if not self.ops:
            return
        journal = journal_path(self.root, self.scope)
        try:
            # Temp + fsync + rename + fsync of the staging folder: the commit point.
            write_atomic(journal, json.dumps(self._doc("commit")).encode("utf-8"))
        except (OSError, StorageError) as exc:
            # The journal may have landed with its durability unknown (the directory fsync failed).
            # Withdraw it, so the commit point is clearly not passed; staged files must never be
            # dropped while a journal still names them.
            try:
                remove_durable(journal)
            except StorageError:
                raise StorageError(
                    "Could not finish writing the change; it will be completed or undone the next time "
                    "the memory is opened."
                ) from exc
            _remove_tree(self.staging)
            if isinstance(exc, StorageError):
                raise
            raise StorageError(
                f"Could not prepare the change: {exc.strerror or exc}. Nothing was written."
            ) from exc
        try:
            _apply(self.root, self._doc("commit"))
        except OSError as exc:
            self._abort_after_commit_point(journal)
            raise StorageError(
                f"Could not write the change ({exc.strerror or exc}); it was rolled back and "
                "nothing changed. "
                "Check permissions and free space."
            ) from exc
        _finish(self.root, self.scope)

    def _abort_after_commit_point(self, journal: Path) -> None:
        doc = self._doc("rollback")
        try:
            write_atomic(journal, json.dumps(doc).encode("utf-8"))
            _undo(self.root, doc)
        except (OSError, StorageError):
            # Can't undo now; the journal says what to do and the next open finishes the job.
            return
        _finish(self.root, self.scope)


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except FileExistsError:
        return  # replayed
    except OSError:
        write_durable(dst, src.read_bytes())  # file systems without hard links


def _apply(root: Path, doc: dict[str, Any]) -> None:
    """Roll forward. Idempotent, and harmless to replay after completion (a journal whose removal
    was lost): staged files that are gone were renamed already, a delete only removes the exact
    bytes it was meant to remove, and history links need their backup, which is gone by then."""
    for rel in doc["dirs"]:
        (root / rel).mkdir(exist_ok=True)
    touched: set[Path] = set()
    for op in doc["ops"]:
        target = root / op["target"]
        history = op.get("history")
        if history is not None and op["backup"] is not None:
            bak = root / op["backup"]
            if os.path.lexists(bak):
                _link_or_copy(bak, root / history)
                touched.add((root / history).parent)
        if op["staged"] is not None:
            staged = root / op["staged"]
            if os.path.lexists(staged):
                os.replace(staged, target)
            # else: renamed before the crash
        else:
            try:
                current = target.read_bytes()
            except FileNotFoundError:
                current = None
            if current is not None and (op.get("old") is None or _hash(current) == op["old"]):
                os.unlink(target)
        touched.add(target.parent)
    for d in sorted(touched):
        fsync_dir(d)
    for rel in doc["dirs"]:
        fsync_dir((root / rel).parent)


def _undo(root: Path, doc: dict[str, Any]) -> None:
    touched: set[Path] = set()
    for op in reversed(doc["ops"]):
        target = root / op["target"]
        if op.get("history") is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(root / op["history"])
        if op["backup"] is not None:
            bak = root / op["backup"]
            if os.path.lexists(bak):
                os.replace(bak, target)
        elif op["staged"] is not None and not os.path.lexists(root / op["staged"]):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)  # a file this transaction created
        touched.add(target.parent)
    for d in sorted(touched):
        if d.exists():
            fsync_dir(d)
    for rel in reversed(doc["dirs"]):
        with contextlib.suppress(OSError):
            (root / rel).rmdir()  # only if empty


def _remove_tree(path: Path) -> None:
    for _ in range(2):  # one retry: leftovers are harmless (the next open drops them) but untidy
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            continue


def _finish(root: Path, scope: str) -> None:
    """Drop the journal (the transaction is settled), then the staging folder.

    No fsync for the removal: if a power loss undoes it, replaying the settled journal is harmless
    (see :func:`_apply`), so durability would buy nothing but ~5 ms per commit.
    """
    journal = journal_path(root, scope)
    for _ in range(2):  # one retry: a transient failure here would only delay the cleanup
        try:
            os.unlink(journal)
            break
        except FileNotFoundError:
            break
        except OSError:
            continue
    else:
        return
    _remove_tree(staging_dir(root, scope))


def recover(root: Path, scope: str) -> str | None:
    """Settle an interrupted transaction of ``scope`` (caller holds its lock). Returns what was done."""
    journal = journal_path(root, scope)
    try:
        raw = journal.read_bytes()
    except FileNotFoundError:
        raw = None
    except OSError as exc:
        raise StorageError(f"Could not read the journal {journal}: {exc.strerror or exc}.") from exc
    if raw is None:
        if staging_dir(root, scope).exists():
            _remove_tree(staging_dir(root, scope))
            return "discarded"
        return None
    try:
        doc = json.loads(raw)
        state = doc["state"]
    except (ValueError, KeyError, TypeError):
        # A torn journal can't exist (it is written atomically); treat garbage as never committed.
        remove_durable(journal)
        _remove_tree(staging_dir(root, scope))
        return "discarded"
    try:
        if state == "commit":
            _apply(root, doc)
        else:
            _undo(root, doc)
    except OSError as exc:
        raise StorageError(
            f"Could not finish an interrupted change to {scope}: {exc.strerror or exc}. It will be retried."
        ) from exc
    _finish(root, scope)
    return "rolled forward" if state == "commit" else "rolled back"


def pending_scopes(root: Path) -> list[str]:
    """Scopes with a staging folder left behind (with or without a journal)."""
    try:
        with os.scandir(root / MANAGER_DIR / "staging") as it:
            return sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return []
