"""File ▸ Open memory root / Open the demo root / Recent roots: open another root in a new window.

Opening a root reads its settings, builds its store and search index and (for the demo) may
write the demo files: all of that runs on a worker (:func:`open_root`), and the window only
builds the new window from the result. The old window is closed once the new one shows; unsaved
edits are settled before anything starts (see ``MainWindow.switch_root``).

Every root opened is remembered first in the per-user recent list (``core.user_prefs``), never in
a memory root.
"""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.store.api import MemoryStore
from core.user_prefs import load_prefs, save_prefs
from gui.root_caches import RootCaches


@dataclass(frozen=True)
class OpenedRoot:
    """What a worker prepared for a window on ``root``."""

    root: Path
    store: MemoryStore
    sessions_root: Path
    search: Any  # core.search.SearchIndex, or None when the old window had no search


def remember_root(root: Path) -> None:
    """Put ``root`` first in File ▸ Recent roots (a preference; failing to write it is harmless)."""
    with contextlib.suppress(OSError):  # a read-only config dir must not keep a root from opening
        save_prefs(load_prefs().with_recent_root(root))


def remembered_workspace(root: Path) -> str | None:
    """The workspace the Session Consolidation tab last showed on ``root`` (a per-user preference)."""
    return load_prefs().consolidation_workspace(root)


def remember_workspace(root: Path, key: str | None) -> None:
    """Remember the Session Consolidation tab's workspace on ``root`` for the next start."""
    with contextlib.suppress(OSError):
        prefs = load_prefs()
        if prefs.consolidation_workspace(root) != key:
            save_prefs(prefs.with_consolidation_workspace(root, key))


def display_path(path: Path | str) -> str:
    """``path`` as a user reads it: under the home folder as ``~/…``."""
    path = Path(path)
    home = Path.home()
    if path != home and path.is_relative_to(home):
        return f"~/{path.relative_to(home)}"
    return str(path)


def recent_roots(current: Path) -> list[str]:
    """The remembered roots other than ``current`` (most recent first)."""
    return [r for r in load_prefs().recent_roots if Path(r) != Path(current)]


def open_root(root: Path | None, *, with_search: bool, caches: RootCaches | None = None) -> OpenedRoot:
    """Prepare ``root`` (None: the demo root, built when missing). Runs on a worker. ``caches``: the
    parse caches of recently opened roots, so a root opened before reopens warm."""
    from gui.app import ensure_demo_root, open_store, sessions_root_from_settings

    if root is None:
        root = ensure_demo_root()
    root = Path(os.path.abspath(os.path.expanduser(root)))
    if root.exists() and not root.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(root))
    store = open_store(root, caches)
    search = None
    if with_search:
        from core.search import SearchIndex

        search = SearchIndex(store)
    opened = OpenedRoot(root=root, store=store, sessions_root=sessions_root_from_settings(store), search=search)
    remember_root(root)
    return opened


def is_demo_root(root: Path) -> bool:
    from gui.app import demo_root_dir

    try:
        return Path(root) == demo_root_dir()
    except OSError:
        return False
