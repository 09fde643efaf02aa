"""The Session Consolidation tab over real files: a JSONL session in tmp, the offline extractor,
a real loopback HTTP model server, the FileStore, receipts on disk."""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt, QTimer
from pytestqt.qtbot import QtBot

from core.models import PutOp, Record
from core.settings import AppSettings, CustomEndpoint, load_settings, save_settings
from core.store.files import RECEIPTS
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.qtmodels.consolidation_models import ReviewChangesModel
from gui.tabs.consolidation import ConsolidationTab
from gui.tasks import SyncTaskRunner, ThreadPoolTaskRunner
from gui.widgets.review_diff import side_by_side_rows

HOUR_AGO = time.time() - 3600
T0 = 1_785_000_000_000

# Offscreen windows log this harmless warning when shown.


# --- a real DSH session on disk -------------------------------------------------------------------


def _event(seq: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "time": T0 + seq * 1000, "data": data}


def _user(seq: int, text: str) -> dict[str, Any]:
    blocks = [{"type": "text", "text": text}]
    return _event(seq, "user/message", {"message": {"role": "user", "content": blocks, "source": {"kind": "user"}}})


def _assistant(seq: int, text: str) -> dict[str, Any]:
    blocks = [{"type": "text", "text": text}]
    message = {"role": "assistant", "content": blocks, "source": {"kind": "model"}}
    return _event(seq, "assistant/message", {"turn": 1, "step": 1, "message": message})


def write_session(
    sessions_root: Path,
    session_id: str,
    cwd: str | None,
    prompts: list[str],
    title: str,
    *,
    live: bool = False,
) -> Path:
    rows: list[dict[str, Any]] = [{"type": "session", "version": 1, "id": session_id, "createdAt": T0}]
    if cwd is not None:
        rows[0]["cwd"] = cwd
    rows.append(
        _event(
            0,
            "user/message",
            {
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "ctx"}],
                    "source": {"kind": "plugin"},
                }
            },
        )
    )
    seq = 1
    for prompt in prompts:
        rows.append(_user(seq, prompt))
        rows.append(_assistant(seq + 1, "Noted."))
        seq += 2
    rows.append(_event(seq, "session/title", {"title": title}))
    slug = "--" + (cwd or "none").strip("/").replace("/", "-") + "--"
    folder = sessions_root / slug / session_id
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "session.jsonl"
    log.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    if not live:
        os.utime(log, (HOUR_AGO, HOUR_AGO))
    return folder


PROMPTS = [
    "Please remember that the release branch is called trunk-stable.",
    "Can you run the tests?",
    "I prefer small focused commits with imperative subject lines.",
    "Remember the deploy token is ghp_Zx9Qk2Lm8Np4Rt6Vw1Yb3Cd5Ef7Gh9Jk0LmNp",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "projects" / "alpha"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def sessions(ctx: AppContext, project: Path) -> Path:
    root = Path(ctx.sessions_root)
    write_session(root, "sess-alpha-1", str(project), PROMPTS, "Release branch and commit style")
    write_session(root, "sess-none-1", None, ["Remember that I like tea."], "A chat without a folder")
    return root


def make_tab(qtbot: QtBot, ctx: AppContext) -> ConsolidationTab:
    tab = ConsolidationTab(ctx)
    qtbot.addWidget(tab)
    tab.resize(1280, 760)
    tab.refresh()
    return tab


def run_offline(tab: ConsolidationTab, session_id: str = "sess-alpha-1") -> None:
    assert tab.select_session(session_id)
    tab.set_consolidator("offline")
    assert tab.run_button.isEnabled()
    tab.run_button.click()


def row_of_target(tab: ConsolidationTab, needle: str) -> int:
    for i, r in enumerate(tab.changes_model.change_rows()):
        if needle in r.change.target:
            return i
    raise AssertionError(f"no change for {needle}: {[r.change.target for r in tab.changes_model.change_rows()]}")


def click_accept(tab: ConsolidationTab, row: int, accepted: bool) -> bool:
    index = tab.changes_model.index(row, ReviewChangesModel.ACCEPT)
    state = Qt.CheckState.Checked if accepted else Qt.CheckState.Unchecked
    return bool(tab.changes_model.setData(index, state, Qt.ItemDataRole.CheckStateRole))


# --- listing ---------------------------------------------------------------------------------------


def test_lists_workspaces_with_sessions_and_unassigned(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    labels = [tab.workspace_model.choice(i).title for i in range(tab.workspace_model.rowCount())]
    assert labels == ["alpha", "Unassigned"]
    assert tab.workspace_box.currentText().startswith("alpha (1 session)")
    assert tab.session_model.rowCount() == 1
    row = tab.session_model.session_row(0)
    assert row.summary.title == "Release branch and commit style"
    assert row.stable and row.last_status == ""
    display = [tab.session_model.index(0, c).data() for c in range(tab.session_model.columnCount())]
    assert display[0] == "Release branch and commit style"
    assert display[2] == "4" and display[4] == "v1" and display[5] == "stable" and display[6] == "—"

    tab.choose_workspace(None)
    assert tab.session_model.rowCount() == 1
    assert tab.session_model.session_row(0).summary.cwd is None
    assert tab.select_session("sess-none-1")
    assert not tab.run_button.isEnabled()
    assert "no workspace" in tab.run_button.toolTip()
    assert tab.error_text() is None


def test_live_session_cannot_be_run(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    write_session(Path(ctx.sessions_root), "sess-live", str(project), PROMPTS[:1], "Still going", live=True)
    tab = make_tab(qtbot, ctx)
    assert tab.session_model.index(0, tab.session_model.STATE).data() == "live"
    assert tab.select_session("sess-live")
    assert not tab.run_button.isEnabled()
    assert "live" in tab.run_button.toolTip()


def test_no_sessions_root_is_explained_not_an_error(qtbot: QtBot, ctx: AppContext) -> None:
    tab = make_tab(qtbot, ctx)
    assert tab.session_model.rowCount() == 0
    assert "No DSH sessions found" in tab.empty_label.text()
    assert tab.error_text() is None


def test_filter_as_you_type(qtbot: QtBot, ctx: AppContext, project: Path) -> None:
    root = Path(ctx.sessions_root)
    write_session(root, "s-a", str(project), PROMPTS[:1], "Packaging speed")
    write_session(root, "s-b", str(project), PROMPTS[:1], "Release notes")
    tab = make_tab(qtbot, ctx)
    assert tab.session_proxy.rowCount() == 2
    qtbot.keyClicks(tab.filter_edit, "pack")
    assert tab.session_proxy.rowCount() == 1
    assert tab.session_proxy.index(0, 0).data() == "Packaging speed"


# --- run, review, commit -----------------------------------------------------------------------------


def test_offline_review_reject_one_accept_one_commit(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    review = tab.review
    assert review is not None and not review.reused
    targets = [r.change.target for r in tab.changes_model.change_rows()]
    assert len(targets) >= 3, targets

    # The secret-bearing change is shown, refused, and cannot be ticked.
    secret_rows = [i for i, r in enumerate(tab.changes_model.change_rows()) if r.change.problems]
    assert secret_rows, "the deploy token must be refused"
    s = secret_rows[0]
    assert tab.changes_model.index(s, 0).data() == "refused"
    assert not tab.changes_model.flags(tab.changes_model.index(s, 0)) & Qt.ItemFlag.ItemIsUserCheckable
    assert not click_accept(tab, s, True)
    assert "credential" in tab.changes_model.index(s, ReviewChangesModel.NOTES).data()
    assert "ghp_" not in tab.changes_model.index(s, ReviewChangesModel.NOTES).data()

    keep = row_of_target(tab, "trunk-stable")
    drop = next(i for i, r in enumerate(tab.changes_model.change_rows()) if r.acceptable and i != keep)
    tab.changes_view.selectRow(keep)
    assert "+++ b/" in tab.diff_panel.unified.diff_text()
    assert "trunk-stable" in tab.diff_panel.unified.diff_text()
    tab.diff_panel.side_button.click()
    assert "trunk-stable" in tab.diff_panel.side_by_side.right.toPlainText()
    assert click_accept(tab, keep, True)
    assert click_accept(tab, drop, False)
    assert tab.selection_label.text().startswith("1 of ")
    assert tab.has_unsaved_changes()

    tab.commit_button.click()
    receipt = tab.last_receipt
    assert receipt is not None and receipt.status == "partially-committed"
    assert tab.review is None
    assert tab.banner.level == "ok"
    assert tab.right_tabs.currentIndex() == 1  # the receipt view
    assert receipt.review_id in tab.receipt_text()
    assert "partly committed" in tab.receipt_text()

    kept_name = tab_target_name(targets[keep])
    snap = ctx.store.find_workspace(str(sessions_cwd(ctx)))
    assert snap is not None
    assert [r.name for r in snap.records()] == [kept_name]
    assert "trunk-stable" in snap.records()[0].body + snap.records()[0].description
    assert ctx.store.files(RECEIPTS).read(receipt.review_id) is not None
    # The sessions table and the receipts list show the new state (after the follow-up refresh).
    assert tab.session_model.session_row(0).last_status == "partially-committed"
    assert tab.receipt_model.rowCount() == 1
    assert not tab.has_unsaved_changes()


def tab_target_name(target: str) -> str:
    return target.removesuffix(".md")


def sessions_cwd(ctx: AppContext) -> Path:
    return Path(ctx.sessions_root).parents[1] / "projects" / "alpha"


def test_rerun_shows_the_existing_receipt_without_running_again(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    tab._set_all(True)
    tab.commit_button.click()
    first = tab.last_receipt
    assert first is not None and first.status == "committed"

    run_offline(tab)
    assert tab.review is None
    assert tab.banner.level == "info" and "already reviewed" in tab.banner.text
    assert first.review_id in tab.receipt_text()
    assert tab.banner.button("Run again anyway") is not None


def test_edit_a_proposed_record_before_accepting(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    row = row_of_target(tab, "trunk-stable")
    tab.changes_view.selectRow(row)
    tab.detail_tabs.setCurrentIndex(1)
    tab.editor.description.setText("")
    assert not tab.editor.apply_button.isEnabled()
    assert tab.editor.problems_label.text()
    tab.editor.description.setText("Release branch name (edited)")
    tab.editor.body.setPlainText("The release branch is trunk-stable.\n\n**Why:** CI deploys from it.")
    assert tab.editor.apply_button.isEnabled()
    tab.editor.apply_button.click()
    r = tab.changes_model.change_row(row)
    assert r.edited is not None and r.accepted
    assert tab.changes_model.index(row, 0).data() == "edited"
    assert "(edited)" in tab.diff_panel.unified.diff_text() or "edited" in tab.diff_panel.caption.text()
    assert "CI deploys from it" in tab.diff_panel.unified.diff_text()

    tab.commit_button.click()
    assert tab.last_receipt is not None
    snap = ctx.store.find_workspace(str(sessions_cwd(ctx)))
    assert snap is not None
    record = snap.get(r.change.target.removesuffix(".md"))
    assert record is not None and record.record is not None
    assert record.record.description == "Release branch name (edited)"
    assert "CI deploys from it" in record.record.body


def test_edit_with_a_secret_is_not_accepted(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    tab.changes_view.selectRow(row_of_target(tab, "trunk-stable"))
    tab.editor.body.setPlainText("password: https://admin:hunter2hunter2@db.example.com/prod")
    assert not tab.editor.apply_button.isEnabled()
    assert "credential" in tab.editor.problems_label.text()


def test_commit_conflict_rechecks_and_commits_after_re_review(
    qtbot: QtBot, ctx: AppContext, sessions: Path, dialogs: ScriptedDialogs
) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    keep = row_of_target(tab, "trunk-stable")
    assert click_accept(tab, keep, True)
    before = tab.review
    assert before is not None

    # Someone else writes to the workspace while the user reviews.
    cwd = str(sessions_cwd(ctx))
    snap = ctx.store.create_workspace(cwd)
    other = Record(name="written-meanwhile", description="By an agent", type="project", body="\nHi.\n")
    ctx.store.commit(snap.key, [PutOp(record=other)], snap.revision)

    tab.commit_button.click()
    assert tab.banner.level == "warning"
    assert "changed while you were reviewing" in tab.banner.text
    assert tab.review is not None and tab.review.workspace_revision != before.workspace_revision
    assert not tab.changes_model.accepted_rows()  # decisions are made again on the fresh diffs
    names = [r.name for r in ctx.store.find_workspace(cwd).records()]  # type: ignore[union-attr]
    assert names == ["written-meanwhile"]  # nothing of ours was written

    assert click_accept(tab, row_of_target(tab, "trunk-stable"), True)
    tab.commit_button.click()
    assert tab.last_receipt is not None and tab.last_receipt.status == "partially-committed"
    names = sorted(r.name for r in ctx.store.find_workspace(cwd).records())  # type: ignore[union-attr]
    assert "written-meanwhile" in names and len(names) == 2


def test_commit_with_nothing_selected_asks_then_records_rejection(
    qtbot: QtBot, ctx: AppContext, sessions: Path, dialogs: ScriptedDialogs
) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    assert tab.commit_button.text() == "Reject all and close"
    dialogs.push(False)
    tab.commit_button.click()
    assert tab.review is not None  # the user said no: still reviewing
    dialogs.push(True)
    tab.commit_button.click()
    assert tab.last_receipt is not None and tab.last_receipt.status == "rejected"
    assert ctx.store.find_workspace(str(sessions_cwd(ctx))) is None  # nothing written, not even a scope


# --- the model consolidator over a real loopback server -------------------------------------------------


class _ModelServer:
    """A loopback OpenAI-compatible server; ``hold`` keeps each answer back until released."""

    def __init__(self, answer: dict[str, Any], hold: bool = False) -> None:
        self.answer = answer
        self.release = threading.Event()
        if not hold:
            self.release.set()
        self.got_request = threading.Event()
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                self.rfile.read(length)
                server.requests += 1
                server.got_request.set()
                server.release.wait(30)
                body = json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": json.dumps(server.answer)}}]}
                ).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up (cancelled): fine

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="model-server", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> _ModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


def use_model(ctx: AppContext, base_url: str) -> None:
    loaded = load_settings(ctx.store)
    settings = AppSettings(
        consolidator="model",
        selected_model="custom",
        custom_endpoint=CustomEndpoint(base_url=base_url, model="loopback-model"),
        request_timeout_seconds=60,
    )
    save_settings(ctx.store, settings, loaded.revision)


MODEL_ANSWER = {
    "summary": "One decision worth keeping.",
    "changes": [
        {
            "op": "put",
            "record": {
                "name": "release-branch",
                "description": "The release branch is trunk-stable",
                "type": "project",
                "body": "Release from trunk-stable.\n\n**Why:** CI deploys it.\n\n**How to apply:** use it.",
            },
            "reason": "The user asked to remember it.",
            "evidence": [1],
        }
    ],
}


def test_model_consolidator_over_loopback_proposes_and_commits(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    with _ModelServer(MODEL_ANSWER) as server:
        use_model(ctx, server.base_url)
        tab = make_tab(qtbot, ctx)
        assert tab.consolidator_box.currentData() == "model"
        assert "loopback-model" in tab.consolidator_box.currentText()
        assert tab.select_session("sess-alpha-1")
        tab.run_button.click()
        assert server.requests == 1
        assert tab.review is not None and tab.review.model
        assert [r.change.target for r in tab.changes_model.change_rows()] == ["release-branch.md"]
        tab._set_all(True)
        tab.commit_button.click()
        assert tab.last_receipt is not None and tab.last_receipt.status == "committed"
        assert "loopback-model" in tab.receipt_text()


@pytest.fixture
def threaded_ctx(ctx: AppContext) -> Iterator[AppContext]:
    """The real thread-pool runner; at teardown its pool threads end before the thread check runs."""
    runner = ThreadPoolTaskRunner()
    ctx.runner = runner
    yield ctx
    assert runner.wait_all(20000)
    ctx.runner = SyncTaskRunner()
    del runner  # the last reference: ~QThreadPool joins its threads
    gc.collect()


def test_window_stays_responsive_while_a_slow_model_runs_and_cancel_works(
    qtbot: QtBot, threaded_ctx: AppContext, sessions: Path
) -> None:
    ctx = threaded_ctx
    with _ModelServer(MODEL_ANSWER, hold=True) as server:
        use_model(ctx, server.base_url)
        tab = make_tab(qtbot, ctx)
        qtbot.waitUntil(lambda: tab.busy is None and tab.session_model.rowCount() == 1, timeout=20000)
        ticks: list[int] = []
        timer = QTimer()
        timer.setInterval(10)
        timer.timeout.connect(lambda: ticks.append(1))
        timer.start()
        try:
            assert tab.select_session("sess-alpha-1")
            tab.run_button.click()
            assert tab.busy == "run"
            assert tab.cancel_button.isEnabled() and not tab.run_button.isEnabled()
            # The model holds its answer; the GUI thread keeps handling events meanwhile.
            qtbot.waitUntil(server.got_request.is_set, timeout=20000)
            seen = len(ticks)
            qtbot.waitUntil(lambda: len(ticks) > seen + 3, timeout=20000)
            tab.filter_edit.setText("release")  # the widgets respond while the model runs
            assert tab.session_proxy.rowCount() == 1
            assert tab.busy == "run"
            tab.cancel_button.click()
            assert "Cancelling" in tab.status_label.text()
            qtbot.waitUntil(lambda: tab.busy is None, timeout=20000)
        finally:
            timer.stop()
        assert tab.status_label.text() == "Cancelled. Nothing was written."
        assert tab.review is None
        assert tab.error_text() is None
        assert ctx.store.find_workspace(str(sessions_cwd(ctx))) is None
    tab.shutdown()


# --- the models ----------------------------------------------------------------------------------------


def test_models_pass_qtmodeltester(qtbot: QtBot, qtmodeltester: Any, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    qtmodeltester.check(tab.session_model)
    qtmodeltester.check(tab.session_proxy)
    qtmodeltester.check(tab.workspace_model)
    qtmodeltester.check(tab.changes_model)
    tab._set_all(True)
    tab.commit_button.click()
    qtmodeltester.check(tab.receipt_model)
    assert tab.changes_model.data(QModelIndex()) is None


def test_side_by_side_rows_align_changes() -> None:
    rows = side_by_side_rows("a\nb\nc\n", "a\nB\nc\nd\n")
    assert rows == [("a", "a", "equal"), ("b", "B", "replace"), ("c", "c", "equal"), (None, "d", "insert")]
    assert side_by_side_rows("", "x\n") == [(None, "x", "insert")]


def test_revert_an_edit_and_run_again_anyway(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    run_offline(tab)
    row = row_of_target(tab, "trunk-stable")
    tab.changes_view.selectRow(row)
    tab.editor.description.setText("Changed my mind")
    tab.editor.apply_button.click()
    assert tab.changes_model.change_row(row).edited is not None
    tab.editor.revert_button.click()
    r = tab.changes_model.change_row(row)
    assert r.edited is None and r.accepted  # the decision stays; the proposal's text is back
    assert tab.editor.description.text() != "Changed my mind"

    tab.commit_button.click()
    first = tab.last_receipt
    assert first is not None
    run_offline(tab)
    again = tab.banner.button("Run again anyway")
    assert again is not None
    again.click()
    assert tab.review is not None and not tab.review.reused
    # What was committed is in memory now, so only the rejected fact is proposed again.
    targets = [c.target for c in tab.review.actionable]
    assert targets == ["small-focused-commits-imperative-subject.md"]


def test_space_toggles_the_current_change(qtbot: QtBot, ctx: AppContext, sessions: Path) -> None:
    tab = make_tab(qtbot, ctx)
    tab.show()
    qtbot.waitExposed(tab)
    run_offline(tab)
    row = row_of_target(tab, "trunk-stable")
    tab.changes_view.selectRow(row)
    tab.changes_view.setFocus()
    qtbot.keyClick(tab.changes_view, Qt.Key.Key_Space)
    assert tab.changes_model.change_row(row).accepted
    qtbot.keyClick(tab.changes_view, Qt.Key.Key_Space)
    assert not tab.changes_model.change_row(row).accepted


GLOBAL_ANSWER = {
    "summary": "A general preference.",
    "changes": [
        {
            "op": "replace_global",
            "text": "# User Preferences\n\n- Prefers small focused commits with imperative subjects.\n",
            "reason": "The user stated a general preference.",
            "evidence": [5],
        }
    ],
}


def test_a_global_change_needs_explicit_confirmation(
    qtbot: QtBot, ctx: AppContext, sessions: Path, dialogs: ScriptedDialogs
) -> None:
    with _ModelServer(GLOBAL_ANSWER) as server:
        use_model(ctx, server.base_url)
        tab = make_tab(qtbot, ctx)
        assert tab.select_session("sess-alpha-1")
        tab.run_button.click()
        rows = tab.changes_model.change_rows()
        assert [r.change.target for r in rows] == ["GLOBAL.md"]
        assert rows[0].acceptable and rows[0].change.needs_confirmation
        assert "every workspace" in tab.changes_model.index(0, ReviewChangesModel.NOTES).data()
        assert click_accept(tab, 0, True)

        dialogs.push(False)  # "Change GLOBAL.md?" -> no: nothing happens
        tab.commit_button.click()
        assert dialogs.asked[-1][1] == "Change GLOBAL.md?"
        assert tab.review is not None and not ctx.store.read_global().exists

        dialogs.push(True)
        tab.commit_button.click()
        assert tab.last_receipt is not None and tab.last_receipt.status == "committed"
        assert "imperative subjects" in ctx.store.read_global().text
