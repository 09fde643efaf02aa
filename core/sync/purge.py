"""Purge through sync: "delete forever" reaches the sync repository, the remote and other machines.

A purged workspace's records live on as git objects in ``.manager/sync/repo.git`` and on the remote
(every version ever synced). Deleting the files in a new commit would leave them in history, so a
purge **rewrites** the sync history as if the workspace had never been synced:

1. :func:`purge_synced` (called by :func:`core.recycle.purge_workspace` after the store's purge)
   notes the workspace's sync key as *pending*, rebuilds every commit of the sync repository without
   ``workspaces/<key>/`` and ``archived/<key>/`` (:meth:`Git.rewrite_without`), drops what this
   machine's small sync files say about it, and prunes the unreachable objects at once;
2. the next sync pushes the rewritten branch **forced, with a lease** on the remote commit it last
   merged (a remote that moved meanwhile is fetched, rewritten the same way and merged first), then
   prunes the remote too when it is a local path (a bare repository on a disk);
3. the synced tree carries a small tombstone list ``.dsh-sync/purged.json``: salted hashes of purged
   sync keys (never a name). Another machine that fetches a tombstone it has not seen rewrites its
   own sync history the same way (the rewrite is deterministic, so both histories share their
   commits again), moves its copy of the workspace to its Recycle Bin (restorable; its user purges
   it there), and never syncs that archived copy again — so nothing resurrects it.

The tombstone file never lands in a memory root; it lives only in the synced tree.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.errors import DshMemoryError
from core.layout import ARCHIVED_DIR, WORKSPACES_DIR
from core.store.api import MemoryStore
from core.sync import mapping, state
from core.sync.gitcli import Git, GitMissingError, SyncError

META_PATH = ".dsh-sync/purged.json"  # in the synced tree only: the tombstones other machines follow
META_FORMAT = "dsh-sync-purged/1"
LOCAL_REF = "refs/heads/local"
TRACK_REF = "refs/remotes/sync/main"
_SALT = b"dsh-memory purged workspace\0"
MAX_META_BYTES = 1 << 20


class PurgeState(BaseModel):
    """``.manager/sync/purged.json``: this machine's side of purges (never synced)."""

    model_config = ConfigDict(extra="forbid")
    format: str = "dsh-sync-purge-state/1"
    seen: list[str] = Field(default_factory=list)  # tombstones (key hashes) known here
    pending: list[str] = Field(default_factory=list)  # sync keys purged here, not yet force-pushed
    lease: str | None = None  # the remote commit last merged before the first pending rewrite
    local_only: list[str] = Field(default_factory=list)  # archived local keys never synced again
    following: list[str] = Field(default_factory=list)  # sync keys purged elsewhere, not yet out of our branch


def tombstone(sync_key: str) -> str:
    """A purged sync key as the synced tree names it: a hash (the key holds the folder's name)."""
    return hashlib.sha256(_SALT + sync_key.encode("utf-8")).hexdigest()


def prefixes(keys: Iterable[str]) -> list[str]:
    return [f"{top}/{k}/" for k in sorted(set(keys)) for top in (WORKSPACES_DIR, ARCHIVED_DIR)]


def _path(root: Path) -> Path:
    return state.sync_path(root) / "purged.json"


def load_state(root: Path) -> PurgeState:
    obj = state.read_json(_path(root))
    try:
        return PurgeState.model_validate(obj) if obj else PurgeState()
    except ValidationError:
        return PurgeState()


def save_state(root: Path, st: PurgeState) -> None:
    state.write_json(_path(root), st.model_dump(mode="json"))


def meta_bytes(seen: Iterable[str]) -> bytes:
    """The tombstone file as the synced tree holds it (sorted: the same set is the same blob)."""
    doc = {"format": META_FORMAT, "purged": sorted(set(seen))}
    return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def parse_meta(data: bytes | None) -> set[str]:
    """The tombstones of a synced tree's file (empty when absent, damaged or over budget)."""
    if not data or len(data) > MAX_META_BYTES:
        return set()
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return set()
    items = doc.get("purged") if isinstance(doc, dict) and doc.get("format") == META_FORMAT else None
    if not isinstance(items, list):
        return set()
    return {h for h in items if isinstance(h, str) and len(h) == 64 and all(c in "0123456789abcdef" for c in h)}


@dataclass
class Rewrite:
    """What one rewrite did: the sync keys removed and the old -> new commit ids."""

    keys: list[str] = field(default_factory=list)
    commits: dict[str, str] = field(default_factory=dict)


def needs_rewrite(git: Git, keys: list[str], refs: list[str]) -> bool:
    """Whether a commit of ``refs`` still holds a file of ``keys`` or names one in its message."""
    return bool(keys) and (git.touches(prefixes(keys), refs) or git.mentions(keys, refs))


def rewrite(git: Git, root: Path, keys: Iterable[str], refs: list[str]) -> Rewrite:
    """Remove ``keys`` from the history of ``refs`` and from this machine's sync files; prune."""
    keys = sorted(set(keys))
    out = Rewrite(keys)
    live = [r for r in refs if git.rev(r)]
    if live and needs_rewrite(git, keys, live):
        out.commits = git.rewrite_without(prefixes(keys), live, scrub=keys)
    _forget_in_state(git, root, keys, out.commits)
    git.prune()
    return out


def _under(path: str, keys: Iterable[str]) -> bool:
    return any(path.startswith(p) for p in prefixes(keys))


def _forget_in_state(git: Git, root: Path, keys: list[str], commits: Mapping[str, str]) -> None:
    """The small sync files: no review item, held path, stat-cache line or map entry of ``keys``."""
    from core.sync.models import PendingReview  # the engine's file formats, read here to be cleaned

    d = state.sync_path(root)
    review_path = d / "review.json"
    obj = state.read_json(review_path)
    if obj is not None:
        try:
            review = PendingReview.model_validate(obj)
        except ValidationError:
            review = None
        local = {mapping.local_key(mapping.load_map(root), k) for k in keys}
        remote = commits.get(review.remote_commit, review.remote_commit) if review else ""
        if review is None or git.rev(remote) is None:
            state.remove(review_path)  # its merge is gone with the old history: the next sync redoes it
        else:
            items = [i for i in review.items if i.scope not in local and not _under(i.id, keys)]
            res = {k: v for k, v in review.resolutions.items() if any(i.id == k for i in items)}
            if items:
                review = review.model_copy(update={"remote_commit": remote, "items": items, "resolutions": res})
                state.write_json(review_path, review.model_dump(mode="json"))
            else:
                state.remove(review_path)
    held = state.read_json(d / "held.json")
    if held:
        state.write_json(d / "held.json", {k: v for k, v in held.items() if not _under(k, keys)})
    index = state.read_json(d / "index.json")  # the stat cache: file names of the workspace go
    if index and isinstance(index.get("files"), dict):
        local = {mapping.local_key(mapping.load_map(root), k) for k in keys} | set(keys)
        index["files"] = {p: v for p, v in index["files"].items() if not _under(p, local)}
        state.write_json(d / "index.json", index)
    last = state.read_json(d / "last.json")
    if last:
        for name in ("received", "sent", "conflicts", "secrets", "unmapped"):
            if isinstance(last.get(name), list):
                last[name] = [p for p in last[name] if not (isinstance(p, str) and (_under(p, keys) or p in keys))]
        for name in ("held", "frozen"):
            if isinstance(last.get(name), dict):
                last[name] = {p: w for p, w in last[name].items() if not _under(p, keys)}
        state.write_json(d / "last.json", last)
    m = mapping.load_map(root)
    if any(k in m for k in keys):
        mapping.save_map(root, {s: loc for s, loc in m.items() if s not in keys})


def sync_is_set_up(root: Path | None) -> bool:
    """Whether this root has a sync repository (so a purge rewrites synced history): one stat."""
    return root is not None and (state.sync_path(root) / "repo.git" / "HEAD").is_file()


def purge_synced(store: MemoryStore, key: str) -> bool:
    """After the store purged workspace ``key``: remove it from the sync history here (the next
    sync force-pushes the rewrite). False when sync was never set up or the key was never synced
    under its own name (a copy a mapping move left in the Recycle Bin: this machine's only)."""
    from core.sync.engine import sync_lock  # the engine owns the lock; imported late (no cycle)

    root = store.root
    if root is None or not sync_is_set_up(root):
        return False
    m = mapping.load_map(root)
    if m.get(key, key) != key:
        return False  # its sync key now names the workspace it was moved into: that one lives on
    skey = mapping.sync_key(m, key)
    st = load_state(root)
    if key in st.local_only:  # a copy of a workspace purged on another machine: never synced since
        st.local_only = [k for k in st.local_only if k != key]
        save_state(root, st)
        return False
    try:
        git = Git(state.sync_path(root) / "repo.git")
    except GitMissingError:
        git = None
    if st.lease is None and not st.pending and git is not None:
        st.lease = git.rev(TRACK_REF)
    st.pending = sorted({*st.pending, skey})
    st.seen = sorted({*st.seen, tombstone(skey)})
    save_state(root, st)  # first: a crash below leaves the rewrite to the next sync
    if git is None:
        return True
    # Another sync holding the lock (or a git failure) leaves the rewrite to the next sync's start.
    with contextlib.suppress(SyncError), sync_lock(root):
        rewrite(git, root, st.pending, [LOCAL_REF, TRACK_REF])
    return True


def follow(store: MemoryStore, git: Git, theirs_meta: bytes | None, map_: Mapping[str, str]) -> list[str]:
    """Tombstones from the remote this machine has not seen: rewrite its own history (only its
    own branch: the remote's is already clean), archive its copy of each purged workspace and keep
    that copy out of sync. Returns the local keys archived (or found archived) this way.

    What to do is saved first (``following``, ``local_only``), then done by :func:`finish_follow`,
    which every sync also runs at its start: a kill midway never forgets a tombstone half-applied."""
    root = store.root
    assert root is not None
    st = load_state(root)
    new = parse_meta(theirs_meta) - set(st.seen)
    if not new:
        return []
    # Candidates: keys this machine's own branch ever synced (a newcomer has none: nothing to do).
    known = {p.split("/")[1] for p in git.paths_in_history(LOCAL_REF) if p.count("/") == 2}
    keys = sorted(k for k in known if tombstone(k) in new)
    gone = [mapping.local_key(dict(map_), k) for k in keys]
    st.seen = sorted({*st.seen, *new})
    st.following = sorted({*st.following, *keys})
    st.local_only = sorted({*st.local_only, *gone})
    save_state(root, st)
    finish_follow(store, git)
    return gone


def finish_follow(store: MemoryStore, git: Git) -> None:
    """Apply the tombstones saved by :func:`follow` (idempotent): archive this machine's copies, then
    rewrite its own branch without them and prune."""
    root = store.root
    assert root is not None
    st = load_state(root)
    if not st.following:
        return
    archived = {i.key for i in store.list_workspaces(archived=True, counts=False)}
    m = mapping.load_map(root)
    for local in (mapping.local_key(m, k) for k in st.following):
        if local not in archived:
            with contextlib.suppress(DshMemoryError):  # already gone (purged here): nothing to archive
                store.recycle.archive(local)
    rewrite(git, root, st.following, [LOCAL_REF])
    save_state(root, st.model_copy(update={"following": []}))


def prune_local_remote(url: str, env: Mapping[str, str]) -> bool:
    """Prune a remote that is a bare repository on a local path (a USB disk, a shared folder), so
    the rewritten-away objects leave it now. A hosted remote keeps them until its own gc."""
    raw = url.removeprefix("file://")
    path = Path(raw)
    if not path.is_absolute() or not (path / "HEAD").is_file() or not (path / "objects").is_dir():
        return False
    try:
        Git(path, env).prune()
    except (SyncError, GitMissingError, OSError):
        return False
    return True
