"""Records of one workspace as a table (name, type, description, size, status, last used) with a filter proxy.

"Last used" comes from the usage ledger (``core.usage``), loaded off the GUI thread and handed in
with :meth:`RecordTableModel.set_usage`; until then the column is empty."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractItemModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from core.changeset import RecordRow
from core.usage import RecordUsage
from gui.core_text import core_texts
from gui.qtmodels.base import RowTableModel, SourceSortingProxy
from gui.qtmodels.roles import ALIGN, DISPLAY, FOREGROUND, ITEM_ROLE, KEY_ROLE, RIGHT, SORT_ROLE, TOOLTIP

_Index = QModelIndex | QPersistentModelIndex
# Plain ints: data() runs ~800 times per repaint of a full table, so every comparison counts.
_FONT = int(Qt.ItemDataRole.FontRole)
_INVALID_BRUSH = QBrush(QColor("#b3261e"))
_DELETED_BRUSH = QBrush(QColor("#888888"))


def _tr(text: str) -> str:
    return QCoreApplication.translate("RecordTableModel", text)


_STATUS = {
    "new": str(QT_TRANSLATE_NOOP("RecordTableModel", "staged: new")),
    "changed": str(QT_TRANSLATE_NOOP("RecordTableModel", "staged: changed")),
    "deleted": str(QT_TRANSLATE_NOOP("RecordTableModel", "staged: deleted")),
}


def status_text(r: RecordRow) -> str:
    """The Status cell in the interface language, from the row's fields."""
    if r.staged:
        return _tr(_STATUS.get(r.staged, r.staged))
    return QCoreApplication.translate("RecordTableModel", "invalid") if r.invalid_reasons else ""


class RecordTableModel(RowTableModel[RecordRow]):
    HEADERS = (
        str(QT_TRANSLATE_NOOP("RecordTableModel", "Name")),
        str(QT_TRANSLATE_NOOP("RecordTableModel", "Type")),
        str(QT_TRANSLATE_NOOP("RecordTableModel", "Description")),
        str(QT_TRANSLATE_NOOP("RecordTableModel", "Size")),
        str(QT_TRANSLATE_NOOP("RecordTableModel", "Status")),
        str(QT_TRANSLATE_NOOP("RecordTableModel", "Last used")),
    )
    HEADER_TIPS = ("", "", "", "", "", str(QT_TRANSLATE_NOOP("RecordTableModel", "When an agent last opened, searched, "
                   "edited or was served this record (from the DSH session logs and the MCP server)")))  # fmt: skip

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        value = super().headerData(section, orientation, role)
        return _tr(value) if isinstance(value, str) and value else value

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._sort_column = 0
        self._sort_order = Qt.SortOrder.AscendingOrder
        self.usage: dict[str, RecordUsage] = {}  # record name -> what the usage ledger says
        self.usage_available = False  # the ledger exists (else "never" would be a guess)

    def set_usage(self, usage: dict[str, RecordUsage], available: bool) -> None:
        """The Last used column's data (from a worker); repaints that column only."""
        self.usage, self.usage_available = dict(usage), available
        if self._sort_column == 5:
            self.sort(5, self._sort_order)
        if self._rows:
            self.dataChanged.emit(self.index(0, 5), self.index(len(self._rows) - 1, 5))

    def last_used(self, name: str) -> int:
        usage = self.usage.get(name)
        return usage.last_used if usage is not None and usage.last_used is not None else -1

    def _sort_key(self, column: int) -> Any:
        if column == 5:
            return lambda r: (self.last_used(r.name), r.name)
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
        self.replace_rows(self._sorted(list(rows)), lambda r: r.name)

    def row(self, i: int) -> RecordRow:
        return self._rows[i]

    def rows(self) -> list[RecordRow]:
        return list(self._rows)

    def row_of(self, name: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.name == name), -1)

    # --- Qt model API -----------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        # One Python call instead of the base class's hasIndex -> rowCount + columnCount (two):
        # the filter proxy maps every painted cell through here.
        if 0 <= row < len(self._rows) and 0 <= column < 6 and not parent.isValid():
            return self.createIndex(row, column)
        return QModelIndex()

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        rows = self._rows
        if not 0 <= row < len(rows):
            return None
        r = rows[row]
        col = index.column()
        if col == 5:
            return self._usage_data(r, role)
        if role == DISPLAY:
            if col == 4:
                return status_text(r)
            if col == 2 and r.invalid_reasons:  # an invalid file shows its reasons there
                return "; ".join(core_texts(r.invalid_reasons))
            return r.cells[col] if 0 <= col < 4 else None
        if role == SORT_ROLE:
            if col == 3:
                return r.size
            if col == 4:
                return r.status
            return (r.name, r.type, r.description)[col] if col < 3 else ""
        if role == FOREGROUND:
            if r.invalid_reasons and not r.staged:
                return _INVALID_BRUSH
            if r.staged == "deleted":
                return _DELETED_BRUSH
            return None
        if role == _FONT:
            if not r.staged:
                return None
            font = QFont()
            font.setItalic(True)
            font.setStrikeOut(r.staged == "deleted")
            return font
        if role == ALIGN:
            return RIGHT if col == 3 else None
        if role == TOOLTIP:
            if r.invalid_reasons:
                return QCoreApplication.translate(
                    "RecordTableModel", "{file} is invalid and is not loaded by the agent:"
                ).format(file=r.file_name) + ("\n" + "\n".join(f"• {x}" for x in core_texts(r.invalid_reasons)))
            return f"{r.file_name}\n{r.description}"
        if role == KEY_ROLE:
            return r.name
        if role == ITEM_ROLE:
            return r
        return None


    def _usage_data(self, r: RecordRow, role: int) -> Any:
        # Imported here: gui.tabs.workspace imports this module (a cycle at import time otherwise).
        from gui.tabs.workspace.usage_text import relative_when, usage_tooltip

        usage = self.usage.get(r.name)
        if role == DISPLAY:
            if not self.usage_available:
                return ""
            return relative_when(usage.last_used if usage is not None else None)
        if role == SORT_ROLE:
            return self.last_used(r.name)
        if role == TOOLTIP:
            return usage_tooltip(usage, self.usage_available)
        if role == KEY_ROLE:
            return r.name
        if role == ITEM_ROLE:
            return r
        return None


class RecordFilterProxy(SourceSortingProxy):
    """Filter-as-you-type over name, description and body (all words must match), plus a type filter."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self._words: list[str] = []
        self._type = ""
        self._source: RecordTableModel | None = None
        # Which source rows pass, worked out in one pass per change: filterAcceptsRow is then a list
        # lookup. Valid for the rows list it was computed on (set_rows/sort replace the list).
        self._accept: list[bool] = []
        self._accept_rows: list[RecordRow] | None = None
        self._accept_words: tuple[str, ...] = ()
        self._stale = True

    def set_filter_text(self, text: str) -> None:
        words = text.lower().split()
        if words == self._words:
            return  # e.g. a trailing space: nothing to redo
        narrowed = self._narrow(words)
        self.beginFilterChange()
        self._words = words
        self._stale = not narrowed
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def _narrow(self, words: list[str]) -> bool:
        """Typing on only narrows: re-test just the rows that passed before. False if it can't."""
        model = self._source
        if model is None or self._stale or self._accept_rows is not model._rows:
            return False
        old = self._accept_words
        if not old or len(words) < len(old) or any(o not in n for o, n in zip(old, words, strict=False)):
            return False  # not a refinement of the previous query
        rows = model._rows
        self._accept = [ok and all(w in rows[i].search_text for w in words) for i, ok in enumerate(self._accept)]
        self._accept_words = tuple(words)
        return True

    def _recompute(self) -> None:
        model = self._source
        assert model is not None
        rows = model._rows
        words, type_name = self._words, self._type
        out: list[bool] = []
        for r in rows:
            ok = bool(r.invalid_reasons) if type_name == "invalid" else (not type_name or r.type == type_name)
            if ok and words:
                hay = r.search_text
                ok = all(w in hay for w in words)
            out.append(ok)
        self._accept, self._accept_rows, self._accept_words, self._stale = out, rows, tuple(words), False

    def set_type_filter(self, type_name: str) -> None:
        """Empty for all types, ``invalid`` for invalid files only, else a record type."""
        self.beginFilterChange()
        self._type = type_name
        self._stale = True
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def _sorting_source(self) -> QAbstractItemModel | None:
        return self._source

    def setSourceModel(self, model: Any) -> None:
        self._source = model if isinstance(model, RecordTableModel) else None
        super().setSourceModel(model)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        # Runs once per row on every keystroke: one frame, a list lookup.
        model = self._source
        if model is None:
            return True
        if self._stale or self._accept_rows is not model._rows:
            self._recompute()
        accept = self._accept
        return accept[source_row] if source_row < len(accept) else True
