"""Move a workspace to a new folder (re-key it), merging into the workspace already there.

A workspace's key is derived from its folder's absolute path, so a renamed or moved project folder
starts from nothing. :func:`plan_move` compares the moved workspace with the target folder's: records
only in the moved one come along as they are, identical ones are settled, and a name in both with
different texts becomes one :class:`~core.sync.review.ReviewItem` with both texts. :func:`apply_move`
writes nothing until every such item has the user's choice, then:

1. in ONE store transaction (``commit_scopes``): every incoming and chosen version goes into the
   target workspace (CAS; whatever it displaces goes to history) and the moved workspace is archived
   (its bytes stay restorable in the Recycle Bin) — a crash leaves both old or both new;
2. a hand-formatted record gets its exact bytes right after (:mod:`core.sync.exact`);
3. writes a receipt ``reviews/move-<time>-<key>.md`` saying what moved and what was chosen, and
   points the sync map's entry (if the workspace is synced) at the new key.

Moves of an earlier version journaled steps 1 and 2 apart (``.manager/sync/moves/``);
:func:`finish_pending_moves` still finishes such a journal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core import messages as msg
from core.errors import ConflictError, NotFoundError, UsageError
from core.keys import normalize_cwd, workspace_key, workspace_name
from core.layout import RECORD_SUFFIX
from core.models import EMPTY_REVISION, Revision, ScopeBatch
from core.store.api import MemoryStore
from core.store.files import RECEIPTS
from core.sync import mapping, state
from core.sync.exact import as_ops
from core.sync.review import Resolution, ReviewItem, resolved_text, unresolved

MOVE_FORMAT = "dsh-move/1"


@dataclass(frozen=True)
class MovePlan:
    source_key: str
    source_cwd: str
    source_revision: Revision
    target_cwd: str
    target_key: str
    target_revision: Revision  # EMPTY_REVISION when the folder has no workspace yet
    target_exists: bool
    incoming: tuple[tuple[str, bytes], ...]  # records only in the source, moved byte for byte
    identical: tuple[str, ...]  # same bytes on both sides: nothing to do
    conflicts: tuple[ReviewItem, ...]  # same name, different texts: the user chooses
    left_behind: tuple[str, ...]  # invalid files of the source: kept in its Recycle Bin copy

    @property
    def is_merge(self) -> bool:
        return self.target_exists

    @property
    def source_name(self) -> str:
        return workspace_name(self.source_cwd) if self.source_cwd else self.source_key


@dataclass(frozen=True)
class MoveResult:
    target_key: str
    target_revision: Revision
    moved: tuple[str, ...]
    replaced: tuple[str, ...]  # target records replaced by the chosen version (old bytes in history)
    kept: tuple[str, ...]  # conflicts settled by keeping the target's version
    receipt_id: str


def plan_move(store: MemoryStore, key: str, to_cwd: str) -> MovePlan:
    """What moving workspace ``key`` to folder ``to_cwd`` would do (nothing is written)."""
    source = store.read_workspace(key)
    target_cwd = normalize_cwd(to_cwd)
    target_key = workspace_key(target_cwd)
    if target_key == key:
        raise UsageError(msg.MOVE_SAME_FOLDER.format(key=key, cwd=target_cwd))
    if any(i.key == key for i in store.list_workspaces(archived=True, counts=False)):
        raise ConflictError(
            msg.MOVE_ARCHIVED_EXISTS.format(key=key),
            source.revision,
            source,
        )
    target = store.find_workspace(target_cwd)
    mine: dict[str, bytes] = {}
    if target is not None:
        for e in target.entries:
            data = store.inspect.record_file(target_key, e.file_name)
            if data is not None:
                mine[e.file_name] = data
    incoming: list[tuple[str, bytes]] = []
    identical: list[str] = []
    conflicts: list[ReviewItem] = []
    left: list[str] = []
    label = workspace_name(target_cwd)
    for e in source.entries:
        data = store.inspect.record_file(key, e.file_name)
        if not e.is_valid or data is None:
            left.append(e.file_name)
            continue
        name = e.file_name.removesuffix(RECORD_SUFFIX)
        if e.file_name not in mine:
            incoming.append((name, data))
        elif mine[e.file_name] == data:
            identical.append(name)
        else:
            conflicts.append(
                ReviewItem(
                    id=name,
                    scope=target_key,
                    name=name,
                    label=label,
                    mine=mine[e.file_name].decode("utf-8", "replace"),
                    theirs=data.decode("utf-8"),
                )
            )
    return MovePlan(
        source_key=key,
        source_cwd=source.info.cwd,
        source_revision=source.revision,
        target_cwd=target_cwd,
        target_key=target_key,
        target_revision=target.revision if target is not None else EMPTY_REVISION,
        target_exists=target is not None,
        incoming=tuple(incoming),
        identical=tuple(identical),
        conflicts=tuple(conflicts),
        left_behind=tuple(left),
    )


def _moves_dir(root: Path) -> Path:
    d = state.sync_dir(root) / "moves"
    d.mkdir(mode=0o700, exist_ok=True)
    return d


def apply_move(
    store: MemoryStore,
    plan: MovePlan,
    resolutions: Mapping[str, Resolution],
    *,
    step: Callable[[str], None] | None = None,
) -> MoveResult:
    """Carry out ``plan`` with the user's choice for every conflict (UsageError if one is missing).

    ``step`` is told each stage ("planned", "committed", "archived") — a test seam for interruptions."""
    missing = unresolved(plan.conflicts, resolutions)
    if missing:
        raise UsageError(msg.MOVE_CHOOSE_FIRST.format(names=", ".join(missing)))
    versions: list[tuple[str, bytes | None]] = list(plan.incoming)
    replaced: list[str] = []
    kept: list[str] = []
    for item in plan.conflicts:
        text = resolved_text(item, resolutions[item.id])
        if text == item.mine:
            kept.append(item.name)
            continue
        versions.append((item.name, None if text is None else text.encode("utf-8")))
        replaced.append(item.name)
    if not plan.target_exists:
        created = store.create_workspace(plan.target_cwd)
        expect = created.revision
    else:
        expect = plan.target_revision
    # The source must still be what the plan read: checked by the archive's CAS below, and first
    # here so a stale plan writes nothing at all.
    current = store.read_workspace(plan.source_key)
    if current.revision != plan.source_revision:
        raise ConflictError(
            msg.MOVE_SOURCE_CHANGED.format(name=plan.source_name),
            current.revision,
            current,
        )
    # ONE store transaction: the target's new records and the source's archive (commit_scopes), so a
    # crash leaves both old or both new. Hand-formatted records get their exact bytes right after.
    ops, exact = as_ops(versions, lambda name: store.inspect.record_file(plan.target_key, name + RECORD_SUFFIX))
    if step is not None:
        step("planned")
    batches = [ScopeBatch(key=plan.target_key, ops=ops, expect=expect)] if ops else []
    done = store.commit_scopes(batches, archive=[plan.source_key])
    snap = done.workspaces.get(plan.target_key) or store.read_workspace(plan.target_key)
    if step is not None:
        step("committed")
    if exact:
        snap = store.history.commit_versions(plan.target_key, exact, snap.revision)
    if step is not None:
        step("archived")
    receipt_id = _write_receipt(store, plan, [n for n, _ in plan.incoming], replaced, kept)
    root = store.root
    if root is not None:
        mapping.rekey(root, plan.source_key, plan.target_key)
    return MoveResult(
        target_key=plan.target_key,
        target_revision=snap.revision,
        moved=tuple(n for n, _ in plan.incoming),
        replaced=tuple(replaced),
        kept=tuple(kept),
        receipt_id=receipt_id,
    )


def finish_pending_moves(store: MemoryStore) -> list[str]:
    """Finish moves an earlier version left between their commit and their archive (it journaled the
    two steps in ``.manager/sync/moves/``; a move is one store transaction now). Returns the keys."""
    root = store.root
    if root is None or store.inspect.read_only:
        return []
    d = state.sync_path(root) / "moves"
    if not d.is_dir():
        return []
    done: list[str] = []
    for p in sorted(d.glob("*.json")):
        obj = state.read_json(p)
        if obj is None or obj.get("format") != MOVE_FORMAT:
            continue
        source, target = str(obj.get("source", "")), str(obj.get("target", ""))
        try:
            snap = store.read_workspace(source)
        except NotFoundError:
            state.remove(p)  # already archived: only the map and receipt may be missing
            mapping.rekey(root, source, target)
            continue
        if snap.revision == obj.get("source_revision"):
            store.recycle.archive(source, snap.revision)
            mapping.rekey(root, source, target)
            done.append(source)
        state.remove(p)
    return done


def _write_receipt(
    store: MemoryStore, plan: MovePlan, moved: list[str], replaced: list[str], kept: list[str]
) -> str:
    now = datetime.now(UTC)
    rid = f"move-{now.strftime('%Y%m%dT%H%M%S')}-{plan.source_key}"[:200]
    lines = [
        "---",
        "kind: move",
        f"source_key: {plan.source_key}",
        f"target_key: {plan.target_key}",
        f"time: {now.isoformat()}",
        "---",
        "",
        f"# Moved {plan.source_name} to {plan.target_cwd}",
        "",
        f"- From `{plan.source_cwd}` (`{plan.source_key}`, revision `{plan.source_revision}`), now in the Recycle Bin",
        f"- To `{plan.target_cwd}` (`{plan.target_key}`)"
        + (" — merged into the workspace there" if plan.target_exists else ""),
        f"- Moved: {', '.join(moved) or '-'}",
        f"- Same in both: {', '.join(plan.identical) or '-'}",
        f"- Both had it, moved version chosen (old one in history): {', '.join(replaced) or '-'}",
        f"- Both had it, target's version kept: {', '.join(kept) or '-'}",
        f"- Invalid files left in the Recycle Bin copy: {', '.join(plan.left_behind) or '-'}",
    ]
    store.files(RECEIPTS).write(rid, "\n".join(lines) + "\n")
    return rid
