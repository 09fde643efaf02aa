"""The small base class every tab is built on: its context, its jobs and the tab protocol.

The main window calls these methods on every tab (no ``hasattr`` probing); a tab overrides the
ones it needs. Constructors never load: the window calls :meth:`Tab.refresh` once after building
a tab, then on every change on disk (watcher) and on F5.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from gui.context import AppContext
from gui.tasks import Jobs


class Tab(QWidget):
    # Emitted by a tab after it wrote memory (archive, purge, restore, commit, save): the window
    # updates the status line's counts at once instead of waiting for the file watcher.
    memory_changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.jobs = Jobs(self, ctx.runner)
        self.read_only = False  # the memory root is read-only (set by the window from its status)

    def refresh(self) -> None:
        """Reload from the store off the GUI thread; keep the selection, never overwrite unsaved edits."""

    def has_unsaved_changes(self) -> bool:
        """True while closing would lose work."""
        return False

    def save(self) -> None:
        """Ctrl+S."""

    def focus_search(self) -> bool:
        """Ctrl+F: focus the tab's search or filter box; False when the tab has none."""
        return False

    def warm_up(self) -> None:
        """Start-up is done (first status line shown): start slow one-off preparations on the runner."""

    def tab_title(self) -> str | None:
        """The title in the tab bar (None: the default name)."""
        return None

    def error_text(self) -> str | None:
        """The error the tab shows right now (None when none); read by the self-test."""
        return None

    def set_read_only(self, read_only: bool) -> None:
        """The root is (or is no longer) read-only: writing widgets (``mark_writes``) are turned off."""
        from gui.widgets.read_only import set_read_only

        self.read_only = read_only
        set_read_only(self, read_only)

    def shutdown(self) -> None:
        """The window is closing: drop pending work (results that still arrive are not delivered)."""
        self.jobs.cancel_all()
