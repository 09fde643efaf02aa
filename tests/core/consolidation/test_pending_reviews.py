"""Reviews survive the window: saved privately, restored without the model, edits kept, commit
rebuilt from the saved proposal (hash verified), interrupted commits settled, bounds, deletion."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from consolidation_support import CWD, ChatServer, make_evidence, proposal_reply

from core.consolidation import ConsolidationService, Review
from core.errors import NotFoundError, ProposalMismatchError, StorageError, UsageError
from core.model_catalog import ModelCatalog
from core.models import Record
from core.settings import AppSettings
from core.store.api import MemoryStore
from core.store.files import REVIEW_STATES, InternalFiles
from core.store.fs import FileStore
from core.store.memory import InMemoryStore

MESSAGES = [
    (1, "user", "From now on we deploy the shop with blue-green releases; remember that."),
    (2, "assistant", "Understood, blue-green it is."),
]
BODY = "\nDeploy the shop with blue-green releases.\n"
STATE_DIR = ".manager/review-state"



def break_review_states(monkeypatch: pytest.MonkeyPatch, store: MemoryStore, method: str, fault: Any) -> None:
    """Make ``store.files(REVIEW_STATES).<method>`` run ``fault`` (a full disk, a crash) for this store
    only; other kinds and other stores work."""
    real = getattr(InternalFiles, method)

    def patched(self: InternalFiles, *args: Any) -> Any:
        broken = self.kind is REVIEW_STATES and self._store is store
        return fault(*args) if broken else real(self, *args)

    monkeypatch.setattr(InternalFiles, method, patched)

def put(name: str = "blue-green-deploys", body: str = BODY) -> dict[str, Any]:
    return {
        "op": "put",
        "record": {"name": name, "description": f"About {name}", "type": "project", "body": body},
        "reason": "the user said so",
        "evidence": [1],
    }


def service_for(store: MemoryStore, catalog: ModelCatalog, **settings: Any) -> ConsolidationService:
    values: dict[str, Any] = {"consolidator": "model", "request_timeout_seconds": 10, **settings}
    return ConsolidationService(store, catalog, AppSettings(**values))


def propose(service: ConsolidationService, session_id: str = "sess-1") -> Review:
    evidence, text = make_evidence(MESSAGES, session_id=session_id)
    return service.propose(service.prepare_evidence(evidence, text))


def state_path(root: Path, review_id: str) -> Path:
    return root / STATE_DIR / f"{review_id}.json"


class _Crash(BaseException):
    """Stands in for the process dying: no handler of the code under test runs."""


# ------------------------------------------------------------------ the store API


@pytest.mark.parametrize("backend", ["file", "memory"])
def test_review_state_store_api(tmp_path: Path, backend: str) -> None:
    store: MemoryStore = FileStore(tmp_path / "m") if backend == "file" else InMemoryStore()
    assert store.files(REVIEW_STATES).list() == [] and store.files(REVIEW_STATES).read("rv-1") is None
    store.files(REVIEW_STATES).write("rv-1", '{"a": "bodies allowed here"}')
    store.files(REVIEW_STATES).write("rv-2", "{}")
    assert store.files(REVIEW_STATES).list() == ["rv-1", "rv-2"]
    assert store.files(REVIEW_STATES).read("rv-1") == '{"a": "bodies allowed here"}'
    assert store.files(REVIEW_STATES).delete("rv-1") and not store.files(REVIEW_STATES).delete("rv-1")
    assert store.files(REVIEW_STATES).list() == ["rv-2"]
    for bad in ("../escape", ".hidden", "a/b", ""):
        with pytest.raises(UsageError):
            store.files(REVIEW_STATES).write(bad, "{}")
    with pytest.raises(UsageError) as too_big:
        store.files(REVIEW_STATES).write("rv-3", "x" * (8 * 1024 * 1024 + 1))
    assert too_big.value.reason == "too-large"
    assert store.files(REVIEW_STATES).list() == ["rv-2"]
    if backend == "file":
        assert (tmp_path / "m" / STATE_DIR / "rv-2.json").read_text() == "{}"
        assert (tmp_path / "m" / STATE_DIR / "rv-2.json").stat().st_mode & 0o077 == 0  # owner only
        assert not (tmp_path / "m" / "reviews").exists()  # nothing of it among the receipts
        # temp files of a write cut short by a crash: old ones are cleaned up, young ones left alone
        old, young = (tmp_path / "m" / STATE_DIR / f".dshtmp-{n}-rv-9.json" for n in ("aa", "bb"))
        old.write_text("{")
        young.write_text("{")
        os.utime(old, (1_700_000_000, 1_700_000_000))
        assert store.files(REVIEW_STATES).list() == ["rv-2"]
        assert not old.exists() and young.exists()


def test_review_state_never_goes_through_a_symlink(tmp_path: Path) -> None:
    root, outside = tmp_path / "m", tmp_path / "outside"
    outside.mkdir()
    store = FileStore(root)
    (root / ".manager").mkdir(parents=True, exist_ok=True)
    (root / STATE_DIR).symlink_to(outside)
    for action in (
        lambda: store.files(REVIEW_STATES).write("rv-1", "{}"),
        lambda: store.files(REVIEW_STATES).read("rv-1"),
        lambda: store.files(REVIEW_STATES).list(),
        lambda: store.files(REVIEW_STATES).delete("rv-1"),
    ):
        with pytest.raises(StorageError) as refused:
            action()
        assert refused.value.reason == "not-a-folder"
    assert list(outside.iterdir()) == []


# ------------------------------------------------------------------ reopening


def test_a_proposed_review_reopens_with_zero_model_calls(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    first = service_for(FileStore(root), catalog)
    review = propose(first)
    assert len(chat_server.requests) == 1 and review.receipt.status == "proposed"
    receipt_text = (root / "reviews" / f"{review.review_id}.md").read_text()
    assert "blue-green releases" not in receipt_text and "Understood" not in receipt_text  # body-free
    saved = json.loads(state_path(root, review.review_id).read_text())
    assert saved["proposal_hash"] == review.proposal_hash and "blue-green releases" in json.dumps(saved)

    # the window is closed; a new one opens on the same root
    reopened = service_for(FileStore(root), catalog)
    [pending] = reopened.pending_reviews()
    assert pending.restored and pending.review_id == review.review_id and pending.notes == ()
    assert [c.diff for c in pending.changes] == [c.diff for c in review.changes]
    assert len(chat_server.requests) == 1  # no model call
    # consolidating the same session again shows the saved review, still without the model
    again = propose(service_for(FileStore(root), catalog))
    assert again.restored and again.review_id == review.review_id
    assert len(chat_server.requests) == 1
    receipt = reopened.commit(pending, ["c1"])
    assert receipt.status == "committed" and receipt.proposal_hash == review.proposal_hash
    snap = FileStore(root).find_workspace(CWD)
    assert snap is not None and [r.body for r in snap.records()] == [BODY]
    assert not state_path(root, review.review_id).exists()  # finished: the saved bodies are gone
    assert service_for(FileStore(root), catalog).pending_reviews() == []
    assert len(chat_server.requests) == 1


def test_edits_are_saved_with_the_review(tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    service = service_for(FileStore(root), catalog)
    review = propose(service)
    record = review.changes[0].record
    assert record is not None
    edited = Record(name=record.name, description="Blue-green, always", type="project", body="\nAlways blue-green.\n")
    row = service.edit_change(review, "c1", edited)
    assert "+Always blue-green." in row.diff

    [restored] = service_for(FileStore(root), catalog).pending_reviews()
    assert restored.edited == ("c1",)
    assert "+Always blue-green." in restored.changes[0].diff
    receipt = service_for(FileStore(root), catalog).commit(restored, ["c1"])
    assert receipt.status == "committed" and receipt.changes[0].decision == "edited"
    snap = FileStore(root).find_workspace(CWD)
    assert snap is not None and [r.body for r in snap.records()] == ["\nAlways blue-green.\n"]
    assert len(chat_server.requests) == 1


def test_a_reverted_edit_is_dropped_and_the_callers_view_rules(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    service = service_for(FileStore(root), catalog)
    review = propose(service)
    edited = Record(name="blue-green-deploys", description="Edited", type="project", body="\nEdited body.\n")
    service.edit_change(review, "c1", edited)
    original = service.revert_edit(review, "c1")
    assert "+Edited body." not in original.diff and "blue-green releases" in original.diff
    [restored] = service_for(FileStore(root), catalog).pending_reviews()
    assert restored.edited == () and "+Edited body." not in restored.changes[0].diff
    # a live review: an edit saved for later is not committed unless the caller passes it, and a
    # failed commit keeps it saved
    service.edit_change(review, "c1", edited)
    FileStore(root).replace_global("# Me\n\n- Changed meanwhile.\n", None)
    assert service.commit(review, ["c1"]).status == "conflict"
    [again] = service_for(FileStore(root), catalog).pending_reviews()
    assert again.edited == ("c1",)
    review = service.refresh(review)
    receipt = service.commit(review, ["c1"])
    assert receipt.changes[0].decision == "accepted"
    snap = FileStore(root).find_workspace(CWD)
    assert snap is not None and [r.body for r in snap.records()] == [BODY]


def test_memory_changed_while_closed_is_said_and_rechecked(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    review = propose(service_for(FileStore(root), catalog))
    FileStore(root).replace_global("# Me\n\n- Someone edited Global meanwhile.\n", None)
    [restored] = service_for(FileStore(root), catalog).pending_reviews()
    assert restored.global_revision != review.global_revision
    assert any("Memory changed since this review was proposed" in n for n in restored.notes)
    assert service_for(FileStore(root), catalog).commit(restored, ["c1"]).status == "committed"


# ------------------------------------------------------------------ the hash


def _tamper(root: Path, review_id: str, **changes: Any) -> None:
    path = state_path(root, review_id)
    doc = json.loads(path.read_text())
    doc["proposal"]["changes"][0]["record"]["body"] = "\nSomething the model never said.\n"
    doc.update(changes)
    path.write_text(json.dumps(doc))


def test_a_saved_proposal_that_fails_its_hash_is_never_committed(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    service = service_for(FileStore(root), catalog)
    review = propose(service)
    _tamper(root, review.review_id)
    with pytest.raises(ProposalMismatchError) as caught:
        service.commit(review, ["c1"])
    assert caught.value.code == "proposal_mismatch"
    assert FileStore(root).find_workspace(CWD) is None  # nothing written
    # even with a hash recomputed to match the tampered proposal, the receipt's hash refuses it
    from core.consolidation.pending import load_state

    state = load_state(state_path(root, review.review_id).read_text(), review.review_id)
    assert state is not None
    _tamper(root, review.review_id, proposal_hash=state.proposal.digest())
    reopened = service_for(FileStore(root), catalog)
    assert reopened.pending_reviews() == []
    assert "does not match" in reopened.problems[review.review_id]
    with pytest.raises(ProposalMismatchError):
        reopened.restore_review(review.review_id)
    assert FileStore(root).find_workspace(CWD) is None


def test_an_unreadable_saved_review_is_reported_and_left_alone(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    review = propose(service_for(FileStore(root), catalog))
    state_path(root, review.review_id).write_text("{not json")
    reopened = service_for(FileStore(root), catalog)
    assert reopened.pending_reviews() == []
    assert "could not be read" in reopened.problems[review.review_id]
    assert state_path(root, review.review_id).read_text() == "{not json"


# ------------------------------------------------------------------ the commit barrier


def test_a_crash_before_the_memory_write_leaves_the_review_pending(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    service = service_for(FileStore(root), catalog)
    review = propose(service)

    def crash(*args: object) -> None:
        raise _Crash

    monkeypatch.setattr(service, "_apply", crash)
    with pytest.raises(_Crash):
        service.commit(review, ["c1"])
    assert json.loads(state_path(root, review.review_id).read_text())["phase"] == "committing"

    reopened = service_for(FileStore(root), catalog)
    [pending] = reopened.pending_reviews()
    assert reopened.recovered == [(review.review_id, "not committed (memory unchanged); the review is pending again")]
    assert pending.receipt.status == "proposed"
    assert reopened.commit(pending, ["c1"]).status == "committed"


def test_a_crash_after_the_memory_write_is_completed_before_any_new_consolidation(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    service = service_for(FileStore(root), catalog)
    review = propose(service)
    write = service._write

    def die_at_the_receipt(receipt: Any) -> None:
        if receipt.status != "proposed":
            raise _Crash
        write(receipt)

    monkeypatch.setattr(service, "_write", die_at_the_receipt)
    with pytest.raises(_Crash):
        service.commit(review, ["c1"])
    snap = FileStore(root).find_workspace(CWD)
    assert snap is not None and [r.name for r in snap.records()] == ["blue-green-deploys"]
    assert "status: proposed" in (root / "reviews" / f"{review.review_id}.md").read_text()

    # the next open consolidates another session: the interrupted review is settled first
    chat_server.replies.append(proposal_reply([put("other-fact", "\nAnother fact.\n")]))
    reopened = service_for(FileStore(root), catalog)
    other = propose(reopened, session_id="sess-2")
    assert other.review_id != review.review_id
    [(rid, outcome)] = reopened.recovered
    assert rid == review.review_id and outcome.startswith("committed before the interruption")
    receipt = reopened.existing_receipt(review.review_id)
    assert receipt is not None and receipt.status == "committed"
    assert receipt.workspace_revision_after == snap.revision and receipt.changes[0].decision == "accepted"
    assert not state_path(root, review.review_id).exists()
    assert [r.review_id for r in reopened.pending_reviews()] == [other.review_id]


def test_a_crash_then_someone_elses_write_is_a_conflict_still_pending(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    service = service_for(FileStore(root), catalog)
    review = propose(service)

    def crash(*args: object) -> None:
        raise _Crash

    monkeypatch.setattr(service, "_apply", crash)
    with pytest.raises(_Crash):
        service.commit(review, ["c1"])
    FileStore(root).replace_global("# Me\n\n- Edited by hand.\n", None)
    reopened = service_for(FileStore(root), catalog)
    [pending] = reopened.pending_reviews()
    assert reopened.recovered[0][1].startswith("interrupted and memory changed since")
    assert pending.receipt.status == "conflict"
    assert reopened.commit(pending, ["c1"]).status == "committed"


# ------------------------------------------------------------------ bounds and deletion


def test_pending_reviews_are_bounded_by_count_and_age(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    root = tmp_path / "memory"
    service = service_for(FileStore(root), catalog, pending_review_max_count=2, pending_review_max_age_days=7)
    ids = []
    for n in range(3):
        chat_server.replies.append(proposal_reply([put(f"fact-{n}", f"\nFact {n}.\n")]))
        ids.append(propose(service, session_id=f"sess-{n}").review_id)
    assert sorted(r.review_id for r in service.pending_reviews()) == sorted(ids[1:])
    oldest = service.existing_receipt(ids[0])
    assert oldest is not None and oldest.status == "discarded" and "more than 2" in (oldest.error or "")
    assert not state_path(root, ids[0]).exists()

    path = state_path(root, ids[1])
    doc = json.loads(path.read_text())
    doc["created"] = (datetime.now(UTC) - timedelta(days=8)).isoformat(timespec="seconds")
    path.write_text(json.dumps(doc))
    reopened = service_for(FileStore(root), catalog, pending_review_max_count=2, pending_review_max_age_days=7)
    assert [r.review_id for r in reopened.pending_reviews()] == [ids[2]]
    aged = reopened.existing_receipt(ids[1])
    assert aged is not None and aged.status == "discarded" and "more than 7 days" in (aged.error or "")
    assert AppSettings().pending_review_max_age_days == 30 and AppSettings().pending_review_max_count == 50


def test_a_pending_review_can_be_deleted(tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    service = service_for(FileStore(root), catalog)
    review = propose(service)
    receipt = service_for(FileStore(root), catalog).delete_review(review.review_id)
    assert receipt.status == "discarded" and not state_path(root, review.review_id).exists()
    with pytest.raises(UsageError) as caught:
        service.delete_review(review.review_id)
    assert caught.value.reason == "not-pending"
    with pytest.raises(NotFoundError):
        service.delete_review("rv-nothing-here")
    # consolidating the session again runs the model again, as a new attempt of the same review
    chat_server.replies.append(proposal_reply([put()]))
    again = propose(service_for(FileStore(root), catalog))
    assert not again.restored and again.receipt.attempts == 2 and len(chat_server.requests) == 2


def test_a_crash_after_the_receipt_only_leaves_a_leftover_that_is_cleaned(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    store = FileStore(root)
    service = service_for(store, catalog)
    review = propose(service)

    def crash(review_id: str) -> bool:
        raise _Crash

    break_review_states(monkeypatch, store, "delete", crash)
    with pytest.raises(_Crash):
        service.commit(review, ["c1"])
    assert "status: committed" in (root / "reviews" / f"{review.review_id}.md").read_text()
    assert state_path(root, review.review_id).exists()
    reopened = service_for(FileStore(root), catalog)
    assert reopened.pending_reviews() == []
    assert reopened.recovered == [(review.review_id, "already committed")]
    assert not state_path(root, review.review_id).exists()


def test_a_barrier_that_cannot_be_saved_refuses_the_commit(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    store = FileStore(root)
    service = service_for(store, catalog)
    review = propose(service)
    saved = state_path(root, review.review_id).read_bytes()

    def disk_full(review_id: str, text: str) -> None:
        raise StorageError("Could not write: No space left on device.")

    break_review_states(monkeypatch, store, "write", disk_full)
    with pytest.raises(StorageError):
        service.commit(review, ["c1"])
    assert FileStore(root).find_workspace(CWD) is None  # memory untouched
    assert state_path(root, review.review_id).read_bytes() == saved
    monkeypatch.undo()
    assert service_for(FileStore(root), catalog).pending_reviews()[0].review_id == review.review_id


def test_a_review_that_could_not_be_saved_still_works_in_the_window(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    store = FileStore(root)

    def disk_full(review_id: str, text: str) -> None:
        raise StorageError("No space left on device.")

    break_review_states(monkeypatch, store, "write", disk_full)
    service = service_for(store, catalog)
    review = propose(service)
    assert any("could not be saved" in n and "closing the window loses it" in n for n in review.notes)
    assert service.commit(review, ["c1"]).status == "committed"


def test_a_crash_after_creating_the_new_workspace_only_leaves_the_review_pending(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by the SIGKILL loop: the first commit into a workspace creates its (empty) scope first.
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put()]))
    store = FileStore(root)
    service = service_for(store, catalog)
    review = propose(service)
    assert not review.workspace_exists

    def crash(*args: object, **kwargs: object) -> None:
        raise _Crash

    monkeypatch.setattr(store, "commit_scopes", crash)  # the one transaction of a review
    with pytest.raises(_Crash):
        service.commit(review, ["c1"])
    snap = FileStore(root).find_workspace(CWD)
    assert snap is not None and snap.entries == ()
    reopened = service_for(FileStore(root), catalog)
    [pending] = reopened.pending_reviews()
    assert reopened.recovered[0][1].startswith("not committed")
    assert pending.receipt.status == "proposed"
    assert reopened.commit(pending, ["c1"]).status == "committed"
