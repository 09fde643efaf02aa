"""Deterministic turn evidence: what a consolidator may see of a session, and its exact text.

Human prompts, assistant text, tool names with their outcomes (never tool arguments or
output), each with its seq for provenance. Same session bytes => same Evidence => same text.

One tool is different: ``ask_user_question``'s result is the user's own answer (the most explicit
confirmation a user ever gives), so it becomes user evidence, rendered
``[seq N] user (answer to "<question>"):`` with the options the user picked and what they typed.
Nothing else of any tool's arguments or output is kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from core.errors import EvidenceTooLargeError
from core.sessions.models import Evidence, EvidenceMessage, EvidenceTurn, ToolUse
from core.sessions.parse import (
    GENERIC_MESSAGE_TYPES,
    TOOL_CALL_TYPES,
    TOOL_RESULT_TYPES,
    USER_MESSAGE_TYPES,
    ParsedSession,
    content_blocks,
    is_assistant_message,
    is_human_prompt,
    is_tool_message,
    message_of,
    prompt_text,
    seed_boundary,
    text_of,
)

DEFAULT_EVIDENCE_LIMIT_BYTES = 200_000
ASK_USER_TOOL = "ask_user_question"
_ANSWER_LIMIT = 4_000  # characters of one answer kept (a question tool answer is a short thing)

Outcome = Literal["ok", "error", "rejected", "cancelled", "unknown"]

_CANCEL_CODES = frozenset({"aborted", "abort", "aborterror", "cancelled", "canceled", "interrupted"})
_REJECT_OUTCOMES = frozenset({"rejected", "denied", "deny", "reject", "declined"})
_STATUS_OUTCOMES: dict[str, Outcome] = {
    "ok": "ok",
    "success": "ok",
    "succeeded": "ok",
    "completed": "ok",
    "error": "error",
    "failed": "error",
    "failure": "error",
    "rejected": "rejected",
    "denied": "rejected",
    "cancelled": "cancelled",
    "canceled": "cancelled",
    "aborted": "cancelled",
    "interrupted": "cancelled",
}


class EvidenceLimitError(EvidenceTooLargeError):
    """Evidence over the configured limit; carries the sizes so a UI can explain them."""

    def __init__(self, message: str, size_bytes: int, limit_bytes: int, turns: int) -> None:
        super().__init__(message)
        self.size_bytes = size_bytes
        self.limit_bytes = limit_bytes
        self.turns = turns

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "size_bytes": self.size_bytes, "limit_bytes": self.limit_bytes}


def _call_id(data: Mapping[str, Any]) -> str | None:
    """The tool call id a call or result refers to, across the shapes of versions 0-4."""
    message = message_of(data)
    for holder in (data, message):
        for key in ("callId", "toolCallId", "tool_call_id"):
            value = holder.get(key)
            if isinstance(value, str) and value:
                return value
        source = holder.get("source")
        if isinstance(source, dict):
            value = source.get("callId")
            if isinstance(value, str) and value:
                return value
    for block in content_blocks(data):
        if isinstance(block, dict):
            value = block.get("toolCallId", block.get("callId"))
            if isinstance(value, str) and value:
                return value
    return None


def _result_outcome(data: Mapping[str, Any]) -> Outcome:
    message = message_of(data)
    for holder in (data, message):
        status = holder.get("status", holder.get("outcome"))
        if isinstance(status, str) and status.lower() in _STATUS_OUTCOMES:
            return _STATUS_OUTCOMES[status.lower()]
    error = data.get("error")
    if isinstance(error, dict):
        for key in ("code", "name", "kind"):
            value = error.get(key)
            if isinstance(value, str) and value.lower() in _CANCEL_CODES:
                return "cancelled"
    flags: list[bool] = []
    for holder in (data, message):
        flag = holder.get("isError")
        if isinstance(flag, bool):
            flags.append(flag)
    for block in content_blocks(data):
        if isinstance(block, dict) and isinstance(block.get("isError"), bool):
            flags.append(bool(block["isError"]))
    if error is not None and error is not False:
        return "error"
    if flags:
        return "error" if any(flags) else "ok"
    return "unknown"


def _tool_name(data: Mapping[str, Any]) -> str | None:
    for key in ("name", "toolName", "tool"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


@dataclass
class _Call:
    seq: int
    name: str
    outcome: Outcome = "unknown"
    from_call_event: bool = False  # seq is the tool/call event's, not the announcing message's
    questions: list[str] = field(default_factory=list)  # ask_user_question: what the user was asked


def _questions(arguments: object) -> list[str]:
    """The question texts of an ask_user_question call's arguments (JSON text or object)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return []
    if not isinstance(arguments, dict):
        return []
    items = arguments.get("questions")
    if not isinstance(items, list):
        items = [arguments]
    return [q["question"] for q in items if isinstance(q, dict) and isinstance(q.get("question"), str)]


def _answer_text(data: Mapping[str, Any]) -> str:
    """What the user answered: picked options and typed text, one line per question."""
    raw = text_of(data)
    try:
        parsed = json.loads(raw)
    except ValueError:
        return raw[:_ANSWER_LIMIT]
    answers = parsed.get("answers") if isinstance(parsed, dict) else None
    if not isinstance(answers, list):
        return raw[:_ANSWER_LIMIT]
    lines: list[str] = []
    for answer in answers:
        if not isinstance(answer, dict):
            continue
        parts = [str(x) for x in answer.get("selected") or [] if isinstance(x, str | int | float)]
        for key in ("custom", "text", "answer"):
            value = answer.get(key)
            if isinstance(value, str) and value.strip():
                parts.append(value.strip())
        if parts:
            lines.append("; ".join(parts))
    return "\n".join(lines)[:_ANSWER_LIMIT]


class _Builder:
    def __init__(self) -> None:
        self.turns: list[tuple[list[EvidenceMessage], dict[str, _Call]]] = []
        self.preamble: tuple[list[EvidenceMessage], dict[str, _Call]] = ([], {})
        self.calls: dict[str, _Call] = {}

    def current(self) -> tuple[list[EvidenceMessage], dict[str, _Call]]:
        return self.turns[-1] if self.turns else self.preamble

    def add_call(self, call_id: str, seq: int, name: str, call_event: bool) -> _Call:
        call = self.calls.get(call_id)
        if call is None:
            call = _Call(seq=seq, name=name, from_call_event=call_event)
            self.calls[call_id] = call
            self.current()[1][call_id] = call
            return call
        if call.name == "tool" and name != "tool":
            call.name = name
        if call_event and not call.from_call_event:
            call.seq, call.from_call_event = seq, True
        return call


def build_evidence(session: ParsedSession, limit_bytes: int = DEFAULT_EVIDENCE_LIMIT_BYTES) -> Evidence:
    """Project a parsed session onto turn evidence; raise if its rendered text exceeds ``limit_bytes``."""
    events = session.events
    boundary = seed_boundary(session.header, events)
    builder = _Builder()
    approvals: dict[str, str] = {}  # approval id -> call id
    rejected: set[str] = set()
    for event in events:
        if event.seq < boundary:
            continue
        data = event.data
        if is_human_prompt(event):
            text = prompt_text(event)
            if text is None:
                continue
            builder.turns.append(([EvidenceMessage(seq=event.seq, role="user", text=text)], {}))
        elif is_assistant_message(event):
            text = text_of(data)
            if text:
                builder.current()[0].append(EvidenceMessage(seq=event.seq, role="assistant", text=text))
            for block in content_blocks(data):
                # Calls announced in the message; a later tool/call event supplies the seq.
                if isinstance(block, dict) and block.get("type") in ("tool-call", "tool_call", "tool-use"):
                    call_id = block.get("id", block.get("callId"))
                    name = block.get("name")
                    if isinstance(call_id, str) and call_id:
                        call = builder.add_call(
                            call_id, event.seq, name if isinstance(name, str) and name else "tool", False
                        )
                        if call.name == ASK_USER_TOOL and not call.questions:
                            call.questions = _questions(block.get("arguments", block.get("input")))
        elif event.type in TOOL_CALL_TYPES:
            raw_id = data.get("id")
            call_id = _call_id(data) or (raw_id if isinstance(raw_id, str) and raw_id else f"seq-{event.seq}")
            call = builder.add_call(call_id, event.seq, _tool_name(data) or "tool", True)
            if call.name == ASK_USER_TOOL and not call.questions:
                call.questions = _questions(data.get("arguments", data.get("input")))
        elif event.type in TOOL_RESULT_TYPES or (
            (event.type in USER_MESSAGE_TYPES or event.type in GENERIC_MESSAGE_TYPES) and is_tool_message(data)
        ):
            call_id = _call_id(data) or f"seq-{event.seq}"
            call = builder.calls.get(call_id) or builder.add_call(
                call_id, event.seq, _tool_name(data) or _tool_name(message_of(data)) or "tool", False
            )
            call.outcome = _result_outcome(data)
            if call.name == ASK_USER_TOOL and call.outcome in ("ok", "unknown"):
                answer = _answer_text(data)
                if answer:
                    question = " / ".join(call.questions) or ASK_USER_TOOL
                    builder.current()[0].append(
                        EvidenceMessage(seq=event.seq, role="user", text=answer, answer_to=question)
                    )
        elif event.type == "approval/asked":
            approval_id, call_id = data.get("id"), data.get("callId")
            if isinstance(approval_id, str) and isinstance(call_id, str):
                approvals[approval_id] = call_id
        elif event.type == "approval/decided":
            outcome = data.get("outcome")
            approval_id = data.get("id")
            if (
                isinstance(outcome, str) and outcome.lower() in _REJECT_OUTCOMES and isinstance(approval_id, str)
            ) and approval_id in approvals:
                rejected.add(approvals[approval_id])

    def finish(index: int, messages: list[EvidenceMessage], calls: dict[str, _Call]) -> EvidenceTurn:
        tools = tuple(
            ToolUse(seq=call.seq, name=call.name, outcome="rejected" if call_id in rejected else call.outcome)
            for call_id, call in sorted(calls.items(), key=lambda item: (item[1].seq, item[0]))
        )
        return EvidenceTurn(index=index, messages=tuple(messages), tools=tools)

    turns: list[EvidenceTurn] = []
    if builder.preamble[0] or builder.preamble[1]:
        turns.append(finish(0, *builder.preamble))
    for number, (messages, calls) in enumerate(builder.turns, start=1):
        turns.append(finish(number, messages, calls))

    summary = session.summary
    draft = Evidence(
        session_id=summary.id,
        session_revision=summary.revision.token,
        cwd=summary.cwd,
        title=summary.title,
        turns=tuple(turns),
        size_bytes=0,
    )
    size = len(render_evidence(draft).encode("utf-8"))
    if size > limit_bytes:
        human_turns = sum(1 for t in turns if t.index > 0)
        raise EvidenceLimitError(
            f"The evidence for session {summary.id!r} ({summary.title}) is {size:,} bytes over "
            f"{human_turns} turns, above the limit of {limit_bytes:,} bytes. Nothing was sent to "
            "a consolidator. Raise the evidence size limit in Settings, or consolidate a shorter "
            "session.",
            size_bytes=size,
            limit_bytes=limit_bytes,
            turns=human_turns,
        )
    return draft.model_copy(update={"size_bytes": size})


def render_evidence(evidence: Evidence) -> str:
    """The exact text given to a consolidator. Stable: depends only on ``evidence``'s fields
    (``size_bytes`` excluded), always ``\\n`` line endings, ends with one newline."""
    out: list[str] = [
        "DSH session evidence",
        f"session: {evidence.session_id}",
        f"title: {evidence.title}",
        f"workspace: {evidence.cwd if evidence.cwd is not None else 'Unassigned'}",
        f"revision: {evidence.session_revision}",
        f"turns: {sum(1 for t in evidence.turns if t.index > 0)}",
    ]
    for turn in evidence.turns:
        out.append("")
        out.append(f"=== turn {turn.index} ===" if turn.index > 0 else "=== before the first prompt ===")
        items: list[tuple[int, int, str]] = []
        for message in turn.messages:
            who = f'{message.role} (answer to "{message.answer_to}")' if message.answer_to else message.role
            items.append((message.seq, 0, f"[seq {message.seq}] {who}:\n{message.text}"))
        for tool in turn.tools:
            items.append((tool.seq, 1, f"[seq {tool.seq}] tool {tool.name}: {tool.outcome}"))
        items.sort(key=lambda item: (item[0], item[1]))
        for position, (_, _, text) in enumerate(items):
            if position:
                out.append("")
            out.append(text)
    return "\n".join(out) + "\n"


PREVIEW_LIMIT_BYTES = 4_000_000
"""How much evidence text the transcript preview shows (a session over it says so, never a freeze)."""


def session_transcript(folder: str, limit_bytes: int = PREVIEW_LIMIT_BYTES) -> Evidence:
    """The evidence of the session in ``folder``, read now, for a read-only preview (on a worker).

    Raises SessionReadError when the log cannot be read and EvidenceLimitError above ``limit_bytes``.
    """
    from pathlib import Path

    from core.sessions.files import find_session_file
    from core.sessions.parse import read_session_file

    found = find_session_file(Path(folder))
    if found is None or found.unusable is not None:
        from core.errors import SessionReadError

        why = found.unusable if found is not None else "no session log"
        raise SessionReadError(f"{folder}: {why}.")
    return build_evidence(read_session_file(found.path, folder, found.warnings), limit_bytes)
