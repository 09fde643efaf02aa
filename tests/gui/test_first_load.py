"""The window's first load on a big root (issue 15): the workspace names first, their counts and the
status line once the counted list is in (one scan of the root for both), and the summaries of a
root changed while the window was closed are the new ones, never the cached old ones."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

import core.fingerprint as fingerprint_mod
from core.records import render_record
from core.store.fs import FileStore
from gui.context import AppContext
from gui.main_window import MainWindow
from gui.tasks import ThreadPoolTaskRunner
from tests.gui.conftest import record


class GatedStore(FileStore):
    """A real file store whose counted listing of active workspaces waits for ``gate`` (a big root's
    ~1 s of stat calls, held open so the test can look at the window meanwhile)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.gate = threading.Event()
        self.counted_lists = 0

    def list_workspaces(self, *, archived: bool = False, counts: bool = True) -> list[Any]:
        if counts and not archived:
            self.counted_lists += 1
            self.gate.wait(20)
        return super().list_workspaces(archived=archived, counts=counts)


def _records_column(window: MainWindow) -> list[str]:
    model = window.tabs["workspace"].ws_model
    return [model.index(r, 1).data() for r in range(model.rowCount())]


def test_names_show_first_then_counts_and_status_fill_in(ctx: AppContext, sample: dict[str, Any], qtbot: Any) -> None:
    store = GatedStore(Path(ctx.root))
    ctx.store = store
    ctx.runner = ThreadPoolTaskRunner()
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    ws = window.tabs["workspace"]
    try:
        # The counted listing is held: the list is there anyway, and the first workspace's records.
        qtbot.waitUntil(lambda: ws.ws_model.rowCount() == 3 and ws.rec_model.rowCount() > 0, timeout=10000)
        assert _records_column(window) == ["…", "…", "…"]
        assert "Counting records…" in ws.ws_model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
        assert window.last_status is None
        assert "workspaces" not in window.status_bar.summary()
        ws.ws_filter.setText("beta")  # the list responds while the counts are still coming
        assert ws.ws_proxy.rowCount() == 1
        ws.ws_filter.clear()

        store.gate.set()
        qtbot.waitUntil(lambda: window.last_status is not None, timeout=10000)
        qtbot.waitUntil(lambda: "…" not in _records_column(window), timeout=10000)
        assert _records_column(window) == ["3", "1", "1"]  # alpha, gone, 项目-beta
        assert "3 workspaces" in window.status_bar.summary()
        assert window.last_status.total_bytes > 0
        assert store.counted_lists == 1  # the status line summed the list: no second scan of the root
    finally:
        store.gate.set()
        window.shutdown()


def test_workspace_changed_while_closed_shows_its_new_summary(
    ctx: AppContext, sample: dict[str, Any], qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The persisted summaries are trusted only for scopes whose files kept their stat: a record
    added by hand and one made invalid while no window was open show up in the next window."""
    monkeypatch.setattr(fingerprint_mod, "RACY_WINDOW_NS", 0)  # trust files this test just wrote
    first = MainWindow(ctx, watch=False)
    qtbot.addWidget(first)
    ws = first.tabs["workspace"]
    alpha = sample["alpha"]
    row = ws.ws_model.row_of(alpha.key)
    before = ws.ws_model.index(row, 1).data()
    bytes_before = first.last_status.total_bytes if first.last_status else 0
    first.shutdown()
    first.close()

    folder = Path(ctx.root) / "workspaces" / alpha.key
    for name in ("written-by-hand", "another-by-hand"):
        (folder / f"{name}.md").write_bytes(render_record(record(name, "Added with an editor")))
    victim = next(e.file_name for e in alpha.entries if e.is_valid)
    (folder / victim).write_bytes(b"no front matter any more\n")

    second = MainWindow(ctx, watch=False)
    qtbot.addWidget(second)
    ws = second.tabs["workspace"]
    row = ws.ws_model.row_of(alpha.key)
    assert (before, ws.ws_model.index(row, 1).data()) == ("3", "4")  # 3 + 2 added - 1 made invalid
    assert ws.ws_model.index(row, 2).data() == "2 invalid file(s)"  # (no English .qm: the source text)
    fresh = FileStore(Path(ctx.root)).list_workspaces()
    assert [str(i.record_count) for i in fresh] == _records_column(second)
    assert second.last_status is not None and second.last_status.total_bytes != bytes_before
    second.shutdown()
