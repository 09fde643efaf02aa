"""Table models of the Maintenance tab: the stale-memory queue and the load meter (rows only).

Both sort through a ``QSortFilterProxyModel`` on :data:`SORT_ROLE` (numbers sort as numbers).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from core.display import format_size
from core.load_meter import WorkspaceLoad
from core.staleness import StaleItem
from gui.qtmodels.base import RowTableModel
from gui.tabs.maintenance.usage_views import LoadFollow, follow_cell, follow_tip, use_cell, use_rank
from gui.tabs.maintenance.wording import reason_advice, reason_detail, reason_label

Index = QModelIndex | QPersistentModelIndex
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
OVER_BACKGROUND = QColor("#fde2e1")


def folder_label(cwd: str) -> str:
    """The workspace's folder name (the full path is in the tooltip)."""
    return PurePath(cwd).name or cwd


class StaleQueueModel(RowTableModel[StaleItem]):
    """One row per (record, reason) the scan found."""

    HEADERS = ("Record", "Workspace", "Reason", "Agent use", "Details")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.cwds: dict[str, str] = {}  # workspace key -> folder path
        self.usage_available = False  # the usage ledger existed when scanned (issue 30)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            labels = (
                self.tr("Record"), self.tr("Workspace"), self.tr("Reason"), self.tr("Agent use"), self.tr("Details")
            )
            return labels[section] if 0 <= section < len(labels) else None
        return super().headerData(section, orientation, role)

    def set_items(self, items: Sequence[StaleItem], cwds: dict[str, str], usage_available: bool = False) -> None:
        self.cwds = dict(cwds)
        self.usage_available = usage_available
        self.replace_rows(items, lambda i: (i.key, i.name, i.reason))

    def item(self, row: int) -> StaleItem:
        return self._rows[row]

    def items(self) -> list[StaleItem]:
        return list(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        col = index.column()
        cwd = self.cwds.get(item.key, item.key)
        if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
            if col == 0:
                return item.name
            if col == 1:
                return folder_label(cwd)
            if col == 2:
                return reason_label(item.reason)
            if col == 3:
                return use_cell(item, self.usage_available) if role == Qt.ItemDataRole.DisplayRole else use_rank(item)
            if col == 4:
                return reason_detail(item) if role == Qt.ItemDataRole.DisplayRole else (item.days, item.score)
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 1:
                return cwd
            return f"{reason_detail(item)}\n{reason_advice(item.reason)}"
        return None


class LoadMeterModel(RowTableModel[WorkspaceLoad]):
    """One row per workspace: what an agent loads when it starts there."""

    HEADERS = ("Workspace", "Records", "GLOBAL.md", "MEMORY.md", "Total", "Est. tokens", "Status", "Led to a read")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.follows: dict[str, LoadFollow] = {}  # workspace key -> loaded bytes followed by a read (issue 30)

    def set_follows(self, follows: dict[str, LoadFollow]) -> None:
        self.follows = dict(follows)
        if self._rows:
            self.dataChanged.emit(self.index(0, 7), self.index(len(self._rows) - 1, 7))

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            labels = (
                self.tr("Workspace"),
                self.tr("Records"),
                "GLOBAL.md",
                "MEMORY.md",
                self.tr("Total"),
                self.tr("Est. tokens"),
                self.tr("Status"),
                self.tr("Led to a read"),
            )
            return labels[section] if 0 <= section < len(labels) else None
        if role == Qt.ItemDataRole.ToolTipRole:
            tips = (
                self.tr("The workspace's folder"),
                self.tr("Valid records in the workspace"),
                self.tr("Size of GLOBAL.md: loaded in every workspace"),
                self.tr("Size of this workspace's index (one line per record)"),
                self.tr("Bytes an agent loads at start"),
                self.tr("Estimated tokens: about 4 characters per token, 1 per Chinese character"),
                self.tr("Over the warning threshold set in Settings?"),
                self.tr("Of the index bytes loaded at session start: the share whose record the agent then opened "
                        "in the same session (from the usage ledger)"),
            )
            return tips[section] if 0 <= section < len(tips) else None
        return None

    def set_loads(self, rows: Sequence[WorkspaceLoad]) -> None:
        self.replace_rows(rows, lambda r: r.key)

    def row_load(self, row: int) -> WorkspaceLoad:
        return self._rows[row]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if col == 7:
            return self._follow_data(r, role)
        load = r.load
        numbers = (None, r.records, load.global_bytes, load.index_bytes, load.bytes, load.tokens, int(load.over))
        if role == SORT_ROLE:
            return folder_label(r.cwd).casefold() if col == 0 else numbers[col]
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return folder_label(r.cwd)
            if col == 1:
                return f"{r.records:,}"
            if col in (2, 3, 4):
                return format_size(int(numbers[col] or 0))
            if col == 5:
                return f"{load.tokens:,}"
            return self.tr("Over — prune the index") if load.over else self.tr("OK")
        if role == Qt.ItemDataRole.TextAlignmentRole and 1 <= col <= 5:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and load.over:
            return QBrush(OVER_BACKGROUND)
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 0:
                return r.cwd
            if load.over:
                return self.tr(
                    "{tokens} tokens is over the warning threshold of {limit}. Shorten long descriptions, merge "
                    "near-duplicates and delete records the agent no longer needs; GLOBAL.md counts in every "
                    "workspace."
                ).format(tokens=f"{load.tokens:,}", limit=f"{load.warning_tokens:,}")
        return None

    def _follow_data(self, r: WorkspaceLoad, role: int) -> Any:
        follow = self.follows.get(r.key)
        if role == Qt.ItemDataRole.DisplayRole:
            return follow_cell(follow)
        if role == SORT_ROLE:
            return follow.followed_bytes / follow.index_bytes if follow is not None and follow.index_bytes else -1.0
        if role == Qt.ItemDataRole.ToolTipRole:
            return follow_tip(follow)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
