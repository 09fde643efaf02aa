"""The main window: five tabs, the status line, shortcuts, live refresh and a guarded close."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QTabWidget, QVBoxLayout, QWidget

from core.models import RootStatus
from core.store.api import MemoryStore
from gui.context import AppContext
from gui.tabs import TAB_ORDER
from gui.tabs.base import Tab
from gui.tasks import Jobs
from gui.watcher import RootWatcher
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error
from gui.widgets.status_bar import RootStatusBar

# key -> (module, class) of tabs written in their own modules; a missing module shows a placeholder.
TAB_CLASSES: dict[str, tuple[str, str]] = {
    "global": ("gui.tabs.global_tab", "GlobalTab"),
    "workspace": ("gui.tabs.workspace", "WorkspaceTab"),
    "consolidation": ("gui.tabs.consolidation", "ConsolidationTab"),
    "recycle": ("gui.tabs.recycle_tab", "RecycleBinTab"),
    "settings": ("gui.tabs.settings", "SettingsTab"),
}


class MessageTab(Tab):
    """A tab that only shows a message (used in place of a tab that could not be built)."""

    def __init__(self, ctx: AppContext, message: str, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        layout = QVBoxLayout(self)
        label = QLabel(message)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setStyleSheet("color: #666; font-size: 13pt;")
        label.setWordWrap(True)
        layout.addWidget(label)
        self.message = message


def _load_tab(key: str, ctx: AppContext) -> Tab:
    module_name, class_name = TAB_CLASSES[key]
    cls: Any = getattr(importlib.import_module(module_name), class_name)
    widget: Tab = cls(ctx)
    return widget


# Tabs built the first time they are shown (or asked for): their modules and first loads cost
# start-up time (the consolidation tab alone imports core.consolidation, httpx and asyncio).
LAZY_TABS = frozenset({"consolidation", "recycle", "settings"})
FIRST_CHECK_DELAY_MS = 8000  # after the first workspace list: the window is in use by then


class BrokenTab(MessageTab):
    """Stands in for a tab whose construction failed: says so in the tab (and to the self-test)."""

    def __init__(self, ctx: AppContext, title: str, exc: BaseException, parent: QWidget | None = None) -> None:
        super().__init__(ctx, f"{title} could not be opened: {describe_error(exc)}", parent)

    def error_text(self) -> str:
        return self.message


class LazyTab(Tab):
    """Keeps a tab's place in the tab bar and builds the real tab inside it on first use.

    It forwards the tab protocol (refresh, unsaved changes, save, search, shutdown, errors), so the
    window and the self-test treat it like the tab itself. Before it is built there is nothing to
    refresh, save or lose; building it runs its first load.
    """

    def __init__(
        self, ctx: AppContext, key: str, title: str, factory: Callable[[], Tab], parent: QWidget | None = None
    ) -> None:
        super().__init__(ctx, parent)
        self.key = key
        self.title = title
        self._factory = factory
        self.tab: Tab | None = None
        self.on_built: Callable[[LazyTab, Tab], None] | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    def ensure(self) -> Tab:
        if self.tab is None:
            try:
                tab = self._factory()
            except Exception as exc:  # a broken tab must not take the window down; show why instead
                sys.excepthook(type(exc), exc, exc.__traceback__)  # reported, never hidden
                tab = BrokenTab(self.ctx, self.title, exc)
            tab.setObjectName(f"{self.key}_tab")
            self.tab = tab
            self._layout.addWidget(tab)
            if self.on_built is not None:
                self.on_built(self, tab)
            tab.refresh()  # the first load (constructors don't load)
        return self.tab

    def refresh(self) -> None:
        if self.tab is not None:
            self.tab.refresh()

    def has_unsaved_changes(self) -> bool:
        return self.tab is not None and self.tab.has_unsaved_changes()

    def save(self) -> None:
        if self.tab is not None:
            self.tab.save()

    def focus_search(self) -> bool:
        return self.tab is not None and self.tab.focus_search()

    def warm_up(self) -> None:
        if self.tab is not None:
            self.tab.warm_up()

    def shutdown(self) -> None:
        if self.tab is not None:
            self.tab.shutdown()

    def error_text(self) -> str:
        return (self.tab.error_text() if self.tab is not None else None) or ""

    def showEvent(self, event: QShowEvent) -> None:
        self.ensure()
        super().showEvent(event)


class TabSet(Mapping[str, Tab]):
    """The window's tabs by key; looking a lazy tab up builds it (``built()`` never does)."""

    def __init__(self) -> None:
        self.hosts: dict[str, Tab] = {}  # what sits in the tab bar

    def __getitem__(self, key: str) -> Tab:
        host = self.hosts[key]
        return host.ensure() if isinstance(host, LazyTab) else host

    def __iter__(self) -> Iterator[str]:
        return iter(self.hosts)

    def __len__(self) -> int:
        return len(self.hosts)

    def built(self) -> dict[str, Tab]:
        out: dict[str, Tab] = {}
        for key, host in self.hosts.items():
            if isinstance(host, LazyTab):
                if host.tab is not None:
                    out[key] = host.tab
            else:
                out[key] = host
        return out


def pending_counts(store: MemoryStore) -> tuple[int, int]:
    """Pending consolidation reviews and agent proposals: two directory listings, nothing parsed
    (the status line must stay cheap; the Consolidation tab reads and validates them)."""
    return len(store.list_review_states()), len(store.list_agent_proposals())


class MainWindow(QMainWindow):
    def __init__(self, ctx: AppContext, *, watch: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setObjectName("MainWindow")
        self.setWindowTitle(f"DSH Memory Manager — {ctx.root}")
        self.resize(1280, 800)
        self._closing = False
        self._deferred_tabs: list[str] | None = None
        self.last_status: RootStatus | None = None
        self.jobs = Jobs(self, ctx.runner)

        self.tab_widget = QTabWidget()
        self.tab_widget.setDocumentMode(True)
        self.tabs = TabSet()
        for key, title in TAB_ORDER:
            host: Tab
            if key in LAZY_TABS:
                host = LazyTab(ctx, key, title, lambda k=key: _load_tab(k, ctx))  # type: ignore[misc]
                host.on_built = self._lazy_tab_built
                host.setObjectName(f"{key}_host")
                label = title
            else:
                host = _load_tab(key, ctx)
                host.setObjectName(f"{key}_tab")
                label = host.tab_title() or title
            self.tabs.hosts[key] = host
            index = self.tab_widget.addTab(host, label)
            self.tab_widget.setTabToolTip(index, f"{label} (Ctrl+{index + 1})")
        self.root_banner = Banner()  # the window-wide banner (read-only root)
        self.root_banner.setObjectName("rootBanner")
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 0)
        central_layout.setSpacing(0)
        central_layout.addWidget(self.root_banner)
        central_layout.addWidget(self.tab_widget, 1)
        self.setCentralWidget(central)
        self.read_only = False
        from gui.tabs.workspace import WorkspaceTab

        workspace = self.tabs["workspace"]
        if isinstance(workspace, WorkspaceTab):
            workspace.open_global_requested.connect(lambda: self.show_tab("global"))
            workspace.open_global_section.connect(self._reveal_global_section)  # ws: a Global hit's section

        self.status_bar = RootStatusBar()
        self.status_bar.show_root(str(ctx.root))
        self.setStatusBar(self.status_bar)
        self.status_bar.problems_button.clicked.connect(self.show_problems)

        self._build_actions()

        self.watcher = RootWatcher(Path(ctx.root), parent=self)
        self.watcher.changed.connect(self.refresh_all)
        self._watch = watch  # the watcher starts when the first status line is in
        # A root that does not exist yet (a fresh machine, the demo declined) can't be watched: look
        # for it now and then, and start watching (and refresh) once the first save creates it.
        self.root_poll = QTimer(self)
        self.root_poll.setInterval(2000)
        self.root_poll.timeout.connect(self._poll_root)
        self._initial_load()

    # --- actions and shortcuts -----------------------------------------------------------
    def _build_actions(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.save_action = QAction("&Save", self)
        self.save_action.setShortcut(QKeySequence.StandardKey.Save)
        self.save_action.triggered.connect(self.save_current)
        file_menu.addAction(self.save_action)
        self.refresh_action = QAction("&Refresh", self)
        self.refresh_action.setShortcut(QKeySequence.StandardKey.Refresh)
        self.refresh_action.triggered.connect(self.refresh_all)
        file_menu.addAction(self.refresh_action)
        self.import_action = QAction("&Import…", self)  # reviewed in the Consolidation tab (Imports)
        self.import_action.triggered.connect(self.import_memory)
        file_menu.addAction(self.import_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

        view_menu = self.menuBar().addMenu("&View")
        self.search_action = QAction("&Find", self)
        self.search_action.setShortcut(QKeySequence.StandardKey.Find)
        self.search_action.triggered.connect(self.focus_search)
        view_menu.addAction(self.search_action)
        view_menu.addSeparator()
        for index, (key, title) in enumerate(TAB_ORDER):
            action = QAction(title, self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, k=key: self.show_tab(k))
            view_menu.addAction(action)
            self.addAction(action)

        help_menu = self.menuBar().addMenu("&Help")
        self.about_action = QAction("&About DSH Memory Manager", self)
        self.about_action.triggered.connect(self.show_about)
        help_menu.addAction(self.about_action)

    def _lazy_tab_built(self, host: LazyTab, tab: Tab) -> None:
        if self.read_only:
            tab.set_read_only(True)
        title = tab.tab_title()
        if title:
            self.tab_widget.setTabText(self.tab_widget.indexOf(host), title)

    def current_key(self) -> str:
        widget = self.tab_widget.currentWidget()
        return next((k for k, w in self.tabs.hosts.items() if w is widget), "")

    def _reveal_global_section(self, heading: str) -> None:
        from gui.tabs.global_tab import GlobalTab
        from gui.tabs.workspace.global_link import reveal_heading

        tab = self.tabs["global"]
        if isinstance(tab, GlobalTab):
            reveal_heading(tab.editor, heading)

    def show_tab(self, key: str) -> None:
        self.tab_widget.setCurrentWidget(self.tabs.hosts[key])

    def import_memory(self) -> None:
        """File → Import…: read another memory store; its changes are reviewed in the Consolidation tab."""
        from gui.tabs.consolidation import ConsolidationTab

        self.show_tab("consolidation")
        tab = self.tabs["consolidation"]
        if isinstance(tab, ConsolidationTab):
            tab.start_import()

    def save_current(self) -> None:
        tab = self.tab_widget.currentWidget()
        if isinstance(tab, Tab):
            tab.save()

    def focus_search(self) -> None:
        """Ctrl+F: the current tab's search or filter box; tabs without one go to "Search all memory"."""
        host = self.tab_widget.currentWidget()
        if isinstance(host, Tab) and host.focus_search():
            return
        self.show_tab("workspace")
        self.tabs["workspace"].focus_search()

    def show_about(self) -> None:
        from gui.about import show_about

        show_about(self, self.ctx)

    # --- refresh ---------------------------------------------------------------------------
    def _initial_load(self) -> None:
        """The first load of every tab (tabs don't load in their constructors).

        Global and the workspace list come first; the other tabs and the status line (which scans
        the whole root again) start once the workspace list has arrived, so on a big root they
        don't compete with it for the two worker threads and the GIL.
        """
        from gui.tabs.workspace import WorkspaceTab

        workspace = self.tabs["workspace"]
        if not isinstance(workspace, WorkspaceTab):  # it could not be built: nothing to wait for
            self.refresh_all()
            return
        # Lazy tabs load when they are built; built already means loaded already.
        self._deferred_tabs = [k for k in self.tabs.built() if k not in ("global", "workspace")]
        workspace.workspaces_loaded.connect(self._after_first_list)
        for key in ("global", "workspace"):
            self.tabs[key].refresh()

    def _after_first_list(self) -> None:
        deferred, self._deferred_tabs = self._deferred_tabs, None
        if deferred is None or self._closing:
            return
        self.refresh_status(check=False)  # cheap now: the store has just scanned the root; starts the watcher
        # check() parses every record (seconds of CPU at 10k records, on a worker but under the same
        # interpreter lock as the window): let the window settle before the first one.
        QTimer.singleShot(FIRST_CHECK_DELAY_MS, self._first_check)
        for key in deferred:
            tab = self.tabs.built().get(key)
            if tab is not None:
                tab.refresh()

    def refresh_all(self) -> None:
        if self._closing:
            return
        self._deferred_tabs = None  # a full refresh supersedes a pending first load
        for tab in self.tabs.built().values():
            tab.refresh()
        self.refresh_status()

    def refresh_status(self, *, check: bool = True) -> None:
        self.jobs.start("status", self.ctx.store.status, done=self._show_status, failed=self._status_failed)
        if check:
            self._start_check()
        self.jobs.start("pending", pending_counts, self.ctx.store, done=self._show_pending, failed=lambda _exc: None)

    def _first_check(self) -> None:
        if not self._closing:
            self._start_check()

    def _start_check(self) -> None:
        if not self.jobs.running("check"):  # check walks the whole root: one at a time
            self.jobs.start("check", self.ctx.store.check, done=self.status_bar.show_problems, failed=lambda _e: None)

    def _show_pending(self, counts: tuple[int, int]) -> None:
        self.status_bar.show_pending(*counts)
        self.watcher.watch_private()  # the first proposal or review may just have created its folder

    def _show_status(self, status: RootStatus) -> None:
        first = self.last_status is None
        self.last_status = status
        if status.read_only != self.read_only or first:
            self._apply_read_only(status.read_only)
        self.status_bar.show_status(status)
        self._start_watcher()
        if first:
            self._warm_up()

    def _apply_read_only(self, read_only: bool) -> None:
        self.read_only = read_only
        if read_only:
            self.root_banner.show_message(
                "warning",
                f"This memory root is read-only ({self.ctx.root}): you can read and search it, but "
                "editing is disabled. Make it writable (or copy it) and refresh to edit memory.",
                topic="read-only",
            )
        else:
            self.root_banner.clear(topic="read-only")
        for tab in self.tabs.built().values():
            tab.set_read_only(read_only)

    def show_problems(self) -> None:
        """The problems check found, each with what to do (from the status line)."""
        problems = self.status_bar.problems
        lines = [f"• {p.path}: {p.reason}." for p in problems]
        self.ctx.dialogs.info(
            self,
            "Problems in this memory root",
            f"check found {len(problems)} problem(s). Nothing was changed; each line says what to do.\n\n"
            + "\n".join(lines),
        )

    def _warm_up(self) -> None:
        """Start-up is done: let tabs prepare what they will need later (see gui/tabs/__init__.py)."""
        for tab in self.tabs.built().values():
            tab.warm_up()

    def _start_watcher(self) -> None:
        # Started after the first list and status, not before: setting up inotify watches walks the
        # root, and on a big root that competes with the first load for the GIL. Also retried on
        # every status, since the root may have been created since the window opened.
        if not self._watch or self._closing or self.watcher.running:
            return
        if self.watcher.start():
            # Whatever changed on disk while the first load ran was not watched yet: one debounced
            # refresh catches up (cheap: the store only re-reads files whose stat changed).
            self.watcher.poke()
        else:
            self.root_poll.start()

    def _poll_root(self) -> None:
        if self._closing or Path(self.ctx.root).is_dir():
            self.root_poll.stop()
            self.refresh_all()  # its status line starts the watcher

    def _status_failed(self, exc: BaseException) -> None:
        self.status_bar.show_problem(describe_error(exc))
        self._start_watcher()

    # --- closing ---------------------------------------------------------------------------
    def unsaved_tabs(self) -> list[str]:
        out = []
        built = self.tabs.built()
        for key, title in TAB_ORDER:
            tab = built.get(key)
            if tab is not None and tab.has_unsaved_changes():
                out.append(title)
        return out

    def closeEvent(self, event: QCloseEvent) -> None:
        unsaved = [] if self._closing else self.unsaved_tabs()
        if unsaved and not self.ctx.dialogs.confirm(
            self,
            "Unsaved changes",
            "You have unsaved changes in: " + ", ".join(unsaved) + ".\nQuit and discard them?",
            "Discard and quit",
        ):
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop the watcher, timers and pending work; safe to call twice."""
        if self._closing:
            return
        self._closing = True
        self.root_poll.stop()
        self.watcher.stop()
        self.jobs.cancel_all()
        for tab in self.tabs.built().values():
            tab.shutdown()
        self.ctx.runner.wait_all(10000)
