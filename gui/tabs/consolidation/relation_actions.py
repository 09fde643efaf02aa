"""The review's evidence and naming actions: the session transcript preview, Replace / Keep both /
Merge for a change that supersedes or contradicts a record, and Rename of a proposed record.

Kept out of ``view.py`` (the tab's layout and pipeline jobs); sees the tab through :class:`RelationHost`
and wires itself to the tab's widgets here.
The preview reads the selected session's log on its own worker key ("preview"), never through the
pipeline, so selecting sessions never waits for a run and a run never waits for a preview.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

from core.consolidation.proposals import Review, ReviewChange
from core.consolidation.supersede import Resolution
from core.sessions.evidence import session_transcript
from core.sessions.models import Evidence
from gui.core_text import core_texts
from gui.tabs.consolidation.host import ReviewHost
from gui.tabs.consolidation.review_panel import TRANSCRIPT_TAB
from gui.widgets.messages import describe_error

if TYPE_CHECKING:
    from core.consolidation.review_state import SessionRow
    from gui.tabs.consolidation.sessions_panel import SessionsPanel
    from gui.tasks import Jobs


translate = QCoreApplication.translate


class RelationHost(ReviewHost, Protocol):
    @property
    def jobs(self) -> Jobs: ...
    @property
    def sessions(self) -> SessionsPanel: ...
    def selected_session(self) -> SessionRow | None: ...
    def update_controls(self) -> None: ...


class RelationActions:
    def __init__(self, tab: RelationHost, parent: QWidget) -> None:
        self.tab = tab
        self._window = parent  # dialogs open over it
        panel = tab.review_panel
        panel.resolve_requested.connect(self.resolve)
        panel.rename_requested.connect(self.rename)
        panel.changes_view.selectionModel().currentRowChanged.connect(lambda *_: tab.update_controls())
        tab.sessions.sessions_view.selectionModel().selectionChanged.connect(lambda *_: self.preview_selected())
        tab.sessions.workspace_box.activated.connect(lambda _row: self.workspace_switched())

    # --- transcript preview -------------------------------------------------------------------
    def preview_selected(self) -> None:
        """Show the selected session's transcript (when no review of another session is open)."""
        tab = self.tab
        row = tab.selected_session()
        review = tab.review
        if row is None or (review is not None and review.session_id != row.summary.id):
            return
        if review is not None and review.evidence is not None:
            return  # the review shows this session's transcript with its highlights already
        folder = row.summary.folder

        def done(evidence: Evidence) -> None:
            current = tab.selected_session()
            if current is not None and current.summary.folder == folder and tab.review is None:
                tab.review_panel.transcript_pane.show_evidence(evidence)
                tab.review_panel.detail_tabs.setCurrentIndex(TRANSCRIPT_TAB)
                tab.review_panel.setCurrentIndex(0)  # the Review page holds the transcript

        def failed(exc: BaseException) -> None:
            tab.review_panel.transcript_pane.show_evidence(
                None,
                caption=translate("RelationActions", "This session cannot be previewed: {why}").format(
                    why=describe_error(exc)
                ),
            )

        tab.jobs.start("preview", session_transcript, folder, done=done, failed=failed)

    def workspace_switched(self) -> None:
        """Another workspace: the review (and transcript) of the previous one leave the screen.

        The review itself stays saved and pending; it is one click away in the pending list.
        """
        tab = self.tab
        if tab.review is not None and tab.busy is None:
            tab.show_review(None)
        tab.review_panel.transcript_pane.show_evidence(None)

    # --- supersession -------------------------------------------------------------------------
    def _current(self) -> tuple[Review, ReviewChange] | None:
        tab = self.tab
        row = tab.review_panel.current_change_row()
        if row < 0 or tab.review is None or tab.busy is not None:
            return None
        return tab.review, tab.changes_model.change_row(row).current

    def resolve(self, resolution: Resolution) -> None:
        tab = self.tab
        if (selected := self._current()) is None:
            return
        review, change = selected
        cid = change.id
        if resolution == "keep":  # nothing to re-check: the change stays as proposed
            tab.review_panel.settled.add(cid)
            tab.changes_model.set_accepted(tab.changes_model.row_of(cid), True)
            tab.review_panel.show_current_change()
            return

        def done(result: ReviewChange) -> None:
            r = tab.changes_model.row_of(cid)
            if r >= 0 and tab.review is review:
                tab.changes_model.set_edit(r, result)
                tab.changes_model.set_accepted(r, result.is_actionable)
                tab.review_panel.show_current_change()
                words = (
                    translate("RelationActions", "Replaced {target} with the corrected text.")
                    if resolution == "replace"
                    else translate("RelationActions", "Merged into {target}: review the merged text.")
                )
                tab.banner.show_message("info", words.format(target=result.target), transient=True)

        tab.start_job("edit", tab.handler.resolve, review, cid, resolution, done=done, failed=tab.show_error)

    # --- rename -------------------------------------------------------------------------------
    def rename(self) -> None:
        tab = self.tab
        if (selected := self._current()) is None:
            return
        review, change = selected
        if change.kind != "put" or change.record is None:
            return
        name = tab.ctx.dialogs.ask_text(
            self._window,
            translate("RelationActions", "Rename record"),
            translate("RelationActions", "New name for {name} (lower-case words joined by hyphens):").format(
                name=change.record.name
            ),
        )
        if name is None or not name.strip() or name.strip() == change.record.name:
            return
        cid = change.id

        def done(result: ReviewChange) -> None:
            if result.problems:  # an invalid name: the change stays as it was
                tab.banner.show_message(
                    "warning",
                    translate("RelationActions", "Not renamed: {why}").format(
                        why="; ".join(core_texts(result.problems))
                    ),
                    topic="rename",
                )
                return
            r = tab.changes_model.row_of(cid)
            if r >= 0 and tab.review is review:
                tab.changes_model.set_edit(r, result)
                tab.changes_model.set_accepted(r, result.is_actionable)
                tab.review_panel.show_current_change()
                tab.banner.clear(topic="rename")

        tab.start_job("edit", tab.handler.rename, review, cid, name.strip(), done=done, failed=tab.show_error)
