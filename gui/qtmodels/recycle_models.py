"""Qt table models of the Recycle Bin: archived workspaces and deleted (or overwritten) records."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from core.display import format_time, workspace_problems
from core.keys import workspace_name
from core.models import HistoryEntry, WorkspaceInfo
from core.store.base import GLOBAL_SCOPE
from gui.qtmodels.base import Index, RowTableModel
from gui.qtmodels.roles import ITEM_ROLE, KEY_ROLE, SORT_ROLE


def _iso(value: datetime | None) -> str:
    return value.isoformat() if value is not None else ""


class ArchivedWorkspacesModel(RowTableModel[WorkspaceInfo]):
    """One row per archived workspace scope: name, folder (cwd), archive time, record count."""

    HEADERS = ("Workspace", "Folder", "Archived", "Records")
    NAME, FOLDER, ARCHIVED, RECORDS = range(4)

    def set_workspaces(self, workspaces: list[WorkspaceInfo]) -> None:
        self.replace_rows(workspaces, lambda w: w.key)

    def workspace(self, row: int) -> WorkspaceInfo:
        return self._rows[row]

    def row_of(self, key: str) -> int:
        return next((i for i, w in enumerate(self._rows) if w.key == key), -1)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        w = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == self.NAME:
                return w.display_name
            if col == self.FOLDER:
                return w.cwd or "(unknown folder)"
            if col == self.ARCHIVED:
                return format_time(w.archived_at) or "unknown"
            if col == self.RECORDS:
                return str(w.record_count)
            return None
        if role == SORT_ROLE:
            if col == self.NAME:
                return w.display_name.casefold()
            if col == self.FOLDER:
                return w.cwd
            if col == self.ARCHIVED:
                return _iso(w.archived_at)
            if col == self.RECORDS:
                return w.record_count
            return None
        if role == KEY_ROLE:
            return w.key
        if role == ITEM_ROLE:
            return w
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join([w.cwd or w.key, f"Folder key: {w.key}", *workspace_problems(w)])
        if role == Qt.ItemDataRole.TextAlignmentRole and col == self.RECORDS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class DeletedRecordsModel(RowTableModel[HistoryEntry]):
    """One row per history entry: a record that was deleted (or an earlier version of an edited one)."""

    HEADERS = ("Record", "Workspace", "When", "What happened")
    NAME, WORKSPACE, WHEN, REASON = range(4)
    REASON_TEXT: ClassVar[dict[str, str]] = {"delete": "Deleted", "overwrite": "Earlier version"}

    def set_entries(self, entries: list[HistoryEntry]) -> None:
        self.replace_rows(entries, lambda e: e.id)

    def entry(self, row: int) -> HistoryEntry:
        return self._rows[row]

    def row_of(self, entry_id: str) -> int:
        return next((i for i, e in enumerate(self._rows) if e.id == entry_id), -1)

    @staticmethod
    def workspace_label(entry: HistoryEntry) -> str:
        if entry.scope_key == GLOBAL_SCOPE:
            return "Global"
        return workspace_name(entry.cwd) if entry.cwd else entry.scope_key

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        e = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == self.NAME:
                return e.name
            if col == self.WORKSPACE:
                return self.workspace_label(e)
            if col == self.WHEN:
                return format_time(e.time)
            if col == self.REASON:
                return self.REASON_TEXT.get(e.reason, e.reason)
            return None
        if role == SORT_ROLE:
            if col == self.NAME:
                return e.name
            if col == self.WORKSPACE:
                return self.workspace_label(e).casefold()
            if col == self.WHEN:
                return _iso(e.time)
            if col == self.REASON:
                return e.reason
            return None
        if role == KEY_ROLE:
            return e.id
        if role == ITEM_ROLE:
            return e
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{e.name} in {e.cwd or e.scope_key}\n{_iso(e.time)} · {e.size} bytes"
        return None


class DeletedRecordsProxy(QSortFilterProxyModel):
    """Filters by text like any proxy, and hides 'earlier version' rows unless asked for."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.show_versions = False

    def set_show_versions(self, show: bool) -> None:
        self.beginFilterChange()
        self.show_versions = show
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        model = self.sourceModel()
        hidden = (
            not self.show_versions
            and isinstance(model, DeletedRecordsModel)
            and model.entry(source_row).reason != "delete"
        )
        if hidden:
            return False
        return super().filterAcceptsRow(source_row, source_parent)


def filter_proxy(proxy: QSortFilterProxyModel, source: Any) -> QSortFilterProxyModel:
    """``proxy`` over ``source``: sorts by SORT_ROLE, filters on every column, ignoring case."""
    proxy.setSourceModel(source)
    proxy.setSortRole(SORT_ROLE)
    proxy.setFilterKeyColumn(-1)
    proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    return proxy
