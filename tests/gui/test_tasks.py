"""gui.tasks: jobs owned by a widget, keyed by purpose, on the real thread-pool runner."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from core.errors import CancelledError
from gui.tasks import JobControl, Jobs, SyncTaskRunner, ThreadPoolTaskRunner


def _wait_for(gate: threading.Event, value: str) -> str:
    gate.wait(10)
    return value


def test_a_new_job_under_the_same_key_drops_the_stale_one(qtbot: QtBot) -> None:
    runner = ThreadPoolTaskRunner()
    owner = QWidget()
    qtbot.addWidget(owner)
    jobs = Jobs(owner, runner)
    results: list[str] = []
    slow = threading.Event()
    jobs.start("search", _wait_for, slow, "stale", done=results.append)
    jobs.start("search", str.upper, "fresh", done=results.append)
    qtbot.waitUntil(lambda: results == ["FRESH"], timeout=5000)
    slow.set()  # the stale one finishes now; its result must never be delivered
    assert runner.wait_all(5000)
    qtbot.wait(50)
    assert results == ["FRESH"] and not jobs.running("search")


def test_a_destroyed_owner_never_receives_a_result(qtbot: QtBot) -> None:
    runner = ThreadPoolTaskRunner()
    owner = QWidget()
    jobs = Jobs(owner, runner)
    results: list[str] = []
    gate = threading.Event()
    jobs.start("load", _wait_for, gate, "late", done=results.append, failed=lambda e: results.append(repr(e)))
    owner.deleteLater()
    qtbot.waitUntil(lambda: not _alive(owner), timeout=5000)
    gate.set()
    assert runner.wait_all(5000)
    qtbot.wait(50)
    assert results == []


def _alive(widget: QWidget) -> bool:
    import shiboken6

    return bool(shiboken6.isValid(widget))


def _count(n: int, *, control: JobControl) -> int:
    for i in range(n):
        control.raise_if_cancelled()
        control.report(i + 1, n, f"step {i + 1}")
    return n


def test_progress_and_errors_arrive_by_signal_on_the_gui_thread(qtbot: QtBot) -> None:
    runner = ThreadPoolTaskRunner()
    owner = QWidget()
    qtbot.addWidget(owner)
    jobs = Jobs(owner, runner)
    seen: list[Any] = []
    gui_thread = threading.current_thread()

    def progress(done: int, total: int, message: str) -> None:
        assert threading.current_thread() is gui_thread
        seen.append((done, total, message))

    jobs.start("count", _count, 3, done=seen.append, progress=progress, cancellable=True)
    qtbot.waitUntil(lambda: 3 in seen, timeout=5000)
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3"), 3]
    errors: list[BaseException] = []
    jobs.start("fail", int, "not a number", failed=errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert isinstance(errors[0], ValueError)
    assert runner.wait_all(5000)


def test_cancel_stops_cooperative_work_and_drops_its_report() -> None:
    owner = QWidget()
    jobs = Jobs(owner, SyncTaskRunner())
    job = jobs.start("count", _count, 0, cancellable=True)  # finished at once on the sync runner
    assert not jobs.running("count") and job.token.cancelled is False
    job.token.cancel()
    with pytest.raises(CancelledError):
        _count(5, control=JobControl(job.token, lambda *_: None))
    owner.deleteLater()
