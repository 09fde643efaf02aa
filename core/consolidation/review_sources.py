"""Where a review in the Session Consolidation tab comes from, and who settles it (Qt-free).

Three sources share one review panel (:func:`review_source` keys them on the consolidator name):
sessions (:class:`~core.consolidation.service.ConsolidationService`), agent proposals
(:class:`~core.consolidation.agent_proposals.AgentProposals`, which the MCP server creates) and
imports (the service ``ImportService.open_review`` returned). A :class:`ReviewHandler` is the one object a review's
edits, commit, conflict re-check and deletion go through, so a view never asks "which kind is
this?" beyond picking the handler. :func:`read_pending` lists what waits for the user, on a worker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from core.consolidation.agent_proposals import AGENT_PREFIX, AgentProposals
from core.consolidation.proposals import Receipt, Review, ReviewChange
from core.consolidation.supersede import Resolution
from core.models import Record

if TYPE_CHECKING:
    from core.consolidation.review_state import CommitRequest
    from core.consolidation.service import ConsolidationService

ReviewSource = Literal["session", "agent", "import"]


def review_source(consolidator: str) -> ReviewSource:
    """Which filter of the Session Consolidation tab a review or receipt belongs to, by its
    consolidator: ``agent:<client>`` (an agent proposal), ``import:<store>`` (imported memory), else a session."""
    if consolidator.startswith(AGENT_PREFIX):
        return "agent"
    if consolidator.startswith("import:"):
        return "import"
    return "session"


class ReviewHandler:
    """Settles reviews through one :class:`ConsolidationService` (sessions and imports)."""

    def __init__(self, service: Callable[[], ConsolidationService], source: ReviewSource = "session") -> None:
        self._service = service
        self.source = source

    @property
    def service(self) -> ConsolidationService:
        return self._service()

    def edit(self, review: Review, change_id: str, record: Record) -> ReviewChange:
        return self.service.edit_change(review, change_id, record)

    def revert(self, review: Review, change_id: str) -> ReviewChange:
        return self.service.revert_edit(review, change_id)

    def merge(self, review: Review, change_id: str) -> ReviewChange:
        return self.service.merge_change(review, change_id)

    def rename(self, review: Review, change_id: str, name: str) -> ReviewChange:
        return self.service.rename_change(review, change_id, name)

    def resolve(self, review: Review, change_id: str, resolution: Resolution) -> ReviewChange:
        return self.service.resolve_change(review, change_id, resolution)

    def commit(self, review: Review, request: CommitRequest, confirm_global: bool) -> Receipt:
        return self.service.commit(review, request.change_ids, edited=request.edited, confirm_global=confirm_global)

    def recheck(self, review: Review) -> Review:
        return self.service.refresh(review)

    def delete(self, review: Review) -> Receipt:
        return self.service.delete_review(review.review_id)


class AgentHandler(ReviewHandler):
    """Settles agent proposals through the :class:`AgentProposals` that opened them (so a settled
    proposal leaves the pending list and a conflict re-reads the stored proposal)."""

    def __init__(self, proposals: AgentProposals) -> None:
        super().__init__(lambda: proposals.service, "agent")
        self.proposals = proposals

    def commit(self, review: Review, request: CommitRequest, confirm_global: bool) -> Receipt:
        records = {cid: row.record for cid, row in request.edited.items() if row.record is not None}
        return self.proposals.commit(review, request.change_ids, edited_records=records, confirm_global=confirm_global)

    def recheck(self, review: Review) -> Review:
        return self.proposals.refresh(review)

    def delete(self, review: Review) -> Receipt:
        """An agent proposal is deleted by rejecting it (its receipt says so; nothing is written)."""
        return self.proposals.reject(review)


@dataclass(frozen=True)
class PendingItem:
    """A row of the pending list: a saved review, an agent proposal or an import waiting for the user."""

    source: ReviewSource
    review_id: str
    title: str
    created: str  # ISO-8601
    review: Review | None = None  # already rebuilt (pending session reviews); agents open on demand
    stale: bool = False  # memory changed since the agent (or the proposal) read it
    reason: str = ""  # the agent's stated reason

    @property
    def label(self) -> str:
        """Title and time; the view adds its translated "memory changed since" badge for ``stale``."""
        when = self.created[:16].replace("T", " ")
        return f"{self.title or self.review_id}\n{when}"


@dataclass
class PendingListing:
    items: list[PendingItem]
    problems: list[str] = field(default_factory=list)  # one line per saved review that could not be used
    recovered: list[str] = field(default_factory=list)  # what recovery did to interrupted commits


def read_pending(service: ConsolidationService, proposals: AgentProposals) -> PendingListing:
    """Pending session (and import) reviews plus pending agent proposals, newest first (on a worker)."""
    items: list[PendingItem] = []
    for review in service.pending_reviews():
        source = review_source(review.consolidator)
        items.append(
            PendingItem(
                source,
                review.review_id,
                review.session_title or review.session_id,
                review.receipt.created,
                review=review,
                stale=bool(review.notes),
            )
        )
    pending, problems = proposals.pending()
    for p in pending:
        a = p.proposal
        title = f"{a.client}: {a.reason}" if a.reason else a.client
        items.append(PendingItem("agent", a.id, title, a.created, stale=p.stale, reason=a.reason))
    items.sort(key=lambda i: (i.created, i.review_id), reverse=True)
    problems = [f"{rid}: {why}" for rid, why in service.problems.items()] + problems
    recovered = [f"{rid}: {what}" for rid, what in service.recovered]
    return PendingListing(items, problems, recovered)
