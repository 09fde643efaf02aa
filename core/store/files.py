"""The app's internal files next to the memory, each kind declared once: ``store.files(kind)``.

A :class:`FileKind` says where a kind lives (a folder or a single file named in ``core/layout.py``),
which ids it takes, how big a file may be and whether it is private state. One collaborator,
:class:`InternalFiles`, reads, writes, lists, deletes (and appends, where the kind allows it) every
kind through the backend's few storage hooks (``_aux_read``, ``_aux_write``...), so a new kind is a
declaration here, never a new store method. The store validates ids and sizes only; what a file
holds (JSON, Markdown, YAML) is its owner's business (settings, consolidation, the MCP server...).

``settings.yml`` is the one *revised* kind: its writes are compare-and-swap on the file's revision
under the ``settings`` lock (two windows saving settings must not lose each other's edit), so it is
written with :meth:`InternalFiles.replace` and read with :meth:`InternalFiles.read_revised`; a plain
``write`` refuses it. Keeping that in the kind (not a separate settings accessor) leaves one door.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import ConflictError, NotFoundError, UsageError
from core.fingerprint import content_hash
from core.layout import (
    AGENT_PROPOSALS_DIR,
    DEBUG_DIR,
    MCP_HANDLE_KEY_FILE,
    REVIEW_STATE_DIR,
    REVIEWS_DIR,
    SETTINGS_FILE,
    STALE_MARKS_DIR,
)
from core.models import EMPTY_REVISION, Revision
from core.store.rules import check_key

if TYPE_CHECKING:
    from core.store.base import StoreCore

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
_DEBUG_ID = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,199})/attempt-(\d{1,9})$")
SETTINGS_LOCK = "settings"  # the lock scope of settings.yml's compare-and-swap


def check_review_id(review_id: str) -> str:
    """A review (or agent proposal) id as one safe file-name stem, else UsageError."""
    if not _SAFE_ID.match(review_id):
        raise UsageError(f"Invalid review id {review_id!r}: use letters, digits, '.', '_' or '-'.")
    return review_id


def _check_debug_id(item_id: str) -> str:
    """``<review-id>/attempt-<n>``: one model transcript of one consolidation attempt."""
    m = _DEBUG_ID.match(item_id)
    if m is None:
        check_review_id(item_id.split("/", 1)[0])
        raise UsageError(f"Invalid debug log id {item_id!r}: expected <review-id>/attempt-<n> (n >= 0).")
    return item_id


def _check_single(item_id: str) -> str:
    if item_id:
        raise UsageError(f"{item_id!r}: this internal file is a single file; it takes no id.")
    return item_id


@dataclass(frozen=True)
class FileKind:
    """One kind of internal file: where it lives, its ids, its size bound, how private it is."""

    name: str
    folder: str  # under the root (from core/layout.py); for a single file, the file's path
    suffix: str = ""
    check_id: Callable[[str], str] = check_review_id  # returns the id, or raises a typed error
    max_bytes: int | None = None  # writes over it are refused; reads over it give None
    too_big: str = "The {name} {id} is {size:,} bytes, over the limit of {limit:,}; nothing was saved."
    private: bool = False  # owner-only (0600), never written or removed through a symlinked folder
    confined: bool = False  # reads and listings also refuse a symlinked folder on the way
    appendable: bool = False  # lines may be appended (a log)
    single: bool = False  # one file (``folder`` is its path), addressed with the id ""
    revised: bool = False  # writes are compare-and-swap (``replace``), under the kind's own lock

    def rel(self, item_id: str) -> str:
        """The file's path under the root (the id checked first: nothing can name a file elsewhere)."""
        checked = self.check_id(item_id)
        return self.folder if self.single else f"{self.folder}/{checked}{self.suffix}"

    def __repr__(self) -> str:
        return f"FileKind({self.name!r}, {self.folder!r})"


RECEIPTS = FileKind("receipt", REVIEWS_DIR, ".md")
"""``reviews/<review-id>.md``: what a review did, body-free (overwritten as the review moves on)."""

DEBUG_LOGS = FileKind("debug log", DEBUG_DIR, ".jsonl", check_id=_check_debug_id, appendable=True)
"""``debug/<review-id>/attempt-<n>.jsonl``: one JSON line per model exchange, appended."""

AGENT_PROPOSALS = FileKind(
    "agent proposal",
    AGENT_PROPOSALS_DIR,
    ".json",
    max_bytes=1 << 20,
    too_big="The proposal is {size:,} bytes, over the limit of {limit:,}; propose fewer or smaller changes. "
    "Nothing was written.",
)
"""``.manager/agent-proposals/<id>.json``: a pending agent proposal (``core/mcp/proposals.py`` owns it)."""

REVIEW_STATES = FileKind(
    "review state",
    REVIEW_STATE_DIR,
    ".json",
    max_bytes=8 * 1024 * 1024,
    too_big="The pending review {id} is {size:,} bytes, over the limit of {limit:,}; it was not saved. "
    "Commit or reject it before closing the window.",
    private=True,
    confined=True,
)
"""``.manager/review-state/<review-id>.json``: a pending review with its bodies, so never in ``reviews/``
(``core/consolidation/restore.py`` owns the content)."""

STALE_MARKS = FileKind(
    "stale marks",
    STALE_MARKS_DIR,
    ".json",
    check_id=check_key,
    max_bytes=4 << 20,
    too_big="The review marks of {id} are {size:,} bytes, over the limit; nothing was saved.",
    private=True,
    confined=True,
)
"""``.manager/stale-reviewed/<workspace-key>.json``: "reviewed" marks of the stale-memory queue, kept out
of the records' frontmatter (``core/staleness.py`` owns the content)."""

SETTINGS = FileKind("settings", SETTINGS_FILE, check_id=_check_single, single=True, revised=True)
"""``settings.yml``: the app's settings (``core/settings.py`` owns the content); compare-and-swap."""

MCP_HANDLE_KEY = FileKind("MCP handle key", MCP_HANDLE_KEY_FILE, check_id=_check_single, single=True, private=True)
"""``.manager/mcp-handle.key``: 32 random bytes, the HMAC key of agents' observation handles
(``core/mcp/handles.py`` creates it on first use)."""


class InternalFiles:
    """Read / write / list / delete (/ append) the files of one kind. Made by ``store.files(kind)``."""

    def __init__(self, store: StoreCore, kind: FileKind) -> None:
        self._store = store
        self.kind = kind

    def __repr__(self) -> str:
        return f"InternalFiles({self.kind.name!r})"

    # --- reading ------------------------------------------------------------------------------
    def read_bytes(self, item_id: str = "") -> bytes | None:
        """The file's bytes; None when absent, not a regular file, or over the kind's bound."""
        rel = self.kind.rel(item_id)
        store = self._store
        data = store._aux_read_confined(rel) if self.kind.confined else store._aux_read(rel)
        if data is None or (self.kind.max_bytes is not None and len(data) > self.kind.max_bytes):
            return None
        return data

    def read(self, item_id: str = "") -> str | None:
        """The file's text (undecodable bytes replaced); None as for :meth:`read_bytes`."""
        data = self.read_bytes(item_id)
        return None if data is None else data.decode("utf-8", "replace")

    def read_revised(self) -> tuple[str | None, Revision]:
        """A revised kind's text (None if absent) and its revision, read under the kind's lock."""
        self._must_be(revised=True)
        with self._store._read_lock(SETTINGS_LOCK):
            data = self._store._aux_read(self.kind.rel(""))
        if data is None:
            return None, EMPTY_REVISION
        return data.decode("utf-8", "replace"), content_hash(data)

    def list(self, under: str = "") -> list[str]:
        """Ids of the files there are, sorted (``under``: one group of a nested kind, a review id of
        the debug logs). Temp files of an interrupted write (dot files) and foreign names are skipped."""
        if self.kind.single:  # one file: its id is "" when it is there
            return [""] if self.read_bytes() is not None else []
        folder = self.kind.folder
        if under:
            folder = f"{folder}/{check_review_id(under)}"
        store = self._store
        names = store._aux_list_confined(folder) if self.kind.confined else store._aux_list(folder)
        out: list[str] = []
        for name in names:
            if not name.endswith(self.kind.suffix) or name.startswith("."):
                continue
            item_id = name.removesuffix(self.kind.suffix)
            if under:
                item_id = f"{under}/{item_id}"
            try:
                self.kind.check_id(item_id)
            except (UsageError, NotFoundError):
                continue  # not a file of ours (or a name no id can have): never listed, never acted on
            out.append(item_id)
        return sorted(out)

    # --- writing ------------------------------------------------------------------------------
    def _encode(self, item_id: str, data: str | bytes) -> bytes:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        limit = self.kind.max_bytes
        if limit is not None and len(raw) > limit:
            too_big = self.kind.too_big.format(name=self.kind.name, id=item_id, size=len(raw), limit=limit)
            raise UsageError(too_big, reason="too-large")
        return raw

    def write(self, item_id: str, data: str | bytes) -> None:
        """Write the file atomically, replacing what was there (UsageError: bad id or over the bound)."""
        self._must_be(revised=False)
        rel = self.kind.rel(item_id)
        raw = self._encode(item_id, data)
        if self.kind.private:
            self._store._aux_write_private(rel, raw)
        else:
            self._store._aux_write(rel, raw)

    def append(self, item_id: str, text: str) -> None:
        """Append ``text`` durably to an appendable kind's file (created when absent)."""
        if not self.kind.appendable:
            raise UsageError(f"{self.kind.name} files are written whole, never appended to.")
        self._store._aux_append(self.kind.rel(item_id), text.encode("utf-8"))

    def replace(self, text: str, expect: Revision | None) -> Revision:
        """Compare-and-swap a revised kind: lock, re-read, compare with ``expect`` (None: whatever is
        there), write only when the bytes change. The new revision; ConflictError if ``expect`` is stale."""
        self._must_be(revised=True)
        store, rel = self._store, self.kind.rel("")
        data = text.encode("utf-8")
        with store._lock(SETTINGS_LOCK):
            store._prepare(SETTINGS_LOCK)
            old = store._aux_read(rel)
            current = content_hash(old) if old is not None else EMPTY_REVISION
            if expect is not None and expect != current:
                raise ConflictError(
                    f"{rel} changed since you read it (you had revision {expect}, it is now {current}). "
                    "Nothing was written; reload, re-apply your change and save again.",
                    current,
                    None,
                )
            if old != data:
                store._aux_write(rel, data)
            return content_hash(data)

    def delete(self, item_id: str = "") -> bool:
        """Remove one file; False when it was not there. Never removes a link or a folder."""
        return self._store._aux_delete(self.kind.rel(item_id))

    def _must_be(self, *, revised: bool) -> None:
        if self.kind.revised != revised:
            how = "replace(text, expect)" if self.kind.revised else "write(id, text)"
            raise UsageError(f"{self.kind.name} is written with {how}.")
