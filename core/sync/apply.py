"""Changes from the remote written into this root, only through the store: exact bytes per record
(``history.commit_versions``: CAS, journal, history, ``MEMORY.md`` rebuilt), ``replace_global``,
``write_receipt``, ``create_workspace``/``archive``/``restore``. Each write first checks that the
local file is still the version the merge was decided on; anything the store refuses (an invalid or
credential-holding file from the remote, a concurrent local edit) is *held*: not written here, kept
on the remote, reported."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from core import messages as msg
from core.errors import ConflictError, DshMemoryError, NotFoundError
from core.fingerprint import content_hash
from core.keys import workspace_key
from core.layout import ARCHIVED_DIR, GLOBAL_FILE, RECORD_SUFFIX, REVIEWS_DIR, SCOPE_FILE, WORKSPACES_DIR
from core.models import EMPTY_REVISION
from core.store.api import MemoryStore
from core.store.files import RECEIPTS


@dataclass
class Applied:
    done: list[str] = field(default_factory=list)  # synced paths now equal to the remote's version
    held: dict[str, str] = field(default_factory=dict)  # synced path -> why it was not written here
    changed_here: list[str] = field(default_factory=list)  # edited here during the sync: merge again


def split(path: str) -> tuple[str, str, str]:
    """``(top, sync key, file name)`` of a synced path (``("", "", "GLOBAL.md")`` for Global)."""
    parts = path.split("/")
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2:
        return parts[0], "", parts[1]
    return "", "", path


def _cwd_of(scope_json: bytes | None) -> str:
    try:
        obj = json.loads((scope_json or b"{}").decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return ""
    cwd = obj.get("cwd") if isinstance(obj, dict) else None
    return cwd if isinstance(cwd, str) else ""


def apply_changes(
    store: MemoryStore,
    changes: Mapping[str, bytes | None],
    base: Mapping[str, bytes | None],
    to_local: Callable[[str], str],
    scope_json: Callable[[str], bytes | None],
    step: Callable[[str], None],
) -> Applied:
    """Write ``changes`` (synced path -> the remote's bytes, None: deleted) where the local file is
    still ``base``. ``scope_json(sync key)`` gives the remote's scope.json for a workspace new here.
    ``step`` is called after each store transaction (a kill point for the interruption tests)."""
    out = Applied()
    by_scope: dict[tuple[str, str], dict[str, bytes | None]] = defaultdict(dict)
    for path, data in changes.items():
        top, skey, name = split(path)
        if path == GLOBAL_FILE:
            _apply_global(store, data, base.get(path), out)
            step("global")
        elif top == REVIEWS_DIR:
            if data is not None:  # receipts are a log: a remote delete is not repeated here
                store.files(RECEIPTS).write(name.removesuffix(RECORD_SUFFIX), data.decode("utf-8"))
            out.done.append(path)
        elif top == WORKSPACES_DIR and name.endswith(RECORD_SUFFIX):
            by_scope[(skey, to_local(skey))][name] = data
        elif name == SCOPE_FILE:
            out.done.append(path)  # identity: a workspace's scope.json is its first machine's
        else:
            out.held[path] = msg.HELD_ARCHIVED.format()
    for (skey, key), files in sorted(by_scope.items()):
        _apply_scope(store, skey, key, files, base, scope_json, out)
        step(f"scope:{key}")
    return out


def _apply_global(store: MemoryStore, data: bytes | None, base: bytes | None, out: Applied) -> None:
    if data is None:
        out.held[GLOBAL_FILE] = msg.HELD_GLOBAL_DELETED.format()
        return
    expect = content_hash(base) if base is not None else EMPTY_REVISION
    try:
        store.replace_global(data.decode("utf-8"), expect)
    except ConflictError:
        out.changed_here.append(GLOBAL_FILE)
        return
    except DshMemoryError as exc:
        out.held[GLOBAL_FILE] = exc.message
        return
    out.done.append(GLOBAL_FILE)


def _apply_scope(
    store: MemoryStore,
    skey: str,
    key: str,
    files: Mapping[str, bytes | None],
    base: Mapping[str, bytes | None],
    scope_json: Callable[[str], bytes | None],
    out: Applied,
) -> None:
    paths = {name: f"{WORKSPACES_DIR}/{skey}/{name}" for name in files}
    try:
        snap = store.read_workspace(key)
    except NotFoundError:
        if all(d is None for d in files.values()):
            out.done.extend(paths.values())  # deleted there, never here
            return
        cwd = _cwd_of(scope_json(skey))
        if not cwd or workspace_key(cwd) != key:
            for p in paths.values():
                out.held[p] = msg.HELD_NO_SCOPE.format()
            return
        snap = store.create_workspace(cwd)
    versions: list[tuple[str, bytes | None]] = []
    for name, data in sorted(files.items()):
        entry = next((e for e in snap.entries if e.file_name == name), None)
        was = base.get(paths[name])
        now_rev = entry.revision if entry is not None else None
        if now_rev != (content_hash(was) if was is not None else None):
            out.changed_here.append(paths[name])
            continue
        if entry is not None and not entry.is_valid:
            out.held[paths[name]] = msg.HELD_INVALID_HERE.format()
            continue
        if data is None and entry is None:
            out.done.append(paths[name])
            continue
        versions.append((name.removesuffix(RECORD_SUFFIX), data))
    if not versions:
        return
    try:
        store.history.commit_versions(key, versions, snap.revision)
    except ConflictError:
        out.changed_here.extend(paths[name + RECORD_SUFFIX] for name, _ in versions)
        return
    except DshMemoryError as exc:
        # An invalid record or a credential from the remote: the whole batch is refused by the store;
        # try each record alone so one bad file holds back only itself.
        for name, data in versions:
            try:
                cur = store.read_workspace(key)
                store.history.commit_versions(key, [(name, data)], cur.revision)
                out.done.append(paths[name + RECORD_SUFFIX])
            except DshMemoryError as one:
                out.held[paths[name + RECORD_SUFFIX]] = one.message
        del exc
        return
    out.done.extend(paths[n + RECORD_SUFFIX] for n, _ in versions)


def archive_transition(store: MemoryStore, key: str, to_archived: bool) -> bool:
    """Archive (or restore) local workspace ``key`` as the other machine did; False if not possible."""
    try:
        if to_archived:
            store.recycle.archive(key)
        else:
            store.recycle.restore(key)
    except DshMemoryError:
        return False
    return True


__all__ = ["ARCHIVED_DIR", "Applied", "apply_changes", "archive_transition", "split"]
