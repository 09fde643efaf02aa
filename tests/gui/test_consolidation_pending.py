"""The Session Consolidation tab's other sources: agent proposals (MCP, review mode) and reviews
saved before a restart — real FileStore, real AgentSession, real receipts and saved reviews on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from core.consolidation.receipts import parse_receipt
from core.mcp.agent import AgentSession
from core.store.files import AGENT_PROPOSALS, RECEIPTS, REVIEW_STATES
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.tabs.consolidation import ConsolidationTab
from tests.gui.conftest import make_ctx, record, seed_workspace
from tests.gui.test_consolidation_tab import (
    make_tab,
    project,
    row_of_target,
    run_offline,
    sessions,
    write_session,
)

__all__ = ["project", "sessions"]  # fixtures shared with the tab tests

BODY = (
    "Releases ship on Thursday afternoons, never on Fridays.\n\n**Why:** the on-call rotation changes "
    "on Friday.\n\n**How to apply:** propose release PRs so they can merge by Thursday noon."
)


def agent_proposes(ctx: AppContext, project: Path, changes: list[dict[str, Any]] | None = None) -> str:
    """A connected agent (review mode) reads the workspace, then proposes; returns the proposal id."""
    agent = AgentSession(ctx.store, str(project), client="claude-code", connection="mcp-test")
    observed = agent.recall("release").rstrip().splitlines()[-1].removeprefix("observed: ")  # the handle
    changes = changes or [
        {"op": "put", "name": "release-day", "description": "Releases ship on Thursday afternoons",
         "type": "project", "body": BODY},
    ]  # fmt: skip
    answer = json.loads(agent.update(changes, "The user said releases ship on Thursdays.", observed))
    return str(answer["proposal_id"])


def open_agents(tab: ConsolidationTab) -> None:
    tab.choose_source("agent")
    assert not tab.sessions.isVisible() or not tab.isVisible()


def test_agent_proposal_is_listed_opened_and_committed(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    seed_workspace(ctx.store, project, [record("deploy-steps")])
    pid = agent_proposes(ctx, project)
    tab = make_tab(qtbot, ctx)
    open_agents(tab)
    items = tab.pending.items()
    assert [i.review_id for i in items] == [pid]
    assert "claude-code" in tab.pending.model.data(tab.pending.model.index(0))
    assert tab.select_pending(pid)
    assert tab.review is not None and tab.review.review_id == pid
    summary = tab.review_summary.text()
    assert "The agent's reason: The user said releases ship on Thursdays." in summary
    assert "seqs" not in summary  # agents bring no session
    assert tab.review_panel.delete_button.text() == "Reject proposal"
    tab.accept_all_button.click()
    tab.commit_button.click()
    snap = ctx.store.find_workspace(str(project))
    assert snap is not None and "release-day" in {r.name for r in snap.records()}
    # Settled: it leaves the pending list after the refresh the commit asked for.
    assert tab.pending.items() == []
    receipt = parse_receipt(ctx.store.files(RECEIPTS).read(pid) or "")
    assert receipt is not None and receipt.status == "committed"


def test_stale_agent_proposal_has_a_badge_and_a_conflict_rechecks(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    snap = seed_workspace(ctx.store, project, [record("deploy-steps")])
    pid = agent_proposes(ctx, project)
    from core.models import PutOp

    ctx.store.commit(snap.key, [PutOp(record=record("someone-else"))], ctx.store.find_workspace(str(project)).revision)  # type: ignore[union-attr]
    tab = make_tab(qtbot, ctx)
    open_agents(tab)
    (item,) = tab.pending.items()
    assert item.stale
    assert "memory changed since" in tab.pending.model.data(tab.pending.model.index(0))
    tab.select_pending(pid)
    assert "Memory changed since the agent read it" in tab.banner.text
    tab.accept_all_button.click()
    tab.commit_button.click()
    # A conflict writes nothing; the proposal is re-checked against memory as it is now.
    names = {r.name for r in ctx.store.find_workspace(str(project)).records()}  # type: ignore[union-attr]
    assert "release-day" not in names
    assert "Memory changed while you were reviewing" in tab.banner.text
    assert tab.review is not None and tab.review.review_id == pid
    tab.accept_all_button.click()
    tab.commit_button.click()
    names = {r.name for r in ctx.store.find_workspace(str(project)).records()}  # type: ignore[union-attr]
    assert "release-day" in names


def test_reject_an_agent_proposal_asks_first(
    qtbot: QtBot, ctx: AppContext, dialogs: ScriptedDialogs, project: Path
) -> None:
    seed_workspace(ctx.store, project, [record("deploy-steps")])
    pid = agent_proposes(ctx, project)
    tab = make_tab(qtbot, ctx)
    open_agents(tab)
    tab.select_pending(pid)
    dialogs.push(False)
    tab.review_panel.delete_button.click()
    assert tab.pending.items() and ctx.store.files(AGENT_PROPOSALS).read(pid) is not None
    dialogs.push(True)
    tab.review_panel.delete_button.click()
    assert tab.pending.items() == []
    receipt = parse_receipt(ctx.store.files(RECEIPTS).read(pid) or "")
    assert receipt is not None and receipt.status == "rejected"
    assert {r.name for r in ctx.store.find_workspace(str(project)).records()} == {"deploy-steps"}  # type: ignore[union-attr]


def test_similar_record_offers_merge_into_existing(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    existing = record(
        "release-schedule",
        "Releases ship on Thursday afternoons",
        body="\nReleases ship on Thursday afternoons, never on Fridays.\n\n**Why:** the on-call rotation "
        "changes on Friday.\n\nPropose release PRs so they merge by Thursday noon.\n",
    )
    seed_workspace(ctx.store, project, [existing])
    pid = agent_proposes(ctx, project)
    tab = make_tab(qtbot, ctx)
    open_agents(tab)
    tab.select_pending(pid)
    row = row_of_target(tab, "release-day")
    tab.changes_view.selectRow(row)
    assert "similar to [[release-schedule]]" in tab.diff_panel.caption.text()
    assert tab.review_panel.merge_button.isVisibleTo(tab)
    tab.review_panel.merge_button.click()
    r = tab.changes_model.change_row(row)
    assert r.edited is not None and r.edited.target == "release-schedule.md" and r.accepted
    # The editor shows the merged record next to the existing one.
    assert tab.detail_tabs.currentIndex() == 1
    assert tab.review_panel.merge_side.isVisibleTo(tab)
    assert "never on Fridays" in tab.review_panel.merge_existing.toPlainText()
    assert "How to apply" in tab.editor.body.toPlainText()
    tab.commit_button.click()
    snap = ctx.store.find_workspace(str(project))
    assert snap is not None and {r.name for r in snap.records()} == {"release-schedule"}
    assert "How to apply" in next(iter(snap.records())).body


def test_pending_review_survives_a_restart_and_can_be_deleted(
    qtbot: QtBot, ctx: AppContext, dialogs: ScriptedDialogs, sessions: Path, tmp_path: Path
) -> None:
    first = make_tab(qtbot, ctx)
    run_offline(first)
    review = first.review
    assert review is not None and review.actionable
    row = row_of_target(first, "trunk-stable")
    first.changes_view.selectRow(row)
    first.editor.description.setText("Release branches are trunk-stable")
    first.editor.apply_button.click()
    first.shutdown()
    # "Restart": a new window (new service) over the same memory root and sessions.
    again = make_ctx(Path(ctx.root), dialogs, tmp_path)
    tab = make_tab(qtbot, again)
    items = tab.pending.items()
    assert [i.review_id for i in items] == [review.review_id]
    assert tab.select_pending(review.review_id)
    shown = tab.review
    assert shown is not None and shown.restored
    assert "Restored from a saved review" in tab.review_summary.text()
    row = row_of_target(tab, "trunk-stable")
    target = tab.changes_model.data(tab.changes_model.index(row, 2))
    assert target.endswith("(edited)")
    # Revert the saved edit: the proposal's own text is back and the saved edit is gone.
    tab.changes_view.selectRow(row)
    tab.editor.revert_button.click()
    assert not tab.changes_model.data(tab.changes_model.index(row, 2)).endswith("(edited)")
    assert tab.editor.description.text() != "Release branches are trunk-stable"
    dialogs.push(True)
    tab.pending.delete_button.click()
    assert tab.pending.items() == []
    receipt = parse_receipt(again.store.files(RECEIPTS).read(review.review_id) or "")
    assert receipt is not None and receipt.status == "discarded"
    assert "Deleted the pending review" in tab.banner.text


def test_proposal_changed_on_disk_at_commit_offers_delete(
    qtbot: QtBot, ctx: AppContext, dialogs: ScriptedDialogs, sessions: Path
) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    review = tab.review
    assert review is not None
    text = ctx.store.files(REVIEW_STATES).read(review.review_id)
    assert text is not None
    ctx.store.files(REVIEW_STATES).write(review.review_id, text.replace("trunk-stable", "trunk-stab1e"))
    tab.accept_all_button.click()
    tab.commit_button.click()
    assert tab.banner.level == "error" and "Nothing was committed" in tab.banner.text
    button = tab.banner.button("Delete this review")
    assert button is not None
    dialogs.push(True)
    button.click()
    receipt = parse_receipt(ctx.store.files(RECEIPTS).read(review.review_id) or "")
    assert receipt is not None and receipt.status == "discarded"


def test_tampered_pending_review_offers_delete(
    qtbot: QtBot, ctx: AppContext, dialogs: ScriptedDialogs, sessions: Path, tmp_path: Path
) -> None:
    first = make_tab(qtbot, ctx)
    run_offline(first)
    review = first.review
    assert review is not None
    first.shutdown()
    text = ctx.store.files(REVIEW_STATES).read(review.review_id)
    assert text is not None
    ctx.store.files(REVIEW_STATES).write(review.review_id, text.replace("trunk-stable", "trunk-stab1e"))
    tab = make_tab(qtbot, make_ctx(Path(ctx.root), dialogs, tmp_path))
    assert tab.pending.items() == []
    assert "Not used" in tab.banner.text and review.review_id in tab.banner.text


def test_session_version_column_and_reader_warnings(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    model = tab.session_model
    headers = [model.headerData(c, Qt_Horizontal()) for c in range(model.columnCount())]
    assert "Version" in headers
    col = headers.index("Version")
    row = model.row_of("sess-alpha-1")
    assert model.data(model.index(row, col)) == "v1"
    assert model.data(model.index(row, 0), Qt_Decoration()) is None  # a clean log: no warning


def test_reader_warnings_show_as_an_icon_and_tooltip(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    import os
    import time

    root = Path(ctx.sessions_root)
    from tests.core.sessions.dsh_log_builders import zstd_frames

    write_session(root, "sess-torn", str(project), ["Remember that we deploy on Tuesdays."], "Two copies")
    log = next(root.rglob("*.jsonl"))
    # Both encodings of one log: the reader picks DSH's own (.zstd) and says so.
    twin = log.with_name(log.name + ".zstd")
    twin.write_bytes(zstd_frames(log.read_bytes()))
    hour_ago = time.time() - 3600
    for f in (log, twin):
        os.utime(f, (hour_ago, hour_ago))
    tab = make_tab(qtbot, ctx)
    model = tab.session_model
    row = model.row_of("sess-torn")
    assert row >= 0
    assert model.data(model.index(row, 0), Qt_Decoration()) is not None
    tip = model.data(model.index(row, 0), Qt_Tooltip())
    assert "exist; read session.jsonl.zstd" in tip


def test_windows_lock_note_is_shown_above_the_sessions(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    from core.sessions.stability import live_session_protection

    tab = make_tab(qtbot, ctx)
    assert not tab.lock_note.isVisibleTo(tab)
    tab.show_lock_note(live_session_protection(600, platform="win32"))
    assert tab.lock_note.isVisibleTo(tab)
    assert "On Windows DSH keeps no session lock" in tab.lock_note.text()


def Qt_Decoration() -> Any:
    from PySide6.QtCore import Qt

    return Qt.ItemDataRole.DecorationRole


def Qt_Tooltip() -> Any:
    from PySide6.QtCore import Qt

    return Qt.ItemDataRole.ToolTipRole


def Qt_Horizontal() -> Any:
    from PySide6.QtCore import Qt

    return Qt.Orientation.Horizontal


# --- batch runs ---------------------------------------------------------------------------------------


def more_sessions(root: Path, project: Path) -> None:
    write_session(root, "sess-alpha-2", str(project), ["Remember that we use pnpm, not npm."], "Package manager")
    write_session(root, "sess-alpha-3", str(project), ["Remember that CI runs on Linux only."], "CI platform")


def test_batch_of_selected_sessions_gives_each_its_own_pending_review(
    qtbot: QtBot, ctx: AppContext, sessions: Path, project: Path
) -> None:
    more_sessions(sessions, project)
    tab = make_tab(qtbot, ctx)
    tab.set_consolidator("offline")
    tab.sessions.select_sessions(["sess-alpha-1", "sess-alpha-2"])
    assert tab.run_button.text() == "Run 2 sessions"
    tab.run_button.click()
    assert "Batch of 2" in tab.banner.text and "nothing was committed" in tab.banner.text
    pending = {i.review_id for i in tab.pending.items()}
    assert len(pending) == 2
    last = tab.session_model.LAST
    statuses = {
        sid: tab.session_model.data(tab.session_model.index(tab.session_model.row_of(sid), last))
        for sid in ("sess-alpha-1", "sess-alpha-2", "sess-alpha-3")
    }
    assert statuses["sess-alpha-1"] == "waiting for review"
    assert statuses["sess-alpha-3"] == "—"  # not in the batch
    snap = ctx.store.find_workspace(str(project))
    assert snap is None or not snap.records()  # nothing committed


def test_run_all_unreviewed_shows_overall_progress_and_cancel_stops_it(
    qtbot: QtBot, ctx: AppContext, sessions: Path, project: Path
) -> None:
    more_sessions(sessions, project)
    tab = make_tab(qtbot, ctx)
    tab.set_consolidator("offline")
    messages: list[str] = []
    table: list[dict[str, str]] = []
    original = tab.batch._progress

    def progress(done: int, total: int, message: str) -> None:
        original(done, total, message)
        messages.append(tab.status_label.text())
        m = tab.session_model
        table.append({m.session_row(r).id: m.data(m.index(r, m.LAST)) for r in range(m.rowCount())})
        if "1 of 3 done" in message and tab.cancel_button.isEnabled():
            tab.cancel_button.click()  # the GUI's Cancel while the batch runs

    tab.batch._progress = progress  # type: ignore[method-assign]
    tab.run_all_button.click()
    assert "Batch: 1 of 3 done" in messages
    # While it ran: one session running, the others queued, per session in the table.
    assert any(sorted(t.values()) == ["queued", "queued", "running…"] for t in table)
    assert "Batch of 3" in tab.banner.text and "cancelled" in tab.banner.text
    assert len(tab.pending.items()) == 1  # the finished one waits; the others never ran


# --- what the model saw ------------------------------------------------------------------------------


def test_what_the_model_saw_and_fallback_note(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    from core.consolidation.proposals import Transcript, TranscriptEntry

    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    review = tab.review
    assert review is not None
    assert not tab.detail_tabs.isTabEnabled(2)  # the offline extractor keeps no transcript
    transcript = Transcript(
        entries=(
            TranscriptEntry(kind="request", text="Here is the session…"),
            TranscriptEntry(kind="tool_call", tool="search_records", arguments='{"query": "release"}'),
            TranscriptEntry(kind="tool_result", tool="search_records", text="release-branch.md"),
        ),
        rounds=1,
        fallback_note="The endpoint does not support tools; the single JSON request was used.",
    )
    shown = review.model_copy(update={"proposal": review.proposal.model_copy(update={"transcript": transcript})})
    tab.show_review(shown)
    assert tab.detail_tabs.isTabEnabled(2)
    assert "[call] search_records(" in tab.review_panel.transcript_view.toPlainText()
    assert "The endpoint does not support tools" in tab.review_summary.text()


def test_new_agent_proposal_appears_on_refresh(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    seed_workspace(ctx.store, project, [record("deploy-steps")])
    tab = make_tab(qtbot, ctx)
    tab.choose_source("agent")
    assert tab.pending.items() == [] and "No agent proposals" in tab.pending.empty_label.text()
    pid = agent_proposes(ctx, project)
    tab.refresh()  # what the window does when the watcher sees reviews/ change
    assert [i.review_id for i in tab.pending.items()] == [pid]


# --- import (issue 12) --------------------------------------------------------------------------------


def test_import_from_workspace_memory_is_reviewed_and_committed(
    qtbot: QtBot, dialogs: ScriptedDialogs, tmp_path: Path, monkeypatch: Any
) -> None:
    from tests.core.sources.sources_support import build_world

    world = build_world(tmp_path / "world")
    monkeypatch.setenv("HOME", str(world.home))
    foreign = world.foreign_state()
    ctx = make_ctx(world.root, dialogs, tmp_path)
    ctx = AppContext(**{**ctx.__dict__, "dsh_home": world.dsh_home})
    tab = make_tab(qtbot, ctx)
    tab.choose_source("import")
    assert tab.pending.import_button.isVisibleTo(tab)
    chosen: list[list[str]] = []
    original = dialogs.choose

    def choose(parent: Any, title: str, text: str, options: list[str]) -> str | None:
        chosen.append(options)
        return next(o for o in options if o.startswith("DSH workspace memory"))

    dialogs.choose = choose  # type: ignore[method-assign]
    tab.pending.import_button.click()
    dialogs.choose = original  # type: ignore[method-assign]
    assert chosen and any(o.startswith("DSH workspace memory") for o in chosen[0])
    items = tab.pending.items()
    assert items and all(i.source == "import" for i in items)
    assert "nothing is written until you commit" in tab.banner.text
    review = tab.review
    assert review is not None and review.consolidator.startswith("import:")
    assert "seqs" not in tab.review_summary.text()
    alpha = next(i for i in items if i.review is not None and i.review.cwd == world.alpha)
    tab.select_pending(alpha.review_id)
    row = row_of_target(tab, "pnpm")
    tab.changes_model.set_accepted(row, True)
    tab.commit_button.click()
    snap = ctx.store.find_workspace(world.alpha)
    assert snap is not None and any("pnpm" in r.body for r in snap.records())
    assert alpha.review_id not in {i.review_id for i in tab.pending.items()}
    assert world.foreign_state() == foreign  # the other store was only read


def test_file_import_menu_opens_the_imports_source(qtbot: QtBot, ctx: AppContext, dialogs: ScriptedDialogs) -> None:
    from gui.main_window import MainWindow

    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    window.import_action.trigger()
    tab = window.tabs["consolidation"]
    assert window.tab_widget.currentWidget() is window.tabs.hosts["consolidation"]
    assert isinstance(tab, ConsolidationTab) and tab.source_filter.source() == "import"
    # An empty machine: said so, nothing else happens.
    assert dialogs.asked and dialogs.asked[-1][0] == "info" and "No other memory store" in dialogs.asked[-1][2]
    window.shutdown()


def test_pending_model_passes_qtmodeltester(qtbot: QtBot, qtmodeltester: Any, ctx: AppContext, project: Path) -> None:
    seed_workspace(ctx.store, project, [record("deploy-steps")])
    agent_proposes(ctx, project)
    tab = make_tab(qtbot, ctx)
    tab.choose_source("agent")
    assert tab.pending.model.rowCount() == 1
    qtmodeltester.check(tab.pending.model)
    qtmodeltester.check(tab.session_model)
