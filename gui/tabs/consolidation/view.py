"""The Session Consolidation tab: pick a DSH session, run a consolidator, review each change, commit.

Workspace picker → sessions table → Run (worker, progress, Cancel) → review (one row per change,
unified or side-by-side diff, accept/reject, edit a proposed record) → Commit selected (worker,
compare-and-swap; a conflict re-checks the proposal against fresh memory) → receipt. The listing
and the review's decisions are :mod:`core.consolidation.review_state`; every pipeline step runs on
the runner under one job key, one at a time, so the pipeline is never used from two threads at once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from core.consolidation.proposals import Receipt, Review, ReviewChange
from core.consolidation.review_state import (
    ConsolidatorKind,
    Listing,
    Pipeline,
    SessionRow,
    commit_request,
    has_decisions,
    read_listing,
)
from core.errors import CancelledError
from core.models import Record
from gui.context import AppContext
from gui.tabs.base import Tab
from gui.tabs.consolidation.review_panel import ReviewPanel
from gui.tabs.consolidation.sessions_panel import MODEL, OFFLINE, UNASSIGNED_HINT, SessionsPanel
from gui.tasks import JobControl
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error


def _run(pipeline: Pipeline, summary: Any, kind: ConsolidatorKind, force: bool, *, control: JobControl) -> Review:
    return pipeline.run(summary, kind, force, lambda: control.token.cancelled, control.report)


class ConsolidationTab(Tab):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.pipeline = Pipeline(ctx.store, Path(ctx.sessions_root), Path(ctx.dsh_home))
        self.last_receipt: Receipt | None = None
        self._job: str | None = None
        self._refresh_pending = False
        self._selected_key: str | None = None
        self._consolidator_touched = False
        self._build()

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.banner = Banner()
        self.sessions = SessionsPanel()
        self.review_panel = ReviewPanel()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.sessions)
        splitter.addWidget(self.review_panel)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([520, 760])
        splitter.setChildrenCollapsible(False)
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)

        # The widgets tests and the screenshot script drive, by their old names.
        s, r = self.sessions, self.review_panel
        self.workspace_model, self.workspace_box, self.filter_edit = s.workspace_model, s.workspace_box, s.filter_edit
        self.session_model, self.session_proxy, self.sessions_view = s.session_model, s.session_proxy, s.sessions_view
        self.empty_label, self.consolidator_box = s.empty_label, s.consolidator_box
        self.run_button, self.cancel_button = s.run_button, s.cancel_button
        self.progress, self.status_label = s.progress, s.status_label
        self.right_tabs = r
        self.review_title, self.review_summary = r.review_title, r.review_summary
        self.changes_model, self.changes_view = r.changes_model, r.changes_view
        self.diff_panel, self.editor, self.detail_tabs = r.diff_panel, r.editor, r.detail_tabs
        self.accept_all_button, self.reject_all_button = r.accept_all_button, r.reject_all_button
        self.commit_button, self.selection_label = r.commit_button, r.selection_label
        self.receipt_model, self.receipts_view, self.receipt_view = r.receipt_model, r.receipts_view, r.receipt_view

        # Wiring.
        self.workspace_box.activated.connect(self._workspace_chosen)
        self.filter_edit.textChanged.connect(self.session_proxy.set_filter_text)
        self.sessions_view.selectionModel().selectionChanged.connect(lambda *_: self._update_controls())
        self.sessions_view.doubleClicked.connect(lambda _i: self.run_selected())
        self.run_button.clicked.connect(lambda: self.run_selected())
        self.consolidator_box.activated.connect(self._mark_consolidator_touched)
        self.cancel_button.clicked.connect(self.cancel)
        self.changes_view.selectionModel().currentRowChanged.connect(lambda *_: r.show_current_change())
        self.changes_model.dataChanged.connect(lambda *_: self._update_controls())
        self.changes_model.modelReset.connect(self._update_controls)
        toggle = QShortcut(QKeySequence(Qt.Key.Key_Space), self.changes_view)
        toggle.setContext(Qt.ShortcutContext.WidgetShortcut)
        toggle.activated.connect(r.toggle_current)
        self.accept_all_button.clicked.connect(lambda: r.set_all(True))
        self.reject_all_button.clicked.connect(lambda: r.set_all(False))
        self.commit_button.clicked.connect(self.commit_selected)
        self.editor.applied.connect(self._apply_edit)
        self.editor.reverted.connect(self._revert_edit)
        self.receipts_view.selectionModel().currentRowChanged.connect(lambda *_: r.show_current_receipt())
        self.diff_panel.clear()
        self.sessions.set_idle("")
        self._update_controls()

    # --- the tab protocol ----------------------------------------------------------------------
    def tab_title(self) -> str:
        return "Session Consolidation"

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None

    def has_unsaved_changes(self) -> bool:
        """An open review with decisions or edits would be lost (the proposal itself stays in reviews/)."""
        return self.review is not None and has_decisions(self.changes_model.change_rows())

    @property
    def review(self) -> Review | None:
        return self.review_panel.review

    @property
    def busy(self) -> str | None:
        """The running job ("refresh", "run", "commit", "edit", "recheck") or None."""
        return self._job

    # --- jobs ----------------------------------------------------------------------------------
    def _start(
        self,
        kind: str,
        fn: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], None],
        failed: Callable[[BaseException], None],
        cancellable: bool = False,
    ) -> None:
        """Run one pipeline step; one at a time (the pipeline is never used from two threads)."""
        self._job = kind

        def finished(result: Any) -> None:
            self._job = None
            done(result)
            self._after_job()

        def errored(exc: BaseException) -> None:
            self._job = None
            failed(exc)
            self._after_job()

        self._update_controls()
        self.jobs.start(
            "pipeline",
            fn,
            *args,
            done=finished,
            failed=errored,
            progress=self.sessions.show_progress if cancellable else None,
            cancellable=cancellable,
        )

    def _after_job(self) -> None:
        self._update_controls()
        if self._refresh_pending and self._job is None:
            self._refresh_pending = False
            self.refresh()

    # --- refresh: workspaces, sessions, receipts -----------------------------------------------
    def refresh(self) -> None:
        if self._job is not None:
            self._refresh_pending = True
            return
        self._load(self._selected_key)

    def _workspace_chosen(self, row: int) -> None:
        if 0 <= row < self.workspace_model.rowCount():
            self._selected_key = self.workspace_model.choice(row).key
            if self._job is None:
                self._load(self._selected_key)
            else:
                self._refresh_pending = True

    def _load(self, wanted_key: str | None) -> None:
        explicit = self.workspace_model.rowCount() > 0  # None means Unassigned once a list is shown
        self._start(
            "refresh",
            read_listing,
            self.pipeline,
            wanted_key,
            explicit,
            done=self._show_listing,
            failed=self._listing_failed,
        )

    def _show_listing(self, listing: Listing) -> None:
        self._selected_key = listing.selected_key
        self.sessions.show_listing(listing)
        self.review_panel.set_receipts(listing.receipts, listing.receipt_texts)
        # Consolidator choices: the model entry names the configured model (or why it can't run).
        current = self.consolidator_box.currentData() if self.consolidator_box.count() else None
        self.consolidator_box.setItemText(1, listing.model_label)
        self.consolidator_box.setItemData(
            1, listing.model_problem or "Runs the configured chat model", Qt.ItemDataRole.ToolTipRole
        )
        if current is None or not self._consolidator_touched:
            self.consolidator_box.setCurrentIndex(1 if listing.settings_consolidator == MODEL else 0)
        if listing.settings_problem and not self.banner.text:
            self.banner.show_message("warning", listing.settings_problem)
        else:
            self.banner.clear(topic="listing")

    def _mark_consolidator_touched(self, _row: int) -> None:
        self._consolidator_touched = True

    def _listing_failed(self, exc: BaseException) -> None:
        self.banner.show_message("error", f"Could not list DSH sessions: {describe_error(exc)}", topic="listing")

    # --- selection helpers ---------------------------------------------------------------------
    def selected_session(self) -> SessionRow | None:
        return self.sessions.selected_session()

    def select_session(self, session_id: str) -> bool:
        return self.sessions.select_session(session_id)

    def choose_workspace(self, key: str | None) -> None:
        """Show the sessions of workspace ``key`` (None: Unassigned)."""
        row = self.workspace_model.row_of(key)
        if row >= 0:
            self.workspace_box.setCurrentIndex(row)
            self._workspace_chosen(row)

    def set_consolidator(self, kind: str) -> None:
        self.consolidator_box.setCurrentIndex(0 if kind == OFFLINE else 1)
        self._consolidator_touched = True

    # --- run ------------------------------------------------------------------------------------
    def run_selected(self, *, force: bool = False) -> None:
        row = self.selected_session()
        if row is None or self._job is not None:
            return
        if row.summary.cwd is None:
            self.banner.show_message("info", UNASSIGNED_HINT)
            return
        if not row.stable:
            self.banner.show_message(
                "info",
                f"“{row.summary.title}” is still live ({row.state_reason}). Try again when it is quiet.",
            )
            return
        kind: ConsolidatorKind = "model" if self.consolidator_box.currentData() == MODEL else "offline"
        self.banner.clear()
        self.sessions.set_running(f"Running the {'offline extractor' if kind == OFFLINE else 'model'}…")
        self._start(
            "run",
            _run,
            self.pipeline,
            row.summary,
            kind,
            force,
            done=self._run_done,
            failed=self._run_failed,
            cancellable=True,
        )

    def cancel(self) -> None:
        job = self.jobs.current("pipeline")
        if job is not None and self._job == "run":
            job.cancel()
            self.status_label.setText("Cancelling… (nothing will be written)")
            self.cancel_button.setEnabled(False)

    def _run_done(self, review: Review) -> None:
        self.sessions.set_idle("")
        self.session_model.set_last_status(review.session_id, review.receipt.status)
        if review.reused:
            self.show_review(None)
            self.banner.show_message(
                "info",
                f"This session was already reviewed with this consolidator ({review.receipt.status}); "
                "here is its receipt. Nothing was run again.",
                [("Run again anyway", lambda: self.run_selected(force=True))],
            )
            self._remember_receipt(review.receipt)
            self.show_receipt(review.review_id)
            return
        self.show_review(review)
        if not review.actionable:
            self.banner.show_message(
                "info", "The consolidator found nothing new to remember in this session (no change)."
            )
        self._remember_receipt(review.receipt)

    def _run_failed(self, exc: BaseException) -> None:
        if isinstance(exc, CancelledError):
            self.sessions.set_idle("Cancelled. Nothing was written.")
            return
        self.sessions.set_idle("")
        self.banner.show_message("error", f"Consolidation failed: {describe_error(exc)}")

    # --- review ---------------------------------------------------------------------------------
    def show_review(self, review: Review | None) -> None:
        self.review_panel.show_review(review)

    def set_accepted(self, change_id: str, accepted: bool) -> bool:
        return self.changes_model.set_accepted(self.changes_model.row_of(change_id), accepted)

    def _set_all(self, accepted: bool) -> None:
        self.review_panel.set_all(accepted)

    def _apply_edit(self, record: Record) -> None:
        row = self.review_panel.current_change_row()
        review = self.review
        if row < 0 or review is None or self._job is not None:
            return
        cid = self.changes_model.change_row(row).change.id

        def done(change: ReviewChange) -> None:
            r = self.changes_model.row_of(cid)
            if r >= 0 and self.review is review:
                self.changes_model.set_edit(r, change)
                self.changes_model.set_accepted(r, change.is_actionable)
                self.review_panel.show_current_change()
                self.banner.show_message("info", f"Edited {change.target}; it is accepted as edited.")

        self._start("edit", self.pipeline.edit, review, cid, record, done=done, failed=self._show_error)

    def _revert_edit(self) -> None:
        row = self.review_panel.current_change_row()
        if row >= 0:
            self.changes_model.set_edit(row, None)
            self.review_panel.show_current_change()

    # --- commit ----------------------------------------------------------------------------------
    def commit_selected(self) -> None:
        review = self.review
        if review is None or self._job is not None:
            return
        request = commit_request(self.changes_model.change_rows())
        if not request.change_ids and not self.ctx.dialogs.confirm(
            self,
            "Reject every change?",
            "No change is selected. Record this review as rejected? Nothing is written to memory.",
            "Reject all",
        ):
            return
        if request.touches_global and not self.ctx.dialogs.confirm(
            self,
            "Change GLOBAL.md?",
            "You accepted a change to GLOBAL.md, which every workspace loads. "
            "Commit it only if it is about you in general, not about this project.",
            "Change GLOBAL.md",
        ):
            return
        self.status_label.setText("Committing…")
        self._start(
            "commit",
            self.pipeline.commit,
            review,
            request,
            request.touches_global,  # confirmed just above
            done=self._commit_done,
            failed=self._commit_failed,
        )

    def _commit_done(self, receipt: Receipt) -> None:
        self.status_label.setText("")
        self._remember_receipt(receipt)
        self.session_model.set_last_status(receipt.session_id, receipt.status)
        if receipt.status == "conflict":
            self._recheck_after_conflict()
            return
        self.last_receipt = receipt
        self.show_review(None)
        words = {
            "committed": "Committed",
            "partially-committed": "Committed part of the proposal",
            "rejected": "Rejected every change; nothing was written",
            "no-change": "Nothing to write",
        }
        self.banner.show_message(
            "ok",
            f"{words.get(receipt.status, receipt.status)} — {receipt.summary}. Receipt {receipt.review_id}.",
        )
        self.show_receipt(receipt.review_id)
        self._refresh_pending = True

    def _commit_failed(self, exc: BaseException) -> None:
        self.status_label.setText("")
        self.banner.show_message("error", f"Nothing was committed: {describe_error(exc)}")

    def _recheck_after_conflict(self) -> None:
        review = self.review
        if review is None:
            return

        def done(fresh: Review) -> None:
            self.show_review(fresh)
            self.banner.show_message(
                "warning",
                "Memory changed while you were reviewing (an agent, the CLI or another window wrote to it). "
                "Nothing was written. The proposal has been checked again against the current memory: "
                "review the diffs and accept again.",
            )

        self._start("recheck", self.pipeline.recheck, review, done=done, failed=self._show_error)

    def _show_error(self, exc: BaseException) -> None:
        self.banner.show_message("error", describe_error(exc))

    # --- receipts --------------------------------------------------------------------------------
    def _remember_receipt(self, receipt: Receipt) -> None:
        row = self.session_model.row_of(receipt.session_id)
        title = self.session_model.session_row(row).summary.title if row >= 0 else ""
        self.review_panel.remember_receipt(receipt, title)

    def show_receipt(self, review_id: str, *, switch: bool = True) -> bool:
        return self.review_panel.show_receipt(review_id, switch=switch)

    def receipt_text(self) -> str:
        return self.receipt_view.toPlainText()

    # --- controls --------------------------------------------------------------------------------
    def _update_controls(self) -> None:
        self.sessions.update_controls(self._job)
        self.review_panel.update_controls(self._job is not None)
