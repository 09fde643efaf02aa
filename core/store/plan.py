"""A workspace batch checked and planned, written once: what a commit will write, keep and scan.

:func:`precheck` is everything about a batch that does not depend on the disk (done before any lock);
:func:`plan_commit` runs under the scope's lock and turns the batch into a
:class:`~core.store.rules.ScopeChange` (files to write or delete, the bytes each displaces, their
history, the new MEMORY.md) plus the texts the secret scan must see. ``commit``, ``commit_scopes``,
history restores and undo all go through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.errors import InvalidRecordError, NotFoundError
from core.fingerprint import content_hash
from core.keys import workspace_name
from core.models import DeleteOp, Op, Origin, PutOp, Revision
from core.records import INDEX_FILE, NAME_RE, record_file_name, render_record, validate_record
from core.store.rules import (
    NOT_REGULAR_PREFIX,
    YAML_ALIAS_REASON,
    ScopeChange,
    frontmatter_text,
    name_problem,
    parse_scope_json,
    yaml_has_aliases,
)
from core.store.scope_files import ScopeFiles, index_drop, index_put, render_items

if TYPE_CHECKING:
    from core.store.base import StoreCore


def precheck(ops: Sequence[tuple[Op, bytes | None]]) -> None:
    """Everything about a batch that does not depend on the disk, done before taking any lock:
    name length, YAML anchors (an alias bomb must never be parsed under a lock), field rules."""
    reasons: list[str] = []
    aliases = 0
    for op, _raw in ops:
        name = op.record.name if isinstance(op, PutOp) else op.name
        long_name = name_problem(name)
        if long_name is not None:
            reasons.append(f"{name[:40]}…: {long_name}")
            continue
        if isinstance(op, PutOp):
            if yaml_has_aliases(op.record.extra_frontmatter):
                reasons.append(f"{name}: {YAML_ALIAS_REASON}")
                aliases += 1
                continue
            rs = validate_record(op.record, record_file_name(name))
            reasons.extend(f"{name}: {r}" for r in rs)
    if reasons:
        raise InvalidRecordError(
            "The batch was not committed: " + "; ".join(reasons),
            reasons,
            reason="yaml-aliases" if aliases == len(reasons) else "invalid",
        )


def plan_commit(
    store: StoreCore,
    key: str,
    files: ScopeFiles,
    ops: Sequence[tuple[Op, bytes | None]],
    expect: Revision | None,
    origin: Origin,
) -> tuple[ScopeChange, list[tuple[str, str]]] | None:
    """Under the scope lock: CAS, then the change to write and the texts to scan (None: no-op)."""
    revision = files.revision
    if expect is not None and expect != revision:
        snap = store._snapshot(files)
        raise store._conflict(f"Workspace {snap.info.display_name}", expect, snap, revision)
    # The full snapshot is built only when needed (no-op, error message): a 1k-record scope
    # costs ~1 ms to wrap, and a commit returns the new one anyway.
    cwd, _, _ = parse_scope_json(key, files.scope_json)
    display = workspace_name(cwd) if cwd else key
    current = files.by_name
    items = files.index_items.copy()  # MEMORY.md of the new state, edited line by line below
    change = ScopeChange(key=key)
    reasons: list[str] = []
    case_clashes = 0
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
            case_clashes += 1
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
        old = store._file_bytes(key, fn) if entry is not None else None
        if entry is not None and (old is None or content_hash(old) != entry.revision):
            # Changed since the listing this CAS was decided on: never write over unseen bytes.
            raise store._displaced(key, expect or revision)
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
            change.history.append(store.history.item(key, cwd, name, reason, old, fn))
    if reasons:
        raise InvalidRecordError(
            "The batch was not committed: " + "; ".join(reasons),
            reasons,
            reason="case-collision" if case_clashes == len(reasons) else "invalid",
        )
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
            change.history.append(store.history.item(key, cwd, "MEMORY", "overwrite", files.index, INDEX_FILE))
    return change, texts
