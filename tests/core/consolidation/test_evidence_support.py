"""Evidence the user gave: ask_user_question answers, the words behind each change, sessions sharing an id."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from sequence_corpus import session_rows

from core.consolidation import ConsolidationService
from core.errors import AmbiguousSessionError
from core.model_catalog import ModelCatalog
from core.sessions import SessionCatalog, render_evidence
from core.sessions.evidence import build_evidence
from core.sessions.parse import read_session_file
from core.settings import AppSettings
from core.store.memory import InMemoryStore

# One of the real DSH logs beside the repo (as tests/core/sessions/test_session_real_fixtures.py finds them).
FIXTURE = (
    Path(__file__).resolve().parents[3].parent / "shared/fixtures/dsh-sessions/web-question-composer__session.jsonl"
)


def _write(folder: Path, rows: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "session.jsonl"
    path.write_bytes(b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows))
    os.utime(path, (1_700_000_000, 1_700_000_000))
    return path


def test_an_ask_user_question_answer_is_user_evidence(tmp_path: Path) -> None:
    steps = (
        ("user", "Set up the formatter."),
        ("ask", "Which formatter should this repo use from now on?", "Always use ruff format, not black."),
        ("tool", "bash", "ok"),
    )
    path = _write(tmp_path / "s", session_rows("s1", "/home/ada/p", steps, "t"))
    evidence = build_evidence(read_session_file(path))
    text = render_evidence(evidence)
    assert 'user (answer to "Which formatter should this repo use from now on?"):\nAlways use ruff format' in text
    assert "tool output" not in text  # other tools' bodies never reach the evidence
    answer = [m for t in evidence.turns for m in t.messages if m.answer_to]
    assert [(m.role, m.text) for m in answer] == [("user", "Always use ruff format, not black.")]


@pytest.mark.real_fixtures
@pytest.mark.skipif(
    os.environ.get("DSH_REAL_FIXTURES") == "0" or not FIXTURE.is_file(),
    reason="the real DSH logs live in ../shared/fixtures, which is not beside this checkout",
)
def test_a_real_ask_user_question_log_gives_the_picked_option_and_the_typed_text() -> None:
    evidence = build_evidence(read_session_file(FIXTURE))
    [answer] = [m for t in evidence.turns for m in t.messages if m.answer_to]
    assert answer.answer_to == "Which color do you prefer?"
    assert answer.text == "Blue; Include accessibility notes"


def test_sessions_sharing_an_id_are_an_ambiguity_naming_both(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    steps = (("user", "Remember that the staging host is stage.example.com"),)
    a = _write(root / "--a--" / "one", session_rows("{{sessionId}}", "/home/ada/a", steps, "a"))
    b = _write(root / "--b--" / "two", session_rows("{{sessionId}}", "/home/ada/b", steps, "b"))
    catalog = SessionCatalog(sessions_root=root, dsh_home=tmp_path / "dsh")
    with pytest.raises(AmbiguousSessionError) as caught:
        catalog.load("{{sessionId}}")
    assert str(a.parent) in caught.value.message and str(b.parent) in caught.value.message
    assert set(caught.value.folders) == {str(a.parent), str(b.parent)}
    assert caught.value.reason == "ambiguous-session"
    # Each file still has a review of its own: the review state is per session file.
    service = ConsolidationService(InMemoryStore(), ModelCatalog(()), AppSettings(), sessions=catalog)
    ids = {service.propose(service.prepare(s), consolidator="offline").review_id for s in catalog.list()}
    assert len(ids) == 2


def test_copying_a_log_keeps_a_separate_review(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    steps = (("user", "Remember that the staging host is stage.example.com"),)
    a = _write(root / "--a--" / "one", session_rows("same", "/home/ada/a", steps, "a"))
    shutil.copytree(a.parent, root / "--a--" / "two")
    os.utime(root / "--a--" / "two" / "session.jsonl", (1_700_000_000, 1_700_000_000))
    catalog = SessionCatalog(sessions_root=root, dsh_home=tmp_path / "dsh")
    service = ConsolidationService(InMemoryStore(), ModelCatalog(()), AppSettings(), sessions=catalog)
    reviews = [service.propose(service.prepare(s), consolidator="offline") for s in catalog.list()]
    assert len({r.review_id for r in reviews}) == 2


def test_an_agent_proposal_of_a_changed_fact_is_marked_supersedes(tmp_path: Path) -> None:
    """Agent proposals (MCP) go through the same supersession check as every other path."""
    from core.consolidation.agent_proposals import AgentProposals
    from core.mcp.agent import AgentSession
    from core.models import PutOp, Record
    from core.store.fs import FileStore

    store = FileStore(tmp_path / "memory")
    cwd = str(tmp_path / "shop")
    snap = store.create_workspace(cwd)
    old = Record(
        name="staging-db",
        description="Staging database",
        type="reference",
        body="\nThe staging db is at https://db.example.com/staging\n",
    )
    store.commit(snap.key, [PutOp(record=old)], snap.revision)
    agent = AgentSession(store, cwd, client="test-agent")
    read = agent.recall("staging")
    changes = [
        {"op": "put", "name": "staging-database-v2", "description": "Staging database moved",
         "type": "reference", "body": "The staging db is at https://db.example.com/staging-v2"},
    ]  # fmt: skip
    observed = read.rstrip().splitlines()[-1].removeprefix("observed: ")
    answer = json.loads(agent.update(changes, "the user said the staging db moved", observed=observed))
    review = AgentProposals(store).open(answer["proposal_id"])
    [change] = review.actionable
    assert change.relation == "supersedes" and change.related_to == "staging-db"
    assert any("https://db.example.com/staging → https://db.example.com/staging-v2" in w for w in change.warnings)


def test_the_last_review_status_is_per_session_file_not_per_id(tmp_path: Path) -> None:
    from core.consolidation.review_state import Pipeline, read_listing
    from core.keys import workspace_key
    from core.store.fs import FileStore

    root = tmp_path / "sessions"
    steps = (("user", "Remember that the staging host is stage.example.com"),)
    cwd = "/home/ada/shared"
    _write(root / "--shared--" / "one", session_rows("{{sessionId}}", cwd, steps, "one"))
    _write(root / "--shared--" / "two", session_rows("{{sessionId}}", cwd, steps, "two"))
    pipeline = Pipeline(FileStore(tmp_path / "memory"), root, tmp_path / "dsh")
    listing = read_listing(pipeline, workspace_key(cwd), True)
    first = next(r for r in listing.rows if r.summary.title == "one")
    review = pipeline.run(first.summary, "offline", False, lambda: False, lambda *_: None)
    assert review.receipt.session_file == first.summary.folder
    pipeline.service.commit(review, [c.id for c in review.actionable])
    statuses = {r.summary.title: r.last_status for r in read_listing(pipeline, workspace_key(cwd), True).rows}
    assert statuses == {"one": "committed", "two": ""}


def test_an_agent_writing_directly_is_told_what_its_new_record_supersedes(tmp_path: Path) -> None:
    from core.mcp.agent import AgentSession
    from core.models import PutOp, Record
    from core.store.fs import FileStore

    store = FileStore(tmp_path / "memory")
    cwd = str(tmp_path / "shop")
    snap = store.create_workspace(cwd)
    old = Record(
        name="release-codeword",
        description="The release codeword is MARMALADE",
        type="project",
        body="\nThe release codeword is MARMALADE.\n",
    )
    store.commit(snap.key, [PutOp(record=old)], snap.revision)
    agent = AgentSession(store, cwd, writes="direct", client="test-agent")
    read = agent.recall("codeword")
    observed = read.rstrip().splitlines()[-1].removeprefix("observed: ")
    change = {"op": "put", "name": "codeword-saffron", "description": "The release codeword is SAFFRON",
              "type": "project", "body": "The release codeword is SAFFRON."}  # fmt: skip
    answer = json.loads(agent.update([change], "the user gave the new codeword", observed=observed))
    assert answer["status"] == "committed"
    [note] = answer["supersedes"]
    assert note["name"] == "codeword-saffron" and note["record"] == "release-codeword"
    assert note["relation"] == "supersedes" and "delete" in note["hint"]
