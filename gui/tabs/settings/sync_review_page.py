"""The sync review as a page: records (or GLOBAL.md) changed on this machine and on another since the
last sync, side by side (this machine / other machine / last synced), keep either or edit. Shown in
Settings ▸ Sync and as a tab of Session Consolidation; each choice is written through the store on a
worker (``core.sync.engine.resolve``), and the next sync commits the merge and sends it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.store.api import MemoryStore
from core.sync import engine
from core.sync.models import PendingReview
from core.sync.review import Resolution
from gui.context import AppContext
from gui.core_text import core_text
from gui.tasks import Jobs
from gui.widgets.messages import describe_error
from gui.widgets.review_merge import MergeReview


def _resolve(store: MemoryStore, item_id: str, res: Resolution) -> PendingReview:
    return engine.resolve(store, item_id, res)


class SyncReviewPage(QWidget):
    """``chosen`` fires after a choice was written (memory changed here)."""

    chosen = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("syncReviewPage")
        self.ctx = ctx
        self.jobs = Jobs(self, ctx.runner)
        self.review: PendingReview | None = None
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.merge = MergeReview(
            {
                "mine": self.tr("This machine"),
                "theirs": self.tr("Other machine"),
                "base": self.tr("Last synced"),
                "keep": self.tr("Keep this machine's"),
                "take": self.tr("Take the other machine's"),
            }
        )
        self.merge.setMinimumHeight(320)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.merge, 1)
        self.merge.chosen.connect(self.choose)
        self.show_review(None)

    def refresh(self) -> None:
        self.jobs.start("load", engine.pending_review, Path(self.ctx.root), done=self.show_review, failed=self._failed)

    def show_review(self, review: PendingReview | None) -> None:
        self.review = review
        self.merge.setVisible(review is not None)
        if review is None:
            self.merge.set_items([])
            self.note.setText(self.tr("No sync review is waiting: nothing changed on two machines at once."))
            return
        self.merge.set_items(review.items, review.resolutions)
        n = len(review.open_items())
        self.note.setText(
            self.tr("Choose a version for each record (%n left). Nothing is sent until every one is chosen.", "", n)
            if n
            else self.tr("Every record is chosen. Sync now to commit the merge and send it.")
        )

    def open_count(self) -> int:
        return len(self.review.open_items()) if self.review else 0

    def choose(self, item_id: str, res: Resolution) -> None:
        def done(review: PendingReview) -> None:
            self.show_review(review)
            self.chosen.emit()

        self.jobs.start("resolve", _resolve, self.ctx.store, item_id, res, done=done, failed=self._failed)

    def _failed(self, exc: BaseException) -> None:
        self.note.setText(self.tr("Could not save the choice: {why}").format(why=core_text(describe_error(exc))))
