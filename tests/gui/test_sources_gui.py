"""Other memory stores in the window (issue 12): the sources list in Settings, other stores' entries
beside a workspace's records, "include other stores" in search, and workspace memory in the
Recycle Bin. The stores are the fixture stores of tests/core/sources, in a tmp HOME/DSH_HOME."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from core.search import SearchIndex
from core.sources.workspace_memory import scope_key
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.qtmodels.sources_models import ForeignEntriesModel, SourcesModel
from gui.tabs.recycle_tab import RecycleBinTab
from gui.tabs.settings import SettingsTab
from gui.tabs.workspace import WorkspaceTab
from gui.tasks import SyncTaskRunner
from tests.core.sources.sources_support import World, build_world, tree_state
from tests.gui.conftest import open_store


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = build_world(tmp_path)
    monkeypatch.setenv("HOME", str(w.home))
    monkeypatch.setenv("DSH_HOME", str(w.dsh_home))
    return w


@pytest.fixture
def wctx(world: World, dialogs: ScriptedDialogs) -> AppContext:
    store = open_store(world.root)
    store.create_workspace(world.alpha)
    return AppContext(
        store=store,
        runner=SyncTaskRunner(),
        dialogs=dialogs,
        root=world.root,
        sessions_root=world.dsh_home / "sessions",
        dsh_home=world.dsh_home,
        search=None,
    )


def _rows(model: Any) -> list[list[str]]:
    return [[str(model.data(model.index(r, c))) for c in range(model.columnCount())] for r in range(model.rowCount())]


def test_settings_lists_every_store_with_counts_and_problems(
    wctx: AppContext, world: World, qtbot: Any, qtmodeltester: Any
) -> None:
    tab = SettingsTab(wctx)
    qtbot.addWidget(tab)
    tab.refresh()
    panel = tab.sources
    qtmodeltester.check(panel.model)
    rows = {r[SourcesModel.STORE]: r for r in _rows(panel.model)}
    wm = rows["DSH workspace memory"]
    assert wm[SourcesModel.PATH] == str(world.wm_root)
    assert int(wm[SourcesModel.SCOPES]) >= 3 and int(wm[SourcesModel.ENTRIES]) >= 10
    assert "error" in wm[SourcesModel.PROBLEMS]  # the scope whose entries are not JSON
    assert {"DSH Markdown memory (this app)", "Claude Code memory", "DSH project memory"} <= set(rows)
    row = next(i for i in range(panel.model.rowCount()) if panel.model.source(i).kind == "workspace-memory")
    panel.view.selectRow(row)
    text = panel.problems.toPlainText()
    assert "[error]" in text and "memory_entries.json" in text and "never rewrites" in text
    assert "found" in panel.status.text()


def test_foreign_entries_shown_beside_a_workspace_with_every_status(
    wctx: AppContext, world: World, qtbot: Any, qtmodeltester: Any
) -> None:
    before = world.foreign_state()
    tab = WorkspaceTab(wctx)
    qtbot.addWidget(tab)
    tab.refresh()
    key = next(i.key for i in wctx.store.list_workspaces() if i.cwd == world.alpha)
    assert tab.select_workspace(key)
    panel = tab.foreign
    tab.detail.setCurrentWidget(panel)  # the other stores are read when their page is shown
    qtmodeltester.check(panel.model)
    rows = _rows(panel.model)
    stores = {r[ForeignEntriesModel.STORE] for r in rows}
    assert {"DSH workspace memory", "DSH cross-workspace notes", "DSH project memory", "Claude Code memory"} <= stores
    statuses = " ".join(r[ForeignEntriesModel.STATUS] for r in rows)
    assert "superseded" in statuses and "conflict" in statuses and "deleted" in statuses
    titles = [r[ForeignEntriesModel.TITLE] for r in rows]
    assert "Use pnpm" in titles and "Old port" in titles  # the superseded entry is a row, not hidden
    index = tab.detail.indexOf(panel)
    assert tab.detail.tabText(index) == f"Other stores ({len(rows)})"
    panel.view.selectRow(titles.index("Old port"))
    detail = panel.detail.toPlainText()
    assert "superseded" in detail and "DSH workspace memory (read-only here)" in detail
    # Another workspace: the table follows it (the Chinese one has no entries of alpha's).
    other = next(i.key for i in wctx.store.list_workspaces() if i.cwd != world.alpha)
    assert tab.select_workspace(other)
    assert "Use pnpm" not in [r[ForeignEntriesModel.TITLE] for r in _rows(panel.model)]
    assert world.foreign_state() == before  # read-only


def test_other_stores_are_read_only_when_their_page_is_shown(
    wctx: AppContext, world: World, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Start-up and every refresh leave other stores unread until the user opens their page (issue 15)."""
    import gui.tabs.workspace.foreign_panel as foreign_panel

    reads: list[object] = []
    real = foreign_panel.discover_sources
    monkeypatch.setattr(foreign_panel, "discover_sources", lambda *a: reads.append(a) or real(*a))
    tab = WorkspaceTab(wctx)
    qtbot.addWidget(tab)
    tab.refresh()
    key = next(i.key for i in wctx.store.list_workspaces() if i.cwd == world.alpha)
    assert tab.select_workspace(key)
    tab.refresh()
    panel = tab.foreign
    assert reads == [] and panel.model.rowCount() == 0
    assert tab.detail.tabText(tab.detail.indexOf(panel)) == "Other stores"
    tab.detail.setCurrentWidget(panel)
    assert len(reads) == 1 and panel.model.rowCount() > 0
    assert tab.detail.tabText(tab.detail.indexOf(panel)) == f"Other stores ({panel.model.rowCount()})"
    tab.refresh()  # shown: a refresh reads them again
    assert len(reads) == 2
    tab.detail.setCurrentIndex(0)
    tab.refresh()  # hidden again: only marked stale, read when shown next
    assert len(reads) == 2
    tab.detail.setCurrentWidget(panel)
    assert len(reads) == 3


def test_search_includes_other_stores_only_when_asked(wctx: AppContext, world: World, qtbot: Any) -> None:
    wctx.search = SearchIndex(wctx.store)
    tab = WorkspaceTab(wctx)
    qtbot.addWidget(tab)
    tab.refresh()
    box = tab.search.include_others
    assert not box.isChecked()  # off by default
    tab.search_box.setText("pnpm")
    tab.run_search_now()
    assert all(h.foreign is None for h in tab.last_search_hits)
    box.setChecked(True)
    tab.run_search_now()
    foreign = [h for h in tab.last_search_hits if h.foreign is not None]
    assert foreign and foreign[0].name == "Use pnpm" and foreign[0].where == "DSH workspace memory"
    shown = tab.search.model.data(tab.search.model.index(tab.last_search_hits.index(foreign[0]), 0))
    assert "DSH workspace memory" in shown
    tab.search_box.setText("port")
    tab.run_search_now()
    old = next(h for h in tab.last_search_hits if h.foreign is not None and h.name == "Old port")
    assert "superseded" in old.where  # labelled, not hidden
    row = tab.last_search_hits.index(old)
    tab.search.view.clicked.emit(tab.search.model.index(row, 0))
    assert tab.detail.currentWidget() is tab.foreign
    assert "The dev server runs on port 3000." in tab.foreign.detail.toPlainText()


def _bin_tab(ctx: AppContext, qtbot: Any) -> RecycleBinTab:
    tab = RecycleBinTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    return tab


def _select(tab: RecycleBinTab, cwd: str, archived: bool) -> None:
    panel = tab.wm_panel
    row = panel.model.row_of(scope_key(cwd), archived)
    assert row >= 0
    panel.view.selectRow(row)


def test_recycle_bin_lists_and_restores_workspace_memory(
    wctx: AppContext, world: World, qtbot: Any, qtmodeltester: Any
) -> None:
    tab = _bin_tab(wctx, qtbot)
    panel = tab.wm_panel
    qtmodeltester.check(panel.model)
    labels = [r[0] for r in _rows(panel.model)]
    assert "gone (DSH workspace memory)" in labels and "vanished (DSH workspace memory)" in labels
    assert "1 archived scope" in panel.note.text() and "folder is gone" in panel.note.text()
    _select(tab, world.gone, archived=True)
    assert "Gone fact" in tab.preview.toPlainText()
    assert panel.restore_button.isEnabled() and panel.purge_button.isEnabled()
    assert not panel.archive_button.isEnabled()
    assert not tab.restore_button.isEnabled()  # our Restore never acts on the other store's row
    panel.restore_button.click()
    key = scope_key(world.gone)
    assert (world.wm_root / "scopes" / key / "scope.json").is_file()
    assert not (world.wm_root / "archived" / key).exists()
    assert tab.banner.level == "ok" and "Restored the workspace memory of “gone”" in tab.banner.text


def test_restore_refused_when_that_store_has_an_active_scope(wctx: AppContext, world: World, qtbot: Any) -> None:
    tab = _bin_tab(wctx, qtbot)
    _select(tab, world.gone, archived=True)
    active = world.wm_root / "scopes" / scope_key(world.gone)
    active.mkdir()  # DSH started writing to that folder's memory again
    before = tree_state(world.wm_root)
    tab.wm_panel.restore_button.click()
    assert tab.banner.level == "error" and "active scope" in tab.banner.text and "Nothing was moved" in tab.banner.text
    assert tree_state(world.wm_root) == before


def test_purge_needs_the_folder_name_typed(
    wctx: AppContext, world: World, dialogs: ScriptedDialogs, qtbot: Any
) -> None:
    tab = _bin_tab(wctx, qtbot)
    _select(tab, world.gone, archived=True)
    archived = world.wm_root / "archived" / scope_key(world.gone)
    dialogs.push("Gone")
    tab.wm_panel.purge_button.click()
    assert archived.is_dir() and "Nothing was deleted" in tab.banner.text
    assert "type “gone” exactly" in tab.banner.text
    _select(tab, world.gone, archived=True)
    dialogs.push("gone")
    tab.wm_panel.purge_button.click()
    assert not archived.exists()
    assert tab.banner.level == "ok" and "Purged" in tab.banner.text
    assert tab.wm_panel.model.row_of(scope_key(world.gone), True) < 0


def test_stale_scope_archived_after_confirming_and_interrupted_purge_noted(
    wctx: AppContext, world: World, dialogs: ScriptedDialogs, qtbot: Any
) -> None:
    leftover = world.wm_root / ".dsh-memory-purge" / "ws-x-1234"
    leftover.mkdir(parents=True)
    tab = _bin_tab(wctx, qtbot)
    assert "interrupted purge" in tab.wm_panel.note.text()
    vanished = str(Path(world.alpha).parent / "vanished")
    _select(tab, vanished, archived=False)
    assert tab.wm_panel.archive_button.isEnabled() and not tab.wm_panel.restore_button.isEnabled()
    dialogs.push(False)
    tab.wm_panel.archive_button.click()
    assert (world.wm_root / "scopes" / scope_key(vanished)).is_dir()
    dialogs.push(True)
    tab.wm_panel.archive_button.click()
    assert (world.wm_root / "archived" / scope_key(vanished)).is_dir()
    assert not (world.wm_root / "scopes" / scope_key(vanished)).exists()
    assert tab.wm_panel.model.row_of(scope_key(vanished), True) >= 0


def test_no_workspace_memory_means_an_empty_bin_section(ctx: AppContext, qtbot: Any) -> None:
    tab = _bin_tab(ctx, qtbot)
    assert tab.wm_panel.model.rowCount() == 0
    assert "0 archived scopes" in tab.wm_panel.note.text()
    assert not os.path.exists(ctx.dsh_home / "workspace-memory")  # looking created nothing


def test_agent_proposal_files_count_as_pending(tmp_path: Path) -> None:
    from gui.watcher import is_interesting

    root = tmp_path / "memory"
    assert is_interesting(root, str(root / ".manager" / "agent-proposals" / "p1.json"))
    assert is_interesting(root, str(root / ".manager" / "review-state" / "r1.json"))
    assert not is_interesting(root, str(root / ".manager" / "locks" / "x.lock"))
    assert not is_interesting(root, str(root / ".manager" / "journal" / "agent-proposals"))
