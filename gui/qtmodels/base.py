"""The table-model plumbing every table here shares: a list of row objects under fixed headers.

Subclasses set ``HEADERS`` (and optionally ``HEADER_TIPS``) and implement ``data``; rows are
replaced with :meth:`RowTableModel.replace_rows`, which updates in place when the row identities
are unchanged, so views keep their selection and scroll position across a refresh.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)

Index = QModelIndex | QPersistentModelIndex
NO_INDEX = QModelIndex()

Row = TypeVar("Row")
# One object, not three enum ORs per call: views ask every painted cell for its flags.
ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


class RowTableModel(QAbstractTableModel, Generic[Row]):
    HEADERS: ClassVar[tuple[str, ...]] = ()
    HEADER_TIPS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Row] = []

    def replace_rows(self, rows: Sequence[Row], identity: Callable[[Row], Hashable]) -> None:
        """New rows; when their identities match the current ones in order, only changed rows repaint."""
        new = list(rows)
        if [identity(r) for r in new] == [identity(r) for r in self._rows]:
            changed = [i for i, (a, b) in enumerate(zip(self._rows, new, strict=True)) if a != b]
            self._rows = new
            if changed:
                self.dataChanged.emit(self.index(min(changed), 0), self.index(max(changed), len(self.HEADERS) - 1))
            return
        self.beginResetModel()
        self._rows = new
        self.endResetModel()

    def rowCount(self, parent: Index = NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section < len(self.HEADER_TIPS):
            return self.HEADER_TIPS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return ROW_FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags


class SourceSortingProxy(QSortFilterProxyModel):
    """A filter proxy that leaves sorting to its source model: a keystroke then costs one filter
    pass, never a re-sort (the proxy's own sort re-sorted every row on each filter change).
    Subclasses say which source sorts itself (:meth:`_sorting_source`)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setDynamicSortFilter(False)  # order comes from the source model, already sorted
        self._sort_state: tuple[int, Qt.SortOrder] = (0, Qt.SortOrder.AscendingOrder)

    def _sorting_source(self) -> QAbstractItemModel | None:
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        source = self._sorting_source()
        if source is not None:
            self._sort_state = (column, order)
            source.sort(column, order)
        else:
            super().sort(column, order)

    def sort_state(self) -> tuple[int, Qt.SortOrder]:
        return self._sort_state
