"""Fixtures for the store tests: one ``store`` fixture parametrized over both backends."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.store.base import StoreCore
from core.store.fs import FileStore
from core.store.memory import InMemoryStore


class FakeClock:
    """A clock tests can move: each call advances one millisecond so history ids stay ordered."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


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
