"""Batch runs in the Session Consolidation tab: several sessions (or every unreviewed stable one of
the workspace) consolidated one after another as ONE job, with overall progress ("3 of 12"), the
status of each session in the sessions table, and one Cancel. Each session gets its own review,
saved as pending: the pending list shows them when the batch is done (nothing is committed).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication

from core.consolidation.batch import BatchItem, BatchRun, unreviewed
from core.consolidation.review_state import ConsolidatorKind, Pipeline
from core.errors import CancelledError
from gui.tabs.consolidation.host import RunHost
from gui.tasks import JobControl
from gui.widgets.messages import describe_error

if TYPE_CHECKING:
    from core.sessions.models import SessionSummary

translate = QCoreApplication.translate


def _word(status: str) -> str:
    """A batch item's status in words (the Last review column, the summary banner)."""
    return {
        "proposed": translate("BatchActions", "waiting for review"),
        "no-change": translate("BatchActions", "no change"),
        "already-reviewed": translate("BatchActions", "already reviewed"),
        "failed": translate("BatchActions", "failed"),
        "cancelled": translate("BatchActions", "cancelled"),
        "committed": translate("BatchActions", "committed"),
        "conflict": translate("BatchActions", "conflict"),
        "queued": translate("BatchActions", "queued"),
        "running": translate("BatchActions", "running…"),
    }.get(status, status)


@dataclass
class BatchState:
    """What the worker has finished so far; read on the GUI thread when progress arrives."""

    sessions: list[SessionSummary] = field(default_factory=list)
    items: list[BatchItem] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, item: BatchItem) -> None:
        with self.lock:
            self.items.append(item)

    def finished(self) -> list[BatchItem]:
        with self.lock:
            return list(self.items)


def run_batch(
    pipeline: Pipeline,
    state: BatchState,
    chosen: list[SessionSummary] | None,
    cwd: str | None,
    kind: ConsolidatorKind,
    *,
    control: JobControl,
) -> list[BatchItem]:
    """On the worker: ``chosen`` sessions, or (None) every unreviewed stable session of ``cwd``."""
    pipeline.update()
    service = pipeline.service
    catalog = pipeline.catalog
    assert catalog is not None
    if chosen is None:
        quiet = service.settings.quiet_period_seconds
        stable = [s for s in catalog.list(cwd=cwd) if catalog.is_stable(s, quiet)[0]]
        chosen = unreviewed(service, stable, kind)
    state.sessions = list(chosen)
    control.report(0, len(chosen), translate("BatchActions", "0 of {total}").format(total=len(chosen)))

    def progress(done: int, total: int, message: str) -> None:
        control.report(done, total, message)

    def on_item(item: BatchItem) -> None:
        state.add(item)
        done = len(state.finished())
        control.report(
            done, len(chosen), translate("BatchActions", "{done} of {total} done").format(done=done, total=len(chosen))
        )

    run = BatchRun(service, chosen, consolidator=kind)
    # Cancel stops the session in flight (nothing written for it) and skips the rest; the reviews
    # already proposed stay pending.
    return run.run(cancelled=lambda: control.token.cancelled, progress=progress, on_item=on_item)


class BatchHost(RunHost, Protocol):
    def request_refresh(self) -> None: ...


class BatchActions:
    def __init__(self, tab: BatchHost) -> None:
        self.tab = tab
        self.state: BatchState | None = None

    def run_selected(self) -> None:
        rows = [r for r in self.tab.sessions.selected_sessions() if r.summary.cwd is not None and r.stable]
        if rows:
            self._start([r.summary for r in rows])

    def run_all_unreviewed(self) -> None:
        choice = self.tab.sessions.workspace_box.currentIndex()
        if choice < 0:
            return
        cwd = self.tab.sessions.workspace_model.choice(choice).cwd
        if cwd is None:
            self.tab.banner.show_message(
                "info", translate("BatchActions", "Sessions without a working directory cannot be consolidated.")
            )
            return
        self._start(None, cwd)

    def _start(self, chosen: list[SessionSummary] | None, cwd: str | None = None) -> None:
        tab = self.tab
        if tab.busy is not None:
            return
        kind: ConsolidatorKind = "model" if tab.sessions.consolidator_box.currentData() == "model" else "offline"
        self.state = state = BatchState()
        model = tab.sessions.session_model
        model.clear_batch()
        for s in chosen or []:
            model.set_batch_status(s.id, _word("queued"))
        tab.banner.clear()
        tab.sessions.set_running(translate("BatchActions", "Starting the batch…"))
        tab.run_job(
            "batch",
            run_batch,
            tab.pipeline,
            state,
            chosen,
            cwd,
            kind,
            done=self._done,
            failed=self._failed,
            progress=self._progress,
        )

    def _progress(self, done: int, total: int, message: str) -> None:
        tab = self.tab
        state = self.state
        tab.sessions.show_progress(
            done, total, translate("BatchActions", "Batch: {progress}").format(progress=message) if message else ""
        )
        if state is None:
            return
        finished = {i.session_id: i for i in state.finished()}
        for index, s in enumerate(state.sessions):
            item = finished.get(s.id)
            if item is not None:
                status = _word(item.status)
            elif index == len(finished):
                status = _word("running")
            else:
                status = _word("queued")
            tab.sessions.session_model.set_batch_status(s.id, status)

    def _done(self, items: list[BatchItem]) -> None:
        tab = self.tab
        self._progress(len(items), len(items), "")
        for item in items:
            tab.sessions.session_model.set_batch_status(item.session_id, _word(item.status))
        counts = Counter(i.status for i in items)
        tab.sessions.set_idle("")
        if not items:
            tab.banner.show_message(
                "info", translate("BatchActions", "Every stable session of this workspace has been reviewed already.")
            )
            return
        summary = translate("BatchActions", ", ").join(
            translate("BatchActions", "{n} {status}").format(n=n, status=_word(k)) for k, n in counts.most_common()
        )
        failed = [i for i in items if i.status == "failed"]
        detail = "".join(f"\n{i.title or i.session_id}: {i.error}" for i in failed[:3])
        level = "warning" if failed else "ok"
        tab.banner.show_message(
            level,
            translate(
                "BatchActions",
                "Batch of {n}: {summary}. Each review waits under “Reviews waiting for you”; nothing was committed.",
            ).format(n=len(items), summary=summary)
            + detail,
        )
        tab.request_refresh()

    def _failed(self, exc: BaseException) -> None:
        tab = self.tab
        tab.sessions.set_idle(translate("BatchActions", "Cancelled.") if isinstance(exc, CancelledError) else "")
        tab.banner.show_message(
            "error", translate("BatchActions", "The batch stopped: {why}").format(why=describe_error(exc))
        )
        tab.request_refresh()
