"""The consolidation pipeline the GUI and CLI drive: prepare → propose → (review) → commit, with receipts.

No lock is held while a consolidator runs: ``prepare`` reads Global and the workspace (with their
revisions) *before* the model is called, and ``commit`` writes with compare-and-swap against
exactly those revisions. If memory changed in between, the commit writes nothing, the receipt
says ``conflict`` and :meth:`ConsolidationService.refresh` re-checks the same proposal against
the new state for another review.

Reviews survive the window (:mod:`core.consolidation.pending`, :mod:`core.consolidation.restore`):
a proposed review's full proposal is saved privately; reopening shows it without running the
consolidator again, user edits are saved with it, commit rebuilds its plan from the saved proposal
(hash verified) and an interrupted commit is settled before any new consolidation runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from core.consolidation.base import (
    CancelCheck,
    ConsolidationInput,
    Consolidator,
    ProgressFn,
    never_cancelled,
    raise_if_cancelled,
)
from core.consolidation.debuglog import DebugLog
from core.consolidation.editing import ReviewEditing
from core.consolidation.pending import CommitPlan, ReviewState
from core.consolidation.proposals import (
    FINAL_STATUSES,
    ChangeSummary,
    ProposedRecord,
    PutRecord,
    Receipt,
    ReceiptStatus,
    Review,
    ReviewChange,
)
from core.consolidation.receipts import parse_receipt, render_receipt
from core.consolidation.restore import NOT_PENDING, now_iso, state_stamp, summarize
from core.consolidation.validation import review_proposal
from core.errors import (
    CancelledError,
    ConfirmationRequiredError,
    ConflictError,
    ConsolidationError,
    DshMemoryError,
    EvidenceTooLargeError,
    InvalidRecordError,
    NotFoundError,
    ProposalMismatchError,
    RefusedError,
    SecretRefusedError,
    StorageError,
    UsageError,
)
from core.keys import normalize_cwd, workspace_key
from core.model_catalog import ModelCatalog
from core.models import (
    EMPTY_REVISION,
    DeleteOp,
    GlobalSnapshot,
    Op,
    PutOp,
    Record,
    Revision,
    ScopeBatch,
    WorkspaceSnapshot,
)
from core.sessions.models import Evidence, SessionSummary
from core.sessions.parse import ParsedSession
from core.settings import AppSettings
from core.store.api import MemoryStore
from core.store.files import RECEIPTS, REVIEW_STATES

ConsolidatorKind = Literal["offline", "model"]
_NOT_WRITTEN = "nothing was written. Review the changes again against the current memory, then commit."


class SessionSource(Protocol):
    """What the service needs from ``core.sessions.SessionCatalog`` (kept narrow for tests)."""

    def is_stable(self, summary: SessionSummary, quiet_seconds: float = ...) -> tuple[bool, str]: ...

    def load(self, session: str | SessionSummary) -> ParsedSession: ...


def review_id_for(session_id: str, session_revision: str, consolidator: str, model: str) -> str:
    """Stable review id of (session id, session revision token, consolidator, model)."""
    raw = "\x1f".join((session_id, session_revision, consolidator, model))
    return "rv-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:20]


def _now() -> str:
    return now_iso()


@dataclass(frozen=True)
class PreparedSession:
    """The evidence of one stable session and the memory state read before any consolidator runs."""

    evidence: Evidence
    evidence_text: str
    cwd: str
    workspace_key: str
    global_snapshot: GlobalSnapshot
    workspace_snapshot: WorkspaceSnapshot | None  # None: the workspace has no memory yet
    session_file: str = ""  # the session's folder: sessions sharing an id keep their own review state

    @property
    def global_revision(self) -> Revision:
        return self.global_snapshot.revision

    @property
    def workspace_revision(self) -> Revision:
        return self.workspace_snapshot.revision if self.workspace_snapshot is not None else EMPTY_REVISION

    def request(self) -> ConsolidationInput:
        records = tuple(self.workspace_snapshot.records()) if self.workspace_snapshot is not None else ()
        return ConsolidationInput(
            evidence=self.evidence,
            evidence_text=self.evidence_text,
            global_text=self.global_snapshot.text,
            records=records,
            cwd=self.cwd,
            workspace_key=self.workspace_key,
        )

    def __repr__(self) -> str:
        return (
            f"PreparedSession(session={self.evidence.session_id!r}, workspace={self.workspace_key!r}, "
            f"global={self.global_revision}, workspace_rev={self.workspace_revision})"
        )


class ConsolidationService(ReviewEditing):
    """One pipeline per window / CLI run. Thread-safe enough to call from one worker at a time.

    Pending reviews (see :class:`~core.consolidation.restore.PendingReviews`): ``pending_reviews()``,
    ``restore_review(id)``, ``delete_review(id)``, ``prune_pending()``, ``recover()``; ``recovered``
    and ``problems`` report what they found.
    """

    def __init__(
        self,
        store: MemoryStore,
        models: ModelCatalog,
        settings: AppSettings,
        *,
        sessions: SessionSource | None = None,
        consolidators: Mapping[str, Consolidator] | None = None,
    ) -> None:
        self.store = store
        self.models = models
        self.settings = settings
        self.sessions = sessions
        self._consolidators = dict(consolidators or {})
        self._reviews: dict[str, Review] = {}
        self._requests: dict[str, ConsolidationInput] = {}
        self._recovered = False
        self.recovered: list[tuple[str, str]] = []
        self.problems: dict[str, str] = {}

    # --- consolidators -------------------------------------------------------------------
    def consolidator(self, kind: ConsolidatorKind | None = None) -> Consolidator:
        """The offline extractor or the configured chat model (``kind`` defaults to the settings)."""
        kind = kind or self.settings.consolidator
        if kind in self._consolidators:
            return self._consolidators[kind]
        if kind == "offline":
            from core.consolidation.offline import OfflineConsolidator

            return OfflineConsolidator()
        if kind == "model":
            from core.consolidation.chat import ChatModelConsolidator

            choice = self.models.resolve(self.settings)
            return ChatModelConsolidator(
                choice,
                timeout_seconds=self.settings.request_timeout_seconds,
                max_output_tokens=self.settings.max_output_tokens,
                tool_rounds=self.settings.tool_rounds,
                input_budget_bytes=self.settings.model_input_budget_bytes,
            )
        raise UsageError(f"unknown consolidator {kind!r}; use offline or model")

    def review_id(self, prepared: PreparedSession, kind: ConsolidatorKind | None = None) -> str:
        c = self.consolidator(kind)
        return review_id_for(prepared.evidence.session_id, prepared.evidence.session_revision, c.name, c.model)

    # --- prepare -------------------------------------------------------------------------
    def prepare(
        self, session: SessionSummary, *, cancelled: CancelCheck = never_cancelled, check_stable: bool = True
    ) -> PreparedSession:
        """Load a stable session's evidence, then read Global and its workspace (the CAS bases).

        Raises UsageError (live session, no cwd), EvidenceTooLargeError, SessionReadError.
        """
        if self.sessions is None:
            raise UsageError("no sessions root is configured")
        from core.sessions import build_evidence, render_evidence

        if check_stable:
            stable, why = self.sessions.is_stable(session, self.settings.quiet_period_seconds)
            if not stable:
                raise RefusedError(
                    f"Session {session.id} is not stable yet ({why}); try again later.", reason="session-unstable"
                )
        raise_if_cancelled(cancelled)
        parsed = self.sessions.load(session)
        if check_stable and parsed.summary.revision != session.revision:
            raise RefusedError(
                f"Session {session.id} changed since it was listed; refresh the list and try again.",
                reason="session-unstable",
            )
        evidence = build_evidence(parsed, self.settings.evidence_limit_bytes)
        if check_stable:
            # The file may have changed while it was read; the evidence must match a stable revision.
            stable, why = self.sessions.is_stable(session, self.settings.quiet_period_seconds)
            if not stable:
                raise RefusedError(
                    f"Session {session.id} changed while it was read ({why}); try again later.",
                    reason="session-unstable",
                )
        raise_if_cancelled(cancelled)
        prepared = self.prepare_evidence(evidence, render_evidence(evidence))
        return dataclasses.replace(prepared, session_file=str(parsed.summary.folder))

    def prepare_evidence(self, evidence: Evidence, evidence_text: str) -> PreparedSession:
        """Same as :meth:`prepare` for evidence built elsewhere (tests, scripts)."""
        if not evidence.cwd:
            raise RefusedError(
                f"Session {evidence.session_id} has no working directory, so it belongs to no workspace; "
                "only sessions with a cwd can be consolidated.",
                reason="no-cwd",
            )
        if not os.path.isabs(evidence.cwd):
            # Resolving it against this process's cwd would pick an unrelated workspace.
            raise RefusedError(
                f"Session {evidence.session_id} has a relative working directory ({evidence.cwd!r}), so its "
                "workspace is unknown; only sessions with an absolute cwd can be consolidated.",
                reason="relative-cwd",
            )
        if evidence.size_bytes > self.settings.evidence_limit_bytes:
            from core.errors import EvidenceTooLargeError

            raise EvidenceTooLargeError(
                f"The evidence of session {evidence.session_id} is {evidence.size_bytes:,} bytes, over the "
                f"limit of {self.settings.evidence_limit_bytes:,}; raise evidence_limit_bytes in Settings."
            )
        cwd = normalize_cwd(evidence.cwd)
        workspace = self.store.find_workspace(cwd)
        if workspace is None and self._archived(workspace_key(cwd)):
            # Committing would start a second, empty memory for it and block restoring the archived one.
            raise RefusedError(
                f"The memory of workspace {cwd} is in the Recycle Bin (archived). Restore it first, then "
                "consolidate this session; nothing was written.",
                reason="archived-workspace",
            )
        return PreparedSession(
            evidence=evidence,
            evidence_text=evidence_text,
            cwd=cwd,
            workspace_key=workspace_key(cwd),
            global_snapshot=self.store.read_global(),
            workspace_snapshot=workspace,
        )

    def _archived(self, key: str) -> bool:
        try:
            self.store.read_workspace(key, archived=True)
        except NotFoundError:
            return False
        return True

    # --- propose -------------------------------------------------------------------------
    def existing_receipt(self, review_id: str) -> Receipt | None:
        text = self.store.files(RECEIPTS).read(review_id)
        return parse_receipt(text) if text is not None else None

    def propose(
        self,
        prepared: PreparedSession,
        *,
        consolidator: ConsolidatorKind | None = None,
        cancelled: CancelCheck = never_cancelled,
        progress: ProgressFn | None = None,
        force: bool = False,
    ) -> Review:
        """Run the consolidator and validate its proposal into a :class:`Review` (receipt: proposed).

        When the review id already has a final receipt (committed, partially committed, rejected,
        no-change), that receipt comes back in a ``reused`` review and nothing is run; ``force``
        runs again anyway, as a new review ``<review-id>-r2``, ``-r3``... so the final receipt is
        kept. Failures write a ``failed`` receipt and raise ConsolidationError; cancellation raises
        CancelledError. Memory is never written here.
        """
        self.recover()  # an interrupted commit is settled before any new consolidation runs
        c = self.consolidator(consolidator)
        base = review_id_for(prepared.evidence.session_id, prepared.evidence.session_revision, c.name, c.model)
        rid, existing, run = self._latest_run(base)
        if existing is not None and existing.status in FINAL_STATUSES:
            if not force:
                return self._reused(prepared, existing, c.name, c.model)
            rid, existing = f"{base}-r{run + 1}", None  # a receipt of a finished review is never overwritten
        elif not force:
            cached = self._reviews.get(rid)
            if cached is not None and existing is not None and existing.status == "proposed":
                return cached
            if existing is not None and existing.status not in NOT_PENDING:
                # Saved by an earlier window or CLI run: shown again without the consolidator.
                # A saved proposal that fails its hash cannot be trusted; the consolidator runs.
                with contextlib.suppress(NotFoundError, ProposalMismatchError):
                    return self.restore_review(rid)
        attempt = (existing.attempts + 1) if existing is not None else 1
        debug = DebugLog(self.store, rid, attempt, enabled=self.settings.debug_logging)
        debug.event(
            "start",
            consolidator=c.name,
            model=c.model,
            evidence_bytes=prepared.evidence.size_bytes,
            turns=len(prepared.evidence.turns),
            records=len(prepared.request().records),
        )
        if progress is not None:
            progress(0, 0, f"Running the {c.name} consolidator…")
        created = existing.created if existing is not None else _now()
        request = prepared.request()
        try:
            raise_if_cancelled(cancelled)
            proposal = c.propose(request, cancelled=cancelled, debug=debug)
            raise_if_cancelled(cancelled)
        except CancelledError:
            debug.event("cancelled")
            raise
        except DshMemoryError as exc:
            debug.event("failed", error_code=exc.code, error=exc.message)
            self._write(self._base_receipt(prepared, rid, c, "failed", created, attempt, error=exc))
            if isinstance(exc, ConsolidationError | EvidenceTooLargeError):  # already say what to do
                raise
            raise ConsolidationError(f"{exc.message} Nothing was changed.") from exc
        if progress is not None:
            progress(1, 2, "Checking the proposal…")
        changes = review_proposal(proposal, request)
        debug.event(
            "validated",
            changes=len(changes),
            refused=sum(1 for ch in changes if ch.problems),
            problems=[p for ch in changes for p in ch.problems][:10],
        )
        status: ReceiptStatus = "proposed" if any(ch.is_actionable for ch in changes) else "no-change"
        receipt = self._base_receipt(prepared, rid, c, status, created, attempt).model_copy(
            update={
                "proposal_hash": proposal.digest(),
                "changes": tuple(self._change_summary(ch, "pending" if ch.is_actionable else None) for ch in changes),
            }
        )
        receipt = receipt.model_copy(update={"summary": summarize(receipt.changes)})
        self._write(receipt)
        review = Review(
            review_id=rid,
            session_id=prepared.evidence.session_id,
            session_revision=prepared.evidence.session_revision,
            session_title=prepared.evidence.title,
            cwd=prepared.cwd,
            workspace_key=prepared.workspace_key,
            seq_range=prepared.evidence.seq_range,
            consolidator=c.name,
            model=c.model,
            global_revision=prepared.global_revision,
            workspace_revision=prepared.workspace_revision,
            workspace_exists=prepared.workspace_snapshot is not None,
            proposal=proposal,
            proposal_hash=proposal.digest(),
            changes=changes,
            receipt=receipt,
            evidence=request.evidence,
        )
        if status == "proposed":
            review = self._save_new_state(review, request)
        self._reviews[rid] = review
        self._requests[rid] = request
        debug.event("proposed", status=status)
        if progress is not None:
            progress(2, 2, "Proposal ready for review")
        return review

    def _save_new_state(self, review: Review, request: ConsolidationInput) -> Review:
        """Save a new proposal privately so the review survives the window (and apply the bounds)."""
        try:
            self._save_state(self.new_state(review, request))
        except (StorageError, UsageError) as exc:
            note = f"This review could not be saved ({exc.message}); closing the window loses it."
            return review.model_copy(update={"notes": (*review.notes, note)})
        self.prune_pending()
        return review

    def _latest_run(self, base: str) -> tuple[str, Receipt | None, int]:
        """The newest run of review ``base`` (forced re-runs are ``<base>-r2``, ``-r3``...): id, receipt, number."""
        rid, receipt, run = base, self.existing_receipt(base), 1
        while receipt is not None:
            following = self.existing_receipt(f"{base}-r{run + 1}")
            if following is None:
                break
            run += 1
            rid, receipt = f"{base}-r{run}", following
        return rid, receipt, run

    def _reused(self, prepared: PreparedSession, receipt: Receipt, name: str, model: str) -> Review:
        return Review(
            review_id=receipt.review_id,
            session_id=receipt.session_id,
            session_revision=receipt.session_revision,
            session_title=prepared.evidence.title,
            cwd=receipt.cwd,
            workspace_key=receipt.workspace_key,
            seq_range=receipt.seq_range,
            consolidator=name,
            model=model,
            global_revision=receipt.global_revision_before,
            workspace_revision=receipt.workspace_revision_before,
            proposal_hash=receipt.proposal_hash,
            receipt=receipt,
            reused=True,
        )

    def _base_receipt(
        self,
        prepared: PreparedSession,
        rid: str,
        c: Consolidator,
        status: ReceiptStatus,
        created: str,
        attempt: int,
        error: DshMemoryError | None = None,
    ) -> Receipt:
        return Receipt(
            review_id=rid,
            status=status,
            session_id=prepared.evidence.session_id,
            session_revision=prepared.evidence.session_revision,
            session_file=prepared.session_file,
            workspace_key=prepared.workspace_key,
            cwd=prepared.cwd,
            seq_range=prepared.evidence.seq_range,
            consolidator=c.name,
            model=c.model,
            created=created,
            updated=_now(),
            attempts=attempt,
            global_revision_before=prepared.global_revision,
            workspace_revision_before=prepared.workspace_revision,
            error=f"{error.code}: {error.message}" if error is not None else None,
        )

    @staticmethod
    def _change_summary(ch: ReviewChange, decision: str | None) -> ChangeSummary:
        if decision is None:
            decision = "refused" if ch.problems else "unchanged"
        return ChangeSummary(
            id=ch.id,
            kind=ch.kind,
            target=ch.target,
            decision=decision,  # type: ignore[arg-type]  # one of the literal values above
            problems=len(ch.problems),
        )

    def _write(self, receipt: Receipt) -> None:
        self.store.files(RECEIPTS).write(receipt.review_id, render_receipt(receipt))
        if receipt.status != "proposed" and self.settings.debug_logging:
            DebugLog(self.store, receipt.review_id, receipt.attempts, enabled=True).event(
                "receipt",
                status=receipt.status,
                changes=len(receipt.changes),
                global_revision_after=receipt.global_revision_after,
                workspace_revision_after=receipt.workspace_revision_after,
            )

    # --- review helpers ------------------------------------------------------------------
    def _request(self, review: Review) -> ConsolidationInput:
        request = self._requests.get(review.review_id)
        if request is None:
            state = self._load_state(review.review_id)
            if state is None:
                raise UsageError(
                    f"review {review.review_id} is not open any more; run the consolidation again to review it"
                )
            request = self._request_from_state(state)[0]
            self._requests[review.review_id] = request
        return request

    def refresh(self, review: Review) -> Review:
        """The same proposal re-checked against memory as it is now (after a conflict).

        The new revisions become the CAS bases, so the user reviews the diffs against what is
        on disk now; the consolidator is not run again.
        """
        if review.reused:
            return review
        request = self._request(review)
        snap_global = self.store.read_global()
        snap_ws = self.store.find_workspace(review.cwd)
        request = request.model_copy(
            update={
                "global_text": snap_global.text,
                "records": tuple(snap_ws.records()) if snap_ws is not None else (),
            }
        )
        self._requests[review.review_id] = request
        refreshed = review.model_copy(
            update={
                "changes": review_proposal(review.proposal, request),
                "global_revision": snap_global.revision,
                "workspace_revision": snap_ws.revision if snap_ws is not None else EMPTY_REVISION,
                "workspace_exists": snap_ws is not None,
            }
        )
        self._reviews[review.review_id] = refreshed
        return refreshed

    # --- commit --------------------------------------------------------------------------
    def reject(self, review: Review) -> Receipt:
        """The user rejected every change: nothing is written but the receipt (status rejected)."""
        return self.commit(review, ())

    def commit(
        self,
        review: Review,
        accepted: Collection[str],
        *,
        edited: Mapping[str, ReviewChange] | None = None,
        edited_records: Mapping[str, Record] | None = None,
        confirm_global: bool = False,
    ) -> Receipt:
        """Write the accepted changes with CAS against the review's revisions; return the receipt.

        ``edited_records`` maps change ids to records the user edited (re-validated here);
        ``edited`` takes rows from :meth:`edit_change` instead. A Global replacement needs
        ``confirm_global=True`` (ConfirmationRequiredError otherwise). Refused or unknown change
        ids raise UsageError. A conflict writes nothing and returns a receipt with status
        ``conflict``; call :meth:`refresh` and review again.
        """
        if review.reused:
            raise UsageError(f"review {review.review_id} is already {review.receipt.status}; nothing to commit")
        self.recover()
        state = self._load_state(review.review_id)
        planned = review.changes
        if state is not None:
            # The plan is rebuilt from the saved proposal, which must still hash to what was proposed.
            # Saved edits count only where this review object shows them (a restored review); a
            # live review's edits come from the caller, whose view is what the user confirmed.
            self._verify(state, review.proposal_hash or review.receipt.proposal_hash)
            shown = {cid: e for cid, e in state.edits.items() if cid in review.edited}
            planned = self.rows_from_state(state.model_copy(update={"edits": shown}), self._request(review))
        rows: dict[str, ReviewChange] = {ch.id: ch for ch in planned}
        for cid, row in (edited or {}).items():
            rows[cid] = row
        for cid, record in (edited_records or {}).items():
            rows[cid] = self.edit_change(review, cid, record)
        accepted_ids = list(dict.fromkeys(accepted))
        unknown = [cid for cid in accepted_ids if cid not in rows]
        if unknown:
            raise UsageError(f"no such change in review {review.review_id}: {', '.join(unknown)}")
        chosen = [rows[cid] for cid in accepted_ids if rows[cid].kind != "no_change"]
        refused = [ch for ch in chosen if ch.problems]
        if refused:
            raise UsageError(
                "these changes were refused and cannot be accepted: "
                + "; ".join(f"{ch.id}: {ch.problems[0]}" for ch in refused)
                + ". Nothing was written; reject them, or edit the records to fix what is wrong, then commit.",
                reason="refused-change",
            )
        if any(ch.needs_confirmation for ch in chosen) and not confirm_global:
            raise ConfirmationRequiredError(
                "Accepting a change to GLOBAL.md needs an explicit confirmation: it is seen by every workspace."
            )
        chosen = [ch for ch in chosen if ch.before != ch.after]
        edited_ids = set(edited or {}) | set(edited_records or {})
        edited_ids |= {cid for cid in review.edited if state is not None and cid in state.edits}

        def decision(ch: ReviewChange) -> str | None:
            if ch.id in {c.id for c in chosen}:
                return "edited" if ch.id in edited_ids else "accepted"
            if ch.problems or not ch.is_actionable:
                return None
            return "rejected"

        summaries = tuple(self._change_summary(rows[ch.id], decision(rows[ch.id])) for ch in planned)
        # Judged after the user's edits: an edit can make a refused record acceptable.
        actionable = [rows[ch.id] for ch in planned if rows[ch.id].is_actionable]
        base = review.receipt.model_copy(
            update={
                "updated": _now(),
                "changes": summaries,
                "summary": summarize(summaries),
                "global_revision_before": review.global_revision,
                "workspace_revision_before": review.workspace_revision,
                "error": None,
            }
        )
        if not chosen:
            receipt = base.model_copy(update={"status": "rejected" if actionable else "no-change"})
            self._write(receipt)
            self._forget(review.review_id)
            return receipt
        pending_again = self._barrier(state, rows, chosen, confirm_global)
        try:
            global_after, ws_after = self._apply(review, chosen)
        except DshMemoryError as failure:
            if pending_again is not None:
                self._save_state(pending_again)  # nothing was written: the review stays pending
            if not isinstance(failure, ConflictError):
                raise
            exc = failure
            receipt = base.model_copy(
                update={
                    "status": "conflict",
                    "changes": tuple(
                        self._change_summary(rows[ch.id], "pending" if rows[ch.id].is_actionable else None)
                        for ch in planned
                    ),
                    # _apply's own conflicts leave this sentence to here, so every receipt says it once.
                    "error": f"conflict: {exc.message}; {_NOT_WRITTEN}",
                }
            )
            self._write(receipt)
            return receipt
        chosen_ids = {ch.id for ch in chosen}
        everything = all(ch.id in chosen_ids for ch in actionable)
        status: ReceiptStatus = "committed" if everything else "partially-committed"
        receipt = base.model_copy(
            update={
                "status": status,
                "global_revision_after": global_after,
                "workspace_revision_after": ws_after,
            }
        )
        self._write(receipt)
        self._forget(review.review_id)
        return receipt

    def _forget(self, review_id: str) -> None:
        """The review is final: drop it from memory and its saved proposal from disk."""
        self._reviews.pop(review_id, None)
        self._requests.pop(review_id, None)
        self.store.files(REVIEW_STATES).delete(review_id)

    def _barrier(
        self, state: ReviewState | None, rows: Mapping[str, ReviewChange], chosen: list[ReviewChange], confirm: bool
    ) -> ReviewState | None:
        """Mark the commit barrier before writing memory: the plan (change ids and every edited
        record) goes into the saved state, so a crash before the receipt can be settled on the
        next open. Returns the state to put back when the write fails cleanly."""
        if state is None:
            return None
        edits = dict(state.edits)
        for ch in chosen:
            if ch.kind == "put" and ch.record is not None and isinstance(ch.change, PutRecord):
                proposed = ProposedRecord.from_record(ch.record)
                if proposed != ch.change.record or ch.id in edits:
                    edits[ch.id] = proposed
        pending_again = state.model_copy(update={"edits": edits, "phase": "proposed", "plan": None})
        plan = CommitPlan(accepted=tuple(ch.id for ch in chosen), confirm_global=confirm, started=_now())
        self._save_state(
            pending_again.model_copy(update={"phase": "committing", "plan": plan, "updated": state_stamp()})
        )
        return pending_again

    def _apply(self, review: Review, chosen: list[ReviewChange]) -> tuple[Revision, Revision]:
        """Commit ``chosen`` as ONE store transaction (Global and the workspace together, or neither)."""
        ops: list[Op] = []
        for ch in chosen:
            if ch.kind == "put":
                assert ch.record is not None
                ops.append(PutOp(record=ch.record))
            elif ch.kind == "delete":
                ops.append(DeleteOp(name=ch.target.removesuffix(".md")))
        global_rows = [ch for ch in chosen if ch.kind == "replace_global"]
        global_text = (global_rows[0].after or "") if global_rows else None

        # Check both bases before writing anything, so the common conflict writes nothing at all
        # (commit_scopes checks both again under the locks).
        current_global = self.store.read_global()
        if current_global.revision != review.global_revision:
            raise ConflictError("GLOBAL.md changed since the proposal was made", current_global.revision)
        snap = self.store.find_workspace(review.cwd)
        current_ws = snap.revision if snap is not None else EMPTY_REVISION
        if ops and current_ws != review.workspace_revision:
            raise ConflictError("the workspace memory changed since the proposal was made", current_ws)
        if not ops:
            if global_text is None:
                return current_global.revision, current_ws
            g = self._guard(
                lambda: self.store.replace_global(global_text, review.global_revision, origin="automatic").revision
            )
            return g, current_ws
        if snap is None:
            # commit_scopes needs the scope's folder; an empty new scope is no record change.
            snap = self.store.create_workspace(review.cwd)
            if snap.records() or any(not e.is_valid for e in snap.entries):
                raise ConflictError("the workspace memory was created meanwhile", snap.revision)
        expect = snap.revision
        result: list[Revision] = []

        def write() -> Revision:
            done = self.store.commit_scopes(
                [ScopeBatch(review.workspace_key, ops, expect)],
                global_text=global_text,
                global_expect=review.global_revision if global_text is not None else None,
                origin="automatic",
            )
            result.append((done.global_ or self.store.read_global()).revision)
            return done.workspaces[review.workspace_key].revision

        ws_after = self._guard(write)
        return result[0], ws_after

    @staticmethod
    def _guard(write: Callable[[], Revision]) -> Revision:
        try:
            return write()
        except (InvalidRecordError, SecretRefusedError) as exc:
            raise UsageError(f"the store refused the change: {exc.message}") from exc

    # --- receipts ------------------------------------------------------------------------
    def receipts(self) -> list[Receipt]:
        """Every readable receipt, newest first."""
        out = [r for r in (self.existing_receipt(rid) for rid in self.store.files(RECEIPTS).list()) if r is not None]
        return sorted(out, key=lambda r: (r.updated, r.review_id), reverse=True)

    def latest_receipts(self) -> dict[str, Receipt]:
        """Session id -> its newest receipt (any consolidator or revision): one read for a whole table."""
        out: dict[str, Receipt] = {}
        for r in self.receipts():  # newest first: keep the first seen
            out.setdefault(r.session_id, r)
        return out

    def latest_receipt_for(self, session_id: str) -> Receipt | None:
        """The newest receipt of ``session_id`` (any consolidator or revision), for the sessions table."""
        return self.latest_receipts().get(session_id)

    # --- reviews built elsewhere ---------------------------------------------------------
    def adopt(self, review: Review, request: ConsolidationInput) -> Review:
        """Open a review that did not come from :meth:`propose` (a pending agent proposal,
        ``core.consolidation.agent_proposals``) so :meth:`edit_change` and :meth:`commit` work on it exactly
        as on a consolidation. ``request`` is the memory state its rows were checked against."""
        self._reviews[review.review_id] = review
        self._requests[review.review_id] = request
        return review
