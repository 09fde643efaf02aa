"""Two small pieces of the Session Consolidation tab: the consolidator choice, and editing a proposed
record before accepting it.

The consolidator is ONE choice: the tab's picker and Settings' "Consolidator" both are
``settings.yml``'s ``consolidator``. Picking in the tab writes it (compare-and-swap on the revision
just read); coming back to the tab reads it again, so a choice made in Settings shows here.
Owned by the Session Consolidation tab, seen through :class:`ChoiceHost` and
:class:`~gui.tabs.consolidation.host.ReviewHost`; slow calls run as its jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QCoreApplication

from core.consolidation.proposals import Review, ReviewChange
from core.models import Record
from core.settings import load_settings, save_settings
from gui.tabs.consolidation.host import ReviewHost
from gui.tabs.consolidation.sessions_panel import MODEL
from gui.widgets.messages import describe_error

if TYPE_CHECKING:
    from gui.context import AppContext
    from gui.tabs.consolidation.sessions_panel import SessionsPanel
    from gui.tasks import Jobs
    from gui.widgets.review_banner import ReviewBanner

translate = QCoreApplication.translate


def _current_consolidator(store: Any) -> str:
    return load_settings(store).settings.consolidator


def _save_consolidator(store: Any, kind: str) -> str:
    loaded = load_settings(store)
    if loaded.problem is not None or loaded.settings.consolidator == kind:
        return loaded.settings.consolidator  # a malformed file is Settings' to replace, not ours
    save_settings(store, loaded.settings.with_changes(consolidator=kind), loaded.revision)
    return kind


class ChoiceHost(Protocol):
    @property
    def ctx(self) -> AppContext: ...
    @property
    def jobs(self) -> Jobs: ...
    @property
    def banner(self) -> ReviewBanner: ...
    @property
    def sessions(self) -> SessionsPanel: ...


class ConsolidatorChoice:
    def __init__(self, tab: ChoiceHost) -> None:
        self.tab = tab

    @property
    def saving(self) -> bool:
        return self.tab.jobs.running("consolidator")

    def show(self, kind: str) -> None:
        self.tab.sessions.consolidator_box.setCurrentIndex(1 if kind == MODEL else 0)

    def chosen(self) -> None:
        """The picker changed: remember it in settings.yml."""
        tab = self.tab
        kind = str(tab.sessions.consolidator_box.currentData())

        def failed(exc: BaseException) -> None:
            tab.banner.show_message(
                "warning",
                translate("ConsolidationTab", "Could not remember the consolidator in settings.yml: {why}").format(
                    why=describe_error(exc)
                ),
            )

        tab.jobs.start("consolidator", _save_consolidator, tab.ctx.store, kind, done=self.show, failed=failed)

    def reload(self) -> None:
        """Show what settings.yml says (a cheap read, off the GUI thread)."""
        if not self.saving:
            self.tab.jobs.start(
                "consolidator", _current_consolidator, self.tab.ctx.store, done=self.show, failed=lambda _exc: None
            )


class EditActions:
    """ "Use edited record" and "Revert to proposal" on the current change."""

    def __init__(self, tab: ReviewHost) -> None:
        self.tab = tab

    def _selected(self) -> tuple[Review, str] | None:
        """The review and the id of the change selected in it, when an edit may start now."""
        tab = self.tab
        row = tab.review_panel.current_change_row()
        if row < 0 or tab.review is None or tab.busy is not None:
            return None
        return tab.review, tab.changes_model.change_row(row).change.id

    def apply(self, record: Record) -> None:
        tab = self.tab
        if (selected := self._selected()) is None:
            return
        review, cid = selected

        def done(change: ReviewChange) -> None:
            r = tab.changes_model.row_of(cid)
            if r >= 0 and tab.review is review:
                tab.changes_model.set_edit(r, change)
                tab.changes_model.set_accepted(r, change.is_actionable)
                tab.review_panel.show_current_change()
                tab.banner.show_message(
                    "info",
                    translate("ConsolidationTab", "Edited {target}; it is accepted as edited.").format(
                        target=change.target
                    ),
                )

        tab.start_job("edit", tab.handler.edit, review, cid, record, done=done, failed=tab.show_error)

    def revert(self) -> None:
        """Back to the proposal: the service drops the saved edit (a restored review keeps none)."""
        tab = self.tab
        if (selected := self._selected()) is None:
            return
        review, cid = selected

        def done(original: ReviewChange) -> None:
            r = tab.changes_model.row_of(cid)
            if r >= 0 and tab.review is review:
                tab.changes_model.revert_row(r, original)
                tab.review_panel.show_current_change()

        tab.start_job("edit", tab.handler.revert, review, cid, done=done, failed=tab.show_error)
