"""The usage ledger in the Workspace tab: the records table's Last used column and the record
pane's "opened in 12 sessions, last 3 days ago; matched 40 searches" line.

Attached from outside (``gui.tabs.workspace.WorkspaceTab``) so the view module stays as it is: it
watches the records model for a workspace change, updates the ledger and reads this workspace's
usage on a worker (the tab's task runner), then hands the figures to the model and the pane.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt, Signal
from PySide6.QtWidgets import QBoxLayout, QLabel, QMenu

from core.errors import DshMemoryError
from core.store.api import MemoryStore
from core.usage import RecordUsage, UsageLedger
from gui.qtmodels.roles import KEY_ROLE
from gui.tabs.workspace.usage_text import usage_line, usage_tooltip
from gui.tasks import JobControl, Jobs

if TYPE_CHECKING:
    from gui.tabs.workspace.view import WorkspaceTab as WorkspaceView

UsageResult = tuple[str, dict[str, RecordUsage], bool]


def workspace_usage(store: MemoryStore, sessions_root: Path, key: str, *, control: JobControl) -> UsageResult:
    """On the worker: bring the ledger up to date (new and changed sessions only), then this
    workspace's usage. A failed update still shows what the ledger had."""
    ledger = UsageLedger(store, sessions_root)
    # Cancelled, a read-only root, a held lock: the last ledger is still worth showing.
    with contextlib.suppress(DshMemoryError):
        ledger.update(cancelled=lambda: control.token.cancelled)
    view = ledger.view()
    return key, view.workspace(key), view.available


def recent_sessions(usage: RecordUsage | None, limit: int = 10) -> list[str]:
    """The DSH sessions that used a record, newest first, each once (MCP uses have no session)."""
    out: list[str] = []
    for use in usage.recent if usage is not None else ():
        if use.session and use.session not in out:
            out.append(use.session)
    return out[:limit]


class UsageGlue(QObject):
    # (workspace key, session id): the window shows that session in the Session Consolidation tab
    session_requested = Signal(str, str)

    def __init__(self, tab: WorkspaceView) -> None:
        super().__init__(tab)
        self.tab = tab
        self.jobs = Jobs(self, tab.ctx.runner)
        self.key: str | None = None
        self.usage: dict[str, RecordUsage] = {}
        self.available = False
        self.label = QLabel()
        self.label.setObjectName("record_usage")
        self.label.setWordWrap(True)
        self.label.setStyleSheet("color:#555;")
        anchor = tab.editor.provenance_label
        parent = anchor.parentWidget()
        layout = parent.layout() if parent is not None else None
        if isinstance(layout, QBoxLayout) and layout.indexOf(anchor) >= 0:
            layout.insertWidget(layout.indexOf(anchor) + 1, self.label)  # right under "Written by…"
        model = tab.records.model
        model.modelReset.connect(self._rows_changed)
        model.dataChanged.connect(self._rows_changed)
        tab.records.record_chosen.connect(self.show_record)
        header = tab.records.view.horizontalHeader()
        # Narrow (the Description stretches into what is left); longer dates elide, the tooltip has all.
        header.resizeSection(5, header.fontMetrics().horizontalAdvance(self.tr("10 days ago")) + 10)
        # Hidden until the ledger has counted something: an empty column would only take the
        # Description's room (and "never" everywhere would be a guess).
        tab.records.view.setColumnHidden(5, True)
        # Right-click a record: the sessions that used it, each openable in Session Consolidation.
        view = tab.records.view
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._menu_at)

    def session_menu(self, name: str) -> QMenu | None:
        """The menu of sessions that used record ``name`` (None when no session did)."""
        sessions = recent_sessions(self.usage.get(name))
        if self.key is None or not sessions:
            return None
        menu = QMenu(self.tab)
        menu.setObjectName("usage_sessions_menu")
        key = self.key
        for sid in sessions:
            action = menu.addAction(self.tr("Open session {id} in Session Consolidation").format(id=sid))
            action.triggered.connect(lambda _checked=False, s=sid: self.session_requested.emit(key, s))
        return menu

    def _menu_at(self, pos: QPoint) -> None:
        view = self.tab.records.view
        index = view.indexAt(pos)
        menu = self.session_menu(str(index.data(KEY_ROLE) or "")) if index.isValid() else None
        if menu is not None:
            menu.popup(view.viewport().mapToGlobal(pos))

    def _rows_changed(self) -> None:
        if self.tab.current_key != self.key:
            self.key = self.tab.current_key
            self.refresh()

    def refresh(self) -> None:
        """Read the ledger again for the workspace shown (the Last used column fills in when it comes)."""
        if self.key is None:
            self.jobs.cancel("usage")
            return
        args = (self.tab.ctx.store, self.tab.ctx.sessions_root, self.key)
        self.jobs.start("usage", workspace_usage, *args, done=self._loaded, failed=lambda _e: None, cancellable=True)

    def _loaded(self, result: UsageResult) -> None:
        key, usage, available = result
        if key != self.key:
            return
        self.usage, self.available = usage, available
        self.tab.records.model.set_usage(usage, available)
        self.tab.records.view.setColumnHidden(5, not available)
        self.show_record(self.tab.editor.editing_name or "")

    def show_record(self, name: str) -> None:
        """The record pane's usage line for ``name`` ("" clears it)."""
        if not name or self.key is None:
            self.label.setText("")
            self.label.setToolTip("")
            return
        usage = self.usage.get(name)
        self.label.setText(usage_line(usage, self.available))
        self.label.setToolTip(usage_tooltip(usage, self.available) if self.available else "")
