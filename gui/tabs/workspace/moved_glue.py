"""The Workspace tab's "Moved? Pick the new folder…" on its folder-missing banner (issue 28).

The move itself is the Recycle Bin's dialog (:class:`gui.tabs.recycle_moved.MoveDialog`: candidates by
git remote URL and folder name, the merge review, the journaled move). The records panel only knows a
narrow callback (``RecordsPanel.pick_new_folder``: the workspace whose folder is gone); this glue,
attached by the tab as the window builds it, fills it. So the panel never imports the Recycle Bin and
the Recycle Bin never imports this tab.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from core.models import WorkspaceInfo
from core.sync.move import MoveResult
from gui.tabs.recycle_moved import MoveDialog

if TYPE_CHECKING:
    from gui.tabs.workspace.view import WorkspaceTab


class MovedGlue(QObject):
    """Opens the move dialog for the shown workspace; after the move, shows the folder it went to."""

    def __init__(self, tab: WorkspaceTab) -> None:
        super().__init__(tab)
        self.tab = tab
        self.search_roots: list[Path] = [Path.home()]  # where candidates are looked for (tests narrow it)
        self.dialog: MoveDialog | None = None
        tab.records.pick_new_folder = self.open

    def open(self, info: WorkspaceInfo) -> None:
        self.dialog = MoveDialog(self.tab.ctx, info, self.search_roots, self.tab)
        self.dialog.moved.connect(self._moved)
        self.dialog.open()

    def _moved(self, result: MoveResult) -> None:
        self.tab.select_after_listing(result.target_key)
        self.tab.banner.show_message(
            "ok",
            self.tr("Moved: the records are in the new folder's workspace; the old copy is in the Recycle Bin."),
        )
        self.tab.refresh()
