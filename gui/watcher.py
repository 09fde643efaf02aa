"""Live refresh: a watchdog observer on the memory root, debounced on the GUI thread.

The watchdog thread only emits a Qt signal (queued to the GUI thread); a single-shot QTimer there
coalesces bursts of file events into one ``changed`` signal about a second after the last one,
preceded by ``scopes_changed`` with the workspace keys whose files were touched (the search index
looks at those folders' files, and trusts the others' folder stamps: issue 15).
The root itself is watched non-recursively and only the folders that hold memory recursively, so
the store's busy internal folder (``.manager/``: locks, journal, history) costs no inotify watches.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

if TYPE_CHECKING:
    from core.search import SearchIndex
from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

IGNORED_DIRS = (".manager",)
WATCHED_SUBDIRS = ("workspaces", "archived", "reviews")
# The two private folders under .manager/ whose changes the window shows (the "N pending" count):
# watched on their own, non-recursively, so the journal, locks and history still cost nothing.
PRIVATE_WATCHED = ("agent-proposals", "review-state")
# Only changes. Without a filter inotify also reports every open/close-without-write, so the store
# reading 10k records at startup fed ~20k events through the watchdog thread and held the GIL
# (the workspace list took 1.9 s instead of 0.6 s on the reference workload).
EVENT_FILTER: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    DirCreatedEvent,
    FileDeletedEvent,
    DirDeletedEvent,
    FileMovedEvent,
    DirMovedEvent,
    FileModifiedEvent,
    DirModifiedEvent,
    FileClosedEvent,
]


def scope_key_of(root: Path, path: str) -> str | None:
    """The workspace key of a path under ``workspaces/`` or ``archived/`` (None for anything else)."""
    try:
        parts = Path(os.path.relpath(path, root)).parts
    except ValueError:
        return None
    if len(parts) >= 2 and parts[0] in ("workspaces", "archived"):
        return parts[1]
    return None


def is_interesting(root: Path, path: str) -> bool:
    """False for our internal folder (locks, journal, history) and editor/atomic-write temp files."""
    try:
        rel = Path(os.path.relpath(path, root))
    except ValueError:
        return False
    parts = rel.parts
    if not parts or parts[0] == "..":
        return False
    if parts[0] in IGNORED_DIRS and not (len(parts) in (2, 3) and parts[1] in PRIVATE_WATCHED):
        return False
    name = parts[-1]
    return not (name.endswith(("~", ".swp", ".lock")) or name.startswith(".#"))


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: RootWatcher) -> None:
        super().__init__()
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [str(event.src_path)]
        dest = getattr(event, "dest_path", "")
        if dest:
            paths.append(str(dest))
        if event.is_directory and event.event_type in ("deleted", "moved"):
            self._watcher.forget_subdir(Path(str(event.src_path)))
        if event.is_directory and event.event_type in ("created", "moved"):
            for p in paths:
                self._watcher.watch_subdir(Path(p))  # e.g. workspaces/ appears after the first commit
            if any(Path(p).name in (*IGNORED_DIRS, *PRIVATE_WATCHED) for p in paths):
                self._watcher.watch_private()  # .manager/ or one of its watched folders appeared
        interesting = [p for p in paths if is_interesting(self._watcher.root, p)]
        if interesting:
            self._watcher.touch(interesting)
            self._watcher.raw_event.emit()  # crosses to the GUI thread (queued connection)


class RootWatcher(QObject):
    """Emits ``changed`` ~``debounce_ms`` after the last change under ``root`` (ignoring .manager/)."""

    raw_event = Signal()
    scopes_changed = Signal(object)  # set[str]: workspace keys touched since the last ``changed``
    changed = Signal()

    def __init__(
        self,
        root: Path,
        debounce_ms: int = 1000,
        parent: QObject | None = None,
        *,
        search: SearchIndex | None = None,
        on_changed: Callable[[], None] | None = None,
    ) -> None:
        """``search``: the index told which workspaces changed (``note_changed``, issue 15);
        ``on_changed``: connected to ``changed``."""
        super().__init__(parent)
        if search is not None:
            self.scopes_changed.connect(search.note_changed)
        if on_changed is not None:
            self.changed.connect(on_changed)
        self.root = Path(root)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._flush)
        self.raw_event.connect(self._timer.start)
        self._observer: Observer | None = None  # type: ignore[valid-type]
        self._handler: _Handler | None = None
        self._scheduled: set[str] = set()
        self._lock = threading.Lock()
        self._touched: set[str] = set()
        self.event_count = 0
        self.raw_event.connect(self._count)

    def touch(self, paths: list[str]) -> None:
        """Note the workspaces these paths belong to (called on the watchdog thread)."""
        keys = {k for p in paths if (k := scope_key_of(self.root, p)) is not None}
        if keys:
            with self._lock:
                self._touched |= keys

    def _flush(self) -> None:
        with self._lock:
            touched, self._touched = self._touched, set()
        self.scopes_changed.emit(touched)  # empty too: it says a watcher is reporting
        self.changed.emit()

    def poke(self) -> None:
        """Emit ``changed`` after the debounce, as if something had changed (GUI thread only)."""
        self._timer.start()

    def set_debounce_ms(self, ms: int) -> None:
        self._timer.setInterval(ms)

    def _count(self) -> None:
        self.event_count += 1

    @property
    def running(self) -> bool:
        return self._observer is not None

    def start(self) -> bool:
        """Start watching; False (and no thread) when the root does not exist yet."""
        if self._observer is not None:
            return True
        if not self.root.is_dir():
            return False
        observer = Observer()
        observer.daemon = True
        self._handler = _Handler(self)
        self._scheduled = set()
        observer.schedule(self._handler, str(self.root), recursive=False, event_filter=EVENT_FILTER)
        self._observer = observer
        for name in WATCHED_SUBDIRS:
            self.watch_subdir(self.root / name)
        observer.start()
        self.watch_private()
        return True

    def watch_private(self) -> None:
        """Watch ``.manager/agent-proposals`` and ``.manager/review-state`` once they exist.

        Called on start and again by the window after each status refresh: the folders are created
        by the first proposal or review, and ``.manager/`` itself is not watched.
        """
        observer = self._observer
        if observer is None:
            return
        # .manager/ itself non-recursively: only to learn when the two folders are created.
        for name in ("", *PRIVATE_WATCHED):
            path = self.root / IGNORED_DIRS[0] / name if name else self.root / IGNORED_DIRS[0]
            key = f"{IGNORED_DIRS[0]}/{name}"
            with self._lock:
                if key in self._scheduled or not path.is_dir() or path.is_symlink():
                    continue
                self._scheduled.add(key)
            try:
                observer.schedule(self._handler, str(path), recursive=False, event_filter=EVENT_FILTER)
            except OSError:
                with self._lock:
                    self._scheduled.discard(key)

    def watch_subdir(self, path: Path) -> None:
        """Watch ``root/<name>`` recursively once it exists (called from either thread)."""
        observer = self._observer
        if observer is None or path.parent != self.root or path.name not in WATCHED_SUBDIRS:
            return
        with self._lock:
            if path.name in self._scheduled or not path.is_dir():
                return
            self._scheduled.add(path.name)
        try:
            observer.schedule(self._handler, str(path), recursive=True, event_filter=EVENT_FILTER)
        except OSError:  # vanished again, or out of inotify watches: the root watch still sees it
            with self._lock:
                self._scheduled.discard(path.name)

    def forget_subdir(self, path: Path) -> None:
        manager = self.root / IGNORED_DIRS[0]
        with self._lock:
            if path.parent == self.root:
                self._scheduled.discard(path.name)
            if path == manager:
                self._scheduled -= {k for k in self._scheduled if k.startswith(f"{IGNORED_DIRS[0]}/")}
            elif path.parent == manager:
                self._scheduled.discard(f"{IGNORED_DIRS[0]}/{path.name}")

    def stop(self) -> None:
        self._timer.stop()
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)
