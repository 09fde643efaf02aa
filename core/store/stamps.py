"""Stamps of a root's scopes for caches of derived data: ``store.inspect.stamps``.

A cache (the search index) compares these with what it stored to skip reading a scope again, without
walking the root itself: the folder names stay the store's (``core/layout.py``). Imports nothing
heavy (no pydantic, no store): a one-shot search over an up-to-date persisted index asks these of a
root whose store it never opens (``core/cli/search_commands.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from core.fingerprint import file_fingerprint, is_racy, scope_fingerprint
from core.layout import ARCHIVED_DIR, GLOBAL_FILE, WORKSPACES_DIR

MAX_KEY_LENGTH = 120


def is_key_name(key: str) -> bool:
    """A workspace key as a single safe path component (no traversal, no journal separator)."""
    return not (
        not key
        or key in (".", "..")
        or "/" in key
        or "\\" in key
        or "\0" in key
        or "+" in key
        or key.startswith(".")
        or len(key) > MAX_KEY_LENGTH
    )


def scope_folders(root: Path, archived: bool) -> list[str]:
    """The scope folder names under ``workspaces/`` (or ``archived/``), sorted: one listing."""
    try:
        with os.scandir(root / (ARCHIVED_DIR if archived else WORKSPACES_DIR)) as it:
            return sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
    except OSError:
        return []


class ScopeStamps:
    """Cheap, trust-or-read answers about a root's scopes. ``root`` None (the in-memory store): no
    stamps (never trusted, always read); ``keys`` then lists the scopes."""

    def __init__(self, root: Path | None, keys: Callable[[bool], list[str]] | None = None) -> None:
        self._root = root
        self._keys = keys

    def scope_keys(self, *, archived: bool = False) -> list[str]:
        """The keys of the active (or archived) scopes: one listing, nothing parsed."""
        if self._keys is not None:
            return self._keys(archived)
        return [] if self._root is None else scope_folders(self._root, archived)

    def scope_stamp(self, key: str, *, archived: bool = False, now_ns: int) -> tuple[int, int] | None:
        """(mtime_ns, inode) of the scope's folder: a first check (a record rewritten in place keeps
        it, so a cache also compares :meth:`fingerprint`). None when missing, not on disk, or touched
        within the racy window of ``now_ns`` (``core.fingerprint``)."""
        folder = self._folder(key, archived)
        try:
            st = os.stat(folder) if folder is not None else None
        except OSError:
            return None
        return None if st is None or is_racy(st, now_ns) else (st.st_mtime_ns, st.st_ino)

    def fingerprint(self, key: str | None, *, archived: bool = False, now_ns: int) -> str | None:
        """Digest of the stat of every record file of scope ``key`` (None: of GLOBAL.md); None when
        it can't be trusted (missing, a link, a file touched within the racy window, in memory)."""
        if key is None:
            return None if self._root is None else file_fingerprint(self._root / GLOBAL_FILE, now_ns)
        folder = self._folder(key, archived)
        return None if folder is None else scope_fingerprint(folder, now_ns)

    def global_mtime(self) -> int:
        """GLOBAL.md's mtime in ns (0: absent or in memory): the recency of its sections."""
        try:
            return 0 if self._root is None else (self._root / GLOBAL_FILE).stat().st_mtime_ns
        except OSError:
            return 0

    def _folder(self, key: str, archived: bool) -> str | None:
        if self._root is None or not is_key_name(key):  # (a folder no key names: scan() says so)
            return None
        # (a str: a refresh asks for every scope's, and two Path joins cost 3x the stat itself)
        return os.path.join(self._root, ARCHIVED_DIR if archived else WORKSPACES_DIR, key)
