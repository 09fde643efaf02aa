"""What the Session Consolidation tab shows and decides, without Qt: the sessions listing and the review.

:class:`Pipeline` keeps the session catalog (and its cache) per sessions root and a
:class:`~core.consolidation.service.ConsolidationService` with the current settings and models; it is
used from one worker at a time. :func:`read_listing` is one refresh (workspaces that have sessions,
the chosen workspace's sessions with their stability and last review, the receipts).
:class:`ChangeRow` is one proposed change with the user's decision; :func:`commit_request` turns the
rows into what the service commits. This module wraps the service and the catalog; it never
changes how they work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from core.consolidation.proposals import Receipt, Review, ReviewChange
from core.errors import DshMemoryError
from core.model_catalog import ModelChoice
from core.models import Record
from core.store.api import MemoryStore
from core.store.files import RECEIPTS

if TYPE_CHECKING:
    from core.consolidation.service import ConsolidationService
    from core.model_catalog import ModelCatalog
    from core.sessions import SessionCatalog
    from core.sessions.models import SessionSummary
    from core.settings import LoadedSettings

ConsolidatorKind = Literal["offline", "model"]
ProgressFn = Callable[[int, int, str], None]


@dataclass(frozen=True)
class WorkspaceChoice:
    """One entry of the workspace picker; ``key is None`` is "Unassigned" (sessions without a cwd)."""

    key: str | None
    cwd: str | None
    title: str
    session_count: int

    @property
    def label(self) -> str:
        plural = "" if self.session_count == 1 else "s"
        return f"{self.title} ({self.session_count} session{plural})"


@dataclass(frozen=True)
class SessionRow:
    """A session as listed: its summary plus whether it can be consolidated now and its last review."""

    summary: SessionSummary
    stable: bool
    state_reason: str
    last_status: str = ""  # status of the newest receipt of this session, "" if never reviewed

    @property
    def id(self) -> str:
        return str(self.summary.id)


@dataclass(frozen=True)
class ReceiptItem:
    review_id: str
    status: str = ""
    title: str = ""  # session title when known
    updated: str = ""  # ISO-8601

    @property
    def label(self) -> str:
        when = self.updated[:16].replace("T", " ")
        head = self.title or self.review_id
        return head + "\n" + " · ".join(p for p in (when, self.status) if p)


@dataclass(frozen=True)
class ChangeRow:
    """A review row: the proposed change, the user's decision, and the re-checked edit if any."""

    change: ReviewChange
    accepted: bool = False
    edited: ReviewChange | None = None  # the same change with the user's record, re-validated

    @property
    def current(self) -> ReviewChange:
        return self.edited if self.edited is not None else self.change

    @property
    def acceptable(self) -> bool:
        return self.current.is_actionable

    @property
    def notes(self) -> tuple[str, ...]:
        """Problems (which block accepting) then warnings, each as a short line."""
        c = self.current
        return tuple(f"✖ {p}" for p in c.problems) + tuple(f"⚠ {w}" for w in c.warnings)


@dataclass(frozen=True)
class CommitRequest:
    """What committing a review with these decisions asks of the service."""

    change_ids: list[str]
    edited: dict[str, ReviewChange]  # the user's edits, already re-checked by the service
    touches_global: bool  # an accepted change needs the user's explicit confirmation (GLOBAL.md)


def commit_request(rows: Sequence[ChangeRow]) -> CommitRequest:
    accepted = [r for r in rows if r.accepted and r.acceptable]
    edited = {r.change.id: r.edited for r in accepted if r.edited is not None}
    return CommitRequest(
        [r.change.id for r in accepted], edited, any(r.current.needs_confirmation for r in accepted)
    )


def has_decisions(rows: Sequence[ChangeRow]) -> bool:
    """True when closing the review would lose the user's decisions or edits."""
    return any(r.accepted or r.edited is not None for r in rows)


@dataclass
class Listing:
    """What a refresh read off the GUI thread."""

    sessions_root: Path
    choices: list[WorkspaceChoice]
    selected_key: str | None
    rows: list[SessionRow]
    receipts: list[ReceiptItem]
    receipt_texts: dict[str, str]
    settings_consolidator: str
    model_label: str
    model_problem: str | None
    settings_problem: str | None
    # What the view words itself (translated): the chosen model, or None when none can run.
    model_choice: ModelChoice | None = None
    catalog_problems: dict[str, str] = field(default_factory=dict)


class Pipeline:
    """The core objects the tab drives. Used only from inside a worker, one job at a time."""

    def __init__(self, store: MemoryStore, sessions_root: Path, dsh_home: Path) -> None:
        self.store = store
        self.sessions_root = sessions_root  # used when settings.yml names no sessions folder
        self.dsh_home = dsh_home
        self.catalog: SessionCatalog | None = None
        self._service: ConsolidationService | None = None

    @property
    def service(self) -> ConsolidationService:
        if self._service is None:
            self.update()
        assert self._service is not None
        return self._service

    def update(self) -> tuple[LoadedSettings, ModelCatalog]:
        """Re-read settings and DSH's model list; keep the session catalog (and its cache) per root."""
        from core.consolidation.service import ConsolidationService
        from core.model_catalog import load_model_catalog
        from core.sessions import SessionCatalog
        from core.settings import load_settings

        loaded = load_settings(self.store)
        settings = loaded.settings
        root = settings.resolved_sessions_root() if settings.sessions_root else Path(self.sessions_root)
        if self.catalog is None or Path(self.catalog.sessions_root) != root:
            self.catalog = SessionCatalog(root, self.dsh_home)
            self._service = None
        models = load_model_catalog(Path(self.dsh_home))
        if self._service is None:
            self._service = ConsolidationService(self.store, models, settings, sessions=self.catalog)
        else:  # keep open reviews; pick up new settings and models
            self._service.settings = settings
            self._service.models = models
        return loaded, models

    # --- the steps the tab runs on a worker ---------------------------------------------------------
    def run(
        self,
        summary: SessionSummary,
        kind: ConsolidatorKind,
        force: bool,
        cancelled: Callable[[], bool],
        progress: ProgressFn,
    ) -> Review:
        self.update()
        progress(0, 0, "Reading the session…")
        prepared = self.service.prepare(summary, cancelled=cancelled)
        return self.service.propose(prepared, consolidator=kind, cancelled=cancelled, progress=progress, force=force)

    def edit(self, review: Review, change_id: str, record: Record) -> ReviewChange:
        return self.service.edit_change(review, change_id, record)

    def commit(self, review: Review, request: CommitRequest, confirm_global: bool) -> Receipt:
        return self.service.commit(review, request.change_ids, edited=request.edited, confirm_global=confirm_global)

    def recheck(self, review: Review) -> Review:
        return self.service.refresh(review)


def read_listing(pipeline: Pipeline, wanted_key: str | None, explicit: bool) -> Listing:
    """One refresh: settings, model label, workspaces, sessions, stability, receipts (on a worker).

    ``wanted_key`` None means "Unassigned" when ``explicit`` (a list was shown and the user chose
    it), else the first workspace.
    """
    from core.consolidation.receipts import parse_receipt

    loaded, models = pipeline.update()
    settings = loaded.settings
    catalog = pipeline.catalog
    assert catalog is not None
    groups = catalog.workspaces()
    choices = [WorkspaceChoice(g.key, g.cwd, g.title, g.session_count) for g in groups]
    keys = [c.key for c in choices]
    if wanted_key not in keys or (wanted_key is None and not explicit):
        wanted_key = keys[0] if keys else None
    chosen = next((c for c in choices if c.key == wanted_key), None)
    if chosen is None:
        summaries = []
    elif chosen.cwd is None:
        summaries = [s for s in catalog.list() if s.workspace_key is None]
    else:
        summaries = catalog.list(cwd=chosen.cwd)

    store = pipeline.store
    texts: dict[str, str] = {}
    receipts: list[Receipt] = []
    for rid in store.files(RECEIPTS).list():
        text = store.files(RECEIPTS).read(rid)
        if text is None:
            continue
        texts[rid] = text
        parsed = parse_receipt(text)
        if parsed is not None:
            receipts.append(parsed)
    receipts.sort(key=lambda r: (r.updated, r.review_id), reverse=True)
    last: dict[str, str] = {}
    by_file: dict[str, str] = {}  # a session file's latest status (sessions sharing an id stay apart)
    for r in receipts:
        if r.session_file:
            by_file.setdefault(r.session_file, r.status)
        else:
            last.setdefault(r.session_id, r.status)
    titles = {s.id: s.title for s in catalog.list()}
    items = [ReceiptItem(r.review_id, r.status, titles.get(r.session_id, ""), r.updated) for r in receipts]
    known = {r.review_id for r in receipts}
    items += [ReceiptItem(rid, "unreadable") for rid in texts if rid not in known]

    rows = []
    for s in summaries:
        stable, why = catalog.is_stable(s, settings.quiet_period_seconds)
        rows.append(SessionRow(s, stable, why, by_file.get(str(s.folder)) or last.get(s.id, "")))

    model_problem: str | None = None
    choice: ModelChoice | None = None
    try:
        choice = models.resolve(settings)
        model_label = f"Model: {choice.label}"
    except (DshMemoryError, ValueError) as exc:  # a model that cannot run is shown, not fatal
        model_problem = exc.message if isinstance(exc, DshMemoryError) else str(exc)
        model_label = "Model (not configured)"
    return Listing(
        sessions_root=Path(catalog.sessions_root),
        choices=choices,
        selected_key=wanted_key,
        rows=rows,
        receipts=items,
        receipt_texts=texts,
        settings_consolidator=settings.consolidator,
        model_label=model_label,
        model_choice=choice,
        model_problem=model_problem,
        settings_problem=loaded.problem,
        catalog_problems=dict(catalog.problems),
    )


def strip_frontmatter(text: str) -> str:
    """The Markdown body of a receipt (its YAML header is for programs)."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end >= 0:
            return text[end + 5 :].lstrip("\n")
    return text
