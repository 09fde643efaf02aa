"""What the Recycle Bin tab reads and decides, without Qt: its contents, and where a deleted record
would go back to (read just before asking the user, so the question matches the disk)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from core.errors import DshMemoryError, NotFoundError
from core.models import HistoryEntry, Revision, WorkspaceInfo, WorkspaceSnapshot
from core.store.api import MemoryStore
from core.store.base import GLOBAL_SCOPE
from core.store.files import AGENT_PROPOSALS, DEBUG_LOGS, RECEIPTS, REVIEW_STATES


@dataclass(frozen=True)
class RecycleBin:
    """Archived workspaces and the kept history (deleted records and earlier versions).

    ``back``: ids of "delete" entries whose record exists again in its active workspace (restored,
    or written anew). They are no longer deleted, so the list stops calling them that; their
    bytes stay in history as earlier versions.
    """

    workspaces: list[WorkspaceInfo]
    history: list[HistoryEntry]
    back: frozenset[str] = field(default_factory=frozenset)

    def history_of(self, key: str) -> list[HistoryEntry]:
        """Every kept entry of workspace ``key``: what a purge of it deletes with it."""
        return [h for h in self.history if h.scope_key == key]


def read_recycle_bin(store: MemoryStore) -> RecycleBin:
    history = store.history.entries()
    present: dict[str, set[str]] = {}
    for key in {h.scope_key for h in history if h.reason == "delete" and h.scope_key != GLOBAL_SCOPE}:
        try:
            present[key] = {e.name for e in store.read_workspace(key).entries}
        except NotFoundError:  # archived or gone: its deleted records are still deleted
            present[key] = set()
    back = frozenset(h.id for h in history if h.reason == "delete" and h.name in present.get(h.scope_key, ()))
    return RecycleBin(store.list_workspaces(archived=True), history, back)


@dataclass(frozen=True)
class RestoreTarget:
    """Where a deleted record would go back to.

    ``state`` is "active" (its workspace exists; ``revision`` is the CAS base and
    ``record_exists`` says whether a record of that name would be replaced), "archived" (restore
    the workspace first) or "missing" (the workspace must be created again from the entry's cwd).
    """

    state: Literal["active", "archived", "missing"]
    revision: Revision | None = None
    record_exists: bool = False
    same_as_current: bool = False  # the record holds exactly these bytes now: nothing to restore


def restore_target(store: MemoryStore, entry: HistoryEntry) -> RestoreTarget:
    try:
        snap = store.read_workspace(entry.scope_key)
    except NotFoundError:
        archived = {w.key for w in store.list_workspaces(archived=True)}
        return RestoreTarget("archived" if entry.scope_key in archived else "missing")
    current = snap.get(entry.name)
    same = current is not None and current.revision == entry.revision
    return RestoreTarget("active", snap.revision, current is not None, same)


def restore_entry(
    store: MemoryStore, entry: HistoryEntry, expect: Revision | None, create: bool, allow_secrets: bool = False
) -> WorkspaceSnapshot:
    """Put ``entry`` back (CAS on ``expect``); ``create`` first creates its missing workspace.
    A version holding a credential-shaped value needs ``allow_secrets``, as a manual save does."""
    if create:
        expect = store.create_workspace(entry.cwd).revision
    return store.history.restore(entry.id, expect, allow_secrets=allow_secrets)


def global_version(store: MemoryStore, entry_id: str) -> tuple[str, Revision]:
    """An earlier GLOBAL.md's text and the current GLOBAL.md revision (the CAS base to replace it)."""
    return store.history.read(entry_id).decode("utf-8"), store.read_global().revision


# --- purge: "delete forever" means every derived copy (issue 25) ---------------------------------
@dataclass(frozen=True)
class PurgeSweep:
    """What a purge removed besides the workspace folder and its history (counts, for the report)."""

    agent_proposals: int = 0
    review_states: int = 0
    receipts_closed: int = 0
    debug_logs: int = 0
    usage_entries: int = 0
    search_cache_dropped: bool = False
    sync_history_rewritten: bool = False  # the next sync replaces the remote's history (core/sync/purge.py)


def purge_workspace(store: MemoryStore, key: str, confirm: str) -> PurgeSweep:
    """Purge archived workspace ``key`` (the store's confirmed, journaled delete of its folder,
    history, commit log and review marks), then sweep every derived store keyed by it.

    The store's purge is the point of no return; the sweep after it is best effort per item and
    runs again on a later purge of the same key (see :func:`sweep_workspace`)."""
    store.recycle.purge(key, confirm)
    return sweep_workspace(store, key)


def _workspace_of(text: str | None) -> str | None:
    """The ``workspace_key`` a pending proposal or review state names (None when unreadable)."""
    from core.foreign import load_json  # bounded: these files are ours, but never trusted blindly

    if text is None:
        return None
    try:
        doc: Any = load_json(text)
    except ValueError:
        return None
    value = doc.get("workspace_key") if isinstance(doc, dict) else None
    return value if isinstance(value, str) else None


def sweep_workspace(store: MemoryStore, key: str) -> PurgeSweep:
    """Remove every derived copy of workspace ``key``'s text; receipts keep their body-free summary.

    - pending agent proposals for it (``.manager/agent-proposals/``): deleted, so neither
      ``reviews --pending`` lists them nor ``review ID --apply --refresh`` re-creates the workspace;
    - pending review states (``.manager/review-state/``, proposals, evidence and the user's edits);
    - receipts of those reviews: marked ``discarded`` (they never held bodies);
    - debug logs of every review of the workspace (``debug/<review-id>/``);
    - its uses in the usage ledger and the MCP served log (``.manager/usage/``);
    - the search cache (``.manager/cache/``): dropped whole and rebuilt from the records by the next
      search, since deleted rows of an SQLite file (or a search index's segments) keep their bytes
      in free pages until they are overwritten;
    - the sync repository (``.manager/sync/repo.git``): its history rewritten without the workspace,
      the next sync force-pushes that to the remote (``core.sync.purge``).
    """
    from core.consolidation.proposals import FINAL_STATUSES
    from core.consolidation.receipts import parse_receipt, render_receipt

    proposals = states = closed = debug = 0
    reviews: set[str] = set()
    for pid in store.files(AGENT_PROPOSALS).list():
        if _workspace_of(store.files(AGENT_PROPOSALS).read(pid)) == key:
            with contextlib.suppress(DshMemoryError, OSError):
                store.files(AGENT_PROPOSALS).delete(pid)
                proposals += 1
            reviews.add(pid)
    for rid in store.files(REVIEW_STATES).list():
        if _workspace_of(store.files(REVIEW_STATES).read(rid)) == key:
            with contextlib.suppress(DshMemoryError, OSError):
                store.files(REVIEW_STATES).delete(rid)
                states += 1
            reviews.add(rid)
    for rid in store.files(RECEIPTS).list():
        text = store.files(RECEIPTS).read(rid)
        receipt = parse_receipt(text) if text is not None else None
        if receipt is None or (receipt.workspace_key != key and rid not in reviews):
            continue
        reviews.add(rid)
        if receipt.status not in FINAL_STATUSES and receipt.status != "discarded":
            closed_receipt = receipt.model_copy(update={"status": "discarded", "error": "workspace purged"})
            with contextlib.suppress(DshMemoryError, OSError):
                store.files(RECEIPTS).write(rid, render_receipt(closed_receipt))
                closed += 1
    for rid in sorted(reviews):
        with contextlib.suppress(DshMemoryError, OSError):
            logs = store.files(DEBUG_LOGS)
            debug += sum(logs.delete(log_id) for log_id in logs.list(rid))
    usage = 0
    with contextlib.suppress(DshMemoryError, OSError, TimeoutError):
        from core.usage.ledger import forget_workspace

        usage = forget_workspace(store, key)
    dropped = _drop_search_cache(store.root)
    rewritten = False
    with contextlib.suppress(DshMemoryError, OSError):
        from core.sync.purge import purge_synced  # the sync repository's history (issue 28)

        rewritten = purge_synced(store, key)
    return PurgeSweep(proposals, states, closed, debug, usage, dropped, rewritten)


def _drop_search_cache(root: Path | None) -> bool:
    """The hook on the search index: drop its whole cache folder (never following a link out)."""
    from core.atomic import remove_tree_quietly
    from core.layout import SEARCH_CACHE_DIR

    if root is None:
        return False
    folder = Path(root) / SEARCH_CACHE_DIR
    if not folder.exists() and not folder.is_symlink():
        return False
    remove_tree_quietly(folder)
    return not folder.exists()
