"""The consolidation models DSH already has configured, read from ``$DSH_HOME/settings.yaml``.

Only names are read: ``apiKeyEnv`` is the *name* of an environment variable and this module never
looks up its value. The shapes understood (all optional; anything else is ignored)::

    agent-default-model: deepseek/deepseek-v4-flash   # "<provider-or-route>/<model>" or a bare model
    llm-deepseek:
      baseUrl: https://api.deepseek.com               # default
      apiKeyEnv: DEEPSEEK_API_KEY                     # default
      models:                                         # absent => deepseek-v4-flash, deepseek-v4-pro
        - deepseek-v4-flash                           # a bare model id, or
        - id: deepseek-v4-pro                         # a mapping (id | model | name)
          label: DeepSeek V4 Pro
    llm-pi-ai:
      providers:
        openrouter:                                   # <route>
          baseUrl: https://openrouter.ai/api/v1
          apiKeyEnv: OPENROUTER_API_KEY
          api: openai-completions                     # other APIs (anthropic-messages...) are skipped
          models:
            - id: qwen/qwen3-coder
              name: Qwen3 Coder
              input: [text, image]                    # models whose input lacks "text" are skipped

Choice ids are ``deepseek/<model>`` and ``<route>/<model>``. A missing file gives the DeepSeek
defaults; a malformed file gives the defaults plus a ``problems`` entry saying what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from core.errors import UsageError
from core.settings import AppSettings, check_api_key_env, check_base_url

DEEPSEEK_BASE_URL = "https://api.deepseek.com"
DEEPSEEK_API_KEY_ENV = "DEEPSEEK_API_KEY"
DEEPSEEK_DEFAULT_MODELS = ("deepseek-v4-flash", "deepseek-v4-pro")
OPENAI_COMPATIBLE_APIS = frozenset({"", "openai", "openai-completions", "openai-chat", "openai-compatible"})
CUSTOM_ID = "custom"


class ModelChoice(BaseModel):
    """One selectable consolidation model. ``api_key_env`` is a variable name; the key is never read here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    label: str
    provider: str  # "deepseek", a pi-ai route name, or "custom"
    base_url: str
    model: str
    api_key_env: str = ""
    is_default: bool = False  # DSH's agent-default-model

    @property
    def endpoint_key(self) -> str:
        """Identity of the model for review ids: changing endpoint or model gives a new review."""
        return f"{self.model}@{self.base_url}"


@dataclass(frozen=True)
class ModelCatalog:
    choices: tuple[ModelChoice, ...]
    source: Path | None = None
    problems: tuple[str, ...] = ()
    default_id: str | None = None

    def get(self, choice_id: str) -> ModelChoice | None:
        for c in self.choices:
            if c.id == choice_id:
                return c
        return None

    @property
    def default(self) -> ModelChoice | None:
        if self.default_id is not None:
            chosen = self.get(self.default_id)
            if chosen is not None:
                return chosen
        return self.choices[0] if self.choices else None

    def resolve(self, settings: AppSettings) -> ModelChoice:
        """The endpoint the ``model`` consolidator should call under ``settings``."""
        selected = settings.selected_model
        if selected == CUSTOM_ID:
            ep = settings.custom_endpoint
            if not ep.is_complete:
                raise UsageError(
                    "The custom model endpoint needs a base URL and a model name; set them in Settings.",
                    reason="model-incomplete",
                )
            return ModelChoice(
                id=CUSTOM_ID,
                label=f"Custom: {ep.model} at {ep.base_url}",
                provider=CUSTOM_ID,
                base_url=ep.base_url,
                model=ep.model,
                api_key_env=ep.api_key_env,
            )
        if selected:
            chosen = self.get(selected)
            if chosen is None:
                raise UsageError(
                    f"The selected model {selected!r} is not in DSH's model list any more; "
                    "pick another one in Settings.",
                    reason="model-unknown",
                )
            return chosen
        default = self.default
        if default is None:
            raise UsageError("No consolidation model is configured; pick one in Settings.")
        return default


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _model_entries(raw: Any, where: str, problems: list[str]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """``(model id, label, entry)`` for each usable entry of a ``models`` list."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(f"{where}: expected a list of models, found {type(raw).__name__}")
        return []
    out: list[tuple[str, str, Mapping[str, Any]]] = []
    for i, entry in enumerate(raw):
        if isinstance(entry, str) and entry.strip():
            out.append((entry.strip(), entry.strip(), {}))
        elif isinstance(entry, Mapping):
            model = _text(entry.get("id")) or _text(entry.get("model")) or _text(entry.get("name"))
            if not model:
                problems.append(f"{where}[{i}]: a model entry without id")
                continue
            label = _text(entry.get("label")) or _text(entry.get("name")) or model
            out.append((model, label, entry))
        else:
            problems.append(f"{where}[{i}]: not a model id or mapping")
    return out


def _accepts_text(entry: Mapping[str, Any]) -> bool:
    for key in ("input", "inputs", "modalities", "inputModalities"):
        if key in entry:
            value = entry[key]
            if isinstance(value, str):
                return value == "text"
            if isinstance(value, list):
                return "text" in value
            return False
    return True


def _safe_env(value: Any, where: str, problems: list[str]) -> str:
    name = _text(value)
    try:
        return check_api_key_env(name)
    except ValueError:
        problems.append(f"{where}: apiKeyEnv is not an environment variable name; ignored")
        return ""


def _safe_url(value: str, where: str, problems: list[str]) -> str | None:
    try:
        return check_base_url(value)
    except ValueError as exc:
        problems.append(f"{where}: {exc}")
        return None


def _deepseek_choices(section: Any, problems: list[str]) -> list[ModelChoice]:
    if section is not None and not isinstance(section, Mapping):
        problems.append("llm-deepseek: expected a mapping; using the DeepSeek defaults")
        section = None
    section = section or {}
    base_url = _safe_url(_text(section.get("baseUrl")) or DEEPSEEK_BASE_URL, "llm-deepseek", problems)
    if base_url is None:
        base_url = DEEPSEEK_BASE_URL
    env = _safe_env(section.get("apiKeyEnv"), "llm-deepseek", problems) if "apiKeyEnv" in section else ""
    env = env or DEEPSEEK_API_KEY_ENV
    raw = section.get("models")
    entries = (
        _model_entries(raw, "llm-deepseek.models", problems)
        if raw is not None
        else [(m, m, {}) for m in DEEPSEEK_DEFAULT_MODELS]
    )
    return [
        ModelChoice(
            id=f"deepseek/{model}",
            label=f"DeepSeek · {label}",
            provider="deepseek",
            base_url=base_url,
            model=model,
            api_key_env=env,
        )
        for model, label, entry in entries
        if _accepts_text(entry)
    ]


def _pi_ai_choices(section: Any, problems: list[str]) -> list[ModelChoice]:
    if section is None:
        return []
    if not isinstance(section, Mapping):
        problems.append("llm-pi-ai: expected a mapping; ignored")
        return []
    providers = section.get("providers")
    if providers is None:
        return []
    if not isinstance(providers, Mapping):
        problems.append("llm-pi-ai.providers: expected a mapping of routes; ignored")
        return []
    out: list[ModelChoice] = []
    for route, provider in providers.items():
        where = f"llm-pi-ai.providers.{route}"
        if not isinstance(provider, Mapping):
            problems.append(f"{where}: expected a mapping; ignored")
            continue
        api = _text(provider.get("api"))
        if api not in OPENAI_COMPATIBLE_APIS:
            problems.append(f"{where}: api {api!r} is not OpenAI-compatible; skipped")
            continue
        base_url = _text(provider.get("baseUrl")) or _text(provider.get("baseURL"))
        if not base_url:
            problems.append(f"{where}: no baseUrl; skipped")
            continue
        url = _safe_url(base_url, where, problems)
        if url is None:
            continue
        env = _safe_env(provider.get("apiKeyEnv"), where, problems)
        for model, label, entry in _model_entries(provider.get("models"), f"{where}.models", problems):
            if not _accepts_text(entry):
                continue
            out.append(
                ModelChoice(
                    id=f"{route}/{model}",
                    label=f"{route} · {label}",
                    provider=str(route),
                    base_url=url,
                    model=model,
                    api_key_env=env,
                )
            )
    return out


def parse_model_catalog(text: str | None, source: Path | None = None) -> ModelCatalog:
    problems: list[str] = []
    data: Any = {}
    if text is not None:
        try:
            data = yaml.safe_load(text) if text.strip() else {}
        except yaml.YAMLError as exc:
            problems.append(f"{source or 'settings.yaml'} is not valid YAML ({exc}); using the DeepSeek defaults")
            data = {}
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            problems.append(f"{source or 'settings.yaml'} is not a mapping; using the DeepSeek defaults")
            data = {}
    choices: list[ModelChoice] = []
    seen: set[str] = set()
    for choice in _deepseek_choices(data.get("llm-deepseek"), problems) + _pi_ai_choices(
        data.get("llm-pi-ai"), problems
    ):
        if choice.id in seen:
            problems.append(f"model {choice.id!r} is listed twice; the first one is used")
            continue
        seen.add(choice.id)
        choices.append(choice)
    default_id: str | None = None
    wanted = _text(data.get("agent-default-model"))
    if wanted:
        for c in choices:
            if wanted in (c.id, c.model, f"{c.provider}:{c.model}"):
                default_id = c.id
                break
        else:
            problems.append(f"agent-default-model {wanted!r} is not an OpenAI-compatible text model listed here")
    if default_id is not None:
        choices = [c.model_copy(update={"is_default": c.id == default_id}) for c in choices]
    return ModelCatalog(tuple(choices), source, tuple(problems), default_id)


def load_model_catalog(dsh_home: Path) -> ModelCatalog:
    """Read ``<dsh_home>/settings.yaml``; never raises for a missing, unreadable or malformed file."""
    path = dsh_home / "settings.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return parse_model_catalog(None, path)
    except (OSError, UnicodeDecodeError) as exc:
        catalog = parse_model_catalog(None, path)
        return ModelCatalog(catalog.choices, path, (f"cannot read {path}: {exc}; using the DeepSeek defaults",), None)
    return parse_model_catalog(text, path)
