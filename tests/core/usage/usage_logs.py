"""Session logs for the usage-ledger tests, in DSH's shapes (compact JSON, one event a line)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import zstandard

from core.models import PutOp, Record
from core.store.fs import FileStore

T0 = 1_785_000_000_000  # epoch ms
OLD = 1_700_000_000  # mtime for logs that must count as stable (quiet for long)


def header(session_id: str, cwd: str | None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "session", "version": 0, "id": session_id, "createdAt": T0}
    if cwd is not None:
        out["cwd"] = cwd
    out.update(extra)
    return out


def call(seq: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A ``tool/call`` event: arguments as JSON text, as DSH writes them."""
    data = {"turn": 1, "step": seq, "callId": f"call-{seq}", "name": name, "arguments": json.dumps(arguments)}
    return {"type": "tool/call", "seq": seq, "time": T0 + seq * 1000, "data": data}


def result(seq: int, text: str) -> dict[str, Any]:
    data = {"callId": f"call-{seq - 1}", "content": [{"type": "text", "text": text}], "isError": False}
    return {"type": "tool/result", "seq": seq, "time": T0 + seq * 1000, "data": data}


def dispatch(seq: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A ``run_code`` inner call: arguments as an object."""
    data = {"rootCallId": "rc", "parentCallId": "rc", "subCallId": f"rc:code:{seq}", "name": name,
            "arguments": arguments, "isError": False, "content": [{"type": "text", "text": "(result)"}]}  # fmt: skip
    return {"type": "tool/code-dispatch", "seq": seq, "time": T0 + seq * 1000, "data": data}


def injected(seq: int, sections: Sequence[tuple[str, str]], plugin: str = "dsh-memory") -> dict[str, Any]:
    """A machine-injected ``user/message`` (a plugin's context at session start)."""
    source = {"kind": "plugin", "plugin": plugin, "sections": [{"name": n, "text": t} for n, t in sections]}
    content = [{"type": "text", "text": "\n\n".join(t for _, t in sections)}]
    return {"type": "user/message", "seq": seq, "time": T0 + seq * 1000, "data": {"content": content, "source": source}}


def prompt(seq: int, text: str) -> dict[str, Any]:
    data = {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}
    return {"type": "user/message", "seq": seq, "time": T0 + seq * 1000, "data": data}


def write_log(
    sessions_root: Path,
    session_id: str,
    cwd: str | None,
    events: Sequence[dict[str, Any]],
    *,
    compact: bool = True,
    zstd: bool = False,
    mtime: float | None = OLD,
    **head: Any,
) -> Path:
    """``sessions_root/--slug--/<id>/session.jsonl[.zstd]``; returns the session folder."""
    folder = sessions_root / "--proj--" / session_id
    folder.mkdir(parents=True, exist_ok=True)
    seps = (",", ":") if compact else (", ", ": ")
    rows = [header(session_id, cwd, **head), *events]
    payload = b"".join(json.dumps(r, ensure_ascii=False, separators=seps).encode() + b"\n" for r in rows)
    name = "session.jsonl.zstd" if zstd else "session.jsonl"
    if zstd:
        lines = payload.splitlines(keepends=True)
        half = max(1, len(lines) // 2)
        comp = zstandard.ZstdCompressor()
        payload = comp.compress(b"".join(lines[:half])) + comp.compress(b"".join(lines[half:]))
    target = folder / name
    target.write_bytes(payload)
    if mtime is not None:
        os.utime(target, (mtime, mtime))
    return folder


def make_store(root: Path, cwd: str, records: dict[str, str]) -> tuple[FileStore, str]:
    """A store with GLOBAL.md and one workspace for ``cwd`` holding ``records`` (name -> body)."""
    store = FileStore(root)
    store.replace_global("# User Preferences\n\n- Short answers in English.\n", None)
    snap = store.create_workspace(cwd)
    ops = [PutOp(record=Record(name=n, description=f"about {n}", type="project", body=b)) for n, b in records.items()]
    snap = store.commit(snap.key, ops, snap.revision)
    return store, snap.key
