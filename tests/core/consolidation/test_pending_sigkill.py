"""Real SIGKILLs of ``consolidate --apply`` over a saved pending review, at spread-out moments.

Whatever instant the child dies at, the next open (a new service on the same root) finds memory
and receipt agreeing: either the record is absent and the review is still pending ("proposed",
its saved proposal kept), or the record is there and the receipt says committed (nothing saved
left). Workspace-only changes, so this exercises the review barrier, not the two-scope commit.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from consolidation_support import CWD, write_dsh_session

from core.consolidation import ConsolidationService
from core.model_catalog import ModelCatalog
from core.sessions import SessionCatalog
from core.settings import AppSettings
from core.store.fs import FileStore

REPO = Path(__file__).resolve().parents[3]
KILLS = 20


def _service(root: Path, sessions: Path) -> ConsolidationService:
    settings = AppSettings(consolidator="offline", quiet_period_seconds=0)
    return ConsolidationService(FileStore(root), ModelCatalog(()), settings, sessions=SessionCatalog(sessions))


def _apply(root: Path, sessions: Path) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "core.cli.main", "--root", str(root), "consolidate", "sess-kill", "--apply"]
    argv += ["--consolidator", "offline", "--no-wait", "--sessions-root", str(sessions)]
    return subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.slow  # 21 child processes: 30-90 s depending on the load
@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_sigkill_during_apply_never_splits_memory_and_receipt(tmp_path: Path, dsh_home: Path) -> None:
    sessions = tmp_path / "sessions"
    write_dsh_session(sessions, "sess-kill", CWD, [("Please remember that releases happen on Tuesdays.", "Noted.")])
    # How long a whole --apply takes here: the kills are spread over that.
    timing = tmp_path / "timing"
    first = _service(timing, sessions)
    review = first.propose(first.prepare(first.sessions.list(cwd=CWD)[0]))  # type: ignore[union-attr]
    started = time.monotonic()
    assert _apply(timing, sessions).wait(60) == 0
    full = time.monotonic() - started
    assert first.existing_receipt(review.review_id).status == "committed"  # type: ignore[union-attr]

    rng = random.Random(20261201)
    outcomes: Counter[str] = Counter()
    for n in range(KILLS):
        root = tmp_path / f"m{n}"
        service = _service(root, sessions)
        pending = service.propose(service.prepare(service.sessions.list(cwd=CWD)[0]))  # type: ignore[union-attr]
        child = _apply(root, sessions)
        time.sleep(rng.uniform(0.4, 1.05) * full)
        child.send_signal(signal.SIGKILL)
        child.wait(30)

        reopened = _service(root, sessions)
        still = reopened.pending_reviews()  # settles an interrupted commit first
        receipt = reopened.existing_receipt(pending.review_id)
        snap = FileStore(root).find_workspace(CWD)
        written = snap is not None and [r.name for r in snap.records()] != []
        saved = (root / ".manager" / "review-state" / f"{pending.review_id}.json").exists()
        assert receipt is not None
        if written:
            assert receipt.status == "committed" and not saved and still == []
            assert receipt.workspace_revision_after == snap.revision  # type: ignore[union-attr]
        else:
            assert receipt.status == "proposed" and saved and [r.review_id for r in still] == [pending.review_id]
        outcomes[("committed" if written else "pending") + (" (recovered)" if reopened.recovered else "")] += 1
    print(f"{KILLS} SIGKILLs over {full:.2f} s runs: {dict(outcomes)}")
    assert sum(outcomes.values()) == KILLS
