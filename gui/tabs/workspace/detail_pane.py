"""The Workspace tab's right column: the record editor, the staged batch, the workspace's MEMORY.md as
an agent loads it, and other stores' entries (read-only), as pages of one tab widget."""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget

from core.changeset import ChangeSet
from gui.context import AppContext
from gui.tabs.workspace.editor import RecordEditor
from gui.tabs.workspace.foreign_panel import ForeignPanel
from gui.tabs.workspace.staged_panel import AgentView, StagedPanel
from gui.tasks import Jobs


class DetailPane(QTabWidget):
    RECORD, STAGED = 0, 1  # page indexes

    def __init__(self, editor: RecordEditor, ctx: AppContext, jobs: Jobs) -> None:
        super().__init__()
        self.setObjectName("workspace_detail")
        self.editor = editor
        self.staged_panel = StagedPanel()
        self.agent = AgentView()
        self.addTab(editor, self.tr("Record"))
        self.addTab(self.staged_panel, self.tr("Staged changes"))
        self.addTab(self.agent, self.tr("Agent view"))  # what the agent loads
        self.foreign = ForeignPanel(ctx, jobs, self)  # other stores' entries, read-only
        self.addTab(self.foreign, self.foreign.title())
        # Every tab label stays readable at the default window size: no scroll arrows hiding one (the
        # foreign panel asks for that and for eliding), and no label stretched wider than it needs.
        self.tabBar().setExpanding(False)

    def show_changes(self, changes: ChangeSet | None, *, busy: bool) -> None:
        """The staged batch on its page, and how many changes it holds in the page's title."""
        n = len(changes) if changes is not None else 0
        self.setTabText(self.STAGED, self.tr("Staged changes (%n)", "", n) if n else self.tr("Staged changes"))
        self.staged_panel.show_changes(changes, busy=busy)
