"""Workspace tab: browse workspaces and their records, edit records, stage a batch, review diffs, commit.

Edits never touch disk until "Commit": each "Stage" adds a whole-record put (or a delete) to the
batch, the batch is shown as per-file unified diffs (MEMORY.md included), and the commit is one
compare-and-swap against the workspace revision the batch was built on.
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.errors import ConflictError, InvalidRecordError, NotFoundError, SecretRefusedError
from core.models import (
    RECORD_TYPES,
    DeleteOp,
    Op,
    PutOp,
    Record,
    RecordEntry,
    Revision,
    WorkspaceInfo,
    WorkspaceSnapshot,
)
from core.records import render_index, render_record, validate_record
from core.search import GLOBAL_SCOPE, SearchIndex
from gui.context import AppContext
from gui.qtmodels.records import RecordFilterProxy, RecordRow, RecordTableModel
from gui.qtmodels.roles import KEY_ROLE
from gui.qtmodels.search_results import SearchHit, SearchResultsModel
from gui.qtmodels.workspaces import WorkspaceFilterProxy, WorkspaceTableModel
from gui.widgets.banner import Banner
from gui.widgets.diff_view import DiffView, unified_diff
from gui.widgets.fonts import monospace_font
from gui.widgets.messages import describe_error, format_size

LINK_RE = re.compile(r"\[\[([^\[\]\n]+)\]\]")
NEW_BODY = (
    "\nThe durable, self-contained fact.\n\n**Why:** Why it matters.\n\n**How to apply:** When and how to use it.\n"
)


def salvage_fields(raw: str) -> tuple[str, str, str]:
    """(type, description, body) read leniently from an invalid record file's text.

    Whatever parses is kept; the frontmatter block never ends up in the body. Text without a
    frontmatter block becomes the body as it is.
    """
    text = raw.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return "project", "", text
    end = text.find("\n---", 3)
    if end == -1:
        return "project", "", text
    front, body = text[4:end], text[end + 4 :]
    body = body[1:] if body.startswith("\n") else body  # the closing line's own newline
    try:
        import yaml

        data: Any = yaml.safe_load(front)
    except Exception:  # a broken frontmatter: keep the whole text, nothing is lost
        return "project", "", text
    if not isinstance(data, dict):
        return "project", "", text
    meta = data.get("metadata")
    rtype = meta.get("type") if isinstance(meta, dict) else data.get("type")
    desc = data.get("description")
    return (
        rtype if rtype in RECORD_TYPES else "project",
        " ".join(desc.split()) if isinstance(desc, str) else "",
        body if body.startswith("\n") else "\n" + body,
    )


def find_links(body: str) -> list[str]:
    seen: dict[str, None] = {}
    for m in LINK_RE.finditer(body):
        seen.setdefault(m.group(1).strip(), None)
    return list(seen)


class _SecretScan:
    """Whether core.secrets has built its detectors (its first scan imports detect-secrets, ~0.2 s)."""

    ready = False


def _secret_warnings(text: str) -> list[str]:
    from core.secrets import describe, find_secrets  # lazily: its first use imports detect-secrets

    return list(describe(find_secrets(text)))


class WorkspaceTab(QWidget):
    open_global_requested = Signal()
    workspaces_loaded = Signal()  # after every workspace list refresh (the window chains its status on it)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.current_key: str | None = None
        self.snapshot: WorkspaceSnapshot | None = None
        self.base_revision: Revision | None = None
        self.pending_snapshot: WorkspaceSnapshot | None = None  # newer disk state not applied yet
        self.staged: dict[str, Op] = {}
        self.editing_name: str | None = None  # record in the editor (None: a new record)
        self._editor_loaded: tuple[str, str, str, str] = ("", "project", "", "")
        self._editor_extra = ""
        self._editor_active = False
        self._editor_invalid_file = False
        self._last_reasons: list[str] = []
        self._closing = False
        self._busy = False
        self._suppress_selection = False
        self._search_seq = 0
        self.index_freshness = IndexFreshness()
        self._index_prefetching = False
        self.last_search_hits: list[SearchHit] = []
        self._fitted_for: tuple[str | None, int] | None = None
        self._secrets_warming = False
        self._in_editor_changed = False
        self._listed = False  # the first workspace list has arrived

        self._build_ui()

    # =========================================================================================
    # layout
    # =========================================================================================
    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.setSpacing(6)

        self.banner = Banner()
        outer.addWidget(self.banner)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        outer.addWidget(self.splitter, 1)

        # --- left: search + workspace list ---
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 4, 0)
        self.search_box = QLineEdit()
        self.search_box.setObjectName("search_box")
        self.search_box.setPlaceholderText("Search all memory…")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.textChanged.connect(self._on_search_text)
        self.search_box.installEventFilter(self)  # focus-in: bring the search index up to date
        lv.addWidget(self.search_box)
        self.search_model = SearchResultsModel(self)
        self.search_view = QListView()
        self.search_view.setObjectName("search_results")
        self.search_view.setModel(self.search_model)
        self.search_view.setWordWrap(True)
        self.search_view.setAlternatingRowColors(True)
        self.search_view.setSpacing(2)
        self.search_view.activated.connect(self._on_search_activated)
        self.search_view.clicked.connect(self._on_search_activated)
        self.search_status = QLabel()
        self.search_status.setStyleSheet("color:#555;")
        lv.addWidget(self.search_status)
        lv.addWidget(self.search_view, 1)
        self.search_view.hide()
        self.search_status.hide()
        if self.ctx.search is None:
            self.search_box.hide()
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(self._run_search)

        ws_title = QLabel("<b>Workspaces</b>")
        lv.addWidget(ws_title)
        self.ws_filter = QLineEdit()
        self.ws_filter.setObjectName("workspace_filter")
        self.ws_filter.setPlaceholderText("Filter workspaces")
        self.ws_filter.setClearButtonEnabled(True)
        lv.addWidget(self.ws_filter)
        self.ws_model = WorkspaceTableModel(self)
        self.ws_proxy = WorkspaceFilterProxy(self)
        self.ws_proxy.setSourceModel(self.ws_model)
        self.ws_filter.textChanged.connect(self.ws_proxy.set_filter_text)
        self.ws_view = QTableView()
        self.ws_view.setObjectName("workspace_list")
        self._setup_table(self.ws_view)
        self.ws_view.setModel(self.ws_proxy)
        # Workspace names often share a prefix (billing-service-041, billing-service-042): keep both ends.
        self.ws_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.ws_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        hh = self.ws_view.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        hh.resizeSection(1, self.ws_view.fontMetrics().horizontalAdvance("Records") + 14)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.ws_view.selectionModel().currentRowChanged.connect(self._on_workspace_current)
        lv.addWidget(self.ws_view, 2)
        self.splitter.addWidget(left)

        # --- center: workspace header + records table ---
        center = QWidget()
        cv = QVBoxLayout(center)
        cv.setContentsMargins(4, 0, 4, 0)
        head = QHBoxLayout()
        self.ws_title = QLabel("No workspace selected")
        self.ws_title.setObjectName("workspace_title")
        self.ws_title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.ws_title.setWordWrap(True)
        head.addWidget(self.ws_title, 1)
        self.archive_button = QPushButton("Archive workspace…")
        self.archive_button.setToolTip("Move this workspace to the Recycle Bin (it can be restored)")
        self.archive_button.clicked.connect(self.archive_workspace)
        head.addWidget(self.archive_button)
        cv.addLayout(head)
        self.ws_banner = Banner()
        cv.addWidget(self.ws_banner)

        frow = QHBoxLayout()
        self.rec_filter = QLineEdit()
        self.rec_filter.setObjectName("record_filter")
        self.rec_filter.setPlaceholderText("Filter records (name, description, text)")
        self.rec_filter.setClearButtonEnabled(True)
        frow.addWidget(self.rec_filter, 1)
        self.type_filter = QComboBox()
        self.type_filter.setObjectName("type_filter")
        self.type_filter.addItem("All types", "")
        for t in RECORD_TYPES:
            self.type_filter.addItem(t, t)
        self.type_filter.addItem("Invalid files", "invalid")
        frow.addWidget(self.type_filter)
        self.new_button = QPushButton("New record")
        self.new_button.clicked.connect(self.new_record)
        frow.addWidget(self.new_button)
        cv.addLayout(frow)

        self.rec_model = RecordTableModel(self)
        self.rec_proxy = RecordFilterProxy(self)
        self.rec_proxy.setSourceModel(self.rec_model)
        self.rec_filter.textChanged.connect(self.rec_proxy.set_filter_text)
        self.type_filter.currentIndexChanged.connect(
            lambda _i: self.rec_proxy.set_type_filter(str(self.type_filter.currentData() or ""))
        )
        self.rec_view = QTableView()
        self.rec_view.setObjectName("records_table")
        self._setup_table(self.rec_view)
        self.rec_view.setModel(self.rec_proxy)
        self.rec_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        # Fixed widths, never ResizeToContents: that measures every row on each filter keystroke.
        rh = self.rec_view.horizontalHeader()
        for col in range(5):
            rh.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        rh.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        fm = self.rec_view.fontMetrics()
        rh.resizeSection(0, 170)
        rh.resizeSection(1, fm.horizontalAdvance("reference") + 14)
        rh.resizeSection(3, fm.horizontalAdvance("00,000") + 14)
        rh.resizeSection(4, fm.horizontalAdvance("staged: changed") + 16)
        self.rec_view.selectionModel().currentRowChanged.connect(self._on_record_current)
        cv.addWidget(self.rec_view, 1)
        self.count_label = QLabel()
        self.count_label.setStyleSheet("color:#555;")
        cv.addWidget(self.count_label)
        self.splitter.addWidget(center)

        # --- right: record editor / staged changes / what the agent loads ---
        self.detail = QTabWidget()
        self.detail.setObjectName("workspace_detail")
        self.detail.addTab(self._build_editor(), "Record")
        self.detail.addTab(self._build_staged(), "Staged changes")
        self.detail.addTab(self._build_agent_view(), "What the agent loads")
        self.splitter.addWidget(self.detail)

        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 1)
        # The records table gets the room: the workspace list is short and the editor wraps.
        self.splitter.setSizes([300, 650, 410])
        self._set_editor_enabled(False)
        self._update_workspace_header()

    @staticmethod
    def _setup_table(view: QTableView) -> None:
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setSortingEnabled(True)
        view.setAlternatingRowColors(True)
        view.setWordWrap(False)
        view.verticalHeader().hide()
        view.verticalHeader().setDefaultSectionSize(24)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.horizontalHeader().setHighlightSections(False)

    def _build_editor(self) -> QWidget:
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(6, 6, 6, 6)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("record_name")
        self.name_edit.setPlaceholderText("short-kebab-case-name")
        self.name_edit.setFont(monospace_font())
        form.addRow("Name", self.name_edit)
        self.type_combo = QComboBox()
        self.type_combo.setObjectName("record_type")
        for t in RECORD_TYPES:
            self.type_combo.addItem(t, t)
        form.addRow("Type", self.type_combo)
        self.desc_edit = QLineEdit()
        self.desc_edit.setObjectName("record_description")
        self.desc_edit.setPlaceholderText("One-line relevance hook")
        form.addRow("Description", self.desc_edit)
        v.addLayout(form)
        self.body_edit = QPlainTextEdit()
        self.body_edit.setObjectName("record_body")
        self.body_edit.setFont(monospace_font())
        v.addWidget(self.body_edit, 1)
        self.links_label = QLabel()
        self.links_label.setObjectName("record_links")
        self.links_label.setWordWrap(True)
        self.links_label.setTextFormat(Qt.TextFormat.RichText)
        self.links_label.linkActivated.connect(self._on_link)
        v.addWidget(self.links_label)
        self.validation_label = QLabel()
        self.validation_label.setObjectName("record_validation")
        self.validation_label.setWordWrap(True)
        self.validation_label.setTextFormat(Qt.TextFormat.RichText)
        v.addWidget(self.validation_label)
        row = QHBoxLayout()
        self.delete_button = QPushButton("Delete")
        self.delete_button.setToolTip("Stage deleting this record (nothing is written until you commit)")
        self.delete_button.clicked.connect(self.stage_delete)
        row.addWidget(self.delete_button)
        row.addStretch(1)
        self.revert_button = QPushButton("Revert")
        self.revert_button.setToolTip("Undo the edits in the editor")
        self.revert_button.clicked.connect(self.revert_editor)
        row.addWidget(self.revert_button)
        self.stage_button = QPushButton("Stage")
        self.stage_button.setToolTip("Add this record to the batch of changes to commit")
        self.stage_button.clicked.connect(self.stage_current)
        row.addWidget(self.stage_button)
        v.addLayout(row)
        for w in (self.name_edit, self.desc_edit):
            w.textChanged.connect(self._on_editor_changed)
        self.type_combo.currentIndexChanged.connect(self._on_editor_changed)
        self.body_edit.textChanged.connect(self._on_editor_changed)
        return page

    def _build_staged(self) -> QWidget:
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(6, 6, 6, 6)
        self.staged_label = QLabel("Nothing staged.")
        self.staged_label.setWordWrap(True)
        v.addWidget(self.staged_label)
        self.diff_view = DiffView()
        self.diff_view.setObjectName("staged_diff")
        self.diff_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # the pane is narrow
        v.addWidget(self.diff_view, 1)
        row = QHBoxLayout()
        self.discard_button = QPushButton("Discard all")
        self.discard_button.clicked.connect(self.discard_staged)
        row.addWidget(self.discard_button)
        row.addStretch(1)
        self.commit_button = QPushButton("Commit")
        self.commit_button.setObjectName("commit_button")
        self.commit_button.setToolTip("Write every staged change at once (Ctrl+S)")
        self.commit_button.clicked.connect(self.commit)
        row.addWidget(self.commit_button)
        v.addLayout(row)
        self._update_staged_view()
        return page

    def _build_agent_view(self) -> QWidget:
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(6, 6, 6, 6)
        self.agent_label = QLabel()
        self.agent_label.setWordWrap(True)
        v.addWidget(self.agent_label)
        self.agent_view = QPlainTextEdit()
        self.agent_view.setObjectName("agent_view")
        self.agent_view.setReadOnly(True)
        self.agent_view.setFont(monospace_font())
        self.agent_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        v.addWidget(self.agent_view, 1)
        return page

    # =========================================================================================
    # tab protocol
    # =========================================================================================
    def refresh(self) -> None:
        if self._closing:
            return
        self.index_freshness.mark_stale()  # memory may have changed: the next search re-reads it
        store = self.ctx.store
        self.ctx.runner.submit(
            lambda _t, _p: store.list_workspaces(), on_done=self._on_workspaces, on_error=self._on_list_failed
        )

    def _on_list_failed(self, exc: BaseException) -> None:
        self._listed = True
        self._on_error(exc)
        self.workspaces_loaded.emit()

    def error_text(self) -> str:
        """The error shown in the tab right now ("" when none); read by the self-test."""
        return self.banner.text if self.banner.level == "error" else ""

    def has_unsaved_changes(self) -> bool:
        return bool(self.staged) or self.editor_dirty()

    def save(self) -> None:
        """Ctrl+S: stage the editor's edits (if any), then commit the batch."""
        if self.editor_dirty() and not self.stage_current():
            return
        if self.staged:
            self.commit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.search_box and event.type() == QEvent.Type.FocusIn:
            self.prefetch_index()
        return super().eventFilter(watched, event)

    def prefetch_index(self) -> None:
        """Refresh the search index on a worker now, so the first query doesn't wait for it."""
        index, freshness = self.ctx.search, self.index_freshness
        if index is None or self._closing or self._index_prefetching or freshness.done >= freshness.wanted:
            return
        self._index_prefetching = True

        def finished(_result: object = None) -> None:
            self._index_prefetching = False

        self.ctx.runner.submit(lambda _t, _p: freshness.ensure(index), on_done=finished, on_error=finished)

    def focus_search(self) -> None:
        target = self.search_box if self.ctx.search is not None else self.rec_filter
        if target is self.search_box:
            self.prefetch_index()
        target.setFocus()
        target.selectAll()

    def shutdown(self) -> None:
        self._closing = True
        self._search_timer.stop()

    # =========================================================================================
    # workspaces
    # =========================================================================================
    def _on_workspaces(self, infos: list[WorkspaceInfo]) -> None:
        if self._closing:
            return
        self._listed = True
        try:
            self._show_workspaces(infos)
        finally:
            self.workspaces_loaded.emit()

    def _show_workspaces(self, infos: list[WorkspaceInfo]) -> None:
        self._suppress_selection = True
        try:
            self.ws_model.set_workspaces(infos)
        finally:
            self._suppress_selection = False
        keys = {i.key for i in infos}
        if self.current_key is not None and self.current_key not in keys:
            if self.staged:
                self.ws_banner.show_message(
                    "error",
                    "This workspace was archived or removed outside this window. Your staged changes "
                    "can't be committed; restore it from the Recycle Bin to continue.",
                )
                return
            self._show_workspace(None)
        if self.current_key is None and infos:
            first = self.ws_proxy.index(0, 0)
            key = first.data(KEY_ROLE) if first.isValid() else infos[0].key
            self.select_workspace(str(key))
            return
        if self.current_key is not None:
            self._select_row(self.ws_view, self.ws_model.row_of(self.current_key), self.ws_proxy)
            self._load_snapshot(self.current_key)
        self._update_workspace_header()

    def workspace_info(self) -> WorkspaceInfo | None:
        if self.current_key is None:
            return None
        row = self.ws_model.row_of(self.current_key)
        if row >= 0:
            return self.ws_model.workspace(row)
        return self.snapshot.info if self.snapshot else None

    def select_workspace(self, key: str) -> bool:
        """Show workspace ``key`` (asks first when staged changes or editor edits would be lost)."""
        if key == self.current_key:
            self._select_row(self.ws_view, self.ws_model.row_of(key), self.ws_proxy)
            return True
        if self.has_unsaved_changes() and not self.ctx.dialogs.confirm(
            self,
            "Discard changes?",
            "You have changes in this workspace that are not committed. Discard them and switch?",
            "Discard",
        ):
            self._select_row(self.ws_view, self.ws_model.row_of(self.current_key or ""), self.ws_proxy)
            return False
        self._show_workspace(key)
        self._select_row(self.ws_view, self.ws_model.row_of(key), self.ws_proxy)
        return True

    def _show_workspace(self, key: str | None) -> None:
        self.current_key = key
        self.snapshot = None
        self.pending_snapshot = None
        self.base_revision = None
        self.staged.clear()
        self._clear_editor()
        self.rec_model.set_rows([])
        self.ws_banner.clear()
        self._update_staged_view()
        self._update_workspace_header()
        self._update_agent_view()
        if key is not None:
            self._load_snapshot(key)

    def _on_workspace_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._suppress_selection or not current.isValid():
            return
        key = current.data(KEY_ROLE)
        if key and key != self.current_key:
            self.select_workspace(str(key))

    def _load_snapshot(self, key: str, then: Callable[[], object] | None = None) -> None:
        store = self.ctx.store

        def done(snap: WorkspaceSnapshot) -> None:
            self._on_snapshot(snap)
            if then is not None:
                then()

        def failed(exc: BaseException) -> None:
            if isinstance(exc, NotFoundError) and key == self.current_key and not self.staged:
                self._show_workspace(None)
                self.ws_banner.show_message("info", "That workspace is no longer there (archived or removed).")
                return
            self._on_error(exc)

        self.ctx.runner.submit(lambda _t, _p: store.read_workspace(key), on_done=done, on_error=failed)

    def _on_snapshot(self, snap: WorkspaceSnapshot) -> None:
        if self._closing or snap.key != self.current_key:
            return
        if self.snapshot is not None and snap.revision == self.snapshot.revision:
            return
        if self.snapshot is not None and (self.staged or self.editor_dirty()):
            # Never pull the floor from under pending work: keep what the user is working on.
            self.pending_snapshot = snap
            what = "staged changes" if self.staged else "edits"
            self.ws_banner.show_message(
                "warning",
                f"This workspace changed on disk (an agent or another program wrote to it). Your {what} "
                "are kept; reload to review them against the new version.",
                [("Reload and re-review", self.rebase_on_disk)],
            )
            return
        self._apply_snapshot(snap)

    def _apply_snapshot(self, snap: WorkspaceSnapshot) -> None:
        old = self.snapshot
        self.snapshot = snap
        self.pending_snapshot = None
        self.base_revision = snap.revision
        self._rebuild_rows()
        self._update_workspace_header()
        self._update_agent_view()
        self._update_staged_view()
        if self.ws_banner.level == "warning" and not self.staged:
            self.ws_banner.clear()
        self._show_cwd_warning()
        # Keep the editor in step with disk when it holds no edits of its own.
        if self.editing_name is not None and not self.editor_dirty():
            entry = snap.get(self.editing_name)
            old_entry = old.get(self.editing_name) if old else None
            if entry is None and self.editing_name not in self.staged:
                self._clear_editor()
                self.banner.show_message("info", "The record you were viewing was deleted on disk.")
            elif entry is not None and (old_entry is None or old_entry.revision != entry.revision):
                self._load_editor(self.editing_name)
        if self.editing_name is not None:
            self._select_record_row(self.editing_name)
        elif self.rec_view.currentIndex().isValid() is False and self.rec_proxy.rowCount() and old is None:
            self._select_row(self.rec_view, 0, None)

    def _show_cwd_warning(self) -> None:
        info = self.workspace_info()
        if info is None or info.cwd_exists:
            if self.ws_banner.level == "error" and "no longer exists" in self.ws_banner.label.text():
                self.ws_banner.clear()
            return
        if self.ws_banner.level in ("", "error"):
            self.ws_banner.show_message(
                "error",
                f"The folder {info.cwd} no longer exists. Agents will never load this workspace again; "
                "archive it to the Recycle Bin (you can restore it later).",
                [("Archive workspace…", self.archive_workspace)],
            )

    def rebase_on_disk(self) -> None:
        """Adopt the newest disk state, keeping staged changes (re-review their diffs) and editor edits."""
        if self.current_key is None:
            return
        key = self.current_key

        def adopt(snap: WorkspaceSnapshot) -> None:
            if snap.key != self.current_key:
                return
            self.snapshot = snap
            self.pending_snapshot = None
            self.base_revision = snap.revision
            self.ws_banner.clear()
            self._rebuild_rows()
            self._update_workspace_header()
            self._update_agent_view()
            self._update_staged_view()
            self._show_cwd_warning()
            self._on_editor_changed()
            if self.staged:
                self.detail.setCurrentIndex(1)
                self.banner.show_message(
                    "info", "Reloaded. Review the staged changes against the current version, then commit."
                )

        store = self.ctx.store
        self.ctx.runner.submit(lambda _t, _p: store.read_workspace(key), on_done=adopt, on_error=self._on_error)

    def _update_workspace_header(self) -> None:
        info = self.workspace_info()
        if info is None:
            if not self._listed:
                self.ws_title.setText("Loading workspaces…")
            else:
                self.ws_title.setText("No workspace selected" if self.ws_model.rowCount() else "No workspaces yet.")
            self.archive_button.setEnabled(False)
            self.new_button.setEnabled(False)
            return
        flags = []
        if not info.cwd_exists:
            flags.append('<span style="color:#b3261e">folder missing</span>')
        if info.invalid_count:
            flags.append(f'<span style="color:#b3261e">{info.invalid_count} invalid</span>')
        extra = (" · " + " · ".join(flags)) if flags else ""
        self.ws_title.setText(
            f'<b>{html.escape(info.display_name)}</b>{extra}<br><span style="color:#555">{html.escape(info.cwd)}</span>'
        )
        self.archive_button.setEnabled(True)
        self.new_button.setEnabled(True)

    def _update_agent_view(self) -> None:
        snap = self.snapshot
        if snap is None:
            self.agent_label.setText("Select a workspace.")
            self.agent_view.setPlainText("")
            return
        size = len(snap.index_text.encode("utf-8"))
        self.agent_label.setText(
            f"<b>MEMORY.md</b> — {format_size(size)} ({size:,} bytes). This index is what the agent loads "
            "for this workspace; it opens individual records when one looks relevant. It is rebuilt "
            "on every commit and never edited by hand."
        )
        self.agent_view.setPlainText(snap.index_text or "(MEMORY.md is missing: the next commit writes it)")

    # =========================================================================================
    # records table
    # =========================================================================================
    def _rebuild_rows(self) -> None:
        rows: list[RecordRow] = []
        snap = self.snapshot
        seen: set[str] = set()
        if snap is not None:
            for e in snap.entries:
                seen.add(e.name)
                rows.append(self._row_for(e.name, e))
        for name, op in self.staged.items():
            if name not in seen and isinstance(op, PutOp):
                rows.append(self._row_for(name, None))
        self.rec_model.set_rows(rows)
        self._fit_name_column(rows)
        total = len(rows)
        invalid = sum(1 for r in rows if r.invalid_reasons)
        text = f"{total} record{'s' if total != 1 else ''}"
        if invalid:
            text += f", {invalid} invalid"
        if self.staged:
            text += f", {len(self.staged)} staged"
        self.count_label.setText(text)

    def _fit_name_column(self, rows: list[RecordRow]) -> None:
        """Size the Name column to the longest name once per load (never per keystroke)."""
        key = (self.current_key, len(rows))
        if self._fitted_for == key:
            return
        self._fitted_for = key
        fm = self.rec_view.fontMetrics()
        widest = max((fm.horizontalAdvance(r.name) for r in rows), default=120)
        self.rec_view.horizontalHeader().resizeSection(0, max(120, min(widest + 16, 235)))

    def _row_for(self, name: str, entry: RecordEntry | None) -> RecordRow:
        op = self.staged.get(name)
        staged = ""
        record = entry.record if entry is not None else None
        if isinstance(op, PutOp):
            staged = "changed" if entry is not None else "new"
            record = op.record
        elif isinstance(op, DeleteOp):
            staged = "deleted"
        reasons = entry.invalid_reasons if entry is not None and not isinstance(op, PutOp) else ()
        file_name = entry.file_name if entry is not None else f"{name}.md"
        size = entry.size if entry is not None else 0
        if isinstance(op, PutOp):
            size = len(render_record(op.record))
        if record is not None:
            hay = f"{record.name}\n{record.description}\n{record.type}\n{record.body}".lower()
            return RecordRow(name, file_name, record.type, record.description, size, reasons, staged, hay)
        return RecordRow(name, file_name, "", "", size, reasons, staged, f"{name}\n{' '.join(reasons)}".lower())

    def _on_record_current(self, current: QModelIndex, previous: QModelIndex) -> None:
        if self._suppress_selection or not current.isValid():
            return
        name = str(current.data(KEY_ROLE))
        if name == self.editing_name and self._editor_active:
            return
        if self.editor_dirty():
            choice = self.ctx.dialogs.choose(
                self,
                "Unstaged edits",
                f"Your edits to {self.editing_name or 'the new record'} are not staged yet.",
                ["Stage", "Discard"],
            )
            if choice is None or (choice == "Stage" and not self.stage_current()):
                self._select_record_row(self.editing_name, fallback=previous)
                return
        self._load_editor(name)

    def select_record(self, name: str) -> bool:
        """Select ``name`` in the table (clearing filters that hide it) and open it in the editor."""
        if self.rec_model.row_of(name) < 0:
            return False
        if not self._select_record_row(name):
            self.rec_filter.clear()
            self.type_filter.setCurrentIndex(0)
            self._select_record_row(name)
        return self.editing_name == name

    def _select_record_row(self, name: str | None, fallback: QModelIndex | None = None) -> bool:
        row = self.rec_model.row_of(name) if name else -1
        if row < 0:
            return False
        proxy_index = self.rec_proxy.mapFromSource(self.rec_model.index(row, 0))
        if not proxy_index.isValid():
            return False
        if self.rec_view.currentIndex().row() == proxy_index.row():
            if self.editing_name != name:
                self._load_editor(str(name))
            return True
        self.rec_view.selectionModel().setCurrentIndex(
            proxy_index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.rec_view.scrollTo(proxy_index)
        return True

    def _select_row(self, view: QTableView, source_row: int, proxy: Any) -> None:
        if source_row < 0:
            return
        model = view.model()
        if proxy is not None:
            index = proxy.mapFromSource(proxy.sourceModel().index(source_row, 0))
        else:
            index = model.index(source_row, 0)
        if not index.isValid() or view.currentIndex().row() == index.row():
            return
        self._suppress_selection = proxy is not None and view is self.ws_view
        try:
            view.selectionModel().setCurrentIndex(
                index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
            )
        finally:
            self._suppress_selection = False

    # =========================================================================================
    # record editor
    # =========================================================================================
    def _editor_fields(self) -> tuple[str, str, str, str]:
        return (
            self.name_edit.text().strip(),
            str(self.type_combo.currentData() or "project"),
            self.desc_edit.text(),
            self.body_edit.toPlainText(),
        )

    def editor_dirty(self) -> bool:
        return self._editor_active and self._editor_fields() != self._editor_loaded

    def editor_record(self) -> Record:
        name, rtype, desc, body = self._editor_fields()
        return Record.model_validate(
            {
                "name": name,
                "type": rtype,
                "description": desc,
                "body": body,
                "extra_frontmatter": self._editor_extra,
            }
        )

    def _set_editor_enabled(self, enabled: bool) -> None:
        for w in (self.name_edit, self.type_combo, self.desc_edit, self.body_edit):
            w.setEnabled(enabled)
        self.stage_button.setEnabled(enabled)
        self.revert_button.setEnabled(enabled)
        self.delete_button.setEnabled(enabled and self.editing_name is not None)

    def _fill_editor(self, name: str, rtype: str, desc: str, body: str, extra: str = "") -> None:
        self._editor_active = False  # no validation churn while filling
        self.name_edit.setText(name)
        i = self.type_combo.findData(rtype)
        self.type_combo.setCurrentIndex(i if i >= 0 else self.type_combo.findData("project"))
        self.desc_edit.setText(desc)
        self.desc_edit.setCursorPosition(0)  # show the start of a long description
        self.body_edit.setPlainText(body)
        self._editor_extra = extra
        self._editor_loaded = self._editor_fields()
        self._editor_active = True

    def _clear_editor(self) -> None:
        self._editor_active = False
        self.editing_name = None
        self._editor_invalid_file = False
        for w in (self.name_edit, self.desc_edit):
            w.clear()
        self.body_edit.clear()
        self._editor_loaded = self._editor_fields()
        self.validation_label.setText("")
        self.links_label.setText("")
        self._set_editor_enabled(False)

    def _load_editor(self, name: str) -> None:
        snap = self.snapshot
        entry = snap.get(name) if snap else None
        op = self.staged.get(name)
        self.editing_name = name
        self._editor_invalid_file = False
        if isinstance(op, PutOp):
            r = op.record
            self._fill_editor(r.name, r.type, r.description, r.body, r.extra_frontmatter)
        elif entry is not None and entry.record is not None and entry.is_valid:
            r = entry.record
            self._fill_editor(r.name, r.type, r.description, r.body, r.extra_frontmatter)
        elif entry is not None:
            # An invalid file: fill the fields from whatever can be read of it, so fixing it means
            # correcting fields rather than re-typing; the file itself is untouched until a commit.
            self._editor_invalid_file = True
            rtype, desc, body = salvage_fields(self._read_raw(entry))
            self._fill_editor(name, rtype, desc, body)
        else:
            self._clear_editor()
            return
        self._set_editor_enabled(True)
        self._on_editor_changed()

    def _read_raw(self, entry: RecordEntry) -> str:
        root = self.ctx.store.root
        if root is None or self.current_key is None:
            return ""
        path = Path(root) / "workspaces" / self.current_key / entry.file_name
        try:
            return path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def new_record(self) -> None:
        if self.snapshot is None:
            return
        if self.editor_dirty():
            choice = self.ctx.dialogs.choose(
                self, "Unstaged edits", "Your edits in the editor are not staged yet.", ["Stage", "Discard"]
            )
            if choice is None or (choice == "Stage" and not self.stage_current()):
                return
        self.rec_view.selectionModel().clearCurrentIndex()
        self.editing_name = None
        self._fill_editor("", "project", "", NEW_BODY)
        self._editor_loaded = ("", "", "", "")  # a new record is unsaved from the start
        self._set_editor_enabled(True)
        self.delete_button.setEnabled(False)
        self.detail.setCurrentIndex(0)
        self.name_edit.setFocus()
        self._on_editor_changed()

    def revert_editor(self) -> None:
        if self.editing_name is None:
            self._clear_editor()
        else:
            self._load_editor(self.editing_name)

    def known_names(self) -> set[str]:
        names = {e.name for e in self.snapshot.entries} if self.snapshot else set()
        for name, op in self.staged.items():
            if isinstance(op, PutOp):
                names.add(name)
            else:
                names.discard(name)
        return names

    def _validation_reasons(self) -> list[str]:
        name = self._editor_fields()[0]
        try:
            record = self.editor_record()
        except ValueError as exc:
            return [str(exc)]
        reasons = list(validate_record(record, f"{name}.md" if name else None))
        if name and name != self.editing_name and name in self.known_names():
            reasons.append(f"a record named {name!r} already exists in this workspace")
        return reasons

    def _on_editor_changed(self) -> None:
        if not self._editor_active:
            return
        reasons = self._validation_reasons()
        self._last_reasons = reasons
        _, _, desc, body = self._editor_fields()
        self._in_editor_changed = True
        try:
            secrets = self._secret_check(desc + "\n" + body)
        finally:
            self._in_editor_changed = False
        parts = []
        if self._editor_invalid_file:
            entry = self.snapshot.get(self.editing_name or "") if self.snapshot else None
            if entry is not None and entry.invalid_reasons:
                parts.append(
                    "<span style='color:#b3261e'><b>This file is invalid</b> (agents skip it): "
                    + html.escape("; ".join(entry.invalid_reasons))
                    + ". The fields show what could be read from it; correct them and stage to replace "
                    "the file (Staged changes shows the old text against the new).</span>"
                )
                if "\ufffd" in self._editor_loaded[3]:
                    parts.append(
                        "<span style='color:#b3261e'>Bytes that are not UTF-8 are shown as �; staging "
                        "writes them as � (the old file stays in the Recycle Bin's history).</span>"
                    )
        if reasons:
            parts.append(
                "<span style='color:#b3261e'>" + "<br>".join(f"✗ {html.escape(r)}" for r in reasons) + "</span>"
            )
        if secrets:
            parts.append(
                "<span style='color:#8a5a00'>⚠ Looks like a credential — agents read memory: "
                + html.escape("; ".join(secrets))
                + "</span>"
            )
        if not reasons and not secrets and not self._editor_invalid_file:
            parts.append("<span style='color:#1b6e20'>✓ Valid record</span>")
        self.validation_label.setText("<br>".join(parts))
        # An invalid file can be staged as soon as the fields make a valid record, edited or not.
        self.stage_button.setEnabled(not reasons and (self.editor_dirty() or self._editor_invalid_file))
        self.revert_button.setEnabled(self.editor_dirty())
        self._update_links(body)

    def _secret_check(self, text: str) -> list[str]:
        """Credential warnings for the editor text, once the scanner is warm.

        The scanner's first use imports detect-secrets (~0.2-0.5 s of CPU). Opening a record (the
        first one opens by itself at start-up) never waits for that: the window warms it on a worker
        once start-up is done (``warm_up``), and the check re-runs then. The first edit warms it too.
        """
        if not _SecretScan.ready and self.editor_dirty():
            self.warm_up()
        return _secret_warnings(text) if _SecretScan.ready else []

    def warm_up(self) -> None:
        """Optional tab protocol: slow one-off preparations, run after start-up (the window calls it)."""
        if _SecretScan.ready or self._secrets_warming or self._closing:
            return
        self._secrets_warming = True
        self.ctx.runner.submit(
            lambda _t, _p: _secret_warnings("password = 'warm-up'"),
            on_done=self._secrets_warmed,
            on_error=self._secrets_warmed,
        )

    def _secrets_warmed(self, _result: object = None) -> None:
        _SecretScan.ready = True
        self._secrets_warming = False
        if not self._in_editor_changed and not self._closing:
            self._on_editor_changed()

    def _update_links(self, body: str) -> None:
        links = find_links(body)
        if not links:
            self.links_label.setText("")
            return
        known = self.known_names()
        parts = []
        for link in links:
            if link in known:
                parts.append(f'<a href="{html.escape(link)}">[[{html.escape(link)}]]</a>')
            else:
                parts.append(
                    f'<span style="color:#b3261e;text-decoration:line-through" title="no such record">'
                    f"[[{html.escape(link)}]]</span> <span style='color:#b3261e'>(missing)</span>"
                )
        self.links_label.setText("Links: " + " · ".join(parts))

    def broken_links(self) -> list[str]:
        known = self.known_names()
        return [x for x in find_links(self.body_edit.toPlainText()) if x not in known]

    def _on_link(self, name: str) -> None:
        self.select_record(name)

    # =========================================================================================
    # staging, diff, commit
    # =========================================================================================
    def stage_current(self) -> bool:
        """Stage the editor's record as a put (a rename also stages deleting the old name)."""
        if not self._editor_active or self.snapshot is None:
            return False
        reasons = self._validation_reasons()
        if reasons:
            self.banner.show_message("error", "Can't stage this record: " + "; ".join(reasons))
            return False
        record = self.editor_record()
        old_name = self.editing_name
        if old_name is not None and old_name != record.name:
            entry = self.snapshot.get(old_name)
            if entry is not None:
                self.staged[old_name] = DeleteOp(name=old_name)
            else:
                self.staged.pop(old_name, None)
        entry = self.snapshot.get(record.name)
        if entry is not None and entry.is_valid and entry.record == record:
            self.staged.pop(record.name, None)  # back to what is on disk: nothing to do
        else:
            self.staged[record.name] = PutOp(record=record)
        self.editing_name = record.name
        self._editor_invalid_file = False
        self._editor_loaded = self._editor_fields()
        self.banner.clear()
        self._after_staging_changed()
        self._select_record_row(record.name)
        self._on_editor_changed()
        return True

    def stage_delete(self) -> None:
        name = self.editing_name
        if name is None or self.snapshot is None:
            return
        if self.snapshot.get(name) is None:
            self.staged.pop(name, None)  # a staged new record: just drop it
            self._clear_editor()
        else:
            self.staged[name] = DeleteOp(name=name)
            self._editor_loaded = self._editor_fields()
        self._after_staging_changed()

    def discard_staged(self) -> None:
        self.staged.clear()
        self._after_staging_changed()
        if self.pending_snapshot is not None and not self.editor_dirty():
            self._apply_snapshot(self.pending_snapshot)
        if self.editing_name is not None:
            if self.snapshot is not None and self.snapshot.get(self.editing_name) is None:
                self._clear_editor()
            else:
                self._load_editor(self.editing_name)

    def _after_staging_changed(self) -> None:
        self._rebuild_rows()
        self._update_staged_view()

    def staged_ops(self) -> list[Op]:
        return list(self.staged.values())

    def _old_bytes(self, name: str) -> bytes | None:
        snap = self.snapshot
        entry = snap.get(name) if snap else None
        if entry is None:
            return None
        raw = self._read_raw(entry)
        if raw:
            return raw.encode("utf-8")
        return render_record(entry.record) if entry.record is not None else b""

    def staged_diff(self) -> str:
        """Per-file unified diffs of the batch, MEMORY.md included."""
        snap = self.snapshot
        if snap is None or not self.staged:
            return ""
        chunks: list[str] = []
        for name in sorted(self.staged):
            op = self.staged[name]
            old = self._old_bytes(name)
            old_text = old.decode("utf-8", "replace") if old is not None else ""
            if isinstance(op, PutOp):
                new_text = render_record(op.record, base=old).decode("utf-8")
                label_old = f"a/{name}.md" if old is not None else "/dev/null"
                chunks.append(unified_diff(old_text, new_text, label_old, f"b/{name}.md"))
            else:
                chunks.append(unified_diff(old_text, "", f"a/{name}.md", "/dev/null"))
        records = {r.name: r for r in snap.records()}
        for name, op in self.staged.items():
            if isinstance(op, PutOp):
                records[name] = op.record
            else:
                records.pop(name, None)
        new_index = render_index(records.values()).decode("utf-8")
        chunks.append(unified_diff(snap.index_text, new_index, "a/MEMORY.md", "b/MEMORY.md"))
        return "\n".join(c for c in chunks if c)

    def _update_staged_view(self) -> None:
        n = len(self.staged)
        self.detail.setTabText(1, f"Staged changes ({n})" if n else "Staged changes")
        if not n:
            self.staged_label.setText(
                "Nothing staged. Edit a record and press Stage; changes are written together on Commit."
            )
            self.diff_view.set_diff("", "")
        else:
            names = ", ".join(
                f"{'delete ' if isinstance(op, DeleteOp) else ''}{name}" for name, op in sorted(self.staged.items())
            )
            self.staged_label.setText(
                f"<b>{n} staged change{'s' if n != 1 else ''}</b>: {html.escape(names)}. "
                "Review the diff, then Commit writes them all at once (or nothing)."
            )
            self.diff_view.set_diff(self.staged_diff())
        self.commit_button.setEnabled(bool(n) and not self._busy)
        self.discard_button.setEnabled(bool(n))

    def commit(self, *, allow_secrets: bool = False) -> None:
        if not self.staged or self.snapshot is None or self.current_key is None or self._busy:
            return
        key = self.current_key
        ops = self.staged_ops()
        expect = self.base_revision
        store = self.ctx.store
        self._busy = True
        self.commit_button.setEnabled(False)

        def done(snap: WorkspaceSnapshot) -> None:
            self._busy = False
            count = len(ops)
            self.staged.clear()
            self.snapshot = None  # force apply even when an external refresh raced us
            self.current_key = snap.key
            self._apply_snapshot(snap)
            if self.editing_name is not None:
                if snap.get(self.editing_name) is None:
                    self._clear_editor()
                else:
                    self._load_editor(self.editing_name)
            self.banner.show_message("ok", f"Committed {count} change{'s' if count != 1 else ''}.")
            self.refresh()

        def failed(exc: BaseException) -> None:
            self._busy = False
            self._update_staged_view()
            if isinstance(exc, ConflictError):
                self._on_commit_conflict(exc)
            elif isinstance(exc, SecretRefusedError) and not allow_secrets:
                where = "\n".join(exc.findings)
                if self.ctx.dialogs.confirm(
                    self,
                    "Possible credential",
                    f"The staged changes look like they contain a credential:\n{where}\n\n"
                    "Agents read memory. Commit anyway?",
                    "Commit anyway",
                ):
                    self.commit(allow_secrets=True)
                else:
                    self.banner.show_message(
                        "warning", "Not committed: remove the credential, stage, and commit again."
                    )
            elif isinstance(exc, InvalidRecordError):
                self.banner.show_message("error", describe_error(exc))
            else:
                self._on_error(exc)

        self.ctx.runner.submit(
            lambda _t, _p: store.commit(key, ops, expect, origin="manual", allow_secrets=allow_secrets),
            on_done=done,
            on_error=failed,
        )

    def _on_commit_conflict(self, exc: ConflictError) -> None:
        self.banner.show_message(
            "warning",
            "Not committed: this workspace changed on disk after you started (an agent or another program "
            "wrote to it). Nothing was written; your staged changes are kept.",
            [("Reload and re-review", self.rebase_on_disk)],
        )
        if self.ctx.dialogs.confirm(
            self,
            "Workspace changed on disk",
            "This workspace changed on disk after you staged your changes, so nothing was written.\n\n"
            "Reload it now? Your staged changes are kept and shown against the current version so you "
            "can review them again before committing.",
            "Reload",
        ):
            self.rebase_on_disk()

    # =========================================================================================
    # archive
    # =========================================================================================
    def archive_workspace(self) -> None:
        info = self.workspace_info()
        if info is None or self.current_key is None:
            return
        staged_note = "\n\nYour staged changes will be discarded." if self.staged else ""
        missing = "" if info.cwd_exists else "\nIts folder no longer exists.\n"
        if not self.ctx.dialogs.confirm(
            self,
            "Archive workspace?",
            f"Move the workspace {info.display_name} ({info.cwd}) to the Recycle Bin?\n{missing}\n"
            "Agents will no longer load its memory. You can restore it from the Recycle Bin." + staged_note,
            "Archive",
        ):
            return
        key = self.current_key
        expect = self.snapshot.revision if self.snapshot and not self.pending_snapshot else None
        store = self.ctx.store

        def done(_info: WorkspaceInfo) -> None:
            self._show_workspace(None)
            self.banner.show_message("ok", f"Archived {info.display_name}. It is in the Recycle Bin.")
            self.refresh()

        def failed(exc: BaseException) -> None:
            if isinstance(exc, ConflictError):
                self.banner.show_message(
                    "warning",
                    "Not archived: the workspace changed on disk just now. Look at it again, then archive.",
                )
                self._load_snapshot(key)
            else:
                self._on_error(exc)

        self.ctx.runner.submit(lambda _t, _p: store.archive(key, expect), on_done=done, on_error=failed)

    # =========================================================================================
    # search
    # =========================================================================================
    def _on_search_text(self, text: str) -> None:
        if not text.strip():
            self._search_timer.stop()
            self.search_model.set_hits([])
            self.search_view.hide()
            self.search_status.hide()
            return
        self._search_timer.start()

    def run_search_now(self) -> None:
        self._search_timer.stop()
        self._run_search()

    def _run_search(self) -> None:
        query = self.search_box.text().strip()
        index = self.ctx.search
        if not query or index is None or self._closing:
            return
        self._search_seq += 1
        seq = self._search_seq
        names = {i.key: i.display_name for i in (self.ws_model.workspace(r) for r in range(self.ws_model.rowCount()))}

        def done(hits: list[SearchHit]) -> None:
            if seq != self._search_seq or self._closing:
                return  # a newer query is on its way
            self.last_search_hits = hits
            self.search_model.set_hits(hits)
            self.search_status.setText(f"{len(hits)} result{'s' if len(hits) != 1 else ''} for “{query}”")
            self.search_status.show()
            self.search_view.show()

        store, freshness = self.ctx.store, self.index_freshness
        self.ctx.runner.submit(
            lambda _t, _p: search_hits(index, store, query, names, freshness=freshness),
            on_done=done,
            on_error=self._on_error,
        )

    def _on_search_activated(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        self.open_hit(self.search_model.hit(index.row()))

    def open_hit(self, hit: SearchHit) -> None:
        if hit.scope_key is None:
            self.open_global_requested.emit()
            return
        if hit.scope_key != self.current_key and not self.select_workspace(hit.scope_key):
            return
        if self.snapshot is not None and self.snapshot.key == hit.scope_key:
            self.select_record(hit.name)
        else:
            self._load_snapshot(hit.scope_key, then=lambda: self.select_record(hit.name))

    # =========================================================================================
    def _on_error(self, exc: BaseException) -> None:
        if not self._closing:
            self.banner.show_message("error", describe_error(exc))


class IndexFreshness:
    """When the search index needs a refresh before the next query.

    ``SearchIndex.refresh()`` stats every file of the root (seconds on 10k records), so it runs
    once per change the window learns of (watcher, F5, commit), not once per query; concurrent
    queries wait for the refresh in flight instead of searching a half-empty index.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wanted = 1  # bumped on the GUI thread when memory may have changed
        self.done = 0

    def mark_stale(self) -> None:
        self.wanted += 1

    def ensure(self, index: SearchIndex) -> None:
        """On a worker: refresh ``index`` unless it is already as fresh as asked for."""
        with self.lock:
            wanted = self.wanted
            if self.done < wanted:
                index.refresh()  # re-reads only scopes whose files changed
                if self.done == 0:
                    # Build the lazy phrase tables now, on this worker, so the first typed
                    # queries don't pay for them.
                    index.warm_up()
            self.done = max(self.done, wanted)


def search_hits(
    index: SearchIndex,
    store: Any,
    query: str,
    names: dict[str, str],
    limit: int = 50,
    freshness: IndexFreshness | None = None,
) -> list[SearchHit]:
    """Run the search index and convert its hits to rows of the results model (runs on a worker)."""
    if freshness is not None:
        freshness.ensure(index)
    else:
        index.refresh()
    hits: list[SearchHit] = []
    for item in index.search(query, limit=limit).hits:
        key = None if item.scope_key == GLOBAL_SCOPE else item.scope_key
        where = "Global" if key is None else names.get(key, key)
        hits.append(SearchHit(key, item.name, where, item.snippet or item.description or "", float(item.score)))
    return hits
