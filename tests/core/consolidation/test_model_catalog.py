"""The model list read from $DSH_HOME/settings.yaml (names of key variables only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import UsageError
from core.model_catalog import DEEPSEEK_BASE_URL, load_model_catalog
from core.settings import AppSettings, CustomEndpoint

FULL = """\
agent-default-model: openrouter/qwen/qwen3-coder
llm-deepseek:
  apiKeyEnv: MY_DEEPSEEK_KEY
  models:
    - deepseek-v4-flash
    - id: deepseek-v4-reasoner
      label: Reasoner
llm-pi-ai:
  providers:
    openrouter:
      baseUrl: https://openrouter.ai/api/v1
      apiKeyEnv: OPENROUTER_API_KEY
      models:
        - id: qwen/qwen3-coder
          name: Qwen3 Coder
          input: [text, image]
        - id: black-forest/flux
          input: [image]
    anthropic:
      api: anthropic-messages
      baseUrl: https://api.anthropic.com
      models: [claude-x]
    local:
      baseUrl: http://127.0.0.1:11434/v1
      models: [llama-local]
"""


def _write(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.yaml").write_text(text, encoding="utf-8")


def test_missing_file_gives_deepseek_defaults(tmp_path: Path) -> None:
    catalog = load_model_catalog(tmp_path / "nowhere")
    assert [c.id for c in catalog.choices] == ["deepseek/deepseek-v4-flash", "deepseek/deepseek-v4-pro"]
    assert all(c.base_url == DEEPSEEK_BASE_URL and c.api_key_env == "DEEPSEEK_API_KEY" for c in catalog.choices)
    assert catalog.problems == ()
    assert catalog.resolve(AppSettings()).id == "deepseek/deepseek-v4-flash"


def test_full_file(tmp_path: Path) -> None:
    _write(tmp_path, FULL)
    catalog = load_model_catalog(tmp_path)
    assert [c.id for c in catalog.choices] == [
        "deepseek/deepseek-v4-flash",
        "deepseek/deepseek-v4-reasoner",
        "openrouter/qwen/qwen3-coder",
        "local/llama-local",
    ]
    qwen = catalog.get("openrouter/qwen/qwen3-coder")
    assert qwen is not None and qwen.is_default and qwen.api_key_env == "OPENROUTER_API_KEY"
    assert qwen.base_url == "https://openrouter.ai/api/v1" and qwen.label == "openrouter · Qwen3 Coder"
    assert catalog.choices[0].api_key_env == "MY_DEEPSEEK_KEY"
    assert catalog.get("local/llama-local") is not None and catalog.get("local/llama-local").api_key_env == ""  # type: ignore[union-attr]
    assert any("anthropic-messages" in p for p in catalog.problems)
    assert catalog.resolve(AppSettings()).id == "openrouter/qwen/qwen3-coder"  # DSH's default
    assert catalog.resolve(AppSettings(selected_model="deepseek/deepseek-v4-reasoner")).model == "deepseek-v4-reasoner"


def test_custom_endpoint_and_unknown_selection(tmp_path: Path) -> None:
    catalog = load_model_catalog(tmp_path)
    custom = AppSettings(
        selected_model="custom",
        custom_endpoint=CustomEndpoint(base_url="http://127.0.0.1:9000/v1", model="m", api_key_env="K"),
    )
    chosen = catalog.resolve(custom)
    assert (chosen.base_url, chosen.model, chosen.api_key_env) == ("http://127.0.0.1:9000/v1", "m", "K")
    with pytest.raises(UsageError) as caught:
        catalog.resolve(AppSettings(selected_model="custom"))
    assert caught.value.reason == "model-incomplete"
    with pytest.raises(UsageError) as caught:
        catalog.resolve(AppSettings(selected_model="gone/model"))
    assert caught.value.reason == "model-unknown"


@pytest.mark.parametrize(
    "text",
    [
        "llm-deepseek: [unclosed\n",
        "- a\n- list\n",
        "llm-deepseek: 5\nllm-pi-ai: {providers: [1, 2]}\n",
        "llm-deepseek:\n  models: nope\n",
    ],
)
def test_malformed_files_are_tolerated_with_a_message(tmp_path: Path, text: str) -> None:
    _write(tmp_path, text)
    catalog = load_model_catalog(tmp_path)
    assert catalog.problems
    assert all(c.provider == "deepseek" for c in catalog.choices)


def test_key_values_are_never_taken_for_names(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "llm-pi-ai:\n  providers:\n    r:\n      baseUrl: https://x.example/v1\n"
        "      apiKeyEnv: sk-abcdef0123456789abcdef0123456789\n      models: [m]\n",
    )
    catalog = load_model_catalog(tmp_path)
    choice = catalog.get("r/m")
    assert choice is not None and choice.api_key_env == ""
    assert any("not an environment variable name" in p for p in catalog.problems)
    assert all("sk-abc" not in p for p in catalog.problems)
