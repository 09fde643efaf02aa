"""Undo the last commit of a workspace or of Global: one compare-and-swap commit that puts back what
that commit displaced.

The store's commit log (``core/store/commit_log.py``) says which records the last commit changed and
where their previous bytes are in history. An undo is allowed only while the scope is exactly as
that commit left it (its revision equals the logged ``after``); otherwise it is refused and nothing
is written. The undo is itself an ordinary manual commit, so it is logged too and can be undone in
turn (undo of undo re-applies the change). Undoing a create deletes the record (its bytes go to
history like any delete); undoing a delete puts the deleted bytes back, byte for byte.

A ``commit_together`` (a consolidation touching Global and a workspace) is logged once per scope;
each scope's part is undone from its own tab.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import ConflictError, NotFoundError, UndoRefusedError
from core.models import GlobalSnapshot, WorkspaceSnapshot
from core.store.api import MemoryStore
from core.store.commit_log import GLOBAL_NAME, CommitLogEntry

GLOBAL = "global"


@dataclass(frozen=True)
class UndoPlan:
    """What undoing ``entry`` writes: per record, the bytes to put back (None: delete it)."""

    scope: str
    entry: CommitLogEntry
    versions: tuple[tuple[str, bytes | None], ...]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.versions]


def last_commit(store: MemoryStore, scope: str) -> CommitLogEntry | None:
    """The newest logged commit of ``scope`` (a workspace key or ``global``), or None."""
    log = store.history.commit_log(scope)
    return log[0] if log else None


def _current_revision(store: MemoryStore, scope: str) -> str:
    if scope == GLOBAL:
        return store.read_global().revision
    try:
        return store.read_workspace(scope).revision
    except NotFoundError as exc:
        raise UndoRefusedError(
            "This workspace is not active any more (archived or removed); nothing was undone.",
            kind="not-found",
            scope=scope,
        ) from exc


def plan_undo(store: MemoryStore, scope: str) -> UndoPlan:
    """Check that the last commit can be undone and read the versions to put back (nothing written)."""
    entry = last_commit(store, scope)
    if entry is None:
        raise UndoRefusedError("There is no recorded commit to undo here.", kind="nothing", scope=scope)
    if _current_revision(store, scope) != entry.after:
        raise _changed(scope)
    versions: list[tuple[str, bytes | None]] = []
    for change in entry.changes:
        if change.before is None:
            versions.append((change.name, None))
            continue
        try:
            versions.append((change.name, store.history.read(change.before)))
        except NotFoundError as exc:
            raise UndoRefusedError(
                f"The previous version of {change.name} is no longer in history (it expired); nothing was undone.",
                kind="history-missing",
                scope=scope,
                name=change.name,
            ) from exc
    return UndoPlan(scope, entry, tuple(versions))


def _changed(scope: str) -> UndoRefusedError:
    what = "GLOBAL.md" if scope == GLOBAL else "This workspace"
    return UndoRefusedError(
        f"{what} changed after that commit (an agent, another program or another edit wrote to it), so it "
        "can't be undone safely. Nothing was written; look at its history in the Recycle Bin instead.",
        kind="changed",
        scope=scope,
    )


def undo_last_commit(
    store: MemoryStore, scope: str, *, allow_secrets: bool = False
) -> WorkspaceSnapshot | GlobalSnapshot:
    """Undo ``scope``'s last commit as one CAS commit against the revision that commit produced.

    Raises UndoRefusedError (nothing written) when there is nothing to undo, the scope changed since,
    or a version expired; SecretRefusedError when a version put back holds a credential and
    ``allow_secrets`` is False (the user is asked, as for any manual write).
    """
    plan = plan_undo(store, scope)
    try:
        if scope == GLOBAL:
            ((name, data),) = plan.versions
            assert name == GLOBAL_NAME
            text = data.decode("utf-8") if data is not None else ""  # undoing its creation empties it
            return store.replace_global(text, plan.entry.after, origin="manual", allow_secrets=allow_secrets)
        return store.history.commit_versions(scope, plan.versions, plan.entry.after, allow_secrets=allow_secrets)
    except ConflictError as exc:  # changed between the check and the commit's own CAS
        raise _changed(scope) from exc
