"""Reading foreign store files defensively: bounded size, UTF-8, JSON; failures become problems, never fixes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.foreign import MAX_FILE_BYTES, ForeignDataError, load_json, read_capped
from core.sources.models import SourceProblem

__all__ = ["MAX_FILE_BYTES", "Unreadable", "read_json", "read_text"]  # MAX_FILE_BYTES: re-exported


class Unreadable(Exception):
    """A foreign file could not be read or parsed; ``problem`` says why (shown to the user)."""

    def __init__(self, problem: SourceProblem) -> None:
        super().__init__(problem.reason)
        self.problem = problem


def read_text(path: Path) -> str:
    """The file as text (a UTF-8 BOM is tolerated: these stores are written on Windows too)."""
    try:
        data, _st = read_capped(path, MAX_FILE_BYTES)  # the bounded door (core/foreign.py)
    except ForeignDataError as exc:
        raise Unreadable(SourceProblem(path=str(path), reason=exc.detail.removeprefix(f"{path} "))) from exc
    except OSError as exc:
        raise Unreadable(SourceProblem(path=str(path), reason=f"cannot be read: {exc.strerror or exc}")) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(SourceProblem(path=str(path), reason=f"is not valid UTF-8 (byte {exc.start})")) from exc


def read_json(path: Path) -> Any:
    """The file's JSON through the bounded loader: too deep or malformed is a problem, never a crash."""
    text = read_text(path)
    try:
        return load_json(text)
    except ForeignDataError as exc:
        raise Unreadable(SourceProblem(path=str(path), reason=f"is {exc.detail}")) from exc


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
