"""Qt table models of the Recycle Bin: archived workspaces and deleted (or overwritten) records."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

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

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < 4:
            return (self.tr("Workspace"), self.tr("Folder"), self.tr("Archived"), self.tr("Records"))[section]
        return super().headerData(section, orientation, role)

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
                return w.cwd or self.tr("(unknown folder)")
            if col == self.ARCHIVED:
                return format_time(w.archived_at) or self.tr("unknown")
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
            return "\n".join([w.cwd or w.key, self.tr("Folder key: {key}").format(key=w.key), *workspace_problems(w)])
        if role == Qt.ItemDataRole.TextAlignmentRole and col == self.RECORDS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class DeletedRecordsModel(RowTableModel[HistoryEntry]):
    """One row per history entry: a record that was deleted (or an earlier version of an edited one)."""

    HEADERS = ("Record", "Workspace", "When", "What happened")
    NAME, WORKSPACE, WHEN, REASON = range(4)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.back: frozenset[str] = frozenset()

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < 4:
            return (self.tr("Record"), self.tr("Workspace"), self.tr("When"), self.tr("What happened"))[section]
        return super().headerData(section, orientation, role)

    def set_entries(self, entries: list[HistoryEntry], back: frozenset[str] = frozenset()) -> None:
        """``back``: deleted entries whose record exists again (listed only with earlier versions)."""
        changed = back != self.back
        self.back = back
        self.replace_rows(entries, lambda e: e.id)
        if changed and self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, len(self.HEADERS) - 1))

    def reason_text(self, e: HistoryEntry) -> str:
        if e.reason == "delete":
            return self.tr("Deleted, restored since") if e.id in self.back else self.tr("Deleted")
        if e.reason == "overwrite":
            return self.tr("Earlier version")
        return e.reason

    def entry(self, row: int) -> HistoryEntry:
        return self._rows[row]

    def row_of(self, entry_id: str) -> int:
        return next((i for i, e in enumerate(self._rows) if e.id == entry_id), -1)

    @staticmethod
    def workspace_label(entry: HistoryEntry) -> str:
        if entry.scope_key == GLOBAL_SCOPE:
            return QCoreApplication.translate("DeletedRecordsModel", "Global")
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
                return self.reason_text(e)
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
            return self.tr("{name} in {where}\n{when} · {size} bytes").format(
                name=e.name, where=e.cwd or e.scope_key, when=_iso(e.time), size=e.size
            )
        return None


class DeletedRecordsProxy(QSortFilterProxyModel):
    """Filters by text like any proxy, and hides 'earlier version' rows unless asked for.

    A deleted record that is back in its workspace is not deleted any more: it is hidden with the
    earlier versions (and shown with them as "Deleted, restored since")."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.show_versions = False

    def set_show_versions(self, show: bool) -> None:
        self.beginFilterChange()
        self.show_versions = show
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        model = self.sourceModel()
        hidden = False
        if not self.show_versions and isinstance(model, DeletedRecordsModel):
            entry = model.entry(source_row)
            hidden = entry.reason != "delete" or entry.id in model.back
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
