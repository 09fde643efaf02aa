"""Qt models of the Session Consolidation tab: session workspaces, sessions, review changes, receipts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QIcon

from core.consolidation.proposals import ReviewChange
from core.consolidation.review_sources import PendingItem
from core.consolidation.review_state import ChangeRow, ReceiptItem, SessionRow, WorkspaceChoice
from core.display import format_size, format_time
from gui.core_text import core_note, core_text, core_texts
from gui.qtmodels.base import RowTableModel
from gui.qtmodels.roles import ITEM_ROLE, KEY_ROLE, SORT_ROLE
from gui.widgets.review_receipt import status_label

Index = QModelIndex | QPersistentModelIndex
_NO_INDEX = QModelIndex()
_DISPLAY = Qt.ItemDataRole.DisplayRole
_WARN_BG = QBrush(QColor("#fff6dc"))
_REFUSED_FG = QBrush(QColor("#8a1c12"))
_MUTED_FG = QBrush(QColor("#777777"))


def _warning_icon() -> QIcon:
    from PySide6.QtWidgets import QApplication, QStyle

    return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)


# --- workspaces that have sessions ------------------------------------------------------------


class WorkspaceChoiceModel(QAbstractListModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[WorkspaceChoice] = []

    def set_choices(self, choices: list[WorkspaceChoice]) -> None:
        self.beginResetModel()
        self._rows = list(choices)
        self.endResetModel()

    def choice(self, row: int) -> WorkspaceChoice:
        return self._rows[row]

    def row_of(self, key: str | None) -> int:
        return next((i for i, c in enumerate(self._rows) if c.key == key), -1)

    def rowCount(self, parent: Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        c = self._rows[index.row()]
        if role == _DISPLAY:  # the label from its fields, in the user's language
            title = c.title if c.key is not None else self.tr("Unassigned")
            n = c.session_count
            return (self.tr("{title} (1 session)") if n == 1 else self.tr("{title} (%n sessions)", "", n)).format(
                title=title
            )
        if role == Qt.ItemDataRole.ToolTipRole:
            return c.cwd or self.tr("Sessions started without a working directory")
        if role == KEY_ROLE:
            return c.key or ""
        if role == ITEM_ROLE:
            return c
        return None


# --- sessions -----------------------------------------------------------------------------------


class SessionTableModel(RowTableModel[SessionRow]):
    HEADERS = ("Title", "Date", "Turns", "Size", "Version", "State", "Last review")
    TITLE, DATE, TURNS, SIZE, VERSION, STATE, LAST = range(7)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._batch: dict[str, str] = {}  # session id -> its status in the batch run shown

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if role == _DISPLAY and orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.HEADERS):
            return (
                self.tr("Title"),
                self.tr("Date"),
                self.tr("Turns"),
                self.tr("Size"),
                self.tr("Version"),
                self.tr("State"),
                self.tr("Last review"),
            )[section]
        return super().headerData(section, orientation, role)

    def set_batch_status(self, session_id: str, status: str) -> None:
        """Per-session status of a batch run ("queued", "running", "proposed"…), in Last review."""
        if status:
            self._batch[session_id] = status
        else:
            self._batch.pop(session_id, None)
        row = self.row_of(session_id)
        if row >= 0:
            idx = self.index(row, self.LAST)
            self.dataChanged.emit(idx, idx)

    def clear_batch(self) -> None:
        for sid in list(self._batch):
            self.set_batch_status(sid, "")

    def set_rows(self, rows: list[SessionRow]) -> None:
        """New rows; the same sessions in the same order update in place (selection kept)."""
        self.replace_rows(rows, lambda r: r.id)

    def rows(self) -> list[SessionRow]:
        return list(self._rows)

    def session_row(self, row: int) -> SessionRow:
        return self._rows[row]

    def row_of(self, session_id: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.id == session_id), -1)

    def set_last_status(self, session_id: str, status: str) -> None:
        row = self.row_of(session_id)
        if row >= 0:
            self._rows[row] = replace(self._rows[row], last_status=status)
            idx = self.index(row, self.LAST)
            self.dataChanged.emit(idx, idx)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        r = self._rows[index.row()]
        s = r.summary
        col = index.column()
        when = s.updated or s.created
        if role == _DISPLAY:
            return (
                s.title or self.tr("(untitled)"),
                format_time(when),
                str(s.turns),
                format_size(s.size),
                f"v{s.format_version}",
                self.tr("stable") if r.stable else self.tr("live"),
                self._batch.get(r.id) or (status_label(r.last_status) if r.last_status else "—"),
            )[col]
        if role == SORT_ROLE:
            return (
                (s.title or "").lower(),
                when.timestamp() if when else 0.0,
                s.turns,
                s.size,
                s.format_version,
                0 if r.stable else 1,
                r.last_status,
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == self.STATE:
                return core_text(r.state_reason)
            if s.warnings and col in (self.TITLE, self.VERSION):
                return "\n".join(s.warnings)
            return self.tr("{title}\nsession {id}\n{cwd}\nlog format v{version}").format(
                title=s.title, id=s.id, cwd=s.cwd or self.tr("no working directory"), version=s.format_version
            )
        if role == Qt.ItemDataRole.DecorationRole and col == self.TITLE and s.warnings:
            return _warning_icon()
        if role == Qt.ItemDataRole.ForegroundRole and col == self.STATE and not r.stable:
            return _MUTED_FG
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (self.TURNS, self.SIZE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == KEY_ROLE:
            return r.id
        if role == ITEM_ROLE:
            return r
        return None


class SessionFilterProxy(QSortFilterProxyModel):
    """Filter-as-you-type on title and id; sorts by SORT_ROLE (dates and sizes as numbers)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._needle = ""

    def set_filter_text(self, text: str) -> None:
        self.beginFilterChange()
        self._needle = text.strip().lower()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if not self._needle:
            return True
        model = self.sourceModel()
        if not isinstance(model, SessionTableModel) or source_row >= model.rowCount():
            return True
        r = model.session_row(source_row)
        return self._needle in f"{r.summary.title}\n{r.id}".lower()


# --- the review -----------------------------------------------------------------------------------


def op_label(kind: str) -> str:
    """The Change column: what the change does, in words."""
    translate = QCoreApplication.translate
    return {
        "put": translate("ReviewChangesModel", "write"),
        "delete": translate("ReviewChangesModel", "delete"),
        "replace_global": translate("ReviewChangesModel", "replace Global"),
        "no_change": translate("ReviewChangesModel", "no change"),
    }.get(kind, kind)


class ReviewChangesModel(RowTableModel[ChangeRow]):
    """One row per proposed change; column 0 is the accept checkbox (only for actionable changes)."""

    HEADERS = ("Accept", "Change", "Target", "Reason", "Warnings")
    ACCEPT, OP, TARGET, REASON, NOTES = range(5)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._saved_edits: set[str] = set()

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if role == _DISPLAY and orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.HEADERS):
            return (self.tr("Accept"), self.tr("Change"), self.tr("Target"), self.tr("Reason"), self.tr("Warnings"))[
                section
            ]
        return super().headerData(section, orientation, role)

    def set_changes(self, changes: list[ReviewChange] | tuple[ReviewChange, ...], edited: tuple[str, ...] = ()) -> None:
        """``edited``: ids whose record the user edited before a restart (the change holds the edit)."""
        self.beginResetModel()
        self._rows = [ChangeRow(c) for c in changes]
        self._saved_edits = set(edited)
        self.endResetModel()

    def is_edited(self, row: int) -> bool:
        r = self._rows[row]
        return r.edited is not None or r.change.id in self._saved_edits

    def revert_row(self, row: int, original: ReviewChange) -> None:
        """The change as proposed again (the user undid their edit, saved or not)."""
        self._saved_edits.discard(self._rows[row].change.id)
        r = ChangeRow(original, accepted=self._rows[row].accepted)
        self._rows[row] = replace(r, accepted=r.accepted and r.acceptable)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))

    def clear(self) -> None:
        self.set_changes([])

    def change_rows(self) -> list[ChangeRow]:
        return list(self._rows)

    def change_row(self, row: int) -> ChangeRow:
        return self._rows[row]

    def row_of(self, change_id: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.change.id == change_id), -1)

    def set_accepted(self, row: int, accepted: bool) -> bool:
        if not 0 <= row < len(self._rows) or not self._rows[row].acceptable:
            return False
        if self._rows[row].accepted != accepted:
            self._rows[row] = replace(self._rows[row], accepted=accepted)
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))
        return True

    def set_edit(self, row: int, edited: ReviewChange | None) -> None:
        """Replace the row's change by its edited, re-checked version (None: back to the proposal)."""
        r = replace(self._rows[row], edited=edited)
        self._rows[row] = replace(r, accepted=r.accepted and r.acceptable)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))

    def accepted_rows(self) -> list[ChangeRow]:
        return [r for r in self._rows if r.accepted and r.acceptable]

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == self.ACCEPT and self._rows[index.row()].acceptable:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        r = self._rows[index.row()]
        c = r.current
        col = index.column()
        if role == _DISPLAY:
            if col == self.ACCEPT:
                if not c.is_valid:
                    return self.tr("refused")
                if not r.acceptable:
                    return "—"
                return self.tr("edited") if self.is_edited(index.row()) else ""
            op = op_label(c.kind)
            target = (c.target or "—") + (self.tr(" (edited)") if self.is_edited(index.row()) else "")
            return (None, op, target, core_text(c.reason), "; ".join(map(core_note, r.notes)))[col]
        if role == Qt.ItemDataRole.CheckStateRole and col == self.ACCEPT and r.acceptable:
            return Qt.CheckState.Checked if r.accepted else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == self.ACCEPT and not c.is_valid:
                return self.tr("This change cannot be accepted:") + "\n" + "\n".join(core_texts(c.problems))
            if col == self.NOTES and r.notes:
                return "\n".join(map(core_note, r.notes))
            if col == self.REASON:
                seqs = ", ".join(str(s) for s in c.evidence)
                return c.reason + ("\n\n" + self.tr("Evidence: seq {seqs}").format(seqs=seqs) if seqs else "")
            return None
        if role == Qt.ItemDataRole.ForegroundRole and (not c.is_valid) and col in (self.ACCEPT, self.NOTES):
            return _REFUSED_FG
        if role == Qt.ItemDataRole.BackgroundRole and c.warnings and c.is_valid:
            return _WARN_BG
        if role == KEY_ROLE:
            return c.id
        if role == ITEM_ROLE:
            return r
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or index.column() != self.ACCEPT or role != Qt.ItemDataRole.CheckStateRole:
            return False
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2, True)
        return self.set_accepted(index.row(), checked)


class _ReviewRow(Protocol):
    @property
    def label(self) -> str: ...

    @property
    def review_id(self) -> str: ...


_Item = TypeVar("_Item", bound=_ReviewRow)


# --- receipts, pending reviews, agent proposals, imports ------------------------------------------


class _ReviewListModel(QAbstractListModel, Generic[_Item]):
    """A list of review-shaped rows (``label``, ``review_id``), found again by their review id."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[_Item] = []

    def _set_rows(self, items: list[_Item]) -> None:
        self.beginResetModel()
        self._rows = list(items)
        self.endResetModel()

    def item(self, row: int) -> _Item:
        return self._rows[row]

    def row_of(self, review_id: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.review_id == review_id), -1)

    def rowCount(self, parent: Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        r = self._rows[index.row()]
        if role == _DISPLAY:
            return r.label
        if role == KEY_ROLE:
            return r.review_id
        if role == ITEM_ROLE:
            return r
        return self._extra(r, role)

    def _extra(self, r: _Item, role: int) -> Any:
        return None


class ReceiptListModel(_ReviewListModel[ReceiptItem]):
    def set_receipts(self, items: list[ReceiptItem]) -> None:
        self._set_rows(items)

    def _extra(self, r: ReceiptItem, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"reviews/{r.review_id}.md"
        return None

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if role == _DISPLAY and index.isValid() and 0 <= index.row() < len(self._rows):
            r = self._rows[index.row()]  # the label, with the status in words
            when = r.updated[:16].replace("T", " ")
            status = status_label(r.status) if r.status != "unreadable" else self.tr("unreadable")
            return (r.title or r.review_id) + "\n" + " · ".join(p for p in (when, status) if p)
        return super().data(index, role)


class PendingListModel(_ReviewListModel[PendingItem]):
    """What waits for the user in one source; stale rows carry the "memory changed since" badge."""

    def set_items(self, items: list[PendingItem]) -> None:
        self._set_rows(items)

    def items(self) -> list[PendingItem]:
        return list(self._rows)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if role == _DISPLAY and index.isValid() and 0 <= index.row() < len(self._rows):
            r = self._rows[index.row()]
            return r.label + ("  " + self.tr("⚠ memory changed since") if r.stale else "")
        return super().data(index, role)

    def _extra(self, r: PendingItem, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole:
            stale = (
                "\n"
                + self.tr("Memory changed since this was proposed: its diffs are shown against memory as it is now.")
                if r.stale
                else ""
            )
            return self.tr("review {id}").format(id=r.review_id) + stale
        if role == Qt.ItemDataRole.BackgroundRole and r.stale:
            return _WARN_BG
        return None
