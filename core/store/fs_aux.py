"""App-owned files next to the memory (settings, receipts, debug logs, private state, commit logs)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from stat import S_ISREG

from core.atomic import PRIVATE_DIR_MODE, TEMP_PREFIX, append_durable, remove_durable, write_atomic
from core.errors import StorageError
from core.store.fs_paths import confined, real_dir_or_absent
from core.store.fs_read import read_regular

STALE_TEMP_S = 600
"""A temp file older than this belongs to a write that crashed (a younger one may be in progress)."""


class AppFiles:
    """Reads and writes the app's own files of one root, never through a link out of it."""

    def __init__(self, root: Path, check_writable: Callable[[], None]) -> None:
        self.root = root
        self._check_writable = check_writable  # raises ReadOnlyRootError on a read-only root

    def read(self, rel: str) -> bytes | None:
        return read_regular(self.root / rel)

    def confine(self, rel: str) -> Path:
        """``rel``'s path, checked to reach it through real folders only (StorageError otherwise)."""
        return confined(self.root, rel)

    def read_confined(self, rel: str) -> bytes | None:
        """Private state is never read through a link out of the root."""
        self.confine(rel)
        return self.read(rel)

    def _parent(self, rel: str, mode: int | None = PRIVATE_DIR_MODE) -> Path:
        target = self.root / rel
        try:
            if mode is None:
                target.parent.mkdir(parents=True, exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True, mode=mode)
        except OSError as exc:
            raise StorageError(f"Could not create {target.parent}: {exc.strerror or exc}.") from exc
        return target

    def write(self, rel: str, data: bytes) -> None:
        self._check_writable()
        if "/" in rel:
            real_dir_or_absent(self.root, Path(rel).parent.as_posix())
        write_atomic(self._parent(rel), data)

    def append(self, rel: str, data: bytes) -> None:
        self._check_writable()
        real_dir_or_absent(self.root, Path(rel).parent.as_posix())
        append_durable(self._parent(rel), data)

    def list(self, rel_dir: str) -> list[str]:
        try:
            return sorted(os.listdir(self.root / rel_dir))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def delete(self, rel: str) -> bool:
        """Remove one app-owned file; False when absent. Never acts on what we did not write (links, folders)."""
        target = confined(self.root, rel)
        try:
            st = os.lstat(target)
        except (FileNotFoundError, NotADirectoryError):
            return False
        if not S_ISREG(st.st_mode):
            raise StorageError(f"{rel} is not a regular file; it was left alone.")
        return remove_durable(target)

    def write_private(self, rel: str, data: bytes) -> None:
        """Like :meth:`write`, readable by the owner only: it holds memory bodies and the user's words."""
        confined(self.root, rel)
        write_atomic(self._parent(rel, mode=None), data, mode=0o600)

    def write_log(self, rel: str, data: bytes) -> None:
        """The commit log is written atomically but not fsynced (2 fsyncs, 1-6 ms of every commit):
        a power cut can leave it one commit behind or empty, and either only makes the undo of the
        last commit unavailable, exactly like a crash between the commit and the log write (which the
        log's design accepts: an undo acts only when the revision on disk equals the logged one)."""
        confined(self.root, rel)
        write_atomic(self._parent(rel), data, mode=0o600, durable=False)

    def sweep_temps(self, rel_dir: str) -> None:
        """Temp files of a private write interrupted by a crash (``recover`` does not look here).
        Only old ones: a young one may be another process's write in progress."""
        folder = confined(self.root, f"{rel_dir}/probe").parent  # checked like a state file's
        cutoff = time.time() - STALE_TEMP_S
        with contextlib.suppress(OSError):
            for p in folder.glob(f"{TEMP_PREFIX}*"):
                if p.is_file() and not p.is_symlink() and p.stat().st_mtime < cutoff:
                    p.unlink()
