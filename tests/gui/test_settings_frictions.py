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
    combo.activated.emit(2)  # what a user's pick emits: an edit, like every other setting
    assert tab.has_unsaved_changes() and tab.save_button.isEnabled()
    assert not tab.prefs_file.exists()  # nothing saved yet
    tab.revert_button.click()
    assert combo.currentData() == "system" and not tab.has_unsaved_changes()

    combo.setCurrentIndex(2)
    tab.save_button.click()
    assert load_prefs(tab.prefs_file).language == "zh_CN"
    assert "next time the app starts" in tab.language_note.text()
    assert not tab.has_unsaved_changes()
    assert not (ctx.root / "settings.yml").exists()  # a per-user preference, not a settings.yml edit
    restart = tab.banner.button("Restart now")
    assert restart is not None  # and a restart is offered

    combo.setCurrentIndex(0)
    tab.save_button.click()  # back to what this run shows: nothing to restart for
    assert load_prefs(tab.prefs_file).language == "system"
    assert tab.language_note.text() == ""


def test_restart_now_closes_the_window_and_starts_the_app_again(
    ctx: AppContext, qtbot: Any, tmp_path: Path
) -> None:
    from PySide6.QtWidgets import QMainWindow

    window = QMainWindow()
    qtbot.addWidget(window)
    tab = SettingsTab(ctx)
    tab.prefs_file = tmp_path / "config" / "prefs.yml"
    window.setCentralWidget(tab)
    tab.refresh()
    window.show()
    started: list[bool] = []
    tab.relaunch = lambda: started.append(True)
    tab.language_combo.setCurrentIndex(1)
    tab.save_button.click()
    restart = tab.banner.button("Restart now")
    assert restart is not None
    restart.click()
    assert started == [True] and not window.isVisible()


def test_a_restart_starts_the_app_as_it_was_started_without_a_one_run_lang() -> None:
    from gui.launcher import relaunch_command

    script = ["/bin/dsh-memory", "--lang", "zh_CN", "--root", "/m"]
    assert relaunch_command(script, "/py", frozen=False, module=None) == ["/py", "/bin/dsh-memory", "--root", "/m"]
    as_module = ["x.py", "--lang=en"]
    assert relaunch_command(as_module, "/py", frozen=False, module="gui.launcher") == ["/py", "-m", "gui.launcher"]
    app = "/opt/dsh-memory/dsh-memory"
    assert relaunch_command([app, "--demo"], app, frozen=True, module=None) == [app, "--demo"]


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
