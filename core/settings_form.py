"""What the Settings tab shows and decides, without Qt: the form's values, their problems, and how a
connection test reads.

:class:`SettingsForm` is a snapshot of the form's fields; it says what is wrong with the custom
endpoint fields in a user's words, whether that blocks saving, which endpoint a connection test
would call, and which :class:`~core.settings.AppSettings` saving it would write.
:func:`summarize_connection` sorts a :class:`~core.consolidation.chat.ConnectionReport` into the
cases a user tells apart, from its fields (never from the message text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from core import messages as M
from core.model_catalog import CUSTOM_ID, ModelChoice
from core.settings import AppSettings, check_api_key_env, check_base_url

if TYPE_CHECKING:
    from core.consolidation.chat import ConnectionReport


@dataclass(frozen=True)
class ConnectionOutcome:
    """What the Test connection line shows: a short headline and the full explanation.

    ``kind`` is the case a user tells apart ("ok", "key-refused", "http", "no-key", "timeout",
    "refused", "dns", "unreachable", "cancelled", "invalid", "failed"); a translated view words
    it from ``kind`` and the report's fields, and falls back to ``headline``/``detail`` (English).
    """

    ok: bool
    headline: str
    detail: str
    kind: str = "failed"
    status_code: int | None = None
    elapsed_ms: float = 0.0
    model_listed: bool | None = None
    api_detail: str = ""


def summarize_connection(report: ConnectionReport) -> ConnectionOutcome:
    """Sort a connection report into the cases a user tells apart (from its fields, not its text)."""
    msg = report.message
    fields: dict[str, Any] = {
        "status_code": report.status_code,
        "elapsed_ms": report.elapsed_ms,
        "model_listed": report.model_listed,
        "api_detail": report.detail,
    }
    if report.ok:
        return ConnectionOutcome(True, "Connection OK", msg, "ok", **fields)  # the detail gives the time
    if report.status_code in (401, 403):
        return ConnectionOutcome(False, f"HTTP {report.status_code}", msg, "key-refused", **fields)
    if report.status_code is not None:
        return ConnectionOutcome(False, f"HTTP {report.status_code}", msg, "http", **fields)
    if report.reason == "no-key":
        return ConnectionOutcome(False, "API key variable not set", msg, "no-key", **fields)
    if report.reason == "timeout":
        return ConnectionOutcome(False, "Timed out", msg, "timeout", **fields)
    if report.reason == "dns":
        return ConnectionOutcome(
            False,
            "Host name not found",
            msg + " The host name in the base URL could not be resolved: check it for typos, "
            "and check this computer's network or DNS settings.",
            "dns",
            **fields,
        )
    if report.reason == "refused":
        return ConnectionOutcome(
            False,
            "Connection refused",
            msg + " Nothing is listening there: check the base URL and that the server is running.",
            "refused",
            **fields,
        )
    if report.reason == "unreachable":
        return ConnectionOutcome(False, "Could not connect", msg, "unreachable", **fields)
    return ConnectionOutcome(False, "Could not connect", msg, "failed", **fields)


def readable_problem(text: str) -> str:
    """One readable line from a problem that embeds a YAML parser report (code echo, carets)."""
    if "\n" not in text:
        return text
    tail_mark = ". Defaults are in effect"
    head, sep, tail = text.partition(tail_mark)
    first, _, rest = head.partition("\n")
    # The parser's own sentences start at column 0; its context lines and code echo are indented.
    messages = [first.strip()] + [line.strip() for line in rest.splitlines() if line and not line[0].isspace()]
    where = re.findall(r"line (\d+), column (\d+)", head)
    loc = f" (line {where[-1][0]}, column {where[-1][1]})" if where else ""
    out = "; ".join(m.rstrip(":") for m in messages if m) + loc
    return out + (sep + tail if sep else ".")


@dataclass(frozen=True)
class SettingsForm:
    """The Settings form's fields as typed (strings stripped), independent of any widget."""

    consolidator: str
    selected_model: str | None  # None: DSH's default model; "custom": the endpoint below
    base_url: str
    custom_model: str
    api_key_env: str
    debug_logging: bool
    sessions_root: str | None
    request_timeout_seconds: float
    quiet_period_seconds: float
    # Limits (issues 10 and 16); defaults are AppSettings' own, so a form built without them saves nothing new.
    pending_review_max_age_days: float = 30.0
    pending_review_max_count: int = 50
    model_input_budget_bytes: int = 256_000
    tool_rounds: int = 6
    load_warning_tokens: int = 8000  # the load meter's warning threshold (issue 14)

    @property
    def custom(self) -> bool:
        return self.selected_model == CUSTOM_ID

    def values(self) -> dict[str, Any]:
        """The form as settings fields (what "unsaved changes" compares)."""
        return {
            "consolidator": self.consolidator,
            "selected_model": self.selected_model,
            "custom_endpoint": {"base_url": self.base_url, "model": self.custom_model, "api_key_env": self.api_key_env},
            "debug_logging": self.debug_logging,
            "sessions_root": self.sessions_root,
            "request_timeout_seconds": self.request_timeout_seconds,
            "quiet_period_seconds": self.quiet_period_seconds,
            "pending_review_max_age_days": self.pending_review_max_age_days,
            "pending_review_max_count": self.pending_review_max_count,
            "model_input_budget_bytes": self.model_input_budget_bytes,
            "tool_rounds": self.tool_rounds,
            "load_warning_tokens": self.load_warning_tokens,
        }

    def custom_problems(self) -> list[str]:
        """Live validation of the custom endpoint fields, in words a user understands."""
        problems: list[str] = []
        try:
            check_base_url(self.base_url)
        except ValueError as exc:
            problems.append(M.SETTINGS_BASE_URL.format(why=exc))
        try:
            check_api_key_env(self.api_key_env)
        except ValueError:
            problems.append(M.SETTINGS_KEY_NOT_NAME.format())
        if self.custom and not (self.base_url and self.custom_model):
            problems.append(M.SETTINGS_CUSTOM_INCOMPLETE.format())
        return problems

    def custom_fields_matter(self) -> bool:
        """Bad custom fields block Save when custom is chosen, and always when they hold a key."""
        if self.custom:
            return True
        try:
            check_api_key_env(self.api_key_env)
            check_base_url(self.base_url)
        except ValueError:
            return True
        return False

    def save_problems(self) -> list[str]:
        """What keeps the form from being saved ([] when nothing does)."""
        return self.custom_problems() if self.custom_fields_matter() else []

    def custom_choice(self) -> ModelChoice:
        """The custom endpoint a connection test calls; ValueError when the fields are unusable."""
        try:
            base_url = check_base_url(self.base_url)
            key_env = check_api_key_env(self.api_key_env)
        except ValueError as exc:
            raise ValueError(" ".join(self.custom_problems()) or str(exc)) from None
        if not base_url or not self.custom_model:
            raise ValueError("A custom endpoint needs a base URL and a model name.")
        return ModelChoice(
            id=CUSTOM_ID,
            label=f"{self.custom_model} at {base_url}",
            provider=CUSTOM_ID,
            base_url=base_url,
            model=self.custom_model,
            api_key_env=key_env,
        )

    def to_settings(self, base: AppSettings) -> AppSettings:
        """The settings the form shows over ``base``, validated; ValueError with a readable message."""
        values = self.values()
        endpoint = {**base.custom_endpoint.model_dump(mode="python"), **values.pop("custom_endpoint")}
        try:
            return base.with_changes(custom_endpoint=endpoint, **values)
        except ValidationError as exc:
            reasons = "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in exc.errors())
            raise ValueError(reasons) from None
