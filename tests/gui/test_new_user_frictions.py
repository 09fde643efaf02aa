"""Frictions a new user hit outside Session Consolidation (issue 27), each as the user would notice it."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from gui.context import AppContext
from gui.tabs.consolidation import ConsolidationTab
from tests.gui.test_consolidation_tab import PROMPTS, write_session

# --- the Session Consolidation tab remembers its workspace across a restart -----------------------


def test_consolidation_tab_reopens_on_the_workspace_you_were_on(
    qtbot: QtBot, ctx: AppContext, tmp_path: Path
) -> None:
    for name in ("alpha", "beta"):
        folder = tmp_path / "projects" / name
        folder.mkdir(parents=True)
        write_session(Path(ctx.sessions_root), f"sess-{name}", str(folder), PROMPTS, f"About {name}")

    def open_tab() -> ConsolidationTab:
        tab = ConsolidationTab(ctx)
        qtbot.addWidget(tab)
        tab.refresh()
        return tab

    first = open_tab()
    titles = [first.workspace_model.choice(i).title for i in range(first.workspace_model.rowCount())]
    assert first.workspace_box.currentText().startswith(titles[0])
    other = titles[1]
    first.choose_workspace(first.workspace_model.choice(1).key)
    assert first.workspace_box.currentText().startswith(other)
    first.close()

    again = open_tab()  # a restart: a new tab over the same root
    assert again.workspace_box.currentText().startswith(other)
    assert again.session_model.session_row(0).summary.title == f"About {other}"
