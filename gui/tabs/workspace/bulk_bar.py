"""The bar over the records table while several records are selected: bulk delete, change type,
move or copy to another workspace, export. Every action except export only *stages*: the batch
shows in Staged changes with its diff and is written by one Commit, like a single edit."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from core.models import RECORD_TYPES
from gui.widgets.read_only import mark_writes


class BulkBar(QWidget):
    delete_requested = Signal()
    type_requested = Signal(str)
    transfer_requested = Signal(str, bool)  # target workspace key, move (else copy)
    export_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("bulk_bar")
        # Two short rows, so the bar never widens the records pane (and squeezes the editor's tabs).
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(4)
        h = QHBoxLayout()
        row2 = QHBoxLayout()
        v.addLayout(h)
        v.addLayout(row2)
        self.label = QLabel()
        self.label.setObjectName("bulk_count")
        h.addWidget(self.label)
        self.delete_button = QPushButton(self.tr("Delete"))
        self.delete_button.setToolTip(self.tr("Stage deleting every selected record"))
        self.delete_button.clicked.connect(self.delete_requested.emit)
        h.addWidget(self.delete_button)
        self.type_combo = QComboBox()
        self.type_combo.setObjectName("bulk_type")
        self.type_combo.setToolTip(self.tr("Stage changing the type of every selected record"))
        self.type_combo.addItem(self.tr("Type…"), "")
        for t in RECORD_TYPES:
            self.type_combo.addItem(t, t)
        self.type_combo.activated.connect(self._on_type)
        h.addWidget(self.type_combo)
        h.addStretch(1)
        self.to_label = QLabel(self.tr("To workspace:"))
        row2.addWidget(self.to_label)
        self.target_combo = QComboBox()
        self.target_combo.setObjectName("bulk_target")
        self.target_combo.setToolTip(self.tr("The workspace to move or copy the selected records to"))
        self.target_combo.setMinimumContentsLength(10)
        self.target_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        row2.addWidget(self.target_combo, 1)
        self.move_button = QPushButton(self.tr("Move"))
        self.move_button.setToolTip(self.tr("Stage putting the selected records there and deleting them here"))
        self.move_button.clicked.connect(lambda: self._transfer(True))
        row2.addWidget(self.move_button)
        self.copy_button = QPushButton(self.tr("Copy"))
        self.copy_button.setToolTip(self.tr("Stage putting a copy of the selected records there"))
        self.copy_button.clicked.connect(lambda: self._transfer(False))
        row2.addWidget(self.copy_button)
        self.export_button = QPushButton(self.tr("Export…"))
        self.export_button.setToolTip(
            self.tr("Write the selected records, as they are on disk, to a zip of Markdown files")
        )
        self.export_button.clicked.connect(self.export_requested.emit)
        h.insertWidget(h.count() - 1, self.export_button)
        mark_writes(self.delete_button, self.type_combo, self.move_button, self.copy_button)
        self._targets: list[tuple[str, str]] | None = None  # what target_combo lists
        self.hide()

    def show_selection(self, count: int, targets: list[tuple[str, str]]) -> None:
        """``count`` selected rows; ``targets`` (key, display name): the other workspaces."""
        self.setVisible(count > 1)
        self.label.setText(self.tr("%n selected:", "", count))
        if count <= 1 or targets == self._targets:  # hidden, or unchanged: a big root has 1,000 targets
            return
        self._targets = list(targets)
        current = self.target_combo.currentData()
        self.target_combo.clear()
        for key, name in targets:
            self.target_combo.addItem(name, key)
        i = self.target_combo.findData(current)
        self.target_combo.setCurrentIndex(max(i, 0))
        for b in (self.move_button, self.copy_button):
            b.setEnabled(bool(targets))

    def _on_type(self, index: int) -> None:
        rtype = str(self.type_combo.itemData(index) or "")
        self.type_combo.setCurrentIndex(0)
        if rtype:
            self.type_requested.emit(rtype)

    def _transfer(self, move: bool) -> None:
        key = self.target_combo.currentData()
        if key:
            self.transfer_requested.emit(str(key), move)
