"""Records of one workspace as a table (name, type, description, size, status) with a filter proxy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from gui.qtmodels.roles import ITEM_ROLE, KEY_ROLE, SORT_ROLE

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class RecordRow:
    """One row: a record on disk, an invalid file, or a staged new/changed/deleted record."""

    name: str
    file_name: str
    type: str  # "" for an invalid file
    description: str
    size: int
    invalid_reasons: tuple[str, ...] = ()
    staged: str = ""  # "", "new", "changed", "deleted"
    haystack: str = field(default="", repr=False, compare=False)  # lower-cased text for filtering

    @property
    def status(self) -> str:
        if self.staged:
            return f"staged: {self.staged}"
        if self.invalid_reasons:
            return "invalid: " + "; ".join(self.invalid_reasons)
        return ""


class RecordTableModel(QAbstractTableModel):
    HEADERS = ("Name", "Type", "Description", "Size", "Status")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[RecordRow] = []
        self._sort_column = 0
        self._sort_order = Qt.SortOrder.AscendingOrder

    @staticmethod
    def _sort_key(column: int) -> Any:
        if column == 3:
            return lambda r: (r.size, r.name)
        if column == 4:
            return lambda r: (r.status, r.name)
        if column in (1, 2):
            return lambda r: ((r.type, r.description)[column - 1].lower(), r.name)
        return lambda r: r.name

    def _sorted(self, rows: list[RecordRow]) -> list[RecordRow]:
        return sorted(
            rows, key=self._sort_key(self._sort_column), reverse=self._sort_order == Qt.SortOrder.DescendingOrder
        )

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sorted here, in one Python sort, so the filter proxy never re-sorts on a keystroke."""
        if not 0 <= column < len(self.HEADERS):
            return
        self._sort_column, self._sort_order = column, order
        new_rows = self._sorted(self._rows)
        if new_rows == self._rows:
            return
        self.layoutAboutToBeChanged.emit()
        new_pos = {r.name: i for i, r in enumerate(new_rows)}
        old_names = [r.name for r in self._rows]
        old = self.persistentIndexList()
        self._rows = new_rows
        self.changePersistentIndexList(old, [self.index(new_pos[old_names[i.row()]], i.column()) for i in old])
        self.layoutChanged.emit()

    def set_rows(self, rows: list[RecordRow]) -> None:
        """Replace the rows; the same names in the same order update in place (selection kept)."""
        rows = self._sorted(list(rows))
        if [r.name for r in rows] == [r.name for r in self._rows]:
            changed = [i for i, (a, b) in enumerate(zip(self._rows, rows, strict=True)) if a != b]
            self._rows = rows
            if changed:
                self.dataChanged.emit(self.index(min(changed), 0), self.index(max(changed), len(self.HEADERS) - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def row(self, i: int) -> RecordRow:
        return self._rows[i]

    def rows(self) -> list[RecordRow]:
        return list(self._rows)

    def row_of(self, name: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.name == name), -1)

    # --- Qt model API -----------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.HEADERS)
        ):
            return self.HEADERS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == SORT_ROLE:  # first: sorting asks for it thousands of times per filter change
            if col == 3:
                return r.size
            if col == 4:
                return r.status
            return (r.name, r.type, r.description)[col] if col < 3 else ""
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return r.name
            if col == 1:
                return r.type or "—"
            if col == 2:
                return r.description
            if col == 3:
                return f"{r.size:,}" if r.size else ""
            if col == 4:
                return r.status
        elif role == Qt.ItemDataRole.ToolTipRole:
            if r.invalid_reasons:
                return f"{r.file_name} is invalid and is not loaded by the agent:\n" + "\n".join(
                    f"• {x}" for x in r.invalid_reasons
                )
            return f"{r.file_name}\n{r.description}"
        elif role == Qt.ItemDataRole.ForegroundRole:
            if r.invalid_reasons and not r.staged:
                return QBrush(QColor("#b3261e"))
            if r.staged == "deleted":
                return QBrush(QColor("#888888"))
        elif role == Qt.ItemDataRole.FontRole and r.staged:
            font = QFont()
            font.setItalic(True)
            font.setStrikeOut(r.staged == "deleted")
            return font
        elif role == Qt.ItemDataRole.TextAlignmentRole and col == 3:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        elif role == KEY_ROLE:
            return r.name
        elif role == ITEM_ROLE:
            return r
        return None


class RecordFilterProxy(QSortFilterProxyModel):
    """Filter-as-you-type over name, description and body (all words must match), plus a type filter."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(False)  # order comes from the source model, already sorted
        self._words: list[str] = []
        self._type = ""
        self._source: RecordTableModel | None = None
        self._sort_state: tuple[int, Qt.SortOrder] = (0, Qt.SortOrder.AscendingOrder)

    def set_filter_text(self, text: str) -> None:
        self.beginFilterChange()
        self._words = text.lower().split()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_type_filter(self, type_name: str) -> None:
        """Empty for all types, ``invalid`` for invalid files only, else a record type."""
        self.beginFilterChange()
        self._type = type_name
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Delegated to the source model: the proxy itself only filters (keystrokes stay O(rows))."""
        if self._source is not None:
            self._sort_state = (column, order)
            self._source.sort(column, order)
        else:
            super().sort(column, order)

    def sort_state(self) -> tuple[int, Qt.SortOrder]:
        return self._sort_state

    def setSourceModel(self, model: Any) -> None:
        self._source = model if isinstance(model, RecordTableModel) else None
        super().setSourceModel(model)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        model = self._source
        if model is None:
            return True
        rows = model._rows  # direct access: this runs once per row on every keystroke
        if source_row >= len(rows):
            return True
        r = rows[source_row]
        if self._type == "invalid":
            if not r.invalid_reasons:
                return False
        elif self._type and r.type != self._type:
            return False
        if not self._words:
            return True
        hay = r.haystack or f"{r.name}\n{r.description}".lower()
        return all(w in hay for w in self._words)
