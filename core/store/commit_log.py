"""The commit log: which records each recent commit of a scope changed, so it can be undone.

Per-record history (``.manager/history``) keeps every displaced version, but not which versions one
commit displaced together. This log adds exactly that, per scope, in a private file
``.manager/commit-log/<scope>.json`` (``scope`` = a workspace key or ``global``): the newest
:data:`MAX_ENTRIES` commits, each with the revision before and after and, per record, the history
id of the bytes it displaced (None: the commit created the record) and the hash of what it wrote
(None: it deleted the record).

Why it is safe to keep it outside the commit's journal: it is written under the scope's lock right
after the commit, and an undo acts only when the scope's revision on disk still equals the logged
``after``. For the same reason it is written atomically but not fsynced (2 fsyncs less per commit):
a power cut can leave it one commit behind or empty, which, like a crash before the write, only
makes the last commit not undoable. A log left one commit behind by a crash in between, or a
damaged log (ignored and started afresh), can only make an undo unavailable; it can never make one
write over bytes it did not check. The file is validated (pydantic, exact format tag and scope)
before anything is taken from it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from core.layout import COMMIT_LOGS_DIR, MANAGER_DIR
from core.models import Revision

COMMIT_LOG_DIR = f"{MANAGER_DIR}/{COMMIT_LOGS_DIR}"
FORMAT: Literal["dsh-commit-log/1"] = "dsh-commit-log/1"
MAX_ENTRIES = 20
MAX_LOG_BYTES = 1 << 20
GLOBAL_NAME = "GLOBAL"  # the one "record" of the global scope


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LoggedChange(_Frozen):
    """One record a commit changed."""

    name: str
    before: str | None  # history id of the displaced bytes; None: the commit created the record
    after: Revision | None  # content hash of the bytes written; None: the commit deleted the record

    @property
    def kind(self) -> Literal["create", "overwrite", "delete"]:
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "overwrite"


class CommitLogEntry(_Frozen):
    """One commit of one scope."""

    id: str
    scope: str
    time: datetime
    origin: str
    actor: str = ""  # who committed ("" the app, "cli", "agent:<client>"); see StoreCore.actor
    before: Revision  # the scope's revision just before the commit
    after: Revision  # and just after: an undo requires the disk to still be here
    changes: tuple[LoggedChange, ...]


class _LogFile(_Frozen):
    format: Literal["dsh-commit-log/1"]
    scope: str
    entries: tuple[CommitLogEntry, ...]  # oldest first


def log_rel(scope: str) -> str:
    """The log's path under the root (``scope`` is already a checked key or ``global``)."""
    return f"{COMMIT_LOG_DIR}/{scope}.json"


class CommitLogCache:
    """Per scope, the last log bytes rendered or parsed here and their entries (owned by a store,
    see :class:`core.store.caches.StoreCaches`). Parsing is a pure function of the bytes, so the same
    bytes need not be validated again (~1 ms of every commit): each commit reads the log it wrote
    itself the commit before."""

    MAX_SCOPES = 64

    def __init__(self) -> None:
        self._known: dict[str, tuple[bytes, tuple[CommitLogEntry, ...]]] = {}

    def get(self, scope: str, data: bytes) -> tuple[CommitLogEntry, ...] | None:
        known = self._known.get(scope)
        return known[1] if known is not None and known[0] == data else None

    def remember(self, scope: str, data: bytes, entries: tuple[CommitLogEntry, ...]) -> None:
        self._known.pop(scope, None)
        self._known[scope] = (data, entries)
        while len(self._known) > self.MAX_SCOPES:
            try:
                self._known.pop(next(iter(self._known)))
            except (StopIteration, KeyError, RuntimeError):  # another thread trimmed it
                break

    def clear(self) -> None:
        self._known.clear()


def parse_log(data: bytes | None, scope: str, cache: CommitLogCache | None = None) -> list[CommitLogEntry]:
    """The entries (oldest first); [] for no file or one that does not validate (never acted on)."""
    if data is None or len(data) > MAX_LOG_BYTES:
        return []
    known = cache.get(scope, data) if cache is not None else None
    if known is not None:
        return list(known)
    try:
        doc = _LogFile.model_validate_json(data)
    except (ValidationError, ValueError):
        return []
    if doc.scope != scope or any(e.scope != scope for e in doc.entries):
        return []
    if cache is not None:
        cache.remember(scope, data, doc.entries)
    return list(doc.entries)


def render_log(scope: str, entries: list[CommitLogEntry], cache: CommitLogCache | None = None) -> bytes:
    # Compact JSON from pydantic's own serializer: ``json.dumps(indent=...)`` runs the pure-Python
    # encoder, which cost ~4 ms of every commit for 20 entries. Readers accept either layout.
    doc = _LogFile(format=FORMAT, scope=scope, entries=tuple(entries[-MAX_ENTRIES:]))
    data = doc.model_dump_json().encode("utf-8") + b"\n"
    # What parse_log gives for these bytes (a JSON round trip of frozen models is exact; the tests
    # compare the two).
    if cache is not None:
        cache.remember(scope, data, doc.entries)
    return data
