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


# --- the README's `--lang zh_CN` works for the app --------------------------------------------------


def test_the_app_accepts_lang_as_the_readme_shows(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from gui.launcher import _wants_window

    assert _wants_window(["--lang", "zh_CN", "--demo"]) and _wants_window(["--lang=en"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(LANG="en_US.UTF-8", QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path / "data"))
    code = "import sys; from gui.launcher import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, "--lang", "zh_CN", "--self-test", "--demo"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok   工作区" in proc.stdout, proc.stdout  # the Workspaces tab, in Chinese on an English system
