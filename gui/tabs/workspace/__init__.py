"""The Workspace tab: a view (``view.py``) over panels for the records, the editor, search and the batch."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gui.context import AppContext
from gui.tabs.workspace.moved_glue import MovedGlue
from gui.tabs.workspace.usage_glue import UsageGlue
from gui.tabs.workspace.view import WorkspaceTab as WorkspaceView


class WorkspaceTab(WorkspaceView):
    """The tab as the window builds it: the view plus the usage ledger's Last used column and record
    pane line (issue 30), attached here so the view module stays within its size budget."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.usage = UsageGlue(self)
        self.moved = MovedGlue(self)  # the folder-missing banner's "Moved? Pick the new folder…" (issue 28)


__all__ = ["WorkspaceTab", "WorkspaceView"]
