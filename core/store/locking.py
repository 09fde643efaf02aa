"""Cross-process locks, one per scope, as ``flock``-style files under ``<root>/.manager/locks``.

Lock files are created on first use and left in place on purpose: deleting a lock file while another
process waits on it lets two processes "hold" the same lock. They live only in the internal
``.manager`` folder and hold no data.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import filelock

from core.errors import StorageError

LOCK_TIMEOUT_S = 30.0


class ScopeLocks:
    """Hands out the lock of a scope (``global``, ``settings`` or a workspace key)."""

    def __init__(self, lock_dir: Path, timeout: float = LOCK_TIMEOUT_S) -> None:
        self._dir = lock_dir
        self._timeout = timeout
        self._locks: dict[str, filelock.FileLock] = {}
        self._guard = threading.Lock()

    def _get(self, scope: str) -> filelock.FileLock:
        with self._guard:
            lock = self._locks.get(scope)
            if lock is None:
                # thread_local: each thread gets its own descriptor, so threads exclude each other
                # as well as processes, and a thread may re-enter its own lock.
                lock = filelock.FileLock(
                    self._dir / f"{scope}.lock", timeout=self._timeout, thread_local=True
                )
                self._locks[scope] = lock
            return lock

    @contextlib.contextmanager
    def hold(self, scope: str) -> Iterator[None]:
        try:
            self._dir.mkdir(parents=True, exist_ok=True)
            lock = self._get(scope)
            lock.acquire()
        except filelock.Timeout as exc:
            raise StorageError(
                f"Another program has been writing to this memory ({scope}) for over {self._timeout:.0f} s. "
                "Try again in a moment; nothing was changed."
            ) from exc
        except OSError as exc:
            raise StorageError(
                f"Could not lock {scope} under {self._dir}: {exc.strerror or exc}. "
                "Check permissions; nothing was changed."
            ) from exc
        try:
            yield
        finally:
            lock.release()
