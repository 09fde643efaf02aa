"""The source filter of the Session Consolidation tab and what waits for review in that source.

Sessions (the sessions table, plus reviews saved before a restart), agent proposals (what an MCP
agent asked to change) and imports (memory read from another tool) share one review panel; the
filter says which of them the left side lists. Rows come from
:func:`core.consolidation.review_sources.read_pending`; opening one is the tab's business.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.consolidation.review_sources import PendingItem, ReviewSource
from gui.qtmodels.consolidation_models import PendingListModel
from gui.widgets.read_only import mark_writes

translate = QCoreApplication.translate
SOURCES: tuple[ReviewSource, ...] = ("session", "agent", "import")


def source_label(source: str) -> str:
    return {
        "session": translate("PendingPanel", "Sessions"),
        "agent": translate("PendingPanel", "Agent proposals"),
        "import": translate("PendingPanel", "Imports"),
    }.get(source, source)


def _heading(source: str) -> str:
    return {
        "session": translate("PendingPanel", "Reviews waiting for you (kept across restarts)"),
        "agent": translate("PendingPanel", "Agent proposals waiting for you"),
        "import": translate("PendingPanel", "Imports waiting for you"),
    }[source]


def _empty(source: str) -> str:
    return {
        "session": translate("PendingPanel", "No pending reviews."),
        "agent": translate(
            "PendingPanel", "No agent proposals. An agent connected over MCP in review mode proposes changes here."
        ),
        "import": translate(
            "PendingPanel", "No imports under review. Import… reads another tool's memory for you to review."
        ),
    }[source]


class SourceFilter(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sourceFilter")
        for key in SOURCES:
            self.addItem(source_label(key), key)

    def source(self) -> ReviewSource:
        return SOURCES[max(0, self.currentIndex())]

    def set_source(self, source: ReviewSource) -> None:
        self.setCurrentIndex(SOURCES.index(source))


class PendingPanel(QWidget):
    """The pending list of the chosen source, with Open / Delete (and Import… for imports)."""

    opened = Signal(object)  # PendingItem

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._all: list[PendingItem] = []
        self._source: ReviewSource = "session"
        self.heading = QLabel()
        self.heading.setObjectName("pendingHeading")
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.model = PendingListModel(self)
        self.view = QListView()
        self.view.setObjectName("pendingList")
        self.view.setModel(self.model)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(True)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("pendingEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet("color: #666;")
        self.import_button = QPushButton(self.tr("Import…"))
        self.import_button.setObjectName("importButton")
        self.import_button.setToolTip(self.tr("Read memory kept by another tool and review what it would add"))
        self.delete_button = QPushButton(self.tr("Delete"))
        # Every one of these writes into the root (receipts, review state, memory): off when read-only.
        mark_writes(self.import_button, self.delete_button)
        self.delete_button.setObjectName("deletePending")
        self.delete_button.setToolTip(self.tr("Delete this pending review (nothing is written to memory)"))
        row = QHBoxLayout()
        row.addWidget(self.heading, 1)
        row.addWidget(self.import_button)
        row.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.addLayout(row)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty_label)
        self.view.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._open(cur.row()))
        self.set_source("session")

    def set_source(self, source: ReviewSource) -> None:
        self._source = source
        self.heading.setText(_heading(source))
        self.import_button.setVisible(source == "import")
        self.delete_button.setText(self.tr("Reject") if source == "agent" else self.tr("Delete"))
        self._show()

    def set_items(self, items: list[PendingItem]) -> None:
        self._all = list(items)
        self._show()

    def items(self) -> list[PendingItem]:
        return self.model.items()

    def _show(self) -> None:
        current = self.current()
        self.view.selectionModel().blockSignals(True)
        self.model.set_items([i for i in self._all if i.source == self._source])
        if current is not None and (row := self.model.row_of(current.review_id)) >= 0:
            self.view.setCurrentIndex(self.model.index(row))
        self.view.selectionModel().blockSignals(False)
        self.empty_label.setText("" if self.model.rowCount() else _empty(self._source))
        self.empty_label.setVisible(not self.model.rowCount())
        self.delete_button.setEnabled(self.current() is not None)

    def current(self) -> PendingItem | None:
        index = self.view.currentIndex()
        return self.model.item(index.row()) if index.isValid() and index.row() < self.model.rowCount() else None

    def mark(self, review_id: str) -> None:
        """Highlight the row of the review already shown, without opening it again."""
        row = self.model.row_of(review_id)
        if row >= 0:
            self.view.selectionModel().blockSignals(True)
            self.view.setCurrentIndex(self.model.index(row))
            self.view.selectionModel().blockSignals(False)
            self.delete_button.setEnabled(True)

    def select(self, review_id: str) -> bool:
        row = self.model.row_of(review_id)
        if row < 0:
            return False
        self.view.setCurrentIndex(self.model.index(row))
        return True

    def _open(self, row: int) -> None:
        self.delete_button.setEnabled(row >= 0)
        if 0 <= row < self.model.rowCount():
            self.opened.emit(self.model.item(row))
