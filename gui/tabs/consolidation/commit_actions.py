"""Committing a review in the Session Consolidation tab: confirm, commit on the worker, show the
receipt, and on a conflict re-check the proposal against fresh memory (split out of ``view.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication, SignalInstance
from PySide6.QtWidgets import QWidget

from core.consolidation.proposals import Receipt, Review
from core.consolidation.review_state import commit_request
from core.errors import ProposalMismatchError
from gui.tabs.consolidation.host import ReviewHost
from gui.widgets.messages import describe_error
from gui.widgets.review_receipt import counts_in_words

if TYPE_CHECKING:
    from gui.tabs.consolidation.sessions_panel import SessionsPanel


translate = QCoreApplication.translate


class PendingSettling(Protocol):
    """What a commit tells the pending list (the tab's pending actions)."""

    def forget(self, review_id: str) -> None: ...
    def delete_current(self) -> None: ...


class CommitHost(ReviewHost, Protocol):
    @property
    def sessions(self) -> SessionsPanel: ...
    @property
    def pending_actions(self) -> PendingSettling: ...
    @property
    def memory_changed(self) -> SignalInstance: ...
    def remember_receipt(self, receipt: Receipt) -> None: ...
    def show_receipt(self, review_id: str, *, switch: bool = True) -> bool: ...
    def request_refresh(self) -> None: ...


class CommitActions:
    def __init__(self, tab: CommitHost, parent: QWidget) -> None:
        self.tab = tab
        self._window = parent  # dialogs open over it
        self.last_receipt: Receipt | None = None  # of the last commit made here

    def commit_selected(self) -> None:
        tab = self.tab
        review = tab.review
        if review is None or tab.busy is not None:
            return
        request = commit_request(tab.changes_model.change_rows())
        if not request.change_ids and not tab.ctx.dialogs.confirm(
            self._window,
            translate("ConsolidationTab", "Reject every change?"),
            translate(
                "ConsolidationTab",
                "No change is selected. Record this review as rejected? Nothing is written to memory.",
            ),
            translate("ConsolidationTab", "Reject all"),
        ):
            return
        if request.touches_global and not tab.ctx.dialogs.confirm(
            self._window,
            translate("ConsolidationTab", "Change GLOBAL.md?"),
            translate(
                "ConsolidationTab",
                "You accepted a change to GLOBAL.md, which every workspace loads. "
                "Commit it only if it is about you in general, not about this project.",
            ),
            translate("ConsolidationTab", "Change GLOBAL.md"),
        ):
            return
        tab.sessions.status_label.setText(translate("ConsolidationTab", "Committing…"))
        tab.start_job(
            "commit",
            tab.handler.commit,
            review,
            request,
            request.touches_global,  # confirmed just above
            done=self.done,
            failed=self.failed,
        )

    def done(self, receipt: Receipt) -> None:
        tab = self.tab
        tab.memory_changed.emit()  # the status counts follow at once
        tab.sessions.status_label.setText("")
        if receipt.status != "conflict":
            tab.pending_actions.forget(receipt.review_id)
        tab.remember_receipt(receipt)
        tab.sessions.session_model.set_last_status(receipt.session_id, receipt.status)
        if receipt.status == "conflict":
            self.recheck()
            return
        self.last_receipt = receipt
        tab.show_review(None)
        words = {
            "committed": translate("ConsolidationTab", "Committed"),
            "partially-committed": translate("ConsolidationTab", "Committed part of the proposal"),
            "rejected": translate("ConsolidationTab", "Rejected every change; nothing was written"),
            "discarded": translate("ConsolidationTab", "Deleted the pending review; nothing was written"),
            "no-change": translate("ConsolidationTab", "Nothing to write"),
        }
        tab.banner.show_message(
            "ok",
            translate("ConsolidationTab", "{what}: {counts}. Receipt {id}.").format(
                what=words.get(receipt.status, receipt.status),
                counts=counts_in_words(receipt.changes),
                id=receipt.review_id,
            ),
        )
        tab.show_receipt(receipt.review_id)
        tab.request_refresh()

    def failed(self, exc: BaseException) -> None:
        tab = self.tab
        tab.sessions.status_label.setText("")
        actions: list[tuple[str, Callable[[], None]]] = []
        if isinstance(exc, ProposalMismatchError):  # the saved proposal was changed on disk
            actions.append((translate("ConsolidationTab", "Delete this review"), tab.pending_actions.delete_current))
        tab.banner.show_message(
            "error",
            translate("ConsolidationTab", "Nothing was committed: {why}").format(why=describe_error(exc)),
            actions,
        )

    def recheck(self) -> None:
        tab = self.tab
        review = tab.review
        if review is None:
            return

        def done(fresh: Review) -> None:
            tab.show_review(fresh)
            tab.banner.show_message(
                "warning",
                translate(
                    "ConsolidationTab",
                    "Memory changed while you were reviewing (an agent, the CLI or another window wrote to it). "
                    "Nothing was written. The proposal has been checked again against the current memory: "
                    "review the diffs and accept again.",
                ),
            )

        tab.start_job("recheck", tab.handler.recheck, review, done=done, failed=tab.show_error)
