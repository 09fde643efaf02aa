"""Background work owned by the widget that asked for it.

A :class:`Job` is one call (a function and its own arguments) that reports ``finished``,
``errored`` and ``progress`` by signal. A widget keeps its jobs in a :class:`Jobs` table keyed by
purpose ("load", "search", "commit"…): starting a job under a key that already has one drops the
stale one (its result is never delivered), and a destroyed owner never receives a result. That
is what the per-tab serial counters and ``_closing`` guards used to do by hand.

The one runner (``ThreadPoolTaskRunner``) is injected through the ``AppContext``; it runs jobs
on a ``QThreadPool`` and their signals arrive on the GUI thread. Tests inject
:class:`SyncTaskRunner`, which runs a job at once on the calling thread, so a test reads as a
straight line. A job never touches widgets.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from core.errors import CancelledError

T = TypeVar("T")


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
            raise CancelledError("Cancelled. Nothing was written.")


ProgressFn = Callable[[int, int, str], None]
"""``progress(done, total, message)``; total 0 means indeterminate."""


class JobControl:
    """What a cancellable job's function is given (as ``control=``): its token and a progress line."""

    def __init__(self, token: CancelToken, report: ProgressFn) -> None:
        self.token = token
        self.report = report

    def raise_if_cancelled(self) -> None:
        self.token.raise_if_cancelled()


class Job(QObject):
    """One call run off the GUI thread; reports by signal. Built by :meth:`Jobs.start`."""

    finished = Signal(object)
    errored = Signal(object)
    progress = Signal(int, int, str)

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], *, controlled: bool = False) -> None:
        super().__init__()
        self.token = CancelToken()
        self._fn = fn
        self._args = args
        self._controlled = controlled

    def cancel(self) -> None:
        self.token.cancel()

    def execute(self) -> None:
        """Run the call and report (on whatever thread the runner chose)."""
        try:
            if self._controlled:
                control = JobControl(self.token, self.progress.emit)
                result = self._fn(*self._args, control=control)
            else:
                result = self._fn(*self._args)
        except BaseException as exc:  # reported to the GUI thread, never swallowed
            exc.__traceback_text__ = traceback.format_exc()  # type: ignore[attr-defined]
            self.errored.emit(exc)
        else:
            self.finished.emit(result)


class TaskRunner(Protocol):
    def start(self, job: Job) -> None: ...

    def wait_all(self, timeout_ms: int = 30000) -> bool: ...


class _Runnable(QRunnable):
    def __init__(self, job: Job) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._job = job

    def run(self) -> None:
        self._job.execute()


class ThreadPoolTaskRunner:
    """Runs jobs on a private QThreadPool; their signals are delivered on the GUI thread."""

    def __init__(self, max_threads: int = 2) -> None:
        self._pool = QThreadPool()
        self._pool.setMaxThreadCount(max_threads)
        self._live: set[Job] = set()  # a job object lives until it has reported

    def start(self, job: Job) -> None:
        self._live.add(job)
        job.finished.connect(lambda _r: self._live.discard(job))
        job.errored.connect(lambda _e: self._live.discard(job))
        self._pool.start(_Runnable(job))

    def wait_all(self, timeout_ms: int = 30000) -> bool:
        return bool(self._pool.waitForDone(timeout_ms))


class SyncTaskRunner:
    """Runs a job immediately on the caller's thread. For tests, screenshots and the self-test."""

    def start(self, job: Job) -> None:
        job.execute()

    def wait_all(self, timeout_ms: int = 30000) -> bool:
        return True


class Jobs:
    """The background jobs of one owner (a widget), one per purpose key.

    ``start(key, fn, *args, done=..., failed=...)`` runs ``fn(*args)`` on the runner. ``done`` /
    ``failed`` / ``progress`` are called on the GUI thread only while the job is still the current
    one for its key and the owner still exists; starting another job under the same key, or
    :meth:`cancel`, drops it.
    """

    def __init__(self, owner: QObject, runner: TaskRunner) -> None:
        self._owner = owner
        self._runner = runner
        self._current: dict[str, Job] = {}

    def start(
        self,
        key: str,
        fn: Callable[..., T],
        *args: Any,
        done: Callable[[T], object] | None = None,
        failed: Callable[[BaseException], object] | None = None,
        progress: ProgressFn | None = None,
        cancellable: bool = False,
    ) -> Job:
        """Start ``fn(*args)`` (``fn(*args, control=JobControl)`` when ``cancellable``)."""
        stale = self._current.pop(key, None)
        if stale is not None:
            stale.cancel()
        job = Job(fn, args, controlled=cancellable)
        self._current[key] = job

        def live() -> bool:
            return shiboken6.isValid(self._owner) and self._current.get(key) is job

        def finished(result: Any) -> None:
            if live():
                del self._current[key]
                if done is not None:
                    done(result)

        def errored(exc: BaseException) -> None:
            if live():
                del self._current[key]
                if failed is not None:
                    failed(exc)
                elif not isinstance(exc, CancelledError):
                    raise exc

        job.finished.connect(finished)
        job.errored.connect(errored)
        if progress is not None:
            job.progress.connect(lambda d, t, m: progress(d, t, m) if live() else None)
        self._runner.start(job)
        return job

    def running(self, key: str) -> bool:
        return key in self._current

    def current(self, key: str) -> Job | None:
        """The job under ``key`` whose result is still wanted (None when there is none)."""
        return self._current.get(key)

    def cancel(self, key: str) -> None:
        """Cancel the job under ``key`` and drop whatever it would still report."""
        job = self._current.pop(key, None)
        if job is not None:
            job.cancel()

    def cancel_all(self) -> None:
        for key in list(self._current):
            self.cancel(key)
