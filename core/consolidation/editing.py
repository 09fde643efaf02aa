"""Editing a review before commit: edit a proposed record, undo the edit, rename it, merge it into
an existing record, or settle a supersession (Replace / Keep both / Merge).

Mixed into :class:`core.consolidation.service.ConsolidationService`. Every edit is re-validated
like the model's own proposal (names, scope, secrets, supersession) and saved with the pending
review, so closing the window loses nothing.
"""

from __future__ import annotations

from core.consolidation.base import ConsolidationInput
from core.consolidation.proposals import ProposedRecord, PutRecord, Review, ReviewChange
from core.consolidation.restore import PendingReviews, state_stamp
from core.consolidation.similarity import merged_record
from core.consolidation.supersede import Resolution, replaced_by
from core.consolidation.validation import review_change, review_proposal
from core.errors import NotFoundError, UsageError
from core.models import Record


class ReviewEditing(PendingReviews):
    """The review-editing half of the service (it supplies ``_request``)."""

    def _request(self, review: Review) -> ConsolidationInput:
        raise NotImplementedError

    def edit_change(self, review: Review, change_id: str, record: Record) -> ReviewChange:
        """Re-validate a put whose record the user edited; the returned row goes to :meth:`commit`."""
        row = review.change(change_id)
        if row.kind != "put":
            raise UsageError(f"change {change_id} is not a record; only proposed records can be edited")
        assert isinstance(row.change, PutRecord)
        edited = row.change.model_copy(update={"record": ProposedRecord.from_record(record)})
        request = self._request(review)
        checked = review_change(change_id, edited, request, {r.name: r for r in request.records})
        state = self._load_state(review.review_id)
        if state is not None and state.phase == "proposed":
            # Saved with the review: closing the window loses no edit.
            edits = {**state.edits, change_id: edited.record}
            self._save_state(state.model_copy(update={"edits": edits, "updated": state_stamp()}))
        return checked

    def revert_edit(self, review: Review, change_id: str) -> ReviewChange:
        """The change as proposed again (the user undid their edit); the saved edit is dropped.

        Commit it without an ``edited`` row for ``change_id``; a restored review that listed the
        edit in ``review.edited`` no longer gets it either, since it is gone from the saved review.
        """
        row = review.change(change_id)
        if row.kind != "put":
            raise UsageError(f"change {change_id} is not a record; only proposed records can be edited")
        request = self._request(review)
        original = next(c for c in review_proposal(review.proposal, request) if c.id == change_id)
        state = self._load_state(review.review_id)
        if state is not None and change_id in state.edits:
            edits = {cid: e for cid, e in state.edits.items() if cid != change_id}
            self._save_state(state.model_copy(update={"edits": edits, "updated": state_stamp()}))
        return original

    def merge_change(self, review: Review, change_id: str) -> ReviewChange:
        """"Merge into existing": a new record flagged as similar becomes an update of that record
        (its text kept, the new paragraphs appended), re-validated like an edit."""
        row = review.change(change_id)
        into = row.similar_to or row.related_to
        if into is None or row.record is None:
            raise UsageError(f"change {change_id} is not similar to an existing record; there is nothing to merge into")
        request = self._request(review)
        target = next((r for r in request.records if r.name == into), None)
        if target is None:
            raise NotFoundError(f"the record {into!r} is not in this workspace any more")
        return self.edit_change(review, change_id, merged_record(target, row.record))

    def rename_change(self, review: Review, change_id: str, name: str) -> ReviewChange:
        """The proposed record under another name (validated like any edit; the diff follows the name)."""
        row = review.change(change_id)
        if row.kind != "put" or row.record is None:
            raise UsageError(f"change {change_id} is not a valid record; only proposed records can be renamed")
        return self.edit_change(review, change_id, row.record.model_copy(update={"name": name.strip()}))

    def resolve_change(self, review: Review, change_id: str, resolution: Resolution) -> ReviewChange:
        """Settle "supersedes/contradicts [[old]]": *replace* puts the whole corrected text under the old
        record's name (an update, links keep working), *merge* appends it to the old record, *keep*
        leaves both records (the change as proposed)."""
        row = review.change(change_id)
        if row.related_to is None or row.record is None:
            raise UsageError(f"change {change_id} does not supersede an existing record")
        if resolution == "keep":
            return row
        request = self._request(review)
        old = next((r for r in request.records if r.name == row.related_to), None)
        if old is None:
            raise NotFoundError(f"the record {row.related_to!r} is not in this workspace any more")
        if resolution == "replace":
            return self.edit_change(review, change_id, replaced_by(old, row.record))
        return self.edit_change(review, change_id, merged_record(old, row.record))
