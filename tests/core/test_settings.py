"""settings.yml: typed round trip through the store, CAS, unknown keys kept, malformed never lost,
credentials refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from core.errors import ConfirmationRequiredError, ConflictError
from core.settings import AppSettings, CustomEndpoint, load_settings, save_settings
from core.store.fs import FileStore


@pytest.fixture
def store(tmp_path: Path) -> FileStore:
    return FileStore(tmp_path / "memory")


def test_defaults_when_absent(store: FileStore) -> None:
    loaded = load_settings(store)
    assert not loaded.exists and loaded.problem is None
    assert loaded.settings == AppSettings()
    assert loaded.settings.consolidator == "offline" and loaded.settings.debug_logging is False


def test_round_trip_with_cas(store: FileStore, tmp_path: Path) -> None:
    loaded = load_settings(store)
    wanted = loaded.settings.with_changes(
        consolidator="model",
        selected_model="custom",
        custom_endpoint=CustomEndpoint(base_url="http://127.0.0.1:8080/v1/", model="qwen3", api_key_env="LOCAL_KEY"),
        debug_logging=True,
        sessions_root="~/dsh/sessions",
    )
    saved = save_settings(store, wanted, loaded.revision)
    text = (tmp_path / "memory" / "settings.yml").read_text(encoding="utf-8")
    assert "api_key_env: LOCAL_KEY" in text
    again = load_settings(store)
    assert again.settings == wanted and again.revision == saved.revision
    assert again.settings.custom_endpoint.base_url == "http://127.0.0.1:8080/v1"  # trailing slash dropped
    assert again.settings.resolved_sessions_root() == Path.home() / "dsh" / "sessions"
    with pytest.raises(ConflictError):
        save_settings(store, wanted.with_changes(debug_logging=False), loaded.revision)  # stale revision


def test_unknown_keys_are_preserved(store: FileStore, tmp_path: Path) -> None:
    path = tmp_path / "memory" / "settings.yml"
    path.parent.mkdir(parents=True)
    path.write_text("future_option: [1, 2]\nconsolidator: model\ncustom_endpoint:\n  extra: kept\n", encoding="utf-8")
    loaded = load_settings(store)
    assert loaded.problem is None and loaded.settings.consolidator == "model"
    save_settings(store, loaded.settings.with_changes(debug_logging=True), loaded.revision)
    text = path.read_text(encoding="utf-8")
    assert "future_option:" in text and "extra: kept" in text
    assert load_settings(store).settings.model_extra == {"future_option": [1, 2]}


@pytest.mark.parametrize(
    "content",
    [
        "consolidator: [unclosed\n",
        "- just\n- a list\n",
        "consolidator: telepathy\n",
        "evidence_limit_bytes: -5\n",
    ],
)
def test_malformed_file_shows_defaults_and_is_never_overwritten_silently(
    store: FileStore, tmp_path: Path, content: str
) -> None:
    path = tmp_path / "memory" / "settings.yml"
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")
    loaded = load_settings(store)
    assert loaded.exists and loaded.problem is not None and "settings.yml" in loaded.problem
    assert loaded.settings == AppSettings()
    with pytest.raises(ConfirmationRequiredError) as caught:
        save_settings(store, AppSettings(debug_logging=True), loaded.revision)
    assert caught.value.reason == "malformed-settings"
    assert path.read_text(encoding="utf-8") == content
    save_settings(store, AppSettings(debug_logging=True), loaded.revision, replace_malformed=True)
    assert load_settings(store).settings.debug_logging is True


@pytest.mark.parametrize(
    "endpoint",
    [
        {"api_key_env": "sk-abcdef0123456789abcdef0123456789"},  # a key, not a name
        {"api_key_env": "abcd1234efgh5678ijkl9012mnop"},  # token-shaped
        {"api_key_env": "DEEPSEEK API KEY"},
        {"base_url": "https://user:hunter2@api.example.com/v1"},
        {"base_url": "https://api.example.com/v1?api_key=abc"},
        {"base_url": "ftp://api.example.com"},
    ],
)
def test_credentials_and_bad_endpoints_are_refused(endpoint: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        AppSettings.model_validate({"custom_endpoint": endpoint})


def test_credential_anywhere_is_refused_even_in_unknown_keys(store: FileStore, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="credentials"):
        AppSettings.model_validate({"note": "token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"})
    path = tmp_path / "memory" / "settings.yml"
    path.parent.mkdir(parents=True)
    path.write_text("my_key: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n", encoding="utf-8")
    loaded = load_settings(store)
    assert loaded.problem is not None and "credential" in loaded.problem
    assert "sk-proj" not in loaded.problem  # the value itself is never echoed


def test_env_var_names_are_accepted() -> None:
    for name in ("DEEPSEEK_API_KEY", "OPENROUTER_API_KEY", "my_local_key", ""):
        assert (
            AppSettings.model_validate({"custom_endpoint": {"api_key_env": name}}).custom_endpoint.api_key_env == name
        )
