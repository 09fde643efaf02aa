"""The Settings tab: load / edit / save round trip, CAS conflicts, no credentials, test connection
against a real loopback HTTP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.model_catalog import parse_model_catalog
from core.store.files import SETTINGS
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.qtmodels.settings_models import DEFAULT_KEY, ModelChoicesModel
from gui.tabs.settings import SettingsTab
from gui.tasks import ThreadPoolTaskRunner

KEY_VALUE = "sk-test0123456789abcdef0123456789abcdef"  # what must never show up anywhere

DSH_SETTINGS_YAML = """\
agent-default-model: deepseek/deepseek-v4-pro
llm-deepseek:
  apiKeyEnv: DEEPSEEK_API_KEY
  models:
    - deepseek-v4-flash
    - id: deepseek-v4-pro
      label: DeepSeek V4 Pro
llm-pi-ai:
  providers:
    openrouter:
      baseUrl: https://openrouter.ai/api/v1
      apiKeyEnv: OPENROUTER_API_KEY
      api: openai-completions
      models:
        - id: qwen/qwen3-coder
          name: Qwen3 Coder
          input: [text]
        - id: vision-only
          input: [image]
"""


@pytest.fixture
def home(ctx: AppContext) -> Path:
    (ctx.dsh_home / "settings.yaml").write_text(DSH_SETTINGS_YAML, encoding="utf-8")
    return ctx.dsh_home


@pytest.fixture
def tab(ctx: AppContext, home: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> SettingsTab:
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY_VALUE)
    widget = SettingsTab(ctx)
    qtbot.addWidget(widget)
    widget.resize(900, 800)
    widget.refresh()
    return widget


def _settings_file(ctx: AppContext) -> Path:
    return ctx.root / "settings.yml"


def _all_texts(tab: SettingsTab) -> str:
    from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit

    parts = [w.text() for w in tab.findChildren(QLabel)] + [w.text() for w in tab.findChildren(QLineEdit)]
    for combo in tab.findChildren(QComboBox):
        parts += [combo.itemText(i) for i in range(combo.count())]
        parts += [str(combo.itemData(i, 3)) for i in range(combo.count())]  # tooltips
    return "\n".join(parts)


def test_models_come_from_dsh_settings_with_key_names_only(tab: SettingsTab) -> None:
    labels = [tab.model_combo.itemText(i) for i in range(tab.model_combo.count())]
    assert labels[0] == "DSH's default model (DeepSeek · DeepSeek V4 Pro)"
    assert "DeepSeek · deepseek-v4-flash  —  key from DEEPSEEK_API_KEY" in labels
    assert "openrouter · Qwen3 Coder  —  key from OPENROUTER_API_KEY" in labels
    assert not any("vision-only" in label for label in labels)  # not a text model
    assert labels[-1] == "Custom OpenAI-compatible endpoint…"
    assert tab.selected_row() is not None and tab.selected_row().key == DEFAULT_KEY  # type: ignore[union-attr]
    assert "DEEPSEEK_API_KEY (is set)" in tab.model_details.text()
    assert KEY_VALUE not in _all_texts(tab)
    assert not tab.custom_box.isEnabled()
    assert tab.has_unsaved_changes() is False
    assert not tab.save_button.isEnabled()
    assert tab.memory_root_edit.isReadOnly() and tab.memory_root_edit.text() == str(tab.ctx.root)
    assert tab.error_text() is None


def test_edit_and_save_round_trip(ctx: AppContext, tab: SettingsTab, tmp_path: Path, qtbot: Any) -> None:
    _settings_file(ctx).write_text("future_option: 7\ndebug_logging: false\n", encoding="utf-8")
    tab.refresh()
    sessions = tmp_path / "my-sessions"
    sessions.mkdir()
    asked: list[str] = []

    def choose(_parent: Any, title: str, start: str) -> str:
        asked.append(start)
        return str(sessions)

    tab.choose_directory = choose
    tab.consolidator_combo.setCurrentIndex(tab.consolidator_combo.findData("model"))
    tab.select_model("custom")
    assert tab.custom_box.isEnabled()
    assert not tab.custom_error.isHidden() and not tab.save_button.isEnabled()  # incomplete custom endpoint
    tab.base_url_edit.setText("http://127.0.0.1:8080/v1/")
    tab.custom_model_edit.setText("qwen3-coder")
    tab.key_env_edit.setText("LOCAL_LLM_KEY")
    tab.debug_box.setChecked(True)
    tab.timeout_spin.setValue(45)
    tab.quiet_spin.setValue(300)
    tab.browse_button.click()
    assert asked and tab.sessions_root_edit.text() == str(sessions)
    assert tab.has_unsaved_changes() and tab.save_button.isEnabled()

    tab.save_button.click()

    assert tab.banner.level == "ok", tab.banner.text
    data = yaml.safe_load(_settings_file(ctx).read_text(encoding="utf-8"))
    assert data["consolidator"] == "model"
    assert data["selected_model"] == "custom"
    assert data["custom_endpoint"] == {
        "base_url": "http://127.0.0.1:8080/v1",
        "model": "qwen3-coder",
        "api_key_env": "LOCAL_LLM_KEY",
    }
    assert data["debug_logging"] is True
    assert data["sessions_root"] == str(sessions)
    assert data["request_timeout_seconds"] == 45 and data["quiet_period_seconds"] == 300
    assert data["future_option"] == 7  # unknown keys survive
    assert ctx.sessions_root == sessions
    assert not tab.has_unsaved_changes() and not tab.save_button.isEnabled()

    again = SettingsTab(ctx)
    qtbot.addWidget(again)
    again.refresh()
    assert again.consolidator_combo.currentData() == "model"
    assert again.selected_row() is not None and again.selected_row().key == "custom"  # type: ignore[union-attr]
    assert again.base_url_edit.text() == "http://127.0.0.1:8080/v1"
    assert again.key_env_edit.text() == "LOCAL_LLM_KEY"
    assert again.debug_box.isChecked()
    assert again.sessions_root_edit.text() == str(sessions)
    assert again.timeout_spin.value() == 45 and again.quiet_spin.value() == 300

    # Pick one of DSH's own models and save again: only its id is written.
    again.select_model("openrouter/qwen/qwen3-coder")
    again.save()
    data = yaml.safe_load(_settings_file(ctx).read_text(encoding="utf-8"))
    assert data["selected_model"] == "openrouter/qwen/qwen3-coder"
    assert KEY_VALUE not in _settings_file(ctx).read_text(encoding="utf-8")


def test_a_key_in_the_variable_name_field_is_refused(ctx: AppContext, tab: SettingsTab) -> None:
    tab.select_model("custom")
    tab.base_url_edit.setText("https://api.example.com/v1")
    tab.custom_model_edit.setText("m1")
    tab.key_env_edit.setText(KEY_VALUE)

    assert not tab.custom_error.isHidden()
    assert "looks like a key" in tab.custom_error.text()
    assert not tab.save_button.isEnabled()
    tab.save()  # even when forced
    assert tab.banner.level == "error" and "Not saved" in tab.banner.text
    assert not _settings_file(ctx).exists()

    # A key pasted into the field while another model is chosen still blocks saving.
    tab.select_model("deepseek/deepseek-v4-flash")
    assert not tab.save_button.isEnabled()
    tab.key_env_edit.setText("MY_LLM_KEY")
    assert tab.save_button.isEnabled()
    tab.save()
    assert tab.banner.level == "ok"
    assert KEY_VALUE not in _settings_file(ctx).read_text(encoding="utf-8")


def test_save_conflict_offers_reload(ctx: AppContext, tab: SettingsTab, dialogs: ScriptedDialogs) -> None:
    tab.debug_box.setChecked(True)
    _text, revision = ctx.store.files(SETTINGS).read_revised()
    ctx.store.files(SETTINGS).replace("consolidator: model\ndebug_logging: false\n", revision)  # someone else
    on_disk = _settings_file(ctx).read_bytes()

    tab.save_button.click()

    assert _settings_file(ctx).read_bytes() == on_disk  # nothing written
    assert tab.banner.level == "warning"
    assert "changed by someone else" in tab.banner.text and "Nothing was saved" in tab.banner.text
    assert tab.has_unsaved_changes()
    reload_button = tab.banner.button("Reload")
    assert reload_button is not None
    reload_button.click()
    assert tab.consolidator_combo.currentData() == "model"
    assert not tab.debug_box.isChecked()
    assert not tab.has_unsaved_changes()


def test_save_conflict_keep_mine_overwrites_after_confirmation(
    ctx: AppContext, tab: SettingsTab, dialogs: ScriptedDialogs
) -> None:
    tab.debug_box.setChecked(True)
    _text, revision = ctx.store.files(SETTINGS).read_revised()
    ctx.store.files(SETTINGS).replace("consolidator: model\n", revision)
    tab.save()
    keep = tab.banner.button("Keep mine…")
    assert keep is not None
    dialogs.push(True)
    keep.click()
    data = yaml.safe_load(_settings_file(ctx).read_text(encoding="utf-8"))
    assert data["debug_logging"] is True and data["consolidator"] == "offline"
    assert tab.banner.level == "ok"


def test_unsaved_edits_survive_an_external_change(ctx: AppContext, tab: SettingsTab) -> None:
    tab.debug_box.setChecked(True)
    _text, revision = ctx.store.files(SETTINGS).read_revised()
    ctx.store.files(SETTINGS).replace("consolidator: model\n", revision)
    tab.refresh()  # e.g. the file watcher
    assert tab.debug_box.isChecked()
    assert tab.consolidator_combo.currentData() == "offline"
    assert tab.banner.level == "warning" and "changed on disk" in tab.banner.text


def test_a_malformed_file_is_replaced_only_after_asking(
    ctx: AppContext, home: Path, qtbot: Any, dialogs: ScriptedDialogs
) -> None:
    ctx.root.mkdir(parents=True, exist_ok=True)
    _settings_file(ctx).write_text("consolidator: [oops\n", encoding="utf-8")
    tab = SettingsTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    assert tab.banner.level == "warning" and "not valid YAML" in tab.banner.text
    # One readable sentence with the place, not the parser's code echo and carets.
    assert "\n" not in tab.banner.text and "^" not in tab.banner.text and "<unicode string>" not in tab.banner.text
    assert "(line 2, column 1)" in tab.banner.text
    tab.debug_box.setChecked(True)

    dialogs.push(False)
    tab.save()
    assert _settings_file(ctx).read_text(encoding="utf-8") == "consolidator: [oops\n"
    assert "left as it is" in tab.banner.text

    dialogs.push(True)
    tab.save()
    assert yaml.safe_load(_settings_file(ctx).read_text(encoding="utf-8"))["debug_logging"] is True


# --- test connection against a real loopback server ---------------------------------------------------


class _Server:
    """An OpenAI-style ``GET /v1/models`` on 127.0.0.1 (ephemeral port), in a thread."""

    def __init__(self, status: int = 200, hold: bool = False) -> None:
        self.status = status
        self.hold = hold
        self.release = threading.Event()
        self.got_request = threading.Event()
        self.auth: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.auth.append(self.headers.get("Authorization", ""))
                server.got_request.set()
                if server.hold:
                    server.release.wait(10)
                if self.path != "/v1/models":
                    body, code = b'{"error": {"message": "no such route"}}', 404
                elif server.status == 200:
                    body, code = json.dumps({"data": [{"id": "m1"}, {"id": "m2"}]}).encode(), 200
                else:
                    body, code = b'{"error": {"message": "upstream exploded"}}', server.status
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up (cancel / timeout)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = False  # server_close() joins every request thread
        self.httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=lambda: self.httpd.serve_forever(0.05), name="loopback-model", daemon=True
        )

    def __enter__(self) -> _Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)


@pytest.fixture
def threaded_tab(ctx: AppContext, home: Path, qtbot: Any) -> Iterator[SettingsTab]:
    runner = ThreadPoolTaskRunner()
    ctx.runner = runner
    widget = SettingsTab(ctx)
    qtbot.addWidget(widget)
    widget.refresh()
    qtbot.waitUntil(lambda: widget.has_unsaved_changes() is False and widget.test_button.isEnabled())
    yield widget
    widget.shutdown()
    assert runner.wait_all(20000)


def _point_at(tab: SettingsTab, base_url: str, key_env: str = "DSH_TEST_LLM_KEY") -> None:
    tab.select_model("custom")
    tab.base_url_edit.setText(base_url)
    tab.custom_model_edit.setText("m1")
    tab.key_env_edit.setText(key_env)


def _run_test(tab: SettingsTab, qtbot: Any) -> str:
    tab.test_button.click()
    qtbot.waitUntil(lambda: not tab.is_testing, timeout=20000)
    return tab.test_result.text()


def test_connection_ok(threaded_tab: SettingsTab, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSH_TEST_LLM_KEY", KEY_VALUE)
    with _Server() as server:
        _point_at(threaded_tab, server.base_url)
        text = _run_test(threaded_tab, qtbot)
    assert threaded_tab.last_connection is not None and threaded_tab.last_connection.ok
    assert text.startswith("✔ Connection OK.") and " ms" in text
    assert server.auth == [f"Bearer {KEY_VALUE}"]
    assert KEY_VALUE not in _all_texts(threaded_tab)
    threaded_tab.base_url_edit.setText("http://127.0.0.1:1/v1")  # another endpoint: old result hidden
    assert threaded_tab.test_result.isHidden() and threaded_tab.last_connection is None


def test_connection_http_500(threaded_tab: SettingsTab, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSH_TEST_LLM_KEY", KEY_VALUE)
    with _Server(status=500) as server:
        _point_at(threaded_tab, server.base_url)
        text = _run_test(threaded_tab, qtbot)
    assert text.startswith("✘ HTTP 500")
    assert "upstream exploded" in text


def test_connection_missing_env_var(threaded_tab: SettingsTab, qtbot: Any) -> None:
    with _Server() as server:
        _point_at(threaded_tab, server.base_url, key_env="DSH_TEST_UNSET_KEY")
        text = _run_test(threaded_tab, qtbot)
        assert not server.got_request.is_set()  # no request without the key
    assert text.startswith("✘ API key variable not set")
    assert "DSH_TEST_UNSET_KEY" in text


def test_connection_refused(threaded_tab: SettingsTab, qtbot: Any) -> None:
    with _Server() as server:
        base_url = server.base_url
    _point_at(threaded_tab, base_url, key_env="")  # the server is closed now: nothing listens there
    text = _run_test(threaded_tab, qtbot)
    assert text.startswith("✘ Connection refused")


def test_connection_timeout_and_cancel(threaded_tab: SettingsTab, qtbot: Any) -> None:
    threaded_tab.test_timeout_seconds = 0.5
    with _Server(hold=True) as server:
        _point_at(threaded_tab, server.base_url, key_env="")
        text = _run_test(threaded_tab, qtbot)
        assert text.startswith("✘ Timed out")

        threaded_tab.test_timeout_seconds = 30
        server.got_request.clear()
        threaded_tab.test_button.click()
        assert threaded_tab.is_testing and threaded_tab.cancel_test_button.isEnabled()
        assert not threaded_tab.test_button.isEnabled()
        qtbot.waitUntil(server.got_request.is_set, timeout=20000)
        threaded_tab.cancel_test_button.click()
        qtbot.waitUntil(lambda: not threaded_tab.is_testing, timeout=20000)
        assert threaded_tab.test_result.text().startswith("✘ Cancelled")
        assert threaded_tab.test_button.isEnabled() and not threaded_tab.cancel_test_button.isEnabled()


def test_model_choices_model_passes_modeltester(qtmodeltester: Any) -> None:
    model = ModelChoicesModel()
    qtmodeltester.check(model)
    model.set_catalog(parse_model_catalog(DSH_SETTINGS_YAML))
    qtmodeltester.check(model)
    assert model.rowCount() == 5  # default + 3 text models + custom
    model.set_catalog(parse_model_catalog(None))
    qtmodeltester.check(model)
    assert [model.row(i).key for i in range(model.rowCount())] == [
        DEFAULT_KEY,
        "deepseek/deepseek-v4-flash",
        "deepseek/deepseek-v4-pro",
        "custom",
    ]
