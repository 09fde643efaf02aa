"""Looking at a memory root without changing it: ``store.inspect``.

:class:`RootInspection` answers what the window's Maintenance tab, the search index's build and the
demo offer ask of a root beside the snapshots: every problem in it (``check``), whether it holds any
memory at all, the record files of a scope as bytes (``scan``, read once and never cached) or one
record file exactly as on disk, and whether the root can be written. Nothing here takes a scope's
lock for writing or changes a byte; the backend's hooks (``_scope_keys``, ``_scan_scope``,
``_file_bytes``, ``_extra_problems``) say where the bytes are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import NotFoundError, UsageError
from core.layout import ARCHIVED_DIR, INDEX_FILE, SCOPE_FILE, WORKSPACES_DIR
from core.models import Problem
from core.records import render_index
from core.store.rules import check_key
from core.store.stamps import ScopeStamps

if TYPE_CHECKING:
    from core.store.base import StoreCore
    from core.store.scan import WorkspaceScan


class RootInspection:
    """Read-only questions about one store's root (see the module docstring)."""

    def __init__(self, store: StoreCore) -> None:
        self._store = store

    def __repr__(self) -> str:
        return f"RootInspection({self._store!r})"

    @property
    def stamps(self) -> ScopeStamps:
        """What a cache of derived data compares to skip a scope (``core/store/stamps.py``)."""
        root = self._store.root
        return ScopeStamps(root, None if root is not None else self._store._scope_keys)

    @property
    def read_only(self) -> bool:
        """Reads work, writes raise ReadOnlyRootError (also in ``status().read_only``)."""
        return self._store.read_only

    def has_memory(self) -> bool:
        """True when the root holds any memory: GLOBAL.md, an active or an archived workspace.

        Cheap (no file is parsed): the window asks it before offering the demo root.
        """
        store = self._store
        return bool(store._scope_keys(False) or store._scope_keys(True)) or store._global_bytes() is not None

    def scan(self, key: str, *, archived: bool = False) -> WorkspaceScan:
        """The scope's record files as bytes, each read once and not cached (``core.store.scan``):
        for a reader of every record's text (the search index's build). Raises NotFoundError."""
        store = self._store
        check_key(key)
        with store._read_lock(key):
            scan = store._scan_scope(key, archived)
        if scan is None:
            where = "in the Recycle Bin" if archived else "among active workspaces"
            raise NotFoundError(f"No workspace {key!r} {where}. Run `dsh-memory workspaces` to list them.")
        return scan

    def record_file(self, key: str, file_name: str) -> bytes | None:
        """The bytes of record file ``file_name`` in active workspace ``key``, exactly as on disk.

        For showing an invalid file's text so it can be corrected. None when the file is gone. Only
        a plain ``*.md`` name inside the workspace; a symlink is never followed.
        """
        check_key(key)
        if "/" in file_name or "\\" in file_name or file_name.startswith(".") or not file_name.endswith(".md"):
            raise UsageError(f"{file_name!r} is not a record file name.")
        return self._store._file_bytes(key, file_name)

    def check(self) -> list[Problem]:
        """Every problem in the root: invalid records, stale MEMORY.md, bad scope.json, an archived
        copy clashing with an active key, and what the backend finds (stray files, links, quarantine)."""
        store = self._store
        problems: list[Problem] = []
        g = store.read_global()
        problems += [
            Problem(path="GLOBAL.md", reason=r, kind="global_invalid", params=(("detail", r),))
            for r in g.invalid_reasons
        ]
        active_keys = set(store._scope_keys(False))
        for archived in (False, True):
            top = ARCHIVED_DIR if archived else WORKSPACES_DIR
            for key in store._scope_keys(archived):
                try:
                    snap = store.read_workspace(key, archived=archived)
                except NotFoundError:
                    continue
                base = f"{top}/{key}"
                if snap.info.scope_problem:
                    problems.append(
                        Problem(
                            path=f"{base}/{SCOPE_FILE}",
                            reason=snap.info.scope_problem,
                            scope_key=key,
                            kind="scope_file",
                            params=(("detail", snap.info.scope_problem),),
                        )
                    )
                for e in snap.entries:
                    for r in e.invalid_reasons:
                        problems.append(
                            Problem(
                                path=f"{base}/{e.file_name}",
                                reason=r,
                                scope_key=key,
                                kind="invalid_record",
                                params=(("detail", r),),
                            )
                        )
                expected = render_index(snap.records()).decode("utf-8")
                if snap.index_text != expected:
                    what = "is missing" if not snap.index_text else "is out of date with the records"
                    problems.append(
                        Problem(
                            path=f"{base}/{INDEX_FILE}",
                            reason=f"{INDEX_FILE} {what}; the next commit to this workspace rebuilds it",
                            scope_key=key,
                            kind="index_missing" if not snap.index_text else "index_stale",
                            params=(("file", INDEX_FILE),),
                        )
                    )
                if archived and key in active_keys:
                    problems.append(
                        Problem(
                            path=base,
                            reason="an active workspace has the same key; "
                            "restore needs it archived or purged first",
                            scope_key=key,
                            kind="archived_key_clash",
                        )
                    )
        problems += store._extra_problems()
        return problems
