"""Screenshot steps of the frictions fixed in issue 27 (``scripts/screenshots.py`` runs them).

A new record before anything is typed, a toast lifted above the buttons it would cover, the search
label while a query is on its way, the problems dialog (one entry per file, Open / Reveal) and the
Settings language choice saved with Save and offering a restart. ``_``-steps only reset.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scripts.screenshots import Shot

_prefs = Path(tempfile.mkdtemp(prefix="dsh-shots-prefs-")) / "prefs.yml"  # never the user's own


def _settle(ms: int = 60) -> None:
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    QCoreApplication.processEvents()


def _workspace(shot: Shot, name: str) -> Any:
    tab = shot.tab("workspace")
    tab.select_workspace(shot.workspace_key(name))
    _settle()
    return tab


def new_record(shot: Shot) -> None:
    tab = _workspace(shot, "order-service")
    tab.select_record("code-review-style")
    tab.new_record()
    _settle()


def toast_lifted(shot: Shot) -> None:
    tab = _workspace(shot, "order-service")
    tab.revert_editor()  # the untouched new record of the step before
    tab.select_record("local-dev-setup")
    tab.body_edit.setPlainText(tab.body_edit.toPlainText() + "\nAlso: docker compose up -d before the tests.\n")
    tab.stage_current()
    tab.detail.setCurrentIndex(1)
    tab.banner.show_message("ok", tab.tr("Staged local-dev-setup. Review it in Staged changes, then Commit."))
    _settle()


def workspace_reset(shot: Shot) -> None:
    tab = shot.window.tabs["workspace"]
    tab.discard_staged()
    tab.banner.clear()
    tab.detail.setCurrentIndex(0)


def search_pending(shot: Shot) -> None:
    tab = shot.tab("workspace")
    tab.search_box.setText("payment")  # typed; its search has not come back yet
    _settle(20)


def search_reset(shot: Shot) -> None:
    tab = shot.window.tabs["workspace"]
    tab.search.stop()
    tab.search_box.setText("")


def problems_dialog(shot: Shot) -> None:
    shot.window.refresh_status()
    shot.window.show_problems()
    shot.grab_target = shot.window.problems_dialog
    _settle()


def problems_reset(shot: Shot) -> None:
    shot.window.problems_dialog.close()


def settings_language(shot: Shot) -> None:
    tab = shot.tab("settings")
    tab.prefs_file = _prefs
    tab.refresh()
    _settle()
    combo = tab.language_combo
    current = combo.currentData()
    combo.setCurrentIndex(combo.findData("en" if current == "zh_CN" else "zh_CN"))
    tab.save()
    _settle()


def settings_reset(shot: Shot) -> None:
    tab = shot.window.tabs["settings"]
    tab.banner.clear()
    tab.revert()


STEPS = [
    ("workspace-new-record", new_record),
    ("workspace-toast-lifted", toast_lifted),
    ("_hygiene-ws-reset", workspace_reset),
    ("workspace-search-pending", search_pending),
    ("_hygiene-search-reset", search_reset),
    ("problems-dialog", problems_dialog),
    ("_hygiene-problems-reset", problems_reset),
    ("settings-language-restart", settings_language),
    ("_hygiene-settings-reset", settings_reset),
]
