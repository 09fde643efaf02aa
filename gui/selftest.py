"""``dsh-memory --self-test``: open every tab on a (demo) root, run its load path, report, exit 0/1.

Used by the frozen-app smoke test and by the normal test suite. A tab passes when its refresh
finishes without an exception, without an error dialog, and with no ``error_text()`` (or error
banner) left showing, and it paints. Modal questions are answered "no" so nothing blocks.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TextIO

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, Qt
from PySide6.QtWidgets import QMainWindow, QTabWidget, QWidget

from gui.context import AppContext
from gui.dialogs import Choice, Dialogs
from gui.tabs.base import Tab
from gui.widgets.banner import Banner


class _SelfTestDialogs(Dialogs):
    """Never blocks: records errors and infos, declines every question."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def confirm(self, parent: QWidget | None, title: str, text: str, ok_label: str = "OK") -> bool:
        return False

    def ask_text(self, parent: QWidget | None, title: str, label: str) -> str | None:
        return None

    def choose(
        self, parent: QWidget | None, title: str, text: str, options: list[str], *, default: str | None = None
    ) -> str | None:
        return None

    def ask(
        self,
        parent: QWidget | None,
        title: str,
        text: str,
        choices: Sequence[Choice],
        *,
        default: str,
        escape: str | None = None,
    ) -> str | None:
        return escape

    def info(self, parent: QWidget | None, title: str, text: str) -> None:
        pass

    def error(self, parent: QWidget | None, title: str, text: str) -> None:
        self.errors.append(f"{title}: {text}")


@dataclass
class TabResult:
    name: str
    seconds: float
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _process_events_for(ms: int) -> None:
    timer = QElapsedTimer()
    timer.start()
    while timer.elapsed() < ms:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.005)


def wait_for_runner(ctx: AppContext, timeout_s: float = 30.0) -> bool:
    """Run the event loop until the runner is idle and every queued result was delivered."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        idle = ctx.runner.wait_all(50)
        QCoreApplication.processEvents()
        if idle and ctx.runner.wait_all(0):
            _process_events_for(60)  # debounce timers and chained refreshes
            if ctx.runner.wait_all(0):
                return True
    return False


def _shown_error(widget: Tab) -> str | None:
    err = widget.error_text()
    if not err:  # an error banner left showing
        for banner in widget.findChildren(Banner):
            if banner.level == "error" and banner.text:
                err = banner.text or "an error banner is showing"
                break
    return err or None


def run_self_test(window: QMainWindow, ctx: AppContext, out: TextIO | None = None, timeout_s: float = 60.0) -> int:
    """Exercise each tab's load path in ``window``; print a short report; 0 when all pass, else 1."""
    out = out or sys.stdout
    dialogs = _SelfTestDialogs()
    saved_dialogs, ctx.dialogs = ctx.dialogs, dialogs
    exceptions: list[str] = []
    saved_hook = sys.excepthook

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        exceptions.append("".join(traceback.format_exception(kind, exc, tb)).strip())

    sys.excepthook = hook
    results: list[TabResult] = []
    started = time.monotonic()
    try:
        window.show()
        startup = ["start-up work did not finish"] if not wait_for_runner(ctx, timeout_s) else []
        startup += exceptions + [f"error shown: {e}" for e in dialogs.errors]
        results.append(TabResult("start-up", time.monotonic() - started, startup))
        del exceptions[:], dialogs.errors[:]
        results.append(_check_bundle())
        central = window.centralWidget()  # the tab widget, or a container holding it under a banner
        tabs = central
        if central is not None and not isinstance(central, QTabWidget):
            tabs = central.findChild(QTabWidget, "", Qt.FindChildOption.FindDirectChildrenOnly)
        if not isinstance(tabs, QTabWidget) or tabs.count() == 0:
            results.append(TabResult("window", 0.0, ["no tabs found"]))
        else:
            for index in range(tabs.count()):
                results.append(_check_tab(tabs, index, ctx, dialogs, exceptions, timeout_s))
            tabs.setCurrentIndex(0)
    finally:
        sys.excepthook = saved_hook
        ctx.dialogs = saved_dialogs
    total = time.monotonic() - started
    out.write(f"dsh-memory self-test: root {ctx.root}\n")
    for r in results:
        out.write(f"  {'ok  ' if r.ok else 'FAIL'} {r.name} ({r.seconds:.2f} s)\n")
        for problem in r.problems:
            for line in problem.splitlines():
                out.write(f"       {line}\n")
    passed = all(r.ok for r in results) and bool(results)
    out.write(f"self-test {'passed' if passed else 'FAILED'} in {total:.2f} s\n")
    out.flush()
    return 0 if passed else 1


LAZY_MODULES = (
    "core.consolidation.offline",
    "core.consolidation.chat",
    "core.model_catalog",
    "core.demo",
    "anyio._backends._asyncio",  # httpx's event-loop backend, imported by name when a model is called
)


def _check_bundle() -> TabResult:
    """Modules loaded only on demand (CLI commands, consolidators) and the icon files are present.

    This is what a frozen build can miss; the unfrozen app passes it trivially.
    """
    import importlib

    from core.cli.main import COMMAND_MODULES
    from resources import icon_png_paths, icon_svg_path

    t0 = time.monotonic()
    problems: list[str] = []
    for name in (*COMMAND_MODULES, *LAZY_MODULES):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            problems.append(f"cannot import {name}: {exc}")
    if not icon_png_paths() or not icon_svg_path().is_file():
        problems.append("the application icon files are missing")
    return TabResult("bundled modules and resources", time.monotonic() - t0, problems)


def _check_tab(
    tabs: QTabWidget,
    index: int,
    ctx: AppContext,
    dialogs: _SelfTestDialogs,
    exceptions: list[str],
    timeout_s: float,
) -> TabResult:
    name = tabs.tabText(index).replace("&", "") or f"tab {index}"
    widget = tabs.widget(index)
    if not isinstance(widget, Tab):
        return TabResult(name, 0.0, ["the tab is not a Tab"])
    first_error, first_exc = len(dialogs.errors), len(exceptions)
    t0 = time.monotonic()
    problems: list[str] = []
    try:
        tabs.setCurrentIndex(index)
        widget.refresh()
        if not wait_for_runner(ctx, timeout_s):
            problems.append(f"its load did not finish within {timeout_s:.0f} s")
        if widget.grab().isNull():
            problems.append("it did not paint")
    except Exception:
        problems.append(traceback.format_exc().strip())
    problems += [f"error shown: {e}" for e in dialogs.errors[first_error:]]
    problems += exceptions[first_exc:]
    shown = _shown_error(widget)
    if shown:
        problems.append(f"error shown: {shown}")
    return TabResult(name, time.monotonic() - t0, problems)
