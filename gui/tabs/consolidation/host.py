"""What the Session Consolidation tab's action helpers may use of the tab.

A helper never imports the tab (issue 27: "one concept in two files" that reaches into it): each
declares a Protocol of the members it needs, built on the two here, and the tab satisfies them
structurally. The tab passes itself, plus itself as the parent of the dialogs a helper opens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from core.consolidation.proposals import Review
    from core.consolidation.review_sources import ReviewHandler
    from core.consolidation.review_state import Pipeline
    from gui.context import AppContext
    from gui.qtmodels.consolidation_models import ReviewChangesModel
    from gui.tabs.consolidation.review_panel import ReviewPanel
    from gui.tabs.consolidation.sessions_panel import SessionsPanel
    from gui.widgets.review_banner import ReviewBanner


class JobHost(Protocol):
    """The tab's one-at-a-time pipeline job, and its banner for what came of it."""

    @property
    def ctx(self) -> AppContext: ...
    @property
    def banner(self) -> ReviewBanner: ...
    @property
    def busy(self) -> str | None: ...
    def start_job(
        self,
        kind: str,
        fn: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], None],
        failed: Callable[[BaseException], None],
        cancellable: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> None: ...
    def show_error(self, exc: BaseException) -> None: ...


class ReviewHost(JobHost, Protocol):
    """The review shown, the handler that settles it, and the panel showing it."""

    @property
    def review(self) -> Review | None: ...
    @property
    def handler(self) -> ReviewHandler: ...
    @property
    def review_panel(self) -> ReviewPanel: ...
    @property
    def changes_model(self) -> ReviewChangesModel: ...
    def show_review(self, review: Review | None, handler: ReviewHandler | None = None, reason: str = "") -> None: ...


class RunHost(JobHost, Protocol):
    """A long, cancellable run over sessions or stores: the pipeline, and the sessions panel that
    shows its progress."""

    @property
    def sessions(self) -> SessionsPanel: ...
    @property
    def pipeline(self) -> Pipeline: ...
    def run_job(
        self,
        kind: str,
        fn: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], None],
        failed: Callable[[BaseException], None],
        progress: Callable[[int, int, str], None],
    ) -> None: ...
