"""Opt-in operational logs: ``debug/<review-id>/attempt-<n>.jsonl`` (settings.debug_logging).

Each line is one stage of an attempt: timings, sizes, HTTP status codes, error codes and
validation error locations. Evidence, memory bodies, model output and credentials are never
written: fields must be numbers, booleans or short strings, and strings are redacted and cut.
"""

from __future__ import annotations

import contextlib
import json
import time
from datetime import UTC, datetime
from typing import Any

from core.store.api import MemoryStore
from core.store.files import DEBUG_LOGS

MAX_FIELD_CHARS = 300


class DebugLog:
    """A :class:`~core.consolidation.base.DebugSink` that appends to the store when enabled."""

    def __init__(self, store: MemoryStore, review_id: str, attempt: int, *, enabled: bool) -> None:
        self._store = store
        self.review_id = review_id
        self.attempt = attempt
        self.enabled = enabled
        self._start = time.monotonic()

    def event(self, stage: str, **fields: Any) -> None:
        if not self.enabled:
            return
        from core.secrets import redact

        line: dict[str, Any] = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "elapsed_ms": round((time.monotonic() - self._start) * 1000, 1),
            "stage": stage,
        }
        for key, value in fields.items():
            if value is None or isinstance(value, bool | int | float):
                line[key] = value
            elif isinstance(value, str):
                line[key] = redact(value)[:MAX_FIELD_CHARS]
            elif isinstance(value, list | tuple) and all(isinstance(v, str | int) for v in value):
                line[key] = [redact(v)[:MAX_FIELD_CHARS] if isinstance(v, str) else v for v in value][:20]
            else:
                line[key] = f"<{type(value).__name__}>"
        with contextlib.suppress(OSError):  # a debug log must never break a consolidation
            self._store.files(DEBUG_LOGS).append(
                f"{self.review_id}/attempt-{self.attempt}", json.dumps(line, ensure_ascii=False) + "\n"
            )
