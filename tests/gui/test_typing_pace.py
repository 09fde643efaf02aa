"""Workers step aside while the user types: typing in a filter box makes the next worker step sleep
(releasing the interpreter lock), and only then."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.search import SearchIndex
from core.store.fs import FileStore
from gui import typing_pace
from gui.context import AppContext
from gui.tabs.workspace import WorkspaceTab
from gui.tabs.workspace.search_panel import IndexFreshness, build_index
from gui.tasks import CancelToken, JobControl
from tests.gui.conftest import record, seed_workspace


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    calls: list[float] = []
    monkeypatch.setattr(typing_pace.time, "sleep", calls.append)
    return calls


def test_a_worker_steps_aside_only_after_a_keystroke(ctx: AppContext, qtbot: Any, sleeps: list[float]) -> None:
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    tab.show()
    ctx.typing.step_aside()
    assert sleeps == []  # nobody typed: workers run flat out
    for box in (tab.rec_filter, tab.ws_filter, tab.search_box):
        sleeps.clear()
        ctx.typing.last_typed = float("-inf")
        box.setFocus()
        qtbot.keyClick(box, "a")
        ctx.typing.step_aside()
        assert sleeps == [typing_pace.PAUSE_S], box.objectName()


def test_the_index_job_reports_once_per_percent_and_steps_aside_per_scope(
    memory_root: Path, tmp_path: Path, sleeps: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileStore(memory_root)
    for i in range(3):
        seed_workspace(store, tmp_path / f"p{i}", [record(f"r{i}", "x")])
    reports: list[tuple[int, int, str]] = []
    steps: list[int] = []
    pace = typing_pace.TypingPace()
    monkeypatch.setattr(pace, "step_aside", lambda: steps.append(1))
    control = JobControl(CancelToken(), lambda *a: reports.append(a))
    build_index(IndexFreshness(pace), SearchIndex(store), control=control)
    percents = [100 * d // t for d, t, _m in reports]
    assert percents == sorted(set(percents)) and percents[-1] == 100  # each percent once, up to done
    assert len(steps) >= 3  # a step per scope (and the Global)
