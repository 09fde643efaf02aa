"""The chat-model consolidator and the pipeline against a real loopback OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from consolidation_support import CWD, ChatServer, Reply, chat_body, make_evidence, proposal_reply

from core.consolidation import ConsolidationService, check_connection, parse_receipt
from core.errors import (
    CancelledError,
    ConfirmationRequiredError,
    ConsolidationError,
    UsageError,
)
from core.keys import workspace_key
from core.model_catalog import ModelCatalog, ModelChoice
from core.models import PutOp, Record
from core.settings import AppSettings
from core.store.api import MemoryStore
from core.store.files import RECEIPTS
from core.store.fs import FileStore
from core.store.memory import InMemoryStore

MESSAGES = [
    (1, "user", "From now on we deploy the shop with blue-green releases; remember that."),
    (2, "assistant", "Understood, blue-green it is."),
    (3, "user", "Also: I always want answers in British English, in every project."),
    (4, "assistant", "Noted."),
]
SECRET_BODY = "\nThe deploy token is ghp_1234567890abcdefghijklmnopqrstuvwxyzAB for CI.\n"


def put(name: str, body: str = "\nDeploy the shop with blue-green releases.\n", **extra: Any) -> dict[str, Any]:
    return {
        "op": "put",
        "record": {"name": name, "description": f"About {name}", "type": "project", "body": body},
        "reason": f"the user said so about {name}",
        "evidence": [1],
        **extra,
    }


def service_for(store: MemoryStore, catalog: ModelCatalog, **settings: Any) -> ConsolidationService:
    values: dict[str, Any] = {"consolidator": "model", "request_timeout_seconds": 10, **settings}
    return ConsolidationService(store, catalog, AppSettings(**values))


def prepared_for(service: ConsolidationService, messages: list[tuple[int, str, str]] = MESSAGES) -> Any:
    evidence, text = make_evidence(messages)
    return service.prepare_evidence(evidence, text)


def test_good_json_is_reviewed_and_committed(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(proposal_reply([put("blue-green-deploys")]))
    store = InMemoryStore()
    service = service_for(store, catalog)
    review = service.propose(prepared_for(service))
    [request] = chat_server.requests
    assert request["model"] == "test-model" and request["stream"] is False
    assert chat_server.headers[0]["Authorization"] == "Bearer test-key-123"
    prompt = request["messages"][1]["content"]
    assert "blue-green releases" in prompt and "[seq 1] user:" in prompt  # the rendered evidence
    [change] = review.changes
    assert change.is_actionable and change.target == "blue-green-deploys.md"
    assert "+Deploy the shop with blue-green releases." in change.diff
    assert review.receipt.status == "proposed"
    receipt = service.commit(review, ["c1"])
    assert receipt.status == "committed"
    snap = store.find_workspace(CWD)
    assert snap is not None and [r.name for r in snap.records()] == ["blue-green-deploys"]
    assert receipt.workspace_revision_after == snap.revision


def test_malformed_then_good_is_retried_once(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies += [
        Reply(body=chat_body("Sure! Here is what I'd remember: blue-green.")),
        proposal_reply([put("blue-green-deploys")]),
    ]
    service = service_for(InMemoryStore(), catalog)
    review = service.propose(prepared_for(service))
    assert len(chat_server.requests) == 2
    retry_messages = chat_server.requests[1]["messages"]
    assert retry_messages[-2]["role"] == "assistant"
    assert "not the JSON object" in retry_messages[-1]["content"]
    assert [c.target for c in review.changes] == ["blue-green-deploys.md"]


def test_malformed_twice_fails_and_changes_nothing(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies += [
        Reply(body=chat_body('{"changes": [{"op": "rename", "name": "x"}]}')),
        Reply(body=chat_body("```json\n{not json\n```")),
    ]
    store = InMemoryStore()
    service = service_for(store, catalog)
    prepared = prepared_for(service)
    with pytest.raises(ConsolidationError) as caught:
        service.propose(prepared)
    assert caught.value.reason == "malformed"
    assert len(chat_server.requests) == 2
    assert store.find_workspace(CWD) is None and not store.read_global().exists
    receipt = service.existing_receipt(service.review_id(prepared))
    assert receipt is not None and receipt.status == "failed" and receipt.error


def test_http_500_fails_without_retry(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(Reply(500, b'{"error": {"message": "upstream exploded"}}'))
    service = service_for(InMemoryStore(), catalog)
    with pytest.raises(ConsolidationError) as caught:
        service.propose(prepared_for(service))
    assert caught.value.reason == "http"
    assert "upstream exploded" in caught.value.message  # the server's own explanation reaches the user
    assert len(chat_server.requests) == 1


def test_timeout(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(Reply(body=chat_body("{}"), hold=True))
    service = service_for(InMemoryStore(), catalog, request_timeout_seconds=0.3)
    with pytest.raises(ConsolidationError) as caught:
        service.propose(prepared_for(service))
    assert caught.value.reason == "timeout"
    assert len(chat_server.requests) == 1


def test_slow_response_can_be_cancelled(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(Reply(body=chat_body("{}"), hold=True))
    store = InMemoryStore()
    service = service_for(store, catalog, request_timeout_seconds=30)
    prepared = prepared_for(service)
    # The user presses Cancel once the request is in flight.
    with pytest.raises(CancelledError):
        service.propose(prepared, cancelled=chat_server.seen.is_set)
    assert len(chat_server.requests) == 1
    assert store.find_workspace(CWD) is None


def test_missing_api_key_is_a_clear_error_and_sends_nothing(
    chat_server: ChatServer, catalog: ModelCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEST_LLM_KEY")
    service = service_for(InMemoryStore(), catalog)
    with pytest.raises(ConsolidationError) as caught:
        service.propose(prepared_for(service))
    assert caught.value.reason == "no-key"
    assert "TEST_LLM_KEY" in caught.value.message  # "clear": it names the variable to set
    assert chat_server.requests == []


def test_rerun_returns_the_receipt_without_calling_the_model(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(proposal_reply([put("blue-green-deploys")]))
    store = InMemoryStore()
    service = service_for(store, catalog)
    first = service.propose(prepared_for(service))
    receipt = service.commit(first, ["c1"])
    # A new service (a new window, or the CLI) on the same store and the same session revision.
    again_service = service_for(store, catalog)
    again = again_service.propose(prepared_for(again_service))
    assert again.reused and again.review_id == first.review_id
    assert again.receipt.status == receipt.status == "committed"
    assert len(chat_server.requests) == 1
    # A different session revision is a different review.
    evidence, text = make_evidence(MESSAGES, revision="rev-0002")
    assert again_service.review_id(again_service.prepare_evidence(evidence, text)) != first.review_id


def test_open_review_is_not_proposed_twice(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(proposal_reply([put("blue-green-deploys")]))
    service = service_for(InMemoryStore(), catalog)
    first = service.propose(prepared_for(service))
    second = service.propose(prepared_for(service))
    assert second == first and len(chat_server.requests) == 1


def test_memory_changed_during_the_model_call_is_a_conflict(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    store = InMemoryStore()
    service = service_for(store, catalog)
    prepared = prepared_for(service)  # revisions are read here, before the model runs

    def edit_then_answer(_: dict[str, Any]) -> Reply:
        # Someone saves a record in the same workspace while the model is thinking.
        snap = store.create_workspace(CWD)
        other = Record(name="hand-written", description="Mine", type="feedback", body="\nKeep me.\n")
        store.commit(snap.key, [PutOp(record=other)], snap.revision)
        return proposal_reply([put("blue-green-deploys")])

    chat_server.replies.append(edit_then_answer)
    review = service.propose(prepared)
    receipt = service.commit(review, ["c1"])
    assert receipt.status == "conflict"
    snap = store.find_workspace(CWD)
    assert snap is not None and [r.name for r in snap.records()] == ["hand-written"]  # never overwritten
    assert parse_receipt(store.files(RECEIPTS).read(review.review_id) or "") == receipt
    # Back to review with the new state: same proposal, new CAS base, no second model call.
    refreshed = service.refresh(review)
    assert refreshed.workspace_revision == snap.revision
    assert service.commit(refreshed, ["c1"]).status == "committed"
    snap = store.find_workspace(CWD)
    assert snap is not None and sorted(r.name for r in snap.records()) == [
        "blue-green-deploys",
        "hand-written",
    ]
    assert len(chat_server.requests) == 1


def test_global_changed_during_the_model_call_is_a_conflict(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    store = InMemoryStore()
    service = service_for(store, catalog)
    prepared = prepared_for(service)

    def edit_then_answer(_: dict[str, Any]) -> Reply:
        store.replace_global("# Me\n\nHand edit.\n", None)
        return proposal_reply([put("blue-green-deploys")])

    chat_server.replies.append(edit_then_answer)
    review = service.propose(prepared)
    assert service.commit(review, ["c1"]).status == "conflict"
    assert store.find_workspace(CWD) is None


def test_partial_accept(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(proposal_reply([put("blue-green-deploys"), put("second-fact", "\nAnother fact.\n")]))
    store = InMemoryStore()
    service = service_for(store, catalog)
    review = service.propose(prepared_for(service))
    receipt = service.commit(review, ["c2"])
    assert receipt.status == "partially-committed"
    assert {c.id: c.decision for c in receipt.changes} == {"c1": "rejected", "c2": "accepted"}
    snap = store.find_workspace(CWD)
    assert snap is not None and [r.name for r in snap.records()] == ["second-fact"]


def test_reject_all(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(proposal_reply([put("blue-green-deploys")]))
    store = InMemoryStore()
    service = service_for(store, catalog)
    receipt = service.reject(service.propose(prepared_for(service)))
    assert receipt.status == "rejected" and store.find_workspace(CWD) is None


def test_edited_record_is_revalidated_and_committed(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(proposal_reply([put("blue-green-deploys")]))
    store = InMemoryStore()
    service = service_for(store, catalog)
    review = service.propose(prepared_for(service))
    assert review.changes[0].record is not None
    edited = review.changes[0].record.model_copy(update={"body": "\nBlue-green, always.\n"})
    bad = edited.model_copy(update={"name": "Bad Name"})
    assert service.edit_change(review, "c1", bad).problems
    receipt = service.commit(review, ["c1"], edited_records={"c1": edited})
    assert receipt.changes[0].decision == "edited"
    snap = store.find_workspace(CWD)
    assert snap is not None and snap.records()[0].body == "\nBlue-green, always.\n"


def test_secrets_are_refused(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(proposal_reply([put("deploy-token", SECRET_BODY)]))
    store = InMemoryStore()
    service = service_for(store, catalog)
    review = service.propose(prepared_for(service))
    [change] = review.changes
    assert not change.is_valid and "credential" in change.problems[0]
    assert review.receipt.status == "no-change"
    with pytest.raises(UsageError) as caught:
        service.commit(review, ["c1"])
    assert caught.value.reason == "refused-change"
    assert store.find_workspace(CWD) is None
    assert "ghp_" not in (store.files(RECEIPTS).read(review.review_id) or "")


def test_out_of_scope_changes_are_refused(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(
        proposal_reply(
            [
                put("other-project-fact", workspace="/home/ada/projects/other"),
                put("../escape"),
                {"op": "delete", "name": "not-there", "reason": "stale", "evidence": [1]},
                put("bad-evidence", evidence=[99]),
                put("same-workspace-ok", workspace=CWD),
                {
                    "op": "put",
                    "record": {"name": "user-type", "description": "d", "type": "user", "body": "x"},
                    "reason": "r",
                    "evidence": [1],
                },
            ]
        )
    )
    service = service_for(InMemoryStore(), catalog)
    review = service.propose(prepared_for(service))
    verdicts = {c.target: c.problems for c in review.changes}
    assert "only change the source session's workspace" in verdicts["other-project-fact.md"][0]
    assert any("is a path" in p for p in verdicts["../escape.md"])
    assert "no record 'not-there'" in verdicts["not-there.md"][0]
    assert "not in this session" in verdicts["bad-evidence.md"][0]
    assert verdicts["same-workspace-ok.md"] == ()
    assert any("feedback, project, reference" in p for p in verdicts["user-type.md"])
    assert [c.id for c in review.actionable] == ["c5"]


def _global_change(text: str, evidence: list[int]) -> dict[str, Any]:
    return {"op": "replace_global", "text": text, "reason": "stated about themselves", "evidence": evidence}


def test_global_needs_user_evidence_no_project_facts_and_explicit_confirmation(
    chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    chat_server.replies.append(
        proposal_reply(
            [
                _global_change("# User Preferences\n\n- Answers in British English.\n", [3]),
                _global_change("# User Preferences\n\n- Blue-green deploys.\n", [2]),  # assistant's words
                _global_change("# Tips\n\n- The shop deploys blue-green.\n", [1]),  # names the workspace
            ]
        )
    )
    store = InMemoryStore()
    service = service_for(store, catalog)
    review = service.propose(prepared_for(service))
    ok, assistant_only, project = review.changes
    assert ok.is_valid and ok.needs_confirmation and "every workspace" in ok.warnings[0]
    assert "not the user's own words" in assistant_only.problems[0]
    assert "mentions this workspace" in project.problems[0]
    with pytest.raises(ConfirmationRequiredError):
        service.commit(review, ["c1"])
    receipt = service.commit(review, ["c1"], confirm_global=True)
    assert receipt.status == "committed"
    assert store.read_global().text == "# User Preferences\n\n- Answers in British English.\n"
    assert receipt.global_revision_after == store.read_global().revision


def test_receipt_has_no_bodies_or_conversation(chat_server: ChatServer, catalog: ModelCatalog, tmp_path: Path) -> None:
    body = "\nUNIQUE-BODY-MARKER deploy with blue-green.\n"
    chat_server.replies.append(proposal_reply([put("blue-green-deploys", body)]))
    store = FileStore(tmp_path / "memory")
    service = service_for(store, catalog)
    review = service.propose(prepared_for(service))
    receipt = service.commit(review, ["c1"])
    text = (tmp_path / "memory" / "reviews" / f"{review.review_id}.md").read_text(encoding="utf-8")
    assert text.startswith("---\n") and "status: committed" in text
    for secret_ish in (
        "UNIQUE-BODY-MARKER",
        "About blue-green",
        "the user said so",
        "British English",
        "Understood",
    ):
        assert secret_ish not in text
    for field in (
        "session_id: sess-1",
        "session_revision: rev-0001",
        f"workspace_key: {workspace_key(CWD)}",
        "consolidator: model",
        "proposal_hash:",
        "workspace_revision_after:",
    ):
        assert field in text
    assert parse_receipt(text) == receipt
    assert service.receipts() == [receipt]


def test_debug_log_only_when_enabled_and_without_evidence(
    chat_server: ChatServer, catalog: ModelCatalog, tmp_path: Path
) -> None:
    root = tmp_path / "memory"
    chat_server.replies.append(proposal_reply([put("blue-green-deploys", "\nUNIQUE-BODY-MARKER\n")]))
    service = service_for(FileStore(root), catalog)
    service.propose(prepared_for(service))
    assert not (root / "debug").exists()

    chat_server.replies += [
        Reply(body=chat_body("not json")),
        proposal_reply([put("x-fact", "\nUNIQUE-BODY-MARKER\n")]),
    ]
    evidence, text = make_evidence(MESSAGES, revision="rev-0002")
    service = service_for(FileStore(root), catalog, debug_logging=True)
    review = service.propose(service.prepare_evidence(evidence, text))
    log = root / "debug" / review.review_id / "attempt-1.jsonl"
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    stages = [line["stage"] for line in lines]
    assert stages[0] == "start" and "malformed" in stages and stages[-1] == "proposed"
    assert [line["status"] for line in lines if line["stage"] == "response"] == [200, 200]
    raw = log.read_text(encoding="utf-8")
    for forbidden in ("UNIQUE-BODY-MARKER", "blue-green", "British English", "test-key-123", "not json"):
        assert forbidden not in raw


def test_check_connection(chat_server: ChatServer, model_choice: ModelChoice) -> None:
    report = check_connection(model_choice, timeout_seconds=5)
    assert report.ok and report.status_code == 200 and report.model_listed is True
    bad = check_connection(model_choice, timeout_seconds=5, env={"TEST_LLM_KEY": "wrong"})
    assert not bad.ok and bad.status_code == 401 and "TEST_LLM_KEY" in bad.message
    nowhere = model_choice.model_copy(update={"base_url": "http://127.0.0.1:9/v1"})
    assert not check_connection(nowhere, timeout_seconds=2).ok


def test_server_without_json_mode_is_asked_again_without_it(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies += [
        Reply(400, b'{"error": {"message": "unknown field response_format"}}'),
        proposal_reply([put("blue-green-deploys")]),
    ]
    # JSON mode is asked for only without tools (not every server takes both in one request).
    service = service_for(InMemoryStore(), catalog, tool_rounds=0)
    review = service.propose(prepared_for(service))
    assert "response_format" in chat_server.requests[0] and "response_format" not in chat_server.requests[1]
    assert "tools" not in chat_server.requests[0]
    assert [c.target for c in review.changes] == ["blue-green-deploys.md"]


def test_slow_stream_that_finishes_in_time_is_read_whole(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    import threading

    chat_server.replies.append(Reply(body=proposal_reply([put("blue-green-deploys")]).body, stall_after=15))

    def release_once_stalled() -> None:
        chat_server.stalled.wait(10)
        chat_server.release.set()

    releaser = threading.Thread(target=release_once_stalled)
    releaser.start()
    try:
        service = service_for(InMemoryStore(), catalog, request_timeout_seconds=10)
        review = service.propose(prepared_for(service))
    finally:
        releaser.join(10)
    assert chat_server.stalled.is_set()
    assert [c.target for c in review.changes] == ["blue-green-deploys.md"]


def test_global_is_unchanged_when_the_workspace_write_loses_a_race(
    chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    from core.errors import ConflictError

    class RacyStore(InMemoryStore):
        """Someone commits to the workspace between our checks and our (single, joint) write."""

        def commit_scopes(self, batches: Any, **kwargs: Any) -> Any:
            if kwargs.get("origin") == "automatic":
                raise ConflictError("the workspace changed a moment ago", batches[0].expect)
            return super().commit_scopes(batches, **kwargs)

    store = RacyStore()
    store.replace_global("# User Preferences\n\n- Short answers.\n", None)
    chat_server.replies.append(
        proposal_reply(
            [
                put("blue-green-deploys"),
                _global_change("# User Preferences\n\n- Short answers.\n- British English.\n", [3]),
            ]
        )
    )
    service = service_for(store, catalog)
    review = service.propose(prepared_for(service))
    receipt = service.commit(review, ["c1", "c2"], confirm_global=True)
    assert receipt.status == "conflict" and "changed a moment ago" in (receipt.error or "")
    assert store.read_global().text == "# User Preferences\n\n- Short answers.\n"  # never written
    assert [h for h in store.history.entries() if h.scope_key == "global"] == []  # no compensating write either


def test_a_refused_record_fixed_by_an_edit_counts_as_committed(chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies.append(proposal_reply([put("deploy-token", SECRET_BODY), put("blue-green-deploys")]))
    store = InMemoryStore()
    service = service_for(store, catalog)
    review = service.propose(prepared_for(service))
    refused, fine = review.changes
    assert refused.problems and refused.record is not None and fine.is_actionable
    fixed = refused.record.model_copy(update={"body": "\nThe deploy token lives in the CI secret store.\n"})
    receipt = service.commit(review, ["c1", "c2"], edited_records={"c1": fixed})
    assert receipt.status == "committed"
    assert {c.id: c.decision for c in receipt.changes} == {"c1": "edited", "c2": "accepted"}
    snap = store.find_workspace(CWD)
    assert snap is not None and sorted(r.name for r in snap.records()) == ["blue-green-deploys", "deploy-token"]
