"""The status bar's sync badge: hidden until sync is set up, then "Sync: ✓", "Sync: 2 to review" or a
warning; a click opens Settings (where the Sync section is). Reads two small files on a worker."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QPushButton, QWidget

from core.sync import engine
from core.sync.models import SyncSummary
from gui.context import AppContext
from gui.tabs.settings.sync_text import badge_text, badge_tooltip
from gui.tasks import Jobs

if TYPE_CHECKING:
    from gui.main_window import MainWindow

POLL_MS = 15_000  # another process (the CLI) may sync: look again now and then, cheaply


class SyncBadge(QPushButton):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("syncBadge")
        self.setFlat(True)
        self.setStyleSheet("padding: 0 6px;")
        self.setToolTip(badge_tooltip())
        self.ctx = ctx
        self.jobs = Jobs(self, ctx.runner)
        self.hide()
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.refresh)

    def start(self) -> None:
        self.refresh()
        self.timer.start()

    def refresh(self) -> None:
        self.jobs.start("load", engine.summary, Path(self.ctx.root), done=self.show_summary, failed=lambda _e: None)

    def show_summary(self, summary: SyncSummary) -> None:
        text = badge_text(summary.last.status if summary.last else None, summary.open_items, bool(summary.remote))
        self.setText(text)
        self.setVisible(bool(text))
        warn = summary.open_items or (summary.last is not None and not summary.last.ok)
        self.setStyleSheet("padding: 0 6px;" + (" color:#a12a1c;" if warn else ""))


def install(window: MainWindow) -> SyncBadge:
    """The badge in ``window``'s status line, started; a click opens Settings (where Sync is)."""
    badge = SyncBadge(window.ctx, window.status_bar)
    window.status_bar.addPermanentWidget(badge)
    badge.clicked.connect(lambda: window.show_tab("settings"))
    badge.start()
    return badge
