"""Workspace list: name, record count, problems (folder missing, invalid files, bad scope.json)."""

from __future__ import annotations

from typing import Any, NamedTuple

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractItemModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from core.models import WorkspaceInfo
from gui.qtmodels.base import RowTableModel, SourceSortingProxy
from gui.qtmodels.roles import ALIGN, DISPLAY, FOREGROUND, ITEM_ROLE, KEY_ROLE, RIGHT, SORT_ROLE, TOOLTIP

_Index = QModelIndex | QPersistentModelIndex
# Plain ints and shared objects: data() runs for every painted cell.
_PROBLEM_BRUSH = QBrush(QColor("#a33"))


def _tr(text: str) -> str:
    return QCoreApplication.translate("WorkspaceTableModel", text)


def problems_text(info: WorkspaceInfo, *, short: bool = False) -> list[str]:
    """:func:`core.display.workspace_problems` in the interface language, from the info's fields
    (a bad ``scope.json``'s reason is the store's own text, shown as it is)."""
    out = []
    if not info.cwd_exists:
        out.append(QCoreApplication.translate("WorkspaceTableModel", "folder missing"))
    if info.invalid_count:
        n = info.invalid_count
        out.append(
            QCoreApplication.translate("WorkspaceTableModel", "%n invalid", "", n)
            if short
            else QCoreApplication.translate("WorkspaceTableModel", "%n invalid file(s)", "", n)
        )
    if info.scope_problem and not short:
        out.append(info.scope_problem)
    return out


class _Shown(NamedTuple):
    """What the table needs of one workspace, worked out once per list (not per paint or keystroke:
    ``display_name`` normalizes the path on every call, and 1,000 workspaces are a normal root)."""

    name: str
    records: str
    problems: str
    problem_count: int
    name_key: str  # sort key of the Workspace column
    haystack: str  # what the filter searches: name, folder and key, lowercased


def _shown(info: WorkspaceInfo, same: _Shown | None = None) -> _Shown:
    """``same``: what was worked out before for the same key and folder (the name and its texts)."""
    problems = problems_text(info)
    records = str(info.record_count) if info.counted else "…"  # a first load's names: the counts follow
    if same is not None:
        return same._replace(records=records, problems=", ".join(problems), problem_count=len(problems))
    name = info.display_name
    return _Shown(
        name,
        records,
        ", ".join(problems),
        len(problems),
        name.lower(),
        f"{name}\n{info.cwd}\n{info.key}".lower(),
    )


class WorkspaceTableModel(RowTableModel[WorkspaceInfo]):
    HEADERS = (
        str(QT_TRANSLATE_NOOP("WorkspaceTableModel", "Workspace")),
        str(QT_TRANSLATE_NOOP("WorkspaceTableModel", "Records")),
        str(QT_TRANSLATE_NOOP("WorkspaceTableModel", "Problems")),
    )
    HEADER_TIPS = (
        str(QT_TRANSLATE_NOOP("WorkspaceTableModel", "Workspace folder name (hover for its path)")),
        str(QT_TRANSLATE_NOOP("WorkspaceTableModel", "Valid records")),
        str(QT_TRANSLATE_NOOP("WorkspaceTableModel", "Things to look at")),
    )

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        value = super().headerData(section, orientation, role)
        return _tr(value) if isinstance(value, str) else value

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._shown: list[_Shown] = []
        self._sort: tuple[int, Qt.SortOrder] | None = None  # None: the order given (until sort())

    # --- data ---------------------------------------------------------------------------
    def set_workspaces(self, items: list[WorkspaceInfo]) -> None:
        """Replace the list; same keys in the same order update in place (views keep selection)."""
        # Mostly the same workspaces as before (the counted list after a first load's names): their
        # names are not worked out again (display_name normalizes a path: 50 ms for 1,000).
        known = {(i.key, i.cwd): s for i, s in zip(self._rows, self._shown, strict=True)}
        pairs = self._sorted([(i, _shown(i, known.get((i.key, i.cwd)))) for i in items])
        rows, shown = [p[0] for p in pairs], [p[1] for p in pairs]
        # The display cache must be in place before replace_rows signals (views read data() then).
        old_rows, old_shown = self._rows, self._shown
        self._shown = shown
        try:
            self.replace_rows(rows, lambda w: w.key)
        except BaseException:
            self._rows, self._shown = old_rows, old_shown
            raise

    def workspace(self, row: int) -> WorkspaceInfo:
        return self._rows[row]

    def row_of(self, key: str) -> int:
        return next((r for r, i in enumerate(self._rows) if i.key == key), -1)

    def names(self) -> dict[str, str]:
        """Key -> display name, as worked out once per list (``display_name`` normalizes a path)."""
        return {info.key: shown.name for info, shown in zip(self._rows, self._shown, strict=True)}

    def keys(self) -> list[str]:
        return [i.key for i in self._rows]

    def haystacks(self) -> list[str]:
        """Per row, in row order: the lowercased text the filter looks in."""
        return [s.haystack for s in self._shown]

    # --- sorting: here, in one Python sort, so the filter proxy never sorts on a keystroke ---------
    @staticmethod
    def _sorted_by(pairs: list[tuple[WorkspaceInfo, _Shown]], column: int, order: Qt.SortOrder) -> list[Any]:
        """Ties (equal counts) stay in name order either way, as they were in the proxy's stable sort."""
        descending = order == Qt.SortOrder.DescendingOrder
        by_name = sorted(pairs, key=lambda p: (p[1].name_key, p[0].key), reverse=descending and column == 0)
        if column == 1:
            return sorted(by_name, key=lambda p: p[0].record_count, reverse=descending)
        if column == 2:
            return sorted(by_name, key=lambda p: p[1].problem_count, reverse=descending)
        return by_name

    def _sorted(self, pairs: list[tuple[WorkspaceInfo, _Shown]]) -> list[tuple[WorkspaceInfo, _Shown]]:
        return pairs if self._sort is None else self._sorted_by(pairs, *self._sort)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.HEADERS):
            return
        self._sort = (column, order)
        pairs = self._sorted(list(zip(self._rows, self._shown, strict=True)))
        if [p[0].key for p in pairs] == [i.key for i in self._rows]:
            return
        self.layoutAboutToBeChanged.emit()
        new_pos = {info.key: r for r, (info, _s) in enumerate(pairs)}
        old_keys = [i.key for i in self._rows]
        old = self.persistentIndexList()
        self._rows = [p[0] for p in pairs]
        self._shown = [p[1] for p in pairs]
        self.changePersistentIndexList(old, [self.index(new_pos[old_keys[i.row()]], i.column()) for i in old])
        self.layoutChanged.emit()

    # --- Qt model API -----------------------------------------------------------------------
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        if not 0 <= row < len(self._shown):
            return None
        shown = self._shown[row]
        col = index.column()
        if role == DISPLAY:
            return shown[col] if 0 <= col < 3 else None
        if role == SORT_ROLE:
            return (shown.name_key, self._rows[row].record_count, shown.problem_count)[col] if col < 3 else None
        if role == FOREGROUND:
            return _PROBLEM_BRUSH if col == 2 and shown.problem_count else None
        if role == ALIGN:
            return RIGHT if col == 1 else None
        if role == TOOLTIP:
            info = self._rows[row]
            lines = [
                info.cwd or info.key,
                QCoreApplication.translate("WorkspaceTableModel", "key: {key}").format(key=info.key),
                QCoreApplication.translate("WorkspaceTableModel", "%n record(s)", "", info.record_count)
                if info.counted
                else QCoreApplication.translate("WorkspaceTableModel", "Counting records…"),
            ]
            lines += problems_text(info)
            return "\n".join(lines)
        if role == KEY_ROLE:
            return self._rows[row].key
        if role == ITEM_ROLE:
            return self._rows[row]
        return None


class WorkspaceFilterProxy(SourceSortingProxy):
    """Case-insensitive filter on name, cwd and key; sorting is the source model's (numeric counts).

    A keystroke tests every workspace once, in one Python loop over precomputed lowercase texts;
    ``filterAcceptsRow`` (called by Qt once per row) is then a list lookup.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self._needle = ""
        self._source: WorkspaceTableModel | None = None
        self._accept: list[bool] = []
        self._accept_for: tuple[list[WorkspaceInfo], str] | None = None  # the rows and needle it is for

    def set_filter_text(self, text: str) -> None:
        needle = text.strip().lower()
        if needle == self._needle:
            return
        self.beginFilterChange()
        self._needle = needle
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def setSourceModel(self, model: Any) -> None:
        self._source = model if isinstance(model, WorkspaceTableModel) else None
        self._accept_for = None
        super().setSourceModel(model)

    def _sorting_source(self) -> QAbstractItemModel | None:
        return self._source

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        model = self._source
        if model is None or not self._needle:
            return True
        if self._accept_for is None or self._accept_for[0] is not model._rows or self._accept_for[1] != self._needle:
            needle = self._needle
            self._accept = [needle in hay for hay in model.haystacks()]
            self._accept_for = (model._rows, needle)
        accept = self._accept
        return accept[source_row] if source_row < len(accept) else True
