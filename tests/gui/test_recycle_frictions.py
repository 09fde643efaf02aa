"""Recycle Bin frictions a new user hit (issue 14): the purge dialog, purged history, restored
records still listed as deleted, folder paths cut at their distinguishing end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from core.models import DeleteOp, WorkspaceSnapshot
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.qtmodels.recycle_models import ArchivedWorkspacesModel
from gui.tabs.recycle_purge import TEXT_WIDTH, PurgeDialog, PurgeQuestion
from gui.tabs.recycle_tab import RecycleBinTab
from tests.gui.conftest import record, seed_workspace


@pytest.fixture
def tab(ctx: AppContext, qtbot: Any) -> RecycleBinTab:
    widget = RecycleBinTab(ctx)
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    return widget


def _seed(ctx: AppContext, folder: Path) -> WorkspaceSnapshot:
    folder.mkdir(parents=True)
    return seed_workspace(
        ctx.store,
        folder,
        [record("build-steps", "How to build", "project", "\nRun make.\n"), record("packaging", "Packaging")],
    )


def test_purge_dialog_deletes_only_for_the_exact_name_and_stays_open_on_a_typo(qtbot: Any) -> None:
    question = PurgeQuestion("alpha", "/home/me/projects/alpha", 2, 3, "alpha")
    dialog = PurgeDialog(question)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)

    # Wrapped text, not a window-wide line; it says what else goes, with the count.
    assert dialog.text_label.wordWrap() and dialog.width() < TEXT_WIDTH + 100
    assert "3 earlier deleted record" in dialog.text_label.text()
    assert dialog.delete_button.text() == "Delete forever"
    assert not dialog.delete_button.isEnabled()

    qtbot.keyClicks(dialog.name_edit, "Alpha")  # case matters
    assert not dialog.delete_button.isEnabled()
    assert "type “alpha” exactly" in dialog.mismatch_label.text()
    qtbot.keyClick(dialog.name_edit, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.result() == 0  # a typo keeps it open

    dialog.name_edit.clear()
    qtbot.keyClicks(dialog.name_edit, "alpha")
    assert dialog.delete_button.isEnabled() and dialog.mismatch_label.text() == ""
    dialog.delete_button.click()
    assert not dialog.isVisible() and dialog.result() == PurgeDialog.DialogCode.Accepted
    assert dialog.typed() == "alpha"


def test_purge_says_it_deletes_the_history_of_records_deleted_earlier(
    ctx: AppContext, tab: RecycleBinTab, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    snap = _seed(ctx, tmp_path / "projects" / "alpha")
    snap = ctx.store.commit(snap.key, [DeleteOp(name="build-steps")], snap.revision)
    ctx.store.recycle.archive(snap.key, snap.revision)
    tab.refresh()
    assert tab.select_workspace(snap.key)

    dialogs.push(None)
    tab.purge_button.click()
    _kind, title, question = dialogs.asked[-1]
    assert title == "Delete archived workspace forever"
    assert "its record." in question and "1 earlier deleted record" in question
    assert len(ctx.store.history.entries(snap.key)) == 1  # cancelled: nothing went

    dialogs.push("alpha")
    tab.purge_button.click()
    assert ctx.store.history.entries(snap.key) == []  # the dialog told the truth: the history went too
    assert tab.deleted_model.rowCount() == 0


def test_a_restored_record_leaves_the_deleted_list_and_a_second_restore_asks_nothing(
    ctx: AppContext, tab: RecycleBinTab, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    snap = _seed(ctx, tmp_path / "projects" / "alpha")
    ctx.store.commit(snap.key, [DeleteOp(name="build-steps")], snap.revision)
    tab.refresh()
    entry = next(e for e in ctx.store.history.entries() if e.reason == "delete")
    assert tab.select_entry(entry.id)
    assert tab.deleted_proxy.rowCount() == 1

    tab.restore_button.click()  # the record is gone from the workspace: nothing to ask
    assert tab.banner.level == "ok" and "Restored “build-steps”" in tab.banner.text
    assert tab.deleted_proxy.rowCount() == 0  # no longer listed as deleted
    assert "Nothing in the kept history" in tab.deleted_count_label.text()

    # Still reachable as an earlier version; restoring it again asks no "Replace record?".
    tab.show_versions_box.setChecked(True)
    assert tab.select_entry(entry.id)
    reason = tab.deleted_proxy.index(0, 3).data()
    assert reason == "Deleted, restored since"
    tab.restore_button.click()
    assert [a for a in dialogs.asked if a[0] == "confirm"] == []
    assert tab.banner.level == "info" and "already this version" in tab.banner.text


def test_the_folder_column_elides_in_the_middle_with_the_full_path_as_tooltip(
    ctx: AppContext, tab: RecycleBinTab, tmp_path: Path
) -> None:
    deep = tmp_path / "clients" / "a-very-long-client-name-for-the-contract" / "repositories" / "web-frontend"
    snap = _seed(ctx, deep)
    ctx.store.recycle.archive(snap.key, snap.revision)
    tab.refresh()
    assert tab.archived_view.textElideMode() == Qt.TextElideMode.ElideMiddle
    index = tab.archived_model.index(0, ArchivedWorkspacesModel.FOLDER)
    assert index.data() == str(deep)
    assert str(deep) in index.data(Qt.ItemDataRole.ToolTipRole)
