"""Fixtures for the store tests: one ``store`` fixture parametrized over both backends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from store_fakes import FakeClock

from core.store.base import StoreCore
from core.store.fs import FileStore
from core.store.memory import InMemoryStore


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["fs", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> Iterator[StoreCore]:
    if request.param == "fs":
        yield FileStore(tmp_path / "memory", clock=clock)
    else:
        yield InMemoryStore(clock=clock)


@pytest.fixture
def fs_store(tmp_path: Path, clock: FakeClock) -> FileStore:
    return FileStore(tmp_path / "memory", clock=clock)
