"""The journal's document: its schema (pydantic, checksummed, every path confined) and the names
of a transaction's staging folder (see :mod:`core.store.journal` for the protocol)."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from core.atomic import read_nofollow
from core.layout import GLOBAL_FILE as GLOBAL_FILE  # every layout name comes from core/layout.py
from core.layout import HISTORY_DIR, MANAGER_DIR, STAGING_DIR, WORKSPACES_DIR

JOURNAL_NAMES = ("journal.json",)
ROLLBACK_NAMES = ("rollback.json",)
"""One file holding the journal twice (two lines, each checksummed): a damaged copy leaves the other,
for the price of one write and one fsync."""
GLOBAL = "global"
HISTORY_MODE = 0o400
"""History entries are read-only copies: nothing (not even a process holding the old file open) edits them."""

_SCOPE_RE = re.compile(r"^(?!\.)[\w-]{1,120}$")
_COMPONENT_RE = re.compile(r"^[^/\\\0]{1,250}$")
_STAGED_RE = re.compile(r"^\d{4}\.(?:new|del|hst)$")


def _safe_component(name: str) -> bool:
    return bool(_COMPONENT_RE.match(name)) and name not in (".", "..")


# --- the journal's schema -------------------------------------------------------------------------
class OpDoc(BaseModel):
    """One file of a transaction. Paths are a scope index plus a single file-name component."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    scope: int  # index into JournalDoc.scopes: whose folder the target is in
    name: str  # the target's file name in that folder
    staged: str | None  # NNNN.new (writes) or NNNN.del (where a delete moves the target)
    old_hash: str | None  # hash of the bytes it displaces; None: the target must not exist
    new_hash: str | None  # hash of the staged bytes (writes)
    history: str | None = None  # file name under .manager/history/<scope>/ for the displaced bytes
    hist_staged: str | None = None  # NNNN.hst: the staged read-only copy that becomes that entry

    @model_validator(mode="after")
    def _confined(self) -> OpDoc:
        if not _safe_component(self.name):
            raise ValueError(f"unsafe target name {self.name!r}")
        for staged in (self.staged, self.hist_staged):
            if staged is not None and not _STAGED_RE.match(staged):
                raise ValueError(f"unsafe staged name {staged!r}")
        if self.history is not None and (not _safe_component(self.history) or not self.history.endswith(".hist")):
            raise ValueError(f"unsafe history name {self.history!r}")
        if (self.history is None) != (self.hist_staged is None):
            raise ValueError("history and hist_staged go together")
        if self.staged is None:
            raise ValueError("every op names its staged file")
        if self.staged.endswith(".new") != (self.new_hash is not None):
            raise ValueError("writes (and only writes) have new_hash")
        if self.staged.endswith(".del") and self.old_hash is None:
            raise ValueError("a delete names the bytes it deletes")
        return self


class ArchiveDoc(BaseModel):
    """A workspace folder this transaction moves to ``archived/`` (after every file op), and its stamp."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    scope: int  # index into JournalDoc.scopes
    archived_at: str  # ISO time written to .manager/archive/<key>.json

    @model_validator(mode="after")
    def _valid(self) -> ArchiveDoc:
        datetime.fromisoformat(self.archived_at)  # ValueError: not a time
        return self


class JournalDoc(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    version: Literal[2]
    kind: Literal["commit", "purge"]
    scopes: tuple[str, ...]
    new_dirs: tuple[int, ...] = ()  # scope indexes whose folder this transaction creates
    ops: tuple[OpDoc, ...] = ()
    trash: str | None = None  # purge: the folder name under .manager/trash/
    archive: tuple[ArchiveDoc, ...] = ()
    """Workspaces archived by this transaction. Left out of the document (and its checksum) when
    empty, so a journal without archives has the bytes it had before the field existed."""
    checksum: str

    @model_validator(mode="after")
    def _valid(self) -> JournalDoc:
        if not _valid_scopes(self.scopes):
            raise ValueError("bad scopes")
        for op in self.ops:
            if not 0 <= op.scope < len(self.scopes):
                raise ValueError("op scope out of range")
            if self.scopes[op.scope] == GLOBAL and op.name != GLOBAL_FILE:
                raise ValueError("the global scope holds GLOBAL.md only")
        if any(not 0 <= i < len(self.scopes) or self.scopes[i] == GLOBAL for i in self.new_dirs):
            raise ValueError("bad new_dirs")
        moved = [a.scope for a in self.archive]
        if len(set(moved)) != len(moved) or any(
            not 0 <= i < len(self.scopes) or self.scopes[i] == GLOBAL or i in self.new_dirs for i in moved
        ):
            raise ValueError("bad archive")
        if any(op.scope in moved for op in self.ops):
            raise ValueError("an archived workspace has no file ops in the same transaction")
        if self.kind == "purge":
            if self.ops or self.archive or len(self.scopes) != 1 or self.scopes[0] == GLOBAL:
                raise ValueError("a purge names one workspace and no files")
            if self.trash is None or not _safe_component(self.trash) or not self.trash.startswith(self.scopes[0]):
                raise ValueError("bad trash name")
        if checksum(body_of(self)) != self.checksum:
            raise ValueError("checksum mismatch")
        return self

    def to_json(self) -> str:
        return self.model_dump_json(exclude=None if self.archive else {"archive"})


def body_of(doc: JournalDoc) -> dict[str, object]:
    return doc.model_dump(exclude={"checksum"} if doc.archive else {"checksum", "archive"})


def checksum(body: object) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


MAX_TX_SCOPES = 1000
MAX_JOINED_NAME = 200
"""A transaction's staging folder is its scopes joined by ``+`` while that fits this many bytes (one
path component, far under 255); longer lists are named by a hash (:data:`HASHED_PREFIX`)."""
HASHED_PREFIX = "+many-"
"""No scope can start with ``+`` (workspace keys never contain it), so a hashed name never collides."""
SCOPES_FILE = "scopes.json"
"""In a hashed staging folder: the scopes it covers (checked against the hash), so recovery knows
which locks to take. Written first, under a lock named after the folder: a folder without it whose
lock is free was left by a crash before anything was staged (:func:`discard_unnamed`)."""


def _valid_scopes(scopes: Sequence[str]) -> bool:
    """``global`` (optional, first) then distinct workspace keys in sorted order: the lock order."""
    if not scopes or len(scopes) > MAX_TX_SCOPES or any(not _SCOPE_RE.match(s) for s in scopes):
        return False
    keys = scopes[1:] if scopes[0] == GLOBAL else scopes
    return GLOBAL not in keys and all(a < b for a, b in itertools.pairwise(keys))


def tx_name(scopes: Sequence[str]) -> str:
    joined = "+".join(scopes)
    if len(joined.encode("utf-8")) <= MAX_JOINED_NAME:
        return joined
    return HASHED_PREFIX + hashlib.sha256(joined.encode("utf-8")).hexdigest()[:40]


def tx_scopes(root: Path, name: str) -> list[str] | None:
    """The scopes (lock order) a staging folder ``name`` covers, or None if it is no name we make.

    A joined name says them itself; a hashed one by its :data:`SCOPES_FILE`, believed only if its
    scopes hash to the name (a forged list can name no other scope)."""
    if not name.startswith(HASHED_PREFIX):
        parts = name.split("+")
        return parts if _valid_scopes(parts) else None
    try:
        raw = read_nofollow(str(staging_dir(root, name) / SCOPES_FILE))
        scopes = json.loads(raw or b"null")
    except (OSError, ValueError):
        return None
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes) or not _valid_scopes(scopes):
        return None
    return scopes if tx_name(scopes) == name else None


def staging_dir(root: Path, name: str) -> Path:
    return root / MANAGER_DIR / STAGING_DIR / name


def scope_dir_rel(scope: str) -> str:
    """The folder a scope's files live in, relative to the root (derived, never read from a journal)."""
    return "" if scope == GLOBAL else f"{WORKSPACES_DIR}/{scope}"


def history_dir_rel(scope: str) -> str:
    return f"{MANAGER_DIR}/{HISTORY_DIR}/{scope}"

def archive_stamp_bytes(archived_at: str) -> bytes:
    """What ``.manager/archive/<key>.json`` holds (an archive by the Recycle Bin or by a transaction)."""
    return json.dumps({"archived_at": archived_at}).encode("utf-8")


def make_doc(
    kind: Literal["commit", "purge"],
    scopes: Sequence[str],
    *,
    ops: Sequence[OpDoc | dict[str, object]] = (),
    new_dirs: Sequence[int] = (),
    trash: str | None = None,
    archive: Sequence[tuple[int, str]] = (),
) -> JournalDoc:
    """A validated journal document (every op and the checksum checked by the schema)."""
    body: dict[str, object] = {
        "version": 2,
        "kind": kind,
        "scopes": list(scopes),
        "new_dirs": list(new_dirs),
        "ops": [o.model_dump() if isinstance(o, OpDoc) else dict(o) for o in ops],
        "trash": trash,
    }
    if archive:
        body["archive"] = [{"scope": i, "archived_at": when} for i, when in archive]
    return JournalDoc.model_validate_json(json.dumps({**body, "checksum": checksum(body)}))
