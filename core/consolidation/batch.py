"""Batch runs: consolidate several sessions one after another, each with its own review.

The GUI runs a :class:`BatchRun` on its worker (overall progress "3 of 12", one Cancel) and the CLI
runs it for ``consolidate --pending``. A failure of one session is recorded and the next one runs;
cancelling stops the session in flight (nothing written for it) and skips the rest.

"Unreviewed" means: no *final* receipt (committed, partially committed, rejected, no-change) exists
for the session at its current revision with this consolidator. Failed and conflicted runs are run
again; so is a review still waiting for the user ("proposed"), which re-opens it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from core.consolidation.base import CancelCheck, ProgressFn, never_cancelled
from core.consolidation.proposals import FINAL_STATUSES, Receipt, Review
from core.consolidation.service import ConsolidationService, ConsolidatorKind
from core.errors import CancelledError, DshMemoryError
from core.sessions.models import SessionSummary

ItemStatus = Literal["proposed", "committed", "no-change", "already-reviewed", "failed", "cancelled", "conflict"]


@dataclass(frozen=True)
class BatchItem:
    """What happened to one session of a batch."""

    session_id: str
    title: str
    status: ItemStatus
    review: Review | None = None
    receipt: Receipt | None = None
    error_code: str = ""
    error: str = ""

    @property
    def review_id(self) -> str:
        return self.review.review_id if self.review is not None else ""


def unreviewed(
    service: ConsolidationService, sessions: Sequence[SessionSummary], consolidator: ConsolidatorKind | None = None
) -> list[SessionSummary]:
    """Those of ``sessions`` with no receipt at their current revision for ``consolidator``, oldest first."""
    name = service.consolidator(consolidator).name
    seen = {
        (r.session_id, r.session_revision)
        for r in service.receipts()
        if r.consolidator == name and r.status in FINAL_STATUSES
    }
    todo = [s for s in sessions if s.cwd and not s.is_subagent and (s.id, s.revision.token) not in seen]
    return sorted(todo, key=lambda s: (s.updated is None, s.updated, s.id))


class BatchRun:
    """Consolidates ``sessions`` in order; ``apply`` commits each review's valid changes (Global
    changes only with ``accept_global``), otherwise every review stays "proposed" for the user."""

    def __init__(
        self,
        service: ConsolidationService,
        sessions: Sequence[SessionSummary],
        *,
        consolidator: ConsolidatorKind | None = None,
        apply: bool = False,
        accept_global: bool = False,
    ) -> None:
        self.service = service
        self.sessions = list(sessions)
        self.consolidator = consolidator
        self.apply = apply
        self.accept_global = accept_global

    def run(
        self,
        *,
        cancelled: CancelCheck = never_cancelled,
        progress: ProgressFn | None = None,
        on_item: Callable[[BatchItem], None] | None = None,
    ) -> list[BatchItem]:
        items: list[BatchItem] = []
        total = len(self.sessions)
        for done, summary in enumerate(self.sessions):
            if cancelled():
                items += [BatchItem(s.id, s.title, "cancelled") for s in self.sessions[done:]]
                break
            if progress is not None:
                progress(done, total, f"{done + 1} of {total}: {summary.title or summary.id}")
            item = self._one(summary, cancelled)
            items.append(item)
            if on_item is not None:
                on_item(item)
            if item.status == "cancelled":
                items += [BatchItem(s.id, s.title, "cancelled") for s in self.sessions[done + 1 :]]
                break
        if progress is not None:
            progress(total, total, f"{sum(1 for i in items if i.status != 'cancelled')} of {total} done")
        return items

    def _one(self, summary: SessionSummary, cancelled: CancelCheck) -> BatchItem:
        try:
            prepared = self.service.prepare(summary)
            review = self.service.propose(prepared, consolidator=self.consolidator, cancelled=cancelled)
            if review.reused:
                return BatchItem(summary.id, summary.title, "already-reviewed", review, review.receipt)
            if review.receipt.status == "no-change" or not self.apply:
                status: ItemStatus = "no-change" if review.receipt.status == "no-change" else "proposed"
                return BatchItem(summary.id, summary.title, status, review, review.receipt)
            chosen = [c.id for c in review.actionable if self.accept_global or not c.needs_confirmation]
            if not chosen:  # only a Global change, not confirmed: the user decides in the review
                return BatchItem(summary.id, summary.title, "proposed", review, review.receipt)
            receipt = self.service.commit(review, chosen, confirm_global=self.accept_global)
            status = "conflict" if receipt.status == "conflict" else "committed"
            return BatchItem(summary.id, summary.title, status, review, receipt)
        except CancelledError:
            return BatchItem(summary.id, summary.title, "cancelled")
        except DshMemoryError as exc:  # one session's failure is its own; the batch goes on
            return BatchItem(summary.id, summary.title, "failed", error_code=exc.code, error=exc.message)
