"""Issue 14 frictions in the window's shell: quitting with unsaved edits, banners that expire without
moving the layout, File ▸ Open / demo / recent roots, the title, and status counts that keep up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QListWidget, QVBoxLayout, QWidget

from core.models import EMPTY_REVISION
from core.user_prefs import UserPrefs, load_prefs, save_prefs
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.main_window import MainWindow
from gui.widgets import banner as banner_mod
from gui.widgets.banner import Banner

pytestmark = pytest.mark.usefixtures("fresh_prefs")


# --- quitting ----------------------------------------------------------------------------------


def test_quit_with_unsaved_edits_defaults_to_save_and_quit(main_window: MainWindow, ctx: Any, qtbot: Any) -> None:
    main_window.show()
    main_window.tabs["global"].editor.setPlainText("# Draft\n\nKeep this.\n")
    ctx.dialogs.push("save")
    main_window.close()
    assert ctx.dialogs.defaults == ["save"]
    labels = dict(ctx.dialogs.choices[-1])
    assert labels["save"] == "Save and quit" and labels["discard"] == "Discard and quit"
    qtbot.waitUntil(lambda: not main_window.isVisible())
    assert (ctx.root / "GLOBAL.md").read_text(encoding="utf-8") == "# Draft\n\nKeep this.\n"


def test_save_and_quit_waits_for_a_save_on_a_worker(ctx: AppContext, sample: dict[str, Any], qtbot: Any) -> None:
    from gui.tasks import ThreadPoolTaskRunner

    ctx.runner = ThreadPoolTaskRunner()
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    try:
        window.show()
        glob = window.tabs["global"]
        qtbot.waitUntil(lambda: "Backend developer" in glob.editor.toPlainText(), timeout=10000)
        glob.editor.setPlainText("# Saved on the way out\n")
        ctx.dialogs.push("save")
        assert not window.close()  # not yet: the save runs on a worker first
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=10000)
        assert (ctx.root / "GLOBAL.md").read_text(encoding="utf-8") == "# Saved on the way out\n"
    finally:
        window.shutdown()


def test_save_and_quit_that_conflicts_does_not_quit_and_says_why(
    main_window: MainWindow, ctx: Any, qtbot: Any
) -> None:
    main_window.show()
    glob = main_window.tabs["global"]
    glob.editor.setPlainText("# Mine\n")
    ctx.store.replace_global("# Theirs\n", ctx.store.read_global().revision)  # another program, meanwhile
    ctx.dialogs.push("save", "compare")  # save and quit; the conflict question: keep my edits
    main_window.close()
    qtbot.waitUntil(lambda: any(kind == "error" for kind, _t, _x in ctx.dialogs.asked))
    kind, _title, text = ctx.dialogs.asked[-1]
    assert kind == "error" and "Not quit" in text and "Global" in text and "changed on disk" in text
    assert main_window.isVisible()
    assert glob.editor.toPlainText() == "# Mine\n"  # nothing lost
    assert (ctx.root / "GLOBAL.md").read_text(encoding="utf-8") == "# Theirs\n"


# --- banners -----------------------------------------------------------------------------------


def _host(qtbot: Any) -> tuple[QWidget, Banner, QListWidget]:
    host = QWidget()
    layout = QVBoxLayout(host)
    banner = Banner()
    rows = QListWidget()
    rows.addItems([f"row {i}" for i in range(30)])
    layout.addWidget(banner)
    layout.addWidget(rows, 1)
    qtbot.addWidget(host)
    host.resize(500, 400)
    host.show()
    qtbot.waitExposed(host)
    return host, banner, rows


def test_transient_message_never_moves_the_layout(qtbot: Any) -> None:
    host, banner, rows = _host(qtbot)
    before = rows.geometry()
    banner.show_message("ok", "Committed 1 change.")
    assert banner.text == "Committed 1 change." and banner.transient
    strip = banner.strip()
    assert strip is not None and strip.isVisible()
    assert rows.geometry() == before  # the rows stay where the pointer is
    assert strip.geometry().bottom() <= host.height()  # floats over the bottom edge, inside the tab
    # a click where the toast is lands on the row underneath it (dispatched like a real click)
    target = strip.geometry().center()
    item = rows.itemAt(rows.viewport().mapFrom(host, target))
    assert item is not None
    hit = host.childAt(target)
    assert hit is not None and rows.isAncestorOf(hit)
    QTest.mouseClick(host.windowHandle(), Qt.MouseButton.LeftButton, pos=host.mapTo(host.window(), target))
    assert rows.currentItem() is item
    banner.clear()
    assert rows.geometry() == before


def test_transient_message_fades_out_by_itself(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(banner_mod, "TRANSIENT_MS", 50)
    _, banner, _rows = _host(qtbot)
    banner.show_message("ok", "Archived alpha. It is in the Recycle Bin.")
    qtbot.waitUntil(lambda: banner.text == "")
    assert banner.strip() is None


def test_transient_message_clears_on_the_next_click(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(banner_mod, "GRACE_MS", 0)
    _, banner, rows = _host(qtbot)
    banner.show_message("ok", "Committed 1 change.")
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    qtbot.waitUntil(lambda: banner.text == "")


def test_errors_stay_until_dismissed(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(banner_mod, "GRACE_MS", 0)
    monkeypatch.setattr(banner_mod, "TRANSIENT_MS", 10)
    _, banner, rows = _host(qtbot)
    banner.show_message("error", "The file system refused the operation.")
    assert not banner.transient and banner.isVisible()
    qtbot.mouseClick(rows.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    qtbot.wait(60)
    assert banner.text == "The file system refused the operation."
    dismiss = banner.findChild(QWidget, "bannerDismiss")
    assert dismiss is not None and dismiss.isVisible()
    qtbot.mouseClick(dismiss, Qt.MouseButton.LeftButton)
    assert banner.text == "" and not banner.isVisible()


def test_old_news_is_gone_after_switching_tabs(ctx: AppContext, sample: dict[str, Any], qtbot: Any) -> None:
    """ "Archived …" stayed in the Workspace tab after restoring it in the Recycle Bin."""
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    try:
        window.show()
        qtbot.waitExposed(window)
        window.show_tab("workspace")
        ws = window.tabs["workspace"]
        ctx.dialogs.push(True)  # "Archive workspace?"
        ws.select_workspace(sample["alpha"].key)
        ws.archive_workspace()
        assert ws.banner.text.startswith("Archived")
        window.show_tab("recycle")
        assert ws.banner.text == ""
    finally:
        window.shutdown()


# --- status counts -------------------------------------------------------------------------------


def test_status_counts_follow_an_archive_at_once(ctx: AppContext, sample: dict[str, Any], qtbot: Any) -> None:
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    try:
        assert window.status_bar.workspaces_label.text() == "3 workspaces"
        ws = window.tabs["workspace"]
        ws.select_workspace(sample["alpha"].key)
        ctx.dialogs.push(True)
        ws.archive_workspace()
        # no watcher, no refresh: the archive's own reload updates the counts
        assert window.status_bar.workspaces_label.text() == "2 workspaces"
        assert window.status_bar.archived_label.text() == "1 archived"
    finally:
        window.shutdown()


def test_status_counts_follow_a_purge_and_a_restore_in_the_recycle_bin_at_once(
    ctx: AppContext, sample: dict[str, Any], qtbot: Any
) -> None:
    ctx.store.recycle.archive(sample["gone"].key)
    ctx.store.recycle.archive(sample["beta"].key)
    window = MainWindow(ctx, watch=False)  # no watcher: only the tab's own report can update the counts
    qtbot.addWidget(window)
    try:
        assert window.status_bar.archived_label.text() == "2 archived"
        window.show_tab("recycle")
        bin_tab = window.tabs["recycle"]
        assert bin_tab.select_workspace(sample["gone"].key)
        ctx.dialogs.push("gone")
        bin_tab.purge_button.click()
        assert window.status_bar.archived_label.text() == "1 archived"
        assert bin_tab.select_workspace(sample["beta"].key)
        bin_tab.restore_button.click()
        assert window.status_bar.archived_label.text() == "0 archived"
        assert window.status_bar.workspaces_label.text() == "2 workspaces"
    finally:
        window.shutdown()


def test_status_counts_follow_a_change_on_disk_before_the_debounced_reload(
    ctx: AppContext, sample: dict[str, Any], qtbot: Any
) -> None:
    ctx.store.recycle.archive(sample["gone"].key)
    window = MainWindow(ctx, watch=True)
    qtbot.addWidget(window)
    try:
        qtbot.waitUntil(lambda: window.watcher.running)
        window.watcher.set_debounce_ms(600_000)  # the tabs' reload would come only after ten minutes
        assert window.status_bar.archived_label.text() == "1 archived"
        ctx.store.recycle.purge(sample["gone"].key, "gone")
        qtbot.waitUntil(lambda: window.status_bar.archived_label.text() == "0 archived", timeout=10000)
    finally:
        window.shutdown()


def test_a_tab_reporting_a_change_updates_the_counts(main_window: MainWindow, ctx: Any, tmp_path: Path) -> None:
    assert main_window.status_bar.workspaces_label.text() == "0 workspaces"
    cwd = tmp_path / "projects" / "new"
    cwd.mkdir(parents=True)
    ctx.store.create_workspace(str(cwd))
    main_window.tabs["recycle"].memory_changed.emit()  # what a tab does after it wrote memory
    assert main_window.status_bar.workspaces_label.text() == "1 workspace"


# --- title and File menu ---------------------------------------------------------------------------


def test_title_names_the_root_not_the_app(main_window: MainWindow, ctx: Any) -> None:
    title = main_window.windowTitle()
    assert "DSH Memory Manager" not in title  # Qt adds the application's display name itself
    assert Path(ctx.root).name in title


def _file_actions(window: MainWindow) -> list[str]:
    return [a.text() for a in window.file_menu.actions() if a.text()]


def test_file_menu_lists_recent_roots(main_window: MainWindow, ctx: Any, tmp_path: Path) -> None:
    save_prefs(UserPrefs(recent_roots=(str(tmp_path / "work-root"), str(ctx.root), str(tmp_path / "old-root"))))
    assert {"&Open Memory Root…", "Open the &Demo Root", "Recent &Roots"} <= set(_file_actions(main_window))
    main_window.recent_menu.aboutToShow.emit()
    recent = [a.text() for a in main_window.recent_menu.actions()]
    assert recent == [str(tmp_path / "work-root"), str(tmp_path / "old-root")]  # not the one open now


def test_open_root_switches_windows_and_remembers_it(
    main_window: MainWindow, ctx: Any, dialogs: ScriptedDialogs, tmp_path: Path, opened: list[MainWindow], qtbot: Any
) -> None:
    other = tmp_path / "other-root"
    other.mkdir()
    from gui.app import open_store

    open_store(other).replace_global("# Other root\n", EMPTY_REVISION)
    main_window.show()
    main_window.tabs["global"].editor.setPlainText("# Unsaved here\n")
    dialogs.directories.append(str(other))
    dialogs.push("save")  # unsaved edits: the default saves them first
    main_window.open_root_action.trigger()
    qtbot.waitUntil(lambda: main_window.successor is not None)
    new = main_window.successor
    assert new is not None and Path(new.ctx.root) == other
    assert dialogs.defaults == ["save"] and dict(dialogs.choices[0])["save"] == "Save and switch"
    assert (ctx.root / "GLOBAL.md").read_text(encoding="utf-8") == "# Unsaved here\n"
    assert new.tabs["global"].editor.toPlainText() == "# Other root\n"
    qtbot.waitUntil(lambda: not main_window.isVisible())
    assert new.isVisible()
    assert load_prefs().recent_roots[0] == str(other)


def test_switching_is_cancelled_when_the_user_stays(
    main_window: MainWindow, ctx: Any, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    main_window.show()
    main_window.tabs["global"].editor.setPlainText("# Unsaved here\n")
    dialogs.push(None)
    main_window.switch_root(tmp_path / "elsewhere")
    assert main_window.successor is None and main_window.isVisible()
    assert main_window.tabs["global"].has_unsaved_changes()


def test_open_demo_root(main_window: MainWindow, opened: list[MainWindow], qtbot: Any) -> None:
    from gui.app import demo_root_dir

    main_window.open_demo_action.trigger()
    qtbot.waitUntil(lambda: main_window.successor is not None, timeout=20000)
    new = main_window.successor
    assert new is not None and Path(new.ctx.root) == demo_root_dir()
    assert new.windowTitle().startswith("Demo memory")
    assert not new.open_demo_action.isEnabled()
    assert new.tabs["workspace"].ws_model.rowCount() > 0


def test_a_file_is_not_opened_as_a_root(
    main_window: MainWindow, dialogs: ScriptedDialogs, tmp_path: Path, qtbot: Any
) -> None:
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("x\n")
    main_window.switch_root(not_a_folder)
    assert dialogs.asked[-1][0] == "error" and "notes.txt" in dialogs.asked[-1][2]
    assert main_window.successor is None


# --- Chinese -----------------------------------------------------------------------------------


@pytest.fixture
def chinese(qapp: Any) -> Iterator[None]:
    from gui.i18n import TRANSLATIONS_DIR, install_translators, remove_translators

    if not (TRANSLATIONS_DIR / "dsh_zh_CN.qm").is_file():
        pytest.skip("translations not compiled (scripts/setup.sh compiles them)")
    translators = install_translators(qapp, "zh_CN")
    yield
    remove_translators(qapp, translators)


def test_chinese_shell_and_problems_by_kind(
    chinese: None, ctx: AppContext, sample: dict[str, Any], dialogs: ScriptedDialogs, qtbot: Any
) -> None:
    (ctx.root / "workspaces" / "stray.txt").write_text("not a workspace\n")
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    try:
        titles = [window.tab_widget.tabText(i) for i in range(window.tab_widget.count())]
        assert titles[:2] == ["全局记忆", "工作区"]
        assert window.file_menu.title() == "文件(&F)"
        assert "打开记忆根目录(&O)…" in _file_actions(window)
        assert window.status_bar.workspaces_label.text() == "3 个工作区"
        window.refresh_status()
        assert window.status_bar.problems_button.text().endswith(" 个问题")
        window.show_problems()
        dialog = window.problems_dialog
        assert dialog.windowTitle() == "此记忆根目录中的问题"
        tree = dialog.tree
        entries = {
            tree.topLevelItem(i).text(0): tree.topLevelItem(i).child(0).text(0) for i in range(tree.topLevelItemCount())
        }
        assert entries["workspaces/stray.txt"].startswith("这里只应有工作区文件夹，却有一个文件")
        assert any("broken.md" in k and v.startswith("不是有效的记忆条目") for k, v in entries.items()), entries
        dialog.close()
        window.tabs["global"].editor.setPlainText("# 草稿\n")
        dialogs.push("cancel")
        window.close()
        assert dict(dialogs.choices[-1])["save"] == "保存并退出"
    finally:
        window.shutdown()


def test_every_check_problem_has_a_kind(ctx: AppContext, sample: dict[str, Any]) -> None:
    (ctx.root / "workspaces" / "stray.txt").write_text("not a workspace\n")
    problems = ctx.store.inspect.check()
    assert problems and all(p.kind for p in problems)
