"""The Workspace tab's list of workspaces: a filter box and the table, in the tab's left column."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QLineEdit, QTableView, QVBoxLayout

from core.models import WorkspaceInfo
from gui.qtmodels.roles import KEY_ROLE
from gui.qtmodels.workspaces import WorkspaceFilterProxy, WorkspaceTableModel
from gui.widgets.tables import setup_table


class WorkspaceList(QObject):
    """Emits ``chosen(key)`` when the user moves to another workspace (never for its own moves)."""

    chosen = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._suppress = False
        self.title = QLabel("<b>" + self.tr("Workspaces") + "</b>")
        self.filter = QLineEdit()
        self.filter.setObjectName("workspace_filter")
        self.filter.setPlaceholderText(self.tr("Filter workspaces"))
        self.filter.setClearButtonEnabled(True)
        self.model = WorkspaceTableModel(self)
        self.proxy = WorkspaceFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.filter.textChanged.connect(self.proxy.set_filter_text)
        self.view = QTableView()
        self.view.setObjectName("workspace_list")
        setup_table(self.view)
        self.view.setModel(self.proxy)
        # Workspace names often share a prefix (billing-service-041, billing-service-042): keep both ends.
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        hh = self.view.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        hh.resizeSection(1, self.view.fontMetrics().horizontalAdvance(self.tr("Records")) + 14)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.view.selectionModel().currentRowChanged.connect(self._on_current)

    def lay_out(self, layout: QVBoxLayout) -> None:
        layout.addWidget(self.title)
        layout.addWidget(self.filter)
        layout.addWidget(self.view, 2)

    def set_workspaces(self, infos: list[WorkspaceInfo]) -> None:
        self._suppress = True
        try:
            self.model.set_workspaces(infos)
        finally:
            self._suppress = False

    def first_key(self) -> str | None:
        """The key of the first row as shown (sorted and filtered), else of the first workspace."""
        first = self.proxy.index(0, 0)
        if first.isValid():
            return str(first.data(KEY_ROLE))
        return self.model.workspace(0).key if self.model.rowCount() else None

    def info(self, key: str) -> WorkspaceInfo | None:
        row = self.model.row_of(key)
        return self.model.workspace(row) if row >= 0 else None

    def names(self) -> dict[str, str]:
        return {i.key: i.display_name for i in (self.model.workspace(r) for r in range(self.model.rowCount()))}

    def select(self, key: str) -> None:
        """Make ``key``'s row current without emitting ``chosen``."""
        row = self.model.row_of(key)
        if row < 0:
            return
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid() or self.view.currentIndex().row() == index.row():
            return
        self._suppress = True
        try:
            self.view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
        finally:
            self._suppress = False

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._suppress or not current.isValid():
            return
        key = current.data(KEY_ROLE)
        if key:
            self.chosen.emit(str(key))
