"""Settings → "Other memory stores": every store found on this machine (issue 12), read-only.

Discovery reads the other stores on a worker (``gui.sources``); the list shows one row per store
and, for the selected one, what could not be read and what to do about it. Nothing here writes.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.sources.discovery import Discovery
from core.sources.models import SourceSnapshot
from gui.context import AppContext
from gui.qtmodels.sources_models import SourcesModel
from gui.sources import discover_sources, source_paths
from gui.tasks import Jobs
from gui.widgets.messages import describe_error
from gui.widgets.tables import setup_table

translate = QCoreApplication.translate


def _advice(severity: str) -> str:
    return {
        "error": translate(
            "SourcesPanel",
            "left as it is; fix or remove it in that store (this app never rewrites another store's files)",
        ),
        "note": translate("SourcesPanel", "skipped on purpose (not a format this app reads)"),
    }.get(severity, "")


def describe_problems(snap: SourceSnapshot) -> str:
    if not snap.problems:
        return translate("SourcesPanel", "{store}: everything in {path} could be read.").format(
            store=snap.label, path=snap.path
        )
    n = len(snap.problems)
    head = (
        translate("SourcesPanel", "{store} — 1 problem:")
        if n == 1
        else translate("SourcesPanel", "{store} — %n problems:", "", n)
    )
    lines = [head.format(store=snap.label)]
    for p in snap.problems:
        severity = translate("SourcesPanel", "error") if p.severity == "error" else translate("SourcesPanel", "note")
        lines.append(f"[{severity}] {p.path}: {p.reason}\n    → {_advice(p.severity)}")
    return "\n".join(lines)


class SourcesPanel(QGroupBox):
    """The stores found, their sizes and problems; Refresh re-reads them (on a worker)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Other memory stores on this machine (read-only)"))
        self.ctx = ctx
        self.jobs = Jobs(self, ctx.runner)
        self.discovery: Discovery | None = None
        self.model = SourcesModel(self)
        self.view = QTableView()
        self.view.setObjectName("sourcesList")
        setup_table(self.view)
        self.view.setSortingEnabled(False)  # a handful of rows, in discovery's order
        self.view.setModel(self.model)
        self.view.setMinimumHeight(150)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(SourcesModel.STORE, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SourcesModel.PATH, QHeaderView.ResizeMode.Stretch)
        for col in (SourcesModel.SCOPES, SourcesModel.ENTRIES, SourcesModel.PROBLEMS):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.status = QLabel(self.tr("Not looked yet."))
        self.status.setStyleSheet("color:#555;")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.refresh_button = QPushButton(self.tr("Look again"))
        self.problems = QPlainTextEdit()
        self.problems.setObjectName("sourceProblems")
        self.problems.setReadOnly(True)
        self.problems.setMaximumHeight(110)
        self.problems.setPlaceholderText(self.tr("Select a store to see what could not be read."))
        top = QHBoxLayout()
        top.addWidget(self.status, 1)
        top.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.view)
        layout.addWidget(self.problems)
        self.refresh_button.clicked.connect(self.refresh)
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._on_selected())

    def refresh(self) -> None:
        if self.jobs.running("discover"):
            return  # one read at a time: discovery also lists DSH's sessions, which can be many
        self.status.setText(self.tr("Looking for memory stores…"))
        self.refresh_button.setEnabled(False)
        self.jobs.start(
            "discover",
            discover_sources,
            source_paths(self.ctx),
            self.ctx.store,
            done=self._show,
            failed=self._failed,
        )

    def _show(self, discovery: Discovery) -> None:
        self.discovery = discovery
        self.refresh_button.setEnabled(True)
        self.model.set_sources(list(discovery.sources))
        n = len(discovery.sources)
        bad = sum(any(p.severity == "error" for p in s.problems) for s in discovery.sources)
        text = self.tr("1 store found") if n == 1 else self.tr("%n stores found", "", n)
        self.status.setText(
            text + (self.tr("; {bad} with files that could not be read.").format(bad=bad) if bad else self.tr("."))
        )
        self._on_selected()

    def _failed(self, exc: BaseException) -> None:
        self.refresh_button.setEnabled(True)
        self.status.setText(self.tr("Could not look for other stores: {why}").format(why=describe_error(exc)))

    def selected(self) -> SourceSnapshot | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.source(rows[0].row()) if rows else None

    def _on_selected(self) -> None:
        snap = self.selected()
        self.problems.setPlainText(describe_problems(snap) if snap is not None else "")
