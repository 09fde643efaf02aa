"""The Session Consolidation tab: pick a DSH session, run a consolidator, review each change, commit.

Workspace picker → sessions table → Run (worker, progress, Cancel) → review (one row per change,
unified or side-by-side diff, accept/reject, edit a proposed record) → Commit selected (worker,
compare-and-swap; a conflict re-checks the proposal against fresh memory) → receipt. Every store,
session and model access runs on ``ctx.runner``; one job at a time, so the pipeline is never
used from two threads at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.consolidation.proposals import Receipt, Review, ReviewChange
from core.errors import CancelledError
from gui.context import AppContext
from gui.qtmodels.consolidation_models import (
    ChangeRow,
    ReceiptItem,
    ReceiptListModel,
    ReviewChangesModel,
    SessionFilterProxy,
    SessionRow,
    SessionTableModel,
    WorkspaceChoice,
    WorkspaceChoiceModel,
)
from gui.tabs.base import Tab
from gui.tasks import JobControl
from gui.widgets.banner import Banner
from gui.widgets.markdown_view import MarkdownPreview
from gui.widgets.messages import describe_error
from gui.widgets.review_diff import ChangeDiffPanel
from gui.widgets.review_editor import ReviewRecordEditor

if TYPE_CHECKING:
    from core.consolidation.service import ConsolidationService
    from core.sessions import SessionCatalog

OFFLINE: Literal["offline"] = "offline"
MODEL: Literal["model"] = "model"
UNASSIGNED_HINT = (
    "Sessions without a working directory belong to no workspace, so they cannot be consolidated. "
    "They are listed so you can see them."
)


def strip_frontmatter(text: str) -> str:
    """The Markdown body of a receipt (its YAML header is for programs)."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end >= 0:
            return text[end + 5 :].lstrip("\n")
    return text


@dataclass
class _Listing:
    """What a refresh read off the GUI thread."""

    sessions_root: Path
    choices: list[WorkspaceChoice]
    selected_key: str | None
    rows: list[SessionRow]
    receipts: list[ReceiptItem]
    receipt_texts: dict[str, str]
    settings_consolidator: str
    model_label: str
    model_problem: str | None
    settings_problem: str | None
    catalog_problems: dict[str, str] = field(default_factory=dict)


class _Pipeline:
    """The core objects the tab drives. Used only from inside a worker, one job at a time."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.catalog: SessionCatalog | None = None
        self._service: ConsolidationService | None = None

    @property
    def service(self) -> ConsolidationService:
        if self._service is None:
            self.update()
        assert self._service is not None
        return self._service

    def update(self) -> tuple[Any, Any]:
        """Re-read settings and DSH's model list; keep the session catalog (and its cache) per root."""
        from core.consolidation.service import ConsolidationService
        from core.model_catalog import load_model_catalog
        from core.sessions import SessionCatalog
        from core.settings import load_settings

        loaded = load_settings(self.ctx.store)
        settings = loaded.settings
        root = settings.resolved_sessions_root() if settings.sessions_root else Path(self.ctx.sessions_root)
        if self.catalog is None or Path(self.catalog.sessions_root) != root:
            self.catalog = SessionCatalog(root, self.ctx.dsh_home)
            self._service = None
        models = load_model_catalog(Path(self.ctx.dsh_home))
        if self._service is None:
            self._service = ConsolidationService(self.ctx.store, models, settings, sessions=self.catalog)
        else:  # keep open reviews; pick up new settings and models
            self._service.settings = settings
            self._service.models = models
        return loaded, models


class ConsolidationTab(Tab):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.pipeline = _Pipeline(ctx)
        self.review: Review | None = None
        self.last_receipt: Receipt | None = None
        self._job: str | None = None
        self._refresh_pending = False
        self._selected_key: str | None = None
        self._receipt_texts: dict[str, str] = {}
        self._consolidator_touched = False
        self._model_problem: str | None = None
        self._build()

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.banner = Banner()

        # Left: where the sessions come from, which ones, and the Run controls.
        self.workspace_model = WorkspaceChoiceModel(self)
        self.workspace_box = QComboBox()
        self.workspace_box.setObjectName("workspacePicker")
        self.workspace_box.setModel(self.workspace_model)
        self.workspace_box.setMinimumContentsLength(24)
        self.workspace_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("sessionFilter")
        self.filter_edit.setPlaceholderText("Filter sessions by title…")
        self.filter_edit.setClearButtonEnabled(True)

        self.session_model = SessionTableModel(self)
        self.session_proxy = SessionFilterProxy(self)
        self.session_proxy.setSourceModel(self.session_model)
        self.sessions_view = QTableView()
        self.sessions_view.setObjectName("sessionsTable")
        self.sessions_view.setModel(self.session_proxy)
        self.sessions_view.setSortingEnabled(True)
        self.sessions_view.sortByColumn(SessionTableModel.DATE, Qt.SortOrder.DescendingOrder)
        self.sessions_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.sessions_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.sessions_view.verticalHeader().hide()
        self.sessions_view.setWordWrap(False)
        self.sessions_view.verticalHeader().setDefaultSectionSize(24)
        header = self.sessions_view.horizontalHeader()
        header.setMinimumSectionSize(40)
        header.setSectionResizeMode(SessionTableModel.TITLE, QHeaderView.ResizeMode.Stretch)
        for col in range(1, len(SessionTableModel.HEADERS) - 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SessionTableModel.LAST, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(SessionTableModel.LAST, 96)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("sessionsEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet("color: #666;")

        self.consolidator_box = QComboBox()
        self.consolidator_box.setObjectName("consolidatorPicker")
        self.consolidator_box.addItem("Offline extractor", OFFLINE)
        self.consolidator_box.addItem("Model", MODEL)
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("runButton")
        self.run_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancelButton")
        self.progress = QProgressBar()
        self.progress.setObjectName("runProgress")
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(10)
        self.status_label = QLabel()
        self.status_label.setObjectName("runStatus")
        self.status_label.setWordWrap(True)

        run_row = QHBoxLayout()
        run_row.addWidget(QLabel("Consolidator"))
        run_row.addWidget(self.consolidator_box, 1)
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.cancel_button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 4, 0)
        picker_row = QHBoxLayout()
        picker_row.addWidget(QLabel("Workspace"))
        picker_row.addWidget(self.workspace_box, 1)
        left_layout.addLayout(picker_row)
        left_layout.addWidget(self.filter_edit)
        left_layout.addWidget(self.sessions_view, 1)
        left_layout.addWidget(self.empty_label)
        left_layout.addLayout(run_row)
        left_layout.addWidget(self.progress)
        left_layout.addWidget(self.status_label)

        # Right, page 1: the review.
        self.review_title = QLabel("Run a consolidator on a session to review what it proposes.")
        self.review_title.setObjectName("reviewTitle")
        self.review_title.setWordWrap(True)
        self.review_title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.review_title.font()
        font.setBold(True)
        self.review_title.setFont(font)
        self.review_summary = QLabel()
        self.review_summary.setObjectName("reviewSummary")
        self.review_summary.setWordWrap(True)
        self.changes_model = ReviewChangesModel(self)
        self.changes_view = QTableView()
        self.changes_view.setObjectName("changesTable")
        self.changes_view.setModel(self.changes_model)
        self.changes_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.changes_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.changes_view.verticalHeader().hide()
        self.changes_view.setWordWrap(False)
        ch = self.changes_view.horizontalHeader()
        ch.setSectionResizeMode(ReviewChangesModel.ACCEPT, QHeaderView.ResizeMode.ResizeToContents)
        ch.setSectionResizeMode(ReviewChangesModel.OP, QHeaderView.ResizeMode.ResizeToContents)
        ch.setSectionResizeMode(ReviewChangesModel.TARGET, QHeaderView.ResizeMode.Interactive)
        ch.resizeSection(ReviewChangesModel.TARGET, 210)
        ch.setSectionResizeMode(ReviewChangesModel.REASON, QHeaderView.ResizeMode.Stretch)
        ch.setSectionResizeMode(ReviewChangesModel.NOTES, QHeaderView.ResizeMode.Interactive)
        ch.resizeSection(ReviewChangesModel.NOTES, 170)
        self.changes_view.verticalHeader().setDefaultSectionSize(24)
        self.changes_view.setTextElideMode(Qt.TextElideMode.ElideRight)

        self.diff_panel = ChangeDiffPanel()
        self.editor = ReviewRecordEditor()
        self.detail_tabs = QTabWidget()
        self.detail_tabs.setObjectName("changeDetail")
        self.detail_tabs.addTab(self.diff_panel, "Diff")
        self.detail_tabs.addTab(self.editor, "Edit record")

        self.accept_all_button = QPushButton("Accept all valid")
        self.accept_all_button.setObjectName("acceptAll")
        self.reject_all_button = QPushButton("Reject all")
        self.reject_all_button.setObjectName("rejectAll")
        self.commit_button = QPushButton("Commit selected")
        self.commit_button.setObjectName("commitButton")
        self.selection_label = QLabel()
        self.selection_label.setObjectName("selectionCount")
        buttons = QHBoxLayout()
        buttons.addWidget(self.accept_all_button)
        buttons.addWidget(self.reject_all_button)
        buttons.addStretch(1)
        buttons.addWidget(self.selection_label)
        buttons.addWidget(self.commit_button)

        review_split = QSplitter(Qt.Orientation.Vertical)
        review_split.addWidget(self.changes_view)
        review_split.addWidget(self.detail_tabs)
        review_split.setStretchFactor(0, 2)
        review_split.setStretchFactor(1, 3)
        review_split.setSizes([230, 420])
        review_split.setChildrenCollapsible(False)
        review_page = QWidget()
        rl = QVBoxLayout(review_page)
        rl.addWidget(self.review_title)
        rl.addWidget(self.review_summary)
        rl.addWidget(review_split, 1)
        rl.addLayout(buttons)

        # Right, page 2: receipts.
        self.receipt_model = ReceiptListModel(self)
        self.receipts_view = QListView()
        self.receipts_view.setObjectName("receiptsList")
        self.receipts_view.setModel(self.receipt_model)
        self.receipts_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.receipt_view = MarkdownPreview()
        self.receipt_view.setObjectName("receiptView")
        receipts_split = QSplitter(Qt.Orientation.Horizontal)
        receipts_split.addWidget(self.receipts_view)
        receipts_split.addWidget(self.receipt_view)
        receipts_split.setStretchFactor(0, 2)
        receipts_split.setStretchFactor(1, 3)
        receipts_split.setSizes([300, 440])
        self.receipts_view.setWordWrap(True)
        self.receipts_view.setAlternatingRowColors(True)
        self.receipts_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.right_tabs = QTabWidget()
        self.right_tabs.setObjectName("reviewTabs")
        self.right_tabs.addTab(review_page, "Review")
        self.right_tabs.addTab(receipts_split, "Receipts")

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.right_tabs)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([520, 760])
        splitter.setChildrenCollapsible(False)
        self.splitter = splitter

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)

        # Wiring.
        self.workspace_box.activated.connect(self._workspace_chosen)
        self.filter_edit.textChanged.connect(self.session_proxy.set_filter_text)
        self.sessions_view.selectionModel().selectionChanged.connect(lambda *_: self._update_controls())
        self.sessions_view.doubleClicked.connect(lambda _i: self.run_selected())
        self.run_button.clicked.connect(lambda: self.run_selected())
        self.consolidator_box.activated.connect(self._mark_consolidator_touched)
        self.cancel_button.clicked.connect(self.cancel)
        self.changes_view.selectionModel().currentRowChanged.connect(lambda *_: self._show_current_change())
        self.changes_model.dataChanged.connect(lambda *_: self._update_controls())
        self.changes_model.modelReset.connect(self._update_controls)
        toggle = QShortcut(QKeySequence(Qt.Key.Key_Space), self.changes_view)
        toggle.setContext(Qt.ShortcutContext.WidgetShortcut)
        toggle.activated.connect(self.toggle_current)
        self.accept_all_button.clicked.connect(lambda: self._set_all(True))
        self.reject_all_button.clicked.connect(lambda: self._set_all(False))
        self.commit_button.clicked.connect(self.commit_selected)
        self.editor.applied.connect(self._apply_edit)
        self.editor.reverted.connect(self._revert_edit)
        self.receipts_view.selectionModel().currentRowChanged.connect(lambda *_: self._show_current_receipt())
        self.diff_panel.clear()
        self._set_idle("")
        self._update_controls()

    # --- the tab protocol ----------------------------------------------------------------------
    def tab_title(self) -> str:
        return "Session Consolidation"

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None

    def has_unsaved_changes(self) -> bool:
        """An open review with decisions or edits would be lost (the proposal itself stays in reviews/)."""
        return self.review is not None and any(
            r.accepted or r.edited is not None for r in self.changes_model.change_rows()
        )

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
            progress=self._show_progress if cancellable else None,
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
            _read_listing,
            self.pipeline,
            wanted_key,
            explicit,
            done=self._show_listing,
            failed=self._listing_failed,
        )

    def _show_listing(self, listing: _Listing) -> None:
        self.workspace_model.set_choices(listing.choices)
        self._selected_key = listing.selected_key
        self.workspace_box.setCurrentIndex(self.workspace_model.row_of(listing.selected_key))
        selected = self.selected_session()
        keep = selected.id if selected else None
        self.session_model.set_rows(listing.rows)
        if keep is not None:
            self.select_session(keep)
        if not listing.rows:
            self.empty_label.setText(
                f"No DSH sessions found in {listing.sessions_root}. Change the sessions folder in Settings."
                if not listing.choices
                else "No sessions in this workspace."
            )
        else:
            self.empty_label.setText(UNASSIGNED_HINT if listing.selected_key is None else "")
        self.empty_label.setVisible(bool(self.empty_label.text()))
        self._set_receipts(listing.receipts, listing.receipt_texts)
        # Consolidator choices: the model entry names the configured model (or why it can't run).
        current = self.consolidator_box.currentData() if self.consolidator_box.count() else None
        self.consolidator_box.setItemText(1, listing.model_label)
        self.consolidator_box.setItemData(
            1, listing.model_problem or "Runs the configured chat model", Qt.ItemDataRole.ToolTipRole
        )
        if current is None or not self._consolidator_touched:
            self.consolidator_box.setCurrentIndex(1 if listing.settings_consolidator == MODEL else 0)
        self._model_problem = listing.model_problem
        if listing.settings_problem and not self.banner.text:
            self.banner.show_message("warning", listing.settings_problem)
        else:
            self.banner.clear(topic="listing")

    def _mark_consolidator_touched(self, _row: int) -> None:
        self._consolidator_touched = True

    def _listing_failed(self, exc: BaseException) -> None:
        self.banner.show_message("error", f"Could not list DSH sessions: {describe_error(exc)}", topic="listing")

    def _set_receipts(self, items: list[ReceiptItem], texts: dict[str, str]) -> None:
        current = self.receipts_view.currentIndex()
        keep = self.receipt_model.item(current.row()).review_id if current.isValid() else None
        self._receipt_texts = texts
        self.receipt_model.set_receipts(items)
        if keep is not None:
            self.show_receipt(keep, switch=False)

    # --- selection helpers ---------------------------------------------------------------------
    def selected_session(self) -> SessionRow | None:
        rows = self.sessions_view.selectionModel().selectedRows()
        if not rows:
            return None
        source = self.session_proxy.mapToSource(rows[0])
        return self.session_model.session_row(source.row()) if source.isValid() else None

    def select_session(self, session_id: str) -> bool:
        row = self.session_model.row_of(session_id)
        if row < 0:
            return False
        index = self.session_proxy.mapFromSource(self.session_model.index(row, 0))
        if not index.isValid():
            return False
        self.sessions_view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.sessions_view.scrollTo(index)
        return True

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
        kind: Literal["offline", "model"] = MODEL if self.consolidator_box.currentData() == MODEL else OFFLINE
        self.banner.clear()
        self._set_running(f"Running the {'offline extractor' if kind == OFFLINE else 'model'}…")
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
        self._set_idle("")
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
            self._set_idle("Cancelled. Nothing was written.")
            return
        self._set_idle("")
        self.banner.show_message("error", f"Consolidation failed: {describe_error(exc)}")

    # --- review ---------------------------------------------------------------------------------
    def show_review(self, review: Review | None) -> None:
        self.review = review
        self.changes_model.set_changes(review.changes if review else ())
        if review is None:
            self.review_title.setText("Run a consolidator on a session to review what it proposes.")
            self.review_summary.setText("")
            self.diff_panel.clear()
            self.editor.set_record(None)
            return
        model = f" · {review.model}" if review.model else ""
        title = review.session_title or review.session_id
        self.review_title.setText(f"{title} — {review.consolidator}{model}")
        refused = sum(1 for c in review.changes if c.problems)
        summary = review.proposal.summary or ""
        parts = [
            f"{len(review.actionable)} change(s) to review"
            + (f", {refused} refused by the checks" if refused else ""),
            f"workspace {review.cwd}",
            f"seqs {review.seq_range[0]}–{review.seq_range[1]}",
            f"review {review.review_id}",
        ]
        self.review_summary.setText((summary + "\n" if summary else "") + " · ".join(parts))
        self.right_tabs.setCurrentIndex(0)
        if self.changes_model.rowCount():
            self.changes_view.selectRow(0)
        self._show_current_change()

    def current_change_row(self) -> int:
        index = self.changes_view.selectionModel().currentIndex()
        return index.row() if index.isValid() else -1

    def _show_current_change(self) -> None:
        row = self.current_change_row()
        if row < 0 or row >= self.changes_model.rowCount():
            self.diff_panel.clear()
            self.editor.set_record(None)
            return
        r = self.changes_model.change_row(row)
        current = r.current
        caption = f"{current.kind.replace('_', ' ')} {current.target or ''}".strip()
        if r.edited is not None:
            caption += " (edited)"
        if current.problems:
            caption += " — refused: " + "; ".join(current.problems)
        self.diff_panel.show_change(caption, current.before, current.after, current.diff)
        self.editor.set_record(current.record if current.kind == "put" else None, editable=current.is_valid)

    def _set_all(self, accepted: bool) -> None:
        for i in range(self.changes_model.rowCount()):
            self.changes_model.set_accepted(i, accepted)

    def toggle_current(self) -> None:
        """Space in the changes list: accept or reject the current change."""
        row = self.current_change_row()
        if row >= 0:
            self.changes_model.set_accepted(row, not self.changes_model.change_row(row).accepted)

    def set_accepted(self, change_id: str, accepted: bool) -> bool:
        return self.changes_model.set_accepted(self.changes_model.row_of(change_id), accepted)

    def _apply_edit(self, record: Any) -> None:
        row = self.current_change_row()
        if row < 0 or self.review is None or self._job is not None:
            return
        review, cid = self.review, self.changes_model.change_row(row).change.id

        def done(change: ReviewChange) -> None:
            r = self.changes_model.row_of(cid)
            if r >= 0 and self.review is review:
                self.changes_model.set_edit(r, change)
                self.changes_model.set_accepted(r, change.is_actionable)
                self._show_current_change()
                self.banner.show_message("info", f"Edited {change.target}; it is accepted as edited.")

        self._start("edit", _edit, self.pipeline, review, cid, record, done=done, failed=self._show_error)

    def _revert_edit(self) -> None:
        row = self.current_change_row()
        if row >= 0:
            self.changes_model.set_edit(row, None)
            self._show_current_change()

    # --- commit ----------------------------------------------------------------------------------
    def commit_selected(self) -> None:
        review = self.review
        if review is None or self._job is not None:
            return
        accepted = self.changes_model.accepted_rows()
        if not accepted and not self.ctx.dialogs.confirm(
            self,
            "Reject every change?",
            "No change is selected. Record this review as rejected? Nothing is written to memory.",
            "Reject all",
        ):
            return
        confirm_global = False
        if any(r.current.needs_confirmation for r in accepted):
            if not self.ctx.dialogs.confirm(
                self,
                "Change GLOBAL.md?",
                "You accepted a change to GLOBAL.md, which every workspace loads. "
                "Commit it only if it is about you in general, not about this project.",
                "Change GLOBAL.md",
            ):
                return
            confirm_global = True
        ids = [r.change.id for r in accepted]
        edited = {r.change.id: r.edited for r in accepted if r.edited is not None}
        self.status_label.setText("Committing…")
        self._start(
            "commit",
            _commit,
            self.pipeline,
            review,
            ids,
            edited,
            confirm_global,
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

        self._start("recheck", _recheck, self.pipeline, review, done=done, failed=self._show_error)

    def _show_error(self, exc: BaseException) -> None:
        self.banner.show_message("error", describe_error(exc))

    # --- receipts --------------------------------------------------------------------------------
    def _remember_receipt(self, receipt: Receipt) -> None:
        """Show a receipt the pipeline just wrote without waiting for the next refresh."""
        from core.consolidation.receipts import render_receipt

        self._receipt_texts[receipt.review_id] = render_receipt(receipt)
        items = [i for i in self._receipt_items() if i.review_id != receipt.review_id]
        title = ""
        row = self.session_model.row_of(receipt.session_id)
        if row >= 0:
            title = self.session_model.session_row(row).summary.title
        items.insert(0, ReceiptItem(receipt.review_id, receipt.status, title, receipt.updated))
        self._set_receipts(items, self._receipt_texts)

    def _receipt_items(self) -> list[ReceiptItem]:
        return [self.receipt_model.item(i) for i in range(self.receipt_model.rowCount())]

    def show_receipt(self, review_id: str, *, switch: bool = True) -> bool:
        row = self.receipt_model.row_of(review_id)
        if row < 0:
            return False
        self.receipts_view.setCurrentIndex(self.receipt_model.index(row))
        self._show_current_receipt()
        if switch:
            self.right_tabs.setCurrentIndex(1)
        return True

    def receipt_text(self) -> str:
        return self.receipt_view.toPlainText()

    def _show_current_receipt(self) -> None:
        index: QModelIndex = self.receipts_view.currentIndex()
        if not index.isValid():
            self.receipt_view.set_markdown("")
            return
        rid = self.receipt_model.item(index.row()).review_id
        body = strip_frontmatter(self._receipt_texts.get(rid, ""))
        # One level down: a receipt's title is a caption here, not a page heading.
        body = "\n".join("##" + line if line.startswith("# ") else line for line in body.splitlines())
        self.receipt_view.set_markdown(body)

    # --- controls --------------------------------------------------------------------------------
    def _set_running(self, message: str) -> None:
        self.progress.setRange(0, 0)
        self.progress.show()
        self.status_label.setText(message)

    def _set_idle(self, message: str) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.hide()
        self.status_label.setText(message)

    def _show_progress(self, done: int, total: int, message: str) -> None:
        if total <= 0:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        if message:
            self.status_label.setText(message)

    def _update_controls(self) -> None:
        busy = self._job is not None
        row = self.selected_session()
        can_run = row is not None and row.summary.cwd is not None and row.stable
        self.run_button.setEnabled(not busy and can_run)
        if row is None:
            self.run_button.setToolTip("Select a session first")
        elif row.summary.cwd is None:
            self.run_button.setToolTip(UNASSIGNED_HINT)
        elif not row.stable:
            self.run_button.setToolTip(f"The session is live: {row.state_reason}")
        else:
            self.run_button.setToolTip("Ask the consolidator what to remember from this session")
        self.cancel_button.setEnabled(self._job == "run")
        self.consolidator_box.setEnabled(not busy)
        has_review = self.review is not None and not busy
        accepted: list[ChangeRow] = self.changes_model.accepted_rows()
        self.accept_all_button.setEnabled(has_review)
        self.reject_all_button.setEnabled(has_review)
        self.commit_button.setEnabled(has_review)
        closing_text = "Commit selected" if accepted or self.review is None else "Reject all and close"
        self.commit_button.setText(closing_text)
        total = sum(1 for r in self.changes_model.change_rows() if r.acceptable)
        counts = f"{len(accepted)} of {total} accepted" if self.review is not None else ""
        self.selection_label.setText(counts)
        self.editor.setEnabled(not busy)


def _run(
    pipeline: _Pipeline, summary: Any, kind: Literal["offline", "model"], force: bool, *, control: JobControl
) -> Review:
    pipeline.update()
    control.report(0, 0, "Reading the session…")
    def cancelled() -> bool:
        return control.token.cancelled

    prepared = pipeline.service.prepare(summary, cancelled=cancelled)
    return pipeline.service.propose(
        prepared, consolidator=kind, cancelled=cancelled, progress=control.report, force=force
    )


def _edit(pipeline: _Pipeline, review: Review, change_id: str, record: Any) -> ReviewChange:
    return pipeline.service.edit_change(review, change_id, record)


def _commit(
    pipeline: _Pipeline, review: Review, ids: list[str], edited: dict[str, Any], confirm_global: bool
) -> Receipt:
    return pipeline.service.commit(review, ids, edited=edited, confirm_global=confirm_global)


def _recheck(pipeline: _Pipeline, review: Review) -> Review:
    return pipeline.service.refresh(review)


def _read_listing(pipeline: _Pipeline, wanted_key: str | None, explicit: bool) -> _Listing:
    """Worker side of a refresh: settings, model label, workspaces, sessions, stability, receipts."""
    from core.consolidation.receipts import parse_receipt

    loaded, models = pipeline.update()
    settings = loaded.settings
    catalog = pipeline.catalog
    assert catalog is not None
    groups = catalog.workspaces()
    choices = [WorkspaceChoice(g.key, g.cwd, g.title, g.session_count) for g in groups]
    keys = [c.key for c in choices]
    if wanted_key not in keys or (wanted_key is None and not explicit):
        wanted_key = keys[0] if keys else None
    chosen = next((c for c in choices if c.key == wanted_key), None)
    if chosen is None:
        summaries = []
    elif chosen.cwd is None:
        summaries = [s for s in catalog.list() if s.workspace_key is None]
    else:
        summaries = catalog.list(cwd=chosen.cwd)

    store = pipeline.ctx.store
    texts: dict[str, str] = {}
    receipts: list[Receipt] = []
    for rid in store.list_receipts():
        text = store.read_receipt(rid)
        if text is None:
            continue
        texts[rid] = text
        parsed = parse_receipt(text)
        if parsed is not None:
            receipts.append(parsed)
    receipts.sort(key=lambda r: (r.updated, r.review_id), reverse=True)
    last: dict[str, str] = {}
    for r in receipts:
        last.setdefault(r.session_id, r.status)
    titles = {s.id: s.title for s in catalog.list()}
    items = [ReceiptItem(r.review_id, r.status, titles.get(r.session_id, ""), r.updated) for r in receipts]
    known = {r.review_id for r in receipts}
    items += [ReceiptItem(rid, "unreadable") for rid in texts if rid not in known]

    rows = []
    for s in summaries:
        stable, why = catalog.is_stable(s, settings.quiet_period_seconds)
        rows.append(SessionRow(s, stable, why, last.get(s.id, "")))

    model_problem: str | None = None
    try:
        choice = models.resolve(settings)
        model_label = f"Model: {choice.label}"
    except Exception as exc:  # a model that cannot run is shown, not fatal
        model_problem = describe_error(exc)
        model_label = "Model (not configured)"
    return _Listing(
        sessions_root=Path(catalog.sessions_root),
        choices=choices,
        selected_key=wanted_key,
        rows=rows,
        receipts=items,
        receipt_texts=texts,
        settings_consolidator=settings.consolidator,
        model_label=model_label,
        model_problem=model_problem,
        settings_problem=loaded.problem,
        catalog_problems=dict(catalog.problems),
    )
