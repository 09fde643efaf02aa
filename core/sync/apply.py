"""Changes from the remote written into this root, only through the store, as ONE transaction.

Every record change of every workspace, a new ``GLOBAL.md`` and the archives the other machine made
go into a single :meth:`MemoryStore.commit_scopes` (CAS on each scope, one journal, history kept,
``MEMORY.md`` rebuilt): after a crash the whole root is the old one or the new one. Around it, each
its own atomic step: a workspace new here is created first (empty: no memory yet), receipts are
written (a log, not memory), and the few hand-formatted records get their exact bytes right after
(:mod:`core.sync.exact`: only their YAML formatting differs in between).

Each write is checked first against the version the merge was decided on; a remote version the
store would refuse (invalid, or holding a credential-shaped value) is *held*: not written here,
kept on the remote, reported. When the transaction is refused anyway (a local edit in between, a
refusal the checks did not foresee), the changes are written one workspace at a time instead —
each workspace then old or new on its own — so one scope never blocks the rest.
"""

from __future__ import annotations

import contextlib
import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from core import messages as msg
from core.errors import ConflictError, DshMemoryError, InvalidRecordError, NotFoundError
from core.fingerprint import content_hash
from core.keys import workspace_key
from core.layout import ARCHIVED_DIR, GLOBAL_FILE, RECORD_SUFFIX, REVIEWS_DIR, SCOPE_FILE, WORKSPACES_DIR
from core.models import EMPTY_REVISION, Revision, ScopeBatch
from core.records import parse_record
from core.secrets import has_secrets
from core.store.api import MemoryStore
from core.store.files import RECEIPTS
from core.sync.exact import Version, as_ops


@dataclass
class Applied:
    done: list[str] = field(default_factory=list)  # synced paths now equal to the remote's version
    held: dict[str, str] = field(default_factory=dict)  # synced path -> why it was not written here
    changed_here: list[str] = field(default_factory=list)  # edited here during the sync: merge again
    archived: list[str] = field(default_factory=list)  # local keys archived as the other machine did


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


@dataclass
class _Scope:
    """One workspace's planned part of the transaction."""

    key: str
    revision: Revision
    versions: list[Version]
    paths: dict[str, str]  # record name -> synced path


def apply_changes(
    store: MemoryStore,
    changes: Mapping[str, bytes | None],
    base: Mapping[str, bytes | None],
    to_local: Callable[[str], str],
    scope_json: Callable[[str], bytes | None],
    step: Callable[[str], None],
    archive: Sequence[str] = (),
) -> Applied:
    """Write ``changes`` (synced path -> the remote's bytes, None: deleted) where the local file is
    still ``base``, and archive the local workspaces ``archive``, in one store transaction.
    ``scope_json(sync key)`` gives the remote's scope.json for a workspace new here. ``step`` is
    called after each store write (a kill point for the interruption tests)."""
    out = Applied()
    by_scope: dict[tuple[str, str], dict[str, bytes | None]] = defaultdict(dict)
    global_data: bytes | None = None
    has_global = False
    for path, data in changes.items():
        top, skey, name = split(path)
        if path == GLOBAL_FILE:
            global_data, has_global = data, True
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
    scopes = [
        s for (skey, key), files in sorted(by_scope.items())
        if (s := _plan_scope(store, skey, key, files, base, scope_json, out, step)) is not None
    ]
    text, expect = _plan_global(global_data, base.get(GLOBAL_FILE), out) if has_global else (None, None)
    active = {i.key for i in store.list_workspaces(counts=False)} if archive else set()
    shelved = [k for k in archive if k in active]
    if not scopes and text is None and not shelved:
        return out
    try:
        batches, exact = [], {}
        for s in scopes:
            ops, exact[s.key] = as_ops(s.versions, _reader(store, s.key))
            batches.append(ScopeBatch(key=s.key, ops=ops, expect=s.revision))
        result = store.commit_scopes(batches, global_text=text, global_expect=expect, archive=shelved)
    except DshMemoryError:
        _one_by_one(store, scopes, text, expect, shelved, out, step)
        return out
    step("transaction")
    out.done += [p for s in scopes for p in s.paths.values()] + [GLOBAL_FILE] * (text is not None)
    out.archived = list(shelved)
    for key, versions in sorted(exact.items()):
        if versions:
            snap = result.workspaces.get(key)
            # A local edit since: the record keeps the same content in the store's formatting.
            with contextlib.suppress(DshMemoryError):
                store.history.commit_versions(key, versions, snap.revision if snap else None)
            step(f"exact:{key}")
    return out


def _reader(store: MemoryStore, key: str) -> Callable[[str], bytes | None]:
    return lambda name: store.inspect.record_file(key, name + RECORD_SUFFIX)


def _plan_scope(
    store: MemoryStore,
    skey: str,
    key: str,
    files: Mapping[str, bytes | None],
    base: Mapping[str, bytes | None],
    scope_json: Callable[[str], bytes | None],
    out: Applied,
    step: Callable[[str], None],
) -> _Scope | None:
    paths = {name: f"{WORKSPACES_DIR}/{skey}/{name}" for name in files}
    try:
        snap = store.read_workspace(key)
    except NotFoundError:
        if all(d is None for d in files.values()):
            out.done.extend(paths.values())  # deleted there, never here
            return None
        cwd = _cwd_of(scope_json(skey))
        if not cwd or workspace_key(cwd) != key:
            for p in paths.values():
                out.held[p] = msg.HELD_NO_SCOPE.format()
            return None
        snap = store.create_workspace(cwd)  # empty until the transaction: no memory yet
        step(f"created:{key}")
    versions: list[Version] = []
    names: dict[str, str] = {}
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
        why = _refused(name, data)
        if why is not None:
            out.held[paths[name]] = why
            continue
        stem = name.removesuffix(RECORD_SUFFIX)
        versions.append((stem, data))
        names[stem] = paths[name]
    return _Scope(key, snap.revision, versions, names) if versions else None


def _refused(name: str, data: bytes | None) -> str | None:
    """Why the store would refuse this remote version (None: it takes it)."""
    if data is None:
        return None
    try:
        parse_record(name, data)
    except InvalidRecordError as exc:
        return "; ".join(exc.reasons) or exc.message
    return msg.HELD_SECRET.format() if has_secrets(data.decode("utf-8", "replace")) else None


def _plan_global(data: bytes | None, base: bytes | None, out: Applied) -> tuple[str | None, Revision | None]:
    if data is None:
        out.held[GLOBAL_FILE] = msg.HELD_GLOBAL_DELETED.format()
        return None, None
    text = data.decode("utf-8", "replace")
    if has_secrets(text):
        out.held[GLOBAL_FILE] = msg.HELD_SECRET.format()
        return None, None
    return text, content_hash(base) if base is not None else EMPTY_REVISION


def _one_by_one(
    store: MemoryStore,
    scopes: Sequence[_Scope],
    text: str | None,
    expect: Revision | None,
    shelved: Sequence[str],
    out: Applied,
    step: Callable[[str], None],
) -> None:
    """The transaction was refused: each scope on its own, so one refusal holds back only itself."""
    if text is not None:
        try:
            store.replace_global(text, expect)
            out.done.append(GLOBAL_FILE)
        except ConflictError:
            out.changed_here.append(GLOBAL_FILE)
        except DshMemoryError as exc:
            out.held[GLOBAL_FILE] = exc.message
        step("global")
    for s in scopes:
        _write_scope(store, s, out)
        step(f"scope:{s.key}")
    for key in shelved:
        if archive_transition(store, key, True):
            out.archived.append(key)
            step(f"archive:{key}")


def _write_scope(store: MemoryStore, s: _Scope, out: Applied) -> None:
    try:
        store.history.commit_versions(s.key, s.versions, s.revision)
    except ConflictError:
        out.changed_here.extend(s.paths.values())
        return
    except DshMemoryError:
        # Refused as a batch: each record alone, so one bad file holds back only itself.
        for name, data in s.versions:
            try:
                store.history.commit_versions(s.key, [(name, data)], store.read_workspace(s.key).revision)
                out.done.append(s.paths[name])
            except DshMemoryError as one:
                out.held[s.paths[name]] = one.message
        return
    out.done.extend(s.paths.values())


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
