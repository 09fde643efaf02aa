"""Pending reviews that survive the window: each review's full proposal, kept privately.

A review left at "proposed" must come back after the app (or the CLI) is closed and reopened
*without asking the model again*. The receipt (``reviews/<id>.md``) stays body-free, so the
proposal itself, the evidence it was checked against and the user's edits live in the store's
private review state (``.manager/review-state/<id>.json``, see ``core.store.files.REVIEW_STATES``).

The state also marks the commit barrier: ``phase: committing`` with the plan is written just
before the memory write, and removed after the receipt is final. Finding one on the next open
means the process died between plan and receipt; :mod:`core.consolidation.service` recovers it
before anything else runs.

Bounds (``AppSettings.pending_review_max_age_days`` / ``pending_review_max_count``): a pending
review older than the age limit, or beyond the newest ``max_count``, is discarded (its state
removed, its receipt marked ``discarded``), so forgotten reviews do not pile up bodies on disk.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from core.consolidation.proposals import Proposal, ProposedRecord
from core.models import Revision
from core.sessions.models import Evidence

STATE_FORMAT = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CommitPlan(_Frozen):
    """What a commit was about to write when it passed the barrier (change ids, not bodies)."""

    accepted: tuple[str, ...]
    confirm_global: bool = False
    started: str  # ISO-8601


class ReviewState(_Frozen):
    """Everything needed to show and commit a review again without its consolidator."""

    format: Literal[1] = 1
    review_id: str
    phase: Literal["proposed", "committing"] = "proposed"
    created: str  # ISO-8601, when the proposal was made
    updated: str  # ISO-8601, last edit or phase change
    session_id: str
    session_revision: str
    session_title: str = ""
    cwd: str
    workspace_key: str
    seq_range: tuple[int, int]
    consolidator: str
    model: str = ""
    global_revision: Revision  # the CAS bases the proposal was checked against
    workspace_revision: Revision
    workspace_exists: bool = True
    proposal: Proposal
    proposal_hash: str
    evidence: Evidence
    edits: dict[str, ProposedRecord] = {}  # change id -> the record as the user edited it
    plan: CommitPlan | None = None

    def __repr__(self) -> str:
        return f"ReviewState(review_id={self.review_id!r}, phase={self.phase!r}, edits={len(self.edits)})"


def dump_state(state: ReviewState) -> str:
    return json.dumps(state.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def load_state(text: str, review_id: str) -> ReviewState | None:
    """The state in ``text`` when it is one this app wrote for ``review_id``; None otherwise (never raises)."""
    try:
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("seq_range"), list):
            data["seq_range"] = tuple(data["seq_range"])
        state = ReviewState.model_validate(data)
    except (ValueError, ValidationError, TypeError):
        return None
    return state if state.review_id == review_id else None


def age_days(stamp: str, now: datetime | None = None) -> float:
    """Days since an ISO-8601 stamp (an unreadable one counts as infinitely old)."""
    try:
        then = datetime.fromisoformat(stamp)
    except ValueError:
        return float("inf")
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    return ((now or datetime.now(UTC)) - then).total_seconds() / 86400
