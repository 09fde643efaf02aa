"""Owner-only modes for data the app derives from memory (search cache, archive stamps).

Derived data must be no wider than its source: the search cache holds every record's text. New
folders are made 0700 and files 0600; existing ones are *tightened* on open (group and other bits
removed, nothing ever widened), never through a symlink and only when we own them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def private_dir(path: Path) -> None:
    """Create ``path`` (and missing parents) owner-only; tighten it when it already exists."""
    path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    _tighten_one(path)


def _tighten_one(path: Path) -> os.stat_result | None:
    """Drop group/other bits of one file or folder (never a link); its stat, or None when skipped."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:  # a symlink (ELOOP), gone, or unreadable: left alone
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid == os.geteuid() and (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
            mode = stat.S_IMODE(st.st_mode)
            if mode & 0o077:
                os.fchmod(fd, mode & ~0o077)
        return st
    except OSError:
        return None
    finally:
        os.close(fd)


def tighten_tree(path: Path, max_entries: int = 10_000) -> None:
    """Make ``path`` and what is under it owner-only (bounded: a derived folder holds few files)."""
    st = _tighten_one(path)
    if st is None or not stat.S_ISDIR(st.st_mode):
        return
    stack, seen = [path], 0
    while stack and seen < max_entries:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if entry.is_symlink():
                continue
            child = Path(entry.path)
            child_st = _tighten_one(child)
            if child_st is not None and stat.S_ISDIR(child_st.st_mode):
                stack.append(child)
