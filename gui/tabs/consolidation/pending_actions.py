"""The Session Consolidation tab's pending-review actions: the source filter, opening what waits
(saved reviews, agent proposals, imports), deleting it, and "Merge into existing".

Owned by the Session Consolidation tab, seen through :class:`PendingHost` (kept apart so neither
module grows past one screenful of concepts); every slow call runs through the tab's one pipeline job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

from core.consolidation.agent_proposals import AgentProposals
from core.consolidation.proposals import Receipt, Review, ReviewChange
from core.consolidation.review_sources import (
    AgentHandler,
    PendingItem,
    PendingListing,
    ReviewHandler,
    ReviewSource,
    review_source,
)
from gui.tabs.consolidation.host import ReviewHost

if TYPE_CHECKING:
    from gui.tabs.consolidation.pending_panel import PendingPanel, SourceFilter
    from gui.tabs.consolidation.sessions_panel import SessionsPanel

translate = QCoreApplication.translate


def _open_agent(proposals: AgentProposals, proposal_id: str) -> Review:
    return proposals.open(proposal_id)


class PendingHost(ReviewHost, Protocol):
    @property
    def pending(self) -> PendingPanel: ...
    @property
    def source_filter(self) -> SourceFilter: ...
    @property
    def sessions(self) -> SessionsPanel: ...
    @property
    def session_handler(self) -> ReviewHandler: ...
    @property
    def proposals(self) -> AgentProposals | None: ...
    def commit_done(self, receipt: Receipt) -> None: ...
    def commit_failed(self, exc: BaseException) -> None: ...
    def start_import(self) -> None: ...


class PendingActions:
    def __init__(self, tab: PendingHost, parent: QWidget) -> None:
        self.tab = tab
        self._window = parent  # dialogs open over it
        self._pending_listing: PendingListing | None = None
        self.import_handlers: dict[str, ReviewHandler] = {}  # review id -> the import's own service
        self._import_items: list[PendingItem] = []

    # --- the pending list ------------------------------------------------------------------------
    def show_pending(self, listing: PendingListing) -> None:
        self._pending_listing = listing
        # Imports opened in this window come with their own service: their rows win over the listing's.
        extra = self._extra_items()
        ids = {i.review_id for i in extra}
        self.tab.pending.set_items([i for i in listing.items if i.review_id not in ids] + extra)
        if self.tab.review is not None:
            self.tab.pending.mark(self.tab.review.review_id)
        lines = [
            translate("PendingActions", "Recovered an interrupted commit — {what}").format(what=line)
            for line in listing.recovered
        ]
        lines += [translate("PendingActions", "Not used: {what}").format(what=line) for line in listing.problems]
        if lines:
            self.tab.banner.show_message("warning", "\n".join(lines), topic="pending")
        else:
            self.tab.banner.clear(topic="pending")

    def _extra_items(self) -> list[PendingItem]:
        """Imports prepared in this window (their reviews live in the import's own service)."""
        return list(self._import_items)

    def add_import_item(self, item: PendingItem) -> None:
        self._import_items = [i for i in self._import_items if i.review_id != item.review_id] + [item]
        if self._pending_listing is not None:
            self.show_pending(self._pending_listing)
        else:
            self.tab.pending.set_items(self._extra_items())

    def forget(self, review_id: str) -> None:
        """A settled review leaves the pending list."""
        self._import_items = [i for i in self._import_items if i.review_id != review_id]
        self.import_handlers.pop(review_id, None)

    def source_changed(self) -> None:
        source = self.tab.source_filter.source()
        self.tab.sessions.setVisible(source == "session")
        self.tab.pending.set_source(source)

    def choose_source(self, source: ReviewSource) -> None:
        self.tab.source_filter.set_source(source)
        self.source_changed()

    def handler_for(self, item: PendingItem) -> ReviewHandler:
        return self.import_handlers.get(item.review_id, self.tab.session_handler)

    def open_pending(self, item: PendingItem) -> None:
        """Show a pending review; an agent proposal is opened against memory as it is now (a job)."""
        if self.tab.busy is not None:
            return
        if item.review is not None:
            self._show_pending_review(item.review, self.handler_for(item))
            return
        proposals = self.tab.proposals
        if item.source != "agent" or proposals is None:
            return
        handler = AgentHandler(proposals)

        def done(review: Review) -> None:
            self._show_pending_review(review, handler, item.reason, stale=item.stale)

        self.tab.start_job("open", _open_agent, proposals, item.review_id, done=done, failed=self.tab.show_error)

    def _show_pending_review(
        self, review: Review, handler: ReviewHandler, reason: str = "", *, stale: bool = False
    ) -> None:
        self.tab.show_review(review, handler, reason)
        notes = list(review.notes)
        if stale and review_source(review.consolidator) == "agent":
            notes.append(
                translate(
                    "PendingActions",
                    "Memory changed since the agent read it: committing will ask you to review the fresh diffs first.",
                )
            )
        if notes:
            self.tab.banner.show_message("warning", "\n".join(notes), topic="review")
        elif self.tab.banner.level != "error":
            self.tab.banner.clear()  # the message about the previous review is not about this one

    def select_pending(self, review_id: str) -> bool:
        return self.tab.pending.select(review_id)

    # --- delete --------------------------------------------------------------------------------
    def delete_current(self) -> None:
        """Delete the pending review shown (or selected): nothing is written, the receipt says discarded."""
        if self.tab.busy is not None:
            return
        review = self.tab.review
        handler = self.tab.handler
        item = self.tab.pending.current()
        if review is None or (item is not None and item.review_id != review.review_id):
            if item is None or item.review is None:
                return
            review, handler = item.review, self.handler_for(item)
        agent = handler.source == "agent"
        if agent:
            title = translate("PendingActions", "Reject this agent proposal?")
            text = translate(
                "PendingActions",
                "Reject this agent proposal? Nothing is written to memory; its receipt records that it was rejected.",
            )
            button = translate("PendingActions", "Reject")
        else:
            title = translate("PendingActions", "Delete this pending review?")
            text = translate(
                "PendingActions",
                "Delete this pending review? Nothing is written to memory; its receipt records that it was discarded.",
            )
            button = translate("PendingActions", "Delete")
        if not self.tab.ctx.dialogs.confirm(self._window, title, text, button):
            return

        self.tab.start_job("commit", handler.delete, review, done=self.tab.commit_done, failed=self.tab.commit_failed)

    # --- merge into existing -------------------------------------------------------------------------
    def merge_current(self) -> None:
        row = self.tab.review_panel.current_change_row()
        review = self.tab.review
        if row < 0 or review is None or self.tab.busy is not None:
            return
        cid = self.tab.changes_model.change_row(row).change.id

        def done(change: ReviewChange) -> None:
            r = self.tab.changes_model.row_of(cid)
            if r >= 0 and self.tab.review is review:
                self.tab.changes_model.set_edit(r, change)
                self.tab.changes_model.set_accepted(r, change.is_actionable)
                self.tab.review_panel.show_current_change()
                self.tab.review_panel.show_merge(change)
                self.tab.banner.show_message(
                    "info",
                    translate(
                        "PendingActions", "Merged into {target}: review the merged text next to the existing one."
                    ).format(target=change.target),
                )

        self.tab.start_job("edit", self.tab.handler.merge, review, cid, done=done, failed=self.tab.show_error)

    # --- import (issue 12) ------------------------------------------------------------------------------
    def start_import(self) -> None:
        self.tab.start_import()
