"""Session consolidation: consolidators propose memory changes, the host validates, the user commits.

Public API (import from ``core.consolidation``)::

    service = ConsolidationService(store, models, settings, sessions=session_catalog)
        # models: core.model_catalog.ModelCatalog (load_model_catalog(dsh_home));
        # settings: core.settings.AppSettings; sessions: core.sessions.SessionCatalog.

    prepared = service.prepare(summary, cancelled=token_is_set)      # PreparedSession
        # stable check, evidence (EvidenceTooLargeError), then Global + workspace read: the CAS bases.
        # UsageError for a live session or one without cwd.
    review = service.propose(prepared, consolidator="offline" | "model" | None,
                             cancelled=lambda: token.cancelled, progress=fn)   # Review
        # review.reused: the review id already had a final receipt -> review.receipt, no changes,
        # the consolidator was NOT run (force=True runs it again as a new review "<id>-r2", "-r3"...,
        # so a finished receipt is never overwritten). Otherwise review.changes: tuple[ReviewChange, ...] with
        # id ("c1"...), kind, target, before/after/diff, problems (refused), warnings,
        # needs_confirmation (Global). Raises ConsolidationError (receipt "failed"), CancelledError.
    row = service.edit_change(review, "c2", edited_record)           # re-validated ReviewChange
    receipt = service.commit(review, ["c1", "c2"], edited={"c2": row}, confirm_global=False)
        # or edited_records={"c2": record}. receipt.status: committed | partially-committed |
        # rejected | no-change | conflict. On "conflict" nothing was written:
    review = service.refresh(review)                                  # same proposal vs disk now
    service.reject(review) -> Receipt;  service.receipts() -> list[Receipt] (newest first)
    service.latest_receipts() -> {session_id: Receipt};  service.latest_receipt_for(session_id)
    service.existing_receipt(review_id) -> Receipt | None
    service.review_id(prepared, kind) -> str

    check_connection(choice, timeout_seconds=10, cancelled=...) -> ConnectionReport   # Settings "test"

Pending reviews (core.consolidation.pending / restore): every "proposed" review is saved privately
(store.files(REVIEW_STATES).write -> .manager/review-state/<id>.json: proposal, evidence, edits)::

    service.pending_reviews() -> list[Review]   # newest first; review.restored True; no consolidator runs
        # recovers interrupted commits and applies the bounds first; unusable saves -> service.problems
    service.restore_review(review_id) -> Review  # NotFoundError / ProposalMismatchError ("proposal_mismatch")
        # review.edited: change ids the user edited (saved by edit_change); review.notes: e.g. memory
        # changed since the proposal (the changes are re-checked against memory as it is now)
    service.delete_review(review_id) -> Receipt  # status "discarded"; UsageError if not pending
    service.prune_pending() -> list[str]         # AppSettings.pending_review_max_age_days / _max_count
    service.recover() -> [(review_id, outcome)]  # once per service; also run by propose/commit/...
    propose() on a session whose review is pending returns the saved review (restored) instead of
    running the consolidator; commit() rebuilds the plan from the saved proposal (hash verified).

Receipts are ``reviews/<review-id>.md`` (no conversation text, no memory bodies); debug logs
``debug/<review-id>/attempt-<n>.jsonl`` only when ``settings.debug_logging``.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.consolidation.base import (
        CancelCheck,
        ConsolidationInput,
        Consolidator,
        DebugSink,
        NullDebugSink,
        ProgressFn,
        never_cancelled,
    )
    from core.consolidation.chat import ChatModelConsolidator, ConnectionReport, check_connection
    from core.consolidation.offline import OfflineConsolidator
    from core.consolidation.proposals import (
        FINAL_STATUSES,
        ChangeKind,
        ChangeSummary,
        DeleteRecord,
        NoChange,
        Proposal,
        ProposedChange,
        ProposedRecord,
        PutRecord,
        Receipt,
        ReceiptStatus,
        ReplaceGlobal,
        Review,
        ReviewChange,
    )
    from core.consolidation.receipts import parse_receipt, render_receipt
    from core.consolidation.service import ConsolidationService, PreparedSession, review_id_for

_HOMES = {  # (imported on first use: the chat consolidator pulls in httpx and asyncio, ~15 MB)
    "CancelCheck": "core.consolidation.base",
    "ChangeKind": "core.consolidation.proposals",
    "ChangeSummary": "core.consolidation.proposals",
    "ChatModelConsolidator": "core.consolidation.chat",
    "ConnectionReport": "core.consolidation.chat",
    "ConsolidationInput": "core.consolidation.base",
    "ConsolidationService": "core.consolidation.service",
    "Consolidator": "core.consolidation.base",
    "DebugSink": "core.consolidation.base",
    "DeleteRecord": "core.consolidation.proposals",
    "FINAL_STATUSES": "core.consolidation.proposals",
    "NoChange": "core.consolidation.proposals",
    "NullDebugSink": "core.consolidation.base",
    "OfflineConsolidator": "core.consolidation.offline",
    "PreparedSession": "core.consolidation.service",
    "ProgressFn": "core.consolidation.base",
    "Proposal": "core.consolidation.proposals",
    "ProposedChange": "core.consolidation.proposals",
    "ProposedRecord": "core.consolidation.proposals",
    "PutRecord": "core.consolidation.proposals",
    "Receipt": "core.consolidation.proposals",
    "ReceiptStatus": "core.consolidation.proposals",
    "ReplaceGlobal": "core.consolidation.proposals",
    "Review": "core.consolidation.proposals",
    "ReviewChange": "core.consolidation.proposals",
    "check_connection": "core.consolidation.chat",
    "never_cancelled": "core.consolidation.base",
    "parse_receipt": "core.consolidation.receipts",
    "render_receipt": "core.consolidation.receipts",
    "review_id_for": "core.consolidation.service",
}


def __getattr__(name: str) -> object:
    """The public names, each imported from its module when first asked for."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(_HOMES[name]), name)


__all__ = [
    "FINAL_STATUSES",
    "CancelCheck",
    "ChangeKind",
    "ChangeSummary",
    "ChatModelConsolidator",
    "ConnectionReport",
    "ConsolidationInput",
    "ConsolidationService",
    "Consolidator",
    "DebugSink",
    "DeleteRecord",
    "NoChange",
    "NullDebugSink",
    "OfflineConsolidator",
    "PreparedSession",
    "ProgressFn",
    "Proposal",
    "ProposedChange",
    "ProposedRecord",
    "PutRecord",
    "Receipt",
    "ReceiptStatus",
    "ReplaceGlobal",
    "Review",
    "ReviewChange",
    "check_connection",
    "never_cancelled",
    "parse_receipt",
    "render_receipt",
    "review_id_for",
]
