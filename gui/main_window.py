"""The main window: tabs, status line, menus, shortcuts, live refresh, guarded close, File ▸ Open (a new window)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QTabWidget, QWidget

from core.models import RootStatus, WorkspaceInfo
from core.store.api import MemoryStore
from core.store.files import AGENT_PROPOSALS, REVIEW_STATES
from gui.check_process import check_root
from gui.context import AppContext
from gui.problems_dialog import ProblemsDialog
from gui.root_switch import OpenedRoot, display_path, is_demo_root, open_root, recent_roots
from gui.tab_hosts import BrokenTab, LazyTab, MessageTab, TabSet, shown_message
from gui.tab_links import TabLinks
from gui.tabs import TAB_ORDER
from gui.tabs.base import Tab
from gui.tasks import Jobs, SyncTaskRunner, TaskRunner, ThreadPoolTaskRunner
from gui.watcher import RootWatcher
from gui.widgets.banner import Banner, banner_above
from gui.widgets.messages import describe_error
from gui.widgets.status_bar import RootStatusBar

__all__ = ["LAZY_TABS", "TAB_CLASSES", "BrokenTab", "LazyTab", "MainWindow", "MessageTab", "TabSet", "pending_counts"]

# key -> (module, class) of tabs written in their own modules; a missing module shows a placeholder.
TAB_CLASSES: dict[str, tuple[str, str]] = {
    "global": ("gui.tabs.global_tab", "GlobalTab"),
    "workspace": ("gui.tabs.workspace", "WorkspaceTab"),
    "consolidation": ("gui.tabs.consolidation", "ConsolidationTab"),
    "recycle": ("gui.tabs.recycle_tab", "RecycleBinTab"),
    "settings": ("gui.tabs.settings", "SettingsTab"),
    "maintenance": ("gui.tabs.maintenance", "MaintenanceTab"),
}


def _load_tab(key: str, ctx: AppContext) -> Tab:
    module_name, class_name = TAB_CLASSES[key]
    widget: Tab = getattr(importlib.import_module(module_name), class_name)(ctx)
    return widget


# Tabs built the first time they are shown (or asked for): their modules and first loads cost start-up time.
LAZY_TABS = frozenset({"consolidation", "recycle", "settings", "maintenance"})
FIRST_CHECK_DELAY_MS = 8000  # after the first workspace list: the window is in use by then
CHECK_AFTER_CHANGE_MS = 2000  # a tab changed memory: counts at once, the full check a little later
# Windows opened by File ▸ Open: nothing else holds them (the first window is held by gui.app).
OPEN_WINDOWS: list[MainWindow] = []


def pending_counts(store: MemoryStore) -> tuple[int, int]:
    """Pending consolidation reviews and agent proposals: two directory listings, nothing parsed
    (the status line must stay cheap; the Consolidation tab reads and validates them)."""
    return len(store.files(REVIEW_STATES).list()), len(store.files(AGENT_PROPOSALS).list())


class MainWindow(QMainWindow):
    def __init__(self, ctx: AppContext, *, watch: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setObjectName("MainWindow")
        self.resize(1280, 800)
        self._closing = False
        self._discard_on_close = False  # the user already chose to discard (or saved): close without asking
        self._deferred_tabs: list[str] | None = None
        self._saving: tuple[list[Tab], Callable[[], None], str] | None = None  # save, then go on
        self._idle_polls = 0
        self._raw_seen = False  # a change on disk arrived since the last debounced refresh
        self.successor: MainWindow | None = None  # the window File ▸ Open opened in place of this one
        self.last_status: RootStatus | None = None
        self.jobs = Jobs(self, ctx.runner)
        self.read_only = False
        self._is_demo = is_demo_root(Path(ctx.root))
        self._update_title()

        self.tab_widget = QTabWidget()
        self.tab_widget.setDocumentMode(True)
        self.tabs = TabSet()
        self.links = TabLinks(self.tabs, self.show_tab)
        names = self.tab_names()
        for key, fallback in TAB_ORDER:
            title = names.get(key, fallback)
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
                host.memory_changed.connect(self._memory_changed)
            self.tabs.hosts[key] = host
            index = self.tab_widget.addTab(host, label)
            self.tab_widget.setTabToolTip(index, self.tr("{tab} (Ctrl+{n})").format(tab=label, n=index + 1))
        self.root_banner = Banner()  # the window-wide banner (read-only root)
        self.root_banner.setObjectName("rootBanner")
        self.setCentralWidget(banner_above(self.root_banner, self.tab_widget))
        from gui.tabs.workspace import WorkspaceTab

        workspace = self.tabs["workspace"]
        self._status_follows_list = isinstance(workspace, WorkspaceTab)
        if isinstance(workspace, WorkspaceTab):
            workspace.open_global_requested.connect(lambda: self.show_tab("global"))
            # An archive, a commit or a new workspace reloads the list: the counts follow at once.
            workspace.workspaces_loaded.connect(self._workspaces_reloaded)
            workspace.open_global_section.connect(self.links.reveal_global_section)  # ws: a Global hit's section
            workspace.demo_requested.connect(lambda: self.switch_root(None))  # the empty root's "Open the demo"
            workspace.receipt_requested.connect(self.links.open_receipt)  # a record's provenance link
            workspace.usage.session_requested.connect(self.links.open_session)  # a session that used a record

        self.status_bar = RootStatusBar()
        self.status_bar.show_root(str(ctx.root))
        self.setStatusBar(self.status_bar)
        self.status_bar.problems_button.clicked.connect(self.show_problems)
        self.sync_badge = importlib.import_module("gui.sync_badge").install(self)  # issue 28: Sync's status

        self._build_actions()

        self.watcher = RootWatcher(Path(ctx.root), parent=self, search=ctx.search, on_changed=self._on_disk_changed)
        self.watcher.raw_event.connect(self._on_raw_event)
        self._watch = watch  # the watcher starts when the first status line is in
        # A root that does not exist yet (a fresh machine, the demo declined) can't be watched: look
        # for it now and then, and start watching (and refresh) once the first save creates it.
        self.root_poll = QTimer(self)
        self.root_poll.setInterval(2000)
        self.root_poll.timeout.connect(self._poll_root)
        self._check_later = QTimer(self)
        self._check_later.setSingleShot(True)
        self._check_later.setInterval(CHECK_AFTER_CHANGE_MS)
        self._check_later.timeout.connect(self._first_check)
        self._save_poll = QTimer(self)
        self._save_poll.setSingleShot(True)
        self._save_poll.setInterval(100)
        self._save_poll.timeout.connect(self._check_saved)
        self._initial_load()

    def tab_names(self) -> dict[str, str]:
        """The tab bar's names in the interface language, by key."""
        return {
            "global": self.tr("Global"),
            "workspace": self.tr("Workspace"),
            "consolidation": self.tr("Session Consolidation"),
            "recycle": self.tr("Recycle Bin"),
            "settings": self.tr("Settings"),
            "maintenance": self.tr("Maintenance"),
        }

    def _update_title(self) -> None:
        """The root (and whether it is the demo or read-only); Qt adds the application's name itself."""
        shown = display_path(self.ctx.root)
        title = self.tr("Demo memory — {path}").format(path=shown) if self._is_demo else shown
        if self.read_only:
            title = self.tr("{title} (read-only)").format(title=title)
        self.setWindowTitle(title)

    # --- actions and shortcuts -----------------------------------------------------------
    def _build_actions(self) -> None:
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        file_menu.setObjectName("fileMenu")
        self.file_menu = file_menu
        self.save_action = QAction(self.tr("&Save"), self)
        self.save_action.setShortcut(QKeySequence.StandardKey.Save)
        self.save_action.triggered.connect(self.save_current)
        file_menu.addAction(self.save_action)
        self.refresh_action = QAction(self.tr("&Refresh"), self)
        self.refresh_action.setShortcut(QKeySequence.StandardKey.Refresh)
        self.refresh_action.triggered.connect(self.refresh_all)
        file_menu.addAction(self.refresh_action)
        file_menu.addSeparator()
        self.open_root_action = QAction(self.tr("&Open Memory Root…"), self)
        self.open_root_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_root_action.setToolTip(self.tr("Open another memory root (a folder) in this window"))
        self.open_root_action.triggered.connect(self.choose_root)
        file_menu.addAction(self.open_root_action)
        self.open_demo_action = QAction(self.tr("Open the &Demo Root"), self)
        self.open_demo_action.setToolTip(
            self.tr("Sample workspaces in English and Chinese to look around; your real memory is not touched")
        )
        self.open_demo_action.triggered.connect(lambda: self.switch_root(None))
        self.open_demo_action.setEnabled(not self._is_demo)
        file_menu.addAction(self.open_demo_action)
        self.recent_menu = QMenu(self.tr("Recent &Roots"), self)
        self.recent_menu.setObjectName("recentRootsMenu")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addMenu(self.recent_menu)
        self._fill_recent()
        file_menu.addSeparator()
        self.import_action = QAction(self.tr("&Import…"), self)  # reviewed in the Consolidation tab (Imports)
        self.import_action.triggered.connect(self.links.import_memory)
        file_menu.addAction(self.import_action)
        file_menu.addSeparator()
        quit_action = QAction(self.tr("&Quit"), self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

        view_menu = self.menuBar().addMenu(self.tr("&View"))
        self.search_action = QAction(self.tr("&Find"), self)
        self.search_action.setShortcut(QKeySequence.StandardKey.Find)
        self.search_action.triggered.connect(self.focus_search)
        view_menu.addAction(self.search_action)
        view_menu.addSeparator()
        names = self.tab_names()
        for index, (key, fallback) in enumerate(TAB_ORDER):
            action = QAction(names.get(key, fallback), self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, k=key: self.show_tab(k))
            view_menu.addAction(action)
            self.addAction(action)

        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        self.about_action = QAction(self.tr("&About DSH Memory Manager"), self)
        self.about_action.triggered.connect(self.show_about)
        help_menu.addAction(self.about_action)

    def _fill_recent(self) -> None:
        """File ▸ Recent Roots: the per-user list (read when the menu opens: another window may have added one)."""
        self.recent_menu.clear()
        roots = recent_roots(Path(self.ctx.root))
        for root in roots:
            action = self.recent_menu.addAction(display_path(root))
            action.setToolTip(self.tr("Open {path}").format(path=root))
            action.triggered.connect(lambda _=False, r=root: self.switch_root(Path(r)))
        if not roots:
            empty = self.recent_menu.addAction(self.tr("(no other roots opened yet)"))
            empty.setEnabled(False)

    def _lazy_tab_built(self, host: LazyTab, tab: Tab) -> None:
        if host.key == "maintenance":  # Edit → Workspace tab; imported zip → Session Consolidation
            from gui.tabs.maintenance.handoff import connect

            connect(self, tab)
        if self.read_only:
            tab.set_read_only(True)
        if hasattr(tab, "record_requested"):  # review: a receipt's "Open record" (provenance)
            tab.record_requested.connect(self.links.open_record)
        tab.memory_changed.connect(self._memory_changed)
        title = tab.tab_title()
        if title:
            self.tab_widget.setTabText(self.tab_widget.indexOf(host), title)

    def current_key(self) -> str:
        widget = self.tab_widget.currentWidget()
        return next((k for k, w in self.tabs.hosts.items() if w is widget), "")

    def show_tab(self, key: str) -> None:
        self.tab_widget.setCurrentWidget(self.tabs.hosts[key])

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

        Global and the workspace list first (its names, then its counts); the other tabs and the
        status line (summed from that list, no second scan) once the counted list is in, so on a big
        root nothing competes with it for the two worker threads and the GIL (docs/architecture.md).
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

    def _after_first_list(self, listing: list[WorkspaceInfo] | None = None) -> None:
        deferred, self._deferred_tabs = self._deferred_tabs, None
        if deferred is None or self._closing:
            return
        self.refresh_status(check=False, listing=listing)  # sums the list just in; starts the watcher
        # check() parses every record (seconds of CPU at 10k, under the window's interpreter lock): settle first.
        QTimer.singleShot(FIRST_CHECK_DELAY_MS, self._first_check)
        for key in deferred:
            tab = self.tabs.built().get(key)
            if tab is not None:
                tab.refresh()

    def refresh_all(self) -> None:
        if self._closing:
            return
        self._deferred_tabs = None  # a full refresh supersedes a pending first load
        # The status line follows the workspace list (_workspaces_reloaded): one scan of the root, not two.
        self.refresh_status(status=not self._status_follows_list)
        for tab in self.tabs.built().values():
            tab.refresh()

    def refresh_status(
        self, *, check: bool = True, listing: list[WorkspaceInfo] | None = None, status: bool = True
    ) -> None:
        if self._closing:
            return
        if status:  # listing: the counted workspace list just in, summed instead of scanning the root again
            run = self.ctx.store.status if listing is None else partial(self.ctx.store.status, active=listing)
            self.jobs.start("status", run, done=self._show_status, failed=self._status_failed)
        if check:
            self._start_check()
        self.jobs.start("pending", pending_counts, self.ctx.store, done=self._show_pending, failed=lambda _exc: None)

    def _memory_changed(self) -> None:
        """A tab wrote memory (archive, purge, restore, commit): the counts now, the check soon."""
        self.refresh_status(check=False)
        self._check_later.start()

    def _workspaces_reloaded(self, listing: list[WorkspaceInfo] | None = None) -> None:
        if self._deferred_tabs is None:  # not the first list (that one is _after_first_list's)
            self.refresh_status(check=False, listing=listing)

    def _on_raw_event(self) -> None:
        """The first change on disk after a quiet spell updates the counts at once; the tabs reload
        after the watcher's debounce (``changed``), when the burst of events is over."""
        if not self._raw_seen:
            self._raw_seen = True
            QTimer.singleShot(100, self, lambda: self.refresh_status(check=False))

    def _on_disk_changed(self) -> None:
        self._raw_seen = False
        self.refresh_all()

    def _first_check(self) -> None:
        if not self._closing:
            self._start_check()

    def _start_check(self) -> None:
        if not self.jobs.running("check"):  # check walks the whole root: one at a time
            size = self.last_status.total_bytes if self.last_status is not None else 0
            self.jobs.start(
                "check",
                check_root,
                self.ctx.store,
                size,
                cancellable=True,
                done=self.status_bar.show_problems,
                failed=lambda _e: None,
            )

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
        self._update_title()
        if read_only:
            self.root_banner.show_message(
                "warning",
                self.tr(
                    "This memory root is read-only ({root}): you can read and search it, but editing is "
                    "disabled. Make it writable (or copy it) and refresh to edit memory."
                ).format(root=self.ctx.root),
                topic="read-only",
            )
        else:
            self.root_banner.clear(topic="read-only")
        for tab in self.tabs.built().values():
            tab.set_read_only(read_only)

    def show_problems(self) -> None:
        """What check found, one entry per file with what to do, Open and Reveal (from the status line)."""
        self.problems_dialog = ProblemsDialog(self.ctx.root, self.status_bar.problems, self.links.open_record, self)
        self.problems_dialog.show()

    def _warm_up(self) -> None:
        """Start-up is done: tabs prepare what they will need (gui/tabs/__init__.py), once the user pauses
        typing (mostly imports, which can't step aside: keystrokes took up to 175 ms at 100k)."""
        if self.ctx.typing.typing_recently():
            return QTimer.singleShot(self.ctx.typing.window_ms, self._warm_up)
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

    # --- unsaved edits: quitting and switching roots ----------------------------------------
    def unsaved_tabs(self) -> list[str]:
        out = []
        built = self.tabs.built()
        names = self.tab_names()
        for key, fallback in TAB_ORDER:
            tab = built.get(key)
            if tab is not None and tab.has_unsaved_changes():
                out.append(names.get(key, fallback))
        return out

    def _ask_unsaved(self, purpose: str) -> str | None:
        """The answer: "save" (the default), "discard", or None (stay); "discard" when nothing is unsaved."""
        unsaved = self.unsaved_tabs()
        if not unsaved:
            return "discard"
        tabs = self.tr(", ").join(unsaved)
        if purpose == "quit":
            text = self.tr("You have unsaved changes in: {tabs}.\nSave them before quitting?").format(tabs=tabs)
            go = [("save", self.tr("Save and quit")), ("discard", self.tr("Discard and quit"))]
        else:
            text = self.tr(
                "You have unsaved changes in: {tabs}.\nSave them before opening another memory root?"
            ).format(tabs=tabs)
            go = [("save", self.tr("Save and switch")), ("discard", self.tr("Discard and switch"))]
        choice = self.ctx.dialogs.ask(
            self, self.tr("Unsaved changes"), text, [*go, ("cancel", "")], default="save", escape="cancel"
        )
        return choice if choice in ("save", "discard") else None

    def _save_then(self, proceed: Callable[[], None], what: str) -> None:
        """Save every tab with unsaved edits (their normal save: CAS, secret checks), then ``proceed``.

        If one cannot be saved (a conflict, a refused credential, an error) nothing proceeds and the
        window says which tab and why; the edits stay where they are.
        """
        tabs = [t for t in self.tabs.built().values() if t.has_unsaved_changes()]
        self._saving = (tabs, proceed, what)
        self._idle_polls = 0
        for tab in tabs:
            tab.save()
        self._check_saved()

    def _check_saved(self) -> None:
        if self._saving is None:
            return
        tabs, proceed, what = self._saving
        left = [t for t in tabs if shiboken6.isValid(t) and t.has_unsaved_changes()]
        if not left:
            self._saving = None
            QTimer.singleShot(0, self, proceed)  # not from inside closeEvent
            return
        # Saves run on workers; once nothing is running and the results are in, what is left failed.
        # A question the save asks (a conflict, a credential) is answered first: it may still save.
        idle = self.ctx.runner.wait_all(0) and QApplication.activeModalWidget() is None
        self._idle_polls = self._idle_polls + 1 if idle else 0
        if self._idle_polls < 3:
            self._save_poll.start()
            return
        self._saving = None
        names = self.tab_names()
        keys = [k for k, t in self.tabs.built().items() if t in left]
        why = "\n".join(f"• {names.get(k, k)}: {shown_message(self.tabs.built()[k])}" for k in keys)
        if keys:
            self.show_tab(keys[0])
        self.ctx.dialogs.error(
            self,
            self.tr("Not saved"),
            self.tr(
                "{what}: not everything could be saved, so nothing else happened.\n\n{why}\n\n"
                "Your edits are still there."
            ).format(what=what, why=why),
        )

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing and not self._discard_on_close:
            if self._saving is not None:  # a save-and-quit is under way
                event.ignore()
                return
            choice = self._ask_unsaved("quit")
            if choice is None:
                event.ignore()
                return
            if choice == "save" and self.unsaved_tabs():
                event.ignore()
                self._save_then(self._close_saved, self.tr("Not quit"))
                return
        self.shutdown()
        event.accept()

    def _close_saved(self) -> None:
        self._discard_on_close = True
        self.close()

    def choose_root(self) -> None:
        """File ▸ Open Memory Root…: pick a folder, open it in place of this one."""
        start = str(Path(self.ctx.root).parent)
        folder = self.ctx.dialogs.choose_directory(self, self.tr("Open a memory root"), start)
        if folder:
            self.switch_root(Path(folder))

    def switch_root(self, root: Path | None) -> None:
        """Open ``root`` (None: the demo root) in a new window and close this one; unsaved edits are
        saved first (the default) or discarded only when the user says so."""
        if self._saving is not None or self.jobs.running("open-root"):
            return
        if root is not None and Path(root) == Path(self.ctx.root):
            return
        choice = self._ask_unsaved("switch")
        if choice is None:
            return
        if choice == "save" and self.unsaved_tabs():
            self._save_then(partial(self._start_open, root), self.tr("Not switched"))
            return
        self._start_open(root)

    def _start_open(self, root: Path | None) -> None:
        shown = str(root) if root is not None else self.tr("the demo root")
        self.status_bar.showMessage(self.tr("Opening {root}…").format(root=shown))
        caches = self.ctx.root_caches.keep(self.ctx.root, self.ctx.store)  # so switching back here is warm
        self.jobs.start(
            "open-root",
            partial(open_root, with_search=self.ctx.search is not None, caches=caches),
            root,
            done=self._root_opened,
            failed=self._open_failed,
        )

    def _open_failed(self, exc: BaseException) -> None:
        self.status_bar.clearMessage()
        self.ctx.dialogs.error(self, self.tr("Could not open the memory root"), describe_error(exc))

    def _root_opened(self, opened: OpenedRoot) -> None:
        self.status_bar.clearMessage()
        runner: TaskRunner = SyncTaskRunner() if isinstance(self.ctx.runner, SyncTaskRunner) else ThreadPoolTaskRunner()
        ctx = AppContext(
            store=opened.store,
            runner=runner,
            dialogs=self.ctx.dialogs,
            root=opened.root,
            sessions_root=opened.sessions_root,
            dsh_home=self.ctx.dsh_home,
            search=opened.search,
            root_caches=self.ctx.root_caches,
        )
        new = MainWindow(ctx, watch=self._watch)
        new.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        new.setGeometry(self.geometry())
        OPEN_WINDOWS.append(new)
        new.destroyed.connect(lambda _=None, w=new: OPEN_WINDOWS.remove(w) if w in OPEN_WINDOWS else None)
        self.successor = new
        new.show()
        self._discard_on_close = True  # settled above: saved, or discarded by choice
        self.close()

    def shutdown(self) -> None:
        """Stop the watcher, timers and pending work; safe to call twice."""
        if self._closing:
            return
        self._closing = True
        self.root_poll.stop()
        self._check_later.stop()
        self._save_poll.stop()
        self.watcher.stop()
        self.jobs.cancel_all()
        for tab in self.tabs.built().values():
            tab.shutdown()
        self.ctx.runner.wait_all(10000)
