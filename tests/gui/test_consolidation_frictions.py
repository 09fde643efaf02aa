"""Session Consolidation frictions a new user hit (issue 14), and provenance from a receipt."""

from __future__ import annotations

import socket
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from core.settings import load_settings
from gui.context import AppContext
from gui.qtmodels.consolidation_models import SessionTableModel
from gui.tabs.settings import SettingsTab
from gui.widgets.review_mask import MASK
from tests.gui import test_consolidation_tab as base
from tests.gui.test_consolidation_tab import PROMPTS, make_tab, row_of_target, run_offline, use_model, write_session

project = base.project  # the same fixtures: a project folder, a sessions root with its sessions
sessions = base.sessions

TOKEN = "ghp_Zx9Qk2Lm8Np4Rt6Vw1Yb3Cd5Ef7Gh9Jk0LmNp"


def test_a_refused_secret_is_masked_in_the_diff_and_editor_until_revealed(
    qtbot: QtBot, ctx: AppContext, sessions: Path
) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    secret = next(i for i, r in enumerate(tab.changes_model.change_rows()) if r.change.problems)
    tab.changes_view.selectRow(secret)
    panel, editor = tab.diff_panel, tab.editor
    assert TOKEN not in panel.unified.diff_text() and MASK in panel.unified.diff_text()
    assert TOKEN not in panel.side_by_side.right.toPlainText()
    assert TOKEN not in editor.body.toPlainText() and MASK in editor.body.toPlainText()
    assert panel.reveal_button.isVisibleTo(tab) and not editor.reveal_button.isHidden()

    assert not editor.body.isEnabled()  # a masked record cannot be edited (the dots would be saved)
    panel.reveal_button.click()  # the explicit click
    assert TOKEN in panel.unified.diff_text() and TOKEN in panel.side_by_side.right.toPlainText()
    editor.reveal_button.click()
    assert TOKEN in editor.body.toPlainText()

    other = row_of_target(tab, "trunk-stable")
    tab.changes_view.selectRow(other)
    assert not panel.reveal_button.isVisibleTo(tab)  # nothing hidden in this one
    tab.changes_view.selectRow(secret)
    assert TOKEN not in panel.unified.diff_text() and TOKEN not in editor.body.toPlainText()  # masked again


def test_long_titles_elide_in_the_middle_and_keep_the_room(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    title = "Investigate why the nightly packaging job on the release branch times out after signing"
    write_session(Path(ctx.sessions_root), "s-long", str(project), PROMPTS[:1], title)
    tab = make_tab(qtbot, ctx)
    tab.show()
    view, model = tab.sessions_view, tab.session_model
    assert view.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert title in model.index(0, SessionTableModel.TITLE).data(Qt.ItemDataRole.ToolTipRole)
    assert view.isColumnHidden(SessionTableModel.VERSION)
    header = view.horizontalHeader()
    date_text = model.index(0, SessionTableModel.DATE).data()
    assert header.sectionSize(SessionTableModel.DATE) <= view.fontMetrics().horizontalAdvance(date_text) + 40
    assert header.sectionSize(SessionTableModel.TITLE) > header.sectionSize(SessionTableModel.DATE)


def test_the_summary_says_the_counts_in_words(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    tab.review_panel.set_all(False)
    tab.set_accepted(tab.changes_model.change_row(row_of_target(tab, "trunk-stable")).change.id, True)
    tab.commit_button.click()
    text = tab.banner.text
    assert "changes proposed" in text and "1 accepted" in text and "refused by the checks" in text
    assert "put" not in text.split("Receipt")[0]
    assert "changes proposed" in tab.receipt_text() and "put;" not in tab.receipt_text()


def test_another_session_clears_the_old_receipt_and_the_already_reviewed_banner(
    qtbot: QtBot, ctx: AppContext, sessions: Path, project: Path
) -> None:
    write_session(Path(ctx.sessions_root), "sess-alpha-2", str(project), PROMPTS[:1], "Second session")
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    tab.review_panel.set_all(True)
    tab.commit_button.click()
    run_offline(tab)  # already reviewed: its receipt and the banner
    assert "already reviewed" in tab.banner.text and tab.receipt_text()

    assert tab.select_session("sess-alpha-2")
    assert tab.banner.text == "" or "already reviewed" not in tab.banner.text
    assert tab.receipt_text() == ""


def test_a_failed_run_does_not_leave_the_previous_receipt_showing(
    qtbot: QtBot, ctx: AppContext, sessions: Path, project: Path
) -> None:
    write_session(Path(ctx.sessions_root), "sess-alpha-2", str(project), PROMPTS[:1], "Second session")
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    tab.review_panel.set_all(True)
    tab.commit_button.click()
    assert tab.receipt_text()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: the model call fails
    use_model(ctx, f"http://127.0.0.1:{port}/v1")
    tab.refresh()
    assert tab.select_session("sess-alpha-2")
    tab.review_panel.show_receipt(tab.last_receipt.review_id if tab.last_receipt else "")  # still looking at it
    tab.run_selected()
    assert tab.banner.level == "error" and "Consolidation failed" in tab.banner.text
    assert tab.receipt_text() == ""


def test_the_consolidator_is_one_choice_remembered_in_settings(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    tab.consolidator_box.setCurrentIndex(1)
    tab.consolidator_box.activated.emit(1)  # the user picks "Model" in the tab
    assert load_settings(ctx.store).settings.consolidator == "model"

    settings = SettingsTab(ctx)
    qtbot.addWidget(settings)
    settings.refresh()
    assert settings.consolidator_combo.currentData() == "model"  # the same choice
    settings.consolidator_combo.setCurrentIndex(settings.consolidator_combo.findData("offline"))
    settings.save_button.click()
    assert load_settings(ctx.store).settings.consolidator == "offline"

    tab.hide()
    tab.show()  # back on the tab: it shows what Settings saved
    assert tab.consolidator_box.currentData() == "offline"


def test_a_receipt_links_to_the_records_it_wrote(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    tab.review_panel.set_all(False)
    target = tab.changes_model.change_row(row_of_target(tab, "trunk-stable")).change
    tab.set_accepted(target.id, True)
    tab.commit_button.click()
    receipt = tab.last_receipt
    assert receipt is not None
    name = target.target.removesuffix(".md")
    assert tab.review_panel.touched_names() == [name]
    with qtbot.waitSignal(tab.record_requested) as signal:
        tab.review_panel.open_record_button.click()
    assert signal.args == [receipt.workspace_key, name]
    assert ctx.store.read_workspace(receipt.workspace_key).get(name) is not None


def test_open_receipt_selects_it_even_before_the_tab_listed(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    first = make_tab(qtbot, ctx)
    run_offline(first)
    first.review_panel.set_all(True)
    first.commit_button.click()
    receipt = first.last_receipt
    assert receipt is not None

    tab = make_tab(qtbot, ctx)
    assert tab.open_receipt(receipt.review_id)
    assert tab.right_tabs.currentIndex() == 1
    assert "Release branch and commit style" in tab.receipt_text()
    assert not tab.open_receipt("rv-does-not-exist")


def test_open_record_from_a_receipt_shows_it_in_the_workspace_tab(
    qtbot: QtBot, ctx: AppContext, sessions: Path
) -> None:
    from gui.main_window import MainWindow

    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    window.show()
    window.show_tab("consolidation")
    tab = window.tabs["consolidation"]
    tab.refresh()
    run_offline(tab)
    tab.review_panel.set_all(False)
    target = tab.changes_model.change_row(row_of_target(tab, "trunk-stable")).change
    tab.set_accepted(target.id, True)
    tab.commit_button.click()

    tab.review_panel.open_record_button.click()  # the provenance link, through the main window
    assert window.current_key() == "workspace"
    workspace = window.tabs["workspace"]
    assert workspace.editor.editing_name == target.target.removesuffix(".md")
    window.shutdown()
