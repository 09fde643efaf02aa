"""Live refresh: changes made on disk by someone else appear; edits in progress are never overwritten."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from watchdog.events import FileModifiedEvent, FileMovedEvent

from core.models import PutOp, WorkspaceSnapshot
from gui.context import AppContext
from gui.main_window import MainWindow
from gui.qtmodels.roles import KEY_ROLE
from gui.watcher import RootWatcher, _Handler, is_interesting
from tests.gui.conftest import open_store, record


def test_is_interesting_ignores_internal_and_temp_files(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    assert is_interesting(root, str(root / "GLOBAL.md"))
    assert is_interesting(root, str(root / "workspaces" / "k" / "a.md"))
    assert not is_interesting(root, str(root / ".manager" / "journal" / "x"))
    assert not is_interesting(root, str(root / "workspaces" / "k" / ".#a.md"))
    assert not is_interesting(root, str(root / "workspaces" / "k" / "a.md~"))
    assert not is_interesting(root, str(tmp_path / "elsewhere.md"))


def test_handler_debounces_bursts_into_one_change(tmp_path: Path, qtbot: Any) -> None:
    watcher = RootWatcher(tmp_path, debounce_ms=50)
    handler = _Handler(watcher)
    changes: list[int] = []
    watcher.changed.connect(lambda: changes.append(1))
    handler.on_any_event(FileModifiedEvent(str(tmp_path / ".manager" / "lock")))
    assert watcher.event_count == 0
    for i in range(5):
        handler.on_any_event(FileModifiedEvent(str(tmp_path / f"r{i}.md")))
    handler.on_any_event(FileMovedEvent(str(tmp_path / ".manager" / "tmp"), str(tmp_path / "GLOBAL.md")))
    assert watcher.event_count == 6
    qtbot.waitUntil(lambda: changes == [1], timeout=3000)
    watcher.stop()


def test_watcher_does_not_start_on_a_missing_root(tmp_path: Path) -> None:
    watcher = RootWatcher(tmp_path / "nope")
    assert not watcher.start()
    assert not watcher.running
    watcher.stop()


def _live_window(ctx: AppContext, qtbot: Any) -> MainWindow:
    window = MainWindow(ctx, watch=True)
    window.watcher.set_debounce_ms(100)
    qtbot.addWidget(window)
    assert window.watcher.running
    return window


def test_external_edit_appears_and_selection_is_kept(
    ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtbot: Any
) -> None:
    window = _live_window(ctx, qtbot)
    try:
        tab = window.tabs["workspace"]
        alpha = sample["alpha"]
        assert tab.select_workspace(alpha.key)
        assert tab.select_record("code-style")
        other = open_store(ctx.root)  # another program writing the same root
        snap = other.read_workspace(alpha.key)
        other.commit(
            alpha.key,
            [PutOp(record=record("code-style", "Edited by an agent", "feedback")), PutOp(record=record("new-fact"))],
            snap.revision,
        )

        def shows_agent_edit() -> bool:
            names = [tab.rec_proxy.index(r, 0).data(KEY_ROLE) for r in range(tab.rec_proxy.rowCount())]
            return "new-fact" in names and tab.desc_edit.text() == "Edited by an agent"

        qtbot.waitUntil(shows_agent_edit, timeout=10000)
        assert tab.rec_view.currentIndex().data(KEY_ROLE) == "code-style"
        assert tab.current_key == alpha.key
    finally:
        window.shutdown()
    assert not window.watcher.running


def test_external_edit_warns_instead_of_overwriting_unsaved_global(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global("# User Profile\n", ctx.store.read_global().revision)
    window = _live_window(ctx, qtbot)
    try:
        glob = window.tabs["global"]
        assert glob.editor.toPlainText() == "# User Profile\n"
        glob.editor.setPlainText("# User Profile\n\nMy unsaved draft.\n")
        other = open_store(ctx.root)
        other.replace_global("# User Profile\n\nFrom an agent.\n", other.read_global().revision)
        qtbot.waitUntil(lambda: glob.banner.level == "warning", timeout=10000)
        assert "changed on disk" in glob.banner.text
        assert glob.editor.toPlainText() == "# User Profile\n\nMy unsaved draft.\n"
    finally:
        window.shutdown()


def test_external_global_edit_reloads_clean_editor(ctx: AppContext, qtbot: Any) -> None:
    window = _live_window(ctx, qtbot)
    try:
        glob = window.tabs["global"]
        other = open_store(ctx.root)
        other.replace_global("# Written elsewhere\n", other.read_global().revision)
        qtbot.waitUntil(lambda: glob.editor.toPlainText() == "# Written elsewhere\n", timeout=10000)
        qtbot.waitUntil(lambda: "Written elsewhere" in glob.preview.toPlainText(), timeout=3000)
    finally:
        window.shutdown()


def test_first_workspace_created_elsewhere_appears(ctx: AppContext, qtbot: Any, tmp_path: Path) -> None:
    window = _live_window(ctx, qtbot)  # empty root: workspaces/ does not exist yet
    try:
        tab = window.tabs["workspace"]
        assert tab.ws_model.rowCount() == 0
        project = tmp_path / "fresh"
        project.mkdir()
        other = open_store(ctx.root)
        snap = other.create_workspace(str(project))
        qtbot.waitUntil(lambda: tab.ws_model.rowCount() == 1, timeout=10000)
        other.commit(snap.key, [PutOp(record=record("first-fact"))], other.read_workspace(snap.key).revision)
        qtbot.waitUntil(lambda: tab.rec_model.row_of("first-fact") >= 0, timeout=10000)
        assert tab.current_key == snap.key
    finally:
        window.shutdown()


def test_external_edit_never_overwrites_record_being_edited(
    ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtbot: Any
) -> None:
    window = _live_window(ctx, qtbot)
    try:
        tab = window.tabs["workspace"]
        alpha = sample["alpha"]
        assert tab.select_workspace(alpha.key) and tab.select_record("code-style")
        tab.desc_edit.setText("My unstaged edit")
        other = open_store(ctx.root)
        other.commit(
            alpha.key,
            [PutOp(record=record("code-style", "Edited by an agent", "feedback"))],
            other.read_workspace(alpha.key).revision,
        )
        qtbot.waitUntil(lambda: tab.ws_banner.level == "warning", timeout=10000)
        assert "changed on disk" in tab.ws_banner.text
        assert tab.desc_edit.text() == "My unstaged edit"  # kept, not overwritten
        assert tab.has_unsaved_changes()
        tab.ws_banner.button("Reload and re-review").click()  # adopt disk, keep the edit
        assert tab.snapshot is not None
        entry = tab.snapshot.get("code-style")
        assert entry is not None and entry.record is not None
        assert entry.record.description == "Edited by an agent"
        assert tab.desc_edit.text() == "My unstaged edit"
        assert tab.stage_current()
        tab.commit()  # commits against the revision it was re-reviewed on: no conflict
        assert not tab.staged
    finally:
        window.shutdown()
    final = ctx.store.read_workspace(sample["alpha"].key).get("code-style")
    assert final is not None and final.record is not None and final.record.description == "My unstaged edit"


def test_file_saved_in_place_by_a_text_editor_appears(
    ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtbot: Any
) -> None:
    """Not every writer renames a temp file into place: an editor may rewrite the file itself."""
    window = _live_window(ctx, qtbot)
    try:
        tab = window.tabs["workspace"]
        alpha = sample["alpha"]
        assert tab.select_workspace(alpha.key) and tab.select_record("code-style")
        path = ctx.root / "workspaces" / alpha.key / "code-style.md"
        text = path.read_text(encoding="utf-8").replace("Prefer small functions", "Prefer tiny functions")
        with path.open("r+", encoding="utf-8") as f:  # truncate and rewrite the same inode
            f.seek(0)
            f.write(text)
            f.truncate()
        qtbot.waitUntil(lambda: tab.desc_edit.text() == "Prefer tiny functions", timeout=10000)
        assert tab.rec_view.currentIndex().data(KEY_ROLE) == "code-style"
    finally:
        window.shutdown()


def test_workspace_archived_elsewhere_leaves_the_list(
    ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtbot: Any
) -> None:
    window = _live_window(ctx, qtbot)
    try:
        tab = window.tabs["workspace"]
        beta = sample["beta"]
        assert tab.ws_model.row_of(beta.key) >= 0
        open_store(ctx.root).recycle.archive(beta.key)
        qtbot.waitUntil(lambda: tab.ws_model.row_of(beta.key) < 0, timeout=10000)
        qtbot.waitUntil(lambda: window.last_status is not None and window.last_status.archived_count == 1, timeout=5000)
        assert "1 archived" in window.status_bar.summary()
    finally:
        window.shutdown()


def test_root_created_after_start_gets_watched(ctx: AppContext, qtbot: Any, tmp_path: Path) -> None:
    """No memory yet (the demo declined): the first save creates the root; the window notices."""
    root = tmp_path / "not-yet"
    ctx.root = root
    ctx.store = open_store(root)
    window = MainWindow(ctx, watch=True)
    qtbot.addWidget(window)
    try:
        assert not window.watcher.running and window.root_poll.isActive()
        window.root_poll.setInterval(50)
        glob = window.tabs["global"]
        glob.editor.setPlainText("# User Profile\n\nFirst words.\n")
        glob.save()
        assert (root / "GLOBAL.md").is_file()
        qtbot.waitUntil(lambda: window.watcher.running, timeout=5000)
        assert not window.root_poll.isActive()
        assert window.last_status is not None and window.last_status.total_bytes > 0
        other = open_store(root)  # and from now on changes by others show up
        other.replace_global("# User Profile\n\nFrom an agent.\n", other.read_global().revision)
        window.watcher.set_debounce_ms(50)
        qtbot.waitUntil(lambda: "From an agent" in glob.editor.toPlainText(), timeout=10000)
    finally:
        window.shutdown()
    assert not window.root_poll.isActive()


def test_changes_made_during_the_first_load_are_caught_up(
    ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtbot: Any
) -> None:
    """The watcher starts after the first load; a write that landed in between still shows up."""
    alpha = sample["alpha"]
    window = MainWindow(ctx, watch=False)  # built and loaded, not watching yet
    qtbot.addWidget(window)
    try:
        tab = window.tabs["workspace"]
        assert tab.select_workspace(alpha.key)
        other = open_store(ctx.root)
        other.commit(alpha.key, [PutOp(record=record("written-meanwhile"))], other.read_workspace(alpha.key).revision)
        assert tab.rec_model.row_of("written-meanwhile") < 0
        window.watcher.set_debounce_ms(50)
        window._watch = True
        window.refresh_status()  # the first status line starts the watcher, which catches up once
        assert window.watcher.running
        qtbot.waitUntil(lambda: tab.rec_model.row_of("written-meanwhile") >= 0, timeout=5000)
    finally:
        window.shutdown()


def test_watcher_reports_the_workspaces_whose_files_changed(tmp_path: Path, qtbot: Any) -> None:
    watcher = RootWatcher(tmp_path, debounce_ms=50)
    handler = _Handler(watcher)
    reported: list[set[str]] = []
    watcher.scopes_changed.connect(reported.append)
    handler.on_any_event(FileModifiedEvent(str(tmp_path / "workspaces" / "k1" / "a.md")))
    handler.on_any_event(FileMovedEvent(str(tmp_path / "archived" / "k2"), str(tmp_path / "workspaces" / "k2")))
    handler.on_any_event(FileModifiedEvent(str(tmp_path / "GLOBAL.md")))
    handler.on_any_event(FileModifiedEvent(str(tmp_path / ".manager" / "journal" / "x")))
    qtbot.waitUntil(lambda: reported == [{"k1", "k2"}], timeout=3000)
    handler.on_any_event(FileModifiedEvent(str(tmp_path / "GLOBAL.md")))
    qtbot.waitUntil(lambda: len(reported) == 2, timeout=3000)
    assert reported[1] == set()  # only Global: no workspace to look at
    watcher.stop()


def test_search_finds_a_record_rewritten_in_place_by_another_program(
    ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtbot: Any
) -> None:
    """The folder's mtime stays the same; the watcher's note makes the index look at its files."""
    import time

    from core.search import SearchIndex
    from tests.core.search.search_support import age_files, set_mtime

    age_files(ctx.root / "workspaces")  # written a while ago: folder stamps are trusted
    ctx.search = SearchIndex(ctx.store, cache_dir=False)
    window = _live_window(ctx, qtbot)
    try:
        tab = window.tabs["workspace"]
        tab.search_box.setText("code")
        tab.run_search_now()
        qtbot.waitUntil(lambda: any(h.name == "code-style" for h in tab.last_search_hits), timeout=10000)
        folder = ctx.root / "workspaces" / sample["alpha"].key
        path = folder / "code-style.md"
        before = folder.stat()
        with path.open("r+", encoding="utf-8") as f:  # in place: no rename, folder mtime kept
            text = f.read().replace("description:", "description: zanzibarish", 1)
            f.seek(0)
            f.write(text)
            f.truncate()
        set_mtime(path, time.time() - 1800)  # out of the racy window: only a look at the file finds it
        assert folder.stat().st_mtime_ns == before.st_mtime_ns
        tab.search_box.setText("zanzibarish")
        qtbot.waitUntil(lambda: ctx.search is not None and ctx.search.watched, timeout=10000)

        def found() -> bool:
            tab.run_search_now()
            return any(h.name == "code-style" for h in tab.last_search_hits)

        qtbot.waitUntil(found, timeout=10000)
    finally:
        window.shutdown()
