"""A movable clock for the store tests (a module of its own: ``conftest`` names clash across folders)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """A clock tests can move: each call advances one millisecond so history ids stay ordered."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta
