"""The store's core, written once: it locks, checks revisions and commits.

:class:`StoreCore` implements the :class:`~core.store.api.MemoryStore` contract on top of the storage
primitives of ``core/store/hooks.py`` (``_load_scope``, ``_write_scope``, ``_lock``...), with the rules
of ``rules.py`` and the batch planning of ``plan.py``; what is not locking, CAS or committing is a
collaborator it hands out: ``files(kind)`` (``files.py``), ``history`` (``history.py``), ``recycle``
(``recycle.py``), ``inspect`` (``inspection.py``). The file store and the in-memory store only provide
the primitives, so both behave the same by construction, and one contract test suite covers both.

Writing over or deleting an *invalid* file is an explicit user action: allowed for ``origin="manual"``
(its bytes go to history first), refused for ``origin="automatic"``. Entries that are not regular
files (directories named ``*.md``, symlinks) are never written or deleted by the store.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from core.errors import (
    ConflictError,
    InvalidRecordError,
    NotFoundError,
    StorageError,
)
from core.fingerprint import content_hash
from core.keys import normalize_cwd, workspace_key
from core.models import (
    EMPTY_REVISION,
    GlobalSnapshot,
    Op,
    Origin,
    Revision,
    RootStatus,
    ScopeBatch,
    ScopesResult,
    WorkspaceInfo,
    WorkspaceSnapshot,
)
from core.records import (
    INDEX_FILE,
    SCOPE_FILE,
    render_index,
)
from core.store.commit_log import CommitLogCache
from core.store.files import FileKind, InternalFiles
from core.store.history import RecordHistory
from core.store.hooks import StorageHooks
from core.store.inspection import RootInspection
from core.store.journal import DisplacedError
from core.store.plan import plan_commit, precheck
from core.store.recycle import RecycleBin
from core.store.rules import (
    GLOBAL_SCOPE,
    HISTORY_ID_RE,
    HISTORY_MAX_AGE,
    HISTORY_MAX_VERSIONS,
    HISTORY_STAMP,
    MAX_GLOBAL_BYTES,
    MAX_NAME_BYTES,
    NOT_REGULAR_PREFIX,
    YAML_ALIAS_REASON,
    Clock,
    HistoryItem,
    ScopeChange,
    _may_have_aliases,
    check_key,
    check_secrets,
    entry_from_bytes,
    frontmatter_text,
    history_id,
    name_problem,
    parse_scope_json,
    render_scope_json,
    special_entry,
    utc_now,
    yaml_has_aliases,
)
from core.store.scope_files import (
    ScopeFiles,
)
from core.store.stamps import MAX_KEY_LENGTH

if TYPE_CHECKING:
    pass

__all__ = [  # the rules live in core/store/rules.py; the backends, the journal and tests import them here
    "GLOBAL_SCOPE",
    "HISTORY_ID_RE",
    "HISTORY_MAX_AGE",
    "HISTORY_MAX_VERSIONS",
    "HISTORY_STAMP",
    "MAX_GLOBAL_BYTES",
    "MAX_KEY_LENGTH",
    "MAX_NAME_BYTES",
    "NOT_REGULAR_PREFIX",
    "YAML_ALIAS_REASON",
    "Clock",
    "HistoryItem",
    "ScopeChange",
    "StoreCore",
    "_may_have_aliases",
    "check_key",
    "check_secrets",
    "entry_from_bytes",
    "frontmatter_text",
    "history_id",
    "name_problem",
    "parse_scope_json",
    "render_scope_json",
    "special_entry",
    "utc_now",
    "yaml_has_aliases",
]

_T = TypeVar("_T")

class StoreCore(StorageHooks):
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
            history.append(self.history.item(GLOBAL_SCOPE, "", "GLOBAL", "overwrite", old, "GLOBAL.md"))
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
            self.history.prune(GLOBAL_SCOPE, ["GLOBAL"])
            snap = self._after_write(lambda: self._global_snapshot(self._global_bytes()))
            self.history.log_global(current.revision, snap.revision, history, origin)
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

    # The batch rules live in core/store/plan.py; multi.py (commit_scopes) uses them by these names too.

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
        precheck(ops)
        with self._lock(key):
            self._prepare(key)
            files = self._must_load(key)
            plan = plan_commit(self, key, files, ops, expect, origin)
            if plan is None:
                return self._snapshot(files)
            change, texts = plan
            check_secrets(texts, origin, allow_secrets)
            try:
                after = self._write_scope(change, files)
            except DisplacedError:
                raise self._displaced(key, expect or files.revision) from None
            if prune:
                self.history.prune(key, [h.entry.name for h in change.history])
            snap = self._snapshot(after) if after is not None else None
            if snap is None:
                snap = self._after_write(lambda: self._snapshot(self._must_load(key)))
            self.history.log_commit(key, files.revision, snap.revision, change, origin)
            return snap

    def _displaced(self, key: str, expect: Revision) -> ConflictError:
        """A direct writer changed a file between our read and our write: a conflict, with the fresh scope."""
        snap = self._snapshot(self._must_load(key))
        return self._conflict(f"Workspace {snap.info.display_name}", expect, snap, snap.revision)

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

    # --- app-owned files (core/store/files.py: each kind declared once) ------------------------
    def files(self, kind: FileKind) -> InternalFiles:
        """The internal files of one kind (receipts, review states, settings...): read / write / list
        / delete, validated by the kind's declaration."""
        return InternalFiles(self, kind)

