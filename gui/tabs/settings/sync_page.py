"""Settings ▸ Sync: the git remote, Sync now, the last result, and the sync review when records
changed on two machines. Every sync and every choice runs on the runner; nothing here blocks."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import CancelledError
from core.store.api import MemoryStore
from core.sync import engine
from core.sync.models import PendingReview, SyncResult, SyncSummary
from gui.context import AppContext
from gui.core_text import core_text
from gui.tabs.settings.sync_review_page import SyncReviewPage
from gui.tabs.settings.sync_text import result_details, status_text
from gui.tasks import JobControl, Jobs
from gui.widgets.messages import describe_error
from gui.widgets.read_only import mark_writes


def _load(root: Path) -> tuple[SyncSummary, PendingReview | None]:
    return engine.summary(root), engine.pending_review(root)


def _sync(store: MemoryStore, remote: str | None, *, control: JobControl) -> SyncResult:
    return engine.run_sync(store, remote, cancelled=lambda: control.token.cancelled)


class SyncPanel(QGroupBox):
    """The Sync section of Settings."""

    synced = Signal(object)  # SyncResult, after each run (the window refreshes what changed)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("syncPanel")
        self.setTitle(self.tr("Sync"))
        self.ctx = ctx
        self.jobs = Jobs(self, ctx.runner)
        self.review: PendingReview | None = None
        intro = QLabel(
            self.tr(
                "Keep this memory in step with your other machines through any git remote: a bare repository "
                "on a server, a private hosted repository or a folder on a USB disk. Only GLOBAL.md, "
                "workspaces, the Recycle Bin and receipts travel; settings and this app's internals stay here."
            )
        )
        intro.setWordWrap(True)
        self.remote_edit = QLineEdit()
        self.remote_edit.setObjectName("syncRemote")
        self.remote_edit.setPlaceholderText(self.tr("git@github.com:me/dsh-memory.git or /media/usb/memory.git"))
        self.sync_button = QPushButton(self.tr("Sync now"))
        self.sync_button.setObjectName("syncNow")
        mark_writes(self.sync_button)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("syncCancel")
        self.cancel_button.setVisible(False)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Remote:")))
        row.addWidget(self.remote_edit, 1)
        row.addWidget(self.sync_button)
        row.addWidget(self.cancel_button)
        self.status = QLabel(self.tr("Not synced yet."))
        self.status.setObjectName("syncStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(90)
        self.details.setVisible(False)
        self.review_box = QGroupBox(self.tr("Sync review: changed on both machines"))
        self.review_page = SyncReviewPage(ctx)
        self.merge = self.review_page.merge
        QVBoxLayout(self.review_box).addWidget(self.review_page)
        self.review_box.setVisible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.details)
        layout.addWidget(self.review_box)
        self.sync_button.clicked.connect(self.sync_now)
        self.cancel_button.clicked.connect(self.cancel)
        self.review_page.chosen.connect(lambda: self.synced.emit(None))  # memory changed here

    # --- loading ---------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.jobs.start("load", _load, Path(self.ctx.root), done=self._apply, failed=self._failed)

    def _apply(self, loaded: tuple[SyncSummary, PendingReview | None]) -> None:
        summary, review = loaded
        if summary.remote and not self.remote_edit.text():
            self.remote_edit.setText(summary.remote)
        self.status.setText(status_text(summary.last, summary.open_items, bool(summary.remote)))
        details = result_details(summary.last) if summary.last else ""
        self.details.setPlainText(details)
        self.details.setVisible(bool(details))
        self._show_review(review)

    def _show_review(self, review: PendingReview | None) -> None:
        self.review = review
        self.review_box.setVisible(review is not None)
        self.review_page.show_review(review)

    def _failed(self, exc: BaseException) -> None:
        self.status.setText(self.tr("Sync could not run: {why}").format(why=core_text(describe_error(exc))))

    # --- actions ---------------------------------------------------------------------------------
    def _running(self, running: bool) -> None:
        self.sync_button.setEnabled(not running)
        self.cancel_button.setVisible(running)
        self.cancel_button.setEnabled(running)

    def sync_now(self) -> None:
        remote = self.remote_edit.text().strip() or None
        self._running(True)
        self.status.setText(self.tr("Syncing…"))

        def done(result: SyncResult) -> None:
            self._running(False)
            self.synced.emit(result)
            self.refresh()

        def failed(exc: BaseException) -> None:
            self._running(False)
            if isinstance(exc, CancelledError):
                self.status.setText(self.tr("Sync cancelled. Memory is whole; the next sync goes on from here."))
                self.synced.emit(None)  # what was merged before the cancel is on disk
                return
            self._failed(exc)

        self.jobs.start("sync", _sync, self.ctx.store, remote, done=done, failed=failed, cancellable=True)

    def cancel(self) -> None:
        """Stop at the next step boundary (each one leaves memory whole); the job reports CancelledError."""
        job = self.jobs.current("sync")
        if job is not None:
            self.cancel_button.setEnabled(False)
            self.status.setText(self.tr("Cancelling…"))
            job.cancel()
