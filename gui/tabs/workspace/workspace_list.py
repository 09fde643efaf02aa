"""The Workspace tab's list of workspaces: a filter box and the table, in the tab's left column."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QLineEdit, QStyle, QTableView, QVBoxLayout

from core.models import WorkspaceInfo
from core.store.api import MemoryStore
from gui.qtmodels.roles import KEY_ROLE
from gui.qtmodels.workspaces import WorkspaceFilterProxy, WorkspaceTableModel, problems_text
from gui.tasks import Jobs
from gui.typing_pace import TypingPace
from gui.widgets.tables import WordElideDelegate, setup_table


class WorkspaceList(QObject):
    """Emits ``chosen(key)`` when the user moves to another workspace (never for its own moves)."""

    chosen = Signal(str)

    def __init__(self, typing: TypingPace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._suppress = False
        self._shown_key: str | None = None  # the workspace the tab shows (its row is the current one)
        self.title = QLabel("<b>" + self.tr("Workspaces") + "</b>")
        self.filter = QLineEdit()
        self.filter.setObjectName("workspace_filter")
        self.filter.setPlaceholderText(self.tr("Filter workspaces"))
        self.filter.setClearButtonEnabled(True)
        self.model = WorkspaceTableModel(self)
        self.proxy = WorkspaceFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.filter.textChanged.connect(typing.note_typing)  # first: workers step aside for this very key
        self.filter.textChanged.connect(self._on_filter)
        self.view = QTableView()
        self.view.setObjectName("workspace_list")
        setup_table(self.view)
        self.view.setModel(self.proxy)
        # Workspace names often share a prefix (billing-service-041, billing-service-042): keep both
        # ends, in whole words ("lumen…sktop" was cut mid-word).
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.view.setItemDelegateForColumn(0, WordElideDelegate(self.view))
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        hh = self.view.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        hh.resizeSection(1, self.view.fontMetrics().horizontalAdvance(self.tr("Records")) + 14)
        # Never ResizeToContents: that measures all 1,000 rows of a big root on every filter keystroke.
        # Problems gets the width of its longest text once per list (set_workspaces).
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        self._fit_problems([])
        self.view.selectionModel().currentRowChanged.connect(self._on_current)

    def lay_out(self, layout: QVBoxLayout) -> None:
        layout.addWidget(self.title)
        layout.addWidget(self.filter)
        layout.addWidget(self.view, 2)

    def list_from(
        self,
        jobs: Jobs,
        store: MemoryStore,
        *,
        shown: Callable[[list[WorkspaceInfo]], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        """List the workspaces (job "list") into ``shown``. When nothing is shown yet (the first
        load) the names come first (``counted`` False, a small file per scope) and the counted
        list after them (a stat of every record file: ~1 s at 100,000 records); later lists keep
        the old counts on screen until the new ones are in."""

        def counted() -> None:
            jobs.start("list", store.list_workspaces, done=shown, failed=failed)

        if self.model.rowCount():
            counted()
            return

        def names_in(infos: list[WorkspaceInfo]) -> None:
            shown(infos)
            if not all(i.counted for i in infos):
                counted()

        jobs.start("list", partial(store.list_workspaces, counts=False), done=names_in, failed=failed)

    def set_workspaces(self, infos: list[WorkspaceInfo]) -> None:
        self._suppress = True
        try:
            self.model.set_workspaces(infos)
        finally:
            self._suppress = False
        self._fit_problems(infos)

    def _fit_problems(self, infos: list[WorkspaceInfo]) -> None:
        """As wide as ResizeToContents would make it (the header's hint, the longest text and the
        cell's margins), measured once per list instead of over every row on each keystroke."""
        fm = self.view.fontMetrics()
        texts = {", ".join(problems_text(i)) for i in infos if not i.cwd_exists or i.invalid_count or i.scope_problem}
        margin = 2 * (self.view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.view) + 1) + 1
        margin += 1 if self.view.showGrid() else 0  # as QTableView.sizeHintForColumn counts
        widest = max((fm.horizontalAdvance(t) + margin for t in texts), default=0)
        header = self.view.horizontalHeader()
        header.resizeSection(2, min(max(header.sectionSizeFromContents(2).width(), widest), 320))

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
        return self.model.names()

    def _on_filter(self, text: str) -> None:
        """Filter the list; never switch workspaces as a side effect of typing.

        When the filter hides the shown workspace's row, Qt would make a neighbour current, and that
        would open it (and ask about staged changes, mid-word). The shown workspace stays shown, its
        row current again as soon as the filter lets it through, and nothing is current meanwhile.
        """
        self._suppress = True
        try:
            self.proxy.set_filter_text(text)
            row = self.model.row_of(self._shown_key) if self._shown_key is not None else -1
            index = self.proxy.mapFromSource(self.model.index(row, 0)) if row >= 0 else QModelIndex()
            selection = self.view.selectionModel()
            if index.isValid():
                if self.view.currentIndex() != index:
                    selection.setCurrentIndex(
                        index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
                    )
            elif self.view.currentIndex().isValid():
                selection.clear()
        finally:
            self._suppress = False

    def select(self, key: str) -> None:
        """Make ``key``'s row current without emitting ``chosen``."""
        self._shown_key = key or None
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
            self._shown_key = str(key)
            self.chosen.emit(str(key))
