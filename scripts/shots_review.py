"""Screenshot steps of the Session Consolidation tab's review sources (``scripts/screenshots.py`` runs them).

Agent proposals (a real ``AgentSession`` in review mode), a merge suggestion, "What the model saw",
a batch run caught in progress, a pending review restored after a restart (a new service over the
same root) with a resumed session listed, and an import under review. Each step leaves the window
in the state its PNG shows; ``_``-steps only reset.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scripts.screenshots import Shot

_BODY = (
    "Releases ship on Thursday afternoons, never on Fridays.\n\n**Why:** the on-call rotation changes "
    "on Friday.\n\n**How to apply:** propose release PRs so they can merge by Thursday noon."
)


def _settle(ms: int = 60) -> None:
    """Let queued signals (a worker's progress and results) and layouts run."""
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    QCoreApplication.processEvents()


def _atlas(shot: Shot) -> Any:
    return next(w for w in shot.ctx.store.list_workspaces() if w.display_name == "atlas-web")


def agent_proposal(shot: Shot) -> None:
    """An MCP agent proposed a new record and an update of an old one; the user reviews it."""
    from core.mcp.agent import AgentSession

    ctx = shot.ctx
    info = _atlas(shot)
    agent = AgentSession(ctx.store, info.cwd, client="claude-code", connection="mcp-3f9c2a")
    observed = agent.recall("release").rstrip().splitlines()[-1].removeprefix("observed: ")  # the handle
    snap = ctx.store.find_workspace(info.cwd)
    assert snap is not None
    old = snap.records()[0]
    changes = [
        {"op": "put", "name": "release-day", "description": "Releases ship on Thursday afternoons",
         "type": "project", "body": _BODY},
        {"op": "put", "name": old.name + "-again", "description": old.description, "type": old.type,
         "body": old.body.strip() + "\n\nThe user confirmed in 2026 that this still holds."},
    ]  # fmt: skip
    reason = "The user said releases ship on Thursdays and confirmed the note."
    answer = json.loads(agent.update(changes, reason, observed))
    tab = shot.tab("consolidation")
    tab.refresh()
    tab.choose_source("agent")
    tab.select_pending(answer["proposal_id"])
    tab.changes_view.selectRow(0)
    tab.detail_tabs.setCurrentIndex(0)


def merge_suggestion(shot: Shot) -> None:
    """The near-copy is flagged "similar to [[…]]"; Merge into existing opens both texts side by side."""
    tab = shot.tab("consolidation")
    rows = tab.changes_model.change_rows()
    similar = next((i for i, r in enumerate(rows) if r.current.similar_to), 0)
    tab.changes_view.selectRow(similar)
    if tab.review_panel.merge_button.isVisible():
        tab.review_panel.merge_button.click()


def agent_reset(shot: Shot) -> None:
    shot.dialogs.answers.append(True)
    tab = shot.tab("consolidation")
    tab.review_panel.delete_button.click()  # reject the proposal: nothing written
    tab.choose_source("session")


def model_saw(shot: Shot) -> None:
    """A model review replayed: the request, a read-only tool call and its result, the answer."""
    from core.consolidation.proposals import Transcript, TranscriptEntry

    tab = shot.tab("consolidation")
    tab.choose_workspace(_atlas(shot).key)
    tab.select_session("demo-session-ci")
    tab.set_consolidator("offline")
    tab.run_selected(force=True)
    review = tab.review
    if review is None:
        return
    evidence = "\n".join(f"[seq {i}] user: {c.reason}" for i, c in enumerate(review.changes, 1))
    transcript = Transcript(
        entries=(
            TranscriptEntry(
                kind="request",
                text="Consolidate this DSH session into workspace memory (atlas-web).\n\n" + evidence,
            ),
            TranscriptEntry(kind="tool_call", tool="search_memory", arguments='{"query": "CI flaky retry"}'),
            TranscriptEntry(
                kind="tool_result",
                tool="search_memory",
                text="ci-runs-on-linux.md — CI runs on Linux only\ntest-command.md — Run tests with pnpm test",
            ),
            TranscriptEntry(kind="tool_call", tool="read_record", arguments='{"name": "ci-runs-on-linux"}'),
            TranscriptEntry(kind="tool_result", tool="read_record", text="CI runs on Linux only; macOS is not tested."),
            TranscriptEntry(kind="answer", text=review.proposal.model_dump_json(indent=1)[:1200]),
        ),
        rounds=2,
    )
    summary = "Two rounds of read-only tool calls; one preference worth keeping, one refused (a credential)."
    proposal = review.proposal.model_copy(update={"transcript": transcript, "summary": summary})
    tab.show_review(review.model_copy(update={"proposal": proposal, "consolidator": "model", "model": "deepseek-chat"}))
    tab.detail_tabs.setCurrentIndex(2)


def model_saw_reset(shot: Shot) -> None:
    tab = shot.tab("consolidation")
    tab.detail_tabs.setCurrentIndex(0)
    tab.show_review(None)


class _Gate:
    """Holds the batch's second session until the screenshot is taken (the batch really is running)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0


_GATE: dict[str, Any] = {}


def batch_in_progress(shot: Shot) -> None:
    """Run all unreviewed sessions of atlas-web on a real worker thread, caught at "2 of 5"."""
    from core.demo import write_demo_session
    from gui.tasks import ThreadPoolTaskRunner

    ctx = shot.ctx
    info = _atlas(shot)
    root = Path(ctx.sessions_root)
    titles = ("Dependency upgrades", "Docs site deploy", "Flaky e2e test triage")
    for n, title in enumerate(titles, 1):
        write_demo_session(root, info.cwd, f"demo-session-batch-{n}", title)
    tab = shot.tab("consolidation")
    tab.refresh()
    tab.choose_workspace(info.key)
    tab.set_consolidator("offline")
    service = tab.pipeline.service
    gate = _Gate()
    original = service.propose

    def propose(*args: Any, **kwargs: Any) -> Any:
        gate.calls += 1
        if gate.calls == 2:
            gate.release.wait(30)
        return original(*args, **kwargs)

    service.propose = propose  # type: ignore[method-assign]
    runner = ThreadPoolTaskRunner(1)
    _GATE.update(gate=gate, service=service, original=original, runner=runner, old=tab.jobs._runner)
    tab.jobs._runner = runner
    tab.run_all_button.click()
    deadline = time.monotonic() + 20
    while gate.calls < 2 and time.monotonic() < deadline:
        _settle(50)
    _settle(200)


def batch_finish(shot: Shot) -> None:
    tab = shot.tab("consolidation")
    gate = _GATE["gate"]
    gate.release.set()
    deadline = time.monotonic() + 30
    while tab.busy is not None and time.monotonic() < deadline:
        _settle(50)
    _GATE["runner"]._pool.waitForDone(10000)
    tab.jobs._runner = _GATE["old"]
    _GATE["service"].propose = _GATE["original"]


def pending_after_restart(shot: Shot) -> None:
    """A new window's service over the same root: the batch's reviews wait, one is restored and
    shown; a session DSH resumed twice is listed with its format version."""
    from core.consolidation.review_state import Pipeline
    from tests.core.sessions import dsh_log_builders as b

    ctx = shot.ctx
    info = _atlas(shot)
    slug = "--" + info.cwd.strip("/").replace("/", "-") + "--"
    rows = b.resumed(version=1, session_id="demo-session-resumed", resumes=2)
    rows[0]["cwd"] = info.cwd
    rows.append(b.title(len(rows) + 10, "Resumed twice: release checklist"))
    folder = b.write_session(Path(ctx.sessions_root), rows, slug=slug)
    hour_ago = time.time() - 3600
    import os

    os.utime(folder / "session.jsonl", (hour_ago, hour_ago))
    tab = shot.tab("consolidation")
    tab.pipeline = Pipeline(ctx.store, Path(ctx.sessions_root), Path(ctx.dsh_home))  # "after a restart"
    tab.session_handler = type(tab.session_handler)(lambda: tab.pipeline.service)
    tab.refresh()
    tab.choose_workspace(info.key)
    tab.select_session("demo-session-resumed")
    items = tab.pending.items()
    if items:
        tab.select_pending(items[0].review_id)


def import_review(shot: Shot) -> None:
    """Import… from DSH workspace memory (a scope written next to the demo root), under review."""
    from tests.core.sources.sources_support import wm_entry, wm_scope

    ctx = shot.ctx
    info = _atlas(shot)
    wm_scope(
        Path(ctx.dsh_home) / "workspace-memory",
        info.cwd,
        [
            wm_entry("mem-a1b2c3d4e5f6", "decision", "Use pnpm", "The atlas-web project builds with pnpm, never npm."),
            wm_entry("mem-a1b2c3d4e5f7", "preference", "中文提交信息", "提交信息使用中文，并保持一行。"),
            wm_entry("mem-a1b2c3d4e5f8", "fact", "Staging URL", "Staging lives at staging.atlas.example."),
        ],
    )
    dialogs = shot.dialogs
    original = dialogs.choose

    def choose(parent: Any, title: str, text: str, options: list[str]) -> str | None:
        return next((o for o in options if o.startswith("DSH workspace memory")), None)

    dialogs.choose = choose  # type: ignore[method-assign]
    try:
        tab = shot.tab("consolidation")
        tab.start_import()
    finally:
        dialogs.choose = original  # type: ignore[method-assign]
    tab.changes_view.selectRow(0)


STEPS: list[tuple[str, Any]] = [
    ("consolidation-agent-proposal", agent_proposal),
    ("consolidation-merge", merge_suggestion),
    ("_agent-reset", agent_reset),
    ("consolidation-what-the-model-saw", model_saw),
    ("_model-saw-reset", model_saw_reset),
    ("consolidation-batch", batch_in_progress),
    ("_batch-finish", batch_finish),
    ("consolidation-pending-restored", pending_after_restart),
    ("consolidation-import", import_review),
]
