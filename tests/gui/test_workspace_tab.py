"""Workspace tab, driven like a user: browse, filter, edit, stage, review the diff, commit, conflict, archive."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from core.models import PutOp, WorkspaceSnapshot
from core.records import parse_record
from core.search import SearchIndex
from gui.context import AppContext
from gui.qtmodels.roles import KEY_ROLE
from gui.tabs.workspace import WorkspaceTab
from tests.gui.conftest import record

Sample = dict[str, WorkspaceSnapshot]


def _tab(ctx: AppContext, qtbot: Any) -> WorkspaceTab:
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()  # the window does this once after building its tabs
    return tab


def _ws_names(tab: WorkspaceTab) -> list[str]:
    return [tab.ws_proxy.index(r, 0).data() for r in range(tab.ws_proxy.rowCount())]


def _record_names(tab: WorkspaceTab) -> list[str]:
    return [tab.rec_proxy.index(r, 0).data(KEY_ROLE) for r in range(tab.rec_proxy.rowCount())]


def _open(tab: WorkspaceTab, snap: WorkspaceSnapshot) -> None:
    assert tab.select_workspace(snap.key)
    assert tab.snapshot is not None and tab.snapshot.key == snap.key


def _click_workspace(tab: WorkspaceTab, qtbot: Any, name: str) -> None:
    row = _ws_names(tab).index(name)
    rect = tab.ws_view.visualRect(tab.ws_proxy.index(row, 0))
    qtbot.mouseClick(tab.ws_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _click_record(tab: WorkspaceTab, qtbot: Any, name: str) -> None:
    row = _record_names(tab).index(name)
    index = tab.rec_proxy.index(row, 0)
    tab.rec_view.scrollTo(index)
    rect = tab.rec_view.visualRect(index)
    qtbot.mouseClick(tab.rec_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _file(ctx: AppContext, snap: WorkspaceSnapshot, name: str) -> str:
    return (ctx.root / "workspaces" / snap.key / f"{name}.md").read_text(encoding="utf-8")


# --- browsing ------------------------------------------------------------------------------------


def test_workspace_list_with_counts_and_flags(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.resize(1200, 700)
    assert _ws_names(tab) == ["alpha", "gone", "项目-beta"]
    rows = {tab.ws_proxy.index(r, 0).data(): r for r in range(3)}
    assert tab.ws_proxy.index(rows["alpha"], 1).data() == "3"
    assert tab.ws_proxy.index(rows["alpha"], 2).data() == "1 invalid file(s)"
    assert tab.ws_proxy.index(rows["gone"], 2).data() == "folder missing"
    tab.ws_filter.setText("beta")
    assert _ws_names(tab) == ["项目-beta"]


def test_selecting_a_workspace_shows_records_and_agent_view(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.show()
    _click_workspace(tab, qtbot, "项目-beta")
    assert tab.current_key == sample["beta"].key
    assert _record_names(tab) == ["packaging"]
    assert "项目-beta" in tab.ws_title.text()
    index_text = sample["beta"].index_text
    assert tab.agent_view.toPlainText() == index_text
    assert f"{len(index_text.encode()):,} bytes" in tab.agent_label.text()


def test_records_table_sorts_filters_and_flags_invalid(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    _open(tab, sample["alpha"])
    assert _record_names(tab) == ["broken", "build-steps", "code-style", "release-notes"]
    assert tab.rec_proxy.index(0, 4).data() == "invalid"
    reason = tab.rec_proxy.index(0, 2).data()  # an invalid file shows its reason in the table
    assert "does not match the file name" in reason
    assert "does not match the file name" in tab.rec_proxy.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    tab.rec_view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert _record_names(tab)[0] == "release-notes"
    qtbot.keyClicks(tab.rec_filter, "make")  # filter as you type, matches the body
    assert _record_names(tab) == ["build-steps"]
    tab.rec_filter.clear()
    tab.type_filter.setCurrentIndex(tab.type_filter.findData("invalid"))
    assert _record_names(tab) == ["broken"]
    tab.type_filter.setCurrentIndex(tab.type_filter.findData("feedback"))
    assert _record_names(tab) == ["code-style"]
    assert "4 record(s), 1 invalid" in tab.count_label.text()


def test_invalid_file_opens_with_its_reason_and_salvaged_fields(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    path = ctx.root / "workspaces" / alpha.key / "half-written.md"
    raw = "---\nname: Half Written\ndescription: Started by hand\nmetadata:\n  type: idea\n---\n\nMaybe Playwright?\n"
    path.write_text(raw, encoding="utf-8")
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, alpha)
    _click_record(tab, qtbot, "half-written")
    assert tab.editing_name == "half-written"
    # What could be read is in the fields; the frontmatter block is not dumped into the body.
    assert tab.name_edit.text() == "half-written"
    assert tab.desc_edit.text() == "Started by hand"
    assert tab.type_combo.currentData() == "project"  # "idea" is not a record type
    assert tab.body_edit.toPlainText() == "\nMaybe Playwright?\n"
    label = tab.validation_label.text()
    assert "This file is invalid" in label and "idea" in label
    assert not tab.has_unsaved_changes()  # only looking: leaving it asks nothing
    assert path.read_text(encoding="utf-8") == raw  # nothing written
    assert tab.stage_button.isEnabled()  # the fields already make a valid record
    assert tab.stage_current()
    assert "-name: Half Written" in tab.staged_diff() and "+name: half-written" in tab.staged_diff()
    assert path.read_text(encoding="utf-8") == raw  # still nothing written before Commit
    tab.commit()
    entry = ctx.store.read_workspace(alpha.key).get("half-written")
    assert entry is not None and entry.is_valid and entry.record is not None
    assert entry.record.description == "Started by hand"


def test_salvage_fields_keeps_everything_when_frontmatter_is_broken() -> None:
    from core.records import salvage_fields

    broken = "---\nname: [unclosed\n---\nbody\n"
    assert salvage_fields(broken) == ("project", "", broken)
    assert salvage_fields("no frontmatter at all\n") == ("project", "", "no frontmatter at all\n")
    assert salvage_fields("---\ndescription: 描述\ntype: reference\n---\n正文\n") == ("reference", "描述", "\n正文\n")


# --- editing -------------------------------------------------------------------------------------


def test_select_record_fills_editor_and_validates_live(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, sample["alpha"])
    _click_record(tab, qtbot, "build-steps")
    assert tab.name_edit.text() == "build-steps"
    assert tab.desc_edit.text() == "How to build alpha"
    assert tab.type_combo.currentData() == "project"
    assert "Valid record" in tab.validation_label.text()
    assert not tab.stage_button.isEnabled()  # nothing changed yet
    tab.name_edit.setText("Build Steps")
    assert "✗" in tab.validation_label.text()
    assert not tab.stage_button.isEnabled()
    tab.name_edit.setText("code-style")
    assert "already exists" in tab.validation_label.text()
    tab.name_edit.setText("build-steps")
    tab.desc_edit.setText("")
    assert "✗" in tab.validation_label.text()
    tab.desc_edit.setText("How to build alpha, fast")
    assert "Valid record" in tab.validation_label.text()
    assert tab.stage_button.isEnabled()


def test_secret_warning_while_typing(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    _open(tab, sample["alpha"])
    tab.select_record("code-style")
    tab.body_edit.setPlainText("\nUse key AKIAIOSFODNN7EXAMPLQ for deploys.\n")
    assert "credential" in tab.validation_label.text()


def test_links_navigate_and_broken_links_are_marked(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, sample["alpha"])
    _click_record(tab, qtbot, "release-notes")
    assert tab.broken_links() == ["gone"]
    assert "(missing)" in tab.links_label.text()
    tab.select_record("build-steps")
    assert tab.broken_links() == []
    assert 'href="release-notes"' in tab.links_label.text()
    tab.rec_filter.setText("zzz-hides-everything")
    tab.links_label.linkActivated.emit("release-notes")
    assert tab.editing_name == "release-notes"
    assert tab.rec_filter.text() == ""  # the filter was cleared to show the target


# --- staging, diff, commit -----------------------------------------------------------------------


def test_stage_review_diff_and_commit(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, alpha)
    _click_record(tab, qtbot, "build-steps")
    tab.body_edit.setPlainText("\nRun make, then make test.\n\nSee [[release-notes]].\n")
    qtbot.mouseClick(tab.stage_button, Qt.MouseButton.LeftButton)
    assert list(tab.staged) == ["build-steps"]
    # a second change in the same batch: a new record
    tab.new_record()
    tab.name_edit.setText("deploy")
    tab.desc_edit.setText("Deploys go through CI")
    tab.type_combo.setCurrentIndex(tab.type_combo.findData("reference"))
    tab.body_edit.setPlainText("\nNever deploy by hand.\n")
    tab.stage_current()
    # and a deletion
    tab.select_record("code-style")
    qtbot.mouseClick(tab.delete_button, Qt.MouseButton.LeftButton)
    assert tab.detail.tabText(1) == "Staged changes (3)"
    statuses = {tab.rec_proxy.index(r, 0).data(KEY_ROLE): tab.rec_proxy.index(r, 4).data() for r in range(5)}
    assert statuses["build-steps"] == "staged: changed"
    assert statuses["deploy"] == "staged: new"
    assert statuses["code-style"] == "staged: deleted"
    diff = tab.diff_view.diff_text()
    assert "--- a/build-steps.md" in diff and "+Run make, then make test." in diff
    assert "--- /dev/null\n+++ b/deploy.md" in diff
    assert "--- a/code-style.md\n+++ /dev/null" in diff
    assert "+- [deploy](deploy.md) — Deploys go through CI" in diff  # MEMORY.md is part of the review
    assert "-- [code-style](code-style.md)" in diff
    assert (ctx.root / "workspaces" / alpha.key / "code-style.md").exists()  # nothing written yet
    assert tab.has_unsaved_changes()

    qtbot.mouseClick(tab.commit_button, Qt.MouseButton.LeftButton)

    assert not tab.staged and not tab.has_unsaved_changes()
    assert "Committed 3 change(s)" in tab.banner.text
    assert "make test" in _file(ctx, alpha, "build-steps")
    assert parse_record("deploy.md", _file(ctx, alpha, "deploy").encode()).type == "reference"
    assert not (ctx.root / "workspaces" / alpha.key / "code-style.md").exists()
    assert "deploy" in tab.agent_view.toPlainText()
    assert _record_names(tab) == ["broken", "build-steps", "deploy", "release-notes"]


def test_rename_stages_delete_of_old_name(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    _open(tab, alpha)
    tab.select_record("code-style")
    tab.name_edit.setText("style-guide")
    tab.stage_current()
    assert {n: type(op).__name__ for n, op in tab.staged.items()} == {"code-style": "DeleteOp", "style-guide": "PutOp"}
    tab.save()  # Ctrl+S: stage (nothing left) and commit
    names = {e.name for e in ctx.store.read_workspace(alpha.key).entries}
    assert "style-guide" in names and "code-style" not in names


def test_fix_invalid_file_by_staging_a_clean_record(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    _open(tab, alpha)
    tab.select_record("broken")
    tab.desc_edit.setText("Now a proper record")
    tab.body_edit.setPlainText("\nFixed.\n")
    assert tab.stage_current()
    assert "-name: Broken Name" in tab.staged_diff()
    tab.commit()
    entry = ctx.store.read_workspace(alpha.key).get("broken")
    assert entry is not None and entry.is_valid


def test_discard_all_restores_disk_state(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    _open(tab, sample["alpha"])
    tab.select_record("build-steps")
    tab.desc_edit.setText("Changed")
    tab.stage_current()
    tab.discard_button.click()
    assert not tab.staged and not tab.has_unsaved_changes()
    assert tab.desc_edit.text() == "How to build alpha"


def test_switching_record_with_unstaged_edits_asks(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, sample["alpha"])
    _click_record(tab, qtbot, "build-steps")
    tab.desc_edit.setText("Edited but not staged")
    ctx.dialogs.push(None)  # cancel: stay on build-steps
    _click_record(tab, qtbot, "code-style")
    assert tab.editing_name == "build-steps" and tab.desc_edit.text() == "Edited but not staged"
    ctx.dialogs.push("Stage")
    _click_record(tab, qtbot, "code-style")
    assert tab.editing_name == "code-style"
    assert "build-steps" in tab.staged


def test_switching_workspace_with_staged_changes_asks(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    _open(tab, sample["alpha"])
    tab.select_record("build-steps")
    tab.desc_edit.setText("Edited")
    tab.stage_current()
    ctx.dialogs.push(False)
    assert not tab.select_workspace(sample["beta"].key)
    assert tab.current_key == sample["alpha"].key and tab.staged
    ctx.dialogs.push(True)
    assert tab.select_workspace(sample["beta"].key)
    assert not tab.staged


# --- conflicts ----------------------------------------------------------------------------------


def test_commit_conflict_after_external_change_then_rereview(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    _open(tab, alpha)
    tab.select_record("build-steps")
    tab.desc_edit.setText("Mine")
    tab.stage_current()
    # an agent writes to the same workspace meanwhile
    current = ctx.store.read_workspace(alpha.key)
    ctx.store.commit(alpha.key, [PutOp(record=record("from-agent", "Written by an agent"))], current.revision)

    ctx.dialogs.push(True)  # "Reload and re-review?" -> yes
    tab.commit()
    assert ctx.dialogs.asked[-1][1] == "Workspace changed on disk"
    assert "from-agent" not in _file(ctx, alpha, "build-steps")
    assert parse_record("build-steps.md", _file(ctx, alpha, "build-steps").encode()).description == "How to build alpha"
    assert tab.staged  # kept for re-review
    assert "from-agent" in _record_names(tab)
    assert tab.detail.currentIndex() == 1
    assert "-- [build-steps](build-steps.md) — How to build alpha" in tab.diff_view.diff_text()
    tab.commit()
    assert parse_record("build-steps.md", _file(ctx, alpha, "build-steps").encode()).description == "Mine"
    assert (ctx.root / "workspaces" / alpha.key / "from-agent.md").exists()  # the agent's write survived


def test_commit_conflict_declined_keeps_banner_offer(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    _open(tab, alpha)
    tab.select_record("build-steps")
    tab.desc_edit.setText("Mine")
    tab.stage_current()
    current = ctx.store.read_workspace(alpha.key)
    ctx.store.commit(alpha.key, [PutOp(record=record("from-agent"))], current.revision)
    ctx.dialogs.push(False)
    tab.commit()
    assert "Not committed" in tab.banner.text
    tab.banner.button("Reload and re-review").click()
    tab.commit()
    assert "Committed 1 change" in tab.banner.text


def test_external_change_with_staged_work_is_not_applied_silently(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    _open(tab, alpha)
    tab.select_record("build-steps")
    tab.desc_edit.setText("Mine, not staged")
    current = ctx.store.read_workspace(alpha.key)
    ctx.store.commit(alpha.key, [PutOp(record=record("from-agent"))], current.revision)
    tab.refresh()
    assert tab.desc_edit.text() == "Mine, not staged"
    assert tab.ws_banner.level == "warning"
    assert "from-agent" not in _record_names(tab)
    tab.ws_banner.button("Reload and re-review").click()
    assert "from-agent" in _record_names(tab)
    assert tab.desc_edit.text() == "Mine, not staged"


def test_external_change_without_edits_updates_in_place(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, alpha)
    _click_record(tab, qtbot, "code-style")
    current = ctx.store.read_workspace(alpha.key)
    changed = record("code-style", "Prefer small, pure functions", "feedback")
    ctx.store.commit(alpha.key, [PutOp(record=changed)], current.revision)
    tab.refresh()
    assert tab.editing_name == "code-style"
    assert tab.desc_edit.text() == "Prefer small, pure functions"
    assert tab.rec_view.currentIndex().data(KEY_ROLE) == "code-style"  # selection kept


# --- archive -------------------------------------------------------------------------------------


def test_archive_needs_confirmation(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    beta = sample["beta"]
    tab = _tab(ctx, qtbot)
    _open(tab, beta)
    ctx.dialogs.push(False)
    tab.archive_button.click()
    assert (ctx.root / "workspaces" / beta.key).is_dir()
    ctx.dialogs.push(True)
    tab.archive_button.click()
    assert not (ctx.root / "workspaces" / beta.key).exists()
    assert (ctx.root / "archived" / beta.key).is_dir()
    assert "项目-beta" not in _ws_names(tab)
    assert "Recycle Bin" in tab.banner.text


def test_missing_folder_offers_archive_prominently(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    gone = sample["gone"]
    tab = _tab(ctx, qtbot)
    _open(tab, gone)
    assert tab.ws_banner.level == "error"
    assert "no longer exists" in tab.ws_banner.text
    assert "folder missing" in tab.ws_title.text()
    ctx.dialogs.push(True)
    tab.ws_banner.button("Archive workspace…").click()
    assert (ctx.root / "archived" / gone.key).is_dir()
    assert "gone" not in _ws_names(tab)


# --- search -------------------------------------------------------------------------------------


def test_search_box_hidden_without_index(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    assert tab.search_box.isHidden()


def test_search_all_memory_and_open_hit(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    ctx.search = SearchIndex(ctx.store)
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, sample["alpha"])
    assert not tab.search_box.isHidden()
    tab.focus_search()
    tab.search_box.setText("打包为什么慢")  # typed through an input method
    tab.run_search_now()
    assert tab.search_view.isVisibleTo(tab)
    hits = tab.last_search_hits
    assert hits and hits[0].name == "packaging"
    first = tab.search_model.index(0, 0)
    tab.search_view.activated.emit(first)
    assert tab.current_key == sample["beta"].key
    assert tab.editing_name == "packaging"
    opened: list[bool] = []
    tab.open_global_requested.connect(lambda: opened.append(True))
    tab.search_box.setText("Backend developer")
    tab.run_search_now()
    global_hits = [h for h in tab.last_search_hits if h.scope_key is None]
    assert global_hits
    tab.open_hit(global_hits[0])
    assert opened == [True]


def test_search_index_refreshed_once_per_change_not_per_query(ctx: AppContext, sample: Sample, qtbot: Any) -> None:

    class CountingIndex(SearchIndex):
        refreshes = 0

        def refresh(self, *args: Any, **kwargs: Any) -> Any:
            CountingIndex.refreshes += 1
            return super().refresh(*args, **kwargs)

    ctx.search = CountingIndex(ctx.store, cache_dir=False)
    tab = _tab(ctx, qtbot)
    tab.show()
    tab.focus_search()  # focusing the box brings the index up to date before the first query
    assert CountingIndex.refreshes == 1
    for query in ("build", "build steps", "release"):
        tab.search_box.setText(query)
        tab.run_search_now()
    assert CountingIndex.refreshes == 1
    assert any(h.name == "release-notes" for h in tab.last_search_hits)
    # Someone else writes a record; the watcher (or F5) refreshes the tab: the next query sees it.
    ctx.store.commit(
        sample["beta"].key,
        [PutOp(record=record("zeppelin-notes", "Airship deploy notes"))],
        ctx.store.read_workspace(sample["beta"].key).revision,
    )
    tab.refresh()
    tab.search_box.setText("zeppelin")
    tab.run_search_now()
    assert CountingIndex.refreshes == 2
    assert [h.name for h in tab.last_search_hits][:1] == ["zeppelin-notes"]


def test_says_loading_until_the_first_list_arrives(ctx: AppContext, qtbot: Any) -> None:
    """On a big root the first list takes a moment: never claim "No workspaces yet." meanwhile."""
    from gui.tasks import Job, SyncTaskRunner

    class DeferredRunner(SyncTaskRunner):
        def __init__(self) -> None:
            self.queued: list[Job] = []

        def start(self, job: Job) -> None:
            self.queued.append(job)

        def run_queued(self) -> None:
            while self.queued:
                self.queued.pop(0).execute()

    runner = DeferredRunner()
    ctx.runner = runner
    tab = _tab(ctx, qtbot)
    assert tab.ws_title.text() == "Loading workspaces…"
    runner.run_queued()
    assert tab.ws_title.text() == "No workspaces yet."
