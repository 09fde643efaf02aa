"""The usage ledger in the window (real widgets, offscreen): the Last used column and its
tooltip, the record pane's usage line, the review queue's usage views and the load meter."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from core.models import WorkspaceSnapshot
from core.usage import note_served
from gui.context import AppContext
from gui.qtmodels.roles import KEY_ROLE
from gui.tabs.maintenance import MaintenanceTab
from gui.tabs.workspace import WorkspaceTab
from tests.core.usage.usage_logs import call, injected, write_log
from tests.gui.conftest import record, seed_workspace

DAY = 86_400


@pytest.fixture(autouse=True)
def english_plurals(qapp: Any) -> Any:
    """The window's English plural forms ("2 sessions"), as the app installs them."""
    from gui.i18n import install_translators, remove_translators

    translators = install_translators(qapp, "en")
    yield
    remove_translators(qapp, translators)


@pytest.fixture
def used(ctx: AppContext, tmp_path: Path) -> WorkspaceSnapshot:
    """A workspace of three records: one read in two sessions (after the index was loaded) and
    matched by a grep, one served over MCP, one never used and a year old."""
    project = tmp_path / "proj"
    project.mkdir()
    snap = seed_workspace(
        ctx.store,
        project,
        [
            record("deploy-steps", body="Deploy with make release."),
            record("code-style", body="Tabs in Go."),
            record("old-idea", body="We once tried Bazel."),
        ],
    )
    ws = ctx.root / "workspaces" / snap.key
    year_ago = time.time() - 400 * DAY
    os.utime(ws / "old-idea.md", (year_ago, year_ago))
    start = injected(1, [("memory:workspace-index", ctx.store.read_workspace(snap.key).index_text)])
    read = call(2, "read", {"file_path": f"{ws}/deploy-steps.md"})
    write_log(
        ctx.sessions_root, "s1", str(project), [start, read, call(3, "grep", {"pattern": "release", "path": str(ws)})]
    )
    write_log(ctx.sessions_root, "s2", str(project), [start, read])
    note_served(ctx.store, snap.key, ["code-style"], "memory_read", "claude-code")
    return snap


def _rows(tab: WorkspaceTab) -> dict[str, tuple[str, str]]:
    proxy = tab.records.proxy
    out = {}
    for r in range(proxy.rowCount()):
        name = proxy.index(r, 0).data(KEY_ROLE)
        cell = proxy.index(r, 5)
        out[name] = (cell.data(), cell.data(Qt.ItemDataRole.ToolTipRole))
    return out


def test_last_used_column_tooltip_and_usage_line(ctx: AppContext, used: WorkspaceSnapshot, qtbot: Any) -> None:
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    glue = tab.usage
    tab.refresh()
    assert tab.select_workspace(used.key)
    header = tab.records.model.headerData(5, Qt.Orientation.Horizontal)
    assert header == "Last used" and not tab.records.view.isColumnHidden(5)
    rows = _rows(tab)
    log_day = datetime.fromtimestamp(1_785_000_000, UTC)
    days = (datetime.now(UTC) - log_day).days
    assert rows["deploy-steps"][0] in (f"{days // 30} months ago", f"{days} days ago")
    assert rows["code-style"][0] == "today"  # served over MCP just now
    assert rows["old-idea"][0] == "never"
    tip = rows["deploy-steps"][1]
    assert "opened: 2 (in 2 sessions)" in tip and "matched a search: 1 (in 1 session)" in tip
    assert "session s1 · seq 2" in tip and "Read after the index was loaded in 2 sessions" in tip
    assert "MCP client claude-code" in rows["code-style"][1]
    # Sorting by Last used: the never-used record first (ascending), the MCP one last.
    tab.records.view.sortByColumn(5, Qt.SortOrder.AscendingOrder)
    order = [tab.records.proxy.index(r, 0).data(KEY_ROLE) for r in range(tab.records.proxy.rowCount())]
    assert order == ["old-idea", "deploy-steps", "code-style"]
    tab.select_record("deploy-steps")
    line = glue.label.text()
    assert line.startswith("Agents: opened in 2 sessions; matched 1 time in searches; last used "), line
    assert glue.label.isVisibleTo(tab)
    tab.select_record("old-idea")
    assert glue.label.text() == "No agent has used this record yet (in the sessions and MCP reads counted so far)."


def test_before_any_session_is_counted_the_column_stays_empty(ctx: AppContext, tmp_path: Path, qtbot: Any) -> None:
    (tmp_path / "p").mkdir()
    snap = seed_workspace(ctx.store, tmp_path / "p", [record("alpha")])
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    glue = tab.usage
    tab.refresh()  # no DSH session anywhere: the ledger is empty, so "never" would be a guess
    assert tab.select_workspace(snap.key)
    assert _rows(tab)["alpha"][0] == ""
    assert tab.records.view.isColumnHidden(5)  # no empty column taking the Description's room
    assert tab.select_record("alpha") and glue.label.text() == ""


def test_review_queue_usage_views_sorted(ctx: AppContext, used: WorkspaceSnapshot, qtbot: Any) -> None:
    for _ in range(11):
        note_served(ctx.store, used.key, ["old-idea"], "memory_read", "codex")
    tab = MaintenanceTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    panel = tab.stale
    panel.start_scan()
    panel.reason_box.setCurrentIndex(panel.reason_box.findData("used-unchanged"))
    proxy = panel.proxy
    rows = [
        (proxy.index(r, 0).data(), proxy.index(r, 4).data(), proxy.index(r, 3).data()) for r in range(proxy.rowCount())
    ]
    assert rows == [("old-idea", "used 11 times, never changed in 400 days", "11 uses, last today")]
    assert panel.reason_box.currentText() == "Used often, never changed"
    panel.reason_box.setCurrentIndex(panel.reason_box.findData("never-used"))
    assert proxy.rowCount() == 0  # every record here was used (old-idea over MCP)
    assert panel.table.horizontalHeader().sortIndicatorSection() == 4  # Details: never used the longest first


def test_load_meter_shows_the_bytes_followed_by_a_read(ctx: AppContext, used: WorkspaceSnapshot, qtbot: Any) -> None:
    from core.usage import UsageLedger

    UsageLedger(ctx.store, ctx.sessions_root).update()
    tab = MaintenanceTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    tab.loads.reload()
    model = tab.loads.model
    assert model.headerData(7, Qt.Orientation.Horizontal) == "Led to a read"
    index = ctx.store.read_workspace(used.key).index_text
    line = next(x for x in index.splitlines(keepends=True) if x.startswith("- [deploy-steps]"))
    share = round(100 * len(line.encode()) / len(index.encode()))
    cell = model.index(0, 7)
    assert cell.data() == f"{share} % (2 sessions)"
    assert "1 of its records were then opened" in cell.data(Qt.ItemDataRole.ToolTipRole)


def test_a_session_that_used_a_record_opens_in_session_consolidation(
    main_window: Any, ctx: AppContext, used: WorkspaceSnapshot, qtbot: Any
) -> None:
    """Issue 30: the sessions behind a record's use are each openable in the Session Consolidation tab."""
    from gui.tabs.consolidation import ConsolidationTab

    workspace = main_window.tabs["workspace"]
    workspace.refresh()
    assert workspace.select_workspace(used.key)
    menu = workspace.usage.session_menu("deploy-steps")
    assert menu is not None
    labels = [a.text() for a in menu.actions()]
    assert sorted(labels) == [
        "Open session s1 in Session Consolidation",
        "Open session s2 in Session Consolidation",
    ]
    assert workspace.usage.session_menu("old-idea") is None  # never used: nothing to open
    assert workspace.usage.session_menu("code-style") is None  # served over MCP: no session behind it
    next(a for a in menu.actions() if "s1" in a.text()).trigger()
    tab = main_window.tabs["consolidation"]
    assert isinstance(tab, ConsolidationTab)
    assert main_window.tab_widget.currentWidget() is not None
    qtbot.waitUntil(lambda: (row := tab.selected_session()) is not None and row.summary.id == "s1")
    assert main_window.tab_widget.tabText(main_window.tab_widget.currentIndex()) == "Session Consolidation"
