"""Issue 28 in the window: Recycle Bin ▸ "Moved? Pick the new folder…", Settings ▸ Sync with its
review, and the status-bar badge — real stores, a real bare git remote in a temp dir, offscreen Qt."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from core.keys import workspace_key
from core.models import PutOp
from core.store.fs import FileStore
from core.sync import engine
from gui.context import AppContext
from gui.sync_badge import SyncBadge
from gui.tabs.recycle_moved import MissingFoldersPanel
from gui.tabs.settings.sync_page import SyncPanel
from tests.core.sync.helpers import git_env
from tests.gui.conftest import record, seed_workspace


def test_moved_pick_the_new_folder_merges_after_review(ctx: AppContext, qtbot: Any, tmp_path: Path) -> None:
    old = tmp_path / "code" / "shop"
    old.mkdir(parents=True)
    moved = seed_workspace(ctx.store, old, [record("alpha", body="\nmoved alpha\n"), record("beta")])
    old.rmdir()  # the user renamed the folder
    new = tmp_path / "code" / "shop-app"
    new.mkdir()
    target = seed_workspace(ctx.store, new, [record("alpha", body="\nexisting alpha\n")])
    panel = MissingFoldersPanel(ctx)
    qtbot.addWidget(panel)
    panel.search_roots = [tmp_path / "code"]
    panel.refresh()
    assert panel.isVisibleTo(None) or panel.list.count() == 1
    assert panel.infos[0].key == moved.key and panel.moved_button.isEnabled()
    panel.open_move()
    dialog = panel.dialog
    assert dialog is not None
    assert [c.path for c in dialog.candidates] == [str(new)], dialog.looking.text()
    dialog.continue_with_selected()
    assert dialog.pages.currentIndex() == 1
    assert not dialog.move_button.isEnabled()  # the record in both needs a choice first
    item = dialog.merge.current_item()
    assert item is not None and "existing alpha" in (item.mine or "") and "moved alpha" in (item.theirs or "")
    dialog.merge.take_button.click()
    assert dialog.move_button.isEnabled()
    with qtbot.waitSignal(panel.moved, timeout=5000):
        dialog.move_button.click()
    snap = ctx.store.read_workspace(target.key)
    bodies = {e.name: e.record.body for e in snap.entries if e.record}
    assert bodies == {"alpha": "\nmoved alpha\n", "beta": "\nThe fact about beta.\n"}
    assert panel.list.count() == 0  # nothing missing any more
    assert any(i.key == moved.key for i in ctx.store.list_workspaces(archived=True))


@pytest.fixture
def git_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = git_env(tmp_path)
    for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT"):
        monkeypatch.setenv(k, env[k])
    return env


def test_sync_now_and_the_sync_review(ctx: AppContext, qtbot: Any, tmp_path: Path, git_home: dict[str, str]) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=git_home, check=True)
    key = seed_workspace(ctx.store, "/srv/shop", [record("alpha", body="\nbase\n")]).key
    panel = SyncPanel(ctx)
    qtbot.addWidget(panel)
    badge = SyncBadge(ctx)
    qtbot.addWidget(badge)
    badge.refresh()
    assert not badge.isVisibleTo(None) and badge.text() == ""  # not set up: no badge
    panel.refresh()
    assert "not set up" in panel.status.text()
    panel.remote_edit.setText(str(remote))
    panel.sync_now()
    assert "sent" in panel.status.text(), panel.status.text()
    # The other machine edits the same record; so does this one.
    other = FileStore(tmp_path / "other")
    engine.run_sync(other, str(remote))
    other.commit(key, [PutOp(record=record("alpha", body="\ntheirs\n"))], None)
    engine.run_sync(other, str(remote))
    ctx.store.commit(key, [PutOp(record=record("alpha", body="\nmine\n"))], None)
    panel.sync_now()
    assert panel.review_box.isVisibleTo(panel) and panel.merge.open_count() == 1
    assert "review" in panel.status.text()
    badge.refresh()
    assert "1" in badge.text()
    panel.merge.take_button.click()
    assert ctx.store.read_workspace(key).get("alpha").record.body == "\ntheirs\n"  # type: ignore[union-attr]
    assert panel.merge.open_count() == 0
    panel.sync_now()
    assert not panel.review_box.isVisibleTo(panel)
    badge.refresh()
    assert badge.text() == "Sync: ✓"
    assert workspace_key("/srv/shop") == key


def test_the_sync_review_is_a_tab_of_session_consolidation(
    ctx: AppContext, qtbot: Any, tmp_path: Path, git_home: dict[str, str]
) -> None:
    from gui.tabs.consolidation import ConsolidationTab

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=git_home, check=True)
    key = seed_workspace(ctx.store, "/srv/shop", [record("alpha", body="\nbase\n")]).key
    other = FileStore(tmp_path / "other")
    engine.run_sync(ctx.store, str(remote))
    engine.run_sync(other, str(remote))
    other.commit(key, [PutOp(record=record("alpha", body="\ntheirs\n"))], None)
    engine.run_sync(other, str(remote))
    ctx.store.commit(key, [PutOp(record=record("alpha", body="\nmine\n"))], None)
    assert engine.run_sync(ctx.store, str(remote)).status == "review"
    tab = ConsolidationTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    titles = [tab.review_panel.tabText(i) for i in range(tab.review_panel.count())]
    assert "Sync review" in titles
    assert tab.sync_review.open_count() == 1
    with qtbot.waitSignal(tab.memory_changed, timeout=5000):
        tab.sync_review.merge.keep_button.click()
    assert tab.sync_review.open_count() == 0
    assert engine.run_sync(ctx.store, str(remote)).ok


def test_purge_of_a_synced_workspace_says_synced_history_is_rewritten(
    ctx: AppContext, qtbot: Any, tmp_path: Path, git_home: dict[str, str]
) -> None:
    from gui.dialogs import ScriptedDialogs
    from gui.tabs.recycle_tab import RecycleBinTab

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=git_home, check=True)
    snap = seed_workspace(ctx.store, "/srv/hush", [record("alpha", body="\nPURGE-ME-41\n")])
    assert engine.run_sync(ctx.store, str(remote)).ok
    ctx.store.recycle.archive(snap.key)
    tab = RecycleBinTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    assert tab.select_workspace(snap.key)
    dialogs = ctx.dialogs
    assert isinstance(dialogs, ScriptedDialogs)
    dialogs.push("hush")
    with qtbot.waitSignal(tab.memory_changed, timeout=10000):
        tab.purge_button.click()
    question = dialogs.asked[-1][2]
    assert "Synced history will be rewritten" in question and "other machines must sync" in question
    repo = ctx.store.root / ".manager" / "sync" / "repo.git"  # type: ignore[operator]
    objects = subprocess.run(
        ["git", f"--git-dir={repo}", "cat-file", "--batch-all-objects", "--batch"], capture_output=True, check=True
    ).stdout
    assert b"PURGE-ME-41" not in objects


def test_sync_results_and_failures_are_said_in_chinese(qapp: Any, tmp_path: Path) -> None:
    """Core's sync messages are templates (core/messages.py): the window says them in the user's language."""
    from gui.i18n import install_translators, remove_translators
    from gui.tabs.settings.sync_text import result_details

    failed = engine.SyncResult(
        status="remote", time="2026-01-01T00:00:00+00:00", remote="/nowhere",
        message=engine.msg.REMOTE_UNREACHABLE.format(url="/nowhere", detail="fatal: '/nowhere' does not exist"),
        frozen={"workspaces/k/x.md": engine.msg.FROZEN_NOT_UTF8.format()},
        held={"GLOBAL.md": engine.msg.HELD_GLOBAL_DELETED.format()},
        purged=["k"],
    )
    translators = install_translators(qapp, "zh_CN")
    try:
        text = result_details(failed)
    finally:
        remove_translators(qapp, translators)
    assert "无法连接同步远端 /nowhere：fatal: '/nowhere' does not exist" in text  # git's own words kept
    assert "不是有效的 UTF-8" in text and "GLOBAL.md 在另一台机器上被删除" in text
    assert "已在另一台机器上永久删除：1 个工作区" in text
    assert "Could not reach" not in text and "not valid UTF-8" not in text


def test_the_workspace_tab_folder_missing_banner_offers_moved_pick_the_new_folder(
    ctx: AppContext, qtbot: Any, tmp_path: Path
) -> None:
    from gui.tabs.workspace import WorkspaceTab

    old = tmp_path / "code" / "shop"
    old.mkdir(parents=True)
    moved = seed_workspace(ctx.store, old, [record("alpha", body="\nmoved alpha\n"), record("beta")])
    old.rmdir()  # renamed to shop-app
    new = tmp_path / "code" / "shop-app"
    new.mkdir()
    target = seed_workspace(ctx.store, new, [record("alpha", body="\nexisting alpha\n")])
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    tab.moved.search_roots = [tmp_path / "code"]
    tab.refresh()
    assert tab.select_workspace(moved.key)
    assert tab.ws_banner.level == "error" and "no longer exists" in tab.ws_banner.text
    button = tab.ws_banner.button("Moved? Pick the new folder…")
    assert button is not None and tab.ws_banner.button("Archive workspace…") is not None
    button.click()
    dialog = tab.moved.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: bool(dialog.candidates), timeout=5000)
    assert [c.path for c in dialog.candidates] == [str(new)]  # found by folder name
    dialog.continue_with_selected()
    assert not dialog.move_button.isEnabled()  # alpha is in both: the user chooses first
    dialog.merge.take_button.click()
    dialog.move_button.click()
    qtbot.waitUntil(lambda: tab.current_key == target.key, timeout=5000)
    bodies = {e.name: e.record.body for e in ctx.store.read_workspace(target.key).entries if e.record}
    assert bodies == {"alpha": "\nmoved alpha\n", "beta": "\nThe fact about beta.\n"}
    assert any(i.key == moved.key for i in ctx.store.list_workspaces(archived=True))
    assert "old copy is in the Recycle Bin" in tab.banner.text
