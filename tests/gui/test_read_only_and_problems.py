"""Issue 9 in the window: a read-only root gets a banner and no editing; check's problems are counted
in the status line and listed with what to do."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.models import PutOp
from core.store.fs import FileStore
from gui.dialogs import ScriptedDialogs
from gui.main_window import MainWindow
from tests.gui.conftest import make_ctx, record


def _populate(root: Path, cwd: Path) -> None:
    store = FileStore(root)
    store.replace_global("# Global\n\nBe brief.\n", None)
    cwd.mkdir(parents=True)
    s = store.create_workspace(str(cwd))
    store.commit(s.key, [PutOp(record=record("build-steps", "How to build"))], s.revision)


@pytest.fixture
def ro_root(tmp_path: Path) -> Iterator[Path]:
    """A real read-only bind mount of a populated root (as the store's own tests use)."""
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        pytest.skip("a read-only bind mount needs root on Linux")
    src = tmp_path / "src"
    _populate(src, tmp_path / "projects" / "alpha")
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if subprocess.run(["mount", "--bind", str(src), str(mnt)], capture_output=True).returncode:
        pytest.skip("this machine does not allow bind mounts")
    try:
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(mnt)], capture_output=True).returncode:
            pytest.skip("this machine does not allow read-only remounts")
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_read_only_root_shows_a_banner_and_disables_editing(
    ro_root: Path, dialogs: ScriptedDialogs, tmp_path: Path, qtbot: Any
) -> None:
    ctx = make_ctx(ro_root, dialogs, tmp_path)
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    try:
        assert window.last_status is not None and window.last_status.read_only
        assert window.root_banner.level == "warning" and "read-only" in window.root_banner.text
        ws = window.tabs["workspace"]
        assert ws.current_key is not None and ws.select_record("build-steps")
        assert ws.body_edit.isReadOnly() and ws.name_edit.isReadOnly()
        ws.body_edit.insertPlainText("typed")  # as if an edit got through: Stage still stays off
        for button in (ws.stage_button, ws.new_button, ws.archive_button, ws.commit_button):
            assert not button.isEnabled(), button.text()
        glob = window.tabs["global"]
        assert glob.editor.isReadOnly() and not glob.save_button.isEnabled()
        glob.refresh()  # a reload must not give editing back
        assert glob.editor.isReadOnly() and not glob.save_button.isEnabled()
        settings = window.tabs["settings"]  # built now, after the status: still read-only
        settings.fields.tool_rounds_spin.setValue(3)
        assert settings.has_unsaved_changes() and not settings.save_button.isEnabled()
        recycle = window.tabs["recycle"]
        assert not recycle.restore_button.isEnabled() and not recycle.purge_button.isEnabled()
        review = window.tabs["consolidation"]  # a run writes its receipt: nothing to start here
        review.refresh()
        assert not review.run_button.isEnabled() and not review.commit_button.isEnabled()
        assert not review.sessions.run_all_button.isEnabled()
    finally:
        window.shutdown()


def test_check_problems_counted_and_listed_with_what_to_do(
    ctx: Any, main_window: Any, dialogs: ScriptedDialogs, tmp_path: Path
) -> None:
    window: MainWindow = main_window
    assert not window.status_bar.problems_button.isVisibleTo(window)
    assert not window.root_banner.isVisibleTo(window)
    assert not window.tabs["global"].editor.isReadOnly()  # a writable root: editing is on
    store = ctx.store
    cwd = tmp_path / "projects" / "beta"
    cwd.mkdir(parents=True)
    store.create_workspace(str(cwd))
    (ctx.root / "workspaces" / "stray.txt").write_text("not a workspace\n")
    window.refresh_status()
    button = window.status_bar.problems_button
    assert button.isVisibleTo(window) and button.text() == "⚠ 1 problem"
    assert "1 problem" in window.status_bar.summary()
    button.click()
    dialog = window.problems_dialog
    assert dialog.isVisible() and dialog.windowTitle() == "Problems in this memory root"
    item = dialog.tree.topLevelItem(0)
    assert "stray.txt" in item.text(0) and "move it elsewhere" in item.child(0).text(0)
    dialog.close()
