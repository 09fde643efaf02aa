"""One transaction over Global and any number of workspaces, archiving some on the way (issue 28).

:func:`commit_scopes` is what ``StoreCore.commit_scopes`` runs: the locks in the one fixed order
(``global`` first, then the workspace keys sorted), every revision compared under them, every batch
planned (MEMORY.md included) before anything is written, then ONE backend transaction
(``_write_scopes``: one journal on disk) — every scope old or every scope new, also after a crash.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import ConflictError, UsageError
from core.models import (
    GlobalSnapshot,
    Op,
    Origin,
    Revision,
    ScopeBatch,
    ScopesResult,
    WorkspaceInfo,
    WorkspaceSnapshot,
)
from core.store.journal import DisplacedError
from core.store.plan import plan_commit, precheck

if TYPE_CHECKING:
    from core.store.base import HistoryItem, ScopeChange, StoreCore
    from core.store.scope_files import ScopeFiles


@dataclass(frozen=True)
class GlobalChange:
    """A new GLOBAL.md for a backend transaction: its bytes, the bytes it displaces, their history."""

    data: bytes
    old: bytes | None
    history: Sequence[HistoryItem]


def _distinct(keys: Sequence[str], what: str) -> None:
    if len(set(keys)) != len(keys):
        raise UsageError(f"The same workspace appears twice among the {what}; give each one once.")


def commit_scopes(
    store: StoreCore,
    batches: Sequence[ScopeBatch],
    *,
    global_text: str | None = None,
    global_expect: Revision | None = None,
    archive: Sequence[str] = (),
    origin: Origin = "manual",
    allow_secrets: bool = False,
) -> ScopesResult:
    from core.store.base import GLOBAL_SCOPE, check_key, check_secrets

    keys = [check_key(b.key) for b in batches]
    shelved = sorted(check_key(k) for k in archive)
    _distinct(keys, "batches")
    _distinct(shelved, "workspaces to archive")
    if set(keys) & set(shelved):
        raise UsageError("A workspace can't be changed and archived in one transaction; archive it alone.")
    pairs: dict[str, list[tuple[Op, bytes | None]]] = {b.key: [(op, None) for op in b.ops] for b in batches}
    for p in pairs.values():
        precheck(p)
    data = store._check_global_text(global_text) if global_text is not None else None
    with_global = data is not None or global_expect is not None
    with contextlib.ExitStack() as stack:
        order = sorted({*keys, *shelved})
        for scope in [GLOBAL_SCOPE] * with_global + order:
            stack.enter_context(store._lock(scope))
        for scope in [GLOBAL_SCOPE] * with_global + order:
            store._prepare(scope)
        g_current: GlobalSnapshot | None = None
        g_old: bytes | None = None
        g_history: list[HistoryItem] | None = None
        if with_global:
            g_current = store._global_snapshot(store._global_bytes())
            if global_expect is not None and global_expect != g_current.revision:
                raise store._conflict("GLOBAL.md", global_expect, g_current, g_current.revision)
        files = {k: store._must_load(k) for k in keys}
        plans: dict[str, ScopeChange] = {}
        texts: list[tuple[str, str]] = []
        for b in batches:
            plan = plan_commit(store, b.key, files[b.key], pairs[b.key], b.expect, origin)
            if plan is not None:
                plans[b.key] = plan[0]
                texts += [(f"{b.key}/{fn}", text) for fn, text in plan[1]] if len(batches) > 1 else plan[1]
        if data is not None:
            g_current, g_old, g_history = store._plan_global(data, global_expect)
            if g_history is not None and global_text is not None:
                texts.append(("GLOBAL.md", global_text))
        for key in shelved:
            _check_archivable(store, key)
        check_secrets(texts, origin, allow_secrets)
        global_change = GlobalChange(data, g_old, g_history) if data is not None and g_history is not None else None
        if plans or global_change is not None or shelved:
            changes = [plans[k] for k in sorted(plans)]
            try:
                store._write_scopes(changes, global_change, shelved, store._clock())
            except DisplacedError:
                raise _displaced(store, g_current, files, plans, batches) from None
        for key, change in plans.items():
            store.history.prune(key, [h.entry.name for h in change.history])
        if global_change is not None:
            store.history.prune(GLOBAL_SCOPE, ["GLOBAL"])
        workspaces = {k: _after(store, k, files[k], k in plans) for k in keys}
        g = store._after_write(lambda: store._global_snapshot(store._global_bytes())) if with_global else None
        archived = [_archived_info(store, k) for k in shelved]
        for key, change in plans.items():
            store.history.log_commit(key, files[key].revision, workspaces[key].revision, change, origin)
        if global_change is not None and g is not None:
            store.history.log_global(store._global_snapshot(g_old).revision, g.revision, global_change.history, origin)
        return ScopesResult(workspaces=workspaces, global_=g, archived=archived)


def _check_archivable(store: StoreCore, key: str) -> None:
    """As ``archive`` checks: active, and no archived copy of the same key in the Recycle Bin."""
    snap = store._snapshot(store._must_load(key))
    if store._load_scope(key, True) is not None:
        raise ConflictError(
            f"The Recycle Bin already holds an archived copy of {snap.info.display_name} ({key}). "
            "Restore or purge that copy first; nothing was written.",
            snap.revision,
            snap,
        )


def _archived_info(store: StoreCore, key: str) -> WorkspaceInfo:
    return store._after_write(lambda: store._info(store._must_load(key, True)))


def _after(store: StoreCore, key: str, before: ScopeFiles, changed: bool) -> WorkspaceSnapshot:
    if not changed:
        return store._snapshot(before)
    return store._after_write(lambda: store._snapshot(store._must_load(key)))


def _displaced(
    store: StoreCore,
    g_current: GlobalSnapshot | None,
    files: dict[str, ScopeFiles],
    plans: dict[str, ScopeChange],
    batches: Sequence[ScopeBatch],
) -> ConflictError:
    """A direct writer changed a file between our read and our write: a conflict naming that scope."""
    if g_current is not None:
        g_now = store._global_snapshot(store._global_bytes())
        if g_now.revision != g_current.revision:
            return store._conflict("GLOBAL.md", g_current.revision, g_now, g_now.revision)
    expect = {b.key: b.expect for b in batches}
    for key in sorted(plans):
        now = store._load_scope(key, False)
        if now is None or now.revision != files[key].revision:
            return store._displaced(key, expect[key] or files[key].revision)
    if not plans:
        g_now = store._global_snapshot(store._global_bytes())
        return store._conflict("GLOBAL.md", g_now.revision, g_now, g_now.revision)
    key = min(plans)
    return store._displaced(key, expect[key] or files[key].revision)
