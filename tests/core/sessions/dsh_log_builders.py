"""Builders for DSH session logs in the shapes of format versions 0-4 (written by the tests, into tmp_path).

v0/v1 shapes follow the real logs in ../shared/fixtures/dsh-sessions; v2-v4 are plausible
inventions of the "fields move" kind the product brief warns about:

- v0 legacy: message fields directly on ``data`` (``data.content``, ``data.source``).
- v1/v2: ``data.message = {role, content, source, id}``.
- v3: source kinds renamed (``human`` for typed prompts, ``extension`` for plugins), source as
  ``{"type": ...}`` instead of ``{"kind": ...}``.
- v4: tool results as ``message`` events with ``role: "tool"`` and a ``status``; a DSH fork's
  turn-free ``assistant/peer-message`` (``{"message": {"role": "assistant", ...}}``).

DSH's inherited-history markers: ``end_seed(seq)`` is the untagged ``session/end-seed {}`` DSH
appends on every resume; ``end_seed(seq, inherited=True)`` closes a fork's copied prefix (v1+,
with ``isSeeded: true`` in the header). v0 forks say how much was copied in ``seedLength``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import zstandard

T0 = 1_785_000_000_000  # epoch ms


def header(
    session_id: str = "s-1",
    version: int = 0,
    cwd: str | None = "/home/ada/project",
    origin: str | None = None,
    depth: int | None = 0,
    **extra: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "session", "version": version, "id": session_id, "createdAt": T0}
    if cwd is not None:
        out["cwd"] = cwd
    if origin is not None:
        out["origin"] = origin
    if depth is not None:
        out["delegationDepth"] = depth
    out.update(extra)
    return out


def event(seq: int, kind: str, data: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "time": T0 + seq * 1000, "data": data, **extra}


def user(seq: int, text: str, version: int = 0, kind: str | None = None) -> dict[str, Any]:
    """A human prompt in the shape of ``version``."""
    blocks = [{"type": "text", "text": text}]
    if version >= 3:
        source: dict[str, Any] = {"type": kind or "human"}
    else:
        source = {"kind": kind or "user"}
    if version == 0:
        return event(seq, "user/message", {"content": blocks, "source": source, "role": "user", "id": f"u{seq}"})
    return event(seq, "user/message", {"message": {"role": "user", "content": blocks, "source": source}})


def plugin_context(seq: int, text: str, version: int = 0, kind: str = "plugin") -> dict[str, Any]:
    if version >= 3:
        source: dict[str, Any] = {"type": "extension" if kind == "plugin" else kind, "plugin": "x"}
    else:
        source = {"kind": kind, "plugin": "@deepseek-ai/dsh-system-prompt"}
    blocks = [{"type": "text", "text": text}]
    if version == 0:
        return event(seq, "user/message", {"content": blocks, "source": source, "role": "user"})
    return event(seq, "user/message", {"message": {"role": "user", "content": blocks, "source": source}})


def assistant(
    seq: int, text: str | None, version: int = 0, tool_calls: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "reasoning", "text": "private thinking " * 3}]
    if text is not None:
        blocks.append({"type": "text", "text": text})
    for call_id, name in tool_calls:
        blocks.append({"type": "tool-call", "id": call_id, "name": name, "arguments": '{"secret": "args"}'})
    if version == 0:
        return event(seq, "assistant/message", {"turn": 1, "step": 1, "content": blocks, "provenance": {}})
    return event(
        seq,
        "assistant/message",
        {
            "turn": 1,
            "step": 1,
            "message": {"role": "assistant", "content": blocks, "source": {"kind": "model"}},
        },
    )


def tool_call(seq: int, call_id: str, name: str) -> dict[str, Any]:
    return event(seq, "tool/call", {"callId": call_id, "name": name, "arguments": '{"command": "TOOL-BODY"}'})


def tool_result(
    seq: int, call_id: str, version: int = 0, is_error: bool = False, aborted: bool = False
) -> dict[str, Any]:
    body = [{"type": "text", "text": "TOOL-OUTPUT-BODY"}]
    if version == 0:
        return event(seq, "tool/result", {"callId": call_id, "content": body, "isError": is_error})
    if version >= 4:
        status = "cancelled" if aborted else ("error" if is_error else "ok")
        return event(
            seq,
            "message",
            {"message": {"role": "tool", "toolCallId": call_id, "content": body, "status": status}},
        )
    data: dict[str, Any] = {
        "message": {
            "source": {"kind": "tool", "callId": call_id},
            "role": "user",
            "content": [{"type": "tool-result", "toolCallId": call_id, "content": body, "isError": is_error}],
        }
    }
    if aborted:
        data["error"] = {"name": "AbortError", "code": "ABORTED"}
    return event(seq, "tool/result", data)


def title(seq: int, text: str) -> dict[str, Any]:
    return event(seq, "session/title", {"title": text, "messageSeqs": [1], "source": {"kind": "fallback"}})


def chunk_rows(seq: int) -> list[dict[str, Any]]:
    """Streaming noise every real log has: assistant/chunk deltas and a packed text-chunks row."""
    return [
        event(seq, "assistant/chunk", {"chunk": {"type": "text-delta", "index": 0, "text": "NOISE"}}),
        {"type": "text-chunks", "seq0": seq + 1, "time0": T0, "data": {"texts": ["NO", "ISE"], "dt": [0, 1]}},
    ]


def conversation(version: int = 0, turns: int = 2, session_id: str = "s-1", **head: Any) -> list[dict[str, Any]]:
    """A plausible session: runtime context, prompts, tool use, answers, a title."""
    rows: list[dict[str, Any]] = [header(session_id, version, **head)]
    seq = 0
    rows.append(plugin_context(seq, "Current runtime context: AGENTS.md says hi", version))
    seq += 1
    for n in range(1, turns + 1):
        rows.append(user(seq, f"Prompt number {n}: please remember I prefer tabs.", version))
        seq += 1
        rows.extend(chunk_rows(seq))
        seq += 2
        call_id = f"call-{n}"
        rows.append(assistant(seq, None, version, tool_calls=[(call_id, "bash")]))
        seq += 1
        rows.append(tool_call(seq, call_id, "bash"))
        seq += 1
        rows.append(tool_result(seq, call_id, version, is_error=(n % 2 == 0)))
        seq += 1
        rows.append(assistant(seq, f"Answer {n}: noted.", version))
        seq += 1
        rows.append(event(seq, f"future/unknown-{n}", {"whatever": [1, 2, 3]}))
        seq += 1
    rows.append(title(seq, "Tabs preference"))
    return rows


def jsonl(rows: Iterable[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows)


def zstd_frames(payload: bytes, frames: int = 4, checksum: bool = True) -> bytes:
    """``payload`` split on line boundaries into about ``frames`` concatenated zstd frames."""
    lines = payload.splitlines(keepends=True)
    size = max(1, -(-len(lines) // frames))
    compressor = zstandard.ZstdCompressor(write_checksum=checksum)
    return b"".join(compressor.compress(b"".join(lines[i : i + size])) for i in range(0, len(lines), size))


def write_session(
    root: Path,
    rows: Sequence[dict[str, Any]] | bytes,
    slug: str = "--home-ada-project--",
    folder: str | None = None,
    name: str = "session.jsonl",
    frames: int = 4,
) -> Path:
    """Write one log as ``root/slug/folder/name`` (``.zstd``: multi-frame zstd); returns the folder."""
    payload = rows if isinstance(rows, bytes) else jsonl(rows)
    if folder is None:
        first = rows[0] if not isinstance(rows, bytes) else {}
        folder = str(first.get("id", "session"))
    target = root / slug / folder
    target.mkdir(parents=True, exist_ok=True)
    data = zstd_frames(payload, frames) if name.endswith(".zstd") else payload
    (target / name).write_bytes(data)
    return target


def end_seed(seq: int, inherited: bool | None = None) -> dict[str, Any]:
    """``session/end-seed``: untagged (a resume marker) unless ``inherited`` is given."""
    return event(seq, "session/end-seed", {} if inherited is None else {"inherited": inherited})


def peer_message(seq: int, text: str) -> dict[str, Any]:
    """A DSH fork's v4 turn-free assistant answer (a seat's reply), as its tests show it."""
    return event(
        seq,
        "assistant/peer-message",
        {
            "message": {
                "id": f"peer-{seq}",
                "role": "assistant",
                "source": {"kind": "a2a-seat", "role": "tianliang"},
                "content": [{"type": "text", "text": text}],
            }
        },
    )


def exchange(seq: int, prompt: str, answer: str, version: int = 0) -> list[dict[str, Any]]:
    """One human prompt and its answer at ``seq`` and ``seq + 1``."""
    return [user(seq, prompt, version), assistant(seq + 1, answer, version)]


def resumed(version: int = 0, session_id: str = "resumed", resumes: int = 1) -> list[dict[str, Any]]:
    """A session resumed ``resumes`` times: an untagged end-seed before each later prompt."""
    rows: list[dict[str, Any]] = [header(session_id, version)]
    rows += exchange(0, "Remember the workspace instruction.", "I will.", version)
    seq = 2
    for n in range(resumes):
        rows.append(end_seed(seq))
        rows += exchange(seq + 1, f"After resume {n + 1}: carry on.", f"Carrying on {n + 1}.", version)
        seq += 3
    return rows


def fork(
    parent: Sequence[dict[str, Any]],
    own: Sequence[tuple[str, str]],
    version: int,
    session_id: str = "child",
    resume_after: bool = False,
) -> list[dict[str, Any]]:
    """A fork of ``parent`` (its events copied, then the fork's own prompts and answers).

    v0 marks the copy with ``seedLength``; v1+ with ``isSeeded: true`` and a tagged end-seed.
    ``resume_after`` adds an untagged resume marker between the fork's own exchanges.
    """
    copied = [dict(r) for r in parent[1:]]
    seq = max((int(r["seq"]) for r in copied), default=-1) + 1
    extra: dict[str, Any] = {"parentSession": parent[0].get("id")}
    if version == 0:
        extra["seedLength"] = seq
        rows = [header(session_id, version, **extra), *copied, end_seed(seq)]  # real v0 forks add one
        seq += 1
    else:
        rows = [header(session_id, version, isSeeded=True, **extra), *copied, end_seed(seq, inherited=True)]
        seq += 1
    for index, (prompt, answer) in enumerate(own):
        if resume_after and index == 1:
            rows.append(end_seed(seq))
            seq += 1
        rows += exchange(seq, prompt, answer, version)
        seq += 2
    return rows
