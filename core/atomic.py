"""The one place that makes file writes durable and atomic: temp file, fsync, rename, fsync dir.

Every byte the app writes to the memory root goes through here (the store's journal stages files
with :func:`write_durable` and publishes them with :func:`replace_durable`). Failures surface as
:class:`StorageError` after the temp file is gone, so the target is either old or new, never torn.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from core.errors import StorageError

TEMP_PREFIX = ".dshtmp-"
"""Temp files start with this, so recovery can tell them from anything a user or tool wrote."""


def fsync_dir(path: Path) -> None:
    """Persist a directory's entries (a rename or unlink is only durable after this)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - platforms that can't open directories (Windows)
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_durable(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Write a brand-new file and fsync it. No rename: callers publish it with :func:`replace_durable`.

    Used for staged files whose path nobody else reads yet; on error the partial file is removed.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except OSError as exc:
        raise StorageError(
            f"Could not create {path}: {exc.strerror or exc}. Check permissions and free space."
        ) from exc
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise StorageError(
            f"Could not write {path}: {exc.strerror or exc}. Check permissions and free space."
        ) from exc


def replace_durable(src: Path, dst: Path, *, sync_dirs: bool = True) -> None:
    """``os.replace`` then fsync the destination directory (and the source's, if different)."""
    try:
        os.replace(src, dst)
        if sync_dirs:
            fsync_dir(dst.parent)
            if src.parent != dst.parent:
                fsync_dir(src.parent)
    except OSError as exc:
        raise StorageError(f"Could not move {src.name} to {dst}: {exc.strerror or exc}.") from exc


def temp_path_for(target: Path) -> Path:
    return target.parent / f"{TEMP_PREFIX}{secrets.token_hex(6)}-{target.name}"


def write_atomic(target: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Replace ``target`` with ``data`` atomically and durably.

    Temp file in the target's directory (same file system, so the rename is atomic), write, flush,
    fsync, ``os.replace``, fsync the directory; the temp file is removed on any error.
    """
    tmp = temp_path_for(target)
    try:
        write_durable(tmp, data, mode=mode)
        replace_durable(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def append_durable(target: Path, data: bytes) -> None:
    """Append ``data`` (one log line) and fsync. Appends are not atomic; use for logs only."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise StorageError(f"Could not append to {target}: {exc.strerror or exc}.") from exc


def remove_durable(path: Path) -> bool:
    """Unlink ``path`` if present and fsync its directory. Returns whether it existed."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StorageError(f"Could not delete {path}: {exc.strerror or exc}.") from exc
    try:
        fsync_dir(path.parent)
    except OSError as exc:
        raise StorageError(f"Could not persist the removal of {path}: {exc.strerror or exc}.") from exc
    return True
