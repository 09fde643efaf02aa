"""What the bulk bar's buttons do to the selected records: stage them into the tab's batch (or export).

The actions see the Workspace tab only through :class:`BulkHost` (the panels they drive, the batch to
stage into, the current workspace) and report back through it; they never set the tab's state.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from core.changeset import ChangeSet, LoadedWorkspace, load_workspace
from core.export import ExportSummary, export_zip

if TYPE_CHECKING:
    from core.models import WorkspaceInfo
    from gui.context import AppContext
    from gui.tabs.workspace.editor import RecordEditor
    from gui.tabs.workspace.records_panel import RecordsPanel
    from gui.tabs.workspace.workspace_list import WorkspaceList
    from gui.tasks import Jobs
    from gui.widgets.banner import Banner


class BulkHost(Protocol):
    """What the bulk actions use of the Workspace tab."""

    @property
    def ctx(self) -> AppContext: ...
    @property
    def jobs(self) -> Jobs: ...
    @property
    def banner(self) -> Banner: ...
    @property
    def records(self) -> RecordsPanel: ...
    @property
    def workspaces(self) -> WorkspaceList: ...
    @property
    def editor(self) -> RecordEditor: ...
    @property
    def changes(self) -> ChangeSet | None: ...
    @property
    def current_key(self) -> str | None: ...
    def workspace_info(self) -> WorkspaceInfo | None: ...
    def show_staged(self, names: list[str]) -> None:
        """Records were staged: show the batch (and the edited record as it now stands)."""

    def on_error(self, exc: BaseException) -> None: ...


class BulkActions(QObject):
    """Bulk delete, change type, move/copy and export over the records selected in the table."""

    def __init__(self, tab: BulkHost, parent: QWidget) -> None:
        super().__init__(parent)
        self.tab = tab
        self._window = parent  # dialogs open over it
        bar = tab.records.bulk_bar
        bar.delete_requested.connect(self.delete)
        bar.type_requested.connect(self.change_type)
        bar.transfer_requested.connect(self.transfer)
        bar.export_requested.connect(self.export)
        tab.records.selection_changed.connect(self.on_selection)

    def on_selection(self, count: int) -> None:
        tab = self.tab
        if count <= 1:  # no bar: nothing to list (every click in the table comes here)
            tab.records.bulk_bar.show_selection(count, [])
            return
        names = tab.workspaces.names()
        targets = sorted(((k, n) for k, n in names.items() if k != tab.current_key), key=lambda t: t[1].lower())
        tab.records.bulk_bar.show_selection(count, targets)

    def _names(self) -> list[str] | None:
        """The selected names, or None (and say why) when the editor holds edits not staged yet."""
        tab = self.tab
        if tab.changes is None:
            return None
        if tab.editor.dirty():
            tab.banner.show_message(
                "warning", self.tr("Stage or revert the edits in the editor first, then apply the bulk action.")
            )
            return None
        return tab.records.selected_names()

    def _staged(self, text: str, names: list[str]) -> None:
        self.tab.show_staged(names)
        self.tab.banner.show_message("info", text)

    def delete(self) -> None:
        names = self._names()
        if names is None or self.tab.changes is None:
            return
        for name in names:
            self.tab.changes.stage_delete(name)
        self._staged(
            self.tr("Staged deleting %n record(s). Review them in Staged changes, then Commit.", "", len(names)), names
        )

    def change_type(self, rtype: str) -> None:
        names = self._names()
        if names is None or self.tab.changes is None:
            return
        done = self.tab.changes.stage_type(names, rtype)
        self._staged(
            self.tr(
                "Staged changing %n record(s) to {type}. Review them in Staged changes, then Commit.", "", len(done)
            ).format(type=rtype),
            done,
        )

    def transfer(self, target: str, move: bool) -> None:
        names = self._names()
        if names is None:
            return

        def done(loaded: LoadedWorkspace) -> None:
            changes = self.tab.changes
            if changes is None:
                return
            staged, refused = changes.stage_transfer(loaded, names, move=move)
            where = loaded.snapshot.info.display_name
            text = (
                self.tr("Staged moving %n record(s) to {where}.", "", len(staged))
                if move
                else self.tr("Staged copying %n record(s) to {where}.", "", len(staged))
            ).format(where=where)
            if refused:
                text += " " + self.tr(
                    "Not staged (a different record of that name is already there, or it is invalid or "
                    "deleted here): {names}."
                ).format(names=", ".join(refused))
            self._staged(text + " " + self.tr("Review them in Staged changes, then Commit."), staged)

        self.tab.jobs.start(
            "bulk-target", load_workspace, self.tab.ctx.store, target, done=done, failed=self.tab.on_error
        )

    def export(self) -> None:
        tab = self.tab
        names = tab.records.selected_names()
        key = tab.current_key
        if not names or key is None:
            return
        folder = tab.ctx.dialogs.choose_directory(
            self._window, self.tr("Export the selected records to"), os.path.expanduser("~")
        )
        if not folder:
            return
        info = tab.workspace_info()
        base = info.display_name if info is not None else key
        dest = os.path.join(folder, f"{base}-records.zip")

        def done(summary: ExportSummary) -> None:
            text = self.tr("Exported %n record(s) to {path}.", "", summary.records).format(path=str(summary.path))
            if summary.skipped:
                text += " " + self.tr("Left out: {names}.").format(
                    names=", ".join(os.path.basename(s["path"]) for s in summary.skipped)
                )
            tab.banner.show_message("ok", text)

        run = partial(export_zip, keys=[key], include_global=False, records={key: names})
        tab.jobs.start("export", run, tab.ctx.store, Path(dest), done=done, failed=tab.on_error)
