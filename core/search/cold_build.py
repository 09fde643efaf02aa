"""A cold build shared with helper processes (issue 15).

A refresh that finds many scopes with no row in the persisted index (a first start, a deleted
cache) spends almost all its time in pure Python: reading and validating records, tokenizing them,
building and encoding each scope's tables. One interpreter runs that on one core. So the scopes go
into one queue (:class:`Queue`): the refreshing process takes them from the front, and once it has
seen that the build will take a while (:data:`HELPER_AFTER_S`, :data:`HELPER_MIN_REMAINING_S`) it
starts helper processes (this module, ``python -m core.search.cold_build ROOT CACHE_DIR``) that take
them from the back. Whoever takes a scope reads it, builds it and writes its row to the cache; when
the queue is empty the refreshing process opens every new row by its meta, exactly as a reopen does
(``SearchIndex._opened``), and its refresh goes on as usual: a folder whose stamp is still the one
recorded with its row is trusted, any other is read again.

Why rows and not results sent back: a row is what a cold build writes anyway, so a helper adds no
work of its own (the analysis pool measured in wave 5, which sent analyses back packed, cost ~20 %
more CPU and lost on a busy machine: docs/store.md). The helpers write nothing but the index's own
rows under ``<root>/.manager/cache``, derived data.

Failure is cheap by construction: a helper that cannot start, dies (even SIGKILLed) or answers
nonsense gives its scope back as not built, and the refreshing process reads every scope without
a row itself, as before. A helper reads its work from its stdin and exits when that closes, so one
never outlives the process that started it by more than the scope it is building.
"""

from __future__ import annotations

import contextlib
import gc
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

HELPER_AFTER_S = 0.1  # build this long in-process before deciding on helpers (measures the pace)
HELPER_MIN_REMAINING_S = 0.6  # only start helpers for this much work left (a helper starts in ~0.3 s)
MAX_HELPERS = 3


@dataclass(frozen=True)
class Item:
    """One scope to build: its segment id, workspace key, and whether it is archived."""

    sid: str
    key: str
    archived: bool


def helper_count() -> int:
    """How many helper processes a cold build may start: ``DSH_MEMORY_BUILD_HELPERS`` (0 = none),
    else one per CPU this process may run on, beside its own, at most :data:`MAX_HELPERS`."""
    raw = os.environ.get("DSH_MEMORY_BUILD_HELPERS", "")
    if raw.isdigit():
        return int(raw)
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(0, min(MAX_HELPERS, cpus - 1))


def helper_argv(root: Path, cache_dir: Path) -> list[str]:
    """The command line of one helper (tests replace it with a helper that misbehaves)."""
    return [sys.executable, "-m", "core.search.cold_build", str(root), str(cache_dir)]


class Queue:
    """The scopes of one cold build: the refreshing process takes from the front, helpers from the
    back; each scope is taken once. ``built`` maps segment id -> documents indexed for it."""

    def __init__(self, items: Sequence[Item]) -> None:
        self._items = deque(items)
        self._cond = threading.Condition()
        self._busy = 0  # scopes a helper has taken and not answered for yet
        self._closed = False
        self.built: dict[str, int] = {}
        self.total = len(items)

    def take(self, *, back: bool = False) -> Item | None:
        with self._cond:
            if self._closed or not self._items:
                return None
            if back:
                self._busy += 1
                return self._items.pop()
            return self._items.popleft()

    def done(self, item: Item, reindexed: int | None, *, helper: bool = False) -> None:
        """``item`` is finished: built with ``reindexed`` documents, or not (None)."""
        with self._cond:
            if reindexed is not None:
                self.built[item.sid] = reindexed
            if helper:
                self._busy -= 1
            self._cond.notify_all()

    def close(self) -> None:
        """Nothing more is taken (the cache cannot be written); what is in flight still finishes."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def remaining(self) -> int:
        with self._cond:
            return len(self._items)

    def wait_helpers(self, progress: Callable[[int], None] | None) -> None:
        """Until no helper holds a scope, calling ``progress(scopes finished)`` on this thread."""
        with self._cond:
            while self._busy:
                self._cond.wait(0.25)
                if progress is not None:
                    done = self._finished()
                    self._cond.release()
                    try:
                        progress(done)
                    finally:
                        self._cond.acquire()

    def finished(self) -> int:
        """Scopes taken and answered for (built or not)."""
        with self._cond:
            return self._finished()

    def _finished(self) -> int:  # (with the lock held)
        return self.total - len(self._items) - self._busy


class Helpers:
    """Helper processes feeding on a :class:`Queue`, one thread each (blocked on the pipe)."""

    def __init__(self, queue: Queue, argv: list[str], count: int) -> None:
        self._queue = queue
        self._threads: list[threading.Thread] = []
        for _ in range(count):
            try:
                proc = subprocess.Popen(  # (our own interpreter and module, no shell)
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    close_fds=True,
                    text=True,
                    encoding="utf-8",
                    cwd=str(Path(__file__).resolve().parents[2]),  # (so ``core`` imports from a checkout too)
                )
            except OSError:
                break  # (the refreshing process builds everything itself)
            thread = threading.Thread(target=self._feed, args=(proc,), name="cold-build-helper", daemon=True)
            thread.start()
            self._threads.append(thread)

    @property
    def started(self) -> int:
        return len(self._threads)

    def _feed(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            while (item := self._queue.take(back=True)) is not None:
                reindexed: int | None = None
                try:
                    proc.stdin.write(f"{'a' if item.archived else 'w'} {item.sid} {item.key}\n")
                    proc.stdin.flush()
                    reply = proc.stdout.readline().split()
                    if len(reply) == 2 and reply[0] == "ok" and reply[1].isdigit():
                        reindexed = int(reply[1])
                    elif reply != ["no"]:
                        raise OSError("the helper stopped")  # (EOF: it died; or it answered nonsense)
                except (OSError, ValueError):
                    self._queue.done(item, None, helper=True)
                    return
                self._queue.done(item, reindexed, helper=True)
        finally:
            with contextlib.suppress(OSError):
                proc.stdin.close()  # (the helper's cue to exit)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()


def serve(root: Path, cache_dir: Path, lines: IO[str], out: IO[str]) -> None:
    """A helper's loop: build and write the row of each scope named on ``lines`` ("w|a SID KEY"),
    answering "ok N" (N documents indexed) or "no" (no such scope, or its row was not written)."""
    from core.search import SearchIndex
    from core.store.fs import FileStore

    gc.disable()  # (as the refreshing process builds: see index._gc_paused; freed by refcounts)
    index = SearchIndex(FileStore(root), cache_dir=cache_dir)
    for line in lines:
        kind, sid, key = [*line.rstrip("\n").split(" ", 2), "", ""][:3]
        try:
            built = index.build_row(sid, key, archived=kind == "a", now_ns=time.time_ns())
        except Exception:  # (a scope this helper can't build: the refreshing process will try)
            built = None
        out.write("no\n" if built is None else f"ok {built}\n")
        out.flush()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m core.search.cold_build ROOT CACHE_DIR  (scopes on stdin)", file=sys.stderr)
        return 2
    serve(Path(args[0]), Path(args[1]), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
