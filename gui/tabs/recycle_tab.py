"""The Recycle Bin tab: archived workspaces and deleted records; preview, Restore, and Purge.

Every store call runs on ``ctx.runner``; every question goes through ``ctx.dialogs`` (the purge
question through ``ask_purge``, :mod:`gui.tabs.recycle_purge`). Purge needs the workspace name typed
exactly and is only ever offered for an archived workspace (never Global).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.display import format_time
from core.errors import ConflictError, DshMemoryError, NotFoundError
from core.models import HistoryEntry, WorkspaceInfo, WorkspaceSnapshot
from core.recycle import RecycleBin, purge_workspace, read_recycle_bin
from core.store.api import MemoryStore
from core.store.base import HISTORY_MAX_AGE
from core.sync.purge import sync_is_set_up
from gui.context import AppContext
from gui.dialogs import Dialogs
from gui.qtmodels.recycle_models import (
    ArchivedWorkspacesModel,
    DeletedRecordsModel,
    DeletedRecordsProxy,
    filter_proxy,
)
from gui.tabs.base import Tab
from gui.tabs.recycle_moved import MissingFoldersPanel
from gui.tabs.recycle_purge import PurgeQuestion, dialog_title, explain, run_purge_dialog
from gui.tabs.recycle_restore import RecordRestorer
from gui.tabs.recycle_text import describe_archived_workspace
from gui.tabs.recycle_wm_panel import WorkspaceMemoryBinPanel
from gui.widgets.banner import Banner
from gui.widgets.fonts import monospace_font
from gui.widgets.messages import describe_error
from gui.widgets.read_only import mark_writes
from gui.widgets.tables import setup_table


def _table(proxy: QSortFilterProxyModel, name: str) -> QTableView:
    view = QTableView()
    view.setObjectName(name)
    setup_table(view, row_height=None)
    view.setModel(proxy)
    return view


def _read_archived(store: MemoryStore, key: str) -> WorkspaceSnapshot:
    return store.read_workspace(key, archived=True)


class RecycleBinTab(Tab):
    """Archived workspaces and deleted records, with a preview pane and Restore / Purge."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self._busy = False
        self._contents = RecycleBin([], [])
        # (parent, question) -> the typed name after "Delete forever", or None; tests replace it.
        self.ask_purge: Callable[[QWidget, PurgeQuestion], str | None] = self._ask_purge

        self.banner = Banner()
        self.restorer = RecordRestorer(self, self.banner, self._set_busy)

        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText(self.tr("Filter by workspace, folder or record name…"))
        self.filter_edit.setClearButtonEnabled(True)
        self.show_versions_box = QCheckBox(self.tr("Also show earlier versions of edited records"))
        self.refresh_button = QPushButton(self.tr("Refresh"))

        self.archived_model = ArchivedWorkspacesModel(self)
        self.archived_proxy = filter_proxy(QSortFilterProxyModel(self), self.archived_model)
        self.archived_view = _table(self.archived_proxy, "archivedWorkspaces")
        header = self.archived_view.horizontalHeader()
        # Folders differ at their end (…/client-a/web vs …/client-b/web): elide in the middle.
        self.archived_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header.setSectionResizeMode(ArchivedWorkspacesModel.NAME, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ArchivedWorkspacesModel.FOLDER, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(ArchivedWorkspacesModel.ARCHIVED, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ArchivedWorkspacesModel.RECORDS, QHeaderView.ResizeMode.ResizeToContents)
        self.archived_view.sortByColumn(ArchivedWorkspacesModel.ARCHIVED, Qt.SortOrder.DescendingOrder)

        self.deleted_model = DeletedRecordsModel(self)
        self.deleted_proxy = DeletedRecordsProxy(self)
        filter_proxy(self.deleted_proxy, self.deleted_model)
        self.deleted_view = _table(self.deleted_proxy, "deletedRecords")
        self.deleted_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.deleted_view.horizontalHeader()
        header.setSectionResizeMode(DeletedRecordsModel.NAME, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(DeletedRecordsModel.WORKSPACE, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(DeletedRecordsModel.WHEN, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(DeletedRecordsModel.REASON, QHeaderView.ResizeMode.ResizeToContents)
        self.deleted_view.sortByColumn(DeletedRecordsModel.WHEN, Qt.SortOrder.DescendingOrder)

        self.archived_count_label = QLabel()
        self.deleted_count_label = QLabel()

        self.preview_title = QLabel(self.tr("Select an archived workspace or a deleted record to preview it."))
        self.preview_title.setWordWrap(True)
        self.preview_title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.preview_title.font()
        font.setBold(True)
        self.preview_title.setFont(font)
        self.preview = QPlainTextEdit()
        self.preview.setObjectName("recyclePreview")
        self.preview.setReadOnly(True)
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.preview.setFont(monospace_font())  # record files are Markdown source; columns line up
        self.restore_button = QPushButton(self.tr("Restore"))
        self.restore_button.setToolTip(self.tr("Put the selected workspace or record back exactly as it was"))
        self.purge_button = QPushButton(self.tr("Delete forever…"))
        self.purge_button.setToolTip(self.tr("Delete the selected archived workspace for good (asks for its name)"))

        # Another store's archive, beside ours (issue 12); it shows its previews in this tab's pane.
        self.wm_panel = WorkspaceMemoryBinPanel(ctx, self.jobs, self.banner, self._show_foreign_preview)
        self.missing_panel = MissingFoldersPanel(ctx)  # issue 28: "Moved? Pick the new folder…" beside Archive
        self.missing_panel.moved.connect(self._workspace_moved)
        self.missing_panel.archived.connect(self._workspace_moved)
        self.wm_panel.selected.connect(self._on_foreign_selected)

        mark_writes(self.restore_button, self.purge_button)  # ours; the other store's bin has its own root
        self._build_layout()

        self.filter_edit.textChanged.connect(self._on_filter)
        self.show_versions_box.toggled.connect(self._on_show_versions)
        self.refresh_button.clicked.connect(self.refresh)
        self.restore_button.clicked.connect(self.restore_selected)
        self.purge_button.clicked.connect(self.purge_selected)
        self.archived_view.selectionModel().selectionChanged.connect(lambda *_: self._on_selected("workspace"))
        self.deleted_view.selectionModel().selectionChanged.connect(lambda *_: self._on_selected("record"))
        self._update_buttons()
        self._update_counts()

    # --- layout --------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        archived_box = QGroupBox(self.tr("Archived workspaces"))
        a_layout = QVBoxLayout(archived_box)
        a_layout.addWidget(self.archived_view)
        a_layout.addWidget(self.archived_count_label)

        deleted_box = QGroupBox(self.tr("Deleted records"))
        d_layout = QVBoxLayout(deleted_box)
        d_layout.addWidget(self.deleted_view)
        bottom = QHBoxLayout()
        bottom.addWidget(self.deleted_count_label, 1)
        bottom.addWidget(self.show_versions_box)
        d_layout.addLayout(bottom)

        lists = QSplitter(Qt.Orientation.Vertical)
        lists.addWidget(self.missing_panel)
        lists.addWidget(archived_box)
        lists.addWidget(deleted_box)
        lists.addWidget(self.wm_panel)
        lists.setChildrenCollapsible(False)

        preview_box = QGroupBox(self.tr("Preview"))
        p_layout = QVBoxLayout(preview_box)
        p_layout.addWidget(self.preview_title)
        p_layout.addWidget(self.preview, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.purge_button)
        p_layout.addLayout(buttons)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(lists)
        splitter.addWidget(preview_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)

        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.refresh_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

    # --- tab protocol ----------------------------------------------------------------------------
    def tab_title(self) -> str:
        return self.tr("Recycle Bin")

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None

    def focus_search(self) -> bool:
        self.filter_edit.setFocus()
        self.filter_edit.selectAll()
        return True

    def refresh(self) -> None:
        """Reload the archived scopes and the history off the GUI thread; keep the selection."""
        store = self.ctx.store
        self.jobs.start("refresh", read_recycle_bin, store, done=self._apply_refresh, failed=self._on_load_error)
        self.wm_panel.refresh()
        self.missing_panel.refresh()

    def _workspace_moved(self, _what: object) -> None:
        self.refresh()
        self.memory_changed.emit()

    def _on_load_error(self, exc: BaseException) -> None:
        self.banner.show_message(
            "error", self.tr("Could not read the Recycle Bin: {why}").format(why=describe_error(exc)), topic="load"
        )

    def _apply_refresh(self, contents: RecycleBin) -> None:
        kind, ident = self._selected_identity()
        self._contents = contents
        self.archived_model.set_workspaces(contents.workspaces)
        self.deleted_model.set_entries(contents.history, contents.back)
        self.banner.clear(topic="load")
        self._update_counts()
        if not (kind and ident and self._reselect(kind, ident)):
            self._show_empty_preview()
        self._update_buttons()

    def _update_counts(self) -> None:
        n = self.archived_model.rowCount()
        self.archived_count_label.setText(
            self.tr("The Recycle Bin holds no archived workspaces.")
            if n == 0
            else self.tr("1 archived workspace")
            if n == 1
            else self.tr("%n archived workspaces", "", n)
        )
        shown = self.deleted_proxy.rowCount()
        days = HISTORY_MAX_AGE.days
        if shown == 0:
            text = self.tr("Nothing in the kept history.")
        elif self.deleted_proxy.show_versions:
            text = (
                self.tr("1 entry (kept for {days} days)")
                if shown == 1
                else self.tr("%n entries (kept for {days} days)", "", shown)
            ).format(days=days)
        else:
            text = (
                self.tr("1 deleted record (kept for {days} days)")
                if shown == 1
                else self.tr("%n deleted records (kept for {days} days)", "", shown)
            ).format(days=days)
        self.deleted_count_label.setText(text)

    # --- selection and preview -----------------------------------------------------------------
    def _selected_row(self, view: QTableView) -> int:
        rows = view.selectionModel().selectedRows()
        if not rows:
            return -1
        proxy = view.model()
        assert isinstance(proxy, QSortFilterProxyModel)
        return proxy.mapToSource(rows[0]).row()

    def selected_workspace(self) -> WorkspaceInfo | None:
        row = self._selected_row(self.archived_view)
        return self.archived_model.workspace(row) if row >= 0 else None

    def selected_entry(self) -> HistoryEntry | None:
        row = self._selected_row(self.deleted_view)
        return self.deleted_model.entry(row) if row >= 0 else None

    def _selected_identity(self) -> tuple[str | None, str | None]:
        ws = self.selected_workspace()
        if ws is not None:
            return "workspace", ws.key
        entry = self.selected_entry()
        if entry is not None:
            return "record", entry.id
        return None, None

    def select_workspace(self, key: str) -> bool:
        return self._reselect("workspace", key)

    def select_entry(self, entry_id: str) -> bool:
        return self._reselect("record", entry_id)

    def _reselect(self, kind: str, ident: str) -> bool:
        source: QAbstractTableModel
        if kind == "workspace":
            view, proxy, row = self.archived_view, self.archived_proxy, self.archived_model.row_of(ident)
            source = self.archived_model
        else:
            view, proxy, row = self.deleted_view, self.deleted_proxy, self.deleted_model.row_of(ident)
            source = self.deleted_model
        if row < 0:
            return False
        index = proxy.mapFromSource(source.index(row, 0))
        if not index.isValid():
            return False
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        view.selectionModel().setCurrentIndex(index, flags)
        view.scrollTo(index)
        return True

    def _show_foreign_preview(self, title: str, text: str) -> None:
        self.preview_title.setText(title)
        self.preview.setPlainText(text)

    def _on_foreign_selected(self) -> None:
        # One selection across all tables: our Restore/Purge never act beside the other store's.
        for view in (self.archived_view, self.deleted_view):
            view.selectionModel().blockSignals(True)
            view.selectionModel().clearSelection()
            view.selectionModel().blockSignals(False)
            view.viewport().update()
        self.jobs.cancel("preview")
        self._update_buttons()

    def _on_selected(self, kind: str) -> None:
        # One selection across both tables, so Restore always means one thing.
        if self.archived_view.selectionModel().hasSelection() or self.deleted_view.selectionModel().hasSelection():
            self.wm_panel.clear_selection()
        other = self.deleted_view if kind == "workspace" else self.archived_view
        this = self.archived_view if kind == "workspace" else self.deleted_view
        if this.selectionModel().hasSelection() and other.selectionModel().hasSelection():
            other.selectionModel().blockSignals(True)
            other.selectionModel().clearSelection()
            other.selectionModel().blockSignals(False)
            other.viewport().update()
        self._update_buttons()
        ws, entry = self.selected_workspace(), self.selected_entry()
        if ws is not None:
            self._preview_workspace(ws)
        elif entry is not None:
            self._preview_entry(entry)
        else:
            self._show_empty_preview()

    def _show_empty_preview(self) -> None:
        self.jobs.cancel("preview")
        self.preview_title.setText(self.tr("Select an archived workspace or a deleted record to preview it."))
        self.preview.setPlainText("")

    def _preview_workspace(self, ws: WorkspaceInfo) -> None:
        self.preview_title.setText(self.tr("Archived workspace “{name}”").format(name=ws.display_name))
        self.preview.setPlainText(self.tr("Loading…"))

        def done(snap: WorkspaceSnapshot) -> None:
            self.preview.setPlainText(describe_archived_workspace(snap))

        def failed(exc: BaseException) -> None:
            self.preview.setPlainText(
                self.tr("Could not read this archived workspace: {why}").format(why=describe_error(exc))
            )

        self.jobs.start("preview", _read_archived, self.ctx.store, ws.key, done=done, failed=failed)

    def _preview_entry(self, entry: HistoryEntry) -> None:
        where = DeletedRecordsModel.workspace_label(entry)
        template = (
            self.tr("Deleted record “{name}” from {where}, {when}")
            if entry.reason == "delete"
            else self.tr("Earlier version of “{name}” from {where}, {when}")
        )
        self.preview_title.setText(template.format(name=entry.name, where=where, when=format_time(entry.time)))
        self.preview.setPlainText(self.tr("Loading…"))

        def done(data: bytes) -> None:
            self.preview.setPlainText(data.decode("utf-8", errors="replace"))

        def failed(exc: BaseException) -> None:
            self.preview.setPlainText(self.tr("Could not read this record: {why}").format(why=describe_error(exc)))

        self.jobs.start("preview", self.ctx.store.history.read, entry.id, done=done, failed=failed)

    def _update_buttons(self) -> None:
        ws, entry = self.selected_workspace(), self.selected_entry()
        self.restore_button.setEnabled(not self._busy and (ws is not None or entry is not None))
        # Purge exists only for archived workspaces: Global and single records are never offered.
        self.purge_button.setEnabled(not self._busy and ws is not None)
        if entry is not None and (entry.reason == "overwrite" or entry.id in self.deleted_model.back):
            self.restore_button.setText(self.tr("Restore this version"))
        else:
            self.restore_button.setText(self.tr("Restore"))

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_buttons()

    # --- filter ----------------------------------------------------------------------------------
    def _on_filter(self, text: str) -> None:
        self.archived_proxy.setFilterFixedString(text)
        self.deleted_proxy.setFilterFixedString(text)
        self._update_counts()

    def _on_show_versions(self, show: bool) -> None:
        self.deleted_proxy.set_show_versions(show)
        self._update_counts()
        self._update_buttons()

    # --- restore -----------------------------------------------------------------------------------
    def restore_selected(self) -> None:
        ws, entry = self.selected_workspace(), self.selected_entry()
        if ws is not None:
            self._restore_workspace(ws)
        elif entry is not None:
            self.restorer.restore_entry(entry)

    def _restore_workspace(self, ws: WorkspaceInfo) -> None:
        self._set_busy(True)
        name = ws.display_name

        def done(info: WorkspaceInfo) -> None:
            self._set_busy(False)
            n = info.record_count
            self.banner.show_message(
                "ok",
                (
                    self.tr(
                        "Restored “{name}” ({folder}) with its record. "
                        "It is back in the Workspace tab exactly as it was."
                    )
                    if n == 1
                    else self.tr(
                        "Restored “{name}” ({folder}) with its %n records. "
                        "It is back in the Workspace tab exactly as it was.",
                        "",
                        n,
                    )
                ).format(name=name, folder=ws.cwd),
            )
            self.refresh()
            self.memory_changed.emit()  # the status counts follow at once

        def failed(exc: BaseException) -> None:
            self._set_busy(False)
            if isinstance(exc, ConflictError):
                text = self.tr(
                    "Could not restore “{name}”: an active workspace for {folder} exists again "
                    "(an agent may have started writing to it). Nothing was changed. Archive or clear the "
                    "active one first, then restore this one."
                ).format(name=name, folder=ws.cwd)
            elif isinstance(exc, NotFoundError):
                text = self.tr(
                    "“{name}” is no longer in the Recycle Bin (it was restored or purged "
                    "elsewhere). The list has been refreshed."
                ).format(name=name)
            else:
                text = self.tr("Could not restore “{name}”: {why}").format(name=name, why=describe_error(exc))
            self.banner.show_message("error", text)
            self.refresh()

        self.jobs.start("action", self.ctx.store.recycle.restore, ws.key, done=done, failed=failed)

    # --- purge -------------------------------------------------------------------------------------
    def purge_question(self, ws: WorkspaceInfo) -> PurgeQuestion:
        """What the purge dialog asks for ``ws``, with what else it deletes (its kept history)."""
        # The store confirms by the name shown in the list; a scope whose scope.json can't be read
        # has no trustworthy name (its cwd could say "/etc"), so only its full key confirms it.
        return PurgeQuestion(
            display_name=ws.display_name,
            folder=ws.cwd,
            records=ws.record_count,
            history_entries=len(self._contents.history_of(ws.key)),
            confirm_text=ws.key if ws.scope_problem else ws.display_name,
            by_key=bool(ws.scope_problem),
            synced=sync_is_set_up(self.ctx.store.root),
        )

    def _ask_purge(self, parent: QWidget, question: PurgeQuestion) -> str | None:
        dialogs = self.ctx.dialogs
        if type(dialogs) is Dialogs:  # the real seam: the purge dialog itself
            return run_purge_dialog(parent, question)
        text, prompt = explain(question)  # a double answers it as any typed question
        return dialogs.ask_text(parent, dialog_title(), f"{text}\n\n{prompt}")

    def purge_selected(self) -> None:
        ws = self.selected_workspace()
        if ws is None:  # Purge is for archived workspaces only; Global is never offered
            return
        question = self.purge_question(ws)
        name = question.confirm_text
        typed = self.ask_purge(self, question)
        if typed is None:
            self.banner.show_message(
                "info", self.tr("Nothing was deleted. “{name}” is still in the Recycle Bin.").format(name=name)
            )
            return
        if typed != name:  # the dialog only returns a match; a replaced ask_purge might not
            self.banner.show_message(
                "error",
                self.tr("Nothing was deleted: “{typed}” does not match. To delete, type “{name}” exactly.").format(
                    typed=typed, name=name
                ),
            )
            return
        self._set_busy(True)
        n = ws.record_count

        def done(_result: object) -> None:
            self._set_busy(False)
            self.banner.show_message(
                "ok",
                (
                    self.tr("Deleted “{name}” forever: the archived workspace and its record are gone.")
                    if n == 1
                    else self.tr("Deleted “{name}” forever: the archived workspace and its %n records are gone.", "", n)
                ).format(name=name),
            )
            self.refresh()
            self.memory_changed.emit()  # the status counts follow at once

        def failed(exc: BaseException) -> None:
            self._set_busy(False)
            msg = exc.message if isinstance(exc, DshMemoryError) else describe_error(exc)
            self.banner.show_message("error", self.tr("Nothing was deleted. {why}").format(why=msg))
            self.refresh()

        self.jobs.start("action", purge_workspace, self.ctx.store, ws.key, typed, done=done, failed=failed)
