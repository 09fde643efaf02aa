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

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from core.consolidation.agent_proposals import AgentProposals
from core.consolidation.proposals import Receipt, Review
from core.consolidation.review_sources import PendingListing, ReviewHandler, ReviewSource, read_pending
from core.consolidation.review_state import (
    ConsolidatorKind,
    Listing,
    Pipeline,
    SessionRow,
    has_decisions,
    read_listing,
)
from core.errors import CancelledError
from core.sessions.stability import LiveSessionProtection, live_session_protection
from gui.context import AppContext
from gui.core_text import core_text
from gui.root_switch import remember_workspace, remembered_workspace
from gui.tabs.base import Tab
from gui.tabs.consolidation.batch_actions import BatchActions
from gui.tabs.consolidation.choice_actions import ConsolidatorChoice, EditActions
from gui.tabs.consolidation.commit_actions import CommitActions
from gui.tabs.consolidation.import_actions import ImportActions
from gui.tabs.consolidation.pending_actions import PendingActions
from gui.tabs.consolidation.pending_panel import PendingPanel, SourceFilter
from gui.tabs.consolidation.relation_actions import RelationActions
from gui.tabs.consolidation.review_panel import ReviewPanel
from gui.tabs.consolidation.sessions_panel import MODEL, OFFLINE, SessionsPanel, unassigned_hint
from gui.tasks import JobControl
from gui.widgets.messages import describe_error
from gui.widgets.review_banner import ReviewBanner
from gui.widgets.review_receipt import status_label


def _run(pipeline: Pipeline, summary: Any, kind: ConsolidatorKind, force: bool, *, control: JobControl) -> Review:
    return pipeline.run(summary, kind, force, lambda: control.token.cancelled, control.report)


Refreshed = tuple[Listing, PendingListing, AgentProposals, LiveSessionProtection]


def _refresh_all(pipeline: Pipeline, wanted_key: str | None, explicit: bool) -> Refreshed:
    """One refresh on the worker: the sessions listing, then what waits for review in every source."""
    listing = read_listing(pipeline, wanted_key, explicit)
    settings = pipeline.service.settings
    proposals = AgentProposals(pipeline.store, settings)
    protection = live_session_protection(settings.quiet_period_seconds)
    return listing, read_pending(pipeline.service, proposals), proposals, protection


class ConsolidationTab(Tab):
    """``record_requested(workspace_key, name)``: open a record a receipt touched (main window)."""

    record_requested = Signal(str, str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.pipeline = Pipeline(ctx.store, Path(ctx.sessions_root), Path(ctx.dsh_home))
        self._job: str | None = None
        self._refresh_pending = False
        self._selected_key: str | None = remembered_workspace(ctx.root)  # where the last run left off
        self._wanted_receipt: str | None = None
        self.session_handler = ReviewHandler(lambda: self.pipeline.service)
        self.handler: ReviewHandler = self.session_handler  # who settles the review shown
        self.proposals: AgentProposals | None = None  # the instance the pending agent rows came from
        # The action helpers see this tab through their own narrow Protocols (gui.tabs.consolidation.host);
        # the second argument is the parent of the dialogs they open.
        self.pending_actions = PendingActions(self, self)
        self.batch = BatchActions(self)
        self.imports = ImportActions(self, self)
        self.choice = ConsolidatorChoice(self)
        self.edits = EditActions(self)
        self.commits = CommitActions(self, self)
        self._build()
        self.relations = RelationActions(self, self)

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.banner = ReviewBanner()
        self.source_filter = SourceFilter()
        self.sessions = SessionsPanel()
        self.pending = PendingPanel()
        self.lock_note = QLabel()
        self.lock_note.setObjectName("lockNote")
        self.lock_note.setWordWrap(True)
        self.lock_note.setStyleSheet("color: #7a5200;")
        self.lock_note.hide()
        self.review_panel = ReviewPanel()
        from gui.tabs.settings.sync_review_page import SyncReviewPage  # issue 28: the sync review, here too

        self.sync_review = SyncReviewPage(self.ctx)
        self.review_panel.addTab(self.sync_review, self.tr("Sync review"))
        self.sync_review.chosen.connect(self.memory_changed.emit)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        source_row = QHBoxLayout()
        source_row.addWidget(QLabel(self.tr("Show")))
        source_row.addWidget(self.source_filter, 1)
        ll.addLayout(source_row)
        ll.addWidget(self.lock_note)
        left_split = QSplitter(Qt.Orientation.Vertical)
        left_split.addWidget(self.sessions)
        left_split.addWidget(self.pending)
        left_split.setStretchFactor(0, 3)
        left_split.setStretchFactor(1, 1)
        left_split.setChildrenCollapsible(False)
        ll.addWidget(left_split, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.review_panel)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([640, 640])
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
        self.sessions_view.selectionModel().selectionChanged.connect(lambda *_: self._session_selection_changed())
        self.sessions_view.doubleClicked.connect(lambda _i: self.run_selected())
        self.run_button.clicked.connect(self._run_clicked)
        self.run_all_button = s.run_all_button
        self.run_all_button.clicked.connect(self.batch.run_all_unreviewed)
        self.consolidator_box.activated.connect(lambda _row: self.choice.chosen())
        self.cancel_button.clicked.connect(self.cancel)
        self.changes_view.selectionModel().currentRowChanged.connect(lambda *_: r.show_current_change())
        self.changes_model.dataChanged.connect(lambda *_: self.update_controls())
        self.changes_model.modelReset.connect(self.update_controls)
        toggle = QShortcut(QKeySequence(Qt.Key.Key_Space), self.changes_view)
        toggle.setContext(Qt.ShortcutContext.WidgetShortcut)
        toggle.activated.connect(r.toggle_current)
        self.accept_all_button.clicked.connect(lambda: r.set_all(True))
        self.reject_all_button.clicked.connect(lambda: r.set_all(False))
        self.commit_button.clicked.connect(self.commit_selected)
        self.editor.applied.connect(self.edits.apply)
        self.editor.reverted.connect(self.edits.revert)
        self.receipts_view.selectionModel().currentRowChanged.connect(lambda *_: r.show_current_receipt())
        a = self.pending_actions
        self.source_filter.currentIndexChanged.connect(lambda _i: a.source_changed())
        self.pending.opened.connect(a.open_pending)
        self.pending.delete_button.clicked.connect(a.delete_current)
        self.pending.import_button.clicked.connect(a.start_import)
        self.review_panel.merge_button.clicked.connect(a.merge_current)
        self.review_panel.delete_button.clicked.connect(a.delete_current)
        self.review_panel.record_requested.connect(self.record_requested.emit)
        self.diff_panel.clear()
        self.sessions.set_idle("")
        self.update_controls()

    # --- the tab protocol ----------------------------------------------------------------------
    def tab_title(self) -> str:
        return self.tr("Session Consolidation")

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None

    def has_unsaved_changes(self) -> bool:
        """An open review with decisions or edits would be lost (the proposal itself stays in reviews/)."""
        return self.review is not None and has_decisions(self.changes_model.change_rows())

    @property
    def review(self) -> Review | None:
        return self.review_panel.review

    @property
    def last_receipt(self) -> Receipt | None:
        """The receipt of the last commit made in this tab."""
        return self.commits.last_receipt

    @property
    def busy(self) -> str | None:
        """The running job ("refresh", "run", "commit", "edit", "recheck") or None."""
        return self._job

    # --- jobs ----------------------------------------------------------------------------------
    def start_job(
        self,
        kind: str,
        fn: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], None],
        failed: Callable[[BaseException], None],
        cancellable: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
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

        self.update_controls()
        self.jobs.start(
            "pipeline",
            fn,
            *args,
            done=finished,
            failed=errored,
            progress=progress or (self.sessions.show_progress if cancellable else None),
            cancellable=cancellable,
        )

    def run_job(
        self,
        kind: str,
        fn: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], None],
        failed: Callable[[BaseException], None],
        progress: Callable[[int, int, str], None],
    ) -> None:
        """A long, cancellable pipeline step with its own progress handler (a batch run)."""
        self.start_job(kind, fn, *args, done=done, failed=failed, cancellable=True, progress=progress)

    def request_refresh(self) -> None:
        """Re-list once the running job is done."""
        self._refresh_pending = True

    def _after_job(self) -> None:
        self.update_controls()
        if self._refresh_pending and self._job is None:
            self._refresh_pending = False
            self.refresh()

    # --- refresh: workspaces, sessions, receipts -----------------------------------------------
    def refresh(self) -> None:
        self.sync_review.refresh()
        if self._job is not None:
            self._refresh_pending = True
            return
        self._load(self._selected_key)

    def _workspace_chosen(self, row: int) -> None:
        if 0 <= row < self.workspace_model.rowCount():
            self._selected_key = self.workspace_model.choice(row).key
            remember_workspace(self.ctx.root, self._selected_key)
            if self._job is None:
                self._load(self._selected_key)
            else:
                self._refresh_pending = True

    def _load(self, wanted_key: str | None) -> None:
        explicit = self.workspace_model.rowCount() > 0  # None means Unassigned once a list is shown
        self.start_job(
            "refresh",
            _refresh_all,
            self.pipeline,
            wanted_key,
            explicit,
            done=self._show_refresh,
            failed=self._listing_failed,
        )

    def _show_refresh(self, result: Refreshed) -> None:
        listing, pending, proposals, protection = result
        self.proposals = proposals
        self._show_listing(listing)
        self.pending_actions.show_pending(pending)
        self.show_lock_note(protection)

    def start_import(self) -> None:
        """Import… (button or File menu): list other stores, prepare their reviews, show them."""
        self.imports.start()

    def choose_source(self, source: ReviewSource) -> None:
        """Show sessions, agent proposals or imports on the left."""
        self.pending_actions.choose_source(source)

    def select_pending(self, review_id: str) -> bool:
        """Select (and open) a pending review of the source shown."""
        return self.pending.select(review_id)

    def show_lock_note(self, protection: LiveSessionProtection) -> None:
        """On Windows no session lock is checked: say that only the quiet period protects a live session."""
        self.lock_note.setText("" if protection.lock_checked else protection.note)
        self.lock_note.setVisible(not protection.lock_checked)

    def _show_listing(self, listing: Listing) -> None:
        self._selected_key = listing.selected_key
        self.sessions.show_listing(listing)
        self.review_panel.set_receipts(listing.receipts, listing.receipt_texts)
        if self._wanted_receipt is not None and self.show_receipt(self._wanted_receipt):
            self._wanted_receipt = None
        # Consolidator choices: the model entry names the configured model (or why it can't run).
        current = self.consolidator_box.currentData() if self.consolidator_box.count() else None
        self.consolidator_box.setItemText(1, self._model_label(listing))
        self.consolidator_box.setItemData(
            1, listing.model_problem or self.tr("Runs the configured chat model"), Qt.ItemDataRole.ToolTipRole
        )
        if current is None or not self.choice.saving:
            self.choice.show(listing.settings_consolidator)
        if listing.settings_problem and not self.banner.text:
            self.banner.show_message("warning", listing.settings_problem)
        else:
            self.banner.clear(topic="listing")

    def _model_label(self, listing: Listing) -> str:
        """The model entry of the consolidator picker, in the user's language."""
        choice = listing.model_choice
        if choice is None:
            return self.tr("Model (not configured)")
        if choice.provider == "custom":
            name = self.tr("Custom: {model} at {url}").format(model=choice.model, url=choice.base_url)
        else:
            name = choice.label
        return self.tr("Model: {name}").format(name=name)

    def showEvent(self, event: QShowEvent) -> None:
        """Coming back from Settings: show the consolidator saved there (it is one setting)."""
        super().showEvent(event)
        self.choice.reload()

    def _session_selection_changed(self) -> None:
        """Another session: the banner and receipt about the previous one no longer apply."""
        self.banner.clear(topic="session")
        self.review_panel.clear_receipt()
        self.update_controls()

    def _listing_failed(self, exc: BaseException) -> None:
        self.banner.show_message(
            "error", self.tr("Could not list DSH sessions: {why}").format(why=describe_error(exc)), topic="listing"
        )

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
        """Choose the consolidator as the picker does (remembered in settings.yml)."""
        self.consolidator_box.setCurrentIndex(0 if kind == OFFLINE else 1)
        self.choice.chosen()

    # --- run ------------------------------------------------------------------------------------
    def run_selected(self, *, force: bool = False) -> None:
        row = self.selected_session()
        if row is None or self._job is not None:
            return
        if row.summary.cwd is None:
            self.banner.show_message("info", unassigned_hint(), topic="session")
            return
        if not row.stable:
            self.banner.show_message(
                "info",
                self.tr("“{title}” is still live ({why}). Try again when it is quiet.").format(
                    title=row.summary.title, why=core_text(row.state_reason)
                ),
                topic="session",
            )
            return
        kind: ConsolidatorKind = "model" if self.consolidator_box.currentData() == MODEL else "offline"
        self.banner.clear()
        self.sessions.set_running(
            self.tr("Running the offline extractor…") if kind == OFFLINE else self.tr("Running the model…")
        )
        self.start_job(
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

    def _run_clicked(self) -> None:
        if len(self.sessions.selected_sessions()) > 1:
            self.batch.run_selected()
        else:
            self.run_selected()

    def cancel(self) -> None:
        job = self.jobs.current("pipeline")
        if job is not None and self._job in ("run", "batch"):
            job.cancel()
            self.status_label.setText(self.tr("Cancelling… (nothing will be written)"))
            self.cancel_button.setEnabled(False)

    def _run_done(self, review: Review) -> None:
        self.sessions.set_idle("")
        self._refresh_pending = True  # the new review is pending: list it
        self.session_model.set_last_status(review.session_id, review.receipt.status)
        if review.reused:
            self.show_review(None)
            self.banner.show_message(
                "info",
                self.tr(
                    "This session was already reviewed with this consolidator ({status}); "
                    "here is its receipt. Nothing was run again."
                ).format(status=status_label(review.receipt.status)),
                [(self.tr("Run again anyway"), lambda: self.run_selected(force=True))],
                topic="session",
            )
            self.remember_receipt(review.receipt)
            self.show_receipt(review.review_id)
            return
        self.show_review(review)
        if not review.actionable:
            self.banner.show_message(
                "info", self.tr("The consolidator found nothing new to remember in this session (no change).")
            )
        self.remember_receipt(review.receipt)

    def _run_failed(self, exc: BaseException) -> None:
        if isinstance(exc, CancelledError):
            self.sessions.set_idle(self.tr("Cancelled. Nothing was written."))
            return
        self.sessions.set_idle("")
        self.review_panel.clear_receipt()  # the receipt shown belongs to an earlier run
        self.banner.show_message(
            "error", self.tr("Consolidation failed: {why}").format(why=describe_error(exc)), topic="session"
        )

    # --- review ---------------------------------------------------------------------------------
    def show_review(self, review: Review | None, handler: ReviewHandler | None = None, reason: str = "") -> None:
        """Show ``review``, settled through ``handler`` (default: the sessions' service)."""
        self.handler = handler if handler is not None else self.session_handler
        self.review_panel.show_review(review, reason=reason)

    def set_accepted(self, change_id: str, accepted: bool) -> bool:
        return self.changes_model.set_accepted(self.changes_model.row_of(change_id), accepted)

    def _set_all(self, accepted: bool) -> None:
        self.review_panel.set_all(accepted)

    # --- commit (gui.tabs.consolidation.commit_actions) ------------------------------------------
    def commit_selected(self) -> None:
        self.commits.commit_selected()

    def commit_done(self, receipt: Receipt) -> None:
        self.commits.done(receipt)

    def commit_failed(self, exc: BaseException) -> None:
        self.commits.failed(exc)

    def show_error(self, exc: BaseException) -> None:
        self.banner.show_message("error", describe_error(exc))

    # --- receipts --------------------------------------------------------------------------------
    def remember_receipt(self, receipt: Receipt) -> None:
        row = self.session_model.row_of(receipt.session_id)
        title = self.session_model.session_row(row).summary.title if row >= 0 else ""
        self.review_panel.remember_receipt(receipt, title)

    def show_receipt(self, review_id: str, *, switch: bool = True) -> bool:
        return self.review_panel.show_receipt(review_id, switch=switch)

    def open_receipt(self, review_id: str) -> bool:
        """Select and show receipt ``review_id`` on the Receipts page (from a record's provenance).

        False when it is not listed yet: the tab lists again and shows it once it is there.
        """
        if self.show_receipt(review_id):
            self._wanted_receipt = None
            return True
        self._wanted_receipt = review_id
        self.refresh()
        return False

    def receipt_text(self) -> str:
        return self.receipt_view.toPlainText()

    # --- controls --------------------------------------------------------------------------------
    def update_controls(self) -> None:
        self.sessions.update_controls(self._job)
        self.review_panel.update_controls(self._job is not None)
