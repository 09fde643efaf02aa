"""The restricted tool-using consolidator against a real loopback server that scripts tool calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from consolidation_support import CWD, ChatServer, Reply, make_evidence, proposal_reply

from core.consolidation import ConsolidationService
from core.errors import ConsolidationError, EvidenceTooLargeError
from core.model_catalog import ModelCatalog
from core.models import PutOp, Record
from core.settings import AppSettings
from core.store.fs import FileStore

OTHER_CWD = "/home/ada/projects/secret-lab"
PNPM = Record(name="use-pnpm", description="Package manager", type="feedback", body="\nAlways use pnpm, never npm.\n")
MESSAGES = [
    (1, "user", "Remember that we install packages with pnpm --frozen-lockfile in CI."),
    (2, "assistant", "Noted."),
]
NEW_PUT = {
    "op": "put",
    "record": {
        "name": "use-pnpm",
        "description": "Package manager",
        "type": "feedback",
        "body": "Always use pnpm, never npm. In CI: pnpm install --frozen-lockfile.",
    },
    "reason": "the user refined the existing record",
    "evidence": [1],
}


def tool_reply(*calls: tuple[str, Any], content: str = "") -> Reply:
    tool_calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for i, (name, args) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    body = {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }
    return Reply(body=json.dumps(body).encode())


@pytest.fixture
def store(tmp_path: Path) -> FileStore:
    store = FileStore(tmp_path / "memory")
    snap = store.create_workspace(CWD)
    store.commit(snap.key, [PutOp(record=PNPM)], snap.revision)
    other = store.create_workspace(OTHER_CWD)
    secret = Record(name="launch-plan", description="Launch", type="project", body="\nLaunch codename ORCHID.\n")
    store.commit(other.key, [PutOp(record=secret)], other.revision)
    return store


def _service(store: FileStore, catalog: ModelCatalog, **settings: Any) -> ConsolidationService:
    values: dict[str, Any] = {"consolidator": "model", "request_timeout_seconds": 10, **settings}
    return ConsolidationService(store, catalog, AppSettings(**values))


def _propose(service: ConsolidationService) -> Any:
    evidence, text = make_evidence(MESSAGES)
    return service.propose(service.prepare_evidence(evidence, text))


def _tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_search_then_read_then_submit(store: FileStore, chat_server: ChatServer, catalog: ModelCatalog) -> None:
    chat_server.replies += [
        tool_reply(("search_memory", {"query": "pnpm"})),
        tool_reply(("read_record", {"name": "use-pnpm"})),
        tool_reply(("submit_proposal", {"summary": "refine", "changes": [NEW_PUT]})),
    ]
    service = _service(store, catalog)
    review = _propose(service)
    first, second, third = chat_server.requests
    assert [t["function"]["name"] for t in first["tools"]] == [
        "search_memory",
        "read_record",
        "read_global",
        "submit_proposal",
    ]
    assert "- use-pnpm — Package manager" in first["messages"][1]["content"]  # the index
    assert "use-pnpm" in _tool_messages(second)[0]  # the search hit came back
    assert "Always use pnpm, never npm." in _tool_messages(third)[-1]  # the record it read
    [change] = review.changes
    assert change.is_actionable and change.target == "use-pnpm.md"
    transcript = review.proposal.transcript
    assert transcript is not None and transcript.rounds == 2
    seen = transcript.render()
    assert "[call] search_memory" in seen and "[call] read_record" in seen and "Always use pnpm" in seen
    # The transcript is private: not in the proposal hash, not in the receipt.
    receipt = service.commit(review, [change.id])
    assert receipt.status == "committed"
    text = (store.root / "reviews" / f"{review.review_id}.md").read_text()  # type: ignore[operator]
    assert "search_memory" not in text and "never npm" not in text


def test_a_model_that_loops_past_the_round_limit_fails_and_writes_nothing(
    store: FileStore, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    chat_server.replies += [tool_reply(("search_memory", {"query": f"q{i}"})) for i in range(10)]
    before = store.find_workspace(CWD)
    service = _service(store, catalog, tool_rounds=3)
    with pytest.raises(ConsolidationError) as caught:
        _propose(service)
    assert caught.value.reason == "tool-rounds"
    assert len(chat_server.requests) == 4
    assert store.find_workspace(CWD) == before


def test_a_read_of_another_workspace_is_refused(
    store: FileStore, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    chat_server.replies += [
        tool_reply(("read_record", {"name": "../secret-lab/launch-plan"}), ("read_record", {"name": "launch-plan"})),
        tool_reply(("search_memory", {"query": "ORCHID launch"})),
        tool_reply(("submit_proposal", {"summary": "none", "changes": [{"op": "no_change", "reason": "nothing"}]})),
    ]
    review = _propose(_service(store, catalog))
    results = _tool_messages(chat_server.requests[1])
    assert all(r.startswith("Refused:") for r in results)
    assert _tool_messages(chat_server.requests[2])[-1] == "No matching records."
    assert not any("ORCHID" in json.dumps(r["messages"][1:]).replace("ORCHID launch", "") for r in chat_server.requests)
    transcript = review.proposal.transcript
    assert transcript is not None and sum(e.refused for e in transcript.entries) == 2


def test_one_malformed_tool_call_is_retried_a_second_fails(
    store: FileStore, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    chat_server.replies += [
        tool_reply(("read_record", "{not json")),
        tool_reply(("submit_proposal", {"summary": "ok", "changes": [NEW_PUT]})),
    ]
    review = _propose(_service(store, catalog))
    assert "not valid JSON" in _tool_messages(chat_server.requests[1])[0]
    assert [c.target for c in review.changes] == ["use-pnpm.md"]

    chat_server.requests.clear()
    chat_server.replies += [tool_reply(("read_record", "{not json")), tool_reply(("frobnicate", {}))]
    before = store.find_workspace(CWD)
    evidence, text = make_evidence([*MESSAGES, (3, "user", "Also remember: releases on Tuesdays.")], revision="rev-2")
    service = _service(store, catalog)
    with pytest.raises(ConsolidationError) as caught:
        service.propose(service.prepare_evidence(evidence, text))
    assert caught.value.reason == "tool-call"
    assert len(chat_server.requests) == 2
    assert store.find_workspace(CWD) == before


def test_an_endpoint_without_tools_gets_the_single_json_request(
    store: FileStore, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    chat_server.replies += [
        Reply(400, b'{"error": {"message": "tools are not supported by this model"}}'),
        proposal_reply([NEW_PUT]),
    ]
    review = _propose(_service(store, catalog))
    first, second = chat_server.requests
    assert "tools" in first and "tools" not in second and second["response_format"] == {"type": "json_object"}
    assert "Reply with the JSON object only." in second["messages"][1]["content"]
    transcript = review.proposal.transcript
    assert transcript is not None and "does not accept tool calls" in transcript.fallback_note
    assert [c.target for c in review.changes] == ["use-pnpm.md"]


def test_first_request_is_bounded_on_a_thousand_record_workspace(
    tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    store = FileStore(tmp_path / "big")
    snap = store.create_workspace(CWD)
    records = [
        Record(
            name=f"topic-{i:04d}-conventions",
            description=f"How this project handles topic {i}: small pull requests with a description of the why",
            type="project",
            body=f"\nFor topic {i} we keep pull requests small and explain the why. " * 8 + "\n",
        )
        for i in range(1000)
    ]
    records.append(
        Record(name="ci-installs", description="CI installs", type="project", body="\nCI installs with pnpm.\n")
    )
    store.commit(snap.key, [PutOp(record=r) for r in records], snap.revision)
    chat_server.replies.append(proposal_reply([{"op": "no_change", "reason": "nothing new"}]))
    _propose(_service(store, catalog))
    [request] = chat_server.requests
    size = len(json.dumps(request["messages"], ensure_ascii=False).encode())
    assert size <= 64_000
    prompt = request["messages"][1]["content"]
    assert "### ci-installs" in prompt  # the relevant record, whole
    assert "- topic-0999-conventions" in prompt  # every name is still in the index


def test_evidence_over_the_input_budget_is_refused_before_any_request(
    store: FileStore, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    service = _service(store, catalog, model_input_budget_bytes=8_000)
    evidence, text = make_evidence([(1, "user", "Remember this detail. " * 500)])
    with pytest.raises(EvidenceTooLargeError) as caught:
        service.propose(service.prepare_evidence(evidence, text))
    assert caught.value.reason == "input-budget"
    assert chat_server.requests == []
