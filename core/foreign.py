"""The one door for bytes another program wrote: bounded reads, bounded decompression, bounded JSON.

Session logs, other stores' files, DSH's ``storages/workspace.json`` and imported zips are written by
programs we do not control. Whatever they hold, reading them must end in data or in a typed
:class:`ForeignDataError` the caller reports, never in a ``MemoryError``, a ``RecursionError`` or an
OOM kill. Three budgets do that:

- **size**: a plain file is read only up to its cap (checked on the stat *and* on the read, since a
  writer may append between the two);
- **decompressed bytes**: zstd is decoded as a stream into an output budget, so a 200 KB bomb that
  expands to gigabytes stops at the budget instead of at the allocator;
- **nesting depth**: JSON is parsed by the C decoder (fast) and a nesting it cannot take, or deeper
  than :data:`MAX_JSON_DEPTH`, is refused as one bad value (a deep line of a session log is one bad
  line, not a broken listing).

``ForeignDataError`` is a ``ValueError`` on purpose: every reader already treats a ``ValueError``
from ``json.loads`` as "this value is bad", so the new limits land in the same place.
"""

from __future__ import annotations

import json
import os
import re
import stat
from enum import StrEnum
from pathlib import Path
from typing import Any

import zstandard

MAX_FILE_BYTES = 32 * 1024 * 1024
"""Default cap for a foreign file read whole (memory files, registries, manifests)."""

MAX_LOG_BYTES = 256 * 1024 * 1024
"""Cap for one session log as stored (plain or compressed): a real log is tens of MB at most."""

MAX_INFLATED_BYTES = 512 * 1024 * 1024
"""Output budget for decompressing one session log."""

MAX_JSON_DEPTH = 256
"""Deepest nesting accepted in foreign JSON: DSH events nest about ten levels; deeper is hostile,
and a deeply nested object breaks every recursive consumer after the parser (validation, repr)."""

_CHUNK = 1 << 20


class ForeignReason(StrEnum):
    """Why a foreign file or value was refused (decisions are made on this, never on the message)."""

    UNREADABLE = "unreadable"
    NOT_REGULAR = "not_regular"
    TOO_LARGE = "too_large"
    INFLATES_TOO_LARGE = "inflates_too_large"
    TOO_DEEP = "too_deep"
    NOT_JSON = "not_json"


class ForeignDataError(ValueError):
    """A foreign file or value is over a budget or malformed; ``reason`` says which, ``detail`` shows it."""

    def __init__(self, reason: ForeignReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def read_capped(path: Path, max_bytes: int = MAX_FILE_BYTES) -> tuple[bytes, os.stat_result]:
    """A regular file's bytes (at most ``max_bytes``) and the stat taken on the open handle.

    Raises ForeignDataError (NOT_REGULAR, TOO_LARGE) or OSError (cannot open or read)."""
    # O_NONBLOCK: opening a FIFO must not wait for a writer; a regular file ignores the flag.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
            raise ForeignDataError(ForeignReason.NOT_REGULAR, f"{path} is not a regular file; not read")
        if st.st_size > max_bytes:
            raise ForeignDataError(
                ForeignReason.TOO_LARGE, f"{path} is {st.st_size:,} bytes, over the limit of {max_bytes:,}; not read"
            )
        data = handle.read(max_bytes + 1)  # it may have grown since the stat
    if len(data) > max_bytes:
        raise ForeignDataError(
            ForeignReason.TOO_LARGE, f"{path} grew past the limit of {max_bytes:,} bytes while read; not read"
        )
    return data, st


class InflateBudget:
    """Decompressed bytes still allowed for one file (shared by every frame run of that file)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_INFLATED_BYTES if limit is None else limit  # looked up now: tests lower it
        self.left = self.limit

    def inflate(self, dctx: zstandard.ZstdDecompressor, data: memoryview | bytes, across_frames: bool) -> bytes:
        """Decode ``data`` as a stream without ever holding more than the budget.

        Raises zstandard.ZstdError for damaged data (as a one-shot decode would) and
        ForeignDataError(INFLATES_TOO_LARGE) past the budget. A torn frame yields what its
        complete blocks decode to."""
        parts: list[bytes] = []
        with dctx.stream_reader(data, read_across_frames=across_frames, closefd=False) as reader:
            while True:
                chunk = reader.read(min(_CHUNK, self.left + 1))
                if not chunk:
                    break
                if len(chunk) > self.left:
                    self.left = 0
                    raise ForeignDataError(
                        ForeignReason.INFLATES_TOO_LARGE,
                        f"decompresses to more than {self.limit:,} bytes; not read",
                    )
                self.left -= len(chunk)
                parts.append(chunk)
        return b"".join(parts)


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers deeper than ``limit`` (iterative: no recursion to blow)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def load_json(
    data: str | bytes | bytearray, *, max_depth: int = MAX_JSON_DEPTH, max_bytes: int | None = None
) -> Any:
    """``json.loads`` for foreign data, with a size and a nesting budget.

    Raises ForeignDataError: NOT_JSON (syntax, encoding), TOO_DEEP, TOO_LARGE. The depth walk only
    runs when the text holds more brackets than the limit, so ordinary lines cost one C parse."""
    if max_bytes is not None and len(data) > max_bytes:
        raise ForeignDataError(ForeignReason.TOO_LARGE, f"{len(data):,} bytes of JSON, over {max_bytes:,}")
    try:
        value = json.loads(data)
    except RecursionError as exc:
        raise ForeignDataError(ForeignReason.TOO_DEEP, f"JSON nested deeper than {max_depth} levels") from exc
    except json.JSONDecodeError as exc:
        raise ForeignDataError(
            ForeignReason.NOT_JSON, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    except (UnicodeDecodeError, TypeError) as exc:
        raise ForeignDataError(ForeignReason.NOT_JSON, f"not valid JSON text ({exc})") from exc
    if isinstance(value, dict | list):
        opens = data.count("{") + data.count("[") if isinstance(data, str) else data.count(b"{") + data.count(b"[")
        if opens > max_depth and _too_deep(value, max_depth):
            raise ForeignDataError(ForeignReason.TOO_DEEP, f"JSON nested deeper than {max_depth} levels")
    return value


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]|[^"{}\[\]]+', re.DOTALL)
_SCALAR = re.compile(r"\s*:\s*(-?\d+|true|false|null)?\s*(?:,|$)")


def top_level_member(text: str, key: str) -> Any:
    """The scalar value of ``key`` in the top-level object of ``text``, found without parsing it.

    For answering a message that cannot be parsed (too deep, malformed further on): JSON-RPC wants
    the request's ``id`` in the error when it can be told. A linear scan that only tracks nesting;
    None when the key is not found at the top level or its value is not a scalar."""
    depth = 0
    last_string: str | None = None
    take_string = False
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "{[":
            depth += 1
            take_string = False
            continue
        if token in "}]":
            depth -= 1
            continue
        if depth != 1:
            continue
        if token.startswith('"'):
            if take_string:
                return json.loads(token)
            last_string = token
            continue
        if last_string is not None and token.lstrip().startswith(":"):
            try:
                name = json.loads(last_string)
            except ValueError:
                name = None
            if name == key:
                scalar = _SCALAR.match(token)
                if scalar is not None and scalar.group(1) is not None:
                    return json.loads(scalar.group(1))
                take_string = token.strip() == ":"
                if not take_string:
                    return None
        last_string = None
    return None
