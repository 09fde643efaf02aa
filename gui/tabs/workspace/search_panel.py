"""Search all memory: the box above the workspace list, its results, and keeping the index fresh."""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QModelIndex, QObject, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit, QListView, QVBoxLayout

from core.search import GLOBAL_SCOPE, SearchIndex
from core.sources.models import SOURCE_LABELS, ForeignEntry
from core.sources.search import search_entries
from gui.qtmodels.search_results import SearchHit, SearchResultsModel, terms_of
from gui.tabs.workspace.search_delegate import HitDelegate
from gui.tasks import JobControl, Jobs, TaskRunner
from gui.typing_pace import TypingPace


class IndexFreshness:
    """When the search index needs a refresh before the next query.

    A deep ``SearchIndex.refresh()`` stats every file of the root, so it runs once per change the
    window learns of (watcher, F5, commit), not once per query; concurrent queries wait for the
    refresh in flight instead of searching a half-empty index. The exception is the first build
    (issue 15): queries made meanwhile do not wait, they search what the index holds so far (its
    persisted state, or nothing) and the panel says "indexing N %…".
    """

    def __init__(self, typing: TypingPace | None = None) -> None:
        self.typing = typing if typing is not None else TypingPace()  # (nobody types: never steps aside)
        self.lock = threading.Lock()
        self.wanted = 1  # bumped on the GUI thread when memory may have changed
        self.done = 0
        self.building = False  # the first build is running (queries don't wait for it)

    def mark_stale(self) -> None:
        self.wanted += 1

    @property
    def fresh(self) -> bool:
        return self.done >= self.wanted

    def ensure(self, index: SearchIndex, progress: Callable[[int, int], None] | None = None) -> None:
        """On a worker: refresh ``index`` unless it is already as fresh as asked for."""
        with self.lock:
            wanted = self.wanted
            if self.done < wanted:
                first = self.done == 0
                self.building = first
                try:
                    # A file an agent rewrote in place keeps its folder's mtime. Later refreshes
                    # look at the files of the folders the watcher saw change (index.note_changed),
                    # or at every file without a watcher.
                    stats = index.refresh(deep=not first and not index.watched, progress=progress)
                    if first and stats.from_cache:
                        # Searchable from here on (queries don't wait while ``building``); then
                        # in-place edits made while the window was closed, in the scopes the
                        # persisted index gave (every file's stat: 1.8 s at 100k).
                        index.refresh(deep=True, progress=lambda _d, _t: self.typing.step_aside())
                finally:
                    self.building = False
            self.done = max(self.done, wanted)


def build_index(freshness: IndexFreshness, index: SearchIndex, *, control: JobControl) -> None:
    """The prefetch job: bring the index up to date, reporting (scopes done, total) once per
    percent (not per scope: 1,000 label updates the window would have to paint), and stepping
    aside between two scopes while the user types (gui.typing_pace)."""
    shown = [-1]

    def progress(done: int, total: int) -> None:
        freshness.typing.step_aside()
        percent = 100 * done // total if total else 0
        if percent != shown[0]:
            shown[0] = percent
            control.report(done, total, "indexing")

    freshness.ensure(index, progress)


def search_hits(
    index: SearchIndex,
    query: str,
    names: dict[str, str],
    limit: int = 50,
    freshness: IndexFreshness | None = None,
) -> list[SearchHit]:
    """Run the search index and convert its hits to rows of the results model (runs on a worker)."""
    if freshness is not None:
        if not freshness.building:  # during the first build, search what is there so far
            freshness.ensure(index)
    else:
        index.refresh()
    hits: list[SearchHit] = []
    for item in index.search(query, limit=limit).hits:
        key = None if item.scope_key == GLOBAL_SCOPE else item.scope_key
        where = QCoreApplication.translate("SearchPanel", "Global") if key is None else names.get(key, key)
        hits.append(SearchHit(key, item.name, where, item.snippet or item.description or "", float(item.score)))
    return hits


def search_with_others(
    index: SearchIndex,
    query: str,
    names: dict[str, str],
    limit: int,
    freshness: IndexFreshness | None,
    others: list[ForeignEntry],
) -> list[SearchHit]:
    """Our hits first, then other stores' (labelled by store, status kept: never hidden)."""
    hits = search_hits(index, query, names, limit, freshness)
    for h in search_entries(others, query, limit=limit):
        e = h.entry
        where = SOURCE_LABELS[e.source] + ("" if e.status == "active" else f" · {e.status}")  # store names: data
        hits.append(SearchHit(None, e.title, where, e.text, h.score, foreign=e))
    return hits


class SearchPanel(QObject):
    """The "Search all memory" box and its results list; hidden when there is no index.

    Its widgets go into the tab's left column (:meth:`lay_out`), so the results list and the
    workspace list share that column's height directly.
    """

    hit_activated = Signal(object)  # SearchHit in this memory root
    foreign_activated = Signal(object)  # ForeignEntry: a hit in another store
    failed = Signal(object)  # BaseException

    def __init__(
        self,
        index: SearchIndex | None,
        runner: TaskRunner,
        workspace_names: Callable[[], dict[str, str]],
        parent: QObject | None = None,
        foreign_entries: Callable[[], list[ForeignEntry]] = list,
        typing: TypingPace | None = None,
    ) -> None:
        super().__init__(parent)
        self.index = index
        self.jobs = Jobs(self, runner)
        self.freshness = IndexFreshness(typing)
        self.last_hits: list[SearchHit] = []
        self._workspace_names = workspace_names
        self.percent = 0
        self.foreign_entries = foreign_entries  # other stores' entries (set by the tab)
        self.include_others = QCheckBox(self.tr("Include other stores"))
        self.include_others.setObjectName("include_other_stores")
        self.include_others.setToolTip(
            self.tr(
                "Also search DSH workspace memory, cross-workspace notes, project memory and Claude Code (read-only)"
            )
        )
        self.include_others.toggled.connect(self._rerun)

        self.box = QLineEdit()
        self.box.setObjectName("search_box")
        self.box.setPlaceholderText(self.tr("Search all memory…"))
        self.box.setClearButtonEnabled(True)
        self.box.textChanged.connect(self.freshness.typing.note_typing)  # first: workers step aside for this very key
        self.box.textChanged.connect(self._on_text)
        self.box.installEventFilter(self)  # focus-in: bring the search index up to date
        self.model = SearchResultsModel(self)
        self.view = QListView()
        self.view.setObjectName("search_results")
        self.view.setModel(self.model)
        # Two compact lines per hit, the query's words highlighted, so a dozen hits fit.
        self.delegate = HitDelegate(parent=self.view)
        self.view.setItemDelegate(self.delegate)
        self.view.setUniformItemSizes(True)
        self.view.setAlternatingRowColors(True)
        self.view.activated.connect(self._on_activated)
        self.view.clicked.connect(self._on_activated)
        self.status = QLabel()
        self.status.setStyleSheet("color:#555;")
        self._show_results(False)
        if index is None:
            self.box.hide()
            self.include_others.hide()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self._run)

    def lay_out(self, layout: QVBoxLayout) -> None:
        layout.addWidget(self.box)
        layout.addWidget(self.include_others)
        layout.addWidget(self.status)
        layout.addWidget(self.view, 3)  # results get the larger share of the column while shown

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.box and event.type() == QEvent.Type.FocusIn:
            self.prefetch()
        return super().eventFilter(watched, event)

    def mark_stale(self) -> None:
        """Memory may have changed: the next search re-reads it first."""
        self.freshness.mark_stale()

    def prefetch(self) -> None:
        """Refresh the search index on a worker now, so the first query doesn't wait for it."""
        if self.index is None or self.jobs.running("prefetch") or self.freshness.fresh:
            return
        self.jobs.start(
            "prefetch",
            build_index,
            self.freshness,
            self.index,
            cancellable=True,
            progress=self._on_progress,
            done=self._indexed,
            failed=lambda _exc: self._indexed(None),
        )

    @property
    def indexing(self) -> bool:
        return self.jobs.running("prefetch")

    def _on_progress(self, done: int, total: int, _message: str) -> None:
        self.percent = 100 * done // total if total else 0
        self.status.setText(self.tr("indexing {percent} %…").format(percent=self.percent))
        self.status.show()

    def _indexed(self, _result: object) -> None:
        self.status.setText("")
        if self.box.text().strip():
            self._run()  # the results shown while indexing may have been partial
        else:
            self._show_results(False)

    def focus(self) -> None:
        self.prefetch()
        self.box.setFocus()
        self.box.selectAll()

    def stop(self) -> None:
        self._timer.stop()
        self.jobs.cancel_all()

    def _rerun(self, _checked: bool) -> None:
        self._on_text(self.box.text())

    def _on_text(self, text: str) -> None:
        if not text.strip():
            self._timer.stop()
            self.jobs.cancel("search")
            self.model.set_hits([])
            self._show_results(False)
            return
        # Say what is being searched now, never the count of a query the box no longer holds.
        self.status.setText(self.tr("Searching for “{query}”…").format(query=text.strip()))
        self.status.show()
        self._timer.start()

    def run_now(self) -> None:
        self._timer.stop()
        self._run()

    def _run(self) -> None:
        query = self.box.text().strip()
        if not query or self.index is None:
            return

        def done(hits: list[SearchHit]) -> None:
            if query != self.box.text().strip():
                return  # typed on meanwhile: the current text's own search is on its way
            self.last_hits = hits
            self.delegate.terms = terms_of(query)
            self.model.set_hits(hits)
            text = self.tr("%n result(s) for “{query}”", "", len(hits)).format(query=query)
            if self.indexing:
                text = self.tr("indexing {percent} %… {results} so far").format(percent=self.percent, results=text)
            self.status.setText(text)
            self._show_results(True)

        # A newer query under the same key drops this one's result.
        args = (self.index, query, self._workspace_names(), 50, self.freshness)
        if self.include_others.isChecked():
            others = self.foreign_entries()
            self.jobs.start("search", search_with_others, *args, others, done=done, failed=self.failed.emit)
        else:
            self.jobs.start("search", search_hits, *args, done=done, failed=self.failed.emit)

    def _show_results(self, shown: bool) -> None:
        self.view.setVisible(shown)
        self.status.setVisible(shown)

    def _on_activated(self, index: QModelIndex) -> None:
        if index.isValid():
            hit = self.model.hit(index.row())
            if hit.foreign is not None:
                self.foreign_activated.emit(hit.foreign)
            else:
                self.hit_activated.emit(hit)
