"""What a consolidator proposes (``Proposal``) and what the user reviews (``Review``, ``ReviewChange``).

The proposal schema is also the JSON the chat model must answer with, so it is strict about
structure (``op`` discriminator, required fields, no unknown keys) and lenient about meaning
(a record ``type`` or ``name`` is a plain string here): a semantically wrong change becomes one
refused row in the review instead of failing the whole answer.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.models import Record, Revision
from core.sessions.models import Evidence


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ProposedRecord(_Frozen):
    """A whole workspace record as proposed (validated into a :class:`core.models.Record` by the host)."""

    name: str
    description: str
    type: str
    body: str

    @classmethod
    def from_record(cls, record: Record) -> ProposedRecord:
        return cls(name=record.name, description=record.description, type=record.type, body=record.body)


class ReplaceGlobal(_Frozen):
    """Replace the whole of ``GLOBAL.md``."""

    op: Literal["replace_global"] = "replace_global"
    text: str
    reason: str
    evidence: tuple[int, ...] = ()


class PutRecord(_Frozen):
    """Create or replace one record of the source session's workspace.

    ``workspace`` is optional and only ever *checked*: a model that names another workspace
    (a cwd or key other than the source session's) gets the change refused as out of scope.
    """

    op: Literal["put"] = "put"
    record: ProposedRecord
    reason: str
    evidence: tuple[int, ...] = ()
    workspace: str | None = None


class DeleteRecord(_Frozen):
    op: Literal["delete"] = "delete"
    name: str
    reason: str
    evidence: tuple[int, ...] = ()
    workspace: str | None = None


class NoChange(_Frozen):
    op: Literal["no_change"] = "no_change"
    reason: str
    evidence: tuple[int, ...] = ()


ProposedChange = Annotated[ReplaceGlobal | PutRecord | DeleteRecord | NoChange, Field(discriminator="op")]
ChangeKind = Literal["replace_global", "put", "delete", "no_change"]


class TranscriptEntry(_Frozen):
    """One step of a model consolidation: the first request, an answer, a tool call or its result."""

    kind: Literal["request", "answer", "tool_call", "tool_result", "note"]
    text: str = ""
    tool: str = ""
    arguments: str = ""
    refused: bool = False


class Transcript(_Frozen):
    """What the model saw and did, replayable ("What the model saw" in the review).

    Kept privately with the review; never written to receipts or debug logs.
    """

    entries: tuple[TranscriptEntry, ...] = ()
    rounds: int = 0  # rounds of read-only tool calls
    fallback_note: str = ""  # the endpoint rejected tools, so the single JSON request was used

    def render(self) -> str:
        out: list[str] = [f"[note] {self.fallback_note}"] if self.fallback_note else []
        for e in self.entries:
            if e.kind == "tool_call":
                out.append(f"[call] {e.tool}({e.arguments})")
            elif e.kind == "tool_result":
                out.append(f"[result{' — refused' if e.refused else ''}] {e.tool}\n{e.text}")
            else:
                out.append(f"[{e.kind}]\n{e.text}")
        return "\n\n".join(out)


class Proposal(_Frozen):
    """A consolidator's answer: a list of changes (possibly only ``no_change``) and a short summary."""

    changes: tuple[ProposedChange, ...] = ()
    summary: str = ""
    # How a model got there. Excluded from dumps, so it is neither part of the proposal hash (that
    # is of what was proposed) nor of the JSON a model must answer with.
    transcript: Transcript | None = Field(default=None, exclude=True)

    def digest(self) -> str:
        """Proposal hash recorded in receipts: SHA-256 of the canonical JSON form."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def is_no_change(self) -> bool:
        return all(isinstance(c, NoChange) for c in self.changes)


class ReviewChange(_Frozen):
    """One row of the review: the proposed change, what it does to the current state, and verdicts.

    ``problems`` make the change impossible to accept (invalid name, out of scope, secrets...).
    ``warnings`` are shown to the user; ``needs_confirmation`` changes (Global replacements) must
    also be confirmed explicitly at commit time. ``before``/``after`` are the full texts for a
    side-by-side view (``None`` when the file does not exist on that side); they live in memory
    only and are never written to receipts or debug logs.
    """

    id: str
    kind: ChangeKind
    target: str  # "GLOBAL.md", "<name>.md" or "" for no_change
    change: ProposedChange
    record: Record | None = None  # the validated record of a put
    before: str | None = None
    after: str | None = None
    diff: str = ""
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    needs_confirmation: bool = False
    # A new record that restates an existing one: its name and the similarity (0–100), so the
    # review can offer "Merge into existing" (ConsolidationService.merge_change).
    similar_to: str | None = None
    similarity: int = 0
    # A new record that is a new value of an existing fact (core.consolidation.supersede): the
    # review offers Replace / Keep both / Merge (ConsolidationService.resolve_change).
    related_to: str | None = None
    relation: Literal["", "supersedes", "contradicts"] = ""
    # The user's own words at the cited seqs (what the review shows beside the change).
    quotes: tuple[tuple[int, str], ...] = ()
    unsupported: bool = False  # the cited seqs don't contain the change's key words

    @property
    def is_valid(self) -> bool:
        return not self.problems

    @property
    def is_actionable(self) -> bool:
        """A valid change that would write something."""
        return self.is_valid and self.kind != "no_change" and self.before != self.after

    @property
    def reason(self) -> str:
        return self.change.reason

    @property
    def evidence(self) -> tuple[int, ...]:
        return self.change.evidence

    def __repr__(self) -> str:
        return (
            f"ReviewChange(id={self.id!r}, kind={self.kind!r}, target={self.target!r}, problems={len(self.problems)})"
        )


ReceiptStatus = Literal[
    "proposed", "committed", "partially-committed", "rejected", "no-change", "failed", "conflict", "discarded"
]
"""``discarded``: a pending review the user deleted or that expired (age/count bounds); nothing
was written and running the consolidation again starts a new attempt."""
FINAL_STATUSES: frozenset[str] = frozenset({"committed", "partially-committed", "rejected", "no-change"})
"""A review in one of these states is done: running it again shows the receipt, not the model."""


class ChangeSummary(_Frozen):
    """What a receipt says about one change: never its body, description or reason text."""

    id: str
    kind: ChangeKind
    target: str
    decision: Literal["pending", "accepted", "rejected", "refused", "edited", "unchanged"]
    problems: int = 0


class Receipt(_Frozen):
    """The durable record of one review (``reviews/<review-id>.md``)."""

    review_id: str
    status: ReceiptStatus
    session_id: str
    session_revision: str
    workspace_key: str
    cwd: str
    seq_range: tuple[int, int]
    consolidator: str
    model: str = ""
    created: str  # ISO-8601
    updated: str  # ISO-8601
    attempts: int = 1
    global_revision_before: Revision
    global_revision_after: Revision | None = None
    workspace_revision_before: Revision
    workspace_revision_after: Revision | None = None
    proposal_hash: str = ""
    changes: tuple[ChangeSummary, ...] = ()
    error: str | None = None  # "<code>: <message>" for failed / conflict
    summary: str = ""  # counts, e.g. "2 put, 1 delete; 2 accepted, 1 rejected"
    # The session's folder (its log file's home): two sessions sharing an id (copies, fixtures with
    # "{{sessionId}}") keep separate review states. Empty in receipts written before it was kept.
    session_file: str = ""

    def __repr__(self) -> str:
        return f"Receipt(review_id={self.review_id!r}, status={self.status!r}, changes={len(self.changes)})"


class Review(_Frozen):
    """A proposal checked against the state read *before* the consolidator ran.

    ``global_revision``/``workspace_revision`` are the CAS bases of the commit. ``reused`` is True
    when the review id already had a final receipt: then ``changes`` is empty and nothing was
    asked of the consolidator.
    """

    review_id: str
    session_id: str
    session_revision: str
    session_title: str = ""
    cwd: str
    workspace_key: str
    seq_range: tuple[int, int]
    consolidator: str
    model: str = ""
    global_revision: Revision
    workspace_revision: Revision
    workspace_exists: bool = True
    proposal: Proposal = Proposal()
    proposal_hash: str = ""
    changes: tuple[ReviewChange, ...] = ()
    receipt: Receipt
    reused: bool = False
    restored: bool = False  # rebuilt from the saved pending review (the consolidator was not run)
    edited: tuple[str, ...] = ()  # change ids whose record the user edited (saved with the review)
    notes: tuple[str, ...] = ()  # what the user should know about a restored review
    # The session evidence the review rests on (for the transcript pane and the user's words behind
    # each change). Kept in memory only: excluded from every dump, so never in receipts or state.
    evidence: Evidence | None = Field(default=None, exclude=True)

    def change(self, change_id: str) -> ReviewChange:
        for c in self.changes:
            if c.id == change_id:
                return c
        raise KeyError(change_id)

    @property
    def actionable(self) -> tuple[ReviewChange, ...]:
        return tuple(c for c in self.changes if c.is_actionable)

    def __repr__(self) -> str:
        return (
            f"Review(review_id={self.review_id!r}, consolidator={self.consolidator!r}, "
            f"changes={len(self.changes)}, status={self.receipt.status!r}, reused={self.reused})"
        )
