"""Import foreign entries through review, exactly like a consolidation (consolidator ``import:KIND``).

An import is planned into one target per workspace plus one for Global. Each target becomes the
same objects a consolidation produces: synthetic evidence (one "turn" per foreign entry, so every
change cites the entry it came from), a :class:`~core.consolidation.proposals.Proposal` of
``put`` / ``replace_global`` / ``no_change`` changes, validated by
:func:`core.consolidation.validation.review_proposal` and committed by
:class:`core.consolidation.service.ConsolidationService` with CAS and a receipt.

Rules (issue 12), and the decisions where it was silent:

- Only live entries: workspace-memory ``active`` and ``conflict`` (with a warning naming the other
  side); never ``superseded``, ``deleted`` or an unknown status. Cross-workspace ``activity`` items
  are progress notes and are skipped. Archived scopes are never imported (restore them first).
- Type mapping: ``preference`` → ``feedback``; ``decision``, ``architecture``, ``rule``, ``fix``,
  ``fact``, ``project``, ``todo`` (with a warning) and project-memory ``core``/``regular`` →
  ``project``; any of these whose text is only a URL (with at most a few words) → ``reference``.
  Claude Code ``feedback``/``project``/``reference`` keep their type.
- Facts about the user in general (Claude Code ``user``, the workspace-memory global scope,
  cross-workspace items with no project) become one ``replace_global`` that appends them to
  ``GLOBAL.md`` under ``## Imported from <store>``. The user kept them in their own memory, so
  they count as the user's own words for validation; they still need explicit confirmation.
  Facts that look like credentials are left out of that text (listed as skipped).
- Names: kebab-case from the title (Chinese through pinyin), unique within the workspace.
- Every imported body ends with a provenance line naming the store and entry id. An entry whose
  text is already in a record, or whose provenance line is already in one with the same text,
  becomes ``no_change``; one whose earlier import changed in the foreign store updates that
  record (``put`` over the same name, shown as a diff).
- The review id is stable for (target, entries' content): re-running an import shows its
  receipt; a dry run writes nothing anywhere (not even a ``proposed`` receipt).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, cast

from core.consolidation.base import CancelCheck, ConsolidationInput, DebugSink, never_cancelled
from core.consolidation.proposals import (
    FINAL_STATUSES,
    ChangeSummary,
    Proposal,
    Receipt,
    ReceiptStatus,
    Review,
    ReviewChange,
)
from core.consolidation.restore import summarize
from core.consolidation.service import ConsolidationService, PreparedSession
from core.consolidation.validation import review_proposal
from core.keys import normalize_cwd, workspace_key
from core.model_catalog import ModelCatalog
from core.models import WorkspaceSnapshot
from core.sessions.models import Evidence, EvidenceMessage, EvidenceTurn
from core.settings import AppSettings
from core.sources.import_plan import GLOBAL_TARGET, ImportPlan, ImportTarget, Skipped, consolidator_name, plan_import
from core.sources.import_rules import global_proposal, record_type, workspace_proposal
from core.sources.models import SOURCE_LABELS, SourceKind
from core.store.api import MemoryStore
from core.store.files import RECEIPTS

__all__ = [
    "GLOBAL_CWD",
    "GLOBAL_TARGET",
    "ImportConsolidator",
    "ImportOutcome",
    "ImportPlan",
    "ImportService",
    "ImportTarget",
    "PreparedImport",
    "Skipped",
    "annotate",
    "consolidator_name",
    "plan_import",
    "record_type",
]


GLOBAL_CWD = "(Global)"
"""The ``cwd`` of a Global review: not a path, so validation's "mentions this workspace" check never
matches a real folder name of the user's."""


class ImportConsolidator:
    """The ``Consolidator`` of an import: it "proposes" what was built from the foreign entries."""

    def __init__(self, kind: SourceKind, proposals: Mapping[str, Proposal] | None = None) -> None:
        self._kind = kind
        self.proposals: dict[str, Proposal] = dict(proposals or {})

    @property
    def name(self) -> str:
        return consolidator_name(self._kind)

    @property
    def model(self) -> str:
        return ""

    def propose(
        self,
        request: ConsolidationInput,
        *,
        cancelled: CancelCheck = never_cancelled,
        debug: DebugSink | None = None,
    ) -> Proposal:
        return self.proposals[request.evidence.session_id]


@dataclass(frozen=True)
class PreparedImport:
    """One target made ready for review: the consolidation inputs plus import-specific warnings."""

    target: ImportTarget
    prepared: PreparedSession
    proposal: Proposal
    warnings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # change id -> extra warnings
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True)
class ImportOutcome:
    """What one target came to: its review (``reused`` when a receipt already settled it) and receipt."""

    review: Review
    receipt: Receipt
    applied: bool = False
    note: str = ""


def _evidence(target: ImportTarget) -> tuple[Evidence, str]:
    role: Literal["user", "assistant"] = "user" if target.is_global else "assistant"
    turns: list[EvidenceTurn] = []
    lines: list[str] = []
    for seq, e in enumerate(target.entries, start=1):
        text = f"[{SOURCE_LABELS[e.source]} {e.id} ({e.scope}); {e.kind}; {e.status}] {e.title}\n{e.text}"
        turns.append(EvidenceTurn(index=seq, messages=(EvidenceMessage(seq=seq, role=role, text=text),)))
        lines.append(f"## seq {seq}\n{text}\n")
    rendered = "\n".join(lines)
    evidence = Evidence(
        session_id=target.session_id,
        session_revision=target.revision,
        cwd=target.cwd,
        title=f"Import from {SOURCE_LABELS[target.kind]}",
        turns=tuple(turns),
        size_bytes=len(rendered.encode("utf-8")),
    )
    return evidence, rendered


def annotate(review: Review, warnings: Mapping[str, tuple[str, ...]]) -> Review:
    """Add the import's own warnings (conflicts, to-dos...) to the validated rows of ``review``."""
    if not warnings or not review.changes:
        return review
    rows = tuple(
        ch.model_copy(update={"warnings": (*ch.warnings, *warnings.get(ch.id, ()))}) if ch.id in warnings else ch
        for ch in review.changes
    )
    return review.model_copy(update={"changes": rows})


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ImportService:
    """Dry-run and apply imports on top of :class:`ConsolidationService` (same validation, CAS, receipts)."""

    def __init__(self, store: MemoryStore, settings: AppSettings | None = None) -> None:
        self.store = store
        self.settings = settings or AppSettings()

    def consolidation(self, prepared: Sequence[PreparedImport]) -> ConsolidationService:
        """A consolidation service whose ``import:KIND`` consolidator proposes what ``prepared`` holds.

        The GUI reviews an import with it exactly like a consolidation: ``propose`` (then
        :func:`annotate`), ``edit_change``, ``refresh``, ``commit``.
        """
        consolidators: dict[str, ImportConsolidator] = {}
        for p in prepared:
            c = consolidators.setdefault(consolidator_name(p.target.kind), ImportConsolidator(p.target.kind))
            c.proposals[p.target.session_id] = p.proposal
        return ConsolidationService(self.store, ModelCatalog(()), self.settings, consolidators=consolidators)

    def open_review(self, prepared: PreparedImport) -> tuple[ConsolidationService, Review]:
        """Propose ``prepared`` through the consolidation service (writes its ``proposed`` receipt).

        Returns the service to continue the review with (``edit_change``, ``refresh``, ``commit``)
        and the annotated review; a review settled earlier comes back ``reused``.
        """
        service = self.consolidation([prepared])
        name = cast(Any, consolidator_name(prepared.target.kind))  # the service takes any registered name
        return service, annotate(service.propose(prepared.prepared, consolidator=name), prepared.warnings)

    def prepare(self, target: ImportTarget) -> PreparedImport:
        """Read Global and the target workspace now (the CAS bases) and build the proposal. Writes nothing."""
        evidence, rendered = _evidence(target)
        global_snapshot = self.store.read_global()
        if target.is_global:
            prepared = PreparedSession(
                evidence=evidence,
                evidence_text=rendered,
                cwd=GLOBAL_CWD,
                workspace_key=GLOBAL_TARGET,
                global_snapshot=global_snapshot,
                workspace_snapshot=None,
            )
            proposal, skipped = global_proposal(target, global_snapshot.text)
            return PreparedImport(target, prepared, proposal, {}, tuple(skipped))
        assert target.cwd is not None
        cwd = normalize_cwd(target.cwd)
        if self.archived_in_store(target):
            from core.errors import UsageError

            # Committing would start a second, empty memory and block restoring the archived one.
            raise UsageError(
                f"The memory of workspace {cwd} is in the Recycle Bin (archived). Restore it first, then import "
                "into it; nothing was written."
            )
        snapshot = self._workspace(cwd)
        prepared = PreparedSession(
            evidence=evidence,
            evidence_text=rendered,
            cwd=cwd,
            workspace_key=workspace_key(cwd),
            global_snapshot=global_snapshot,
            workspace_snapshot=snapshot,
        )
        proposal, warnings = workspace_proposal(target, snapshot.records() if snapshot is not None else [])
        return PreparedImport(target, prepared, proposal, warnings)

    def _workspace(self, cwd: str) -> WorkspaceSnapshot | None:
        # Listed first: reading a scope that does not exist would still leave a lock file behind.
        key = workspace_key(cwd)
        if key not in {i.key for i in self.store.list_workspaces()}:
            return None
        return self.store.read_workspace(key)

    def archived_in_store(self, target: ImportTarget) -> bool:
        if target.cwd is None:
            return False
        key = workspace_key(target.cwd)
        active = {i.key for i in self.store.list_workspaces()}
        return key not in active and key in {i.key for i in self.store.list_workspaces(archived=True)}

    # --- dry run ---------------------------------------------------------------------------
    def review(self, prepared: PreparedImport) -> Review:
        """The review a consolidation would show, computed without writing anything (not even a receipt).

        A target whose review already has a final receipt comes back ``reused`` with that receipt.
        """
        existing = self._final_receipt(prepared.target.review_id)
        if existing is not None:
            return self._reused(prepared, existing)
        request = prepared.prepared.request()
        changes = review_proposal(prepared.proposal, request)
        status: ReceiptStatus = "proposed" if any(ch.is_actionable for ch in changes) else "no-change"
        summaries = tuple(_summary_row(ch) for ch in changes)
        receipt = self._receipt(prepared, status).model_copy(
            update={"proposal_hash": prepared.proposal.digest(), "changes": summaries, "summary": summarize(summaries)}
        )
        review = Review(
            review_id=prepared.target.review_id,
            session_id=prepared.target.session_id,
            session_revision=prepared.target.revision,
            session_title=prepared.prepared.evidence.title,
            cwd=prepared.prepared.cwd,
            workspace_key=prepared.prepared.workspace_key,
            seq_range=prepared.prepared.evidence.seq_range,
            consolidator=consolidator_name(prepared.target.kind),
            global_revision=prepared.prepared.global_revision,
            workspace_revision=prepared.prepared.workspace_revision,
            workspace_exists=prepared.prepared.workspace_snapshot is not None or prepared.target.is_global,
            proposal=prepared.proposal,
            proposal_hash=prepared.proposal.digest(),
            changes=changes,
            receipt=receipt,
        )
        return annotate(review, prepared.warnings)

    # --- apply -----------------------------------------------------------------------------
    def apply(self, prepared: PreparedImport, *, accept_global: bool = False) -> ImportOutcome:
        """Propose through the consolidation service and commit every valid change (Global only when accepted).

        A Global review that is not accepted is left unwritten (shown as a dry run) so that
        running again with ``accept_global`` can still commit it.
        """
        if prepared.target.is_global and not accept_global:
            review = self.review(prepared)
            return ImportOutcome(
                review, review.receipt, note="GLOBAL.md changes need explicit confirmation (--accept-global)"
            )
        service, review = self.open_review(prepared)
        if review.reused:
            return ImportOutcome(review, review.receipt)
        chosen = [ch.id for ch in review.actionable if accept_global or not ch.needs_confirmation]
        receipt = service.commit(review, chosen, confirm_global=accept_global)
        return ImportOutcome(review, receipt, applied=receipt.status in ("committed", "partially-committed"))

    # --- receipts --------------------------------------------------------------------------
    def _final_receipt(self, review_id: str) -> Receipt | None:
        from core.consolidation.receipts import parse_receipt

        text = self.store.files(RECEIPTS).read(review_id)
        receipt = parse_receipt(text) if text is not None else None
        return receipt if receipt is not None and receipt.status in FINAL_STATUSES else None

    def _receipt(self, prepared: PreparedImport, status: ReceiptStatus) -> Receipt:
        now = _now()
        return Receipt(
            review_id=prepared.target.review_id,
            status=status,
            session_id=prepared.target.session_id,
            session_revision=prepared.target.revision,
            workspace_key=prepared.prepared.workspace_key,
            cwd=prepared.prepared.cwd,
            seq_range=prepared.prepared.evidence.seq_range,
            consolidator=consolidator_name(prepared.target.kind),
            created=now,
            updated=now,
            global_revision_before=prepared.prepared.global_revision,
            workspace_revision_before=prepared.prepared.workspace_revision,
        )

    def _reused(self, prepared: PreparedImport, receipt: Receipt) -> Review:
        return Review(
            review_id=receipt.review_id,
            session_id=receipt.session_id,
            session_revision=receipt.session_revision,
            session_title=prepared.prepared.evidence.title,
            cwd=receipt.cwd,
            workspace_key=receipt.workspace_key,
            seq_range=receipt.seq_range,
            consolidator=receipt.consolidator,
            global_revision=receipt.global_revision_before,
            workspace_revision=receipt.workspace_revision_before,
            proposal_hash=receipt.proposal_hash,
            receipt=receipt,
            reused=True,
        )


def _summary_row(ch: ReviewChange) -> ChangeSummary:
    decision: Literal["pending", "refused", "unchanged"] = (
        "pending" if ch.is_actionable else ("refused" if ch.problems else "unchanged")
    )
    return ChangeSummary(id=ch.id, kind=ch.kind, target=ch.target, decision=decision, problems=len(ch.problems))
