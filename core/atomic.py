"""The one place that makes file writes durable and atomic: temp file, fsync, rename, fsync dir.

Every byte the app writes to the memory root goes through here (the store's journal stages files
with :func:`write_durable` and publishes them with :func:`replace_durable`). Failures surface as
:class:`StorageError` after the temp file is gone, so the target is either old or new, never torn.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
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


PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
"""Memory is private: files and folders are created no wider than this when there is nothing to copy."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def existing_mode(path: Path | str, default: int = PRIVATE_FILE_MODE) -> int:
    """Permission bits of a regular file at ``path`` (never through a symlink), else ``default``."""
    try:
        st = os.lstat(path)
    except OSError:
        return default
    return st.st_mode & 0o7777 if (st.st_mode & 0o170000) == 0o100000 else default


def write_durable(
    path: Path | str,
    data: bytes,
    *,
    mode: int = PRIVATE_FILE_MODE,
    dir_fd: int | None = None,
    sync: bool = True,
) -> None:
    """Write a brand-new file and fsync it. No rename: callers publish it with :func:`replace_durable`.

    The file gets exactly ``mode`` (``fchmod``: the umask can neither widen nor narrow what the file it
    replaces had). Used for staged files whose path nobody else reads yet; on error the partial file
    is removed. ``sync=False`` skips the fsync (only for :func:`write_atomic` with ``durable=False``).
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode & 0o777, dir_fd=dir_fd)
    except OSError as exc:
        raise StorageError(
            f"Could not create {path}: {exc.strerror or exc}. Check permissions and free space."
        ) from exc
    try:
        try:
            with contextlib.suppress(AttributeError):  # Windows has no fchmod
                os.fchmod(fd, mode & 0o7777)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(path, dir_fd=dir_fd)
        raise StorageError(
            f"Could not write {path}: {exc.strerror or exc}. Check permissions and free space."
        ) from exc


# --- renames that look at what they displace ------------------------------------------------------
# renameat2(2) flags (Linux >= 3.15; ext4, xfs, btrfs, tmpfs...). EXCHANGE swaps two names atomically,
# so a commit can look at the bytes it displaced *after* displacing them and swap back on a mismatch;
# NOREPLACE creates a name only if nobody else did in the meantime.
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2_fn: object | None = None
_renameat2_ok = sys.platform.startswith("linux")


def _load_renameat2() -> object | None:
    global _renameat2_fn, _renameat2_ok
    if _renameat2_fn is None and _renameat2_ok:
        import ctypes  # (here: a one-shot CLI search writes nothing and need not import it, issue 24)

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fn = getattr(libc, "renameat2", None)
            if fn is None:  # glibc < 2.28: the raw system call (316 on x86_64, 276 on aarch64)
                number = {"x86_64": 316, "aarch64": 276}.get(os.uname().machine)
                if number is None:
                    _renameat2_ok = False
                    return None
                syscall = libc.syscall

                def fn(a: int, b: bytes, c: int, d: bytes, flags: int) -> int:
                    return int(syscall(number, a, b, c, d, flags))

            else:
                fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                fn.restype = ctypes.c_int
            _renameat2_fn = fn
        except OSError:
            _renameat2_ok = False
    return _renameat2_fn


def _renameat2(src: str, src_dir_fd: int | None, dst: str, dst_dir_fd: int | None, flags: int) -> bool:
    """True if done; False if this platform or file system can't (callers fall back); OSError otherwise."""
    fn = _load_renameat2()
    if fn is None:
        return False
    rc = fn(  # type: ignore[operator]  # a ctypes function
        _AT_FDCWD if src_dir_fd is None else src_dir_fd,
        os.fsencode(src),
        _AT_FDCWD if dst_dir_fd is None else dst_dir_fd,
        os.fsencode(dst),
        flags,
    )
    if rc == 0:
        return True
    import ctypes

    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # not supported here (old kernel, FUSE, NFS...)
    raise OSError(err, os.strerror(err), dst)


def exchange_supported() -> bool:
    return _load_renameat2() is not None


def rename_exchange(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> bool:
    """Atomically swap ``src`` and ``dst`` (both must exist). False if unsupported here."""
    return _renameat2(src, src_dir_fd, dst, dst_dir_fd, RENAME_EXCHANGE)


def rename_noreplace(src: str, dst: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
    """Rename ``src`` to ``dst`` only if ``dst`` does not exist (FileExistsError otherwise).

    Without renameat2: a hard link (which never replaces) and an unlink of the source.
    """
    if _renameat2(src, src_dir_fd, dst, dst_dir_fd, RENAME_NOREPLACE):
        return
    os.link(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd, follow_symlinks=False)
    os.unlink(src, dir_fd=src_dir_fd)


def open_real_dir(root: Path | str, rel: str) -> int:
    """A descriptor of ``root/rel`` opened one component at a time with ``O_NOFOLLOW | O_DIRECTORY``.

    The root itself may be a symlink (the user chose it); nothing below it may be. Raises
    NotADirectoryError (or OSError ELOOP) if any component is a symlink or not a directory.
    """
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for part in [p for p in rel.split("/") if p]:
            if part in (".", ".."):
                raise NotADirectoryError(errno.ENOTDIR, "path leaves the memory root", rel)
            nxt = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_nofollow(name: str, dir_fd: int | None = None) -> bytes | None:
    """Bytes of the regular file ``name`` (never through a symlink), or None if absent or not regular."""
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EISDIR, errno.ENXIO):
            return None
        raise
    try:
        if (os.fstat(fd).st_mode & 0o170000) != 0o100000:
            return None
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


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
    return target.parent / f"{TEMP_PREFIX}{os.urandom(6).hex()}-{target.name}"  # (secrets.token_hex, unimported)


def write_atomic(target: Path, data: bytes, *, mode: int | None = None, durable: bool = True) -> None:
    """Replace ``target`` with ``data`` atomically and durably.

    Temp file in the target's directory (same file system, so the rename is atomic), write, flush,
    fsync, ``os.replace``, fsync the directory; the temp file is removed on any error. The file keeps
    the mode it had (``mode=None``), or is created private (0600).

    ``durable=False`` skips both fsyncs: readers (and a SIGKILL) still see the old or the new bytes,
    never a torn file, but after a power cut the file may be the old one, or empty. Only for files
    whose loss is harmless by design: caches and the commit log (undo of the last commit), never
    memory.
    """
    tmp = temp_path_for(target)
    try:
        write_durable(tmp, data, mode=existing_mode(target) if mode is None else mode, sync=durable)
        replace_durable(tmp, target, sync_dirs=durable)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def append_durable(target: Path, data: bytes) -> None:
    """Append ``data`` (one log line) and fsync. Appends are not atomic; use for logs only."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW, PRIVATE_FILE_MODE)
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


def remove_tree(path: Path) -> None:
    """Delete ``path``: a folder with everything in it, or a file. A symlink is removed itself,
    never followed. Raises OSError (FileNotFoundError when it is already gone)."""
    if path.is_symlink() or not path.is_dir():
        path.unlink()
    elif not _remove_flat(path):
        import shutil  # (here: 2 ms of a one-shot CLI command that removes nothing)

        shutil.rmtree(path)


def _remove_flat(path: Path) -> bool:
    """Remove a folder that holds only files (a settled staging folder: every commit drops one)
    through one descriptor, without ``shutil.rmtree``'s per-entry stats. False, with whatever it
    already removed gone, when it holds a folder (``shutil.rmtree`` then does the rest)."""
    try:
        fd = os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    except OSError:
        return False
    try:
        for name in os.listdir(fd):
            try:
                os.unlink(name, dir_fd=fd)  # a symlink is removed itself, never followed
            except FileNotFoundError:
                continue
            except (IsADirectoryError, PermissionError):  # a subfolder (EISDIR; EPERM on some systems)
                return False
    finally:
        os.close(fd)
    os.rmdir(path)
    return True


def remove_tree_quietly(path: Path) -> None:
    """``remove_tree`` for leftovers that no longer matter (trash, staging, a stale stamp): one retry,
    then left for the next open to drop; never raises."""
    for _ in range(2):
        try:
            remove_tree(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            continue
