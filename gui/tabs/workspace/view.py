"""Workspace tab: browse workspaces and their records, edit records, stage a batch, review diffs, commit.

Edits never touch disk until "Commit": each "Stage" adds a whole-record put (or a delete) to the batch
(:class:`core.changeset.ChangeSet`), shown as per-file diffs (MEMORY.md included); the commit is one
compare-and-swap against the revision the batch was built on. This module wires the panels together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from core.changeset import ChangeSet, LoadedWorkspace, load_workspace
from core.errors import ConflictError, NotFoundError
from core.models import Op, Revision, WorkspaceInfo, WorkspaceSnapshot
from core.records import salvage_fields
from gui.context import AppContext
from gui.qtmodels.search_results import SearchHit
from gui.tabs.base import Tab
from gui.tabs.workspace.bulk_actions import BulkActions
from gui.tabs.workspace.commit_flow import CommitFlow
from gui.tabs.workspace.detail_pane import DetailPane
from gui.tabs.workspace.editor import RecordEditor
from gui.tabs.workspace.empty_state import create_workspace_for_folder
from gui.tabs.workspace.provenance import record_origins
from gui.tabs.workspace.records_panel import RecordsPanel
from gui.tabs.workspace.search_panel import SearchPanel
from gui.tabs.workspace.undo_button import UndoCommitButton
from gui.tabs.workspace.workspace_list import WorkspaceList
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error

if TYPE_CHECKING:  # core.provenance imports core.consolidation (httpx...): 0.4 s of start-up
    from core.provenance import Origin


class WorkspaceTab(Tab):
    open_global_requested = Signal()
    open_global_section = Signal(str)  # a Global search hit: the heading of its section
    workspaces_loaded = Signal(object)  # after each counted list (the list) or failed one (None): the status follows
    demo_requested = Signal()  # the empty-root panel's "Open the demo root" (the window switches roots)
    receipt_requested = Signal(str)  # a provenance link: open the Consolidation tab on this review id

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.current_key: str | None = None
        self.changes: ChangeSet | None = None  # the workspace shown and what is staged on it
        self.pending: LoadedWorkspace | None = None  # newer disk state not applied yet
        self._listed = False  # the first workspace list has arrived
        self.origins: dict[str, list[Origin]] = {}  # record -> consolidations that wrote it
        self._pending_select: str | None = None  # a workspace just created: select it once listed
        self._build_ui()
        self.commit_flow = CommitFlow(self, self)
        self.bulk = BulkActions(self, self)  # the bulk bar over the records table
        self.records.empty.create_requested.connect(
            lambda: create_workspace_for_folder(self, self.banner, self.select_after_listing, self.on_error)
        )

    # --- layout -------------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.setSpacing(6)
        self.banner = Banner()
        outer.addWidget(self.banner)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        outer.addWidget(self.splitter, 1)

        # left: search + workspace list
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 4, 0)
        self.search = SearchPanel(
            self.ctx.search, self.ctx.runner, lambda: self.workspaces.names(), self, typing=self.ctx.typing
        )
        self.search.hit_activated.connect(self.open_hit)
        self.search.failed.connect(self.on_error)
        self.search.lay_out(lv)
        self.workspaces = WorkspaceList(self.ctx.typing, self)
        self.workspaces.chosen.connect(self._on_workspace_chosen)
        self.workspaces.lay_out(lv)
        self.splitter.addWidget(left)

        # center: workspace header + records table
        self.records = RecordsPanel(self.ctx)
        self.records.archived.connect(self._archived)
        self.records.archive_failed.connect(self._archive_failed)
        self.records.record_chosen.connect(self._on_record_chosen)
        self.records.new_requested.connect(self.new_record)
        self.records.archive_requested.connect(self.archive_workspace)
        self.records.empty.demo_requested.connect(self.demo_requested.emit)
        self.undo_button = UndoCommitButton(self.ctx, lambda: self.current_key, self.has_unsaved_changes)
        self.undo_button.undone.connect(self._undone)
        self.undo_button.refused.connect(lambda text: self.banner.show_message("warning", text))
        self.undo_button.failed.connect(self.on_error)
        self.records.undo_slot.addWidget(self.undo_button)
        self.splitter.addWidget(self.records)

        # right: record editor / staged changes / what the agent loads
        self.editor = RecordEditor(
            self.ctx.runner, self.known_names, self._file_reasons, has_staged=lambda n: n in self.staged
        )
        self.editor.receipt_requested.connect(self.receipt_requested.emit)
        self.editor.stage_requested.connect(self.stage_current)
        self.editor.delete_requested.connect(self.stage_delete)
        self.editor.revert_requested.connect(self.revert_editor)
        self.editor.link_activated.connect(self.select_record)
        self.detail = DetailPane(self.editor, self.ctx, self.jobs)
        self.staged_panel, self.agent, self.foreign = self.detail.staged_panel, self.detail.agent, self.detail.foreign
        self.staged_panel.discard_button.clicked.connect(self.discard_staged)
        self.staged_panel.commit_button.clicked.connect(lambda: self.commit())
        self.search.foreign_activated.connect(self.foreign.reveal)
        self.foreign.attach_search(self.search)  # "Include other stores"
        self.splitter.addWidget(self.detail)

        for column, stretch in enumerate((0, 1, 1)):
            self.splitter.setStretchFactor(column, stretch)
        # The records table gets the room: the workspace list is short and the editor wraps; the right
        # pane is wide enough for its four tab labels at the default 1360 px window (also in Chinese).
        self.splitter.setSizes([300, 530, 530])  # the workspace list: room for names
        self._update_workspace_header()

        # The widgets tests and the screenshot script drive, by their old names.
        self.ws_filter, self.ws_model = self.workspaces.filter, self.workspaces.model
        self.ws_proxy, self.ws_view = self.workspaces.proxy, self.workspaces.view
        self.search_box, self.search_model, self.search_view = self.search.box, self.search.model, self.search.view
        self.ws_title, self.ws_banner = self.records.title, self.records.banner
        self.archive_button, self.new_button = self.records.archive_button, self.records.new_button
        self.rec_filter, self.type_filter = self.records.filter, self.records.type_filter
        self.rec_model, self.rec_proxy, self.rec_view = self.records.model, self.records.proxy, self.records.view
        self.count_label = self.records.count_label
        self.name_edit, self.type_combo = self.editor.name_edit, self.editor.type_combo
        self.desc_edit, self.body_edit = self.editor.desc_edit, self.editor.body_edit
        self.links_label, self.validation_label = self.editor.links_label, self.editor.validation_label
        self.stage_button, self.delete_button = self.editor.stage_button, self.editor.delete_button
        self.diff_view, self.commit_button = self.staged_panel.diff_view, self.staged_panel.commit_button
        self.discard_button = self.staged_panel.discard_button
        self.agent_label, self.agent_view = self.agent.label, self.agent.text

    # --- what the tab shows -------------------------------------------------------------------------------
    @property
    def snapshot(self) -> WorkspaceSnapshot | None:
        return self.changes.snapshot if self.changes is not None else None

    @property
    def staged(self) -> dict[str, Op]:
        return self.changes.staged if self.changes is not None else {}

    @property
    def editing_name(self) -> str | None:
        return self.editor.editing_name

    @property
    def last_search_hits(self) -> list[SearchHit]:
        return self.search.last_hits

    def known_names(self) -> set[str]:
        return self.changes.known_names() if self.changes is not None else set()

    def _file_reasons(self, name: str) -> tuple[str, ...]:
        entry = self.snapshot.get(name) if self.snapshot is not None else None
        return entry.invalid_reasons if entry is not None else ()

    def broken_links(self) -> list[str]:
        return self.editor.broken_links()

    def staged_diff(self) -> str:
        return self.changes.diff() if self.changes is not None else ""

    # --- tab protocol ----------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.search.mark_stale()  # memory may have changed: the next search re-reads it
        self.workspaces.list_from(self.jobs, self.ctx.store, shown=self._on_workspaces, failed=self._on_list_failed)
        self.foreign.refresh()

    def _on_list_failed(self, exc: BaseException) -> None:
        self._listed = True
        self.on_error(exc)
        self.workspaces_loaded.emit(None)

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None

    def has_unsaved_changes(self) -> bool:
        return bool(self.staged) or self.editor.dirty()

    def save(self) -> None:
        """Ctrl+S: stage the editor's edits (if any), then commit the batch."""
        if self.editor.dirty() and not self.stage_current():
            return
        if self.staged:
            self.commit()

    def focus_search(self) -> bool:
        if self.ctx.search is not None:
            self.search.focus()
        else:
            self.rec_filter.setFocus()
            self.rec_filter.selectAll()
        return True

    def run_search_now(self) -> None:
        self.search.run_now()

    def warm_up(self) -> None:
        self.editor.warm_up()
        self.search.prefetch()  # the first index build on a worker, "indexing N %…" meanwhile

    def shutdown(self) -> None:
        super().shutdown()
        self.search.stop()
        self.editor.jobs.cancel_all()

    # --- workspaces -------------------------------------------------------------------------------------
    def _on_workspaces(self, infos: list[WorkspaceInfo]) -> None:
        self._listed = True
        if not all(i.counted for i in infos):  # a first load's names ("…" counts): the counted list follows
            self._show_workspaces(infos)
            return
        try:
            self._show_workspaces(infos)
        finally:
            self.workspaces_loaded.emit(infos)

    def _show_workspaces(self, infos: list[WorkspaceInfo]) -> None:
        self.workspaces.set_workspaces(infos)
        keys = {i.key for i in infos}
        if self.current_key is not None and self.current_key not in keys:
            if self.staged:
                self.ws_banner.show_message(
                    "error",
                    self.tr(
                        "This workspace was archived or removed outside this window. Your staged changes "
                        "can't be committed; restore it from the Recycle Bin to continue."
                    ),
                )
                return
            self._show_workspace(None)
        first = self._pending_select if self._pending_select in keys else self.workspaces.first_key()
        self._pending_select = None
        if self.current_key is None and first is not None:
            self.select_workspace(first)
            return
        if self.current_key is not None:
            self.workspaces.select(self.current_key)
            self._load_snapshot(self.current_key)
        self._update_workspace_header()

    def select_after_listing(self, key: str) -> None:
        """Show ``key`` once the next workspace list has it (a workspace just created)."""
        self.current_key = None
        self._pending_select = key

    def workspace_info(self) -> WorkspaceInfo | None:
        if self.current_key is None:
            return None
        info = self.workspaces.info(self.current_key)
        if info is not None:
            return info
        return self.snapshot.info if self.snapshot else None

    def select_workspace(self, key: str) -> bool:
        """Show workspace ``key`` (asks first when staged changes or editor edits would be lost)."""
        if key == self.current_key:
            self.workspaces.select(key)
            return True
        if self.has_unsaved_changes() and not self.ctx.dialogs.confirm(
            self,
            self.tr("Discard changes?"),
            self.tr("You have changes in this workspace that are not committed. Discard them and switch?"),
            self.tr("Discard"),
        ):
            self.workspaces.select(self.current_key or "")
            return False
        self._show_workspace(key)
        self.workspaces.select(key)
        return True

    def _show_workspace(self, key: str | None) -> None:
        self.current_key = key
        self.changes = None
        self.pending = None
        self.editor.clear()
        self.records.set_rows([], key=key, staged=0)
        self.ws_banner.clear()
        self.update_staged_view()
        self._update_workspace_header()
        self.agent.show_snapshot(None)
        if key is not None:
            self._load_snapshot(key)

    def _on_workspace_chosen(self, key: str) -> None:
        if key != self.current_key:
            self.select_workspace(key)

    def _load_snapshot(self, key: str, then: Callable[[], object] | None = None) -> None:
        def done(loaded: LoadedWorkspace) -> None:
            self._on_snapshot(loaded)
            if then is not None:
                then()

        def failed(exc: BaseException) -> None:
            if isinstance(exc, NotFoundError) and key == self.current_key and not self.staged:
                self._show_workspace(None)
                self.ws_banner.show_message("info", self.tr("That workspace is no longer there (archived or removed)."))
                return
            self.on_error(exc)

        self.jobs.start("load", load_workspace, self.ctx.store, key, done=done, failed=failed)

    def _on_snapshot(self, loaded: LoadedWorkspace) -> None:
        snap = loaded.snapshot
        if snap.key != self.current_key:
            return
        if self.snapshot is not None and snap.revision == self.snapshot.revision:
            return
        if self.snapshot is not None and (self.staged or self.editor.dirty()):
            # Never pull the floor from under pending work: keep what the user is working on.
            self.pending = loaded
            text = (
                self.tr(
                    "This workspace changed on disk (an agent or another program wrote to it). Your staged "
                    "changes are kept; reload to review them against the new version."
                )
                if self.staged
                else self.tr(
                    "This workspace changed on disk (an agent or another program wrote to it). Your edits "
                    "are kept; reload to review them against the new version."
                )
            )
            reload = (self.tr("Reload and re-review"), self.commit_flow.rebase_on_disk)
            self.ws_banner.show_message("warning", text, [reload])
            return
        self.apply_snapshot(loaded)

    def apply_snapshot(self, loaded: LoadedWorkspace) -> None:
        old = self.snapshot
        staged = self.staged
        self.changes = ChangeSet(loaded)
        self.changes.staged.update(staged)
        self.pending = None
        if self.ws_banner.level == "warning" and not self.staged:
            self.ws_banner.clear()
        self.show_loaded()
        # Keep the editor in step with disk when it holds no edits of its own.
        name = self.editor.editing_name
        snap = loaded.snapshot
        if name is not None and not self.editor.dirty():
            entry = snap.get(name)
            old_entry = old.get(name) if old else None
            if entry is None and name not in self.staged:
                self.editor.clear()
                self.banner.show_message("info", self.tr("The record you were viewing was deleted on disk."))
            elif entry is not None and (old_entry is None or old_entry.revision != entry.revision):
                self.load_editor(name)
        if self.editor.editing_name is not None:
            self._select_record_row(self.editor.editing_name)
        elif old is None:
            self.records.select_first()

    def show_loaded(self) -> None:
        """Show the workspace in ``changes``: its rows, header, agent view and missing-folder warning."""
        self.after_staging_changed()
        self._update_workspace_header()
        self.agent.show_snapshot(self.snapshot)
        self._show_cwd_warning()
        if self.current_key is not None:
            cwd = info.cwd if (info := self.workspace_info()) else ""
            args = (self.ctx.store, self.current_key, self.ctx.sessions_root, self.ctx.dsh_home, cwd)
            self.jobs.start("provenance", record_origins, *args, done=self._on_origins)

    def _on_origins(self, origins: dict[str, list[Origin]]) -> None:
        self.origins = origins
        name = self.editor.editing_name
        self.editor.show_provenance(origins.get(name, []) if name else [])

    def _show_cwd_warning(self) -> None:
        self.records.show_folder_warning(self.workspace_info(), self.archive_workspace)

    def _update_workspace_header(self) -> None:
        any_workspace, info = self.workspaces.model.rowCount() > 0, self.workspace_info()
        self.records.show_header(info, listed=self._listed, any_workspace=any_workspace)
        self.undo_button.setVisible(info is not None)
        self.foreign.show_cwd(info.cwd if info is not None else None)

    # --- records table ------------------------------------------------------------------------------------
    def _on_record_chosen(self, name: str) -> None:
        if name == self.editor.editing_name and self.editor.active:
            return
        editing = self.editor.editing_name or self.tr("the new record")
        if not self._settle_edits(self.tr("Your edits to {name} are not staged yet.").format(name=editing)):
            self._select_record_row(self.editor.editing_name)
            return
        self.load_editor(name)

    def _settle_edits(self, why: str) -> bool:
        """Editor edits not staged yet: stage or discard them first (False: the user keeps editing)."""
        if not self.editor.dirty():
            return True
        stage, discard = self.tr("Stage"), self.tr("Discard")
        choice = self.ctx.dialogs.choose(self, self.tr("Unstaged edits"), why, [stage, discard])
        return choice is not None and (choice != stage or self.stage_current())

    def select_record(self, name: str) -> bool:
        """Select ``name`` in the table (clearing filters that hide it) and open it in the editor."""
        if self.records.model.row_of(name) < 0:
            return False
        if not self._select_record_row(name):
            self.records.clear_filters()
            self._select_record_row(name)
        return self.editor.editing_name == name

    def _select_record_row(self, name: str | None) -> bool:
        if not name:
            return False
        current = self.records.current_row_is(name)
        if current is None:
            return False
        if current:
            if self.editor.editing_name != name:
                self.load_editor(name)
            return True
        self.records.move_to(name)
        return True

    def after_staging_changed(self) -> None:
        rows = self.changes.rows() if self.changes is not None else []
        self.records.set_rows(rows, key=self.current_key, staged=len(self.staged))
        self.update_staged_view()

    # --- record editor ---------------------------------------------------------------------------------
    def load_editor(self, name: str) -> None:
        changes = self.changes
        entry = changes.snapshot.get(name) if changes is not None else None
        staged = changes.staged_record(name) if changes is not None else None
        if staged is not None:
            self.editor.show_record(name, staged)
        elif entry is not None and entry.record is not None and entry.is_valid:
            self.editor.show_record(name, entry.record)
        elif entry is not None and changes is not None:
            self.editor.show_salvaged(name, *salvage_fields(changes.loaded.raw_text(entry)))
        else:
            self.editor.clear()
        self.editor.show_provenance(self.origins.get(name, []) if self.editor.active else [])

    def new_record(self) -> None:
        if self.snapshot is None or not self._settle_edits(self.tr("Your edits in the editor are not staged yet.")):
            return
        self.records.view.selectionModel().clear()  # the previous record is no longer highlighted
        self.detail.setCurrentIndex(0)
        self.editor.new_record()

    def revert_editor(self) -> None:
        """Undo the editor's edits; with none, undo the record's one staged change (a delete too)."""
        name = self.editor.editing_name
        if name is None:
            self.editor.clear()
            return
        if not self.editor.dirty() and self.changes is not None and self.changes.unstage(name):
            self.after_staging_changed()
            if self.snapshot is not None and self.snapshot.get(name) is None:
                self.editor.clear()  # it was a staged new record: nothing left to show
                return
        self.load_editor(name)

    # --- staging, diff, commit ------------------------------------------------------------------------
    def stage_current(self) -> bool:
        """Stage the editor's record as a put (a rename also stages deleting the old name)."""
        if not self.editor.active or self.changes is None:
            return False
        reasons = self.editor.reasons()
        if reasons:
            self.banner.show_message(
                "error", self.tr("Can't stage this record: {reasons}").format(reasons="; ".join(reasons))
            )
            return False
        record = self.editor.record()
        self.changes.stage_put(record, replacing=self.editor.editing_name)
        self.editor.editing_name = record.name
        self.editor.mark_clean()
        self.banner.clear()
        self.after_staging_changed()
        self._select_record_row(record.name)
        self.editor.check()
        return True

    def stage_delete(self) -> None:
        name = self.editor.editing_name
        if name is None or self.changes is None:
            return
        if self.changes.stage_delete(name):
            self.editor.mark_clean()
        else:
            self.editor.clear()  # a staged new record: just dropped
        self.after_staging_changed()
        self.editor.check()  # Revert can now undo the staged delete

    def discard_staged(self) -> None:
        if self.changes is not None:
            self.changes.discard()
        self.after_staging_changed()
        if self.pending is not None and not self.editor.dirty():
            self.apply_snapshot(self.pending)
        self._reload_editor()

    def _reload_editor(self) -> None:
        """The edited record as it now stands: cleared when it is gone and not staged."""
        name = self.editor.editing_name
        if name is None:
            return
        if self.snapshot is not None and self.snapshot.get(name) is None and name not in self.staged:
            self.editor.clear()
        else:
            self.load_editor(name)

    # What the bulk actions and the commit flow hand back (they never set the tab's state themselves).
    def show_staged(self, names: list[str]) -> None:
        self.after_staging_changed()
        if self.editor.editing_name in names:
            self._reload_editor()
        if names:
            self.detail.setCurrentIndex(1)

    def adopt_committed(self, loaded: LoadedWorkspace) -> None:
        self.changes = None  # force apply even when an external refresh raced us
        self.current_key = loaded.snapshot.key
        self.apply_snapshot(loaded)
        self._reload_editor()

    def adopt_rebased(self, changes: ChangeSet) -> None:
        self.changes, self.pending = changes, None
        self.ws_banner.clear()
        self.show_loaded()
        self.editor.check()

    def update_staged_view(self) -> None:
        self.detail.show_changes(self.changes, busy=self.jobs.running("commit"))

    def commit(self, *, allow_secrets: bool = False) -> None:
        self.commit_flow.commit(allow_secrets=allow_secrets)

    # --- archive ----------------------------------------------------------------------------------------
    def archive_workspace(self) -> None:
        info = self.workspace_info()
        if info is None or self.current_key is None:
            return
        expect: Revision | None = self.snapshot.revision if self.snapshot and not self.pending else None
        self.records.archive(info, expect, staged=bool(self.staged))

    def _archived(self, display_name: str) -> None:
        self._show_workspace(None)
        self.banner.show_message("ok", self.tr("Archived {name}. It is in the Recycle Bin.").format(name=display_name))
        self.refresh()

    def _archive_failed(self, key: str, exc: BaseException) -> None:
        if isinstance(exc, ConflictError):
            self.banner.show_message(
                "warning",
                self.tr("Not archived: the workspace changed on disk just now. Look at it again, then archive."),
            )
            self._load_snapshot(key)
        else:
            self.on_error(exc)

    # --- search -----------------------------------------------------------------------------------------
    def open_hit(self, hit: SearchHit) -> None:
        """Show the hit: its record in the Record pane (whatever page was showing), or Global at its section."""
        if hit.scope_key is None:
            self.open_global_requested.emit()
            self.open_global_section.emit(hit.name)
            return
        if hit.scope_key != self.current_key and not self.select_workspace(hit.scope_key):
            return

        def show() -> None:
            if self.select_record(hit.name):
                self.detail.setCurrentIndex(0)

        if self.snapshot is not None and self.snapshot.key == hit.scope_key:
            show()
        else:
            self._load_snapshot(hit.scope_key, then=show)

    # --- undo ------------------------------------------------------------------------------------------
    def _undone(self, text: str) -> None:
        self.banner.show_message("ok", text)
        if self.current_key is not None:
            self._load_snapshot(self.current_key)
        self.refresh()

    def on_error(self, exc: BaseException) -> None:
        self.banner.show_message("error", describe_error(exc))
