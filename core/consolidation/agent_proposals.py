"""Pending agent proposals: what an MCP agent asked to change, kept until the user reviews it.

An agent connected with ``--writes review`` (the default) never writes memory. Its
``memory_update`` / ``replace_global`` becomes an :class:`AgentProposal`, stored as JSON through
the store (``.manager/agent-proposals/<id>.json``) with a ``proposed`` receipt in ``reviews/``.
The user reviews it exactly like a session consolidation: :meth:`AgentProposals.open` turns it
into a :class:`core.consolidation.proposals.Review` (per-change diffs against the memory as it is
now, the agent's stated reason on every change, consolidator ``agent:<client name>``) that the
same :class:`core.consolidation.service.ConsolidationService` commits with CAS and a receipt.

CAS bases: a proposal remembers the revisions the agent had observed when it asked. A proposal
whose scope changed since is *stale*: committing it is a conflict that writes nothing, and
:meth:`AgentProposals.refresh` re-checks it against the current memory for another review (the
same flow as a consolidation whose memory changed meanwhile).

This lives in ``core.consolidation`` rather than ``core.mcp``: the MCP server (``core.mcp.agent``)
creates proposals, but the review side (CLI, GUI, :mod:`core.consolidation.review_sources`) must
reach them without importing the server package; ``core.mcp`` depends on this, never the reverse.
"""

from __future__ import annotations

import json
import secrets as _random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from core import messages as M
from core.consolidation.base import ConsolidationInput
from core.consolidation.proposals import (
    FINAL_STATUSES,
    ChangeSummary,
    DeleteRecord,
    Proposal,
    PutRecord,
    Receipt,
    ReplaceGlobal,
    Review,
    ReviewChange,
)
from core.consolidation.receipts import parse_receipt, render_receipt
from core.consolidation.service import ConsolidationService
from core.consolidation.validation import (
    GLOBAL_FILE,
    GLOBAL_WARNING,
    global_row,
    global_text_of,
    review_proposal,
    secret_problems,
    workspace_mention_problems,
)
from core.errors import NotFoundError, RefusedError, UsageError
from core.keys import normalize_cwd, workspace_key
from core.model_catalog import ModelCatalog
from core.models import EMPTY_REVISION, Record, Revision
from core.sessions.models import Evidence
from core.settings import AppSettings, load_settings
from core.store.api import MemoryStore
from core.store.commit_log import MAX_ENTRIES as MAX_LOG_ENTRIES
from core.store.files import AGENT_PROPOSALS, RECEIPTS

AGENT_PREFIX = "agent:"
"""Consolidator names of agent proposals start with this (``agent:claude-code``): the GUI's source filter."""

REDACTION_MARK = "[REDACTED:"
MAX_PENDING = 100
"""Pending proposals per root: an agent in a loop must not bury the user (or the disk) in them."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AgentProposal(_Frozen):
    """One pending proposal as stored. ``*_revision`` are the agent's observations (the CAS bases),
    ``None`` for a scope the proposal does not change."""

    version: Literal[1] = 1
    id: str
    created: str  # ISO-8601
    client: str  # the MCP client's name, sanitized
    connection: str  # id of the server connection that made it
    cwd: str
    workspace_key: str
    reason: str  # the agent's stated reason, shown on every change
    proposal: Proposal
    global_revision: Revision | None = None
    workspace_revision: Revision | None = None

    @property
    def consolidator(self) -> str:
        return AGENT_PREFIX + self.client

    def __repr__(self) -> str:
        return f"AgentProposal(id={self.id!r}, client={self.client!r}, changes={len(self.proposal.changes)})"


@dataclass(frozen=True)
class PendingProposal:
    """A row of the pending list: the proposal, and whether memory changed since the agent read it."""

    proposal: AgentProposal
    stale: bool


class ConcurrentEditError(UsageError):
    """``review --apply --refresh`` would overwrite records edited after the agent read them."""

    def __init__(self, message: str, *, names: tuple[str, ...]) -> None:
        super().__init__(message)
        self.names = names


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_proposal_id() -> str:
    """Sortable by creation time, unique across processes."""
    return "ap-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + _random.token_hex(5)


def _evidence(p: AgentProposal) -> Evidence:
    # Agents bring no session: an empty evidence keeps the consolidation types usable.
    return Evidence(
        session_id=p.connection, session_revision="", cwd=p.cwd, title=p.consolidator, turns=(), size_bytes=0
    )


def review_agent_global(change_id: str, change: ReplaceGlobal, request: ConsolidationInput) -> ReviewChange:
    """A Global replacement asked by an agent started with ``--allow-global``.

    The consolidation rule (cite the user's own words) cannot apply: an agent brings no session.
    What stands in for it: the user opted in when starting the server, and the change still needs
    an explicit confirmation at commit. A text naming this workspace is refused (a project fact),
    so are credentials and a text that would overwrite a credential the agent was only shown redacted.
    """
    text = global_text_of(change)
    problems = secret_problems(text, GLOBAL_FILE) + workspace_mention_problems(text, request)
    if REDACTION_MARK in text and secret_problems(request.global_text, GLOBAL_FILE):
        problems.append("the new GLOBAL.md would replace a credential the agent was only shown redacted; refused")
    return global_row(change_id, change, request, problems, [GLOBAL_WARNING])


def review_agent_proposal(proposal: Proposal, request: ConsolidationInput) -> tuple[ReviewChange, ...]:
    """The consolidation checks (names, scope, secrets, one change per record) with the agent rule
    for Global, plus: a put may not overwrite a credential the agent only saw redacted."""
    existing = {r.name: r for r in request.records}
    rows: list[ReviewChange] = []
    first_global: str | None = None
    for row in review_proposal(proposal, request):
        if isinstance(row.change, ReplaceGlobal):
            fresh = review_agent_global(row.id, row.change, request)
            if first_global is not None:
                dup = f"{GLOBAL_FILE} is already changed by {first_global}; refused"
                fresh = fresh.model_copy(update={"problems": (*fresh.problems, dup)})
            first_global = first_global or row.id
            row = fresh
        elif isinstance(row.change, PutRecord) and row.record is not None:
            old = existing.get(row.record.name)
            if (
                old is not None
                and REDACTION_MARK in f"{row.record.description}\n{row.record.body}"
                and secret_problems(f"{old.description}\n{old.body}", "record")
            ):
                row = row.model_copy(
                    update={
                        "problems": (
                            *row.problems,
                            f"record {row.record.name!r} holds a credential the agent was only shown redacted; "
                            "writing it back would destroy it; refused",
                        )
                    }
                )
        rows.append(row)
    return tuple(rows)


def _summaries(rows: Sequence[ReviewChange], decision: str = "pending") -> tuple[ChangeSummary, ...]:
    out = []
    for ch in rows:
        d = decision if ch.is_actionable else ("refused" if ch.problems else "unchanged")
        out.append(ChangeSummary(id=ch.id, kind=ch.kind, target=ch.target, decision=d, problems=len(ch.problems)))  # type: ignore[arg-type]  # literal values
    return tuple(out)


def _summary_text(changes: Sequence[ChangeSummary]) -> str:
    kinds: dict[str, int] = {}
    for c in changes:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "no changes"


class AgentProposals:
    """Create, list, review and settle pending agent proposals (the seam the GUI and CLI use)."""

    def __init__(self, store: MemoryStore, settings: AppSettings | None = None) -> None:
        self.store = store
        self.settings = settings if settings is not None else load_settings(store).settings
        self.service = ConsolidationService(store, ModelCatalog(choices=()), self.settings)

    # --- create (the MCP server) ---------------------------------------------------------
    def create(
        self,
        *,
        client: str,
        connection: str,
        cwd: str,
        reason: str,
        proposal: Proposal,
        global_revision: Revision | None,
        workspace_revision: Revision | None,
    ) -> AgentProposal:
        """Store a proposal the caller has already validated, with a ``proposed`` receipt.

        The same change on the same observed memory, still pending, is not stored twice: its
        existing proposal comes back. Over :data:`MAX_PENDING` pending proposals, UsageError.
        """
        cwd = normalize_cwd(cwd)
        ids = self.store.files(AGENT_PROPOSALS).list()
        digest = proposal.digest()
        for pid in ids:
            try:
                old = self.load(pid)
            except (UsageError, NotFoundError):
                continue
            if (old.cwd, old.proposal.digest(), old.global_revision, old.workspace_revision) == (
                cwd,
                digest,
                global_revision,
                workspace_revision,
            ) and self._settled(pid) is None:
                return old
        if len(ids) >= MAX_PENDING:
            raise RefusedError(
                f"{len(ids)} agent proposals are already waiting for review; the user has to review them "
                "(`dsh-memory reviews --pending`) before more can be proposed. Nothing was written.",
                reason="pending-limit",
            )
        p = AgentProposal(
            id=new_proposal_id(),
            created=_now(),
            client=client,
            connection=connection,
            cwd=cwd,
            workspace_key=workspace_key(cwd),
            reason=reason,
            proposal=proposal,
            global_revision=global_revision,
            workspace_revision=workspace_revision,
        )
        self.store.files(AGENT_PROPOSALS).write(p.id, p.model_dump_json(indent=1))
        review = self.open(p.id)
        self.store.files(RECEIPTS).write(p.id, render_receipt(review.receipt))
        return p

    # --- list ----------------------------------------------------------------------------
    def load(self, proposal_id: str) -> AgentProposal:
        text = self.store.files(AGENT_PROPOSALS).read(proposal_id)
        if text is None:
            raise NotFoundError(
                f"No pending agent proposal {proposal_id!r}. Run `dsh-memory reviews --pending` to list them."
            )
        try:
            p = AgentProposal.model_validate(json.loads(text))
        except (ValueError, ValidationError) as exc:
            raise UsageError(
                f"The agent proposal {proposal_id!r} could not be read ({type(exc).__name__}); it was left "
                "alone. Nothing was written."
            ) from exc
        if p.id != proposal_id:
            raise UsageError(f"The agent proposal file {proposal_id!r} names another id; it was left alone.")
        return p

    def _settled(self, proposal_id: str) -> Receipt | None:
        text = self.store.files(RECEIPTS).read(proposal_id)
        receipt = parse_receipt(text) if text is not None else None
        return receipt if receipt is not None and receipt.status in FINAL_STATUSES else None

    def pending(self) -> tuple[list[PendingProposal], list[str]]:
        """Pending proposals, oldest first, and one line per stored file that could not be read."""
        out: list[PendingProposal] = []
        problems: list[str] = []
        global_rev = self.store.read_global().revision
        ws_revs: dict[str, Revision] = {}
        for pid in self.store.files(AGENT_PROPOSALS).list():
            try:
                p = self.load(pid)
            except (UsageError, NotFoundError) as exc:
                problems.append(exc.message)
                continue
            if self._settled(pid) is not None:
                # Settled, but the process stopped before removing it: finish that now.
                self.store.files(AGENT_PROPOSALS).delete(pid)
                continue
            if p.cwd not in ws_revs:
                snap = self.store.find_workspace(p.cwd)
                ws_revs[p.cwd] = snap.revision if snap is not None else EMPTY_REVISION
            stale = (p.global_revision is not None and p.global_revision != global_rev) or (
                p.workspace_revision is not None and p.workspace_revision != ws_revs[p.cwd]
            )
            out.append(PendingProposal(proposal=p, stale=stale))
        return out, problems

    def count(self) -> int:
        """Pending proposals (for a status line): one directory listing, no parsing."""
        return len(self.store.files(AGENT_PROPOSALS).list())

    # --- review --------------------------------------------------------------------------
    def _build(self, p: AgentProposal, *, rebase: bool) -> Review:
        snap_global = self.store.read_global()
        snap_ws = self.store.find_workspace(p.cwd)
        current_ws = snap_ws.revision if snap_ws is not None else EMPTY_REVISION
        request = ConsolidationInput(
            evidence=_evidence(p),
            evidence_text="",
            global_text=snap_global.text,
            records=tuple(snap_ws.records()) if snap_ws is not None else (),
            cwd=p.cwd,
            workspace_key=p.workspace_key,
        )
        rows = review_agent_proposal(p.proposal, request)
        # The agent's observations are the CAS bases; a scope it does not change is taken as it is now.
        global_base = p.global_revision if p.global_revision is not None and not rebase else snap_global.revision
        ws_base = p.workspace_revision if p.workspace_revision is not None and not rebase else current_ws
        summaries = _summaries(rows)
        receipt = Receipt(
            review_id=p.id,
            status="proposed",
            session_id=p.connection,
            session_revision="",
            workspace_key=p.workspace_key,
            cwd=p.cwd,
            seq_range=(0, 0),
            consolidator=p.consolidator,
            created=p.created,
            updated=_now(),
            global_revision_before=global_base,
            workspace_revision_before=ws_base,
            proposal_hash=p.proposal.digest(),
            changes=summaries,
            summary=_summary_text(summaries),
        )
        review = Review(
            review_id=p.id,
            session_id=p.connection,
            session_revision="",
            session_title=M.AGENT_PROPOSAL_TITLE.format(client=p.client, when=p.created[:16].replace("T", " ")),
            cwd=p.cwd,
            workspace_key=p.workspace_key,
            seq_range=(0, 0),
            consolidator=p.consolidator,
            global_revision=global_base,
            workspace_revision=ws_base,
            workspace_exists=snap_ws is not None,
            proposal=p.proposal,
            proposal_hash=p.proposal.digest(),
            changes=rows,
            receipt=receipt,
        )
        return self.service.adopt(review, request)

    def open(self, proposal_id: str) -> Review:
        """The proposal as a review against the memory as it is now (CAS bases: what the agent saw)."""
        return self._build(self.load(proposal_id), rebase=False)

    def refresh(self, review: Review) -> Review:
        """After a conflict: the same proposal re-checked against the current memory, whose
        revisions become the CAS bases (the user reviews the new diffs before committing)."""
        return self._build(self.load(review.review_id), rebase=True)

    def commit(
        self,
        review: Review,
        accepted: Collection[str],
        *,
        edited_records: Mapping[str, Record] | None = None,
        confirm_global: bool = False,
    ) -> Receipt:
        """Commit the accepted changes (``ConsolidationService.commit``: CAS, all-or-nothing, receipt).

        A settled review (committed, partially committed, rejected, no-change) leaves the pending
        list; a conflict keeps it pending for :meth:`refresh` and another review.
        """
        self.load(review.review_id)  # still pending (not settled by another window meanwhile)
        receipt = self.service.commit(review, accepted, edited_records=edited_records, confirm_global=confirm_global)
        if receipt.status in FINAL_STATUSES:
            self.store.files(AGENT_PROPOSALS).delete(review.review_id)
        return receipt

    def reject(self, review: Review) -> Receipt:
        return self.commit(review, ())

    def edited_since(self, p: AgentProposal) -> list[str]:
        """Records this proposal changes that someone else changed after the agent read them (from the
        workspace's commit log). ``["*"]`` when that cannot be told: the agent's revision fell out of
        the log, or files were changed behind the store's back (the log does not explain the revision)."""
        if p.workspace_revision is None:
            return []
        targets = {
            c.record.name if isinstance(c, PutRecord) else c.name
            for c in p.proposal.changes
            if isinstance(c, PutRecord | DeleteRecord)
        }
        snap = self.store.find_workspace(p.cwd)
        current = snap.revision if snap is not None else EMPTY_REVISION
        if current == p.workspace_revision:
            return []
        log = self.store.history.commit_log(p.workspace_key)  # newest first
        base = next((i for i, e in enumerate(log) if e.before == p.workspace_revision), None)
        if base is None and p.workspace_revision == EMPTY_REVISION and log and len(log) < MAX_LOG_ENTRIES:
            base = len(log) - 1  # a workspace created since: a log not yet full holds all its commits
        if base is None or not log or log[0].after != current:
            return ["*"]
        changed = {c.name for e in log[: base + 1] for c in e.changes}
        return sorted(targets & changed)

    def apply(
        self, proposal_id: str, *, confirm_global: bool = False, rebase: bool = False, overwrite: bool = False
    ) -> Receipt:
        """Accept every acceptable change (the CLI's ``review ID --apply``). With ``rebase`` (after a
        conflict) a record someone else edited after the agent read it is refused unless ``overwrite``:
        the agent's whole-record put would silently drop that edit."""
        p = self.load(proposal_id)
        if rebase and not overwrite:
            clobbered = self.edited_since(p)
            if clobbered:
                outside = "some records (files changed outside dsh-memory)"
                names = outside if clobbered == ["*"] else ", ".join(clobbered)
                raise ConcurrentEditError(
                    f"{names} changed after the agent read them; applying its whole-record changes would drop "
                    f"those edits. Look at `dsh-memory review {proposal_id}` (the diff against the memory as it is "
                    "now), then --apply --refresh --overwrite if that is what you want, or --reject. Nothing was "
                    "written.",
                    names=tuple(clobbered),
                )
        review = self._build(p, rebase=rebase)
        accepted = [ch.id for ch in review.changes if ch.is_actionable]
        return self.commit(review, accepted, confirm_global=confirm_global)

    def reject_id(self, proposal_id: str) -> Receipt:
        return self.reject(self.open(proposal_id))
