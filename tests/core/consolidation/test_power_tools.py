"""Stale-memory queue, load meter and provenance over real stores (no Qt)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from consolidation_support import make_evidence

from core.consolidation import ConsolidationService
from core.load_meter import estimate_tokens, start_load
from core.model_catalog import ModelCatalog
from core.models import PutOp, Record
from core.provenance import touched, written_by
from core.settings import AppSettings
from core.staleness import stale_items
from core.store.fs import FileStore


def _rec(name: str, body: str) -> Record:
    return Record(name=name, description=f"About {name}", type="project", body=f"\n{body}\n")


def test_stale_queue_finds_old_broken_duplicate_and_missing_file_records(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("print()\n")
    store = FileStore(tmp_path / "memory")
    snap = store.create_workspace(str(project))
    records = [
        _rec("entry-point", "The entry point is src/app.py; the old one was src/main.py."),
        _rec("deploy", "We deploy with fly.io, see [[release-notes]] and [[entry-point]]."),
        _rec("deploy-again", "We deploy with fly.io, see [[release-notes]] and [[entry-point]]!"),
        _rec("fresh", "Nothing to see at https://example.com/src/x.py."),
        _rec("ancient", "Tabs, not spaces."),
    ]
    snap = store.commit(snap.key, [PutOp(record=r) for r in records], snap.revision)
    old = datetime.now(UTC) - timedelta(days=400)
    ancient = Path(str(store.root)) / "workspaces" / snap.key / "ancient.md"
    os.utime(ancient, (old.timestamp(), old.timestamp()))
    snap = store.read_workspace(snap.key)
    items = {(i.name, i.reason): i.detail for i in stale_items(snap, older_than_days=180)}
    assert items[("ancient", "old")].startswith("not changed for 400 days")
    assert items[("deploy", "broken-links")] == "links to [[release-notes]]"
    assert items[("deploy", "near-duplicate")].startswith("similar to [[deploy-again]]")
    assert items[("entry-point", "missing-files")] == "mentions src/main.py"
    assert not any(name == "fresh" for name, _ in items)  # a URL is not a path
    # Marked reviewed at its current revision: out of the queue until it changes again.
    marked = {"ancient": snap.get("ancient").revision, "deploy": "an-older-revision"}  # type: ignore[union-attr]
    names = {i.name for i in stale_items(snap, older_than_days=180, reviewed=marked)}
    assert "ancient" not in names and "deploy" in names


def test_load_meter_counts_what_an_agent_loads(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    store.replace_global("# Me\n\n我喜欢简洁的回答。\n", store.read_global().revision)
    snap = store.create_workspace("/home/ada/p")
    snap = store.commit(snap.key, [PutOp(record=_rec("a", "x"))], snap.revision)
    load = start_load(store.read_global().text, snap, warning_tokens=10)
    assert load.global_bytes == len("# Me\n\n我喜欢简洁的回答。\n".encode())
    assert load.index_bytes == len(snap.index_text.encode()) > 0
    assert load.tokens == estimate_tokens(store.read_global().text) + estimate_tokens(snap.index_text)
    assert load.over
    assert estimate_tokens("简洁") == 2 and estimate_tokens("abcdefgh") == 2


def test_provenance_links_records_and_receipts(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    service = ConsolidationService(store, ModelCatalog(()), AppSettings())
    evidence, text = make_evidence([(1, "user", "Remember that we deploy with fly.io.")])
    review = service.propose(service.prepare_evidence(evidence, text), consolidator="offline")
    receipt = service.commit(review, [c.id for c in review.actionable])
    [origin] = written_by(service.receipts(), review.workspace_key, "deploy-fly-io")
    assert (origin.review_id, origin.session_id, origin.kind) == (review.review_id, "sess-1", "put")
    assert origin.seq_range == (1, 1)
    assert touched(receipt) == ["deploy-fly-io"]
    assert written_by(service.receipts(), review.workspace_key, "other") == []
