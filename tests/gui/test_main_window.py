"""The main window: tab order, placeholders, status line, shortcuts, About, guarded close."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui import main_window as mw
from gui.context import AppContext
from gui.main_window import MainWindow


def test_five_tabs_in_order(main_window: MainWindow) -> None:
    titles = [main_window.tab_widget.tabText(i) for i in range(main_window.tab_widget.count())]
    assert titles == ["Global", "Workspace", "Session Consolidation", "Recycle Bin", "Settings", "Maintenance"]
    assert list(main_window.tabs) == ["global", "workspace", "consolidation", "recycle", "settings", "maintenance"]
    for key, host in main_window.tabs.hosts.items():
        assert main_window.tab_widget.indexOf(host) == list(main_window.tabs).index(key)
        assert hasattr(host, "refresh") and hasattr(host, "has_unsaved_changes")
        tab = main_window.tabs[key]
        assert tab is host or tab.parent() is host
        assert hasattr(tab, "refresh") and hasattr(tab, "has_unsaved_changes")


def test_lazy_tabs_are_built_on_first_show(ctx: AppContext, sample: dict[str, Any], qtbot: Any) -> None:
    """Consolidation, Recycle Bin and Settings cost start-up time: built (and loaded) when first shown."""
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    assert set(window.tabs.built()) == {"global", "workspace"}
    host = window.tabs.hosts["recycle"]
    assert isinstance(host, mw.LazyTab) and host.tab is None
    assert not host.has_unsaved_changes() and host.error_text() == ""
    host.refresh()  # nothing to refresh yet: must not build it
    assert host.tab is None
    window.show()
    window.show_tab("recycle")
    assert host.tab is not None and "recycle" in window.tabs.built()
    assert window.current_key() == "recycle"
    window.refresh_all()  # built tabs take part in refreshes from now on
    assert window.unsaved_tabs() == []
    window.shutdown()


def test_status_line_shows_root_bytes_and_counts(ctx: AppContext, sample: dict[str, Any], qtbot: Any) -> None:
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    summary = window.status_bar.summary()
    assert str(ctx.root) in summary
    assert "3 workspaces" in summary
    assert "0 archived" in summary
    assert window.last_status is not None and window.last_status.total_bytes > 0
    window.shutdown()


def test_ctrl_number_switches_tabs_and_ctrl_f_focuses_search(main_window: MainWindow, qtbot: Any) -> None:
    with qtbot.waitActive(main_window):
        main_window.show()
        main_window.activateWindow()
    for n, key in enumerate(["global", "workspace", "consolidation", "recycle", "settings"], start=1):
        qtbot.keyClick(main_window, getattr(Qt.Key, f"Key_{n}"), Qt.KeyboardModifier.ControlModifier)
        assert main_window.current_key() == key
    qtbot.keyClick(main_window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(main_window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    ws = main_window.tabs["workspace"]
    assert QApplication.focusWidget() is ws.rec_filter  # no search index in this context
    # Global has no search box of its own: Ctrl+F there goes to the Workspace tab's search.
    qtbot.keyClick(main_window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(main_window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert main_window.current_key() == "workspace"
    assert QApplication.focusWidget() is ws.rec_filter


def test_close_with_unsaved_edits_asks(main_window: MainWindow, ctx: Any, qtbot: Any) -> None:
    main_window.show()
    glob = main_window.tabs["global"]
    glob.editor.setPlainText("# Draft\n")
    assert main_window.unsaved_tabs() == ["Global"]
    ctx.dialogs.push(None)  # dismissed: stay
    assert not main_window.close()
    assert main_window.isVisible()
    assert ctx.dialogs.asked[-1][0] == "ask"
    ctx.dialogs.push("discard")
    assert main_window.close()
    assert not main_window.watcher.running
    assert not (ctx.root / "GLOBAL.md").exists()


def test_close_without_edits_does_not_ask(main_window: MainWindow, ctx: Any) -> None:
    main_window.show()
    assert main_window.close()
    assert ctx.dialogs.asked == []


def test_about_action(main_window: MainWindow, qtbot: Any, monkeypatch: Any) -> None:
    seen: list[object] = []
    import gui.about

    monkeypatch.setattr(gui.about, "show_about", lambda parent, ctx: seen.append((parent, ctx)))
    main_window.about_action.trigger()
    assert seen == [(main_window, main_window.ctx)]


def test_save_shortcut_saves_current_tab(main_window: MainWindow, ctx: Any, qtbot: Any) -> None:
    with qtbot.waitActive(main_window):
        main_window.show()
        main_window.activateWindow()
    main_window.show_tab("global")
    main_window.tabs["global"].editor.setPlainText("# User Profile\n\nSaved with Ctrl+S.\n")
    qtbot.keyClick(main_window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert (ctx.root / "GLOBAL.md").read_text(encoding="utf-8") == "# User Profile\n\nSaved with Ctrl+S.\n"


def test_window_loads_through_the_thread_pool_runner(ctx: AppContext, sample: dict[str, Any], qtbot: Any) -> None:
    from gui.tasks import ThreadPoolTaskRunner

    ctx.runner = ThreadPoolTaskRunner()
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    ws = window.tabs["workspace"]
    glob = window.tabs["global"]
    try:
        qtbot.waitUntil(lambda: ws.snapshot is not None and window.last_status is not None, timeout=10000)
        qtbot.waitUntil(lambda: "Backend developer" in glob.editor.toPlainText(), timeout=10000)
        assert ws.ws_model.rowCount() == 3
        assert window.last_status is not None and window.last_status.workspace_count == 3
        ws.select_record("build-steps")
        ws.desc_edit.setText("Committed from a worker thread")
        ws.save()
        qtbot.waitUntil(lambda: not ws.staged and "Committed" in ws.banner.text, timeout=10000)
    finally:
        window.shutdown()
    entry = ctx.store.read_workspace(sample["alpha"].key).get("build-steps")
    assert entry is not None and entry.record is not None
    assert entry.record.description == "Committed from a worker thread"


def test_unsaved_edits_in_a_lazily_built_tab_are_guarded(main_window: MainWindow, ctx: Any) -> None:
    main_window.show()
    main_window.show_tab("settings")
    settings = main_window.tabs["settings"]
    settings.debug_box.setChecked(not settings.debug_box.isChecked())
    assert main_window.unsaved_tabs() == ["Settings"]
    assert main_window.tabs.hosts["settings"].has_unsaved_changes()  # the host forwards to the tab
    ctx.dialogs.push("cancel")
    assert not main_window.close()
    ctx.dialogs.push("discard")
    assert main_window.close()


def test_a_tab_that_fails_to_build_says_so(ctx: AppContext, qtbot: Any, monkeypatch: Any) -> None:
    """A lazily built tab whose constructor raises shows the error in its place, and reports it
    (the self-test sees it through error_text) instead of breaking the show event."""

    def broken(_key: str, _title: str, _ctx: AppContext) -> Any:
        raise OSError(5, "Input/output error")

    reported: list[BaseException] = []
    monkeypatch.setattr("sys.excepthook", lambda kind, exc, tb: reported.append(exc))
    host = mw.LazyTab(ctx, "settings", "Settings", lambda: broken("settings", "Settings", ctx))
    qtbot.addWidget(host)
    tab = host.ensure()
    assert isinstance(tab, mw.BrokenTab)
    assert "Settings could not be opened" in host.error_text() and "Input/output error" in host.error_text()
    assert len(reported) == 1 and isinstance(reported[0], OSError)
    assert not host.has_unsaved_changes()
