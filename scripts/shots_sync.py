"""Screenshot steps of issue 28 (``scripts/screenshots.py`` runs them): Settings ▸ Sync after a first
sync, a sync review (a record changed on this machine and on "the laptop"), and the Recycle Bin's
"Moved? Pick the new folder…" flow (the candidates, then the merge review). A real bare git remote
and a second memory root live next to the demo root in the temp dir; git never reads the user's config.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scripts.screenshots import Shot


def _settle(ms: int = 60) -> None:
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    QCoreApplication.processEvents()


def _git_env(tmp: Path) -> None:
    home = Path(os.environ.get("HOME", str(tmp / "home")))
    home.mkdir(parents=True, exist_ok=True)
    os.environ["GIT_CONFIG_GLOBAL"] = str(home / "gitconfig")
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
    os.environ["GIT_TERMINAL_PROMPT"] = "0"


def _remote(shot: Shot) -> Path:
    return Path(shot.ctx.root).parent / "sync-remote.git"


def settings_sync(shot: Shot) -> None:
    tmp = Path(shot.ctx.root).parent
    _git_env(tmp)
    remote = _remote(shot)
    if not remote.exists():
        subprocess.run(["git", "init", "--bare", "-q", str(remote)], check=True)
    tab = shot.tab("settings")
    tab.sync.remote_edit.setText(str(remote))
    tab.sync.sync_now()
    _settle()
    tab.fields.ensureWidgetVisible(tab.sync)
    shot.grab_target = tab.sync


def sync_review(shot: Shot) -> None:
    from core.models import PutOp, Record
    from core.store.fs import FileStore
    from core.sync.engine import run_sync

    remote = _remote(shot)
    laptop = FileStore(Path(shot.ctx.root).parent / "laptop-memory")
    run_sync(laptop, str(remote))
    key = shot.workspace_key("atlas-web")
    entry = next(e for e in shot.ctx.store.read_workspace(key).entries if e.record is not None)
    rec = entry.record
    assert rec is not None
    theirs = Record(**{**rec.model_dump(), "body": rec.body + "\nOn the laptop: the staging deploy moved to 19:00.\n"})
    laptop.commit(key, [PutOp(record=theirs)], None)
    run_sync(laptop, str(remote))
    mine = Record(**{**rec.model_dump(), "body": rec.body + "\nHere: staging deploys need a ticket number.\n"})
    shot.ctx.store.commit(key, [PutOp(record=mine)], None)
    tab = shot.tab("settings")
    tab.sync.sync_now()
    _settle()
    tab.sync.merge.panes.setCurrentIndex(0)
    shot.window.sync_badge.refresh()
    _settle()
    shot.grab_target = tab.sync


def consolidation_sync_review(shot: Shot) -> None:
    """The same pending review as a tab of Session Consolidation."""
    tab = shot.tab("consolidation")
    tab.refresh()
    _settle()
    tab.review_panel.setCurrentWidget(tab.sync_review)
    _settle()


def recycle_moved_pick(shot: Shot) -> None:
    from core.models import PutOp, Record

    root = Path(shot.ctx.root)
    home = Path(os.environ.get("HOME", str(root.parent / "home")))
    new = home / "code" / "ml-experiments"
    new.mkdir(parents=True, exist_ok=True)
    (root / "demo-projects" / "ml-experiments-old-notes").mkdir(exist_ok=True)
    # The new folder already has a workspace (an agent started there) with one record in common.
    snap = shot.ctx.store.create_workspace(str(new))
    if not snap.entries:
        shot.ctx.store.commit(
            snap.key,
            [
                PutOp(record=Record(name="gpu-memory-tip", description="Batch size that fits the A100",
                                    type="feedback", body="\nUse batch size 48 with gradient checkpointing on.\n")),
                PutOp(record=Record(name="eval-schedule", description="When evaluations run", type="project",
                                    body="\nNightly at 02:00 UTC on the shared cluster.\n")),
            ],
            snap.revision,
        )
    tab = shot.tab("recycle")
    tab.missing_panel.search_roots = [home]
    tab.refresh()
    _settle()
    row = next(i for i, info in enumerate(tab.missing_panel.infos) if info.display_name == "ml-experiments")
    tab.missing_panel.list.setCurrentRow(row)
    tab.missing_panel.open_move()
    _settle()
    dialog = tab.missing_panel.dialog
    assert dialog is not None
    dialog.show()
    _settle(120)
    shot.grab_target = dialog


def recycle_moved_review(shot: Shot) -> None:
    tab = shot.tab("recycle")
    dialog = tab.missing_panel.dialog
    assert dialog is not None
    dialog.show()
    dialog.continue_with_selected()
    _settle(120)
    shot.grab_target = dialog


def recycle_moved_close(shot: Shot) -> None:
    dialog = shot.tab("recycle").missing_panel.dialog
    if dialog is not None:
        dialog.reject()
    _settle()


def recycle_missing_panel(shot: Shot) -> None:
    tab = shot.tab("recycle")
    tab.refresh()
    _settle()


def workspace_moved_banner(shot: Shot) -> None:
    """The Workspace tab on a workspace whose folder is gone: the banner offers the move next to Archive."""
    tab = shot.tab("workspace")
    home = Path(os.environ.get("HOME", str(Path(shot.ctx.root).parent / "home")))
    tab.moved.search_roots = [home]
    tab.refresh()
    _settle()
    gone = next(i for i in shot.ctx.store.list_workspaces() if i.display_name == "ml-experiments" and not i.cwd_exists)
    tab.select_workspace(gone.key)  # the old copy (the recycle steps made a workspace in the new folder)
    tab.detail.setCurrentIndex(0)
    _settle(120)


def workspace_moved_dialog(shot: Shot) -> None:
    """"Moved? Pick the new folder…" clicked on that banner: the Recycle Bin's move dialog."""
    tab = shot.tab("workspace")
    button = tab.ws_banner.button(tab.records.tr("Moved? Pick the new folder…"))
    assert button is not None
    button.click()
    _settle()
    dialog = tab.moved.dialog
    assert dialog is not None
    dialog.show()
    _settle(120)
    shot.grab_target = dialog


def workspace_moved_close(shot: Shot) -> None:
    dialog = shot.tab("workspace").moved.dialog
    if dialog is not None:
        dialog.reject()
    _settle()


def recycle_purge_synced(shot: Shot) -> None:
    """The purge question once sync is set up: it says synced history will be rewritten (issue 28)."""
    from gui.tabs.recycle_purge import PurgeDialog

    tab = shot.tab("recycle")
    archived = shot.ctx.store.list_workspaces(archived=True)
    tab.refresh()
    _settle()
    if not archived or not tab.select_workspace(archived[0].key):
        return
    ws = tab.selected_workspace()
    assert ws is not None
    dialog = PurgeDialog(tab.purge_question(ws), tab)
    dialog.show()
    _settle(120)
    _OPEN.append(dialog)
    shot.grab_target = dialog


def purge_close(shot: Shot) -> None:
    while _OPEN:
        _OPEN.pop().close()
    _settle()


_OPEN: list[object] = []


STEPS = [
    ("settings-sync", settings_sync),
    ("sync-review", sync_review),
    ("consolidation-sync-review", consolidation_sync_review),
    ("recycle-bin-folder-missing", recycle_missing_panel),
    ("recycle-moved-pick", recycle_moved_pick),
    ("recycle-moved-review", recycle_moved_review),
    ("_recycle-moved-close", recycle_moved_close),
    ("workspace-moved-banner", workspace_moved_banner),
    ("workspace-moved-dialog", workspace_moved_dialog),
    ("_workspace-moved-close", workspace_moved_close),
    ("recycle-purge-synced", recycle_purge_synced),
    ("_purge-close", purge_close),
]
