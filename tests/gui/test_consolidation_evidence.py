"""Issue 26 in the Session Consolidation tab: the transcript (before and during review, cited seqs
highlighted), supersede/contradict with Replace / Keep both / Merge, Rename, and newcomer frictions.
Real session files in tmp, the real FileStore, a real loopback model server, real widgets offscreen."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from core.consolidation.review_sources import PendingItem
from core.models import PutOp, Record
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.qtmodels.consolidation_models import PendingListModel, ReviewChangesModel
from tests.gui import test_consolidation_tab as base
from tests.gui.test_consolidation_tab import _ModelServer, make_tab, run_offline, use_model, write_session

project = base.project  # the same fixtures: a project folder, a sessions root with its sessions
sessions = base.sessions
CODEWORD = "The codeword changed: it is SAFFRON now, remember that."


def _session_with_tools(root: Path, cwd: str) -> None:
    """A session whose log holds a tool call with a body that must never be shown."""
    folder = write_session(root, "sess-tools", cwd, [CODEWORD, "Please rerun the tests."], "Codeword and tests")
    log = folder / "session.jsonl"
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    call = {"type": "tool/call", "seq": 40, "time": 1, "data": {"callId": "c1", "name": "bash", "arguments": "{}"}}
    result = {
        "type": "tool/result",
        "seq": 41,
        "time": 2,
        "data": {
            "callId": "c1",
            "content": [{"type": "text", "text": "SECRET-TOOL-BODY rm -rf build"}],
            "isError": False,
        },
    }
    rows[-1:-1] = [call, result]
    stat = log.stat()
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    os.utime(log, (stat.st_atime, stat.st_mtime))


def _with_record(ctx: AppContext, cwd: str, name: str, fact: str) -> None:
    snap = ctx.store.create_workspace(cwd)
    record = Record(name=name, description=fact.rstrip("."), type="project", body=f"\n{fact}\n")
    ctx.store.commit(snap.key, [PutOp(record=record)], snap.revision)


def test_selecting_a_session_previews_its_transcript_without_tool_bodies(
    qtbot: QtBot, ctx: AppContext, project: Path
) -> None:
    _session_with_tools(Path(ctx.sessions_root), str(project))
    tab = make_tab(qtbot, ctx)
    assert tab.select_session("sess-tools")
    pane = tab.review_panel.transcript_pane
    text = pane.text()
    assert "SAFFRON" in text and "Please rerun the tests." in text  # the user's words
    assert "Noted." in text  # the assistant's
    assert "bash" in text and "SECRET-TOOL-BODY" not in text  # tool names, never bodies
    assert "ctx" not in text.split("\n")  # injected (plugin) context is not the user's
    assert tab.review_panel.detail_tabs.currentWidget() is pane
    assert tab.review is None  # a preview runs nothing


def test_a_change_shows_the_users_words_and_highlights_them_in_the_transcript(
    qtbot: QtBot, ctx: AppContext, project: Path
) -> None:
    _session_with_tools(Path(ctx.sessions_root), str(project))
    tab = make_tab(qtbot, ctx)
    run_offline(tab, "sess-tools")
    assert tab.review is not None
    [row] = [i for i, r in enumerate(tab.changes_model.change_rows()) if "saffron" in r.change.target]
    tab.changes_view.selectRow(row)
    panel = tab.review_panel
    assert "The user's words:" in panel.quote_label.text() and "SAFFRON" in panel.quote_label.text()
    assert panel.transcript_pane.highlighted_seqs() == [1]
    assert panel.detail_tabs.currentIndex() == 0  # the diff first; the transcript is one tab away


MODEL_ANSWER: dict[str, Any] = {
    "summary": "The codeword changed.",
    "changes": [
        {
            "op": "put",
            "record": {
                "name": "codeword-saffron",
                "description": "The release codeword is SAFFRON",
                "type": "project",
                "body": "The release codeword is SAFFRON.\n",
            },
            "reason": "the user gave the new codeword",
            "evidence": [1],
        }
    ],
}


def _supersede_review(qtbot: QtBot, ctx: AppContext, project: Path, server: _ModelServer) -> Any:
    _with_record(ctx, str(project), "release-codeword", "The release codeword is MARMALADE.")
    write_session(Path(ctx.sessions_root), "sess-code", str(project), [CODEWORD], "Codeword")
    use_model(ctx, server.base_url)
    tab = make_tab(qtbot, ctx)
    assert tab.select_session("sess-code")
    tab.run_button.click()
    assert tab.review is not None
    tab.changes_view.selectRow(0)
    return tab


def test_a_superseding_change_offers_replace_and_replace_updates_the_old_record(
    qtbot: QtBot, ctx: AppContext, project: Path
) -> None:
    with _ModelServer(MODEL_ANSWER) as server:
        tab = _supersede_review(qtbot, ctx, project, server)
        panel = tab.review_panel
        assert panel.relation_bar.isVisibleTo(tab)
        assert "Supersedes [[release-codeword]]" in panel.relation_label.text()
        notes = tab.changes_model.data(tab.changes_model.index(0, ReviewChangesModel.NOTES))
        assert "supersedes [[release-codeword]] (MARMALADE → SAFFRON)" in notes
        panel.replace_button.click()
        current = tab.changes_model.change_row(0).current
        assert current.target == "release-codeword.md" and "SAFFRON" in (current.after or "")
        assert not panel.relation_bar.isVisibleTo(tab)  # settled
        tab.commit_button.click()
        assert tab.last_receipt is not None and tab.last_receipt.status == "committed"
    snap = ctx.store.find_workspace(str(project))
    assert snap is not None and [r.name for r in snap.records()] == ["release-codeword"]
    assert "SAFFRON" in snap.records()[0].body and "MARMALADE" not in snap.records()[0].body


def test_keep_both_and_merge(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    with _ModelServer(MODEL_ANSWER) as server:
        tab = _supersede_review(qtbot, ctx, project, server)
        panel = tab.review_panel
        panel.merge_relation_button.click()
        merged = tab.changes_model.change_row(0).current
        assert merged.target == "release-codeword.md" and "MARMALADE" in (merged.after or "")
        assert "SAFFRON" in (merged.after or "")
        tab.edits.revert()
        assert panel.relation_bar.isVisibleTo(tab)  # back to the proposal: the choice is offered again
        panel.keep_button.click()
        assert not panel.relation_bar.isVisibleTo(tab)
        assert tab.changes_model.change_row(0).current.target == "codeword-saffron.md"
        assert tab.changes_model.change_row(0).accepted


def test_rename_a_proposed_record_and_the_diff_follows(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    dialogs = ctx.dialogs
    assert isinstance(dialogs, ScriptedDialogs)
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    row = next(i for i, r in enumerate(tab.changes_model.change_rows()) if r.change.kind == "put" and r.acceptable)
    tab.changes_view.selectRow(row)
    assert tab.review_panel.rename_button.isEnabled()
    dialogs.push("Not A Valid Name")
    tab.review_panel.rename_button.click()
    assert "Not renamed" in tab.banner.text
    assert tab.changes_model.change_row(row).edited is None  # an invalid name changes nothing
    dialogs.push("release-branch")
    tab.review_panel.rename_button.click()
    current = tab.changes_model.change_row(row).current
    assert current.target == "release-branch.md" and "release-branch.md" in current.diff
    assert "name: release-branch" in (current.after or "")
    assert tab.changes_model.change_row(row).accepted


def test_bulk_buttons_are_off_when_there_is_nothing_to_accept(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    write_session(Path(ctx.sessions_root), "sess-plain", str(project), ["Can you run the tests?"], "Just tests")
    tab = make_tab(qtbot, ctx)
    run_offline(tab, "sess-plain")
    assert tab.review is not None and not tab.review.actionable
    assert not tab.accept_all_button.isEnabled() and not tab.reject_all_button.isEnabled()


def test_switching_workspace_takes_the_previous_review_off_screen(
    qtbot: QtBot, ctx: AppContext, sessions: Path, tmp_path: Path
) -> None:
    other = tmp_path / "projects" / "beta"
    other.mkdir(parents=True)
    write_session(Path(ctx.sessions_root), "sess-beta", str(other), ["Remember that beta ships weekly."], "Beta")
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    assert tab.review is not None
    row = next(i for i in range(tab.workspace_model.rowCount()) if tab.workspace_model.choice(i).cwd == str(other))
    tab.workspace_box.setCurrentIndex(row)
    tab.workspace_box.activated.emit(row)
    assert tab.review is None
    assert tab.review_title.text() == tab.review_panel.tr("Run a consolidator on a session to review what it proposes.")


def test_long_record_names_are_never_cut_mid_word(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    long_fact = "Remember that the metrics dashboard for payments reconciliation lives at grafana"
    write_session(Path(ctx.sessions_root), "sess-long", str(project), [long_fact], "Long")
    tab = make_tab(qtbot, ctx)
    run_offline(tab, "sess-long")
    target = tab.changes_model.change_row(0).change.target
    column = tab.changes_view.columnWidth(ReviewChangesModel.TARGET)
    needed = tab.changes_view.fontMetrics().horizontalAdvance(target)
    assert column >= needed, (target, column, needed)


def test_the_stale_badge_is_translated_text_of_the_view(qtbot: QtBot) -> None:
    model = PendingListModel()
    model.set_items([PendingItem("agent", "rv-1", "An agent", "2026-01-01T10:00:00", stale=True)])
    label = model.data(model.index(0))
    assert label.endswith(model.tr("⚠ memory changed since"))
    assert "⚠" not in PendingItem("agent", "rv-1", "An agent", "2026-01-01T10:00:00", stale=True).label


def test_open_record_opens_the_highlighted_record_even_when_the_workspace_loads_later(
    qtbot: QtBot, ctx: AppContext, sessions: Path
) -> None:
    from gui.main_window import MainWindow
    from gui.tasks import SyncTaskRunner, ThreadPoolTaskRunner

    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    window.show()
    window.show_tab("consolidation")
    tab = window.tabs["consolidation"]
    tab.refresh()
    run_offline(tab)
    tab.review_panel.set_all(True)
    tab.commit_button.click()
    names = tab.review_panel.touched_names()
    assert len(names) >= 2
    tab.review_panel.touched_list.setCurrentRow(len(names) - 1)  # not the first one
    wanted = names[-1]
    runner = ThreadPoolTaskRunner()
    ctx.runner = runner  # the workspace loads on a worker, as in the app
    try:
        window.tabs["workspace"].jobs._runner = runner
        tab.review_panel.open_record_button.click()
        workspace = window.tabs["workspace"]
        qtbot.waitUntil(lambda: workspace.snapshot is not None, timeout=10000)
        qtbot.waitUntil(lambda: workspace.editor.editing_name == wanted, timeout=10000)
    finally:
        assert runner.wait_all(10000)
        ctx.runner = SyncTaskRunner()
    window.shutdown()


def test_news_in_the_banner_does_not_push_the_review_down(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    write_session(Path(ctx.sessions_root), "sess-plain", str(project), ["Can you run the tests?"], "Just tests")
    tab = make_tab(qtbot, ctx)
    tab.show()
    qtbot.waitExposed(tab)
    top = tab.splitter.geometry().top()
    run_offline(tab, "sess-plain")  # "found nothing new": news, not a problem
    assert "nothing new" in tab.banner.text
    assert tab.splitter.geometry().top() == top
    tab.banner.show_message("error", "Something failed")  # a problem still stays in the layout
    qtbot.waitUntil(lambda: tab.splitter.geometry().top() > top)
