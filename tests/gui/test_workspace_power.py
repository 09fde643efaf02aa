"""Workspace tab, issue 14: each friction fixed and each power tool, driven like a user."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt

from core.consolidation.proposals import ChangeSummary, Receipt
from core.consolidation.receipts import render_receipt
from core.search import SearchIndex
from core.store.files import RECEIPTS
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.qtmodels.roles import KEY_ROLE
from gui.qtmodels.search_results import excerpt, highlight, terms_of
from gui.tabs.global_tab import GlobalTab
from gui.tabs.workspace import WorkspaceTab
from gui.tabs.workspace.global_link import reveal_heading
from tests.gui.conftest import record, seed_workspace
from tests.gui.test_workspace_tab import Sample, _click_record, _file, _open, _record_names, _tab


def _select(tab: WorkspaceTab, names: list[str]) -> None:
    """Ctrl-click-like selection of several rows."""
    sel = tab.rec_view.selectionModel()
    sel.clearSelection()
    for name in names:
        row = _record_names(tab).index(name)
        sel.select(
            tab.rec_proxy.index(row, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )


def _names_on_disk(ctx: AppContext, key: str) -> list[str]:
    return sorted(e.name for e in ctx.store.read_workspace(key).entries)


# --- frictions ---------------------------------------------------------------------------------------


def test_opening_a_search_hit_shows_the_record_pane(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    ctx.search = SearchIndex(ctx.store)
    tab = _tab(ctx, qtbot)
    tab.show()
    tab.detail.setCurrentIndex(1)  # the user was looking at Staged changes
    tab.search_box.setText("Release checklist")
    tab.run_search_now()
    hit = next(i for i, h in enumerate(tab.last_search_hits) if h.name == "release-notes")
    tab.search_view.activated.emit(tab.search_model.index(hit, 0))
    assert tab.editing_name == "release-notes"
    assert tab.detail.currentWidget() is tab.editor


def test_search_hits_are_compact_and_highlight_the_terms(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    store = ctx.store
    snap = store.read_workspace(sample["alpha"].key)
    many = [record(f"deploy-note-{i}", f"Deploy step {i}", body=f"\nWe deploy with step {i}.\n") for i in range(14)]
    store.commit(snap.key, [__import__("core.models", fromlist=["PutOp"]).PutOp(record=r) for r in many], snap.revision)
    ctx.search = SearchIndex(store)
    tab = _tab(ctx, qtbot)
    tab.resize(1360, 820)
    tab.show()
    tab.search_box.setText("deploy")
    tab.run_search_now()
    assert len(tab.last_search_hits) >= 14
    view = tab.search_view
    row_h = view.sizeHintForRow(0)
    assert row_h <= 3 * view.fontMetrics().height()  # two lines per hit
    assert view.viewport().height() // row_h >= 8  # far more than ~3 hits fit
    terms = terms_of("deploy")
    assert highlight("We Deploy now", terms).count("background:#ffe58a") == 1
    assert "&lt;b&gt;" in highlight("<b> deploy", terms)  # the hit's text is escaped, never markup
    long = "word " * 40 + "the deploy step"
    assert "deploy" in excerpt(long, terms)[:60]  # the snippet starts near the match


def test_global_hit_scrolls_the_global_editor_to_its_section(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    ctx.search = SearchIndex(ctx.store)
    glob = GlobalTab(ctx)
    qtbot.addWidget(glob)
    glob.refresh()
    tab = _tab(ctx, qtbot)
    sections: list[str] = []
    tab.open_global_section.connect(sections.append)
    tab.search_box.setText("vim")
    tab.run_search_now()
    row = next(i for i, h in enumerate(tab.last_search_hits) if h.scope_key is None)
    tab.search_view.activated.emit(tab.search_model.index(row, 0))
    assert sections and reveal_heading(glob.editor, sections[0])
    assert glob.editor.textCursor().block().text() == "# User Preferences"


def test_right_pane_tabs_fit_and_description_keeps_room(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.resize(1340, 760)  # the tab's share of the default 1360x820 window
    tab.show()
    _open(tab, sample["alpha"])
    qtbot.waitUntil(lambda: tab.detail.width() > 0)
    bar = tab.detail.tabBar()
    assert not tab.detail.usesScrollButtons()
    for i in range(tab.detail.count()):
        assert bar.tabRect(i).right() <= tab.detail.width()  # every label is on screen
        assert bar.tabRect(i).width() >= bar.fontMetrics().horizontalAdvance(tab.detail.tabText(i)) * 0.9
    assert tab.rec_view.columnWidth(2) >= 150  # Description never collapses


def test_revert_undoes_a_staged_delete(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, sample["alpha"])
    _click_record(tab, qtbot, "code-style")
    qtbot.mouseClick(tab.delete_button, Qt.MouseButton.LeftButton)
    assert "code-style" in tab.staged
    assert tab.editor.revert_button.isEnabled()
    qtbot.mouseClick(tab.editor.revert_button, Qt.MouseButton.LeftButton)
    assert "code-style" not in tab.staged
    assert tab.editing_name == "code-style" and tab.desc_edit.text() == "Prefer small functions"
    assert not tab.editor.revert_button.isEnabled()


def test_untouched_template_is_not_a_valid_record(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, sample["alpha"])
    qtbot.mouseClick(tab.new_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(tab.name_edit, "my-fact")
    qtbot.keyClicks(tab.desc_edit, "A fact")
    assert not tab.stage_button.isEnabled()
    assert "still the template" in tab.validation_label.text()
    tab.body_edit.setPlainText("\nThe deploy needs a VPN.\n")
    assert tab.stage_button.isEnabled()
    assert "Valid record" in tab.validation_label.text()


def test_empty_root_explains_and_offers_a_folder_and_the_demo(
    ctx: AppContext, dialogs: ScriptedDialogs, qtbot: Any, tmp_path: Path
) -> None:
    tab = _tab(ctx, qtbot)
    tab.show()
    panel = tab.records.empty
    assert panel.isVisible() and not tab.rec_view.isVisible()
    assert "create one the first time they run in a folder" in panel.label.text()
    demo: list[bool] = []
    tab.demo_requested.connect(lambda: demo.append(True))
    qtbot.mouseClick(panel.demo_button, Qt.MouseButton.LeftButton)
    assert demo == [True]
    folder = tmp_path / "projects" / "fresh"
    folder.mkdir(parents=True)
    dialogs.push(str(folder))
    qtbot.mouseClick(panel.create_button, Qt.MouseButton.LeftButton)
    assert [w.cwd for w in ctx.store.list_workspaces()] == [str(folder)]
    assert tab.current_key is not None and tab.new_button.isEnabled() and tab.new_button.isVisible()
    assert not panel.isVisible()
    assert "Created the workspace fresh" in tab.banner.text


# --- power tools ------------------------------------------------------------------------------------


def test_bulk_delete_and_type_change_stage_one_batch(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, alpha)
    _select(tab, ["build-steps", "release-notes"])
    bar = tab.records.bulk_bar
    assert bar.isVisible() and "2" in bar.label.text()
    bar.type_combo.activated.emit(bar.type_combo.findData("feedback"))
    _select(tab, ["code-style"])
    assert not bar.isVisible()  # one row: the editor is enough
    _select(tab, ["code-style", "broken"])
    qtbot.mouseClick(bar.delete_button, Qt.MouseButton.LeftButton)
    assert tab.detail.currentWidget() is tab.staged_panel
    diff = tab.staged_diff()
    assert "+  type: feedback" in diff and "a/code-style.md" in diff and "a/broken.md" in diff
    assert tab.detail.tabText(1) == "Staged changes (4)"
    before = _names_on_disk(ctx, alpha.key)
    assert before == ["broken", "build-steps", "code-style", "release-notes"]  # nothing written yet
    qtbot.mouseClick(tab.commit_button, Qt.MouseButton.LeftButton)
    assert _names_on_disk(ctx, alpha.key) == ["build-steps", "release-notes"]
    assert "type: feedback" in _file(ctx, alpha, "release-notes")
    entry = ctx.store.history.commit_log(alpha.key)[0]
    assert len(entry.changes) == 4  # one commit


def test_bulk_move_and_copy_to_another_workspace(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha, beta = sample["alpha"], sample["beta"]
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, alpha)
    bar = tab.records.bulk_bar
    _select(tab, ["build-steps", "code-style"])
    bar.target_combo.setCurrentIndex(bar.target_combo.findData(beta.key))
    qtbot.mouseClick(bar.move_button, Qt.MouseButton.LeftButton)
    diff = tab.staged_diff()
    assert "b/项目-beta/build-steps.md" in diff and "a/项目-beta/MEMORY.md" in diff
    assert "build-steps → 项目-beta" in tab.staged_panel.label.text()
    qtbot.mouseClick(tab.commit_button, Qt.MouseButton.LeftButton)
    assert _names_on_disk(ctx, beta.key) == ["build-steps", "code-style", "packaging"]
    assert _names_on_disk(ctx, alpha.key) == ["broken", "release-notes"]
    _select(tab, ["broken", "release-notes"])
    bar.target_combo.setCurrentIndex(bar.target_combo.findData(beta.key))
    qtbot.mouseClick(bar.copy_button, Qt.MouseButton.LeftButton)
    assert "broken" in tab.banner.text and "Not staged" in tab.banner.text  # invalid: never copied
    qtbot.mouseClick(tab.commit_button, Qt.MouseButton.LeftButton)
    assert "release-notes" in _names_on_disk(ctx, beta.key) and "release-notes" in _names_on_disk(ctx, alpha.key)


def test_bulk_export_writes_only_the_selection(
    ctx: AppContext, sample: Sample, dialogs: ScriptedDialogs, qtbot: Any, tmp_path: Path
) -> None:
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, sample["alpha"])
    _select(tab, ["build-steps", "code-style"])
    out = tmp_path / "exports"
    out.mkdir()
    dialogs.push(str(out))
    qtbot.mouseClick(tab.records.bulk_bar.export_button, Qt.MouseButton.LeftButton)
    (zpath,) = out.glob("*.zip")
    with zipfile.ZipFile(zpath) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        names = sorted(n for n in zf.namelist() if not n.endswith(("MEMORY.md", "manifest.json")))
    assert manifest["workspaces"][0]["records"] == ["build-steps", "code-style"]
    assert [n.rsplit("/", 1)[1] for n in names] == ["build-steps.md", "code-style.md"]
    assert "Exported 2 record(s)" in tab.banner.text


def test_undo_last_commit_button_and_undo_of_undo(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, alpha)
    original = _file(ctx, alpha, "code-style")
    _click_record(tab, qtbot, "code-style")
    tab.desc_edit.setText("Prefer tiny functions")
    tab.save()
    assert "tiny" in _file(ctx, alpha, "code-style")
    qtbot.mouseClick(tab.undo_button, Qt.MouseButton.LeftButton)
    assert _file(ctx, alpha, "code-style") == original
    assert "Undid the last commit" in tab.banner.text and "code-style" in tab.banner.text
    assert tab.desc_edit.text() == "Prefer small functions"
    qtbot.mouseClick(tab.undo_button, Qt.MouseButton.LeftButton)  # undo of the undo: the edit is back
    assert "tiny" in _file(ctx, alpha, "code-style")


def test_undo_is_refused_when_the_files_changed(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, alpha)
    _click_record(tab, qtbot, "code-style")
    tab.desc_edit.setText("Prefer tiny functions")
    tab.save()
    path = ctx.root / "workspaces" / alpha.key / "code-style.md"
    path.write_text(path.read_text().replace("tiny", "agent-edited"))
    qtbot.mouseClick(tab.undo_button, Qt.MouseButton.LeftButton)
    assert "changed after that commit" in tab.banner.text and tab.banner.level == "warning"
    assert "agent-edited" in path.read_text()


def test_global_tab_undo_last_commit(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    glob = GlobalTab(ctx)
    qtbot.addWidget(glob)
    glob.refresh()
    before = glob.editor.toPlainText()
    glob.editor.setPlainText(before + "\n# General Tips\n\nUse rg.\n")
    glob.save()
    assert "Use rg." in ctx.store.read_global().text
    qtbot.mouseClick(glob.undo_button, Qt.MouseButton.LeftButton)
    assert ctx.store.read_global().text == before
    assert glob.editor.toPlainText() == before
    assert "Undid the last commit" in glob.banner.text


def test_record_shows_the_consolidation_that_wrote_it(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    alpha = sample["alpha"]
    receipt = Receipt(
        review_id="rev-20261201-abc",
        status="committed",
        session_id="sess-7f3a9c21d0e4",
        session_revision="r1",
        workspace_key=alpha.key,
        cwd=alpha.info.cwd,
        seq_range=(3, 9),
        consolidator="offline",
        created="2026-12-01T10:00:00+00:00",
        updated="2026-12-01T10:05:00+00:00",
        global_revision_before="g0",
        workspace_revision_before="w0",
        changes=(ChangeSummary(id="c1", kind="put", target="release-notes.md", decision="accepted"),),
    )
    ctx.store.files(RECEIPTS).write(receipt.review_id, render_receipt(receipt))
    tab = _tab(ctx, qtbot)
    tab.show()
    _open(tab, alpha)
    asked: list[str] = []
    tab.receipt_requested.connect(asked.append)
    _click_record(tab, qtbot, "release-notes")
    label = tab.editor.provenance_label
    assert "sess-7f3a9c2" in label.text() and "3–9" in label.text()
    label.linkActivated.emit("rev-20261201-abc")
    assert asked == ["rev-20261201-abc"]
    _click_record(tab, qtbot, "code-style")
    assert tab.editor.provenance_label.text() == ""
    # While DSH still has the session, the link names it by its title (receipts keep only the id).
    from tests.gui.test_consolidation_tab import write_session

    write_session(ctx.sessions_root, "sess-7f3a9c21d0e4", alpha.info.cwd, ["Tag releases."], "Fix the flaky CI job")
    _open(tab, sample["beta"])  # provenance is read each time a workspace is opened
    _open(tab, alpha)
    _click_record(tab, qtbot, "release-notes")
    assert "“Fix the flaky CI job”" in tab.editor.provenance_label.text()


def test_bulk_stage_keeps_seed_helper_usable(ctx: AppContext, qtbot: Any, tmp_path: Path) -> None:
    """Bulk bar lists only other workspaces as targets."""
    a = seed_workspace(ctx.store, tmp_path / "p" / "one", [record("x"), record("y")])
    b = seed_workspace(ctx.store, tmp_path / "p" / "two", [])
    tab = _tab(ctx, qtbot)
    tab.show()
    assert tab.select_workspace(a.key)
    _select(tab, ["x", "y"])
    combo = tab.records.bulk_bar.target_combo
    assert [combo.itemData(i) for i in range(combo.count())] == [b.key]
    assert [tab.rec_proxy.index(r, 0).data(KEY_ROLE) for r in range(tab.rec_proxy.rowCount())] == ["x", "y"]


def test_bulk_targets_follow_workspaces_listed_while_the_bar_was_hidden(
    ctx: AppContext, qtbot: Any, tmp_path: Path
) -> None:
    """The target list is filled when a multi-selection shows the bar (not on every click: a big
    root has 1,000 targets), so a workspace added meanwhile is there, and the shown one never is."""
    a = seed_workspace(ctx.store, tmp_path / "p" / "one", [record("x"), record("y")])
    b = seed_workspace(ctx.store, tmp_path / "p" / "two", [record("z"), record("w")])
    tab = _tab(ctx, qtbot)
    tab.show()
    assert tab.select_workspace(a.key)
    combo = tab.records.bulk_bar.target_combo
    _select(tab, ["x", "y"])
    assert [combo.itemData(i) for i in range(combo.count())] == [b.key]
    _select(tab, ["x"])
    assert not tab.records.bulk_bar.isVisible()
    c = seed_workspace(ctx.store, tmp_path / "p" / "three", [])
    tab.refresh()
    _select(tab, ["x", "y"])
    assert tab.records.bulk_bar.isVisible()
    assert sorted(combo.itemData(i) for i in range(combo.count())) == sorted([b.key, c.key])
    assert tab.select_workspace(b.key)
    _select(tab, ["z", "w"])
    assert sorted(combo.itemData(i) for i in range(combo.count())) == sorted([a.key, c.key])
