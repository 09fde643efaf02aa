"""Import… in the Session Consolidation tab: read another memory store on this machine and review
what it would add, in the same review panel, under the "Imports" source.

Discovery and preparing the reviews run as jobs (they read other stores' files); the user picks
the store through the dialogs seam. Each import target (one per workspace, one for Global) gets
its own review, settled through the service ``ImportService.open_review`` returned. Nothing is
written to the foreign store, ever; our memory changes only when the user commits a review.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

from core.consolidation.proposals import Review
from core.consolidation.review_sources import PendingItem, ReviewHandler
from core.errors import DshMemoryError
from gui.tabs.consolidation.host import RunHost
from gui.widgets.messages import describe_error

if TYPE_CHECKING:
    from core.consolidation.review_sources import ReviewSource
    from core.consolidation.service import ConsolidationService
    from core.sources.discovery import Discovery
    from core.store.api import MemoryStore


translate = QCoreApplication.translate


@dataclass
class ImportedReviews:
    """What one import prepared: a review per target, what was skipped and why, targets refused."""

    label: str
    reviews: list[tuple[ConsolidationService, Review]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def discover_sources(store: MemoryStore, dsh_home: Path, memory_root: Path, sessions_root: Path) -> Discovery:
    from core.sources.discovery import SourcePaths, discover

    home = SourcePaths.from_env().home
    paths = SourcePaths(dsh_home=dsh_home, home=home, memory_root=memory_root, sessions_root=sessions_root)
    return discover(paths, store)


def importable(discovery: Discovery) -> dict[str, str]:
    """Option label -> source kind, for the stores with live entries (never our own Markdown store)."""
    counts: dict[str, int] = {}
    labels: dict[str, str] = {}
    for snap in discovery.sources:
        if snap.kind == "markdown":
            continue
        live = sum(1 for e in snap.entries if e.is_live)
        if live:
            counts[snap.kind] = counts.get(snap.kind, 0) + live
            labels[snap.kind] = snap.label
    return {f"{labels[k]} ({n} entries)": k for k, n in counts.items()}


def prepare_import(store: MemoryStore, discovery: Discovery, kind: str) -> ImportedReviews:
    """On the worker: plan, prepare and open one review per target."""
    from core.settings import load_settings
    from core.sources.import_plan import plan_import
    from core.sources.importer import ImportService
    from core.sources.models import SOURCE_LABELS

    settings = load_settings(store).settings
    service = ImportService(store, settings)
    plan = plan_import(kind, discovery.sources)  # type: ignore[arg-type]  # a kind discovery reported
    out = ImportedReviews(SOURCE_LABELS.get(kind, kind))
    out.skipped += [f"{s.entry.title or s.entry.id}: {s.reason}" for s in plan.skipped]
    for target in plan.targets:
        try:
            prepared = service.prepare(target)
            consolidation, review = service.open_review(prepared)
        except DshMemoryError as exc:  # archived workspace: restore first; the rest go on
            out.refused.append(exc.message)
            continue
        out.skipped += [f"{s.entry.title or s.entry.id}: {s.reason}" for s in prepared.skipped]
        if not review.reused:
            out.reviews.append((consolidation, review))
    return out


def _constant(service: ConsolidationService) -> Callable[[], ConsolidationService]:
    return lambda: service


class ImportShelf(Protocol):
    """Where prepared imports wait (the tab's pending actions): their rows and their own services."""

    @property
    def import_handlers(self) -> dict[str, ReviewHandler]: ...
    def add_import_item(self, item: PendingItem) -> None: ...


class ImportHost(RunHost, Protocol):
    @property
    def pending_actions(self) -> ImportShelf: ...
    def choose_source(self, source: ReviewSource) -> None: ...
    def select_pending(self, review_id: str) -> bool: ...


class ImportActions:
    def __init__(self, tab: ImportHost, parent: QWidget) -> None:
        self.tab = tab
        self._window = parent  # dialogs open over it

    def start(self) -> None:
        tab = self.tab
        tab.choose_source("import")
        if tab.busy is not None:
            return
        ctx = tab.ctx
        tab.sessions.set_running(translate("ImportActions", "Looking for other memory stores…"))
        tab.run_job(
            "import",
            lambda *args, control: discover_sources(*args),
            ctx.store,
            Path(ctx.dsh_home),
            Path(ctx.root),
            Path(tab.pipeline.sessions_root),
            done=self._discovered,
            failed=self._failed,
            progress=tab.sessions.show_progress,
        )

    def _discovered(self, discovery: Discovery) -> None:
        tab = self.tab
        tab.sessions.set_idle("")
        options = importable(discovery)
        if not options:
            tab.ctx.dialogs.info(
                self._window,
                translate("ImportActions", "Import"),
                translate("ImportActions", "No other memory store with entries was found on this machine."),
            )
            return
        choice = tab.ctx.dialogs.choose(
            self._window,
            translate("ImportActions", "Import memory"),
            translate(
                "ImportActions",
                "Which store should be imported? You review every change before anything is written; "
                "the other store is only read.",
            ),
            list(options),
        )
        if choice is None:
            return
        tab.sessions.set_running(translate("ImportActions", "Preparing the import from {store}…").format(store=choice))
        tab.run_job(
            "import",
            lambda *args, control: prepare_import(*args),
            tab.ctx.store,
            discovery,
            options[choice],
            done=self._prepared,
            failed=self._failed,
            progress=tab.sessions.show_progress,
        )

    def _prepared(self, result: ImportedReviews) -> None:
        tab = self.tab
        tab.sessions.set_idle("")
        actions = tab.pending_actions
        for service, review in result.reviews:
            handler = ReviewHandler(_constant(service), "import")
            actions.import_handlers[review.review_id] = handler
            where = translate("ImportActions", "Global") if review.workspace_key == "global" else Path(review.cwd).name
            title = f"{review.session_title or result.label} → {where}"
            item = PendingItem("import", review.review_id, title, review.receipt.created, review)
            actions.add_import_item(item)
        lines = [
            (
                translate("ImportActions", "1 review from {store}; nothing is written until you commit.")
                if len(result.reviews) == 1
                else translate(
                    "ImportActions",
                    "%n reviews from {store}; nothing is written until you commit.",
                    "",
                    len(result.reviews),
                )
            ).format(store=result.label)
        ]
        if result.skipped:
            lines.append(
                translate("ImportActions", "Skipped %n: {which}", "", len(result.skipped)).format(
                    which="; ".join(result.skipped[:3])
                )
            )
        lines += result.refused
        tab.banner.show_message("warning" if result.refused else "info", "\n".join(lines), topic="import")
        if result.reviews:
            tab.select_pending(result.reviews[0][1].review_id)
            tab.banner.show_message("warning" if result.refused else "info", "\n".join(lines), topic="import")

    def _failed(self, exc: BaseException) -> None:
        self.tab.sessions.set_idle("")
        self.tab.banner.show_message(
            "error",
            translate("ImportActions", "Import failed: {why}. Nothing was written.").format(why=describe_error(exc)),
        )
