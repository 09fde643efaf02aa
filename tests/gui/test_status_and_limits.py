"""The status line's "N pending" (issue 13), refreshed by the watcher, and the limits in Settings
(issues 10 and 16)."""

from __future__ import annotations

from typing import Any

from core.settings import load_settings
from core.store.files import AGENT_PROPOSALS, REVIEW_STATES
from gui.context import AppContext
from gui.main_window import MainWindow
from gui.tabs.settings import SettingsTab


def test_status_line_counts_pending_reviews_and_proposals(ctx: AppContext, main_window: Any) -> None:
    window: MainWindow = main_window
    window.refresh_status()
    assert window.status_bar.pending_label.text() == ""  # nothing waiting: nothing said
    ctx.store.files(AGENT_PROPOSALS).write("p-1", "{}")
    ctx.store.files(REVIEW_STATES).write("r-1", "{}")
    ctx.store.files(REVIEW_STATES).write("r-2", "{}")
    window.refresh_status()
    assert window.status_bar.pending_label.text() == "3 pending"
    assert "2 consolidation reviews and 1 agent proposal" in window.status_bar.pending_label.toolTip()
    assert "3 pending" in window.status_bar.summary()


def test_watcher_refreshes_the_pending_count(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.files(AGENT_PROPOSALS).write("p-1", "{}")
    window = MainWindow(ctx, watch=True)
    window.watcher.set_debounce_ms(100)
    qtbot.addWidget(window)
    try:
        assert window.status_bar.pending_label.text() == "1 pending"
        assert window.watcher.running
        ctx.store.files(AGENT_PROPOSALS).write("p-2", "{}")  # an agent proposes through MCP meanwhile
        qtbot.waitUntil(lambda: window.status_bar.pending_label.text() == "2 pending", timeout=5000)
        ctx.store.files(REVIEW_STATES).write("r-1", "{}")  # review-state/ appears: watched from the next status
        qtbot.waitUntil(lambda: window.status_bar.pending_label.text() == "3 pending", timeout=5000)
        ctx.store.files(AGENT_PROPOSALS).delete("p-1")
        qtbot.waitUntil(lambda: window.status_bar.pending_label.text() == "2 pending", timeout=5000)
    finally:
        window.shutdown()


def test_limits_are_edited_and_saved(ctx: AppContext, qtbot: Any) -> None:
    tab = SettingsTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    f = tab.fields
    assert f.review_age_spin.value() == 30 and f.review_count_spin.value() == 50
    assert f.input_budget_spin.value() == 256 and f.tool_rounds_spin.value() == 6
    assert not tab.has_unsaved_changes()
    f.review_age_spin.setValue(7)
    f.review_count_spin.setValue(20)
    f.input_budget_spin.setValue(128)
    f.tool_rounds_spin.setValue(0)
    assert tab.has_unsaved_changes() and tab.save_button.isEnabled()
    tab.save()
    saved = load_settings(ctx.store).settings
    assert saved.pending_review_max_age_days == 7
    assert saved.pending_review_max_count == 20
    assert saved.model_input_budget_bytes == 128_000
    assert saved.tool_rounds == 0
    assert not tab.has_unsaved_changes()
    assert f.input_budget_spin.minimum() == 8  # the settings model's own lower bound (8,000 bytes)
