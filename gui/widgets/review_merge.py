"""A record seen two ways, side by side, and the user's choice: the sync review (this machine /
the other machine / last synced) and a move into an existing workspace (already there / moved).

A view over :class:`core.sync.review.ReviewItem` lists: the list shows each item and whether it is
chosen; the panes show both texts (and the base), the diff between them, and an editable result
that starts as "theirs". Choosing emits :attr:`MergeReview.chosen`; the owner writes (or stages) it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.sync.review import Resolution, ReviewItem
from gui.widgets.diff_view import DiffView
from gui.widgets.fonts import monospace_font


def _pane(read_only: bool = True) -> QPlainTextEdit:
    edit = QPlainTextEdit()
    edit.setReadOnly(read_only)
    edit.setFont(monospace_font())
    return edit


class MergeReview(QWidget):
    """Items on the left; mine / theirs / base / diff and an editable result on the right."""

    chosen = Signal(str, object)  # item id, Resolution

    def __init__(self, labels: Mapping[str, str], parent: QWidget | None = None) -> None:
        """``labels``: "mine", "theirs", "base" (pane titles), "keep", "take" (button labels)."""
        super().__init__(parent)
        self.labels = dict(labels)
        self.items: list[ReviewItem] = []
        self.resolutions: dict[str, Resolution] = {}
        self.list = QListWidget()
        self.list.setObjectName("mergeItems")
        self.mine_view, self.theirs_view, self.base_view = _pane(), _pane(), _pane()
        self.diff_view = DiffView()
        self.result_edit = _pane(read_only=False)
        self.result_edit.setObjectName("mergeResult")
        self.panes = QTabWidget()
        self.panes.addTab(self.diff_view, self.tr("Differences"))
        self.panes.addTab(self.mine_view, self.labels.get("mine", self.tr("Mine")))
        self.panes.addTab(self.theirs_view, self.labels.get("theirs", self.tr("Theirs")))
        self._base_index = self.panes.addTab(self.base_view, self.labels.get("base", self.tr("Base")))
        self.keep_button = QPushButton(self.labels.get("keep", self.tr("Keep mine")))
        self.take_button = QPushButton(self.labels.get("take", self.tr("Take theirs")))
        self.edited_button = QPushButton(self.tr("Use the edited text"))
        self.state = QLabel()  # the current item's choice (also in its list row)
        self.state.setWordWrap(False)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.panes, 3)
        rl.addWidget(QLabel(self.tr("Result (edit it to combine both):")))
        rl.addWidget(self.result_edit, 2)
        buttons = QHBoxLayout()
        buttons.addWidget(self.state, 1)
        for b in (self.keep_button, self.take_button, self.edited_button):
            buttons.addWidget(b)
        rl.addLayout(buttons)
        split = QSplitter()
        split.addWidget(self.list)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([240, 760])
        self.list.setMinimumWidth(180)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.list.currentRowChanged.connect(lambda _row: self._show_current())
        self.keep_button.clicked.connect(lambda: self._choose(Resolution(choice="mine")))
        self.take_button.clicked.connect(lambda: self._choose(Resolution(choice="theirs")))
        self.edited_button.clicked.connect(
            lambda: self._choose(Resolution(choice="edited", text=self.result_edit.toPlainText()))
        )
        self._show_current()

    # --- data ------------------------------------------------------------------------------------
    def set_items(self, items: Sequence[ReviewItem], resolutions: Mapping[str, Resolution] | None = None) -> None:
        current = self.current_item()
        self.items = list(items)
        self.resolutions = dict(resolutions or {})
        self.list.clear()
        for item in self.items:
            self.list.addItem(self._row_text(item))
        ids = [i.id for i in self.items]
        row = ids.index(current.id) if current is not None and current.id in ids else (0 if ids else -1)
        self.list.setCurrentRow(row)
        self._show_current()

    def set_resolution(self, item_id: str, res: Resolution) -> None:
        self.resolutions[item_id] = res
        for row, item in enumerate(self.items):
            if item.id == item_id:
                self.list.item(row).setText(self._row_text(item))
        self._show_current()
        nxt = next((r for r, i in enumerate(self.items) if i.id not in self.resolutions), None)
        if nxt is not None:
            self.list.setCurrentRow(nxt)

    def open_count(self) -> int:
        return sum(1 for i in self.items if i.id not in self.resolutions)

    def current_item(self) -> ReviewItem | None:
        row = self.list.currentRow()
        return self.items[row] if 0 <= row < len(self.items) else None

    # --- view ------------------------------------------------------------------------------------
    def _row_text(self, item: ReviewItem) -> str:
        res = self.resolutions.get(item.id)
        state = {
            None: self.tr("to choose"),
            "mine": self.labels.get("keep", self.tr("Keep mine")),
            "theirs": self.labels.get("take", self.tr("Take theirs")),
            "edited": self.tr("edited"),
        }[res.choice if res else None]
        return f"{item.label} / {item.name}  —  {state}"

    def _show_current(self) -> None:
        item = self.current_item()
        for b in (self.keep_button, self.take_button, self.edited_button):
            b.setEnabled(item is not None)
        if item is None:
            for v in (self.mine_view, self.theirs_view, self.base_view, self.result_edit):
                v.setPlainText("")
            self.diff_view.set_diff("", self.tr("Nothing to review."))
            self.state.setText("")
            return
        deleted = self.tr("(deleted on this side)")
        self.mine_view.setPlainText(item.mine if item.mine is not None else deleted)
        self.theirs_view.setPlainText(item.theirs if item.theirs is not None else deleted)
        self.base_view.setPlainText(item.base or "")
        self.panes.setTabVisible(self._base_index, item.base is not None)
        self.diff_view.set_diff(item.diff(), self.tr("The texts are the same."))
        res = self.resolutions.get(item.id)
        start = res.text if res is not None and res.text is not None else (item.theirs or item.mine or "")
        self.result_edit.setPlainText(start)
        self.state.setText(self._row_text(item).split("  —  ", 1)[1])

    def _choose(self, res: Resolution) -> None:
        item = self.current_item()
        if item is not None:
            self.chosen.emit(item.id, res)
