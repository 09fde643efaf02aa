"""Batch runs: several sessions one after another, each its own review; one failure doesn't stop the rest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from consolidation_support import CWD, ChatServer, Reply, proposal_reply, write_dsh_session

from core.consolidation import ConsolidationService
from core.consolidation.batch import BatchRun, unreviewed
from core.model_catalog import ModelCatalog
from core.sessions import SessionCatalog
from core.settings import AppSettings
from core.store.fs import FileStore

REPO = Path(__file__).resolve().parents[3]
SESSIONS = [
    ("s1-tabs", "Always use tabs in Makefiles."),
    ("s2-deploy", "Remember that we deploy with fly.io."),
    ("s3-db", "We decided to use Postgres because we need transactions."),
]


@pytest.fixture
def sessions_root(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    for sid, said in SESSIONS:
        write_dsh_session(root, sid, CWD, [(said, "Okay.")], title=sid)
    write_dsh_session(root, "s4-live", CWD, [("Remember the live one.", "ok")], title="live", old=False)
    return root


def _service(tmp_path: Path, sessions_root: Path, catalog: ModelCatalog | None = None, **settings: Any) -> Any:
    sessions = SessionCatalog(sessions_root=sessions_root, dsh_home=tmp_path / "dsh")
    store = FileStore(tmp_path / "memory")
    service = ConsolidationService(store, catalog or ModelCatalog(()), AppSettings(**settings), sessions=sessions)
    stable = [s for s in sessions.list(cwd=CWD) if sessions.is_stable(s, 120)[0]]
    return service, store, stable


def test_each_session_gets_its_own_review_and_a_failure_does_not_stop_the_others(
    tmp_path: Path, sessions_root: Path, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    chat_server.replies += [
        proposal_reply([{"op": "no_change", "reason": "nothing durable"}]),
        Reply(500, b'{"error": {"message": "overloaded"}}'),
        proposal_reply([{"op": "no_change", "reason": "nothing durable"}]),
    ]
    service, _store, stable = _service(
        tmp_path, sessions_root, catalog, consolidator="model", request_timeout_seconds=10
    )
    todo = unreviewed(service, stable)
    assert [s.id for s in todo] == ["s1-tabs", "s2-deploy", "s3-db"]  # the live session waits
    progress: list[str] = []
    items = BatchRun(service, todo).run(progress=lambda done, total, msg: progress.append(msg))
    assert [i.status for i in items] == ["no-change", "failed", "no-change"]
    assert items[1].error_code == "consolidation_failed" and "HTTP 500" in items[1].error
    assert progress[:3] == ["1 of 3: s1-tabs", "2 of 3: s2-deploy", "3 of 3: s3-db"]
    assert len({i.review_id for i in items if i.review}) == 2
    # The failed one is still to do; the others are reviewed (their no-change is final).
    assert [s.id for s in unreviewed(service, stable)] == ["s2-deploy"]


def test_cancel_stops_the_batch_and_writes_nothing_more(tmp_path: Path, sessions_root: Path) -> None:
    service, store, stable = _service(tmp_path, sessions_root, consolidator="offline")
    cancel = {"now": False}
    items = BatchRun(service, unreviewed(service, stable), apply=True).run(
        cancelled=lambda: cancel["now"], on_item=lambda item: cancel.update(now=True)
    )
    assert [i.status for i in items] == ["committed", "cancelled", "cancelled"]
    snap = store.find_workspace(CWD)
    assert snap is not None and [r.name for r in snap.records()] == ["tabs-makefiles"]
    assert [s.id for s in unreviewed(service, stable)] == ["s2-deploy", "s3-db"]


def _cli(tmp_path: Path, sessions_root: Path, *args: str) -> tuple[int, Any]:
    argv = [sys.executable, "-m", "core.cli.main", "--root", str(tmp_path / "memory"), "--json", "consolidate"]
    argv += ["--pending", "--cwd", CWD, "--consolidator", "offline", "--sessions-root", str(sessions_root), *args]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=60, env=dict(os.environ))
    return done.returncode, json.loads(done.stdout)


def test_cli_consolidate_pending(tmp_path: Path, sessions_root: Path) -> None:
    code, data = _cli(tmp_path, sessions_root)
    assert code == 0
    assert [(r["session_id"], r["status"], r["changes"]) for r in data["sessions"]] == [
        ("s1-tabs", "proposed", 1),
        ("s2-deploy", "proposed", 1),
        ("s3-db", "proposed", 1),
    ]
    assert not (tmp_path / "memory" / "workspaces").exists()  # a dry run writes no memory
    code, data = _cli(tmp_path, sessions_root, "--apply")
    assert code == 0 and [r["status"] for r in data["sessions"]] == ["committed"] * 3
    store = FileStore(tmp_path / "memory")
    snap = store.find_workspace(CWD)
    assert snap is not None and len(snap.records()) == 3
    code, data = _cli(tmp_path, sessions_root, "--apply")
    assert code == 0 and data["sessions"] == []  # nothing left to review
