"""The pending-review half of :class:`~core.consolidation.service.ConsolidationService`.

Restoring a saved review, recovering one interrupted at the commit barrier, the age/count
bounds and deletion. What is saved and why is described in :mod:`core.consolidation.pending`.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime

from core.consolidation.base import ConsolidationInput
from core.consolidation.pending import ReviewState, age_days, dump_state, load_state
from core.consolidation.proposals import (
    FINAL_STATUSES,
    ChangeSummary,
    PutRecord,
    Receipt,
    Review,
    ReviewChange,
)
from core.consolidation.validation import review_change, review_proposal
from core.errors import DshMemoryError, NotFoundError, ProposalMismatchError, RefusedError
from core.models import EMPTY_REVISION, Revision
from core.settings import AppSettings
from core.store.api import MemoryStore
from core.store.files import REVIEW_STATES

NOT_PENDING = FINAL_STATUSES | {"discarded"}
"""Receipt statuses whose saved proposal is no longer needed."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def state_stamp() -> str:
    """Saved-review times keep microseconds: the count bound keeps the newest, and several
    reviews are often proposed within one second."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def summarize(changes: Collection[ChangeSummary]) -> str:
    kinds: dict[str, int] = {}
    decisions: dict[str, int] = {}
    for c in changes:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
        decisions[c.decision] = decisions.get(c.decision, 0) + 1
    left = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "no changes"
    right = ", ".join(f"{n} {d}" for d, n in sorted(decisions.items()))
    return f"{left}; {right}" if right else left


class PendingReviews:
    """Mixed into ConsolidationService; it supplies the attributes and the two methods below."""

    store: MemoryStore
    settings: AppSettings
    _reviews: dict[str, Review]
    _requests: dict[str, ConsolidationInput]
    _recovered: bool
    recovered: list[tuple[str, str]]
    """``(review id, what recovery did)`` for reviews found interrupted at the commit barrier."""
    problems: dict[str, str]
    """review id -> why its saved pending review was not used (left on disk untouched)."""

    def existing_receipt(self, review_id: str) -> Receipt | None:
        raise NotImplementedError

    def _write(self, receipt: Receipt) -> None:
        raise NotImplementedError

    # --- saved state ---------------------------------------------------------------------
    def _load_state(self, review_id: str) -> ReviewState | None:
        text = self.store.files(REVIEW_STATES).read(review_id)
        if text is None:
            return None
        state = load_state(text, review_id)
        if state is None:
            # Never act on an internal file we cannot validate: report it, leave it.
            self.problems[review_id] = (
                "its saved pending review could not be read (damaged, or written by another version); "
                f"it was left as it is. Delete it with `dsh-memory reviews --delete {review_id}`."
            )
        return state

    def _save_state(self, state: ReviewState) -> None:
        self.store.files(REVIEW_STATES).write(state.review_id, dump_state(state))

    @staticmethod
    def new_state(review: Review, request: ConsolidationInput) -> ReviewState:
        return ReviewState(
            review_id=review.review_id,
            created=state_stamp(),  # this proposal's age (a retried review's receipt may be much older)
            updated=state_stamp(),
            session_id=review.session_id,
            session_revision=review.session_revision,
            session_title=review.session_title,
            cwd=review.cwd,
            workspace_key=review.workspace_key,
            seq_range=review.seq_range,
            consolidator=review.consolidator,
            model=review.model,
            global_revision=review.global_revision,
            workspace_revision=review.workspace_revision,
            workspace_exists=review.workspace_exists,
            proposal=review.proposal,
            proposal_hash=review.proposal_hash,
            evidence=request.evidence,
        )

    @staticmethod
    def _verify(state: ReviewState, expected: str) -> None:
        """The saved proposal must hash to what the proposal (and its receipt) recorded."""
        actual = state.proposal.digest()
        if actual != state.proposal_hash or (expected and actual != expected):
            raise ProposalMismatchError(
                f"The saved proposal of review {state.review_id} does not match the proposal hash its receipt "
                f"recorded ({(expected or state.proposal_hash)[:12]}…): it was changed or damaged on disk. "
                f"Nothing was written. Delete the review (`dsh-memory reviews --delete {state.review_id}`) "
                "and consolidate the session again."
            )

    def _request_from_state(self, state: ReviewState) -> tuple[ConsolidationInput, Revision, Revision, bool]:
        """The consolidator's input rebuilt from the saved evidence and memory as it is now."""
        from core.sessions import render_evidence

        snap_global = self.store.read_global()
        snap_ws = self.store.find_workspace(state.cwd)
        request = ConsolidationInput(
            evidence=state.evidence,
            evidence_text=render_evidence(state.evidence),
            global_text=snap_global.text,
            records=tuple(snap_ws.records()) if snap_ws is not None else (),
            cwd=state.cwd,
            workspace_key=state.workspace_key,
        )
        ws_revision = snap_ws.revision if snap_ws is not None else EMPTY_REVISION
        return request, snap_global.revision, ws_revision, snap_ws is not None

    @staticmethod
    def rows_from_state(state: ReviewState, request: ConsolidationInput) -> tuple[ReviewChange, ...]:
        """The plan rebuilt from the saved proposal, with the user's saved edits re-validated."""
        rows = list(review_proposal(state.proposal, request))
        existing = {r.name: r for r in request.records}
        for index, row in enumerate(rows):
            edit = state.edits.get(row.id)
            if edit is not None and isinstance(row.change, PutRecord):
                rows[index] = review_change(row.id, row.change.model_copy(update={"record": edit}), request, existing)
        return tuple(rows)

    def _receipt_of(self, state: ReviewState) -> Receipt:
        """The review's receipt (rebuilt body-free from the state if it went missing)."""
        receipt = self.existing_receipt(state.review_id)
        if receipt is not None:
            return receipt
        return Receipt(
            review_id=state.review_id,
            status="proposed",
            session_id=state.session_id,
            session_revision=state.session_revision,
            workspace_key=state.workspace_key,
            cwd=state.cwd,
            seq_range=state.seq_range,
            consolidator=state.consolidator,
            model=state.model,
            created=state.created,
            updated=now_iso(),
            global_revision_before=state.global_revision,
            workspace_revision_before=state.workspace_revision,
            proposal_hash=state.proposal_hash,
        )

    # --- restoring -----------------------------------------------------------------------
    def restore_review(self, review_id: str) -> Review:
        """A pending review rebuilt from its saved proposal; the consolidator is not run.

        The changes are checked against memory as it is now (like :meth:`refresh`); when memory
        moved since the proposal, ``review.notes`` says so. Raises NotFoundError when the review
        has nothing pending, ProposalMismatchError when the saved proposal fails its hash.
        """
        self.recover()
        state = self._load_state(review_id)
        if state is None:
            raise NotFoundError(
                f"No pending review {review_id}: it was committed, rejected or deleted, or never saved. "
                "`dsh-memory reviews --pending` lists the pending ones."
            )
        receipt = self._receipt_of(state)
        if receipt.status in NOT_PENDING:
            self.store.files(REVIEW_STATES).delete(review_id)  # finished: its saved bodies are not needed
            raise NotFoundError(f"Review {review_id} is {receipt.status}; nothing is pending.")
        self._verify(state, receipt.proposal_hash)
        request, global_revision, ws_revision, ws_exists = self._request_from_state(state)
        notes: list[str] = []
        if (global_revision, ws_revision) != (state.global_revision, state.workspace_revision):
            notes.append(
                "Memory changed since this review was proposed: its changes are shown against memory as it is now."
            )
        review = Review(
            review_id=review_id,
            session_id=state.session_id,
            session_revision=state.session_revision,
            session_title=state.session_title,
            cwd=state.cwd,
            workspace_key=state.workspace_key,
            seq_range=state.seq_range,
            consolidator=state.consolidator,
            model=state.model,
            global_revision=global_revision,
            workspace_revision=ws_revision,
            workspace_exists=ws_exists,
            proposal=state.proposal,
            proposal_hash=state.proposal_hash,
            changes=self.rows_from_state(state, request),
            receipt=receipt,
            restored=True,
            edited=tuple(sorted(state.edits)),
            notes=tuple(notes),
            evidence=request.evidence,
        )
        self._reviews[review_id] = review
        self._requests[review_id] = request
        return review

    def pending_reviews(self) -> list[Review]:
        """Every saved review still waiting for a decision, newest first (no consolidator runs).

        Recovers interrupted commits and applies the age/count bounds first. Saved reviews that
        cannot be used are skipped and explained in :attr:`problems`.
        """
        self.recover()
        self.prune_pending()
        out: list[Review] = []
        for review_id in self.store.files(REVIEW_STATES).list():
            cached = self._reviews.get(review_id)
            if cached is not None and not cached.reused:
                out.append(cached)
                continue
            try:
                out.append(self.restore_review(review_id))
            except ProposalMismatchError as exc:
                self.problems[review_id] = exc.message
            except NotFoundError:
                continue
        return sorted(out, key=lambda r: (r.receipt.created, r.review_id), reverse=True)  # newest receipt first

    # --- bounds and deletion -------------------------------------------------------------
    def _discard(self, review_id: str, why: str) -> Receipt | None:
        self.store.files(REVIEW_STATES).delete(review_id)
        self._reviews.pop(review_id, None)
        self._requests.pop(review_id, None)
        receipt = self.existing_receipt(review_id)
        if receipt is None or receipt.status in NOT_PENDING:
            return receipt
        receipt = receipt.model_copy(update={"status": "discarded", "updated": now_iso(), "error": f"discarded: {why}"})
        self._write(receipt)
        return receipt

    def prune_pending(self, now: datetime | None = None) -> list[str]:
        """Discard pending reviews over the age or count bound (Settings); returns their ids."""
        states = [
            state
            for state in (self._load_state(rid) for rid in self.store.files(REVIEW_STATES).list())
            if state is not None and state.phase == "proposed"
        ]
        max_age = self.settings.pending_review_max_age_days
        dropped: list[str] = []
        for state in states:
            if age_days(state.created, now) > max_age:
                self._discard(state.review_id, f"pending for more than {max_age:g} days; nothing was written")
                dropped.append(state.review_id)
        left = sorted(
            (s for s in states if s.review_id not in dropped), key=lambda s: (s.updated, s.review_id), reverse=True
        )
        limit = self.settings.pending_review_max_count
        for state in left[limit:]:
            self._discard(state.review_id, f"more than {limit} reviews were pending; the oldest went first")
            dropped.append(state.review_id)
        return dropped

    def delete_review(self, review_id: str) -> Receipt:
        """Delete a pending review (its saved proposal); the receipt says ``discarded``."""
        self.recover()
        had_state = self.store.files(REVIEW_STATES).read(review_id) is not None
        receipt = self.existing_receipt(review_id)
        if receipt is not None and receipt.status in NOT_PENDING and not had_state:
            raise RefusedError(
                f"Review {review_id} is {receipt.status}, not pending; finished receipts are kept.",
                reason="not-pending",
            )
        if receipt is None and not had_state:
            raise NotFoundError(f"No review {review_id}. `dsh-memory reviews --pending` lists the pending ones.")
        after = self._discard(review_id, "deleted by the user; nothing was written")
        if after is None:
            raise NotFoundError(f"Review {review_id} had no receipt; its saved proposal was removed.")
        return after

    # --- the commit barrier --------------------------------------------------------------
    def recover(self) -> list[tuple[str, str]]:
        """Settle reviews interrupted between their commit plan and their receipt (once per service).

        Runs before anything else touches reviews (propose, commit, restore, pending, delete):
        - memory still at the review's bases -> nothing was written; the review is pending again;
        - every planned change already in memory -> the commit happened; the receipt is completed;
        - anything else (memory changed by someone else since) -> receipt ``conflict``, review pending.
        """
        if self._recovered:
            return []
        self._recovered = True
        outcomes: list[tuple[str, str]] = []
        for review_id in self.store.files(REVIEW_STATES).list():
            state = self._load_state(review_id)
            if state is None or state.phase != "committing":
                continue
            try:
                outcomes.append((review_id, self._converge(state)))
            except DshMemoryError as exc:
                self.problems[review_id] = f"an interrupted commit could not be settled: {exc.message}"
        self.recovered.extend(outcomes)
        return outcomes

    def _only_created(self, state: ReviewState) -> bool:
        """The commit died after creating the (new) workspace and before writing into it: an
        empty scope is all that changed, which is what the next commit would create anyway."""
        if state.workspace_revision != EMPTY_REVISION:
            return False
        snap = self.store.find_workspace(state.cwd)
        return snap is not None and not snap.entries

    def _converge(self, state: ReviewState) -> str:
        receipt = self._receipt_of(state)
        if receipt.status in NOT_PENDING:
            self.store.files(REVIEW_STATES).delete(state.review_id)
            return f"already {receipt.status}"
        request, global_revision, ws_revision, _ = self._request_from_state(state)
        pending_again = state.model_copy(update={"phase": "proposed", "plan": None, "updated": state_stamp()})
        if global_revision == state.global_revision and (
            ws_revision == state.workspace_revision or self._only_created(state)
        ):
            self._save_state(pending_again)
            return "not committed (memory unchanged); the review is pending again"
        rows = {row.id: row for row in self.rows_from_state(state, request)}
        plan = state.plan
        applied = plan is not None and all(c in rows and rows[c].before == rows[c].after for c in plan.accepted)
        if plan is not None and plan.accepted and applied:
            accepted = set(plan.accepted)
            changes = tuple(
                c.model_copy(
                    update={
                        "decision": ("edited" if c.id in state.edits else "accepted")
                        if c.id in accepted
                        else ("rejected" if c.decision == "pending" else c.decision)
                    }
                )
                for c in receipt.changes
            )
            everything = {c.id for c in receipt.changes if c.decision == "pending"} <= accepted
            final = receipt.model_copy(
                update={
                    "status": "committed" if everything else "partially-committed",
                    "changes": changes,
                    "summary": summarize(changes),
                    "updated": now_iso(),
                    "global_revision_after": global_revision,
                    "workspace_revision_after": ws_revision,
                    "error": None,
                }
            )
            self._write(final)
            self.store.files(REVIEW_STATES).delete(state.review_id)
            return f"committed before the interruption; receipt completed ({final.status})"
        conflict = receipt.model_copy(
            update={
                "status": "conflict",
                "updated": now_iso(),
                "error": "conflict: the commit was interrupted and memory has changed since; nothing more was "
                "written. Review the changes again against the current memory, then commit.",
            }
        )
        self._write(conflict)
        self._save_state(pending_again)
        return "interrupted and memory changed since; marked conflict, the review is pending again"
