"""The Workspace tab: a view (``view.py``) over panels for the records, the editor, search and the batch."""

from gui.tabs.workspace.view import WorkspaceTab

__all__ = ["WorkspaceTab"]
