"""core.consolidation.review_state: the Consolidation tab's listing and review decisions, without Qt."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

from core.consolidation.review_state import ChangeRow, Pipeline, commit_request, has_decisions, read_listing
from core.demo import DEMO_SESSIONS_DIR, build_demo_root
from core.store.fs import FileStore


def _pipeline(tmp_path: Path) -> tuple[Pipeline, FileStore]:
    root = tmp_path / "memory"
    build_demo_root(root)
    old = time.time() - 3600  # the demo sessions were just written: make them quiet (stable)
    for dirpath, _dirs, files in os.walk(root / DEMO_SESSIONS_DIR):
        for name in files:
            os.utime(Path(dirpath) / name, (old, old))
    store = FileStore(root)
    home = tmp_path / "dsh-home"
    home.mkdir()
    return Pipeline(store, tmp_path / "unused-sessions", home), store


def test_listing_picks_the_first_workspace_and_its_sessions(tmp_path: Path) -> None:
    pipeline, _store = _pipeline(tmp_path)
    listing = read_listing(pipeline, None, explicit=False)
    assert listing.sessions_root.name == DEMO_SESSIONS_DIR  # from settings.yml, not the default
    assert listing.selected_key == listing.choices[0].key
    assert {r.id for r in listing.rows} == {"demo-session-release", "demo-session-ci"}
    assert all(r.stable and r.last_status == "" for r in listing.rows)
    assert listing.receipts == [] and listing.model_label


def test_run_decide_commit_and_the_receipt_shows_in_the_next_listing(tmp_path: Path) -> None:
    pipeline, store = _pipeline(tmp_path)
    listing = read_listing(pipeline, None, explicit=False)
    row = next(r for r in listing.rows if r.id == "demo-session-release")
    review = pipeline.run(row.summary, "offline", False, lambda: False, lambda _d, _t, _m: None)
    rows = [ChangeRow(c) for c in review.changes]
    assert not has_decisions(rows)
    actionable = [r for r in rows if r.acceptable]
    assert actionable, "the offline extractor proposes something for the demo session"
    rows = [replace(r, accepted=True) if r is actionable[0] else r for r in rows]
    assert has_decisions(rows)
    request = commit_request(rows)
    assert request.change_ids == [actionable[0].change.id] and request.edited == {}
    before = store.read_workspace(review.workspace_key).revision
    receipt = pipeline.commit(review, request, request.touches_global)
    assert receipt.status in ("committed", "partially-committed")
    assert store.read_workspace(review.workspace_key).revision != before
    again = read_listing(pipeline, listing.selected_key, explicit=True)
    assert receipt.review_id in again.receipt_texts
    assert next(r for r in again.rows if r.id == row.id).last_status == receipt.status
