"""The Maintenance tab: stale-memory queue, load meter, export and import zip (real widgets, offscreen)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from core.models import PutOp, WorkspaceSnapshot
from core.store.files import SETTINGS
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.tabs.maintenance import MaintenanceTab
from tests.gui.conftest import record


@pytest.fixture
def tab(ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtbot: Any) -> MaintenanceTab:
    widget = MaintenanceTab(ctx)
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.refresh()
    return widget


def _rows(tab: MaintenanceTab) -> list[tuple[str, str]]:
    m = tab.stale.proxy
    return [(m.index(r, 0).data(), m.index(r, 2).data()) for r in range(m.rowCount())]


def test_scan_lists_broken_links_and_mark_reviewed_keeps_it_out(
    tab: MaintenanceTab, ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtmodeltester: Any
) -> None:
    assert "Scan to find records" in tab.stale.empty.text()
    tab.stale.scan_button.click()
    assert ("release-notes", "Broken links") in _rows(tab)
    qtmodeltester.check(tab.stale.model)
    assert tab.stale.select_item("release-notes", "broken-links")
    assert "[[gone]]" in tab.stale.advice.text()
    alpha = sample["alpha"]
    record_file = ctx.root / "workspaces" / alpha.key / "release-notes.md"
    before = record_file.read_bytes()
    tab.stale.reviewed_button.click()
    assert ("release-notes", "Broken links") not in _rows(tab)
    assert "Marked 1 record(s) reviewed." in tab.banner.text
    tab.stale.scan_button.click()
    assert "release-notes" not in [name for name, _ in _rows(tab)]  # stored: survives a new scan
    assert record_file.read_bytes() == before  # not in the record's frontmatter


def test_keep_hides_until_the_next_scan(tab: MaintenanceTab) -> None:
    tab.stale.scan_button.click()
    assert tab.stale.select_item("release-notes")
    tab.stale.keep_button.click()
    assert "release-notes" not in [n for n, _ in _rows(tab)]
    tab.stale.scan_button.click()
    assert "release-notes" in [n for n, _ in _rows(tab)]


def test_delete_asks_then_commits_with_cas_and_keeps_history(
    tab: MaintenanceTab, ctx: AppContext, dialogs: ScriptedDialogs, sample: dict[str, WorkspaceSnapshot]
) -> None:
    tab.stale.scan_button.click()
    assert tab.stale.select_item("release-notes")
    dialogs.push(False)  # Cancel: nothing happens
    tab.stale.delete_button.click()
    assert ctx.store.read_workspace(sample["alpha"].key).get("release-notes") is not None
    dialogs.push(True)
    tab.stale.delete_button.click()
    assert ctx.store.read_workspace(sample["alpha"].key).get("release-notes") is None
    assert "Deleted release-notes" in tab.banner.text
    assert "release-notes" not in [n for n, _ in _rows(tab)]
    assert any(h.name == "release-notes" for h in ctx.store.history.entries(sample["alpha"].key))


def test_delete_after_an_outside_change_deletes_nothing(
    tab: MaintenanceTab, ctx: AppContext, dialogs: ScriptedDialogs, sample: dict[str, WorkspaceSnapshot]
) -> None:
    tab.stale.scan_button.click()
    alpha = ctx.store.read_workspace(sample["alpha"].key)
    ctx.store.commit(alpha.key, [PutOp(record=record("new-fact"))], alpha.revision)  # an agent writes
    assert tab.stale.select_item("release-notes")
    dialogs.push(True)
    tab.stale.delete_button.click()
    assert ctx.store.read_workspace(alpha.key).get("release-notes") is not None
    assert tab.banner.level == "error" and "changed since the scan" in tab.banner.text


def test_edit_opens_the_record_in_the_workspace_tab(
    main_window: Any, ctx: AppContext, sample: dict[str, WorkspaceSnapshot]
) -> None:
    main_window.show_tab("maintenance")
    tab = main_window.tabs["maintenance"]
    assert isinstance(tab, MaintenanceTab)
    tab.stale.scan_button.click()
    assert tab.stale.select_item("release-notes")
    tab.stale.edit_button.click()
    assert main_window.current_key() == "workspace"
    workspace = main_window.tabs["workspace"]
    assert workspace.current_key == sample["alpha"].key and workspace.editing_name == "release-notes"


def test_load_meter_marks_workspaces_over_the_settings_threshold(
    tab: MaintenanceTab, ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtmodeltester: Any
) -> None:
    ctx.store.files(SETTINGS).replace("load_warning_tokens: 90\n", ctx.store.files(SETTINGS).read_revised()[1])
    tab.refresh()
    model = tab.loads.proxy
    assert model.rowCount() == 3
    qtmodeltester.check(tab.loads.model)
    status = {model.index(r, 0).data(): model.index(r, 6).data() for r in range(model.rowCount())}
    assert status["alpha"] == "Over — prune the index" and status["gone"] == "OK"
    assert "Warning above 90 estimated tokens" in tab.loads.summary.text()
    # Sortable: by records, ascending, the one-record workspaces come first.
    tab.loads.table.sortByColumn(1, Qt.SortOrder.AscendingOrder)
    assert model.index(model.rowCount() - 1, 0).data() == "alpha"
    tab.loads.table.selectRow(model.rowCount() - 1)
    assert "Shorten long descriptions" in tab.loads.advice.text()
    tab.loads.review_button.click()  # scan that workspace in the queue
    assert tab.pages.currentWidget() is tab.stale and {i.key for i in tab.stale.visible_items()} == {
        sample["alpha"].key
    }


def test_export_writes_a_zip_outside_the_root_and_warns_about_secrets(
    tab: MaintenanceTab, dialogs: ScriptedDialogs, tmp_path: Path, sample: dict[str, WorkspaceSnapshot]
) -> None:
    assert tab.export.workspace_list.count() == 3
    tab.export.check({sample["alpha"].key})
    assert tab.export.secrets_warning.isHidden()
    tab.export.secrets_box.setChecked(True)
    assert not tab.export.secrets_warning.isHidden()
    tab.export.secrets_box.setChecked(False)
    out = tmp_path / "out"
    out.mkdir()
    dialogs.push(str(out / "alpha"))
    tab.export.export_button.click()
    assert "Exported 3 record(s) from 1 workspace(s)" in tab.banner.text
    with zipfile.ZipFile(out / "alpha.zip") as zf:
        names = zf.namelist()
    assert f"workspaces/{sample['alpha'].key}/build-steps.md" in names and "GLOBAL.md" in names
    assert not any(sample["beta"].key in n for n in names)
    dialogs.push(str(tab.ctx.root / "inside.zip"))  # inside the memory root: refused
    tab.export.export_button.click()
    assert tab.banner.level == "error" and "inside the memory root" in tab.banner.text


def test_import_zip_opens_a_pending_review_in_session_consolidation(
    main_window: Any, ctx: AppContext, dialogs: ScriptedDialogs, tmp_path: Path, sample: dict[str, WorkspaceSnapshot]
) -> None:
    from core.export import export_zip
    from core.store.fs import FileStore

    other = FileStore(tmp_path / "other-root")
    snap = other.create_workspace(sample["alpha"].info.cwd)
    other.commit(snap.key, [PutOp(record=record("from-laptop", "Learned on the laptop"))], snap.revision)
    export_zip(other, tmp_path / "laptop.zip", include_global=False)
    before = ctx.store.read_workspace(sample["alpha"].key).revision

    main_window.show_tab("maintenance")
    tab = main_window.tabs["maintenance"]
    tab.pages.setCurrentWidget(tab.export)
    dialogs.push(str(tmp_path / "laptop.zip"))
    tab.export.import_button.click()
    assert main_window.current_key() == "consolidation"
    consolidation = main_window.tabs["consolidation"]
    assert consolidation.review is not None
    assert [c.target for c in consolidation.review.actionable] == ["from-laptop.md"]
    assert ctx.store.read_workspace(sample["alpha"].key).revision == before  # only the review, no write
    assert "1 review(s) from laptop.zip" in consolidation.banner.text


def test_a_hostile_zip_is_refused_with_what_to_do(
    tab: MaintenanceTab, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    bad = tmp_path / "evil.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("../../etc/passwd", "x")
    dialogs.push(str(bad))
    tab.export.import_button.click()
    assert tab.banner.level == "error" and "no manifest.json" in tab.banner.text
    assert "Nothing was imported." in tab.banner.text


@pytest.fixture
def threaded_ctx(ctx: AppContext) -> Any:
    """The real thread-pool runner; at teardown its pool threads end before the thread check runs."""
    import gc

    from gui.tasks import SyncTaskRunner, ThreadPoolTaskRunner

    runner = ThreadPoolTaskRunner()
    ctx.runner = runner
    yield ctx
    assert runner.wait_all(20000)
    ctx.runner = SyncTaskRunner()
    del runner
    gc.collect()


def test_the_scan_runs_off_the_gui_thread_and_cancel_drops_it(
    threaded_ctx: AppContext, sample: dict[str, WorkspaceSnapshot], qtbot: Any
) -> None:
    tab = MaintenanceTab(threaded_ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    qtbot.waitUntil(lambda: tab.stale.workspace_box.count() == 4, timeout=20000)
    tab.stale.scan_button.click()
    # The click returned at once: the scan is a job (its result arrives later, by signal).
    assert not tab.stale.scan_button.isEnabled() and not tab.stale.cancel_button.isHidden()
    assert tab.stale.result is None
    tab.stale.cancel_button.click()
    assert tab.stale.scan_button.isEnabled() and "cancelled" in tab.banner.text
    assert threaded_ctx.runner.wait_all(20000)  # type: ignore[attr-defined]
    qtbot.wait(50)  # let a late result arrive, if it were delivered
    assert tab.stale.result is None and tab.stale.model.rowCount() == 0
    tab.stale.scan_button.click()
    qtbot.waitUntil(lambda: tab.stale.result is not None, timeout=20000)
    assert ("release-notes", "Broken links") in _rows(tab)
