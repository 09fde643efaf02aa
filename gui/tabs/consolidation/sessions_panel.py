"""The left of the Session Consolidation tab: the workspace picker, its sessions, and the Run controls."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QItemSelectionModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.consolidation.review_state import Listing, SessionRow
from gui.core_text import core_text
from gui.qtmodels.consolidation_models import SessionFilterProxy, SessionTableModel, WorkspaceChoiceModel
from gui.widgets.read_only import mark_writes
from gui.widgets.review_receipt import status_label

OFFLINE = "offline"
MODEL = "model"


def unassigned_hint() -> str:
    return QCoreApplication.translate(
        "SessionsPanel",
        "Sessions without a working directory belong to no workspace, so they cannot be consolidated. "
        "They are listed so you can see them.",
    )


class SessionsPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace_model = WorkspaceChoiceModel(self)
        self.workspace_box = QComboBox()
        self.workspace_box.setObjectName("workspacePicker")
        self.workspace_box.setModel(self.workspace_model)
        self.workspace_box.setMinimumContentsLength(24)
        self.workspace_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("sessionFilter")
        self.filter_edit.setPlaceholderText(self.tr("Filter sessions by title…"))
        self.filter_edit.setClearButtonEnabled(True)

        self.session_model = SessionTableModel(self)
        self.session_proxy = SessionFilterProxy(self)
        self.session_proxy.setSourceModel(self.session_model)
        self.sessions_view = QTableView()
        self.sessions_view.setObjectName("sessionsTable")
        self.sessions_view.setModel(self.session_proxy)
        self.sessions_view.setSortingEnabled(True)
        self.sessions_view.sortByColumn(SessionTableModel.DATE, Qt.SortOrder.DescendingOrder)
        self.sessions_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # Several sessions selected: Run consolidates them one after another (a batch).
        self.sessions_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.sessions_view.verticalHeader().hide()
        self.sessions_view.setWordWrap(False)
        self.sessions_view.verticalHeader().setDefaultSectionSize(24)
        header = self.sessions_view.horizontalHeader()
        header.setMinimumSectionSize(40)
        # The title is what tells sessions apart: it takes the room, and a long one loses its
        # middle, not its end (the full title is the tooltip). The rest are sized to their text.
        self.sessions_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header.setSectionResizeMode(SessionTableModel.TITLE, QHeaderView.ResizeMode.Stretch)
        # Short columns at fixed widths (their header tips say more), so the title keeps the room.
        for col, width in ((SessionTableModel.TURNS, 48), (SessionTableModel.SIZE, 64), (SessionTableModel.STATE, 56)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(col, width)
        # Date and Last review: as wide as a date, never wider (their full text is in the tooltip).
        date_width = self.sessions_view.fontMetrics().horizontalAdvance("2026-12-31 23:59") + 14
        for col in (SessionTableModel.DATE, SessionTableModel.LAST):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            # "waiting for review" read whole, not "waitin…review" (the longest status a row shows).
            last_width = self.sessions_view.fontMetrics().horizontalAdvance(status_label("proposed")) + 14
            header.resizeSection(col, date_width if col == SessionTableModel.DATE else max(110, last_width))
        # The log format version is a diagnostic: it is in the title's tooltip, not a column.
        self.sessions_view.setColumnHidden(SessionTableModel.VERSION, True)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("sessionsEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet("color: #666;")

        self.consolidator_box = QComboBox()
        self.consolidator_box.setObjectName("consolidatorPicker")
        self.consolidator_box.addItem(self.tr("Offline extractor"), OFFLINE)
        self.consolidator_box.addItem(self.tr("Model"), MODEL)
        self.run_button = QPushButton(self.tr("Run"))
        self.run_button.setObjectName("runButton")
        self.run_button.setDefault(True)
        self.run_all_button = QPushButton(self.tr("Run all unreviewed"))
        # Every one of these writes into the root (receipts, review state, memory): off when read-only.
        mark_writes(self.run_button, self.run_all_button)  # a run writes its receipt
        self.run_all_button.setObjectName("runAllButton")
        self.run_all_button.setToolTip(
            self.tr(
                "Consolidate every stable session of this workspace that has no finished review yet; "
                "each gets its own review, waiting for you"
            )
        )
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("cancelButton")
        self.progress = QProgressBar()
        self.progress.setObjectName("runProgress")
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(10)
        self.status_label = QLabel()
        self.status_label.setObjectName("runStatus")
        self.status_label.setWordWrap(True)

        run_row = QHBoxLayout()
        run_row.addWidget(QLabel(self.tr("Consolidator")))
        run_row.addWidget(self.consolidator_box, 1)
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.run_all_button)
        run_row.addWidget(self.cancel_button)
        left_layout = QVBoxLayout(self)
        left_layout.setContentsMargins(0, 0, 4, 0)
        picker_row = QHBoxLayout()
        picker_row.addWidget(QLabel(self.tr("Workspace")))
        picker_row.addWidget(self.workspace_box, 1)
        left_layout.addLayout(picker_row)
        left_layout.addWidget(self.filter_edit)
        left_layout.addWidget(self.sessions_view, 1)
        left_layout.addWidget(self.empty_label)
        left_layout.addLayout(run_row)
        left_layout.addWidget(self.progress)
        left_layout.addWidget(self.status_label)

    # --- the listing ------------------------------------------------------------------------------------
    def show_listing(self, listing: Listing) -> None:
        self.workspace_model.set_choices(listing.choices)
        self.workspace_box.setCurrentIndex(self.workspace_model.row_of(listing.selected_key))
        selected = self.selected_session()
        keep = selected.id if selected else None
        self.session_model.set_rows(listing.rows)
        if keep is not None:
            self.select_session(keep)
        if not listing.rows:
            self.empty_label.setText(
                self.tr("No DSH sessions found in {folder}. Change the sessions folder in Settings.").format(
                    folder=listing.sessions_root
                )
                if not listing.choices
                else self.tr("No sessions in this workspace.")
            )
        else:
            self.empty_label.setText(unassigned_hint() if listing.selected_key is None else "")
        self.empty_label.setVisible(bool(self.empty_label.text()))

    def selected_session(self) -> SessionRow | None:
        """The current session (the one a single Run consolidates)."""
        chosen = self.selected_sessions()
        if not chosen:
            return None
        current = self.sessions_view.selectionModel().currentIndex()
        if current.isValid():
            source = self.session_proxy.mapToSource(current)
            row = self.session_model.session_row(source.row()) if source.isValid() else None
            if row is not None and row in chosen:
                return row
        return chosen[0]

    def selected_sessions(self) -> list[SessionRow]:
        """Every selected session, in the order shown."""
        indexes = sorted(self.sessions_view.selectionModel().selectedRows(), key=lambda i: i.row())
        out = []
        for index in indexes:
            source = self.session_proxy.mapToSource(index)
            if source.isValid():
                out.append(self.session_model.session_row(source.row()))
        return out

    def select_sessions(self, session_ids: list[str]) -> None:
        """Select several sessions (a batch)."""
        selection = self.sessions_view.selectionModel()
        selection.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for sid in session_ids:
            row = self.session_model.row_of(sid)
            index = self.session_proxy.mapFromSource(self.session_model.index(row, 0)) if row >= 0 else None
            if index is not None and index.isValid():
                selection.select(index, flags)
                selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.NoUpdate)

    def select_session(self, session_id: str) -> bool:
        row = self.session_model.row_of(session_id)
        if row < 0:
            return False
        index = self.session_proxy.mapFromSource(self.session_model.index(row, 0))
        if not index.isValid():
            return False
        self.sessions_view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.sessions_view.scrollTo(index)
        return True

    # --- run state --------------------------------------------------------------------------------------
    def set_running(self, message: str) -> None:
        self.progress.setRange(0, 0)
        self.progress.show()
        self.status_label.setText(message)

    def set_idle(self, message: str) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.hide()
        self.status_label.setText(message)

    def show_progress(self, done: int, total: int, message: str) -> None:
        if total <= 0:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        if message:
            self.status_label.setText(message)

    def update_controls(self, job: str | None) -> None:
        busy = job is not None
        chosen = self.selected_sessions()
        row = self.selected_session()
        can_run = row is not None and row.summary.cwd is not None and row.stable
        runnable = [r for r in chosen if r.summary.cwd is not None and r.stable]
        self.run_button.setText(
            self.tr("Run")
            if len(chosen) <= 1
            else self.tr("Run 1 session")
            if len(runnable) == 1
            else self.tr("Run %n sessions", "", len(runnable))
        )
        self.run_all_button.setEnabled(not busy and self.session_model.rowCount() > 0)
        if len(chosen) > 1:
            self.run_button.setEnabled(not busy and bool(runnable))
            self.run_button.setToolTip(
                self.tr("Consolidate the selected stable sessions one after another, each with its own review")
            )
        else:
            self.run_button.setEnabled(not busy and can_run)
        if len(chosen) > 1:
            pass
        elif row is None:
            self.run_button.setToolTip(self.tr("Select a session first"))
        elif row.summary.cwd is None:
            self.run_button.setToolTip(unassigned_hint())
        elif not row.stable:
            self.run_button.setToolTip(self.tr("The session is live: {why}").format(why=core_text(row.state_reason)))
        else:
            self.run_button.setToolTip(self.tr("Ask the consolidator what to remember from this session"))
        self.cancel_button.setEnabled(job in ("run", "batch"))
        self.consolidator_box.setEnabled(not busy)
