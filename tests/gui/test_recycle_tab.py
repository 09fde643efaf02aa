"""The Recycle Bin tab, driven as a user would: archive, preview, restore, purge, restore a record."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSortFilterProxyModel, Qt

from core.models import DeleteOp, HistoryEntry, PutOp, WorkspaceInfo, WorkspaceSnapshot
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.qtmodels.recycle_models import ArchivedWorkspacesModel, DeletedRecordsModel
from gui.qtmodels.roles import SORT_ROLE
from gui.tabs.recycle_tab import RecycleBinTab
from gui.tasks import ThreadPoolTaskRunner
from tests.gui.conftest import record, seed_workspace


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def tab(ctx: AppContext, qtbot: Any) -> RecycleBinTab:
    widget = RecycleBinTab(ctx)
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    return widget


def _seed_alpha(ctx: AppContext, tmp_path: Path) -> WorkspaceSnapshot:
    folder = tmp_path / "projects" / "alpha"
    folder.mkdir(parents=True)
    return seed_workspace(
        ctx.store,
        folder,
        [
            record("build-steps", "How to build alpha", "project", "\nRun make.\n"),
            record("packaging", "打包用了 electron-builder", "project", "\n打包很慢，因为要签名。\n"),
        ],
    )


def test_archived_workspace_appears_with_time_and_count_and_previews(
    ctx: AppContext, tab: RecycleBinTab, tmp_path: Path
) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    ctx.store.recycle.archive(snap.key, snap.revision)
    tab.refresh()

    model = tab.archived_model
    assert model.rowCount() == 1
    assert model.index(0, ArchivedWorkspacesModel.NAME).data() == "alpha"
    assert model.index(0, ArchivedWorkspacesModel.FOLDER).data() == str(tmp_path / "projects" / "alpha")
    assert model.index(0, ArchivedWorkspacesModel.RECORDS).data() == "2"
    archived_at = model.index(0, ArchivedWorkspacesModel.ARCHIVED).data()
    assert archived_at[:4].isdigit() and archived_at[4] == "-"  # absolute ISO date
    assert tab.archived_count_label.text() == "1 archived workspace"
    assert not tab.restore_button.isEnabled() and not tab.purge_button.isEnabled()

    assert tab.select_workspace(snap.key)
    text = tab.preview.toPlainText()
    assert "build-steps" in text and "How to build alpha" in text
    assert "packaging" in text and "打包用了 electron-builder" in text
    assert "alpha" in tab.preview_title.text()
    assert tab.restore_button.isEnabled() and tab.purge_button.isEnabled()
    assert tab.has_unsaved_changes() is False
    assert tab.error_text() is None


def test_restore_puts_the_workspace_back_byte_identical(ctx: AppContext, tab: RecycleBinTab, tmp_path: Path) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    folder = ctx.root / "workspaces" / snap.key
    (folder / "broken.md").write_bytes(b"---\nname: Broken Name\n---\nkept as is \xff\n")  # invalid stays too
    before = _files(folder)
    ctx.store.recycle.archive(snap.key, ctx.store.read_workspace(snap.key).revision)
    assert not folder.exists()
    tab.refresh()
    assert tab.select_workspace(snap.key)

    tab.restore_button.click()

    assert _files(folder) == before
    assert not (ctx.root / "archived" / snap.key).exists()
    assert tab.archived_model.rowCount() == 0
    assert tab.banner.level == "ok" and "Restored “alpha”" in tab.banner.text
    assert ctx.store.find_workspace(str(tmp_path / "projects" / "alpha")) is not None


def test_restore_conflicts_when_an_active_workspace_came_back(
    ctx: AppContext, tab: RecycleBinTab, tmp_path: Path
) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    ctx.store.recycle.archive(snap.key, snap.revision)
    archived_before = _files(ctx.root / "archived" / snap.key)
    tab.refresh()
    seed_workspace(ctx.store, tmp_path / "projects" / "alpha", [record("new-fact")])  # an agent wrote again
    assert tab.select_workspace(snap.key)

    tab.restore_button.click()

    assert tab.banner.level == "error"
    assert "exists again" in tab.banner.text and "Nothing was changed" in tab.banner.text
    assert _files(ctx.root / "archived" / snap.key) == archived_before
    assert tab.archived_model.rowCount() == 1


def test_purge_needs_the_exact_workspace_name(
    ctx: AppContext, tab: RecycleBinTab, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    ctx.store.recycle.archive(snap.key, snap.revision)
    archived = ctx.root / "archived" / snap.key
    before = _files(archived)
    tab.refresh()
    assert tab.select_workspace(snap.key)

    dialogs.push(None)  # dismissed
    tab.purge_button.click()
    assert _files(archived) == before
    assert tab.banner.level == "info" and "still in the Recycle Bin" in tab.banner.text

    dialogs.push("Alpha")  # wrong: case matters
    tab.purge_button.click()
    assert _files(archived) == before
    assert tab.banner.level == "error"
    assert "Nothing was deleted" in tab.banner.text and "“alpha”" in tab.banner.text
    kind, _title, question = dialogs.asked[-1]
    assert kind == "ask_text" and "alpha" in question and "cannot be undone" in question

    dialogs.push("alpha")
    tab.purge_button.click()
    assert not archived.exists()
    assert tab.archived_model.rowCount() == 0
    assert tab.banner.level == "ok" and "Deleted “alpha” forever" in tab.banner.text
    assert ctx.store.list_workspaces(archived=True) == []
    assert not tab.purge_button.isEnabled()


def test_purge_is_never_offered_for_global_or_a_record(ctx: AppContext, tab: RecycleBinTab, tmp_path: Path) -> None:
    ctx.store.replace_global("# User Profile\n\nold\n", ctx.store.read_global().revision)
    ctx.store.replace_global("# User Profile\n\nnew\n", ctx.store.read_global().revision)
    snap = _seed_alpha(ctx, tmp_path)
    ctx.store.commit(snap.key, [DeleteOp(name="build-steps")], snap.revision)
    tab.refresh()

    names = [tab.archived_model.index(r, 0).data() for r in range(tab.archived_model.rowCount())]
    assert names == []  # Global is never in the archived list
    entry = next(e for e in ctx.store.history.entries() if e.name == "build-steps")
    assert tab.select_entry(entry.id)
    assert tab.restore_button.isEnabled()
    assert not tab.purge_button.isEnabled()
    tab.purge_selected()  # even called directly, nothing is asked and nothing happens
    assert tab.banner.level == ""


def test_restore_a_deleted_record_from_history(ctx: AppContext, tab: RecycleBinTab, tmp_path: Path) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    path = ctx.root / "workspaces" / snap.key / "packaging.md"
    original = path.read_bytes()
    ctx.store.commit(snap.key, [DeleteOp(name="packaging")], snap.revision)
    assert not path.exists()
    tab.refresh()

    rows = [tab.deleted_proxy.index(r, 0).data() for r in range(tab.deleted_proxy.rowCount())]
    assert rows == ["packaging"]
    entry = next(e for e in ctx.store.history.entries() if e.name == "packaging" and e.reason == "delete")
    row = tab.deleted_model.row_of(entry.id)
    assert tab.deleted_model.index(row, DeletedRecordsModel.WORKSPACE).data() == "alpha"
    assert tab.deleted_model.index(row, DeletedRecordsModel.REASON).data() == "Deleted"
    assert tab.select_entry(entry.id)
    assert "打包很慢" in tab.preview.toPlainText()
    assert "packaging" in tab.preview_title.text()

    tab.restore_button.click()

    assert path.read_bytes() == original
    assert tab.banner.level == "ok" and "Restored “packaging”" in tab.banner.text
    current = ctx.store.read_workspace(snap.key)
    assert current.get("packaging") is not None
    assert "packaging" in current.index_text  # MEMORY.md rebuilt with it


def test_restoring_over_a_current_record_asks_and_uses_cas(
    ctx: AppContext, tab: RecycleBinTab, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    snap = ctx.store.commit(snap.key, [DeleteOp(name="build-steps")], snap.revision)
    snap = ctx.store.commit(snap.key, [PutOp(record=record("build-steps", "Rewritten"))], snap.revision)
    tab.refresh()
    entry = next(e for e in ctx.store.history.entries() if e.name == "build-steps" and e.reason == "delete")
    # The record exists again, so it is not listed as deleted; its old version is an earlier version.
    assert not tab.select_entry(entry.id)
    tab.show_versions_box.setChecked(True)
    assert tab.select_entry(entry.id)
    assert tab.restore_button.text() == "Restore this version"

    dialogs.push(False)  # "Replace?" -> no
    tab.restore_button.click()
    assert ctx.store.read_workspace(snap.key).revision == snap.revision
    assert dialogs.asked[-1][0] == "confirm" and "build-steps" in dialogs.asked[-1][2]

    class RacingDialogs(ScriptedDialogs):
        """Another writer commits while the user reads the question."""

        def confirm(self, parent: Any, title: str, text: str, ok_label: str = "OK") -> bool:
            current = ctx.store.read_workspace(snap.key)
            ctx.store.commit(snap.key, [PutOp(record=record("agent-fact"))], current.revision)
            return True

    ctx.dialogs = RacingDialogs()
    tab.restore_button.click()
    assert tab.banner.level == "error"
    assert "changed while you were deciding" in tab.banner.text and "Nothing was restored" in tab.banner.text
    now = ctx.store.read_workspace(snap.key)
    entry_now = now.get("build-steps")
    assert entry_now is not None and entry_now.record is not None
    assert entry_now.record.description == "Rewritten"
    assert now.get("agent-fact") is not None


def test_a_record_of_an_archived_workspace_needs_the_workspace_first(
    ctx: AppContext, tab: RecycleBinTab, tmp_path: Path
) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    snap = ctx.store.commit(snap.key, [DeleteOp(name="build-steps")], snap.revision)
    ctx.store.recycle.archive(snap.key, snap.revision)
    archived_before = _files(ctx.root / "archived" / snap.key)
    tab.refresh()
    entry = next(e for e in ctx.store.history.entries() if e.name == "build-steps")
    assert tab.select_entry(entry.id)

    tab.restore_button.click()

    assert tab.banner.level == "error"
    assert "itself in the Recycle Bin" in tab.banner.text and "Restore the workspace first" in tab.banner.text
    assert _files(ctx.root / "archived" / snap.key) == archived_before
    assert not (ctx.root / "workspaces" / snap.key).exists()


def test_filter_and_earlier_versions(ctx: AppContext, tab: RecycleBinTab, tmp_path: Path) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    snap = ctx.store.commit(snap.key, [PutOp(record=record("build-steps", "Edited"))], snap.revision)
    snap = ctx.store.commit(snap.key, [DeleteOp(name="packaging")], snap.revision)
    beta = tmp_path / "projects" / "项目-beta"
    beta.mkdir(parents=True)
    b = seed_workspace(ctx.store, beta, [record("release", "发布流程")])
    ctx.store.recycle.archive(b.key, b.revision)
    tab.refresh()

    assert tab.deleted_proxy.rowCount() == 1  # only the deleted record
    tab.show_versions_box.setChecked(True)
    assert tab.deleted_proxy.rowCount() == 2  # plus the earlier version of build-steps
    version = next(e for e in ctx.store.history.entries() if e.reason == "overwrite")
    assert tab.select_entry(version.id)
    assert tab.restore_button.text() == "Restore this version"

    tab.filter_edit.setText("项目")
    assert tab.archived_proxy.rowCount() == 1 and tab.deleted_proxy.rowCount() == 0
    tab.filter_edit.setText("packag")
    assert tab.archived_proxy.rowCount() == 0 and tab.deleted_proxy.rowCount() == 1
    tab.filter_edit.setText("")
    assert tab.archived_proxy.rowCount() == 1


def test_selection_is_kept_across_refresh(ctx: AppContext, tab: RecycleBinTab, tmp_path: Path) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    ctx.store.recycle.archive(snap.key, snap.revision)
    tab.refresh()
    assert tab.select_workspace(snap.key)
    other = tmp_path / "projects" / "beta"
    other.mkdir(parents=True)
    b = seed_workspace(ctx.store, other, [record("x-fact")])
    ctx.store.recycle.archive(b.key, b.revision)
    tab.refresh()
    assert tab.archived_model.rowCount() == 2
    selected = tab.selected_workspace()
    assert selected is not None and selected.key == snap.key
    assert "build-steps" in tab.preview.toPlainText()


def test_loads_in_a_worker_thread(ctx: AppContext, qtbot: Any, tmp_path: Path) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    ctx.store.recycle.archive(snap.key, snap.revision)
    runner = ThreadPoolTaskRunner()
    ctx.runner = runner
    widget = RecycleBinTab(ctx)
    qtbot.addWidget(widget)
    widget.refresh()
    qtbot.waitUntil(lambda: widget.archived_model.rowCount() == 1)
    widget.select_workspace(snap.key)
    qtbot.waitUntil(lambda: "build-steps" in widget.preview.toPlainText())
    assert runner.wait_all(5000)


# --- the Qt models ---------------------------------------------------------------------------------


def _infos() -> list[WorkspaceInfo]:
    t = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
    return [
        WorkspaceInfo(key="alpha-1", cwd="/p/alpha", archived_at=t, record_count=12, invalid_count=1),
        WorkspaceInfo(key="beta-2", cwd="/p/项目-beta", archived_at=None, record_count=3),
        WorkspaceInfo(key="gone-3", cwd="/p/gone", archived_at=t, record_count=0, cwd_exists=False),
    ]


def _entries() -> list[HistoryEntry]:
    t = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
    return [
        HistoryEntry(
            id="h1",
            scope_key="alpha-1",
            cwd="/p/alpha",
            name="build",
            time=t,
            reason="delete",
            size=10,
            revision="r1",
        ),
        HistoryEntry(
            id="h2",
            scope_key="beta-2",
            cwd="/p/项目-beta",
            name="打包",
            time=t,
            reason="overwrite",
            size=20,
            revision="r2",
        ),
    ]


def test_recycle_models_pass_modeltester(qtmodeltester: Any) -> None:
    archived = ArchivedWorkspacesModel()
    qtmodeltester.check(archived)
    archived.set_workspaces(_infos())
    qtmodeltester.check(archived)
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(archived)
    proxy.setSortRole(SORT_ROLE)
    proxy.sort(ArchivedWorkspacesModel.RECORDS, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(proxy)
    assert [proxy.index(r, 0).data() for r in range(3)] == ["alpha", "项目-beta", "gone"]

    deleted = DeletedRecordsModel()
    qtmodeltester.check(deleted)
    deleted.set_entries(_entries())
    qtmodeltester.check(deleted)
    assert deleted.index(1, DeletedRecordsModel.REASON).data() == "Earlier version"
    assert deleted.index(1, DeletedRecordsModel.WORKSPACE).data() == "项目-beta"
    deleted.set_entries([])
    qtmodeltester.check(deleted)


def test_an_earlier_global_can_be_restored_but_never_purged(
    ctx: AppContext, tab: RecycleBinTab, dialogs: ScriptedDialogs
) -> None:
    ctx.store.replace_global("# User Profile\n\n喜欢简洁的回答。\n", ctx.store.read_global().revision)
    ctx.store.replace_global("# User Profile\n\nnew text\n", ctx.store.read_global().revision)
    tab.refresh()
    assert tab.deleted_proxy.rowCount() == 0  # earlier versions are hidden by default
    tab.show_versions_box.setChecked(True)
    entry = next(e for e in ctx.store.history.entries() if "喜欢" in ctx.store.history.read(e.id).decode())
    row = tab.deleted_model.row_of(entry.id)
    assert tab.deleted_model.index(row, DeletedRecordsModel.WORKSPACE).data() == "Global"
    assert tab.select_entry(entry.id)
    assert "喜欢简洁的回答" in tab.preview.toPlainText()
    assert not tab.purge_button.isEnabled()

    dialogs.push(True)
    tab.restore_button.click()
    assert dialogs.asked[-1][1] == "Restore Global"
    assert ctx.store.read_global().text == "# User Profile\n\n喜欢简洁的回答。\n"
    assert tab.banner.level == "ok"


def test_the_tab_proxies_pass_modeltester(
    ctx: AppContext, tab: RecycleBinTab, tmp_path: Path, qtmodeltester: Any
) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    snap = ctx.store.commit(snap.key, [PutOp(record=record("build-steps", "Edited"))], snap.revision)
    snap = ctx.store.commit(snap.key, [DeleteOp(name="packaging")], snap.revision)
    ctx.store.recycle.archive(snap.key, snap.revision)
    tab.refresh()
    qtmodeltester.check(tab.archived_proxy)
    qtmodeltester.check(tab.deleted_proxy)
    tab.show_versions_box.setChecked(True)
    tab.filter_edit.setText("build")
    qtmodeltester.check(tab.deleted_proxy)
    assert tab.deleted_proxy.rowCount() == 1


def test_a_version_holding_a_credential_is_restored_only_when_asked_to(
    ctx: AppContext, tab: RecycleBinTab, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    folder = tmp_path / "projects" / "creds"
    folder.mkdir(parents=True)
    body = "\nThe deploy token is ghp_1234567890abcdefghijklmnopqrstuvwxyzAB.\n"
    snap = ctx.store.create_workspace(str(folder))
    snap = ctx.store.commit(
        snap.key, [PutOp(record=record("deploy-token", "Deploy", "project", body))], snap.revision, allow_secrets=True
    )
    ctx.store.commit(snap.key, [DeleteOp(name="deploy-token")], snap.revision)
    tab.refresh()
    entry = next(e for e in ctx.store.history.entries() if e.name == "deploy-token" and e.reason == "delete")
    assert tab.select_entry(entry.id)

    dialogs.push(False)  # "Restore anyway?" -> no
    tab.restore_button.click()
    assert ctx.store.read_workspace(snap.key).get("deploy-token") is None
    kind, title, question = dialogs.asked[-1]
    assert kind == "confirm" and "credential" in title.lower() and "deploy-token" in question
    assert tab.banner.level == "info" and "Nothing was restored" in tab.banner.text

    assert tab.select_entry(entry.id)
    dialogs.push(True)
    tab.restore_button.click()
    restored = ctx.store.read_workspace(snap.key).get("deploy-token")
    assert restored is not None and restored.record is not None and "ghp_" in restored.record.body
    assert tab.banner.level == "ok"


def test_a_scope_whose_scope_json_is_unreadable_is_purged_only_by_its_full_key(
    ctx: AppContext, tab: RecycleBinTab, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    snap = _seed_alpha(ctx, tmp_path)
    ctx.store.recycle.archive(snap.key, snap.revision)
    archived = ctx.root / "archived" / snap.key
    (archived / "scope.json").write_text('{"cwd": "/etc"', encoding="utf-8")  # damaged by hand
    tab.refresh()
    assert tab.select_workspace(snap.key)
    dialogs.push("etc")
    tab.purge_button.click()
    assert archived.exists()
    kind, _title, question = dialogs.asked[-1]
    assert kind == "ask_text" and "full key" in question and snap.key in question
    assert tab.banner.level == "error" and "Nothing was deleted" in tab.banner.text
    dialogs.push(snap.key)
    tab.purge_button.click()
    assert not archived.exists()
