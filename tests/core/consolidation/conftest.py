"""Fixtures for consolidation tests: stores, a loopback chat server, a service wired to it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from consolidation_support import ChatServer

from core.model_catalog import ModelCatalog, ModelChoice
from core.store.fs import FileStore
from core.store.memory import InMemoryStore

TEST_KEY_ENV = "TEST_LLM_KEY"


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def model_choice(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ModelChoice:
    monkeypatch.setenv(TEST_KEY_ENV, "test-key-123")
    return ModelChoice(
        id="loopback/test-model",
        label="Loopback test model",
        provider="loopback",
        base_url=chat_server.url,
        model="test-model",
        api_key_env=TEST_KEY_ENV,
    )


@pytest.fixture
def catalog(model_choice: ModelChoice) -> ModelCatalog:
    return ModelCatalog((model_choice,), default_id=model_choice.id)


@pytest.fixture
def mem_store() -> InMemoryStore:
    return InMemoryStore()


@pytest.fixture
def file_store(tmp_path: Path) -> FileStore:
    return FileStore(tmp_path / "memory")
