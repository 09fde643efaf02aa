"""Parsing a DSH session log (format versions 0-4) into a header, events and a summary row.

Tolerant by design: unknown event types, packed ``*-chunks`` rows, ``assistant/chunk`` deltas,
non-JSON lines and a torn last line are skipped (with a warning where something was lost);
only an unreadable file or a missing header is an error. A header version above
``KNOWN_FORMAT_VERSION`` is read best-effort with the v4 rules and a visible warning.

Inherited history (DSH's rules, see :func:`seed_boundary`): a fork or sub-agent starts with a
copy of its parent's conversation, which is not this session's to consolidate. DSH also appends
an untagged ``session/end-seed {}`` every time a session is *resumed* after a restart; that marker
cuts nothing, or a resumed session would lose every turn before the resume.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from core import keys
from core.errors import SessionReadError
from core.foreign import ForeignDataError, load_json
from core.sessions.files import SessionFile, find_session_file, read_log_text
from core.sessions.models import SessionRevision, SessionSummary

if TYPE_CHECKING:
    from core.errors import SessionReadReason  # (a Literal type: only for the type checker)

TITLE_FALLBACK_CHARS = 80
UNTITLED = "Untitled session"
ATTACHMENT_ONLY = "[a prompt with attachments only, no text]"

# Event types (v0 names first, then the renames newer versions are tolerated with).
USER_MESSAGE_TYPES = frozenset({"user/message", "message/user"})
# assistant/peer-message: a DSH fork's v4 surface event, a turn-free assistant answer (e.g. a
# seat's reply to a /planning command) shaped {"message": {"role": "assistant", "content": [...]}}.
ASSISTANT_MESSAGE_TYPES = frozenset({"assistant/message", "message/assistant", "assistant/peer-message"})
GENERIC_MESSAGE_TYPES = frozenset({"message", "session/message"})
TOOL_CALL_TYPES = frozenset({"tool/call", "tool/started"})
TOOL_RESULT_TYPES = frozenset({"tool/result", "tool/finished"})
TITLE_TYPES = frozenset({"session/title"})
END_SEED_TYPES = frozenset({"session/end-seed"})
# Source kinds that mean "a human typed this". v0 uses "user"; later versions are tolerated
# with these renames. Everything else (plugin, agent-instructions, goal, coordinator,
# subagent-report, skill-catalog, ...) is machine-injected context and never a prompt.
HUMAN_SOURCE_KINDS = frozenset({"user", "human", "user-input", "user_input", "user-prompt"})

# Rows skipped before JSON parsing (most of a log): streaming deltas and packed delta rows.
# Rows whose "type" is not the first key are still skipped after parsing.
_SKIPPED_ROW = re.compile(r'\{\s*"type"\s*:\s*"(?:assistant/chunk|[A-Za-z0-9_/-]+-chunks)"')


@dataclass(frozen=True)
class SessionEvent:
    """One logged event (the header and skipped rows are not events)."""

    seq: int
    type: str
    time: int | None  # epoch milliseconds when the log has it
    data: Mapping[str, Any]


@dataclass(frozen=True)
class ParsedSession:
    """A session read from one revision of its log file.

    ``events`` holds the conversation events (``CONVERSATION_TYPES``: messages, tool calls and
    results, approvals, titles, the seed marker) in log order; other types are skipped.
    """

    summary: SessionSummary
    header: Mapping[str, Any]
    events: tuple[SessionEvent, ...]
    warnings: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return (
            f"ParsedSession(id={self.summary.id!r}, events={len(self.events)}, "
            f"turns={self.summary.turns}, warnings={len(self.warnings)})"
        )


# ---------------------------------------------------------------- message shape helpers


def message_of(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The message object of an event: ``data.message`` (v1+) or ``data`` itself (legacy)."""
    message = data.get("message")
    return message if isinstance(message, dict) else data


def source_kind(data: Mapping[str, Any]) -> str | None:
    message = message_of(data)
    source = message.get("source", data.get("source"))
    if isinstance(source, str):
        return source
    if isinstance(source, dict):
        kind = source.get("kind", source.get("type"))
        return kind if isinstance(kind, str) else None
    return None


def role_of(data: Mapping[str, Any]) -> str | None:
    message = message_of(data)
    role = message.get("role", data.get("role"))
    return role if isinstance(role, str) else None


def content_blocks(data: Mapping[str, Any]) -> list[Any]:
    message = message_of(data)
    content = message.get("content", data.get("content"))
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return []


_TEXT_BLOCK_TYPES = frozenset({"text", "input_text", "output_text"})


def text_of(data: Mapping[str, Any]) -> str:
    """The text blocks of a message joined by blank lines (reasoning, tool calls, images excluded)."""
    texts: list[str] = []
    for block in content_blocks(data):
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type", "text") in _TEXT_BLOCK_TYPES:
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "\n\n".join(t for t in (normalize_text(t) for t in texts) if t)


def normalize_text(text: str) -> str:
    """Line endings to ``\\n``, no leading blank lines, no trailing whitespace (stable bytes)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip("\n").rstrip()


def is_tool_message(data: Mapping[str, Any]) -> bool:
    """v4 carries tool results as messages with ``role: "tool"`` (or a ``tool`` source kind)."""
    return role_of(data) == "tool" or source_kind(data) == "tool"


def is_human_prompt(event: SessionEvent) -> bool:
    if event.type not in USER_MESSAGE_TYPES and event.type not in GENERIC_MESSAGE_TYPES:
        return False
    if is_tool_message(event.data):
        return False
    if event.type in GENERIC_MESSAGE_TYPES and role_of(event.data) != "user":
        return False
    return source_kind(event.data) in HUMAN_SOURCE_KINDS


def prompt_text(event: SessionEvent) -> str | None:
    """The text of a human prompt; a placeholder for one with only attachments; None otherwise."""
    if not is_human_prompt(event):
        return None
    text = text_of(event.data)
    if text:
        return text
    return ATTACHMENT_ONLY if content_blocks(event.data) else None


def is_assistant_shaped(kind: str, data: Mapping[str, Any]) -> bool:
    """An event of a type this reader does not know that clearly carries an assistant message:
    ``data.message`` with ``role: "assistant"`` (the shape every DSH message event shares).
    Streaming rows, reasoning and request copies are never assistant text."""
    if _never_assistant(kind):
        return False
    message = data.get("message")
    return isinstance(message, dict) and message.get("role") == "assistant"


_NOT_ASSISTANT_TEXT = ("chunk", "delta", "reasoning", "request/", "tool/")


def _never_assistant(kind: str) -> bool:
    """Row types that may quote assistant messages (request copies...) but never are one."""
    return any(part in kind for part in _NOT_ASSISTANT_TEXT)


def is_assistant_message(event: SessionEvent) -> bool:
    if event.type in ASSISTANT_MESSAGE_TYPES:
        return True
    if event.type in GENERIC_MESSAGE_TYPES:
        return role_of(event.data) == "assistant"
    if event.type in _KNOWN_NON_ASSISTANT:
        return False
    return is_assistant_shaped(event.type, event.data)


# ---------------------------------------------------------------- header helpers


def _epoch_ms_to_datetime(value: Any) -> datetime | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 10_000_000_000 else value
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value.strip():
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def header_cwd(header: Mapping[str, Any]) -> str | None:
    cwd = header.get("cwd")
    return cwd if isinstance(cwd, str) and cwd.strip() else None


def header_workspace_key(cwd: str | None) -> str | None:
    """Our workspace key for a header cwd; None ("Unassigned") when there is no usable cwd.

    A relative cwd (e.g. a template placeholder) names no folder: resolving it against this
    process's cwd would file the session under an unrelated workspace, so it stays Unassigned
    (the summary keeps the text in ``cwd`` for display).
    """
    if cwd is None or not os.path.isabs(cwd):
        return None
    return keys.workspace_key(cwd)


def header_is_subagent(header: Mapping[str, Any]) -> bool:
    depth = header.get("delegationDepth")
    deep = isinstance(depth, int | float) and not isinstance(depth, bool) and depth > 0
    return header.get("origin") == "subagent" or deep


def header_version(header: Mapping[str, Any]) -> int:
    version = header.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        return version
    if isinstance(version, str) and version.strip().isdigit():
        return int(version)
    return 0


KNOWN_FORMAT_VERSION = 4
"""The newest DSH session format this reader knows; newer ones are read best-effort."""


def newer_format_warning(version: int) -> str:
    return f"written by a newer DSH (format v{version}): shown as far as it can be read"


def header_is_seeded(header: Mapping[str, Any]) -> bool:
    return header.get("isSeeded") is True


def seed_boundary(header: Mapping[str, Any], events: Iterable[SessionEvent]) -> int:
    """First seq that belongs to this session: events before it were copied from a parent.

    - Format v0: the header's ``seedLength`` only (the number of copied events).
    - Format v1 and later: only when the header says ``isSeeded: true``, the seq after the
      **last** ``session/end-seed`` whose ``data.inherited`` is ``true``. The last one, because a
      fork of a fork copies its parent's own inherited marker before adding its own.

    An untagged ``session/end-seed`` (DSH appends one on every resume) never cuts anything.
    """
    if header_version(header) == 0:
        seed_length = header.get("seedLength")
        if isinstance(seed_length, int) and not isinstance(seed_length, bool) and seed_length > 0:
            return seed_length
        return 0
    if not header_is_seeded(header):
        return 0
    boundary = 0
    for event in events:
        if event.type in END_SEED_TYPES and event.data.get("inherited") is True:
            boundary = event.seq + 1
    return boundary


def reader_warnings(header: Mapping[str, Any], events: Iterable[SessionEvent]) -> list[str]:
    """Warnings about how this session's rules were applied (shown with the session)."""
    out: list[str] = []
    version = header_version(header)
    if version > KNOWN_FORMAT_VERSION:
        out.append(newer_format_warning(version))
    if version >= 1 and header_is_seeded(header):
        tagged = any(e.type in END_SEED_TYPES and e.data.get("inherited") is True for e in events)
        if not tagged:
            out.append(
                "the header says the session was seeded from another, but no inherited marker was found; "
                "every turn is shown as its own"
            )
    return out


# ---------------------------------------------------------------- parsing


# The compact prefix DSH writes (JSON.stringify key order). Lets the listing skip events it does
# not need without a JSON parse; anything not matching is parsed normally.
_SEQ_TIME = re.compile(r',"seq":\d+,"time":(\d+)[,}]')
_ASSISTANT_ROLE = '"role":"assistant"'

# What a summary needs: prompts (for turns and the fallback title), titles, the seed marker.
SUMMARY_TYPES = USER_MESSAGE_TYPES | GENERIC_MESSAGE_TYPES | TITLE_TYPES | END_SEED_TYPES
APPROVAL_TYPES = frozenset({"approval/asked", "approval/decided"})
# What a ParsedSession keeps: everything evidence and summaries read. Other event types (steps,
# turns, requests, hooks, compaction bookkeeping, unknown future types) are skipped unparsed.
CONVERSATION_TYPES = SUMMARY_TYPES | ASSISTANT_MESSAGE_TYPES | TOOL_CALL_TYPES | TOOL_RESULT_TYPES | APPROVAL_TYPES
_KNOWN_NON_ASSISTANT = CONVERSATION_TYPES - ASSISTANT_MESSAGE_TYPES - GENERIC_MESSAGE_TYPES


@dataclass
class _Scan:
    header: dict[str, Any] | None = None
    events: list[SessionEvent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    latest_time: int | None = None  # over every kept event, including ones skipped by ``only``


def _parse_lines(payload: bytes, only: frozenset[str] | None = None, assistant_shaped: bool = False) -> _Scan:
    """Header and events of a decoded log. With ``only``, events of other types are not parsed
    (their time still counts), which is what makes listing cheap. ``assistant_shaped`` also keeps
    rows of other types that carry an assistant message (see :func:`is_assistant_shaped`)."""
    scan = _Scan()
    # One decode for the whole log (json.loads on str skips per-line encoding detection).
    text = payload.decode("utf-8", errors="replace")
    lines = text.split("\n")
    torn_tail = not text.endswith("\n") and bool(lines and lines[-1].strip())
    bad_lines = 0
    last_index = len(lines) - 1
    latest = -1
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        if scan.header is not None:
            if raw.startswith('{"type":"'):  # DSH's compact form: read the type without parsing
                end = raw.find('"', 9)
                row_type = raw[9:end]
                if row_type == "assistant/chunk" or row_type.endswith("-chunks"):
                    continue  # streaming deltas and packed delta rows: the final messages carry the text
                if (
                    only is not None
                    and row_type not in only
                    and raw.endswith("}")
                    and not (assistant_shaped and _ASSISTANT_ROLE in raw and not _never_assistant(row_type))
                ):
                    stamp = _SEQ_TIME.match(raw, end + 1)
                    if stamp is not None:
                        latest = max(latest, int(stamp.group(1)))
                        continue
            elif _SKIPPED_ROW.match(raw) is not None:
                continue
        try:
            obj = load_json(raw)  # the bounded loader: a line nested too deep is one bad line
        except ValueError:
            if scan.header is None:
                scan.warnings.append(f"line {index + 1} should be the session header but is not JSON")
                return scan
            if index == last_index and torn_tail:
                scan.warnings.append("torn last line (an append was cut short); ignored it")
            else:
                bad_lines += 1
            continue
        if not isinstance(obj, dict):
            if scan.header is None:
                scan.warnings.append(f"line {index + 1} should be the session header but is not an object")
                return scan
            bad_lines += 1
            continue
        if scan.header is None:
            if obj.get("type") == "session":
                scan.header = obj
                continue
            # No header line: not a session log (or its first line is damaged).
            scan.warnings.append(f"line {index + 1} is not a session header")
            return scan
        kind = obj.get("type")
        if not isinstance(kind, str) or kind == "assistant/chunk" or kind.endswith("-chunks"):
            continue
        seq = obj.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            continue
        time = obj.get("time")
        if not isinstance(time, int) or isinstance(time, bool):
            time = None
        elif time > latest:
            latest = time
        data = obj.get("data")
        data = data if isinstance(data, dict) else {}
        if only is not None and kind not in only and not (assistant_shaped and is_assistant_shaped(kind, data)):
            continue
        scan.events.append(SessionEvent(seq=seq, type=kind, time=time, data=data))
    if bad_lines:
        scan.warnings.append(f"{bad_lines} line(s) were not JSON objects; skipped them")
    scan.latest_time = latest if latest >= 0 else None
    return scan


def _first_human_text(events: Iterable[SessionEvent], boundary: int) -> str | None:
    for event in events:
        if event.seq >= boundary and is_human_prompt(event):
            text = text_of(event.data)
            if text:
                return text
    return None


def fallback_title(text: str | None) -> str:
    if not text:
        return UNTITLED
    line = " ".join(text.split())
    if len(line) <= TITLE_FALLBACK_CHARS:
        return line
    return line[: TITLE_FALLBACK_CHARS - 1].rstrip() + "…"


def session_title(events: Iterable[SessionEvent], boundary: int = 0) -> str:
    """The last ``session/title`` event's ``data.title``; else the first human prompt, shortened."""
    materialized = list(events)
    title: str | None = None
    for event in materialized:
        if event.type in TITLE_TYPES:
            value = event.data.get("title")
            if isinstance(value, str) and value.strip():
                title = " ".join(value.split())
    if title:
        return title
    return fallback_title(_first_human_text(materialized, boundary))


def folder_session_id(folder: Path) -> str:
    """The id a folder name encodes (DSH escapes ids into one path segment)."""
    return unquote(folder.name)


def _summarize(scan: _Scan, revision: SessionRevision, folder: Path, outer: Iterable[str] = ()) -> SessionSummary:
    """``outer``: warnings from choosing and decoding the file; they and the rule warnings go on
    the summary (so the sessions list can show them). Line-level warnings stay on the parse."""
    header = scan.header
    if header is None:
        reason = "; ".join([*outer, *scan.warnings]) or "the file is empty"
        kind: SessionReadReason = "no-header" if scan.warnings or scan.events else "empty"
        raise SessionReadError(f"{revision.path} is not a readable DSH session log ({reason}).", reason=kind)
    events = scan.events
    boundary = seed_boundary(header, events)
    turns = sum(1 for e in events if e.seq >= boundary and prompt_text(e) is not None)
    raw_id = header.get("id")
    session_id = raw_id if isinstance(raw_id, str) and raw_id else folder_session_id(folder)
    cwd = header_cwd(header)
    updated = _epoch_ms_to_datetime(scan.latest_time) if scan.latest_time is not None else None
    if updated is None:
        updated = datetime.fromtimestamp(revision.mtime_ns / 1e9, tz=UTC)
    return SessionSummary(
        id=session_id,
        title=session_title(events, boundary),
        cwd=cwd,
        workspace_key=header_workspace_key(cwd),
        created=_epoch_ms_to_datetime(header.get("createdAt")),
        updated=updated,
        turns=turns,
        size=revision.size,
        format_version=header_version(header),
        is_subagent=header_is_subagent(header),
        revision=revision,
        folder=str(folder),
        inherited_cut=boundary,
        warnings=(*outer, *reader_warnings(header, events)),
    )


def parse_session(text: bytes, revision: SessionRevision, folder: Path, warnings: Iterable[str] = ()) -> ParsedSession:
    """Build a :class:`ParsedSession` from decoded JSONL bytes. Raises SessionReadError without a header."""
    scan = _parse_lines(text, only=CONVERSATION_TYPES, assistant_shaped=True)
    summary = _summarize(scan, revision, folder, warnings)
    assert scan.header is not None  # _summarize raised otherwise
    return ParsedSession(
        summary=summary, header=scan.header, events=tuple(scan.events), warnings=(*summary.warnings, *scan.warnings)
    )


def summarize_session(
    text: bytes, revision: SessionRevision, folder: Path, warnings: Iterable[str] = ()
) -> SessionSummary:
    """The same summary :func:`parse_session` gives, parsing only the events a summary needs."""
    scan = _parse_lines(text, only=SUMMARY_TYPES)
    return _summarize(scan, revision, folder, warnings)


def _read_log(
    path: str | os.PathLike[str], folder: str | os.PathLike[str] | None
) -> tuple[bytes, SessionRevision, Path, list[str]]:
    log = Path(path)
    try:
        text, revision, warnings = read_log_text(log)
    except OSError as exc:
        raise SessionReadError(
            f"Could not read {log}: {exc.strerror or exc}. Check that the file is readable, then refresh.",
            reason="unreadable",
        ) from exc
    except ForeignDataError as exc:  # over a budget: listed with this warning, the other logs read on
        raise SessionReadError(f"Skipped {log}: {exc.detail}.", reason="over-budget") from exc
    return text, revision, Path(folder) if folder is not None else log.parent, warnings


def read_session_file(
    path: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None, selection: Iterable[str] = ()
) -> ParsedSession:
    """Read one log file (plain or ``.zstd``). Raises SessionReadError when it cannot be read.

    ``selection``: warnings from choosing this file (``SessionFile.warnings``), kept on the summary."""
    text, revision, where, warnings = _read_log(path, folder)
    return parse_session(text, revision, where, [*selection, *warnings])


def read_session_summary(
    path: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None, selection: Iterable[str] = ()
) -> SessionSummary:
    """Summary of one log file, cheaper than a full parse. Raises SessionReadError like it."""
    text, revision, where, warnings = _read_log(path, folder)
    return summarize_session(text, revision, where, [*selection, *warnings])


def read_session_folder(folder: Path) -> ParsedSession:
    """Read the newest log in a session folder. Raises SessionReadError when there is none."""
    found: SessionFile | None = find_session_file(folder)
    if found is None:
        raise SessionReadError(f"{folder} holds no session log (session.jsonl or session.jsonl.zstd).", reason="no-log")
    if found.unusable is not None:
        raise SessionReadError(f"{folder}: {found.unusable}.", reason="unusable")
    return read_session_file(found.path, folder, found.warnings)
