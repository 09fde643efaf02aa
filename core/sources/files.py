"""Reading foreign store files defensively: bounded size, UTF-8, JSON; failures become problems, never fixes."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.sources.models import SourceProblem

MAX_FILE_BYTES = 32 * 1024 * 1024
"""Bigger files are reported, not read: no memory file of these stores is anywhere near this."""


class Unreadable(Exception):
    """A foreign file could not be read or parsed; ``problem`` says why (shown to the user)."""

    def __init__(self, problem: SourceProblem) -> None:
        super().__init__(problem.reason)
        self.problem = problem


def read_text(path: Path) -> str:
    """The file as text (a UTF-8 BOM is tolerated: these stores are written on Windows too)."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
            raise Unreadable(SourceProblem(path=str(path), reason="is not a regular file; not read"))
        size = st.st_size
        if size > MAX_FILE_BYTES:
            raise Unreadable(SourceProblem(path=str(path), reason=f"is {size:,} bytes; too large to read"))
        data = path.read_bytes()
    except OSError as exc:
        raise Unreadable(SourceProblem(path=str(path), reason=f"cannot be read: {exc.strerror or exc}")) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(SourceProblem(path=str(path), reason=f"is not valid UTF-8 (byte {exc.start})")) from exc


def read_json(path: Path) -> Any:
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(
            SourceProblem(
                path=str(path), reason=f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            )
        ) from exc


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def as_strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))


def parse_time(value: Any) -> datetime | None:
    """ISO-8601 text or epoch milliseconds (both occur in these stores); anything else is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value.strip():
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    return None


def is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False
