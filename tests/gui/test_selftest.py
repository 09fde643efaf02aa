"""``--self-test``: the unfrozen app opens a demo root, loads every tab and exits 0; failures exit 1."""

from __future__ import annotations

import gc
import io
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QTabWidget, QVBoxLayout
from pytestqt.qtbot import QtBot

from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.selftest import run_self_test
from gui.tabs.base import Tab
from gui.tasks import ThreadPoolTaskRunner
from gui.widgets.banner import Banner

# Showing a window on the offscreen platform logs this harmless warning.


def test_self_test_passes_on_the_demo_root(tmp_path: Path, dsh_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gui.app import ensure_demo_root, run

    root = ensure_demo_root(tmp_path / "demo-root")  # ships its own DSH sessions for the consolidation tab
    code = run(["--self-test", "--root", str(root)])
    out = capsys.readouterr().out
    # run() leaves its window to deleteLater(); deleting it drops the thread-pool runner, whose
    # destructor joins the pool threads before the dangling-thread check looks.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    assert code == 0, out
    assert "self-test passed" in out
    for title in ("Global", "Workspace", "Session Consolidation", "Recycle Bin", "Settings"):
        assert f"ok   {title} (" in out


def _load(fail: str) -> int:
    if fail == "raise-in-worker":
        raise OSError("disk on fire")
    return 1


class _Tab(Tab):
    def __init__(self, ctx: AppContext, fail: str = "") -> None:
        super().__init__(ctx)
        self.fail = fail
        self.banner = Banner()
        self.loaded = 0
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(QLabel("tab"))

    def refresh(self) -> None:
        self.jobs.start("load", _load, self.fail, done=self._done, failed=self._failed)

    def _done(self, n: int) -> None:
        self.loaded += n
        if self.fail == "dialog":
            self.ctx.dialogs.error(self, "Could not load", "the sessions root is unreadable")
        if self.fail == "exception-in-slot":
            raise RuntimeError("bug in a slot")

    def _failed(self, exc: BaseException) -> None:
        self.banner.show_message("error", f"Could not load: {exc}")


def _window(qtbot: QtBot, ctx: AppContext, fail: str) -> QMainWindow:
    window = QMainWindow()
    qtbot.addWidget(window)
    tabs = QTabWidget()
    tabs.addTab(_Tab(ctx), "Good")
    tabs.addTab(_Tab(ctx, fail), "Bad")
    window.setCentralWidget(tabs)
    return window


@pytest.mark.parametrize("fail", ["", "dialog", "raise-in-worker", "exception-in-slot"])
def test_self_test_reports_each_kind_of_failure(qtbot: QtBot, tmp_path: Path, fail: str) -> None:
    runner = ThreadPoolTaskRunner()
    dialogs = ScriptedDialogs()
    ctx = AppContext(
        store=None,  # type: ignore[arg-type]  # these tabs never touch the store
        runner=runner,
        dialogs=dialogs,
        root=tmp_path,
        sessions_root=tmp_path,
        dsh_home=tmp_path,
    )
    window = _window(qtbot, ctx, fail)
    out = io.StringIO()
    code = run_self_test(window, ctx, out=out, timeout_s=20)
    report = out.getvalue()
    assert ctx.dialogs is dialogs  # the seam is put back
    assert "ok   Good (" in report
    if not fail:
        assert code == 0, report
        assert "self-test passed" in report
    else:
        assert code == 1, report
        assert "FAIL Bad (" in report
        expected = {
            "dialog": "unreadable",
            "raise-in-worker": "disk on fire",
            "exception-in-slot": "bug in a slot",
        }
        assert expected[fail] in report
    assert runner.wait_all(5000)
    del runner, ctx
    gc.collect()
