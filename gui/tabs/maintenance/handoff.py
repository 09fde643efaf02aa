"""Wiring the Maintenance tab's requests to the other tabs (called by the main window once built).

Edit in the review queue opens the record in the Workspace tab; an imported zip's reviews go to the
Session Consolidation tab's Imports list, settled through the service that opened them (the same
path as File → Import…), and that tab is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from core.import_zip import ZipReviews


def open_in_workspace(workspace_tab: Any, key: str, name: str) -> None:
    from core.search.types import SearchHit

    hit = SearchHit(
        scope_key=key, cwd="", kind="record", name=name, type="", description="", score=0.0, snippet="", highlights=()
    )
    workspace_tab.open_hit(hit)


def _constant(service: Any) -> Callable[[], Any]:
    return lambda: service


def show_imported(consolidation_tab: Any, result: ZipReviews) -> None:
    from core.consolidation.review_sources import PendingItem, ReviewHandler

    tab = consolidation_tab
    tab.choose_source("import")
    actions = tab.pending_actions
    for service, review in result.reviews:
        actions.import_handlers[review.review_id] = ReviewHandler(_constant(service), "import")
        where = (
            QCoreApplication.translate("MaintenanceHandoff", "Global")
            if review.workspace_key == "global"
            else Path(review.cwd).name
        )
        title = f"{result.contents.name} → {where}"
        actions.add_import_item(PendingItem("import", review.review_id, title, review.receipt.created, review))
    if result.reviews:
        tab.select_pending(result.reviews[0][1].review_id)
        text = QCoreApplication.translate(
            "MaintenanceHandoff",
            "%n review(s) from {name}; nothing is written until you commit.",
            "",
            len(result.reviews),
        ).format(name=result.contents.name)
        tab.banner.show_message("info", text, topic="import")


def connect(window: Any, tab: object) -> None:
    """Connect ``tab``'s signals to the window's Workspace and Session Consolidation tabs (a tab that
    could not be built, shown as a placeholder, has none)."""
    from gui.tabs.maintenance.view import MaintenanceTab

    if not isinstance(tab, MaintenanceTab):
        return

    def edit(key: str, name: str) -> None:
        window.show_tab("workspace")
        open_in_workspace(window.tabs["workspace"], key, name)

    def review(result: ZipReviews) -> None:
        window.show_tab("consolidation")
        show_imported(window.tabs["consolidation"], result)

    tab.open_record_requested.connect(edit)
    tab.import_ready.connect(review)
