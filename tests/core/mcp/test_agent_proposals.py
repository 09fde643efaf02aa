"""The agent tools and pending agent proposals in-process (no MCP transport): the review flow the GUI
drives (edit, conflict, refresh, Global confirmation), redaction rules, bounds, unreadable files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import messages as M
from core.consolidation.agent_proposals import AgentProposals
from core.errors import ConfirmationRequiredError, InvalidRecordError, NotFoundError, UsageError
from core.mcp.agent import READ_MAX_BYTES, SEARCH_MAX_BYTES, AgentSession
from core.mcp.handles import HandleRefusedError
from core.models import PutOp, Record
from core.store.files import AGENT_PROPOSALS, RECEIPTS
from core.store.fs import FileStore

SECRET = "sk-" + "Tq8v2LmN4pX7rZ1kY9wB3cD5fG6hJ0aS"


def _h(answer: str) -> str:
    """The `observed` handle a read's answer ends with."""
    return answer.rstrip().splitlines()[-1].removeprefix("observed: ")


def _put(name: str, body: str = "A fact.", description: str = "d") -> dict[str, str]:
    return {"op": "put", "name": name, "description": description, "type": "project", "body": body}


@pytest.fixture
def store(tmp_path: Path) -> FileStore:
    s = FileStore(tmp_path / "memory")
    s.replace_global("# User Preferences\n\n- Short answers.\n", None)
    return s


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    (tmp_path / "proj").mkdir()
    return str(tmp_path / "proj")


def _agent(store: FileStore, cwd: str, **kw: object) -> AgentSession:
    return AgentSession(store, cwd, client="test-agent", connection="mcp-test", **kw)  # type: ignore[arg-type]


def test_a_review_can_be_edited_and_committed_with_a_receipt(store: FileStore, cwd: str) -> None:
    agent = _agent(store, cwd)
    h = _h(agent.index_text())
    pid = json.loads(agent.update([_put("ci-runner", "We use GitHub Actions.")], "User said so.", h))["proposal_id"]
    assert store.find_workspace(cwd) is None  # review mode: not even the workspace folder exists
    proposals = AgentProposals(store)
    (row,) = proposals.open(pid).changes
    edited = Record(name="ci-runner", description="CI runs on GitHub Actions", type="project", body="\nActions.\n")
    receipt = proposals.commit(proposals.open(pid), [row.id], edited_records={row.id: edited})
    assert receipt.status == "committed" and receipt.changes[0].decision == "edited"
    snap = store.find_workspace(cwd)
    assert snap is not None and snap.get("ci-runner") is not None
    assert snap.get("ci-runner").record == edited  # type: ignore[union-attr]
    assert proposals.pending() == ([], [])
    with pytest.raises(NotFoundError):
        proposals.open(pid)


def test_a_stale_proposal_conflicts_then_refresh_rebases_it(store: FileStore, cwd: str) -> None:
    agent = _agent(store, cwd)
    h = _h(agent.index_text())
    pid = json.loads(agent.update([_put("fact-one")], "r", h))["proposal_id"]
    snap = store.create_workspace(cwd)
    store.commit(snap.key, [PutOp(record=Record(name="by-hand", description="d", type="project", body="\nx\n"))], None)
    proposals = AgentProposals(store)
    (item,), _ = proposals.pending()
    assert item.stale
    review = proposals.open(pid)
    receipt = proposals.commit(review, [c.id for c in review.changes])
    assert receipt.status == "conflict"
    assert store.find_workspace(cwd).get("fact-one") is None  # type: ignore[union-attr]
    assert [p.proposal.id for p in proposals.pending()[0]] == [pid]  # still pending
    fresh = proposals.refresh(review)
    assert proposals.commit(fresh, [c.id for c in fresh.changes]).status == "committed"
    names = {r.name for r in store.find_workspace(cwd).records()}  # type: ignore[union-attr]
    assert names == {"by-hand", "fact-one"}


def test_a_global_proposal_needs_explicit_confirmation(store: FileStore, cwd: str) -> None:
    agent = _agent(store, cwd, allow_global=True)
    h = _h(agent.read_global())
    pid = json.loads(agent.replace_global("# User Preferences\n\n- Short answers.\n- Tabs.\n", "User said.", h))[
        "proposal_id"
    ]
    proposals = AgentProposals(store)
    review = proposals.open(pid)
    (row,) = review.changes
    assert row.kind == "replace_global" and row.needs_confirmation and not row.problems
    with pytest.raises(ConfirmationRequiredError):
        proposals.commit(review, [row.id])
    assert "Tabs" not in store.read_global().text
    assert proposals.commit(review, [row.id], confirm_global=True).status == "committed"
    assert "Tabs" in store.read_global().text


def test_global_text_naming_the_workspace_is_refused(store: FileStore, cwd: str) -> None:
    agent = _agent(store, cwd, allow_global=True, writes="direct")
    h = _h(agent.read_global())
    with pytest.raises(InvalidRecordError) as caught:
        agent.replace_global(f"# Notes\n\n- In {cwd} we use pnpm.\n", "r", h)
    assert caught.value.reason == "refused"
    # which check refused it: the reason was made from that check's template (its exact inverse)
    assert [r for r in caught.value.reasons if M.GLOBAL_MENTIONS_WORKSPACE.match(r)] == list(caught.value.reasons)
    assert "pnpm" not in store.read_global().text


def test_recall_and_read_redact_and_a_redacted_record_is_never_written_back(store: FileStore, cwd: str) -> None:
    snap = store.create_workspace(cwd)
    secret_record = Record(name="deploy-key", description="d", type="reference", body=f"\nkey {SECRET}\n")
    store.commit(snap.key, [PutOp(record=secret_record)], None, allow_secrets=True)
    agent = _agent(store, cwd, writes="direct")
    shown = agent.read("deploy-key")
    h = _h(shown)
    assert SECRET not in shown and "[REDACTED:" in shown
    assert SECRET not in agent.recall("deploy key")
    with pytest.raises(InvalidRecordError) as caught:
        agent.update([_put("deploy-key", "key [REDACTED:api-key]")], "tidy up", h)
    assert caught.value.reason == "redacted-credential"
    assert store.find_workspace(cwd).get("deploy-key").record == secret_record  # type: ignore[union-attr]


def test_answers_are_bounded(store: FileStore, cwd: str) -> None:
    snap = store.create_workspace(cwd)
    big = "word " * 50_000  # 250 kB, just under the store's record limit
    ops = [
        PutOp(record=Record(name=f"note-{i}", description=f"note {i} word", type="project", body=f"\n{big}\n"))
        for i in range(3)
    ]
    store.commit(snap.key, ops, None)
    agent = _agent(store, cwd)
    assert len(agent.read("note-1").encode()) <= READ_MAX_BYTES
    assert len(agent.recall("word").encode()) <= 12_000
    assert len(agent.search("word", 50).encode()) <= SEARCH_MAX_BYTES + 4096


def test_unreadable_proposal_files_are_listed_and_left_alone(store: FileStore, cwd: str) -> None:
    store.files(AGENT_PROPOSALS).write("ap-broken", "{not json")
    proposals = AgentProposals(store)
    pending, problems = proposals.pending()
    assert pending == [] and len(problems) == 1 and "ap-broken" in problems[0]
    assert store.files(AGENT_PROPOSALS).read("ap-broken") == "{not json"
    with pytest.raises(UsageError):
        proposals.open("ap-broken")


def test_a_settled_proposal_left_behind_by_a_crash_is_cleared(store: FileStore, cwd: str) -> None:
    agent = _agent(store, cwd)
    h = _h(agent.index_text())
    pid = json.loads(agent.update([_put("fact-one")], "r", h))["proposal_id"]
    text = store.files(AGENT_PROPOSALS).read(pid)
    proposals = AgentProposals(store)
    proposals.reject_id(pid)
    assert text is not None
    store.files(AGENT_PROPOSALS).write(pid, text)  # as if the process died between the receipt and the removal
    assert proposals.pending() == ([], [])
    assert store.files(AGENT_PROPOSALS).read(pid) is None
    assert "rejected" in (store.files(RECEIPTS).read(pid) or "")


def test_no_change_and_unknown_delete(store: FileStore, cwd: str) -> None:
    agent = _agent(store, cwd, writes="direct")
    h = _h(agent.index_text())
    agent.update([_put("same-fact")], "r", h)
    review_agent = _agent(store, cwd)
    h2 = _h(review_agent.read("same-fact"))
    assert json.loads(review_agent.update([_put("same-fact")], "r", h2))["status"] == "unchanged"
    with pytest.raises(NotFoundError):
        review_agent.update([{"op": "delete", "name": "never-was"}], "r", h2)
    with pytest.raises(UsageError):
        review_agent.update([_put("x-y")], "   ", h2)
    assert AgentProposals(store).pending() == ([], [])


def test_stale_observation_in_review_mode_is_refused(store: FileStore, cwd: str) -> None:
    agent = _agent(store, cwd)
    h = _h(agent.index_text())
    snap = store.create_workspace(cwd)
    store.commit(snap.key, [PutOp(record=Record(name="a-b", description="d", type="project", body="\nx\n"))], None)
    with pytest.raises(HandleRefusedError) as caught:
        agent.update([_put("c-d")], "r", h)
    assert caught.value.reason == "stale"
    assert AgentProposals(store).pending() == ([], [])


def test_direct_writes_refuse_secrets_with_the_stores_message(store: FileStore, cwd: str) -> None:
    from core.errors import SecretRefusedError

    agent = _agent(store, cwd, writes="direct")
    h = _h(agent.index_text())
    with pytest.raises(SecretRefusedError, match="automatic changes may not contain credential-shaped values"):
        agent.update([_put("api-key", f"Use {SECRET}.")], "r", h)
    assert store.find_workspace(cwd) is None


def test_a_repeated_proposal_is_stored_once_and_pending_ones_are_capped(
    store: FileStore, cwd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import core.consolidation.agent_proposals as proposals_module

    agent = _agent(store, cwd)
    h = _h(agent.index_text())
    first = json.loads(agent.update([_put("fact-one")], "r", h))["proposal_id"]
    again = json.loads(agent.update([_put("fact-one")], "r", h))["proposal_id"]
    assert again == first and store.files(AGENT_PROPOSALS).list() == [first]
    monkeypatch.setattr(proposals_module, "MAX_PENDING", 2)
    agent.update([_put("fact-two")], "r", h)
    with pytest.raises(UsageError) as caught:
        agent.update([_put("fact-three")], "r", h)
    assert caught.value.reason == "pending-limit"
    assert len(store.files(AGENT_PROPOSALS).list()) == 2


def test_the_cli_does_not_import_the_mcp_sdk(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from core.cli.main import main; rc = main(['--root', sys.argv[1], '--json', 'reviews', "
        "'--pending']); assert 'mcp' not in sys.modules and 'mcp_types' not in sys.modules, 'mcp imported';"
        "raise SystemExit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "root")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_cli_lists_shows_and_applies_a_proposal(store: FileStore, cwd: str) -> None:
    import io

    from core.cli.main import main

    def run(*args: str) -> tuple[int, str]:
        out = io.StringIO()
        rc = main(["--root", str(store.root), *args], stdout=out, stderr=out)
        return rc, out.getvalue()

    code, out = run("reviews", "--pending")
    assert code == 0 and out.startswith("No pending agent proposals.\n") and "No pending session reviews." in out
    agent = _agent(store, cwd)
    h = _h(agent.index_text())
    pid = json.loads(agent.update([_put("fact-one", "It rains on Mondays.")], "The user said so.", h))["proposal_id"]
    rc, listing = run("reviews", "--pending")
    assert rc == 0 and pid in listing and "agent:test-agent" in listing and "reason: The user said so." in listing
    assert listing.startswith(pid) and "No pending agent" not in listing  # the proposal comes first
    rc, shown = run("review", pid)
    assert rc == 0 and "+It rains on Mondays." in shown and "Nothing was written" in shown
    assert store.find_workspace(cwd) is None
    rc, applied = run("review", pid, "--apply")
    assert rc == 0 and applied.startswith("committed"), applied
    assert store.find_workspace(cwd).get("fact-one") is not None  # type: ignore[union-attr]
    rc, missing = run("review", pid, "--apply")
    assert rc == 4 and "No pending agent proposal" in missing
    rc, receipts = run("reviews")  # the consolidation receipts listing still works, and shows this one
    assert rc == 0 and pid in receipts and "agent:test-agent" in receipts


def test_receipts_tell_their_source(store: FileStore, cwd: str) -> None:
    from core.consolidation.receipts import parse_receipt
    from core.consolidation.review_sources import review_source

    agent = _agent(store, cwd)
    h = _h(agent.index_text())
    pid = json.loads(agent.update([_put("fact-one")], "r", h))["proposal_id"]
    receipt = parse_receipt(store.files(RECEIPTS).read(pid) or "")
    assert receipt is not None and receipt.status == "proposed"
    assert review_source(receipt.consolidator) == "agent"
    assert [review_source(c) for c in ("offline", "model", "import:claude-code")] == ["session", "session", "import"]
    assert AgentProposals(store).count() == 1
