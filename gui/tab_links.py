"""Links between tabs: a search hit's Global section, a receipt's records, a record's receipt, Import….

One tab asks (a signal); the window's :class:`TabLinks` shows the other tab and points it at the
thing. Tabs never hold each other, so each stays testable alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from gui.tabs.base import Tab


class TabLinks:
    def __init__(self, tabs: Mapping[str, Tab], show_tab: Callable[[str], None]) -> None:
        self._tabs = tabs  # a TabSet: looking a lazy tab up builds it
        self._show = show_tab

    def reveal_global_section(self, heading: str) -> None:
        from gui.tabs.global_tab import GlobalTab
        from gui.tabs.workspace.global_link import reveal_heading

        tab = self._tabs["global"]
        if isinstance(tab, GlobalTab):
            reveal_heading(tab.editor, heading)

    def open_record(self, workspace_key: str, name: str) -> None:
        """Show a record (``GLOBAL.md``: the Global tab) that a receipt says it wrote."""
        from gui.tabs.workspace import WorkspaceTab

        self._show("global" if name == "GLOBAL.md" else "workspace")
        ws = self._tabs["workspace"]
        shown = name != "GLOBAL.md" and isinstance(ws, WorkspaceTab) and ws.select_workspace(workspace_key)
        if shown and isinstance(ws, WorkspaceTab) and not ws.select_record(name):
            # The workspace loads on a worker: select the record once its rows are there, or
            # the tab would show its first record instead of the one asked for.
            model = ws.records.model

            def loaded() -> None:
                if model.rowCount() > 0:  # the first reset with rows is the loaded workspace
                    model.modelReset.disconnect(loaded)
                    ws.select_record(name)

            model.modelReset.connect(loaded)

    def open_receipt(self, review_id: str) -> None:
        """Show the receipt of the consolidation that wrote a record (its provenance link)."""
        from gui.tabs.consolidation import ConsolidationTab

        self._show("consolidation")
        tab = self._tabs["consolidation"]
        if isinstance(tab, ConsolidationTab):
            tab.open_receipt(review_id)

    def open_session(self, workspace_key: str, session_id: str) -> None:
        """Show a DSH session (one that used a record, says the usage ledger) in Session Consolidation."""
        from gui.tabs.consolidation import ConsolidationTab

        self._show("consolidation")
        tab = self._tabs["consolidation"]
        if not isinstance(tab, ConsolidationTab):
            return
        tab.choose_workspace(workspace_key)
        if not tab.select_session(session_id):
            # The workspace's sessions load on a worker: select the session once they are there.
            model = tab.sessions.session_model

            def loaded() -> None:
                if model.rowCount() > 0:
                    model.modelReset.disconnect(loaded)
                    tab.select_session(session_id)

            model.modelReset.connect(loaded)

    def import_memory(self) -> None:
        """File → Import…: read another memory store; its changes are reviewed in the Consolidation tab."""
        from gui.tabs.consolidation import ConsolidationTab

        self._show("consolidation")
        tab = self._tabs["consolidation"]
        if isinstance(tab, ConsolidationTab):
            tab.start_import()
