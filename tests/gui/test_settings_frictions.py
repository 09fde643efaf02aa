"""Settings frictions a new user hit (issue 14): a DNS failure named as such, a missing DSH model
list said plainly, the Language choice, the load-meter warning threshold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.settings import load_settings
from core.user_prefs import load_prefs
from gui.context import AppContext
from gui.tabs.settings import SettingsTab
from gui.tasks import ThreadPoolTaskRunner


@pytest.fixture
def tab(ctx: AppContext, qtbot: Any, tmp_path: Path) -> SettingsTab:
    widget = SettingsTab(ctx)
    widget.prefs_file = tmp_path / "config" / "prefs.yml"
    qtbot.addWidget(widget)
    widget.resize(900, 800)
    widget.refresh()
    return widget


def test_without_dsh_settings_yaml_the_tab_says_defaults_are_in_use(ctx: AppContext, tab: SettingsTab) -> None:
    assert not (ctx.dsh_home / "settings.yaml").exists()
    note = tab.catalog_note.text()
    assert "does not exist" in note and "defaults are in use" in note
    assert "Models come from" not in note


def test_language_choice_is_remembered_per_user_and_applies_after_restart(
    ctx: AppContext, tab: SettingsTab, tmp_path: Path
) -> None:
    combo = tab.language_combo
    assert [combo.itemData(i) for i in range(combo.count())] == ["system", "en", "zh_CN"]
    assert combo.itemText(2) == "简体中文" and combo.currentData() == "system"

    combo.setCurrentIndex(2)
    combo.activated.emit(2)  # what a user's pick emits
    assert load_prefs(tab.prefs_file).language == "zh_CN"
    assert "next time the app starts" in tab.language_note.text()
    assert not tab.has_unsaved_changes()  # a per-user preference, not a settings.yml edit
    assert not (ctx.root / "settings.yml").exists()

    combo.setCurrentIndex(0)
    combo.activated.emit(0)  # back to what this run shows: nothing to restart for
    assert load_prefs(tab.prefs_file).language == "system"
    assert tab.language_note.text() == ""


def test_the_load_warning_threshold_is_a_setting(ctx: AppContext, tab: SettingsTab) -> None:
    assert tab.load_warning_spin.value() == 8000
    tab.load_warning_spin.setValue(12000)
    assert tab.has_unsaved_changes()
    tab.save_button.click()
    assert load_settings(ctx.store).settings.load_warning_tokens == 12000


@pytest.fixture
def threaded_tab(ctx: AppContext, qtbot: Any) -> Iterator[SettingsTab]:
    runner = ThreadPoolTaskRunner()
    ctx.runner = runner
    widget = SettingsTab(ctx)
    qtbot.addWidget(widget)
    widget.refresh()
    qtbot.waitUntil(lambda: widget.has_unsaved_changes() is False and widget.test_button.isEnabled())
    yield widget
    widget.shutdown()
    assert runner.wait_all(20000)


def test_a_dns_failure_is_named_and_not_called_refused(threaded_tab: SettingsTab, qtbot: Any) -> None:
    tab = threaded_tab
    tab.select_model("custom")
    tab.base_url_edit.setText("http://no-such-llm-host.invalid/v1")  # .invalid never resolves (RFC 2606)
    tab.custom_model_edit.setText("m1")
    tab.key_env_edit.setText("")
    tab.test_button.click()
    qtbot.waitUntil(lambda: not tab.is_testing, timeout=20000)
    text = tab.test_result.text()
    assert text.startswith("✘ Host name not found")
    assert "no-such-llm-host.invalid" in text and "DNS" in text
    assert "refused" not in text.lower() and "Nothing is listening" not in text
    assert tab.last_connection is not None and tab.last_connection.kind == "dns"
