"""The ``Consolidator`` seam: what every consolidator is given and must return."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from core.consolidation.proposals import Proposal
from core.errors import CancelledError
from core.models import Record
from core.sessions.models import Evidence

CancelCheck = Callable[[], bool]
"""Returns True once the user asked to cancel (e.g. ``lambda: token.cancelled``)."""

ProgressFn = Callable[[int, int, str], None]
"""``progress(done, total, message)``; total 0 means indeterminate (same shape as gui.tasks)."""


def never_cancelled() -> bool:
    return False


def raise_if_cancelled(cancelled: CancelCheck) -> None:
    if cancelled():
        raise CancelledError("Consolidation cancelled. Nothing was written.")


class ConsolidationInput(BaseModel):
    """Everything a consolidator may see: the turn evidence and the two scopes it may change."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence: Evidence
    evidence_text: str  # the rendered evidence (what a model is shown)
    global_text: str
    records: tuple[Record, ...]  # valid records of the source session's workspace
    cwd: str
    workspace_key: str

    def __repr__(self) -> str:
        return (
            f"ConsolidationInput(session={self.evidence.session_id!r}, turns={len(self.evidence.turns)}, "
            f"records={len(self.records)})"
        )


class DebugSink(Protocol):
    """Where a consolidator reports operational facts (sizes, timings, status codes, errors).

    Implementations drop everything unless debug logging is on; callers must never pass evidence,
    memory bodies, model output or credentials.
    """

    def event(self, stage: str, **fields: Any) -> None: ...


class NullDebugSink:
    def event(self, stage: str, **fields: Any) -> None:
        return None


class Consolidator(Protocol):
    """Turns one session's evidence into a :class:`Proposal`. Must not write anything.

    ``name`` is ``"offline"`` or ``"model"``; ``model`` identifies the model/endpoint (empty for
    the offline extractor). Both go into the review id. Raises ConsolidationError on failure and
    CancelledError when ``cancelled()`` turns True.
    """

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    def propose(
        self,
        request: ConsolidationInput,
        *,
        cancelled: CancelCheck = never_cancelled,
        debug: DebugSink | None = None,
    ) -> Proposal: ...
