"""The one background task runner the window is given (never a global).

Slow work (file scans, model calls, consolidation) runs as a plain Python callable on a
``QThreadPool`` worker; its result or error comes back to the GUI thread by signal. A worker never
touches widgets. Tests inject :class:`SyncTaskRunner`, which runs the callable at once on the
calling thread, so a test reads as a straight line.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any, Protocol

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class CancelToken:
    """Cooperative cancellation: long work calls ``raise_if_cancelled()`` between steps."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            from core.errors import CancelledError

            raise CancelledError("Cancelled. Nothing was written.")


ProgressFn = Callable[[int, int, str], None]
"""``progress(done, total, message)``; total 0 means indeterminate."""

Work = Callable[[CancelToken, ProgressFn], Any]


class TaskHandle(Protocol):
    token: CancelToken

    def cancel(self) -> None: ...


class TaskRunner(Protocol):
    def submit(
        self,
        work: Work,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        on_progress: Callable[[int, int, str], None] | None = None,
    ) -> TaskHandle: ...

    def wait_all(self, timeout_ms: int = 30000) -> bool: ...


class _Signals(QObject):
    done = Signal(object)
    failed = Signal(object)
    progress = Signal(int, int, str)


class _Job(QRunnable):
    def __init__(self, work: Work, token: CancelToken, signals: _Signals) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._work = work
        self._token = token
        self._signals = signals

    def run(self) -> None:
        try:
            result = self._work(self._token, self._signals.progress.emit)
        except BaseException as exc:  # reported to the GUI thread, never swallowed
            exc.__traceback_text__ = traceback.format_exc()  # type: ignore[attr-defined]
            self._signals.failed.emit(exc)
        else:
            self._signals.done.emit(result)


class _Handle:
    def __init__(self, token: CancelToken, signals: _Signals | None = None) -> None:
        self.token = token
        self._signals = signals  # keeps the signal object alive until the job reports

    def cancel(self) -> None:
        self.token.cancel()


class ThreadPoolTaskRunner:
    """Runs work on a private QThreadPool; callbacks are delivered on the GUI thread."""

    def __init__(self, max_threads: int = 2) -> None:
        self._pool = QThreadPool()
        self._pool.setMaxThreadCount(max_threads)
        self._live: set[_Signals] = set()

    def submit(
        self,
        work: Work,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        on_progress: Callable[[int, int, str], None] | None = None,
    ) -> _Handle:
        token = CancelToken()
        signals = _Signals()
        self._live.add(signals)

        def finished(_: object = None) -> None:
            self._live.discard(signals)

        if on_done is not None:
            signals.done.connect(on_done)
        if on_error is not None:
            signals.failed.connect(on_error)
        if on_progress is not None:
            signals.progress.connect(on_progress)
        signals.done.connect(finished)
        signals.failed.connect(finished)
        self._pool.start(_Job(work, token, signals))
        return _Handle(token, signals)

    def wait_all(self, timeout_ms: int = 30000) -> bool:
        return bool(self._pool.waitForDone(timeout_ms))


class SyncTaskRunner:
    """Runs work immediately on the caller's thread. For tests and the ``--self-test`` path."""

    def submit(
        self,
        work: Work,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        on_progress: Callable[[int, int, str], None] | None = None,
    ) -> _Handle:
        token = CancelToken()
        try:
            result = work(token, on_progress or (lambda _d, _t, _m: None))
        except Exception as exc:
            if on_error is None:
                raise
            on_error(exc)
        else:
            if on_done is not None:
                on_done(result)
        return _Handle(token)

    def wait_all(self, timeout_ms: int = 30000) -> bool:
        return True


def submit_while_alive(
    runner: TaskRunner,
    widget: QObject,
    work: Work,
    on_done: Callable[[Any], None],
    on_error: Callable[[BaseException], None],
) -> TaskHandle:
    """Submit ``work``; its result or error is delivered only if ``widget`` still exists by then
    (a tab closed while its load was running must not be touched)."""

    def done(result: Any) -> None:
        if shiboken6.isValid(widget):
            on_done(result)

    def failed(exc: BaseException) -> None:
        if shiboken6.isValid(widget):
            on_error(exc)

    return runner.submit(work, done, failed)
