"""The store's behaviour, written once: CAS, validation, secrets, index, history, Recycle Bin rules.

:class:`StoreCore` implements the whole :class:`~core.store.api.MemoryStore` contract on top of a
handful of storage primitives (``_load_scope``, ``_write_scope``, ``_lock``...). The file store and the
in-memory store only provide those primitives, so both behave the same by construction, and one
contract test suite covers both.

History limits: the last :data:`HISTORY_MAX_VERSIONS` versions per record, none older than
:data:`HISTORY_MAX_AGE` (pruned on writes, hidden from listings once expired).

Writing over or deleting an *invalid* file is an explicit user action: allowed for ``origin="manual"``
(its bytes go to history first), refused for ``origin="automatic"``. Entries that are not regular
files (directories named ``*.md``, symlinks) are never written or deleted by the store.
"""

from __future__ import annotations

import json
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from core.errors import (
    ConflictError,
    InvalidRecordError,
    NotFoundError,
    SecretRefusedError,
    StorageError,
)
from core.fingerprint import content_hash
from core.keys import normalize_cwd, workspace_key, workspace_name
from core.models import (
    EMPTY_REVISION,
    DeleteOp,
    GlobalSnapshot,
    HistoryEntry,
    Op,
    Origin,
    Problem,
    PutOp,
    Record,
    RecordEntry,
    Revision,
    RootStatus,
    ScopeBatch,
    ScopesResult,
    WorkspaceInfo,
    WorkspaceSnapshot,
)
from core.records import (
    INDEX_FILE,
    NAME_RE,
    SCOPE_FILE,
    parse_record,
    record_file_name,
    render_index,
    render_record,
    validate_record,
)
from core.store.commit_log import CommitLogCache
from core.store.files import FileKind, InternalFiles
from core.store.history import RecordHistory
from core.store.inspection import RootInspection
from core.store.journal import DisplacedError
from core.store.recycle import RecycleBin
from core.store.scope_files import (
    IndexItems,
    ScopeFiles,
    index_drop,
    index_put,
    render_items,
)

if TYPE_CHECKING:
    from core.store.multi import GlobalChange
    from core.store.scan import WorkspaceScan

HISTORY_MAX_VERSIONS = 20
HISTORY_MAX_AGE = timedelta(days=90)
MAX_GLOBAL_BYTES = 1024 * 1024
GLOBAL_SCOPE = "global"
"""Scope id of GLOBAL.md in locks, journal and history (no workspace key can be this: keys end in a hash)."""
NOT_REGULAR_PREFIX = "not a regular file"
MAX_NAME_BYTES = 128
"""Longest record name: every file name derived from it (history ids add 56 bytes, staging and temp
files fewer) then stays far under the 255-byte limit of common file systems."""
MAX_KEY_LENGTH = 120
YAML_ALIAS_REASON = (
    "its frontmatter uses YAML anchors or aliases (&name / *name); records may not contain them "
    "(they can expand exponentially). Write the values out"
)


def yaml_has_aliases(text: str) -> bool:
    """True if YAML ``text`` contains an anchor or alias. Linear: tokens are scanned, never expanded."""
    if "&" not in text and "*" not in text:
        return False  # the common case: no token scan at all
    import yaml

    try:
        for token in yaml.scan(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(token, yaml.AnchorToken | yaml.AliasToken):
                return True
    except yaml.YAMLError:
        return False  # not YAML: the parser reports it
    return False


def frontmatter_text(data: bytes) -> str:
    """The frontmatter of a record's bytes (between the opening and the closing ``---``), or ''."""
    head = data[: 256 * 1024 + 8].decode("utf-8", "replace")
    if not head.startswith("---"):
        return ""
    end = head.find("\n---", 3)
    return head[3:] if end < 0 else head[3:end]


def _may_have_aliases(data: bytes) -> bool:
    """False when the alias check can't find anything: no ``&`` or ``*`` in the first 64 KiB, or
    none in the bytes ``frontmatter_text`` would decode. Bytes suffice: UTF-8 never uses ``&``,
    ``*`` or ``\n---`` inside a multi-byte character, and the "replace" decoding keeps every ASCII
    byte. (Most records have ``**bold**`` in their body and none in their frontmatter: no decode.)"""
    head = data[:65536]
    if b"&" not in head and b"*" not in head:
        return False
    if not data.startswith(b"---"):
        return False  # frontmatter_text gives ""
    limit = 256 * 1024 + 8
    end = data.find(b"\n---", 3, limit)
    front = data[3:end] if end >= 0 else data[3:limit]
    return b"&" in front or b"*" in front


def name_problem(name: str) -> str | None:
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        return (
            f"the name is {size} bytes long; the limit is {MAX_NAME_BYTES} bytes "
            "(so that its history and staging file names fit the file system)"
        )
    return None

Clock = Callable[[], datetime]
_T = TypeVar("_T")


def utc_now() -> datetime:
    return datetime.now(UTC)




def check_key(key: str) -> str:
    """A workspace key as a single safe path component (no traversal)."""
    if (
        not key
        or key in (".", "..")
        or "/" in key
        or "\\" in key
        or "\0" in key
        or "+" in key
        or key.startswith(".")
        or len(key) > MAX_KEY_LENGTH
    ):
        raise NotFoundError(f"No workspace with key {key!r}. Run `dsh-memory workspaces` to list the keys.")
    return key


def entry_from_bytes(file_name: str, data: bytes, mtime_ns: int = 0) -> RecordEntry:
    """Parse one regular file into a RecordEntry (valid, or invalid with every reason).

    A frontmatter with YAML anchors/aliases is never handed to the YAML parser (an alias bomb would
    hold the scope's lock for an hour); an over-long name is reported (never rewritten).
    """
    record: Record | None = None
    reasons: tuple[str, ...] = ()
    if _may_have_aliases(data) and yaml_has_aliases(frontmatter_text(data)):
        reasons = (YAML_ALIAS_REASON,)
    if not reasons:
        try:
            record = parse_record(file_name, data)
        except InvalidRecordError as exc:
            record, reasons = None, exc.reasons
    long_name = name_problem(file_name.removesuffix(".md"))
    if long_name is not None:
        record, reasons = None, (*reasons, long_name)
    return RecordEntry(
        file_name=file_name,
        record=record,
        invalid_reasons=reasons,
        revision=content_hash(data),
        size=len(data),
        mtime_ns=mtime_ns,
    )


def special_entry(
    file_name: str, reason: str, identity: str, size: int = 0, mtime_ns: int = 0
) -> RecordEntry:
    """An entry that is not a regular file (directory, symlink): invalid and never touched."""
    return RecordEntry(
        file_name=file_name,
        record=None,
        invalid_reasons=(f"{NOT_REGULAR_PREFIX}: {reason}",),
        revision=content_hash(identity.encode("utf-8", "surrogateescape")),
        size=size,
        mtime_ns=mtime_ns,
    )


@dataclass(frozen=True)
class HistoryItem:
    """A history entry to write as part of a transaction."""

    entry: HistoryEntry
    data: bytes
    source: str  # the file whose previous bytes these are (``<name>.md`` or ``GLOBAL.md``)


@dataclass
class ScopeChange:
    """A transaction on one workspace scope: files to write (bytes) or delete (None), history to keep."""

    key: str
    files: dict[str, bytes | None] = field(default_factory=dict)
    history: list[HistoryItem] = field(default_factory=list)
    old: dict[str, bytes | None] = field(default_factory=dict)
    """The bytes read under the lock for each file in ``files`` (None: absent). A backend must never
    displace anything else: a file that differs at the moment of the write is a ConflictError."""
    index_items: IndexItems | None = None
    """MEMORY.md's items for the state after the change (so the backend need not recompute them)."""
    index_bytes: bytes | None = None
    """Their rendering: what MEMORY.md holds after the change unless it is blocked."""


def parse_scope_json(key: str, data: bytes | None) -> tuple[str, datetime | None, str | None]:
    """``(cwd, created, problem)`` from scope.json bytes."""
    if data is None:
        return "", None, f"{SCOPE_FILE} is missing; the workspace's folder is unknown"
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return "", None, f"{SCOPE_FILE} is not valid JSON ({exc})"
    if not isinstance(obj, dict):
        return "", None, f"{SCOPE_FILE} is not a JSON object"
    cwd = obj.get("cwd")
    created = None
    raw_created = obj.get("created")
    if isinstance(raw_created, str):
        try:
            created = datetime.fromisoformat(raw_created)
        except ValueError:
            created = None
    if not isinstance(cwd, str) or not cwd:
        return "", created, f"{SCOPE_FILE} has no 'cwd'"
    if workspace_key(cwd) != key:
        return cwd, created, f"{SCOPE_FILE} cwd {cwd!r} belongs to key {workspace_key(cwd)}, not this folder"
    return cwd, created, None


def render_scope_json(cwd: str, created: datetime) -> bytes:
    doc = {"cwd": cwd, "created": created.isoformat(timespec="seconds")}
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


HISTORY_STAMP = "%Y%m%dT%H%M%S%fZ"
HISTORY_ID_RE = re.compile(r"^(\d{8}T\d{12}Z)-(overwrite|delete)-([0-9a-f]{16})-(.+)$")
"""The part of a history id after ``<scope>/``: UTC time, reason, revision of the bytes, record name."""


def history_id(scope: str, when: datetime, name: str, reason: str, revision: Revision) -> str:
    stamp = when.astimezone(UTC).strftime(HISTORY_STAMP)
    return f"{scope}/{stamp}-{reason}-{revision}-{name}"


def _find_secrets(texts: Sequence[tuple[str, str]]) -> list[str]:
    try:  # core.secrets is written alongside the store; tolerate its absence in a partial checkout
        from core import secrets
    except ImportError:  # pragma: no cover
        return []
    found: list[str] = []
    for label, text in texts:
        hits = secrets.find_secrets(text)
        if hits:
            found.extend(f"{label}: {d}" for d in secrets.describe(hits))
    return found


def check_secrets(texts: Sequence[tuple[str, str]], origin: Origin, allow_secrets: bool) -> None:
    found = _find_secrets(texts)
    if not found:
        return
    where = "; ".join(found)
    if origin == "automatic":
        raise SecretRefusedError(
            f"Refused: automatic changes may not contain credential-shaped values ({where}). "
            "Nothing was written.",
            found,
        )
    if not allow_secrets:
        raise SecretRefusedError(
            f"This change contains credential-shaped values ({where}). Remove them, or save anyway "
            "with --allow-secrets if they are not real credentials. Nothing was written.",
            found,
        )


class StoreCore(ABC):
    """Everything of the MemoryStore contract that does not depend on where bytes live."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock: Clock = clock or utc_now
        self._log_cache = CommitLogCache()  # (the file store shares its StoreCaches' one)
        self.history = RecordHistory(self)
        """The records' history and the commit logs (``core/store/history.py``)."""
        self.recycle = RecycleBin(self)
        """Archive / restore / purge of whole workspaces (``core/store/recycle.py``)."""
        self.inspect = RootInspection(self)
        """Problems, raw record bytes, has-memory, read-only (``core/store/inspection.py``)."""

    # --- primitives the backends provide ----------------------------------------------------
    @abstractmethod
    def _lock(self, scope: str) -> AbstractContextManager[None]:
        """Exclusive lock on one scope (``global``, ``settings``, or a workspace key), cross-process."""

    @abstractmethod
    def _prepare(self, scope: str) -> None:
        """Called under the scope lock before a mutation: finish any interrupted transaction."""

    @abstractmethod
    def _scope_keys(self, archived: bool) -> list[str]: ...

    @abstractmethod
    def _load_scope(self, key: str, archived: bool) -> ScopeFiles | None: ...

    @abstractmethod
    def _file_bytes(self, key: str, file_name: str) -> bytes | None:
        """Raw bytes of a regular file in an active scope."""

    @abstractmethod
    def _write_scope(self, change: ScopeChange, before: ScopeFiles | None) -> ScopeFiles | None:
        """Apply a ScopeChange all-or-nothing (creating the scope folder if needed).

        May return the scope as it is now (saves a re-read); None means "read it back".
        """

    @abstractmethod
    def _global_bytes(self) -> bytes | None: ...

    @abstractmethod
    def _write_global(self, data: bytes, old: bytes | None, history: Sequence[HistoryItem]) -> None:
        """Replace GLOBAL.md, never displacing anything but ``old`` (ConflictError otherwise)."""

    @abstractmethod
    def _write_together(
        self,
        change: ScopeChange,
        before: ScopeFiles,
        global_data: bytes,
        global_old: bytes | None,
        global_history: Sequence[HistoryItem],
    ) -> None:
        """Apply a workspace change and a new GLOBAL.md as one transaction (both or neither)."""

    @abstractmethod
    def _archive_move(self, key: str, when: datetime) -> None: ...

    @abstractmethod
    def _restore_move(self, key: str) -> None: ...

    @abstractmethod
    def _purge_archived(self, key: str) -> None: ...

    @abstractmethod
    def _history_items(self, scope: str | None = None) -> list[HistoryEntry]:
        """History entries (of one scope, or all)."""

    @abstractmethod
    def _history_bytes(self, entry_id: str) -> bytes | None: ...

    @abstractmethod
    def _drop_history(self, entry_ids: Sequence[str]) -> None: ...

    @abstractmethod
    def _aux_read(self, rel: str) -> bytes | None:
        """Bytes of an app-owned file next to the memory (settings.yml, reviews/..., debug/...)."""

    @abstractmethod
    def _aux_write(self, rel: str, data: bytes) -> None: ...

    @abstractmethod
    def _aux_append(self, rel: str, data: bytes) -> None: ...

    @abstractmethod
    def _aux_list(self, rel_dir: str) -> list[str]: ...

    def _extra_problems(self) -> list[Problem]:
        """Backend-specific findings for :meth:`check` (stray files, leftover transactions)."""
        return []

    # --- snapshots ----------------------------------------------------------------------------
    def _info(self, files: ScopeFiles) -> WorkspaceInfo:
        valid, invalid, size = files.counts
        return self._make_info(
            files.key,
            files.scope_json,
            files.archived_at,
            record_count=valid,
            invalid_count=invalid,
            size_bytes=size + files.extra_bytes,
        )

    @staticmethod
    def _make_info(
        key: str,
        scope_json: bytes | None,
        archived_at: datetime | None,
        *,
        record_count: int,
        invalid_count: int,
        size_bytes: int,
        counted: bool = True,
    ) -> WorkspaceInfo:
        """A WorkspaceInfo from scope.json and the numbers a parse (or the summary cache) gave
        (``counted=False``: none yet, see ``list_workspaces(counts=False)``)."""
        cwd, created, problem = parse_scope_json(key, scope_json)
        return WorkspaceInfo(
            key=key,
            cwd=cwd,
            created=created,
            archived_at=archived_at,
            record_count=record_count,
            invalid_count=invalid_count,
            size_bytes=size_bytes,
            cwd_exists=bool(cwd) and os.path.isdir(cwd),
            scope_problem=problem,
            counted=counted,
        )

    def _snapshot(self, files: ScopeFiles) -> WorkspaceSnapshot:
        return WorkspaceSnapshot(
            info=self._info(files),
            revision=files.revision,
            entries=files.entries,
            index_text=(files.index or b"").decode("utf-8", "replace"),
        )

    def _global_problem(self) -> str | None:
        """A reason if GLOBAL.md exists but is not a regular file (the store never touches it then)."""
        return None

    def _global_snapshot(self, data: bytes | None) -> GlobalSnapshot:
        if data is None:
            problem = self._global_problem()
            return GlobalSnapshot(
                text="",
                revision=EMPTY_REVISION if problem is None else content_hash(problem.encode()),
                size=0,
                exists=False,
                invalid_reasons=() if problem is None else (problem,),
            )
        reasons: list[str] = []
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = data.decode("utf-8", "replace")
            reasons.append(f"GLOBAL.md is not valid UTF-8 (bad byte at offset {exc.start}); save it as UTF-8")
        if "\x00" in text:
            reasons.append("GLOBAL.md contains NUL bytes")
        if len(data) > MAX_GLOBAL_BYTES:
            reasons.append(f"GLOBAL.md is {len(data):,} bytes; the limit is {MAX_GLOBAL_BYTES // 1024} KiB")
        return GlobalSnapshot(
            text=text,
            revision=content_hash(data),
            size=len(data),
            exists=True,
            invalid_reasons=tuple(reasons),
        )

    # --- reading ------------------------------------------------------------------------------
    def read_global(self) -> GlobalSnapshot:
        with self._read_lock(GLOBAL_SCOPE):
            return self._global_snapshot(self._global_bytes())

    def _read_lock(self, scope: str) -> AbstractContextManager[None]:
        """Reads take the scope lock too, so they never see a half-applied transaction."""
        return self._lock(scope)

    def list_workspaces(self, *, archived: bool = False, counts: bool = True) -> list[WorkspaceInfo]:
        # counts=False is a hint: here (in memory) counting is as cheap as not, so always counted.
        infos: list[WorkspaceInfo] = []
        for key in self._scope_keys(archived):
            with self._read_lock(key):
                files = self._load_scope(key, archived)
            if files is not None:
                infos.append(self._info(files))
        return sorted(infos, key=lambda i: (i.display_name.lower(), i.key))

    def read_workspace(self, key: str, *, archived: bool = False) -> WorkspaceSnapshot:
        check_key(key)
        with self._read_lock(key):
            files = self._load_scope(key, archived)
        if files is None:
            where = "in the Recycle Bin" if archived else "among active workspaces"
            raise NotFoundError(f"No workspace {key!r} {where}. Run `dsh-memory workspaces` to list them.")
        return self._snapshot(files)

    @abstractmethod
    def _scan_scope(self, key: str, archived: bool) -> WorkspaceScan | None:
        """The scope's files as bytes (``core.store.scan``), None if there is no such scope."""

    def find_workspace(self, cwd: str) -> WorkspaceSnapshot | None:
        try:
            return self.read_workspace(workspace_key(cwd))
        except NotFoundError:
            return None

    def status(self, *, active: Sequence[WorkspaceInfo] | None = None) -> RootStatus:
        if active is None:
            active = self.list_workspaces()
        elif not all(i.counted for i in active):
            raise ValueError("status() needs a counted listing (list_workspaces(counts=True))")
        archived = self.list_workspaces(archived=True)
        g = self.read_global()
        total = g.size + sum(i.size_bytes for i in active) + sum(i.size_bytes for i in archived)
        return RootStatus(
            root=str(self.root) if self.root is not None else ":memory:",
            total_bytes=total,
            workspace_count=len(active),
            archived_count=len(archived),
            global_size=g.size,
            read_only=self.read_only,
            quarantined=self._quarantined_count(),
        )

    @property
    def read_only(self) -> bool:
        """True when the root can be read but not written (read-only mount, another user's root)."""
        return False

    def _quarantined_count(self) -> int:
        return 0

    @property
    @abstractmethod
    def root(self) -> Path | None: ...

    # --- mutations ----------------------------------------------------------------------------
    def _conflict(self, what: str, expect: Revision, snap: Any, current: Revision) -> ConflictError:
        return ConflictError(
            f"{what} changed since you read it (you had revision {expect}, it is now {current}). "
            "Nothing was written; reload, re-apply your change and save again.",
            current,
            snap,
        )

    def _check_global_text(self, text: str) -> bytes:
        """GLOBAL.md bytes for ``text``, or InvalidRecordError (checked before any lock)."""
        data = text.encode("utf-8", "surrogatepass")
        reasons = []
        if "\x00" in text:
            reasons.append("GLOBAL.md text contains NUL characters")
        if len(data) > MAX_GLOBAL_BYTES:
            reasons.append(
                f"GLOBAL.md would be {len(data):,} bytes; the limit is {MAX_GLOBAL_BYTES // 1024} KiB"
            )
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            reasons.append("GLOBAL.md text contains unpaired surrogates; it can't be saved as UTF-8")
        if reasons:
            raise InvalidRecordError("GLOBAL.md was not saved: " + "; ".join(reasons), reasons)
        return data

    def _plan_global(
        self, data: bytes, expect: Revision | None
    ) -> tuple[GlobalSnapshot, bytes | None, list[HistoryItem] | None]:
        """Under the global lock: CAS, then ``(current, old bytes, history)``; history None = no change."""
        old = self._global_bytes()
        current = self._global_snapshot(old)
        if expect is not None and expect != current.revision:
            raise self._conflict("GLOBAL.md", expect, current, current.revision)
        if old == data:
            return current, old, None
        problem = self._global_problem()
        if problem is not None:
            raise InvalidRecordError(f"GLOBAL.md was not saved: {problem}", [problem])
        history: list[HistoryItem] = []
        if old is not None:
            history.append(self._history_item(GLOBAL_SCOPE, "", "GLOBAL", "overwrite", old, "GLOBAL.md"))
        return current, old, history

    def replace_global(
        self, text: str, expect: Revision | None, *, origin: Origin = "manual", allow_secrets: bool = False
    ) -> GlobalSnapshot:
        data = self._check_global_text(text)
        with self._lock(GLOBAL_SCOPE):
            self._prepare(GLOBAL_SCOPE)
            current, old, history = self._plan_global(data, expect)
            if history is None:
                return current
            check_secrets([("GLOBAL.md", text)], origin, allow_secrets)
            try:
                self._write_global(data, old, history)
            except DisplacedError:
                now = self._global_snapshot(self._global_bytes())
                raise self._conflict("GLOBAL.md", current.revision, now, now.revision) from None
            self._prune_history(GLOBAL_SCOPE, ["GLOBAL"])
            snap = self._after_write(lambda: self._global_snapshot(self._global_bytes()))
            self._log_global(current.revision, snap.revision, history, origin)
            return snap

    def create_workspace(self, cwd: str) -> WorkspaceSnapshot:
        cwd = normalize_cwd(cwd)
        key = workspace_key(cwd)
        with self._lock(key):
            self._prepare(key)
            files = self._load_scope(key, False)
            if files is not None:
                return self._snapshot(files)
            change = ScopeChange(key=key)
            change.files[SCOPE_FILE] = render_scope_json(cwd, self._clock())
            change.files[INDEX_FILE] = render_index([])
            change.old = {SCOPE_FILE: None, INDEX_FILE: None}
            try:
                self._write_scope(change, None)
            except DisplacedError as exc:
                raise ConflictError(
                    f"Another program created the workspace folder for {cwd} at the same moment; "
                    "nothing was written. Reload and try again.",
                    EMPTY_REVISION,
                ) from exc
            return self._after_write(lambda: self._snapshot(self._must_load(key)))

    def _after_write(self, read: Callable[[], _T]) -> _T:
        """Read the new state after a successful write, retrying once: the write already happened,
        so a transient read error must not be reported as "nothing changed"."""
        try:
            return read()
        except StorageError:
            try:
                return read()
            except StorageError as exc:
                raise StorageError(
                    f"The change was saved, but reading it back failed: {exc.message} Reload to see it."
                ) from exc

    def _must_load(self, key: str, archived: bool = False) -> ScopeFiles:
        files = self._load_scope(key, archived)
        if files is None:
            where = "in the Recycle Bin" if archived else "among active workspaces"
            raise NotFoundError(f"No workspace {key!r} {where}. Run `dsh-memory workspaces` to list them.")
        return files

    def commit(
        self,
        key: str,
        ops: Sequence[Op],
        expect: Revision | None,
        *,
        origin: Origin = "manual",
        allow_secrets: bool = False,
    ) -> WorkspaceSnapshot:
        check_key(key)
        return self._commit(key, [(op, None) for op in ops], expect, origin, allow_secrets)

    @staticmethod
    def _precheck(ops: Sequence[tuple[Op, bytes | None]]) -> None:
        """Everything about a batch that does not depend on the disk, done before taking any lock:
        name length, YAML anchors (an alias bomb must never be parsed under a lock), field rules."""
        reasons: list[str] = []
        for op, _raw in ops:
            name = op.record.name if isinstance(op, PutOp) else op.name
            long_name = name_problem(name)
            if long_name is not None:
                reasons.append(f"{name[:40]}…: {long_name}")
                continue
            if isinstance(op, PutOp):
                if yaml_has_aliases(op.record.extra_frontmatter):
                    reasons.append(f"{name}: {YAML_ALIAS_REASON}")
                    continue
                rs = validate_record(op.record, record_file_name(name))
                reasons.extend(f"{name}: {r}" for r in rs)
        if reasons:
            raise InvalidRecordError("The batch was not committed: " + "; ".join(reasons), reasons)

    def _commit(
        self,
        key: str,
        ops: Sequence[tuple[Op, bytes | None]],
        expect: Revision | None,
        origin: Origin,
        allow_secrets: bool,
        *,
        prune: bool = True,
    ) -> WorkspaceSnapshot:
        """``ops`` pairs each operation with exact bytes to write (history restores) or None (render)."""
        self._precheck(ops)
        with self._lock(key):
            self._prepare(key)
            files = self._must_load(key)
            plan = self._plan_commit(key, files, ops, expect, origin)
            if plan is None:
                return self._snapshot(files)
            change, texts = plan
            check_secrets(texts, origin, allow_secrets)
            try:
                after = self._write_scope(change, files)
            except DisplacedError:
                raise self._displaced(key, expect or files.revision) from None
            if prune:
                self._prune_history(key, [h.entry.name for h in change.history])
            snap = self._snapshot(after) if after is not None else None
            if snap is None:
                snap = self._after_write(lambda: self._snapshot(self._must_load(key)))
            self._log_commit(key, files.revision, snap.revision, change, origin)
            return snap

    def _displaced(self, key: str, expect: Revision) -> ConflictError:
        """A direct writer changed a file between our read and our write: a conflict, with the fresh scope."""
        snap = self._snapshot(self._must_load(key))
        return self._conflict(f"Workspace {snap.info.display_name}", expect, snap, snap.revision)

    def _plan_commit(
        self,
        key: str,
        files: ScopeFiles,
        ops: Sequence[tuple[Op, bytes | None]],
        expect: Revision | None,
        origin: Origin,
    ) -> tuple[ScopeChange, list[tuple[str, str]]] | None:
        """Under the scope lock: CAS, then the change to write and the texts to scan (None: no-op)."""
        revision = files.revision
        if expect is not None and expect != revision:
            snap = self._snapshot(files)
            raise self._conflict(f"Workspace {snap.info.display_name}", expect, snap, revision)
        # The full snapshot is built only when needed (no-op, error message): a 1k-record scope
        # costs ~1 ms to wrap, and a commit returns the new one anyway.
        cwd, _, _ = parse_scope_json(key, files.scope_json)
        display = workspace_name(cwd) if cwd else key
        current = files.by_name
        items = files.index_items.copy()  # MEMORY.md of the new state, edited line by line below
        change = ScopeChange(key=key)
        reasons: list[str] = []
        texts: list[tuple[str, str]] = []
        seen: set[str] = set()
        for op, raw in ops:
            name = op.record.name if isinstance(op, PutOp) else op.name
            if name in seen:
                reasons.append(f"{name}: the batch changes it more than once; keep one change per record")
                continue
            seen.add(name)
            # Invalid files can still be deleted by their exact name (minus .md).
            if (
                isinstance(op, DeleteOp)
                and not NAME_RE.match(name)
                and (record_file_name(name) not in current or "/" in name or name in (".", ".."))
            ):
                reasons.append(f"{name!r} is not a record name")
                continue
            fn = record_file_name(name)
            entry = current.get(fn)
            if entry is None and isinstance(op, PutOp) and fn.lower() in files.lowered:
                other = next(n for n in files.names if n.lower() == fn.lower())
                reasons.append(
                    f"{name}: a file named {other} already exists (differs only in case); "
                    "rename or delete it first"
                )
                continue
            if entry is not None and not entry.is_valid:
                if any(r.startswith(NOT_REGULAR_PREFIX) for r in entry.invalid_reasons):
                    reasons.append(f"{fn} is {entry.invalid_reasons[0]}; the store never changes it")
                    continue
                if origin == "automatic":
                    reasons.append(
                        f"{fn} is invalid on disk; automatic changes never overwrite it — fix it by hand"
                    )
                    continue
            old = self._file_bytes(key, fn) if entry is not None else None
            if entry is not None and (old is None or content_hash(old) != entry.revision):
                # Changed since the listing this CAS was decided on: never write over unseen bytes.
                raise self._displaced(key, expect or revision)
            if isinstance(op, PutOp):
                reuse = old if old is not None and not yaml_has_aliases(frontmatter_text(old)) else None
                data = raw if raw is not None else render_record(op.record, base=reuse)
                if data == old:
                    continue
                change.files[fn] = data
                index_put(items, op.record)
                texts.append((fn, data.decode("utf-8")))
            else:
                if entry is None:
                    raise NotFoundError(
                        f"Record {name!r} does not exist in workspace {display}; nothing was deleted."
                    )
                change.files[fn] = None
                index_drop(items, fn.removesuffix(".md"))
            change.old[fn] = old
            if old is not None:
                reason = "overwrite" if change.files[fn] is not None else "delete"
                change.history.append(self._history_item(key, cwd, name, reason, old, fn))
        if reasons:
            raise InvalidRecordError("The batch was not committed: " + "; ".join(reasons), reasons)
        if not change.files:
            return None
        index = render_items(items)
        change.index_items, change.index_bytes = items, index
        # A MEMORY.md that is a symlink or not a regular file is reported by check, never replaced.
        if index != files.index and INDEX_FILE not in files.blocked:
            change.files[INDEX_FILE] = index
            change.old[INDEX_FILE] = files.index
            if files.index is not None and not files.index_is_generated:
                # Someone edited MEMORY.md by hand (or an agent wrote it): regenerating it displaces
                # bytes the store did not write, so they are kept in history like a record's.
                change.history.append(self._history_item(key, cwd, "MEMORY", "overwrite", files.index, INDEX_FILE))
        return change, texts

    def commit_together(
        self,
        key: str,
        ops: Sequence[Op],
        expect: Revision | None,
        *,
        global_text: str | None = None,
        global_expect: Revision | None = None,
        origin: Origin = "manual",
        allow_secrets: bool = False,
    ) -> tuple[WorkspaceSnapshot, GlobalSnapshot]:
        """A workspace batch and (when ``global_text`` is not None) a new GLOBAL.md as ONE transaction.

        Locks: global first, then the workspace (every caller takes them in this order, so two
        callers can't deadlock). Both revisions are compared under the locks; a stale one is a
        ConflictError and nothing is written. The backend writes one journal for both scopes, so a
        crash at any instant leaves both old or both new.
        """
        result = self.commit_scopes(
            [ScopeBatch(key, ops, expect)], global_text=global_text,
            global_expect=global_expect,
            origin=origin, allow_secrets=allow_secrets,
        )
        return result.workspaces[key], result.global_ or self.read_global()

    def commit_scopes(
        self,
        batches: Sequence[ScopeBatch],
        *,
        global_text: str | None = None,
        global_expect: Revision | None = None,
        archive: Sequence[str] = (),
        origin: Origin = "manual",
        allow_secrets: bool = False,
    ) -> ScopesResult:
        """Batches of several workspaces, a new GLOBAL.md and archives as ONE transaction
        (:mod:`core.store.multi`): locks global first then keys sorted, CAS on every revision, all or nothing."""
        from core.store.multi import commit_scopes

        return commit_scopes(
            self, batches, global_text=global_text, global_expect=global_expect, archive=archive,
            origin=origin, allow_secrets=allow_secrets,
        )

    @abstractmethod
    def _write_scopes(
        self, changes: Sequence[ScopeChange], global_change: GlobalChange | None, archive: Sequence[str],
        when: datetime,
    ) -> None:
        """Apply workspace changes, a new GLOBAL.md and archive moves as one transaction (all or none)."""

    # --- history (core/store/history.py: store.history) ---------------------------------------
    # The commit code keeps, prunes and logs history through these four names (so does a backend's
    # transaction); RecordHistory owns what they mean.
    def _history_item(self, scope: str, cwd: str, name: str, reason: str, data: bytes, source: str) -> HistoryItem:
        return self.history.item(scope, cwd, name, reason, data, source)

    def _prune_history(self, scope: str, names: Sequence[str]) -> None:
        self.history.prune(scope, names)

    def _log_commit(self, key: str, before: Revision, after: Revision, change: ScopeChange, origin: str) -> None:
        self.history.log_commit(key, before, after, change, origin)

    def _log_global(self, before: Revision, after: Revision, history: Sequence[HistoryItem], origin: str) -> None:
        self.history.log_global(before, after, history, origin)

    def _history_versions(self, scope: str, names: set[str]) -> dict[str, list[tuple[datetime, str]]]:
        """``(time, id)`` of every history version of each of ``names`` (what pruning needs)."""
        groups: dict[str, list[tuple[datetime, str]]] = {}
        for h in self._history_items(scope):
            if h.name in names:
                groups.setdefault(h.name, []).append((h.time, h.id))
        return groups

    # --- app-owned files (core/store/files.py: each kind declared once) ------------------------
    def files(self, kind: FileKind) -> InternalFiles:
        """The internal files of one kind (receipts, review states, settings...): read / write / list
        / delete, validated by the kind's declaration."""
        return InternalFiles(self, kind)

    def _aux_read_confined(self, rel: str) -> bytes | None:
        """``_aux_read`` for private state: the file store refuses a symlinked folder on the way."""
        return self._aux_read(rel)

    def _aux_list_confined(self, rel_dir: str) -> list[str]:
        """``_aux_list`` for private state (the file store also refuses links and sweeps old temp files)."""
        return self._aux_list(rel_dir)

    def _aux_delete(self, rel: str) -> bool:
        """Remove one app-owned file next to the memory; False when it was not there."""
        raise NotImplementedError

    def _aux_write_private(self, rel: str, data: bytes) -> None:
        """``_aux_write`` for private state (the file store makes it owner-only)."""
        self._aux_write(rel, data)

    def _write_log(self, rel: str, data: bytes) -> None:
        """Write a commit log: private, atomic; the file store skips the fsyncs (see commit_log.py)."""
        self._aux_write_private(rel, data)
