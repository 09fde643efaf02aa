"""The load meter: what an agent loads when it starts in each workspace (GLOBAL.md + MEMORY.md).

Loaded as a job on every refresh of the tab, with the warning threshold from Settings
(``load_warning_tokens``). Rows over it are tinted and say what to do.
"""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.load_meter import WorkspaceLoad, root_loads
from core.store.api import MemoryStore
from gui.tabs.base import Tab
from gui.tabs.maintenance.models import SORT_ROLE, LoadMeterModel
from gui.tabs.maintenance.usage_views import load_follows
from gui.widgets.messages import describe_error
from gui.widgets.tables import setup_table


def read_loads(store: MemoryStore) -> tuple[list[WorkspaceLoad], int]:
    """On the worker: the threshold from Settings, then every workspace's load."""
    from core.settings import load_settings

    limit = load_settings(store).settings.load_warning_tokens
    return root_loads(store, warning_tokens=limit), limit


class LoadPanel(QWidget):
    review_workspace_requested = Signal(str)  # workspace key: scan it in the review queue

    def __init__(self, tab: Tab) -> None:
        super().__init__()
        self.tab = tab
        self.limit = 0
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.summary = QLabel()
        self.summary.setObjectName("loadSummary")
        self.summary.setWordWrap(True)
        top.addWidget(self.summary, 1)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.setObjectName("loadRefresh")
        self.refresh_button.clicked.connect(self.reload)
        top.addWidget(self.refresh_button)
        layout.addLayout(top)

        self.model = LoadMeterModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QTableView()
        self.table.setObjectName("loadTable")
        setup_table(self.table)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(5, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._update_advice)
        layout.addWidget(self.table, 1)

        self.advice = QLabel()
        self.advice.setObjectName("loadAdvice")
        self.advice.setWordWrap(True)
        layout.addWidget(self.advice)
        bottom = QHBoxLayout()
        self.review_button = QPushButton(self.tr("Review this workspace's records"))
        self.review_button.setObjectName("loadReview")
        self.review_button.setToolTip(self.tr("Scan it in the review queue for old and duplicate records"))
        self.review_button.clicked.connect(self._review_clicked)
        self.review_button.setEnabled(False)
        bottom.addWidget(self.review_button)
        bottom.addStretch(1)
        layout.addLayout(bottom)

    def reload(self) -> None:
        self.tab.jobs.start("loads", read_loads, self.tab.ctx.store, done=self._loaded, failed=self._failed)
        # Which loaded bytes led to a read (issue 30): from the usage ledger, its own job.
        self.tab.jobs.start("load-follows", load_follows, self.tab.ctx.store, done=self.model.set_follows)

    def _loaded(self, result: tuple[list[WorkspaceLoad], int]) -> None:
        rows, self.limit = result
        self.model.set_loads(rows)
        over = sum(1 for r in rows if r.load.over)
        text = self.tr("Warning above {limit} estimated tokens (change it in Settings).").format(
            limit=f"{self.limit:,}"
        )
        if not rows:
            text += " " + self.tr("No workspaces yet.")
        elif over:
            text += " " + self.tr("%n workspace(s) over the threshold.", "", over)
        else:
            text += " " + self.tr("Every workspace is under it.")
        self.summary.setText(text)
        self._update_advice()

    def _failed(self, exc: BaseException) -> None:
        self.summary.setText(self.tr("The load meter could not be read: {why}").format(why=describe_error(exc)))

    def selected(self) -> WorkspaceLoad | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_load(self.proxy.mapToSource(rows[0]).row()) if rows else None

    def _update_advice(self) -> None:
        row = self.selected()
        self.review_button.setEnabled(row is not None)
        over = [r for r in (self.model.row_load(i) for i in range(self.model.rowCount())) if r.load.over]
        if row is not None and row.load.over:
            share = round(row.index_share * 100)
            self.advice.setText(
                self.tr(
                    "{folder} loads {tokens} tokens at start ({share} % of it is its own index). Shorten long "
                    "descriptions, merge near-duplicates and delete records the agent no longer needs; GLOBAL.md "
                    "counts in every workspace."
                ).format(folder=row.cwd, tokens=f"{row.load.tokens:,}", share=share)
            )
        elif over:
            self.advice.setText(
                self.tr(
                    "Rows over the threshold are tinted: the agent starts with a crowded context there. Select one "
                    "to see what to do."
                )
            )
        else:
            self.advice.setText("")

    def _review_clicked(self) -> None:
        row = self.selected()
        if row is not None:
            self.review_workspace_requested.emit(row.key)
