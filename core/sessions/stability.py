"""Is a session finished enough to consolidate? Quiet period + a non-disturbing lock probe.

How ``<session folder>/session.lock`` is judged (we never create, open for writing, or remove it):

1. absent -> not held;
2. a directory (``proper-lockfile``/``mkdir`` style) -> held while its mtime is fresher than
   ``LOCK_DIR_STALE_SECONDS`` (such lockers touch it periodically);
3. a file whose text names an owner pid (``1234``, ``{"pid": 1234, "hostname": ...}``, the
   ``wx``-create convention of Node tools) -> held while that pid is alive on this host
   (``os.kill(pid, 0)``; a different hostname counts as held, we cannot check it);
4. otherwise DSH's own scheme: it holds a non-blocking exclusive ``flock`` on the file while the
   session is open, and its open *fails* ("already owned") if someone else holds any lock on it
   at that instant. So the probe must never hold one longer than it has to:

   - **Linux**: the kernel's lock table (``/proc/locks``) is read and the file's inode looked up.
     That takes no lock at all: there is no collision window. (Matched by inode number only,
     because overlay file systems report another device number than the lock table; an
     unrelated lock with the same inode number elsewhere only makes a session wait.)
   - **other POSIX (macOS, BSD)** or when ``/proc/locks`` cannot be read: ``F_GETLK`` asks the
     kernel about POSIX record locks (takes nothing), then a non-blocking *shared* ``flock`` is
     tried on a read-only fd and released by the very next call. ``EWOULDBLOCK`` means DSH holds
     it. **Collision window**: between those two system calls (microseconds, once per stability
     check, never while a consolidator runs) a DSH starting to open this very session would see
     the lock taken and fail its open; reopening the session in DSH then works.

   No lock found -> not held (a persistent lock file nobody holds, or one left by a crash).

**Windows**: DSH keeps no ``session.lock`` there at all, so only the quiet period tells a live
session from a finished one (:func:`live_session_protection` gives the text the UI shows).
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from core import messages as M
from core.foreign import load_json

LOCK_FILE_NAME = "session.lock"
DEFAULT_QUIET_SECONDS = 120.0
LOCK_DIR_STALE_SECONDS = 30.0


def _owner_pid(text: str) -> tuple[int | None, str | None]:
    text = text.strip()
    if not text:
        return None, None
    if text.isdigit():
        return int(text), None
    try:
        obj = load_json(text)
    except ValueError:  # includes ForeignDataError (too deep)
        first = text.splitlines()[0].strip()
        return (int(first), None) if first.isdigit() else (None, None)
    if isinstance(obj, int) and not isinstance(obj, bool):
        return obj, None
    if isinstance(obj, dict):
        pid = obj.get("pid")
        host = obj.get("hostname", obj.get("host"))
        if isinstance(pid, int) and not isinstance(pid, bool):
            return pid, host if isinstance(host, str) else None
    return None, None


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if sys.platform == "win32":
        return _windows_pid_alive(pid)
    try:
        os.kill(pid, 0)  # signal 0: existence check only (never on Windows, where it kills)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return False
    return True


def _windows_pid_alive(pid: int) -> bool:
    """OpenProcess + GetExitCodeProcess; ``os.kill(pid, 0)`` would terminate the process there."""
    if sys.platform != "win32":  # keeps mypy's platform narrowing honest
        return False
    import ctypes

    kernel32 = ctypes.windll.kernel32
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return bool(kernel32.GetLastError() == 5)  # ERROR_ACCESS_DENIED: exists, not ours
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def _posix_lock_held(fd: int) -> bool:
    """F_GETLK: does another process hold a write lock on the file? Takes no lock itself."""
    if sys.platform == "win32":
        return False
    import fcntl

    if sys.platform.startswith("linux"):
        layout = "hhqqi4x"  # l_type, l_whence, l_start, l_len, l_pid (+ padding)
        probe = struct.pack(layout, fcntl.F_RDLCK, os.SEEK_SET, 0, 0, 0)
        result = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
        return int(struct.unpack(layout, result)[0]) != fcntl.F_UNLCK
    if sys.platform == "darwin":
        layout = "qqihh"  # l_start, l_len, l_pid, l_type, l_whence
        probe = struct.pack(layout, 0, 0, 0, fcntl.F_RDLCK, os.SEEK_SET)
        result = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
        return int(struct.unpack(layout, result)[3]) != fcntl.F_UNLCK
    return False


def _flock_held(fd: int) -> bool:
    """Non-blocking shared ``flock``, released at once (the collision window is these two calls)."""
    if sys.platform == "win32":
        return False
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


PROC_LOCKS = "/proc/locks"


def _kernel_lock_table_held(inode: int, table: str = PROC_LOCKS) -> bool | None:
    """Whether Linux's lock table lists a lock (flock, POSIX or OFD) on ``inode``; None when the
    table cannot be read (not Linux, /proc not mounted). Reading it takes no lock."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        with open(table, encoding="ascii", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or fields[1] == "->":  # "->" rows are waiters, not holders
            continue
        ident = fields[5].rsplit(":", 1)
        if len(ident) == 2 and ident[1].isdigit() and int(ident[1]) == inode:
            return True
    return False


def lock_state(folder: str | os.PathLike[str], now: float | None = None) -> str | None:
    """None when ``session.lock`` is not held, else a short reason why it counts as held."""
    path = Path(folder) / LOCK_FILE_NAME
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return M.LOCK_UNCHECKED.format(why=exc.strerror or exc)
    if path.is_dir():
        age = (time.time() if now is None else now) - st.st_mtime
        if age < LOCK_DIR_STALE_SECONDS:
            return M.LOCK_HELD.format()
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        return M.LOCK_UNCHECKED.format(why=exc.strerror or exc)
    try:
        raw = os.read(fd, 4096)
        pid, host = _owner_pid(raw.decode("utf-8", "replace"))
        if pid is not None:
            if host is not None and host != socket.gethostname():
                return M.LOCK_HELD_ELSEWHERE.format(pid=pid, host=host)
            if _pid_alive(pid):
                return M.LOCK_HELD_PID.format(pid=pid)
            return None
        if os.name != "posix":
            return None
        from_table = _kernel_lock_table_held(os.fstat(fd).st_ino)
        held = from_table if from_table is not None else (_posix_lock_held(fd) or _flock_held(fd))
        return M.LOCK_HELD.format() if held else None
    except OSError as exc:
        return M.LOCK_UNCHECKED.format(why=exc.strerror or exc)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class LiveSessionProtection:
    """How this platform tells a live DSH session from a finished one (for the Consolidation tab)."""

    lock_checked: bool  # False on Windows: DSH keeps no session.lock there
    note: str  # one sentence for the user; empty when the lock is checked


def live_session_protection(
    quiet_seconds: float = DEFAULT_QUIET_SECONDS, platform: str | None = None
) -> LiveSessionProtection:
    """Qt-free text for the UI: on Windows only the quiet period protects a live session."""
    if (platform or sys.platform) == "win32":
        return LiveSessionProtection(
            lock_checked=False,
            note=(
                "On Windows DSH keeps no session lock, so a session counts as finished once it has not "
                f"changed for {describe_age(quiet_seconds)} (the quiet period in Settings). Close the session "
                "in DSH before consolidating it, or raise the quiet period."
            ),
        )
    return LiveSessionProtection(lock_checked=True, note="")


def is_lock_held(folder: str | os.PathLike[str]) -> bool:
    """True when DSH appears to hold ``<folder>/session.lock``. Never creates the file."""
    return lock_state(folder) is not None


def describe_age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
