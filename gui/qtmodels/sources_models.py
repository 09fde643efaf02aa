"""Qt table models of other memory stores: the sources list, foreign entries, workspace memory's bin."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor

from core.display import format_size, format_time
from core.sources.models import SOURCE_LABELS, ForeignEntry, SourceSnapshot
from core.sources.workspace_memory_bin import BinScope
from gui.qtmodels.base import Index, RowTableModel
from gui.qtmodels.roles import ITEM_ROLE, KEY_ROLE, SORT_ROLE

_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_WARN = "#a12a1c"
_MUTED = "#777777"


translate = QCoreApplication.translate


def problems_text(snap: SourceSnapshot) -> str:
    errors = sum(p.severity == "error" for p in snap.problems)
    notes = len(snap.problems) - errors
    parts = []
    if errors:
        parts.append(
            translate("SourcesModel", "1 error") if errors == 1 else translate("SourcesModel", "%n errors", "", errors)
        )
    if notes:
        parts.append(
            translate("SourcesModel", "1 note") if notes == 1 else translate("SourcesModel", "%n notes", "", notes)
        )
    return translate("SourcesModel", ", ").join(parts) or translate("SourcesModel", "none")


class SourcesModel(RowTableModel[SourceSnapshot]):
    """One row per memory store found: which store, where, how many scopes and entries, its problems."""

    HEADERS = ("Store", "Location", "Scopes", "Entries", "Problems")
    STORE, PATH, SCOPES, ENTRIES, PROBLEMS = range(5)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < 5:
            return (self.tr("Store"), self.tr("Location"), self.tr("Scopes"), self.tr("Entries"), self.tr("Problems"))[
                section
            ]
        return super().headerData(section, orientation, role)

    def set_sources(self, sources: list[SourceSnapshot]) -> None:
        self.replace_rows(sources, lambda s: (s.kind, s.path))

    def source(self, row: int) -> SourceSnapshot:
        return self._rows[row]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        s = self._rows[index.row()]
        col = index.column()
        values: tuple[Any, ...] = (s.label, s.path, len(s.active_scopes), s.count, problems_text(s))
        if role == Qt.ItemDataRole.DisplayRole:
            return str(values[col]) if 0 <= col < len(values) else None
        if role == SORT_ROLE:
            return len(s.problems) if col == self.PROBLEMS else values[col]
        if role == Qt.ItemDataRole.ForegroundRole and col == self.PROBLEMS:
            if any(p.severity == "error" for p in s.problems):
                return QColor(_WARN)
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (self.SCOPES, self.ENTRIES):
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            archived = len(s.scopes) - len(s.active_scopes)
            return f"{s.label}\n{s.path}\n" + self.tr("{active} active, {archived} archived").format(
                active=len(s.active_scopes), archived=archived
            )
        if role == KEY_ROLE:
            return f"{s.kind}:{s.path}"
        if role == ITEM_ROLE:
            return s
        return None


def status_text(status: str) -> str:
    return {
        "active": translate("ForeignEntriesModel", "active"),
        "conflict": translate("ForeignEntriesModel", "conflict"),
        "superseded": translate("ForeignEntriesModel", "superseded"),
        "deleted": translate("ForeignEntriesModel", "deleted"),
        "unknown": translate("ForeignEntriesModel", "unknown"),
    }.get(status, status)


class ForeignEntriesModel(RowTableModel[ForeignEntry]):
    """Entries other stores hold, read-only; every status is a row (superseded and deleted shown).

    The status column says the status; why (``status_detail``), the kind and the time are in the
    tooltip and the panel's detail pane, so the table stays readable in the narrow detail column.
    """

    HEADERS = ("Title", "Status", "Store")
    TITLE, STATUS, STORE = range(3)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < 3:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return (self.tr("Title"), self.tr("Status"), self.tr("Store"))[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return (
                "",
                self.tr(
                    "What that store says about the entry: superseded, conflicting and deleted entries are shown too"
                ),
                self.tr("Which memory store holds the entry (read-only here)"),
            )[section] or None
        return None

    def set_entries(self, entries: list[ForeignEntry]) -> None:
        self.replace_rows(entries, lambda e: (e.source, e.scope, e.id))

    def entry(self, row: int) -> ForeignEntry:
        return self._rows[row]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        e = self._rows[index.row()]
        col = index.column()
        values = (e.title, status_text(e.status), SOURCE_LABELS[e.source])
        if role == Qt.ItemDataRole.DisplayRole:
            return values[col] if 0 <= col < len(values) else None
        if role == SORT_ROLE:
            return values[col] if 0 <= col < len(values) else None
        if role == Qt.ItemDataRole.ForegroundRole and e.status != "active":
            return QColor(_WARN if e.status == "conflict" else _MUTED)
        if role == Qt.ItemDataRole.ToolTipRole:
            when = " · " + self.tr("updated {when}").format(when=format_time(e.updated)) if e.updated else ""
            detail = f"\n{e.status}: {e.status_detail}" if e.status_detail else ""
            return f"{SOURCE_LABELS[e.source]} · {e.kind} · {e.id}{when}{detail}\n{e.path}"
        if role == KEY_ROLE:
            return f"{e.source}/{e.scope}/{e.id}"
        if role == ITEM_ROLE:
            return e
        return None


class WorkspaceMemoryBinModel(RowTableModel[BinScope]):
    """Workspace memory's archived scopes (restore, purge) and stale active ones (archive)."""

    HEADERS = ("Workspace memory", "Folder", "State", "Entries", "Size")
    NAME, FOLDER, STATE, ENTRIES, SIZE = range(5)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < 5:
            return (
                self.tr("Workspace memory"),
                self.tr("Folder"),
                self.tr("State"),
                self.tr("Entries"),
                self.tr("Size"),
            )[section]
        return super().headerData(section, orientation, role)

    def set_scopes(self, scopes: list[BinScope]) -> None:
        self.replace_rows(scopes, lambda s: (s.archived, s.key))

    def scope(self, row: int) -> BinScope:
        return self._rows[row]

    def row_of(self, key: str, archived: bool) -> int:
        return next((i for i, s in enumerate(self._rows) if s.key == key and s.archived == archived), -1)

    @staticmethod
    def state(s: BinScope) -> str:
        if not s.archived:
            return translate("WorkspaceMemoryBinModel", "active, folder gone")
        when = format_time(s.changed) if s.changed else ""
        text = translate("WorkspaceMemoryBinModel", "archived {when}").format(when=when).strip()
        return text + (translate("WorkspaceMemoryBinModel", " (also active)") if s.active_exists else "")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        s = self._rows[index.row()]
        col = index.column()
        values = (s.label, s.cwd, self.state(s), str(s.entries), format_size(s.size_bytes))
        if role == Qt.ItemDataRole.DisplayRole:
            return values[col] if 0 <= col < len(values) else None
        if role == SORT_ROLE:
            return {self.ENTRIES: s.entries, self.SIZE: s.size_bytes}.get(col, values[col])
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (self.ENTRIES, self.SIZE):
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join([s.cwd, self.tr("Scope key: {key}").format(key=s.key), str(s.path), *s.problems])
        if role == KEY_ROLE:
            return f"{'archived' if s.archived else 'scopes'}/{s.key}"
        if role == ITEM_ROLE:
            return s
        return None
