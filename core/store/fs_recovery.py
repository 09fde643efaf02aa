"""Settling a root after a crash: interrupted transactions (each under the locks of its scopes, in the
fixed order), leftover trash and temp files. Run at open and, per scope, before every mutation."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from core.atomic import TEMP_PREFIX, remove_tree_quietly
from core.errors import DshMemoryError, StorageError
from core.layout import ARCHIVE_STAMPS_DIR, CACHE_DIR, COMMIT_LOGS_DIR, MANAGER_DIR, REVIEWS_DIR, TRASH_DIR
from core.private_modes import tighten_tree
from core.store import journal_recovery as recovery
from core.store.base import GLOBAL_SCOPE, check_key
from core.store.fs_aux import STALE_TEMP_S
from core.store.journal_doc import HASHED_PREFIX, staging_dir, tx_scopes
from core.store.locking import ScopeLocks


class Settler:
    """Finishes or undoes what a crash interrupted in one root; records what it did in ``recovered``."""

    def __init__(self, root: Path, locks: ScopeLocks, summaries_dir: Path) -> None:
        self.root = root
        self._manager = root / MANAGER_DIR
        self._locks = locks
        self._summaries_dir = summaries_dir
        self.recovered: list[tuple[str, str]] = []
        """``(scope or transaction, "rolled forward" | "rolled back" | "discarded" | ...)``."""

    def recover(self) -> None:
        """Every interrupted transaction, old trash, temp files of crashed single-file writes."""
        for name in recovery.pending(self.root):
            self.settle(name)
        trash = self._manager / TRASH_DIR
        if trash.is_dir() and not trash.is_symlink():
            unsettled = set(recovery.pending(self.root))  # a purge that could not finish keeps its trash
            for p in trash.iterdir():
                if p.name.rsplit("-", 1)[0] not in unsettled:
                    remove_tree_quietly(p)
        # Temp files of single-file atomic writes interrupted by a crash. Only old ones: a young
        # one may belong to a write in progress in another process (receipts take no lock).
        cutoff = time.time() - STALE_TEMP_S
        for d in (self.root, self.root / REVIEWS_DIR, self._manager / ARCHIVE_STAMPS_DIR, self._summaries_dir):
            with contextlib.suppress(OSError):
                for p in d.glob(f"{TEMP_PREFIX}*"):
                    with contextlib.suppress(OSError):
                        if p.lstat().st_mtime < cutoff:
                            p.unlink()
        self._sweep_commit_log_temps()
        for derived in (CACHE_DIR, ARCHIVE_STAMPS_DIR):  # issue 25: derived data no wider than its source
            tighten_tree(self._manager / derived)

    def _sweep_commit_log_temps(self) -> None:
        """A commit log (``.dshtmp-<hex>-<scope>.json``) is only written under its scope's lock, so
        a temp file found while holding that lock is a crashed write's, whatever its age."""
        with contextlib.suppress(OSError):
            for p in (self._manager / COMMIT_LOGS_DIR).glob(f"{TEMP_PREFIX}*"):
                scope = p.name[len(TEMP_PREFIX) :].split("-", 1)[-1].removesuffix(".json")
                with contextlib.suppress(OSError, DshMemoryError):
                    if scope != GLOBAL_SCOPE:
                        check_key(scope)
                    with self._locks.hold(scope):
                        p.unlink()

    def _unnamed(self, name: str) -> list[str] | None:
        """A hashed staging folder whose scopes file was not whole when read: its scopes now, or None
        (dropped or quarantined if its writer died, left alone while it is being made). Never waits.

        Its writer holds the lock named after it from before the folder exists until its scopes file
        is whole. Free and still no scopes file: the writer died first. Free and now whole: it was
        being made a moment ago, and is settled like any other, under its scopes' locks."""
        with self._locks.try_hold(name, timeout=0) as free:
            scopes = tx_scopes(self.root, name) if free else None
            done = recovery.discard_unnamed(self.root, name) if free and scopes is None else None
        if done:
            self.recovered.append((name, done))
        return scopes

    def settle(self, name: str) -> None:
        """Recover one staging folder under the locks of every scope it names (global first)."""
        scopes = tx_scopes(self.root, name)
        if scopes is None and name.startswith(HASHED_PREFIX):
            scopes = self._unnamed(name)
            if scopes is None:
                return
        if scopes is None:  # not a name we make: never act on it, keep it for the user
            with contextlib.suppress(StorageError):
                recovery.quarantine(self.root, staging_dir(self.root, name), "unknown staging entry")
            return
        with contextlib.ExitStack() as stack:
            for scope in scopes:
                stack.enter_context(self._locks.hold(scope))
            done = recovery.recover(self.root, name)
        if done:
            self.recovered.append((name, done))

    def prepare(self, scope: str) -> None:
        """Under ``scope``'s lock: settle its own interrupted transaction and any that covers it
        together with other scopes (Global + workspaces, several workspaces)."""
        done = recovery.recover(self.root, scope)
        if done:
            self.recovered.append((scope, done))
        for name in recovery.pending(self.root):
            if name == scope or "+" not in name:
                continue  # (single-scope transactions are settled under their own lock)
            scopes = tx_scopes(self.root, name)
            if scopes is None and name.startswith(HASHED_PREFIX):
                scopes = self._unnamed(name)  # scopes file not whole: being made, or its writer died
            if scopes is None or scope not in scopes:
                continue
            # We hold ``scope`` (and maybe more), so the fixed order may already be broken for the
            # others: only *try* for them, so a writer holding one and waiting for us never deadlocks.
            with contextlib.ExitStack() as stack:
                for other in scopes:
                    if not stack.enter_context(self._locks.try_hold(other, timeout=2.0)):
                        raise StorageError(
                            "An interrupted change to several scopes is being settled by another "
                            "program. Try again in a moment; nothing was changed."
                        )
                self.settle(name)
