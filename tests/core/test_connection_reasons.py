"""A failed connection test says which failure it was, decided from exception types (issue 14)."""

from __future__ import annotations

import socket

from core.consolidation.chat import check_connection
from core.model_catalog import ModelChoice
from core.settings_form import summarize_connection


def _choice(base_url: str) -> ModelChoice:
    return ModelChoice(id="custom", label="test", provider="custom", base_url=base_url, model="m1", api_key_env="")


def test_an_unresolvable_host_is_a_dns_failure() -> None:
    report = check_connection(_choice("http://no-such-llm-host.invalid/v1"), timeout_seconds=10)
    assert not report.ok and report.reason == "dns"
    outcome = summarize_connection(report)
    assert outcome.kind == "dns" and outcome.headline == "Host name not found"
    assert "Nothing is listening" not in outcome.detail


def test_a_closed_port_is_still_refused() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens there
    report = check_connection(_choice(f"http://127.0.0.1:{port}/v1"), timeout_seconds=10)
    assert report.reason == "refused"
    assert summarize_connection(report).kind == "refused"
