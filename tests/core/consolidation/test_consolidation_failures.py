"""Nothing lost, nothing written without consent: every failure leaves the memory root byte-identical.

Each case seeds a real memory root (Global, a workspace with a record, settings), takes a snapshot of
every file's bytes and mtime (and every directory's mtime) outside ``reviews/``, ``debug/`` and the
lock files, drives one failure through the real pipeline (loopback model server, real session logs),
and checks the snapshot is unchanged and the message says what happened and what to do.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from consolidation_support import CWD, ChatServer, Reply, chat_body, make_evidence, proposal_reply, write_dsh_session

from core.consolidation import ConsolidationService, Review
from core.errors import DshMemoryError
from core.model_catalog import ModelCatalog
from core.models import PutOp, Record
from core.sessions import SessionCatalog
from core.settings import AppSettings, load_settings, save_settings
from core.store.fs import FileStore

MESSAGES = [
    (1, "user", "Remember that releases happen on Tuesdays."),
    (2, "assistant", "Noted."),
    (3, "user", "I always want answers in British English, in every project."),
]
GITHUB_TOKEN = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"
Snapshot = dict[str, tuple[bytes, int]]


def snapshot(root: Path, *, everything: bool = False) -> Snapshot:
    """Bytes and mtime of every file, mtime of every directory, outside receipts, debug logs, locks
    and the saved pending reviews (``.manager/review-state``: the review's own state, not memory)."""
    out: Snapshot = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if everything or d not in ("reviews", "debug")]
        elif rel_dir == ".manager":
            dirnames[:] = [d for d in dirnames if d != "locks" and (everything or d != "review-state")]
        else:
            out[rel_dir + "/"] = (b"", os.stat(dirpath).st_mtime_ns)
        for name in filenames:
            path = Path(dirpath) / name
            out[path.relative_to(root).as_posix()] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


@dataclass
class Env:
    root: Path
    store: FileStore
    server: ChatServer
    catalog: ModelCatalog
    sessions_root: Path
    before: Snapshot = field(default_factory=dict)
    before_all: Snapshot = field(default_factory=dict)

    def mark(self) -> None:
        """The memory state the failure must leave untouched."""
        self.before = snapshot(self.root)
        self.before_all = snapshot(self.root, everything=True)

    def service(self, **settings: Any) -> ConsolidationService:
        values: dict[str, Any] = {"consolidator": "model", "request_timeout_seconds": 10, "debug_logging": True}
        values.update(settings)
        sessions = SessionCatalog(self.sessions_root)
        return ConsolidationService(self.store, self.catalog, AppSettings(**values), sessions=sessions)

    def review(self, service: ConsolidationService, changes: list[dict[str, Any]]) -> Review:
        self.server.replies.append(proposal_reply(changes))
        evidence, text = make_evidence(MESSAGES)
        return service.propose(service.prepare_evidence(evidence, text))

    def propose_with(self, service: ConsolidationService, **kwargs: Any) -> None:
        evidence, text = make_evidence(MESSAGES)
        service.propose(service.prepare_evidence(evidence, text), **kwargs)


def put(name: str, body: str = "\nReleases happen on Tuesdays.\n", **extra: Any) -> dict[str, Any]:
    return {
        "op": "put",
        "record": {"name": name, "description": f"About {name}", "type": "project", "body": body},
        "reason": "the user said so",
        "evidence": [1],
        **extra,
    }


def expect_error(action: Callable[[], object]) -> str:
    with pytest.raises(DshMemoryError) as info:
        action()
    return info.value.message


# --- the failure paths: each returns the message the user sees -------------------------------


def malformed_twice(env: Env) -> str:
    env.server.replies += [Reply(body=chat_body("Sure! Remember Tuesdays.")), Reply(body=chat_body("{oops"))]
    env.mark()
    return expect_error(lambda: env.propose_with(env.service()))


def http_500(env: Env) -> str:
    env.server.replies.append(Reply(500, b'{"error": {"message": "upstream exploded"}}'))
    env.mark()
    return expect_error(lambda: env.propose_with(env.service()))


def http_401(env: Env) -> str:
    env.server.replies.append(Reply(401, b'{"error": {"message": "invalid api key"}}'))
    env.mark()
    return expect_error(lambda: env.propose_with(env.service()))


def timeout(env: Env) -> str:
    env.server.replies.append(Reply(body=chat_body("{}"), hold=True))
    env.mark()
    return expect_error(lambda: env.propose_with(env.service(request_timeout_seconds=0.3)))


def slow_stream_timeout(env: Env) -> str:
    env.server.replies.append(Reply(body=proposal_reply([put("x-fact")]).body, stall_after=20))
    env.mark()
    return expect_error(lambda: env.propose_with(env.service(request_timeout_seconds=0.4)))


def cancel_while_waiting(env: Env) -> str:
    env.server.replies.append(Reply(body=chat_body("{}"), hold=True))
    env.mark()
    return expect_error(lambda: env.propose_with(env.service(), cancelled=env.server.seen.is_set))


def cancel_slow_stream(env: Env) -> str:
    env.server.replies.append(Reply(body=proposal_reply([put("x-fact")]).body, stall_after=20))
    env.mark()
    return expect_error(lambda: env.propose_with(env.service(), cancelled=env.server.stalled.is_set))


def unreachable(env: Env) -> str:
    env.catalog = ModelCatalog(
        (env.catalog.choices[0].model_copy(update={"base_url": "http://127.0.0.1:9/v1"}),),
        default_id=env.catalog.choices[0].id,
    )
    env.mark()
    return expect_error(lambda: env.propose_with(env.service(request_timeout_seconds=2)))


def missing_key(env: Env) -> str:
    os.environ.pop("TEST_LLM_KEY", None)  # monkeypatch restores it (the fixture set it)
    env.mark()
    return expect_error(lambda: env.propose_with(env.service()))


def workspace_conflict(env: Env) -> str:
    service = env.service()

    def edit_then_answer(_: dict[str, Any]) -> Reply:
        snap = env.store.find_workspace(CWD)
        assert snap is not None
        mine = Record(name="hand-written", description="Mine", type="feedback", body="\nKeep me.\n")
        env.store.commit(snap.key, [PutOp(record=mine)], snap.revision)
        return proposal_reply([put("releases-tuesdays")])

    env.server.replies.append(edit_then_answer)
    evidence, text = make_evidence(MESSAGES)
    review = service.propose(service.prepare_evidence(evidence, text))
    env.mark()  # after the concurrent edit: that one is the user's, ours must not follow it
    receipt = service.commit(review, ["c1"])
    assert receipt.status == "conflict" and receipt.error is not None
    return receipt.error


def global_conflict(env: Env) -> str:
    service = env.service()

    def edit_then_answer(_: dict[str, Any]) -> Reply:
        env.store.replace_global("# User Preferences\n\n- Edited meanwhile.\n", None)
        return proposal_reply([put("releases-tuesdays")])

    env.server.replies.append(edit_then_answer)
    evidence, text = make_evidence(MESSAGES)
    review = service.propose(service.prepare_evidence(evidence, text))
    env.mark()
    receipt = service.commit(review, ["c1"])
    assert receipt.status == "conflict" and receipt.error is not None
    return receipt.error


def evidence_too_large(env: Env) -> str:
    write_dsh_session(env.sessions_root, "sess-big", CWD, [("Remember this. " * 300, "ok")])
    service = env.service(evidence_limit_bytes=1000, consolidator="offline")
    [summary] = SessionCatalog(env.sessions_root).list(cwd=CWD)
    env.mark()
    return expect_error(lambda: service.propose(service.prepare(summary)))


def live_session(env: Env) -> str:
    write_dsh_session(env.sessions_root, "sess-live", CWD, [("Remember X is Y.", "ok")], old=False)
    service = env.service(quiet_period_seconds=3600, consolidator="offline")
    [summary] = SessionCatalog(env.sessions_root).list(cwd=CWD)
    env.mark()
    return expect_error(lambda: service.prepare(summary))


def secret_in_record(env: Env) -> str:
    service = env.service()
    review = env.review(service, [put("ci-token", f"\nThe CI token is {GITHUB_TOKEN}.\n")])
    env.mark()
    assert review.changes[0].problems
    return expect_error(lambda: service.commit(review, ["c1"]))


def secret_in_global(env: Env) -> str:
    service = env.service()
    text = f"# User Preferences\n\n- My token is {GITHUB_TOKEN}\n"
    review = env.review(service, [{"op": "replace_global", "text": text, "reason": "r", "evidence": [3]}])
    env.mark()
    return expect_error(lambda: service.commit(review, ["c1"], confirm_global=True))


def global_not_confirmed(env: Env) -> str:
    service = env.service()
    text = "# User Preferences\n\n- Short answers.\n- British English.\n"
    review = env.review(service, [{"op": "replace_global", "text": text, "reason": "r", "evidence": [3]}])
    env.mark()
    return expect_error(lambda: service.commit(review, ["c1"]))


def out_of_scope(env: Env) -> str:
    service = env.service()
    review = env.review(service, [put("elsewhere", workspace="/home/ada/projects/other")])
    env.mark()
    return expect_error(lambda: service.commit(review, ["c1"]))


CASES: dict[str, tuple[Callable[[Env], str], tuple[str, ...]]] = {
    # case: (failure, phrases the message must contain: what happened, and what to do)
    "malformed model output": (malformed_twice, ("not a valid proposal", "nothing was changed", "again")),
    "HTTP 500": (http_500, ("HTTP 500", "upstream exploded", "nothing was changed", "again")),
    "HTTP 401": (http_401, ("HTTP 401", "nothing was changed", "TEST_LLM_KEY")),
    "timeout": (timeout, ("did not answer within 0.3 s", "nothing was changed", "timeout in Settings")),
    "slow stream timeout": (slow_stream_timeout, ("did not answer within 0.4 s", "nothing was changed")),
    "cancel while waiting": (cancel_while_waiting, ("cancelled", "Nothing was written")),
    "cancel a slow stream": (cancel_slow_stream, ("cancelled", "Nothing was written")),
    "unreachable endpoint": (unreachable, ("Could not reach", "nothing was changed", "Settings")),
    "missing API key": (missing_key, ("TEST_LLM_KEY is not set", "Set it")),
    "workspace conflict": (workspace_conflict, ("changed since", "nothing was written", "review")),
    "Global conflict": (global_conflict, ("GLOBAL.md changed since", "nothing was written", "review")),
    "evidence too large": (evidence_too_large, ("above the limit", "Nothing was sent", "Raise the evidence")),
    "live session": (live_session, ("not stable yet", "try again later")),
    "secret in a record": (secret_in_record, ("credential", "refused", "nothing was written", "reject")),
    "secret in Global": (secret_in_global, ("credential", "refused", "nothing was written")),
    "Global not confirmed": (global_not_confirmed, ("GLOBAL.md", "explicit confirmation")),
    "out of scope": (out_of_scope, ("only change the source session's workspace", "nothing was written")),
}


@pytest.fixture
def env(tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog) -> Env:
    store = FileStore(tmp_path / "memory")
    store.replace_global("# User Preferences\n\n- Short answers.\n", None)
    snap = store.create_workspace(CWD)
    fact = Record(name="existing-fact", description="Already known", type="project", body="\nOld fact.\n")
    store.commit(snap.key, [PutOp(record=fact)], snap.revision)
    loaded = load_settings(store)
    save_settings(store, loaded.settings.with_changes(debug_logging=True), loaded.revision)
    return Env(tmp_path / "memory", store, chat_server, catalog, tmp_path / "sessions")


@pytest.mark.parametrize("case", sorted(CASES))
def test_failure_leaves_memory_byte_identical(env: Env, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", "test-key-123")
    failure, phrases = CASES[case]
    message = failure(env)
    assert env.before, "the case must mark the state it leaves untouched"
    after = snapshot(env.root)
    assert sorted(after) == sorted(env.before)
    changed = [path for path in after if after[path] != env.before[path]]
    assert changed == []
    # Outside memory, a failure may only write its receipt and (debug logging is on) its debug log.
    after_all = snapshot(env.root, everything=True)
    written = [p for p in after_all if after_all[p] != env.before_all.get(p)]
    assert all(p.startswith(("reviews/", "debug/", ".manager/review-state/")) for p in written), written
    assert len([p for p in written if p.startswith("reviews/") and p.endswith(".md")]) <= 1
    for phrase in phrases:
        assert phrase.lower() in message.lower(), f"{case}: {phrase!r} not in {message!r}"
    assert GITHUB_TOKEN not in message


def test_failures_leave_a_failed_or_conflict_receipt(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", "test-key-123")
    for attempt, (failure, status) in enumerate(
        ((malformed_twice, "failed"), (http_500, "failed"), (workspace_conflict, "conflict")), start=1
    ):
        failure(env)
        [receipt] = env.service().receipts()  # the same review each time: one receipt, attempts counted
        assert (receipt.status, receipt.attempts) == (status, attempt)
        assert receipt.error
