"""The sequence corpus (tests/data/consolidation_sequences.yml): write it as real DSH logs, consolidate
each workspace's sessions in order, score the record set they leave.

Shared by ``test_sequence_quality.py`` (the bar as a test) and ``benchmarks/offline_quality.py``
(the figures). Each session becomes a format-v0 ``session.jsonl`` like the logs in
``/work/shared/fixtures/dsh-sessions``: ``user/message`` rows with ``source.kind`` ``user`` (or
``plugin`` for injected AGENTS.md/CLAUDE.md text), ``assistant/message`` rows with text and
``tool-call`` blocks, ``tool/call`` and ``tool/result`` rows (``ask_user_question`` answers in the
tool's JSON shape), and a ``session/title`` row.

Consolidating a session means what a user accepting the proposals does: every actionable change is
committed; a change marked "supersedes/contradicts [[old]]" is resolved with *Replace*, one marked
"similar to [[old]]" with *Merge*.

Scores, over the final records of each workspace (and the lines its sessions added to GLOBAL.md):
precision = records matching an expected fact / records; recall = expected facts found / expected;
duplicates = records matching a fact another record already matched; contradictions = records
still holding a ``stale`` value.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from core.consolidation import ConsolidationService
from core.model_catalog import ModelCatalog
from core.sessions import SessionCatalog
from core.settings import AppSettings
from core.store.api import MemoryStore

CORPUS = Path(__file__).resolve().parents[2] / "data" / "consolidation_sequences.yml"
T0 = 1_785_100_000_000


@dataclass(frozen=True)
class Expected:
    scope: str
    has: tuple[str, ...]


@dataclass(frozen=True)
class Workspace:
    id: str
    split: str
    sessions: tuple[tuple[tuple[str, ...], ...], ...]
    final: tuple[Expected, ...]
    stale: tuple[str, ...]

    @property
    def cwd(self) -> str:
        return f"/home/ada/projects/{self.id}"


def load(path: Path = CORPUS) -> list[Workspace]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Workspace(
            id=w["id"],
            split=w["split"],
            sessions=tuple(tuple(tuple(step) for step in s) for s in w["sessions"]),
            final=tuple(Expected(e["scope"], tuple(e["has"])) for e in w.get("final") or ()),
            stale=tuple(w.get("stale") or ()),
        )
        for w in data["workspaces"]
    ]


def session_rows(session_id: str, cwd: str, steps: tuple[tuple[str, ...], ...], title: str) -> list[dict[str, Any]]:
    """A format-v0 DSH log of ``steps`` (see the module docstring)."""
    rows: list[dict[str, Any]] = [
        {"type": "session", "version": 0, "id": session_id, "createdAt": T0, "cwd": cwd, "delegationDepth": 0}
    ]
    seq, turn, calls = 1, 0, 0

    def add(kind: str, data: dict[str, Any]) -> None:
        nonlocal seq
        rows.append({"type": kind, "seq": seq, "time": T0 + seq, "data": data})
        seq += 1

    for step in steps:
        kind = step[0]
        if kind in ("user", "context"):
            source = {"kind": "user"} if kind == "user" else {"kind": "plugin", "plugin": "@deepseek-ai/dsh-agents-md"}
            if kind == "user":
                turn += 1
                add("turn/start", {"turn": turn})
            add("user/message", {"content": [{"type": "text", "text": step[1]}], "source": source})
        elif kind == "assistant":
            add("assistant/message", {"turn": turn, "step": 1, "content": [{"type": "text", "text": step[1]}]})
        elif kind in ("tool", "ask"):
            calls += 1
            call_id = f"call_{calls:02d}"
            name = "ask_user_question" if kind == "ask" else step[1]
            arguments = (
                json.dumps({"questions": [{"id": "q1", "question": step[1], "options": []}]})
                if kind == "ask"
                else json.dumps({"path": "ignored"})
            )
            block = {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
            add("assistant/message", {"turn": turn, "step": 1, "content": [block]})
            add("tool/call", {"turn": turn, "step": 1, "callId": call_id, "name": name, "arguments": arguments})
            if kind == "ask":
                body = json.dumps({"answers": [{"id": "q1", "selected": [], "custom": step[2]}]})
                error = False
            else:
                body, error = "tool output (never evidence)", step[2] == "error"
            add("tool/result", {"callId": call_id, "content": [{"type": "text", "text": body}], "isError": error})
    add("session/title", {"title": title, "source": {"kind": "fallback"}})
    return rows


def write_workspace(sessions_root: Path, ws: Workspace) -> list[str]:
    """Every session of ``ws`` as a log file (mtime in the past: stable); their ids in order."""
    ids: list[str] = []
    slug = "-" + ws.cwd.replace("/", "-")
    for i, steps in enumerate(ws.sessions, start=1):
        session_id = f"{ws.id}-s{i}"
        folder = sessions_root / f"-{slug}--" / session_id
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "session.jsonl"
        rows = session_rows(session_id, ws.cwd, steps, f"{ws.id} session {i}")
        path.write_bytes(b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows))
        past = 1_700_000_000 + i
        os.utime(path, (past, past))
        ids.append(session_id)
    return ids


@dataclass
class Outcome:
    """What one workspace holds after its sessions, and every proposal made on the way."""

    workspace: Workspace
    records: list[tuple[str, str]]  # (scope, text) of each final record / added Global line
    proposals: list[str] = field(default_factory=list)


def consolidate(store: MemoryStore, root: Path, ws: Workspace) -> Outcome:
    """Consolidate ``ws``'s sessions in order into ``store`` (offline rules), accepting as a user would."""
    sessions_root = root / "sessions"
    ids = write_workspace(sessions_root, ws)
    catalog = SessionCatalog(sessions_root=sessions_root, dsh_home=root / "dsh")
    service = ConsolidationService(store, ModelCatalog(()), AppSettings(), sessions=catalog)
    summaries = {s.id: s for s in catalog.list(cwd=ws.cwd)}
    global_before = set(store.read_global().text.splitlines())
    out = Outcome(ws, [])
    for sid in ids:
        review = service.propose(service.prepare(summaries[sid]), consolidator="offline")
        accepted: list[str] = []
        edited = {}
        for change in review.actionable:
            row = change
            if change.related_to is not None:
                row = service.resolve_change(review, change.id, "replace")
            elif change.similar_to is not None:
                row = service.merge_change(review, change.id)
            if row is not change:
                edited[change.id] = row
            accepted.append(change.id)
            text = (row.record.description + " | " + row.record.body.strip()) if row.record else (row.after or "")
            out.proposals.append(f"{sid}: {row.kind} {row.target} {change.relation or ''} {text[:160]!r}")
        if accepted:
            service.commit(review, accepted, confirm_global=True, edited=edited)
    snap = store.find_workspace(ws.cwd)
    if snap is not None:
        out.records += [("workspace", f"{r.description}\n{r.body}") for r in snap.records()]
    out.records += [
        ("global", ln)
        for ln in store.read_global().text.splitlines()
        if ln.strip() and not ln.startswith("#") and ln not in global_before
    ]
    return out


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


@dataclass
class Score:
    expected: int = 0
    found: int = 0
    records: int = 0
    correct: int = 0
    duplicates: int = 0
    contradictions: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct / self.records if self.records else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0

    def add(self, outcome: Outcome) -> None:
        ws = outcome.workspace
        self.expected += len(ws.final)
        self.records += len(outcome.records)
        matched: dict[int, int] = {}
        for scope, text in outcome.records:
            hit = next(
                (i for i, e in enumerate(ws.final) if e.scope == scope and all(_norm(h) in _norm(text) for h in e.has)),
                None,
            )
            if hit is None:
                self.notes.append(f"{ws.id} [{ws.split}] extra: {scope} {text.strip()[:100]!r}")
            elif hit in matched:
                self.duplicates += 1
                self.notes.append(f"{ws.id} [{ws.split}] duplicate: {text.strip()[:100]!r}")
            else:
                matched[hit] = 1
                self.correct += 1
            stale = [s for s in ws.stale if _norm(s) in _norm(text)]
            if stale:
                self.contradictions += 1
                self.notes.append(f"{ws.id} [{ws.split}] stale {stale}: {text.strip()[:100]!r}")
        self.found += len(matched)
        for i, e in enumerate(ws.final):
            if i not in matched:
                self.notes.append(f"{ws.id} [{ws.split}] missed: {e.scope} {list(e.has)}")
