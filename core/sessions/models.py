"""Value types for DSH sessions and the deterministic turn evidence built from them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SessionRevision(_Frozen):
    """Stat identity of the file a session was read from; equal revisions mean nothing changed."""

    path: str
    dev: int
    inode: int
    size: int
    mtime_ns: int

    @property
    def token(self) -> str:
        """Short stable text form, used in review ids and receipts."""
        import hashlib

        raw = f"{self.path}|{self.dev}|{self.inode}|{self.size}|{self.mtime_ns}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


class SessionSummary(_Frozen):
    """One row of the sessions list (cheap: cached by revision)."""

    id: str
    title: str
    cwd: str | None  # None => "Unassigned"
    workspace_key: str | None
    created: datetime | None
    updated: datetime | None
    turns: int
    size: int
    format_version: int  # the header's declared DSH session format (0 when it declares none)
    is_subagent: bool
    archived_in_dsh: bool = False  # listed as archived in $DSH_HOME/storages/workspace.json
    revision: SessionRevision
    folder: str  # the session directory
    inherited_cut: int = 0  # first seq that is this session's own (0: nothing inherited)
    # What the reader wants the user to see: a newer format read best-effort, a generation file
    # skipped because its header disagrees with its name, damaged zstd data... Empty when clean.
    warnings: tuple[str, ...] = ()

    @property
    def version(self) -> int:
        """Alias of :attr:`format_version` (the name earlier callers used)."""
        return self.format_version


class ToolUse(_Frozen):
    seq: int
    name: str
    outcome: Literal["ok", "error", "rejected", "cancelled", "unknown"]


class EvidenceMessage(_Frozen):
    seq: int
    role: Literal["user", "assistant"]
    text: str
    # The question this user message answers, when the user answered through ask_user_question.
    answer_to: str = ""


class EvidenceTurn(_Frozen):
    """One human prompt and what the assistant said and did in answer (tool names, not bodies)."""

    index: int
    messages: tuple[EvidenceMessage, ...]
    tools: tuple[ToolUse, ...] = ()

    @property
    def seq_range(self) -> tuple[int, int]:
        seqs = [m.seq for m in self.messages] + [t.seq for t in self.tools]
        return (min(seqs), max(seqs)) if seqs else (0, 0)


class Evidence(_Frozen):
    """Deterministic projection of a session for a consolidator (same session bytes => same value)."""

    session_id: str
    session_revision: str  # SessionRevision.token
    cwd: str | None
    title: str
    turns: tuple[EvidenceTurn, ...]
    size_bytes: int  # UTF-8 size of the rendered evidence text

    @property
    def seq_range(self) -> tuple[int, int]:
        ranges = [t.seq_range for t in self.turns if t.messages or t.tools]
        return (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else (0, 0)

    def all_seqs(self) -> set[int]:
        return {m.seq for t in self.turns for m in t.messages} | {u.seq for t in self.turns for u in t.tools}
