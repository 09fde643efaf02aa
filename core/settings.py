"""The app's own settings (``<root>/settings.yml``): a typed model saved with compare-and-swap.

``settings.yml`` is configuration, not memory. It never holds a credential: the custom endpoint
stores the *name* of the environment variable with the API key (``api_key_env``), and every
string value is checked for credential-shaped text before it is accepted. Keys this version does
not know are kept and written back unchanged. A malformed file is reported (defaults are shown)
and never overwritten unless the caller explicitly asks to replace it.

Example::

    consolidator: model            # offline | model
    selected_model: deepseek/deepseek-v4-flash   # a model catalog id, or "custom"
    custom_endpoint:
      base_url: http://127.0.0.1:8080/v1
      model: qwen3-coder
      api_key_env: LOCAL_LLM_KEY   # an environment variable NAME, never the key
    debug_logging: false
    sessions_root: ~/.dsh/sessions
    quiet_period_seconds: 120
    evidence_limit_bytes: 400000
    request_timeout_seconds: 120
    pending_review_max_age_days: 30   # pending reviews older than this are discarded
    pending_review_max_count: 50      # beyond the newest 50 pending reviews, older ones are discarded
    load_warning_tokens: 8000         # the load meter warns above this estimate (GLOBAL.md + MEMORY.md)
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from core import messages as M
from core.errors import ConfirmationRequiredError, InvalidRecordError
from core.keys import default_sessions_root
from core.models import Revision
from core.store.api import MemoryStore
from core.store.files import SETTINGS

ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def _credential_findings(value: str) -> list[str]:
    """Reasons ``value`` looks like a credential rather than a setting (kinds only, never the value)."""
    from core.secrets import describe, find_secrets

    return list(describe(find_secrets(value)))


def _looks_like_token(value: str) -> bool:
    """High-entropy, underscore-free strings are keys, not environment variable names."""
    if len(value) < 24 or "_" in value:
        return False
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    has_digit = any(c.isdigit() for c in value)
    has_lower = any(c.islower() for c in value)
    return entropy > 3.5 and has_digit and has_lower


def check_api_key_env(value: str) -> str:
    """Validate an API-key environment variable *name*; raise ValueError for anything else."""
    value = value.strip()
    if not value:
        return value
    if not ENV_NAME_RE.match(value) or _looks_like_token(value):
        raise ValueError(
            "api_key_env must be the NAME of an environment variable (like DEEPSEEK_API_KEY), not the key itself"
        )
    if _credential_findings(value):
        raise ValueError("api_key_env looks like a credential; store the variable name, never the key")
    return value


def check_base_url(value: str) -> str:
    value = value.strip()
    if not value:
        return value
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(M.BASE_URL_NOT_HTTP.format(value=repr(value)))
    if parts.username or parts.password:
        raise ValueError(M.BASE_URL_CREDENTIALS.format())
    if parts.query or parts.fragment:
        raise ValueError(M.BASE_URL_QUERY.format())
    return value.rstrip("/")


class CustomEndpoint(BaseModel):
    """An OpenAI-compatible endpoint the user typed in (Settings → custom)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    base_url: str = ""
    model: str = ""
    api_key_env: str = ""

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        return check_base_url(value)

    @field_validator("api_key_env")
    @classmethod
    def _check_env(cls, value: str) -> str:
        return check_api_key_env(value)

    @property
    def is_complete(self) -> bool:
        return bool(self.base_url and self.model)


class AppSettings(BaseModel):
    """Typed settings. Unknown keys are allowed (kept in ``model_extra``) so they survive a save."""

    model_config = ConfigDict(frozen=True, extra="allow")

    consolidator: Literal["offline", "model"] = "offline"
    selected_model: str | None = None  # a ModelChoice.id, "custom", or None (DSH's default model)
    custom_endpoint: CustomEndpoint = Field(default_factory=CustomEndpoint)
    debug_logging: bool = False
    memory_root: str | None = None  # informational: the root is resolved before settings can be read
    sessions_root: str | None = None
    quiet_period_seconds: float = Field(default=120.0, ge=0)
    evidence_limit_bytes: int = Field(default=400_000, gt=0)
    request_timeout_seconds: float = Field(default=120.0, gt=0)
    max_output_tokens: int = Field(default=8192, gt=0)
    # The model consolidator's first request (instructions, evidence, Global, index, relevant
    # records) must fit this; the rest of the workspace is reachable through read-only tools.
    model_input_budget_bytes: int = Field(default=256_000, ge=8_000)
    tool_rounds: int = Field(default=6, ge=0, le=20)  # 0: never offer tools (single JSON request)
    # Pending consolidation reviews kept across restarts (core.consolidation.pending). A month:
    # after that memory and the session have moved on and the diffs mislead. Fifty: more
    # unreviewed proposals than that is a backlog nobody reads; the newest are kept.
    pending_review_max_age_days: float = Field(default=30.0, gt=0)
    pending_review_max_count: int = Field(default=50, gt=0)
    # The load meter warns when what an agent loads at start (GLOBAL.md + a workspace's MEMORY.md)
    # is estimated above this many tokens: past ~8k the index crowds the agent's working context.
    load_warning_tokens: int = Field(default=8000, gt=0)

    @model_validator(mode="after")
    def _no_credentials(self) -> AppSettings:
        problems: list[str] = []
        for path, text in _strings(self.model_dump(mode="json")):
            if path.endswith("api_key_env"):
                continue  # checked by its own validator (an env name trips generic detectors)
            for finding in _credential_findings(text):
                problems.append(f"{path}: {finding}")
        if problems:
            raise ValueError(
                "settings must not contain credentials; put the key in an environment variable and "
                "store its name in custom_endpoint.api_key_env (" + "; ".join(problems) + ")"
            )
        return self

    def with_changes(self, **changes: Any) -> AppSettings:
        """A validated copy with ``changes`` applied (unknown keys kept)."""
        data = self.model_dump(mode="python")
        data.update(changes)
        return AppSettings.model_validate(data)

    def resolved_sessions_root(self, env: Mapping[str, str] | None = None) -> Path:
        if self.sessions_root and self.sessions_root.strip():
            return Path(os.path.abspath(os.path.expanduser(self.sessions_root.strip())))
        return default_sessions_root(env)


def _strings(value: Any, path: str = "") -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(path or "value", value)]
    if isinstance(value, Mapping):
        out: list[tuple[str, str]] = []
        for k, v in value.items():
            out.extend(_strings(v, f"{path}.{k}" if path else str(k)))
        return out
    if isinstance(value, list | tuple):
        out = []
        for i, v in enumerate(value):
            out.extend(_strings(v, f"{path}[{i}]"))
        return out
    return []


@dataclass(frozen=True)
class LoadedSettings:
    """Settings as read: the values in effect, the file revision (the CAS base) and any problem.

    When ``problem`` is set the file exists but could not be used; ``settings`` are the defaults
    and a save refuses to replace the file unless told to (``replace_malformed=True``).
    """

    settings: AppSettings
    revision: Revision
    exists: bool
    problem: str | None = None


def parse_settings(text: str) -> AppSettings:
    """Parse ``settings.yml`` text; raise InvalidRecordError with every reason when it is unusable."""
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise InvalidRecordError(f"settings.yml is not valid YAML: {exc}", reason="settings") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidRecordError("settings.yml must be a mapping of keys to values", reason="settings")
    try:
        return AppSettings.model_validate(data)
    except ValidationError as exc:
        reasons = [f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}" for err in exc.errors()]
        raise InvalidRecordError(
            "settings.yml has invalid values: " + "; ".join(reasons), reasons, reason="settings"
        ) from None


def render_settings(settings: AppSettings) -> str:
    data = settings.model_dump(mode="json")
    return "# dsh-memory settings (no credentials: api_key_env is a variable NAME)\n" + yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, default_flow_style=False
    )


def load_settings(store: MemoryStore) -> LoadedSettings:
    text, revision = store.files(SETTINGS).read_revised()
    if text is None:
        return LoadedSettings(AppSettings(), revision, exists=False)
    try:
        return LoadedSettings(parse_settings(text), revision, exists=True)
    except InvalidRecordError as exc:
        return LoadedSettings(
            AppSettings(),
            revision,
            exists=True,
            problem=f"{exc.message}. Defaults are in effect; fix the file or save to replace it.",
        )


def save_settings(
    store: MemoryStore, settings: AppSettings, expect: Revision | None, *, replace_malformed: bool = False
) -> LoadedSettings:
    """Write ``settings`` with CAS on ``expect`` (ConflictError when the file changed meanwhile).

    Refuses (ConfirmationRequiredError) to replace a file that exists but is malformed unless
    ``replace_malformed`` is True, so a hand-edited file with a typo is never lost silently.
    """
    settings = AppSettings.model_validate(settings.model_dump(mode="python"))  # re-check credentials
    if not replace_malformed:
        current = load_settings(store)
        if current.problem is not None and (expect is None or expect == current.revision):
            raise ConfirmationRequiredError(
                "settings.yml exists but is malformed; saving would replace it. "
                f"{current.problem.split('. Defaults')[0]}. Fix the file by hand or confirm replacing it.",
                reason="malformed-settings",
            )
    revision = store.files(SETTINGS).replace(render_settings(settings), expect)
    return LoadedSettings(settings, revision, exists=True)
