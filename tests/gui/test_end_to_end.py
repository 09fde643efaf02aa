"""The whole window on the real thread-pool runner and file watcher, driven like a user.

The other GUI tests run work synchronously; this one makes sure the same flows hold when loads,
commits and refreshes really run on worker threads and the watcher refreshes in between.
"""

from __future__ import annotations

from typing import Any

from core.models import PutOp, WorkspaceSnapshot
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.main_window import MainWindow
from gui.tasks import ThreadPoolTaskRunner
from tests.gui.conftest import open_store, record


def test_edit_commit_archive_restore_purge_on_worker_threads(
    ctx: AppContext, sample: dict[str, WorkspaceSnapshot], dialogs: ScriptedDialogs, qtbot: Any
) -> None:
    ctx.runner = ThreadPoolTaskRunner()
    window = MainWindow(ctx, watch=True)
    qtbot.addWidget(window)
    window.watcher.set_debounce_ms(100)
    alpha, beta = sample["alpha"], sample["beta"]
    try:
        ws = window.tabs["workspace"]
        qtbot.waitUntil(lambda: ws.snapshot is not None and window.last_status is not None, timeout=10000)
        qtbot.waitUntil(lambda: window.watcher.running, timeout=5000)

        # Edit a record, stage it, commit: one CAS commit on a worker.
        assert ws.select_workspace(alpha.key)
        qtbot.waitUntil(lambda: ws.snapshot is not None and ws.snapshot.key == alpha.key, timeout=10000)
        assert ws.select_record("code-style")
        ws.desc_edit.setText("Keep functions short and named for what they do")
        assert ws.stage_current()
        ws.commit()
        qtbot.waitUntil(lambda: not ws.staged and "Committed 1 change" in ws.banner.text, timeout=10000)
        entry = open_store(ctx.root).read_workspace(alpha.key).get("code-style")
        assert entry is not None and entry.record is not None
        assert entry.record.description == "Keep functions short and named for what they do"

        # An agent writes meanwhile: it shows up, the selection stays.
        other = open_store(ctx.root)
        other.commit(alpha.key, [PutOp(record=record("agent-fact"))], other.read_workspace(alpha.key).revision)
        qtbot.waitUntil(lambda: ws.rec_model.row_of("agent-fact") >= 0, timeout=10000)
        assert ws.editing_name == "code-style"

        # Archive beta (confirmed), then restore it from the Recycle Bin.
        assert ws.select_workspace(beta.key)
        qtbot.waitUntil(lambda: ws.snapshot is not None and ws.snapshot.key == beta.key, timeout=10000)
        dialogs.push(True)
        ws.archive_workspace()
        qtbot.waitUntil(lambda: ws.ws_model.row_of(beta.key) < 0, timeout=10000)
        assert (ctx.root / "archived" / beta.key).is_dir()
        window.show()
        window.show_tab("recycle")
        recycle = window.tabs["recycle"]
        qtbot.waitUntil(lambda: recycle.archived_model.rowCount() == 1, timeout=10000)
        assert recycle.select_workspace(beta.key)
        recycle.restore_button.click()
        qtbot.waitUntil(lambda: ws.ws_model.row_of(beta.key) >= 0, timeout=10000)
        assert (ctx.root / "workspaces" / beta.key).is_dir()
        qtbot.waitUntil(lambda: recycle.archived_model.rowCount() == 0, timeout=10000)

        # Archive it again elsewhere and purge it: the wrong name deletes nothing, the right one does.
        open_store(ctx.root).recycle.archive(beta.key)
        qtbot.waitUntil(lambda: recycle.archived_model.rowCount() == 1, timeout=10000)
        assert recycle.select_workspace(beta.key)
        dialogs.push("wrong-name")
        recycle.purge_button.click()
        qtbot.waitUntil(lambda: recycle.banner.level == "error", timeout=10000)
        assert (ctx.root / "archived" / beta.key).is_dir()
        dialogs.push(beta.info.display_name)
        recycle.purge_button.click()
        qtbot.waitUntil(lambda: not (ctx.root / "archived" / beta.key).exists(), timeout=10000)
        qtbot.waitUntil(
            lambda: window.last_status is not None and window.last_status.archived_count == 0, timeout=10000
        )
        assert window.unsaved_tabs() == []
    finally:
        window.shutdown()
