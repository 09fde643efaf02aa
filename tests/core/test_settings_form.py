"""core.settings_form: the Settings form's problems and the connection test's outcome, without Qt."""

from __future__ import annotations

import socket

import pytest

from core.consolidation.chat import ConnectionReport, check_connection
from core.settings import AppSettings
from core.settings_form import SettingsForm, readable_problem, summarize_connection


def _form(**changes: object) -> SettingsForm:
    values: dict[str, object] = {
        "consolidator": "model",
        "selected_model": None,
        "base_url": "",
        "custom_model": "",
        "api_key_env": "",
        "debug_logging": False,
        "sessions_root": None,
        "request_timeout_seconds": 60.0,
        "quiet_period_seconds": 120.0,
    }
    values.update(changes)
    return SettingsForm(**values)  # type: ignore[arg-type]


def test_custom_fields_block_saving_only_when_they_matter() -> None:
    assert _form().save_problems() == []
    assert _form(selected_model="custom").save_problems() == ["A custom endpoint needs a base URL and a model name."]
    keyish = _form(api_key_env="sk-" + "0123456789abcdef" * 2)  # a key typed where its NAME belongs
    assert keyish.custom_fields_matter() and any("looks like a key" in p for p in keyish.save_problems())
    with pytest.raises(ValueError):
        _form(selected_model="custom", base_url="ftp://x").custom_choice()


def test_to_settings_and_custom_choice() -> None:
    form = _form(selected_model="custom", base_url="http://127.0.0.1:9/v1", custom_model="m", api_key_env="MY_KEY")
    settings = form.to_settings(AppSettings())
    assert settings.selected_model == "custom" and settings.custom_endpoint.model == "m"
    choice = form.custom_choice()
    assert (choice.base_url, choice.model, choice.api_key_env) == ("http://127.0.0.1:9/v1", "m", "MY_KEY")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_connection_outcomes_come_from_the_report_fields_not_its_text() -> None:
    base = _form(selected_model="custom", custom_model="m")
    refused = base.__class__(**{**base.__dict__, "base_url": f"http://127.0.0.1:{_closed_port()}/v1"})
    report = check_connection(refused.custom_choice(), timeout_seconds=5, env={})
    assert report.reason == "refused" and summarize_connection(report).headline == "Connection refused"
    no_key = base.__class__(**{**refused.__dict__, "api_key_env": "NOT_SET_KEY"})
    report = check_connection(no_key.custom_choice(), timeout_seconds=5, env={})
    assert report.reason == "no-key" and summarize_connection(report).headline == "API key variable not set"
    # The words alone decide nothing: a message that mentions a timeout is not a timeout.
    odd = ConnectionReport(False, "the server did not answer within its own timeout", reason="failed")
    assert summarize_connection(odd).headline == "Could not connect"
    assert summarize_connection(ConnectionReport(False, "x", status_code=401)).headline == "HTTP 401"


def test_readable_problem_folds_a_yaml_report() -> None:
    text = (
        "settings.yml is not valid YAML: while parsing a block mapping\n  in \"<unicode string>\", line 1\n"
        "expected <block end>, but found '-'\n  in \"<unicode string>\", line 3, column 1. Defaults are in effect."
    )
    out = readable_problem(text)
    assert "\n" not in out and out.endswith("(line 3, column 1). Defaults are in effect.")
