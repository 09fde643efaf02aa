"""Workspace list: name, record count, problems (folder missing, invalid files, bad scope.json)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from core.models import WorkspaceInfo
from gui.qtmodels.base import RowTableModel
from gui.qtmodels.roles import ITEM_ROLE, KEY_ROLE, SORT_ROLE

_Index = QModelIndex | QPersistentModelIndex


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

    # --- data ---------------------------------------------------------------------------
    def set_workspaces(self, items: list[WorkspaceInfo]) -> None:
        """Replace the list; same keys in the same order update in place (views keep selection)."""
        self.replace_rows(items, lambda w: w.key)

    def workspace(self, row: int) -> WorkspaceInfo:
        return self._rows[row]

    def row_of(self, key: str) -> int:
        return next((r for r, i in enumerate(self._rows) if i.key == key), -1)

    def keys(self) -> list[str]:
        return [i.key for i in self._rows]

    # --- Qt model API -----------------------------------------------------------------------
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        info = self._rows[index.row()]
        col = index.column()
        problems = problems_text(info)
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return info.display_name
            if col == 1:
                return str(info.record_count)
            if col == 2:
                return ", ".join(problems)
        elif role == SORT_ROLE:
            if col == 0:
                return info.display_name.lower()
            if col == 1:
                return info.record_count
            return len(problems)
        elif role == Qt.ItemDataRole.ToolTipRole:
            lines = [
                info.cwd or info.key,
                QCoreApplication.translate("WorkspaceTableModel", "key: {key}").format(key=info.key),
                QCoreApplication.translate("WorkspaceTableModel", "%n record(s)", "", info.record_count),
            ]
            lines += problems
            return "\n".join(lines)
        elif role == Qt.ItemDataRole.ForegroundRole and col == 2 and problems:
            return QBrush(QColor("#a33"))
        elif role == Qt.ItemDataRole.TextAlignmentRole and col == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        elif role == KEY_ROLE:
            return info.key
        elif role == ITEM_ROLE:
            return info
        return None


class WorkspaceFilterProxy(QSortFilterProxyModel):
    """Case-insensitive filter on name, cwd and key; numeric sort of counts."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)
        self._needle = ""

    def set_filter_text(self, text: str) -> None:
        self.beginFilterChange()
        self._needle = text.strip().lower()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        if not self._needle:
            return True
        model = self.sourceModel()
        if not isinstance(model, WorkspaceTableModel) or source_row >= model.rowCount():
            return True
        info = model.workspace(source_row)
        return self._needle in f"{info.display_name}\n{info.cwd}\n{info.key}".lower()
