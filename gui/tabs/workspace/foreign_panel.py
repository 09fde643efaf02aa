"""Workspace tab → "Other stores": what other memory stores hold for the shown workspace's folder.

Read-only (house rule 6): the entries of DSH workspace memory, cross-workspace notes, project
memory and Claude Code for this cwd, each row labelled by its store, every status shown (a
superseded, conflicting or deleted entry is a row with its status, never hidden).

Discovery reads those stores on a worker, and only when something needs them (issue 15): this page
is shown, or the search's "Include other stores" box is ticked. A refresh while neither is the case
only marks what was read as stale, so the window's start-up (and every refresh the watcher causes)
does not read DSH's sessions and every other store under the same interpreter lock as the first
workspace list and the search index build. Which entries belong to the folder is a job too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.display import format_time
from core.sources.discovery import Discovery
from core.sources.models import SOURCE_LABELS, ForeignEntry
from gui.context import AppContext
from gui.qtmodels.sources_models import ForeignEntriesModel
from gui.sources import discover_sources, source_paths
from gui.tasks import Jobs
from gui.widgets.fonts import monospace_font
from gui.widgets.messages import describe_error
from gui.widgets.tables import setup_table

if TYPE_CHECKING:
    from gui.tabs.workspace.search_panel import SearchPanel

TITLE = str(QT_TRANSLATE_NOOP("ForeignPanel", "Other stores"))  # translated where shown


def describe_entry(e: ForeignEntry) -> str:
    status = e.status + (f" ({e.status_detail})" if e.status_detail else "")
    lines = [
        f"{e.title}",
        QCoreApplication.translate("ForeignPanel", "Store: {store} (read-only here)").format(
            store=SOURCE_LABELS[e.source]
        ),
        QCoreApplication.translate("ForeignPanel", "Kind: {kind} · Status: {status}").format(kind=e.kind, status=status)
        + (
            QCoreApplication.translate("ForeignPanel", " · Updated: {when}").format(when=format_time(e.updated))
            if e.updated
            else ""
        ),
        QCoreApplication.translate("ForeignPanel", "Folder: {folder}").format(
            folder=e.cwd or QCoreApplication.translate("ForeignPanel", "(about the user in general)")
        ),
        QCoreApplication.translate("ForeignPanel", "Id: {id} · File: {path}").format(id=e.id, path=e.path),
    ]
    if e.tags:
        lines.append(QCoreApplication.translate("ForeignPanel", "Tags: ") + ", ".join(e.tags))
    if e.description and e.description != e.title:
        lines += ["", e.description]
    return "\n".join([*lines, "", e.text])


def _entries_for(discovery: Discovery, cwd: str) -> list[ForeignEntry]:
    return discovery.entries_for(cwd)


class ForeignPanel(QWidget):
    """A read-only table of other stores' entries for one folder, and the selected entry's text."""

    def title(self) -> str:
        return self.tr("Other stores")

    def __init__(self, ctx: AppContext, jobs: Jobs, tabs: QTabWidget) -> None:
        super().__init__()
        self.ctx = ctx
        self.jobs = jobs  # the tab's: its shutdown drops these too
        self._tabs = tabs
        # A fourth page: the detail column is narrow, so titles shrink (elided) rather than hide
        # behind scroll arrows, where "Record" would be out of sight.
        tabs.setUsesScrollButtons(False)
        tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.discovery: Discovery | None = None
        self.stale = True  # what was read (if anything) may be out of date: read again when needed
        self.cwd: str | None = None
        self._search: SearchPanel | None = None
        self.label = QLabel(
            self.tr("Entries other memory stores hold for this folder. Read-only: nothing here changes them.")
        )
        self.label.setWordWrap(True)
        self.label.setStyleSheet("color:#555;")
        self.model = ForeignEntriesModel(self)
        self.view = QTableView()
        self.view.setObjectName("foreignEntries")
        setup_table(self.view)
        self.view.setSortingEnabled(False)
        self.view.setModel(self.model)
        header = self.view.horizontalHeader()
        for col in range(len(ForeignEntriesModel.HEADERS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ForeignEntriesModel.TITLE, QHeaderView.ResizeMode.Stretch)
        self.detail = QPlainTextEdit()
        self.detail.setObjectName("foreignEntry")
        self.detail.setReadOnly(True)
        self.detail.setFont(monospace_font())
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.view)
        split.addWidget(self.detail)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(split, 1)
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._on_selected())
        tabs.currentChanged.connect(lambda _index: self._discover_if_needed())

    def attach_search(self, search: SearchPanel) -> None:
        """Serve "Include other stores" for ``search``: ticking the box reads the stores if needed."""
        self._search = search
        search.foreign_entries = self.all_entries
        search.include_others.toggled.connect(lambda _checked: self._discover_if_needed())

    def refresh(self) -> None:
        """The other stores may have changed: read them again now if they are needed, else later."""
        self.stale = True
        self._discover_if_needed()

    def needed(self) -> bool:
        """Whether something on screen uses the other stores' entries now."""
        shown = self._tabs.currentWidget() is self
        searching = self._search is not None and self._search.include_others.isChecked()
        return shown or searching

    def _discover_if_needed(self) -> None:
        if self.stale and self.needed():
            self._discover()

    def _discover(self) -> None:
        if self.jobs.running("foreign-discover"):
            return  # one read at a time: discovery also lists DSH's sessions, which can be many
        self.stale = False  # a refresh from here on marks it stale again, and is read after this one
        self.jobs.start(
            "foreign-discover",
            discover_sources,
            source_paths(self.ctx),
            self.ctx.store,
            done=self._discovered,
            failed=self._discovery_failed,
        )

    def all_entries(self) -> list[ForeignEntry]:
        """Every foreign entry found (what "include other stores" searches)."""
        if self.discovery is None:
            return []
        return [e for s in self.discovery.sources if s.kind != "markdown" for e in s.entries]

    def show_cwd(self, cwd: str | None) -> None:
        if cwd == self.cwd:
            return
        self.cwd = cwd
        self._filter()

    def reveal(self, entry: ForeignEntry) -> None:
        """Show one entry (a search hit, perhaps of another folder) and bring this page forward."""
        row = next((i for i in range(self.model.rowCount()) if self.model.entry(i) == entry), -1)
        if row >= 0:
            self.view.selectRow(row)
        else:
            self.view.clearSelection()
        self.detail.setPlainText(describe_entry(entry))
        self._tabs.setCurrentWidget(self)

    def _discovered(self, discovery: Discovery) -> None:
        self.discovery = discovery
        self._filter()
        search = self._search
        if search is not None and search.include_others.isChecked() and search.box.text().strip():
            search.run_now()  # the hits shown meanwhile had no other stores' entries
        self._discover_if_needed()  # a refresh came while this read ran

    def _discovery_failed(self, exc: BaseException) -> None:
        self.stale = True  # try again the next time it is needed
        self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        self.label.setText(self.tr("Could not read the other memory stores: ") + describe_error(exc))

    def _filter(self) -> None:
        if self.discovery is None or not self.cwd:
            self._show([])
            return
        self.jobs.start("foreign-entries", _entries_for, self.discovery, self.cwd, done=self._show, failed=self._failed)

    def _show(self, entries: list[ForeignEntry]) -> None:
        self.model.set_entries(entries)
        n = len(entries)
        stores = sorted({SOURCE_LABELS[e.source] for e in entries})
        if n:
            self.label.setText(
                self.tr("%n entries for this folder in {stores}. Read-only: nothing here changes them.", "", n).format(
                    stores=", ".join(stores)
                )
            )
        else:
            self.label.setText(self.tr("No other memory store holds entries for this folder."))
        index = self._tabs.indexOf(self)
        if index >= 0:
            self._tabs.setTabText(index, self.tr("Other stores (%n)", "", n) if n else self.title())
        if not self.view.selectionModel().hasSelection():
            self.detail.setPlainText("")

    def selected(self) -> ForeignEntry | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.entry(rows[0].row()) if rows else None

    def _on_selected(self) -> None:
        e = self.selected()
        if e is not None:
            self.detail.setPlainText(describe_entry(e))
