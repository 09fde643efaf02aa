"""Stability: the quiet period and the session.lock probe (which must never disturb DSH)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dsh_log_builders import conversation, user, write_session

from core.sessions import SessionCatalog, SessionSummary, is_lock_held, lock_state
from core.sessions.stability import LOCK_DIR_STALE_SECONDS

posix_only = pytest.mark.skipif(os.name != "posix", reason="fcntl/flock locks are POSIX-only")


@pytest.fixture
def session(tmp_path: Path) -> tuple[SessionCatalog, SessionSummary]:
    folder = write_session(tmp_path / "sessions", conversation(turns=1))
    past = time.time() - 3600
    os.utime(folder / "session.jsonl", (past, past))
    catalog = SessionCatalog(tmp_path / "sessions")
    return catalog, catalog.list()[0]


def _age(summary: SessionSummary, seconds: float) -> float:
    """A ``now`` that makes the session's log ``seconds`` old."""
    return summary.revision.mtime_ns / 1e9 + seconds


def test_quiet_period(session: tuple[SessionCatalog, SessionSummary]) -> None:
    catalog, summary = session
    assert catalog.is_stable(summary, quiet_seconds=120, now=_age(summary, 121)) == (True, "stable")
    ok, reason = catalog.is_stable(summary, quiet_seconds=120, now=_age(summary, 30))
    assert not ok and reason.startswith("modified 30 s ago")
    ok, reason = catalog.is_stable(summary, quiet_seconds=3600, now=_age(summary, 600))
    assert not ok and "10 min" in reason


def test_default_quiet_period_and_real_clock(session: tuple[SessionCatalog, SessionSummary]) -> None:
    catalog, summary = session  # modified an hour ago
    assert catalog.is_stable(summary) == (True, "stable")


def test_changed_since_listed(session: tuple[SessionCatalog, SessionSummary]) -> None:
    catalog, summary = session
    log = Path(summary.revision.path)
    with open(log, "ab") as handle:
        handle.write(json.dumps(user(99, "more")).encode() + b"\n")
    os.utime(log, (time.time() - 1000, time.time() - 1000))
    ok, reason = catalog.is_stable(summary)
    assert not ok and "changed since it was listed" in reason
    fresh = catalog.list()[0]
    assert catalog.is_stable(fresh)[0]


def test_gone(session: tuple[SessionCatalog, SessionSummary]) -> None:
    catalog, summary = session
    Path(summary.revision.path).unlink()
    assert catalog.is_stable(summary) == (False, "the session log is gone")


def test_lock_file_with_live_and_dead_pid(session: tuple[SessionCatalog, SessionSummary]) -> None:
    catalog, summary = session
    lock = Path(summary.folder) / "session.lock"
    lock.write_text(json.dumps({"pid": os.getpid(), "hostname": os.uname().nodename}))
    ok, reason = catalog.is_stable(summary)
    assert not ok and f"pid {os.getpid()}" in reason
    lock.write_text(str(os.getpid()))
    assert is_lock_held(summary.folder)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock.write_text(dead.stdout.strip())
    assert not is_lock_held(summary.folder)
    assert catalog.is_stable(summary) == (True, "stable")
    lock.write_text(json.dumps({"pid": 1, "hostname": "some-other-machine"}))
    assert "some-other-machine" in (lock_state(summary.folder) or "")


def test_lock_directory_fresh_or_stale(session: tuple[SessionCatalog, SessionSummary]) -> None:
    _, summary = session
    lock = Path(summary.folder) / "session.lock"
    lock.mkdir()
    now = lock.stat().st_mtime
    assert lock_state(summary.folder, now=now + 1) is not None
    assert lock_state(summary.folder, now=now + LOCK_DIR_STALE_SECONDS + 1) is None


def test_no_lock_file_is_never_created(session: tuple[SessionCatalog, SessionSummary]) -> None:
    catalog, summary = session
    assert not is_lock_held(summary.folder)
    catalog.is_stable(summary)
    assert not (Path(summary.folder) / "session.lock").exists()


def test_an_unowned_lock_file_is_not_held(session: tuple[SessionCatalog, SessionSummary]) -> None:
    _, summary = session
    lock = Path(summary.folder) / "session.lock"
    lock.write_bytes(b"")
    assert not is_lock_held(summary.folder)
    lock.write_text("not a pid")
    assert not is_lock_held(summary.folder)


_HOLDER = r"""
import fcntl, sys
mode = sys.argv[2]
handle = open(sys.argv[1], "r+")
if mode == "flock":
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
else:
    fcntl.lockf(handle.fileno(), fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def lock_holder(
    session: tuple[SessionCatalog, SessionSummary],
) -> Iterator[tuple[Path, list[subprocess.Popen[str]]]]:
    procs: list[subprocess.Popen[str]] = []
    lock = Path(session[1].folder) / "session.lock"
    lock.write_text("")
    yield lock, procs
    for proc in procs:
        _release(proc)


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    proc.wait(timeout=30)
    proc.stdout.close()


def _hold(lock: Path, mode: str, procs: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(lock), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    procs.append(proc)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


@posix_only
@pytest.mark.parametrize("mode", ["flock", "lockf"])
def test_lock_held_by_another_process(
    session: tuple[SessionCatalog, SessionSummary],
    lock_holder: tuple[Path, list[subprocess.Popen[str]]],
    mode: str,
) -> None:
    catalog, summary = session
    lock, procs = lock_holder
    assert not is_lock_held(summary.folder)
    proc = _hold(lock, mode, procs)
    ok, reason = catalog.is_stable(summary)
    assert not ok and "holds session.lock" in reason
    # the probe took nothing: the holder still has it, and releasing works as usual
    assert is_lock_held(summary.folder)
    _release(proc)
    procs.clear()
    assert not is_lock_held(summary.folder)
    assert lock.read_text() == ""
