"""The middle of the Workspace tab: the workspace header, its records table and the filters."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.changeset import RecordRow
from core.models import RECORD_TYPES, Revision, WorkspaceInfo
from gui.context import AppContext
from gui.qtmodels.records import RecordFilterProxy, RecordTableModel, status_text
from gui.qtmodels.roles import KEY_ROLE
from gui.qtmodels.workspaces import problems_text
from gui.tabs.workspace.bulk_bar import BulkBar
from gui.tabs.workspace.empty_state import EmptyRootPanel
from gui.tasks import Jobs
from gui.widgets.banner import Banner
from gui.widgets.read_only import mark_writes
from gui.widgets.tables import setup_table

_FOLDER_MISSING = "folder-missing"  # topic of the banner's missing-folder warning
INVALID_FILTER = "invalid"  # the type filter's data for "Invalid files"
_TITLE = '<b>{name}</b>{extra}<br><span style="color:#555">{cwd}</span>'  # markup only: nothing to translate


class RecordsPanel(QWidget):
    """Header (name, folder, problems, Archive), the workspace banner, filters and the records table."""

    record_chosen = Signal(str)  # the record the user moved to
    new_requested = Signal()
    archive_requested = Signal()
    archived = Signal(str)  # display name of the workspace just archived
    archive_failed = Signal(str, object)  # key, the exception (nothing was archived)
    selection_changed = Signal(int)  # how many rows are selected

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.jobs = Jobs(self, ctx.runner)
        # "Moved? Pick the new folder…" on the folder-missing banner: filled by the tab's glue (moved_glue.py)
        self.pick_new_folder: Callable[[WorkspaceInfo], None] | None = None
        self._fitted_for: tuple[str | None, int] | None = None
        self._widest_name = 120
        cv = QVBoxLayout(self)
        cv.setContentsMargins(4, 0, 4, 0)
        head = QHBoxLayout()
        self.title = QLabel(self.tr("No workspace selected"))
        self.title.setObjectName("workspace_title")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setWordWrap(True)
        head.addWidget(self.title, 1)
        self.undo_slot = QHBoxLayout()  # the tab puts its "Undo last commit" button here
        head.addLayout(self.undo_slot)
        self.archive_button = QPushButton(self.tr("Archive workspace…"))
        self.archive_button.setToolTip(self.tr("Move this workspace to the Recycle Bin (it can be restored)"))
        self.archive_button.clicked.connect(self.archive_requested.emit)
        head.addWidget(self.archive_button)
        cv.addLayout(head)
        self.banner = Banner()
        cv.addWidget(self.banner)

        frow = QHBoxLayout()
        self.filter = QLineEdit()
        self.filter.setObjectName("record_filter")
        self.filter.setPlaceholderText(self.tr("Filter records (name, description, text)"))
        self.filter.setClearButtonEnabled(True)
        frow.addWidget(self.filter, 1)
        self.type_filter = QComboBox()
        self.type_filter.setObjectName("type_filter")
        self.type_filter.addItem(self.tr("All types"), "")
        for t in RECORD_TYPES:
            self.type_filter.addItem(t, t)
        self.type_filter.addItem(self.tr("Invalid files"), INVALID_FILTER)
        frow.addWidget(self.type_filter)
        self.new_button = QPushButton(self.tr("New record"))
        mark_writes(self.archive_button, self.new_button)
        self.new_button.clicked.connect(self.new_requested.emit)
        frow.addWidget(self.new_button)
        cv.addLayout(frow)
        self.bulk_bar = BulkBar()
        cv.addWidget(self.bulk_bar)
        self.empty = EmptyRootPanel()
        self.empty.hide()
        cv.addWidget(self.empty, 1)

        self.model = RecordTableModel(self)
        self.proxy = RecordFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.filter.textChanged.connect(ctx.typing.note_typing)  # first: workers step aside for this very key
        self.filter.textChanged.connect(self.proxy.set_filter_text)
        self.type_filter.currentIndexChanged.connect(
            lambda _i: self.proxy.set_type_filter(str(self.type_filter.currentData() or ""))
        )
        self.view = QTableView()
        self.view.setObjectName("records_table")
        setup_table(self.view)
        # Several rows at once (Ctrl/Shift-click) for the bulk bar; the current row is the one edited.
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setModel(self.proxy)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        # Fixed widths, never ResizeToContents: that measures every row on each filter keystroke.
        rh = self.view.horizontalHeader()
        for col in range(5):
            rh.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        rh.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        fm = self.view.fontMetrics()
        rh.resizeSection(0, 170)
        rh.resizeSection(1, fm.horizontalAdvance("reference") + 14)
        rh.resizeSection(3, fm.horizontalAdvance("00,000") + 14)
        self._fit_status([])
        self.view.selectionModel().currentRowChanged.connect(self._on_current)
        self.view.selectionModel().selectionChanged.connect(
            lambda *_a: self.selection_changed.emit(len(self.selected_names()))
        )
        self.view.installEventFilter(self)  # refit the Name column when the table is resized
        cv.addWidget(self.view, 1)
        self.count_label = QLabel()
        self.count_label.setStyleSheet("color:#555;")
        cv.addWidget(self.count_label)

    # --- header -------------------------------------------------------------------------------------
    def show_header(self, info: WorkspaceInfo | None, *, listed: bool, any_workspace: bool) -> None:
        empty_root = info is None and listed and not any_workspace
        self.empty.setVisible(empty_root)
        for w in (self.view, self.count_label, self.archive_button):  # the filter row stays (Ctrl+F)
            w.setVisible(not empty_root)
        if info is None:
            if not listed:
                self.title.setText(self.tr("Loading workspaces…"))
            else:
                self.title.setText(self.tr("No workspace selected") if any_workspace else self.tr("No workspaces yet."))
            self.archive_button.setEnabled(False)
            self.new_button.setEnabled(False)
            return
        flags = [f'<span style="color:#b3261e">{html.escape(p)}</span>' for p in problems_text(info, short=True)]
        extra = (" · " + " · ".join(flags)) if flags else ""
        self.title.setText(_TITLE.format(name=html.escape(info.display_name), extra=extra, cwd=html.escape(info.cwd)))
        self.archive_button.setEnabled(True)
        self.new_button.setEnabled(True)

    def archive(self, info: WorkspaceInfo, expect: Revision | None, *, staged: bool) -> None:
        """Ask, then move the workspace to the Recycle Bin (CAS on ``expect`` when given)."""
        staged_note = "\n\n" + self.tr("Your staged changes will be discarded.") if staged else ""
        missing = "" if info.cwd_exists else "\n" + self.tr("Its folder no longer exists.") + "\n"
        text = self.tr("Move the workspace {name} ({folder}) to the Recycle Bin?").format(
            name=info.display_name, folder=info.cwd
        )
        text += f"\n{missing}\n" + self.tr(
            "Agents will no longer load its memory. You can restore it from the Recycle Bin."
        )
        if not self.ctx.dialogs.confirm(self, self.tr("Archive workspace?"), text + staged_note, self.tr("Archive")):
            return
        self.jobs.start(
            "archive",
            self.ctx.store.recycle.archive,
            info.key,
            expect,
            done=lambda _info: self.archived.emit(info.display_name),
            failed=lambda exc: self.archive_failed.emit(info.key, exc),
        )

    def show_folder_warning(self, info: WorkspaceInfo | None, archive: Callable[[], None]) -> None:
        """Say so while the workspace's folder is gone (and clear only that message once it is back)."""
        if info is None or info.cwd_exists:
            self.banner.clear(topic=_FOLDER_MISSING)
            return
        if self.banner.level in ("", "error"):
            self.banner.show_message(
                "error",
                self.tr(
                    "The folder {folder} no longer exists. Agents will never load this workspace again; "
                    "archive it to the Recycle Bin (you can restore it later)."
                ).format(folder=info.cwd),
                [*self._moved_action(info), (self.tr("Archive workspace…"), archive)],
                topic=_FOLDER_MISSING,
            )

    def _moved_action(self, info: WorkspaceInfo) -> list[tuple[str, Callable[[], None]]]:
        pick = self.pick_new_folder
        return [] if pick is None else [(self.tr("Moved? Pick the new folder…"), lambda: pick(info))]

    # --- rows ------------------------------------------------------------------------------------------
    def set_rows(self, rows: list[RecordRow], *, key: str | None, staged: int) -> None:
        self.model.set_rows(rows)
        self._fit_name_column(rows, key)
        self._fit_status(rows)
        total = len(rows)
        invalid = sum(1 for r in rows if r.invalid_reasons)
        text = self.tr("%n record(s)", "", total)
        if invalid:
            text += self.tr(", %n invalid", "", invalid)
        if staged:
            text += self.tr(", %n staged", "", staged)
        self.count_label.setText(text)

    def _fit_status(self, rows: list[RecordRow]) -> None:
        """Status as narrow as its header while no row has one, so Description gets the room."""
        fm = self.view.fontMetrics()
        header = self.view.horizontalHeader()
        width = header.sectionSizeFromContents(4).width()
        widest = max((fm.horizontalAdvance(text) for r in rows if (text := status_text(r))), default=0)
        header.resizeSection(4, max(width, widest + 16 if widest else 0))

    def _fit_name_column(self, rows: list[RecordRow], key: str | None) -> None:
        """Size the Name column to the longest name once per load (never per keystroke)."""
        fitted = (key, len(rows))
        if self._fitted_for == fitted:
            return
        self._fitted_for = fitted
        fm = self.view.fontMetrics()
        self._widest_name = max((fm.horizontalAdvance(r.name) for r in rows), default=120)
        self._refit()

    def _refit(self) -> None:
        """Name gets its longest name, but never so much that Description (the stretching column)
        is squeezed: at most a third of the table, so Description keeps room at any window size."""
        cap = max(110, self.view.viewport().width() // 3)
        self.view.horizontalHeader().resizeSection(0, max(110, min(self._widest_name + 16, 235, cap)))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view and event.type() == QEvent.Type.Resize:
            self._refit()
        return super().eventFilter(watched, event)

    def selected_names(self) -> list[str]:
        """The records of the selected rows, in table order."""
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [str(self.proxy.index(r, 0).data(KEY_ROLE)) for r in rows]

    # --- selection ------------------------------------------------------------------------------------
    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.record_chosen.emit(str(current.data(KEY_ROLE)))

    def current_row_is(self, name: str) -> bool | None:
        """Whether ``name``'s row is the current one (None when it is not shown at all)."""
        row = self.model.row_of(name)
        if row < 0:
            return None
        proxy_index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not proxy_index.isValid():
            return None
        return self.view.currentIndex().row() == proxy_index.row()

    def move_to(self, name: str) -> None:
        """Make ``name``'s (shown) row current; emits ``record_chosen`` unless suppressed."""
        row = self.model.row_of(name)
        proxy_index = self.proxy.mapFromSource(self.model.index(row, 0))
        self.view.selectionModel().setCurrentIndex(
            proxy_index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.view.scrollTo(proxy_index)

    def clear_filters(self) -> None:
        self.filter.clear()
        self.type_filter.setCurrentIndex(0)

    def select_first(self) -> None:
        if not self.view.currentIndex().isValid() and self.proxy.rowCount():
            index = self.proxy.index(0, 0)
            if index.isValid():
                self.view.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
                )
