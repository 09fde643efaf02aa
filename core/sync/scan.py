"""The owned part of the root as a git tree: which files sync carries, under which synced path, and
their blob ids — read through budgets, never through a symlink, with a stat cache so an unchanged
10k-record root costs a stat per file, not a read.

Synced paths: ``GLOBAL.md``; ``workspaces/<sync key>/<name>.md`` and its ``scope.json``;
``archived/<sync key>/...`` the same; ``reviews/<id>.md``. ``MEMORY.md`` is derived (rebuilt by the
store from the records), so it is never synced; ``settings.yml``, ``debug/`` and ``.manager/`` are
this machine's. A file that is not a valid record (or not a regular file, or over budget) is
*frozen*: never exported, never overwritten by a merge, reported so the user can fix it.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from core import messages as msg
from core.layout import ARCHIVED_DIR, GLOBAL_FILE, INDEX_FILE, RECORD_SUFFIX, REVIEWS_DIR, SCOPE_FILE, WORKSPACES_DIR
from core.records import MAX_RECORD_BYTES
from core.secrets import has_secrets
from core.store.base import MAX_GLOBAL_BYTES, entry_from_bytes
from core.sync import state
from core.sync.gitcli import blob_sha
from core.sync.mapping import git_remote_url

INDEX_FORMAT = "dsh-sync-index/1"
MAX_SCOPE_BYTES = 64 << 10
MAX_RECEIPT_BYTES = 1 << 20
RACY_NS = 100_000_000  # a file touched this recently is re-read next time (coarse file-system clocks)


@dataclass
class LocalTree:
    """Synced path -> blob id of every exportable file, and the frozen ones with why."""

    root: Path
    files: dict[str, str] = field(default_factory=dict)
    frozen: dict[str, str] = field(default_factory=dict)
    local: dict[str, str] = field(default_factory=dict)  # synced path -> path relative to the root
    data: dict[str, bytes] = field(default_factory=dict)  # bytes read during this scan (cache misses)

    def add(self, path: str, data: bytes) -> None:
        """A synced file that is no file of the root (the purge tombstones)."""
        self.files[path] = blob_sha(data)
        self.local[path] = path
        self.data[path] = data

    def read(self, path: str) -> bytes | None:
        """The file's bytes now (None: gone or not regular); its blob id is refreshed."""
        if path in self.data:
            return self.data[path]
        data = _read(self.root / self.local.get(path, path), _budget(path))
        if data is not None:
            data = export_bytes(path, data)
            self.files[path] = blob_sha(data)
            self.data[path] = data
        return data


def _budget(path: str) -> int:
    if path == GLOBAL_FILE:
        return MAX_GLOBAL_BYTES
    if path.endswith(SCOPE_FILE):
        return MAX_SCOPE_BYTES
    if path.startswith(REVIEWS_DIR + "/"):
        return MAX_RECEIPT_BYTES
    return MAX_RECORD_BYTES


def _read(path: Path, budget: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > budget:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(budget + 1)
    finally:
        os.close(fd)


def export_bytes(path: str, data: bytes) -> bytes:
    """What the synced tree holds for a local file: a ``scope.json`` gains its folder's git remote URL
    (``git_remote``) so another machine can find the project by it; everything else as it is."""
    if not path.endswith("/" + SCOPE_FILE):
        return data
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return data
    if not isinstance(obj, dict) or "git_remote" in obj or not isinstance(obj.get("cwd"), str):
        return data
    url = git_remote_url(Path(obj["cwd"])) if os.path.isdir(obj["cwd"]) else None
    if not url or has_secrets(url):
        return data
    obj["git_remote"] = url
    return (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _dirs(parent: Path) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(parent) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    yield from entries


def _valid(path: str, data: bytes) -> str | None:
    """Why ``data`` can't be synced as ``path`` (None: it can)."""
    if len(data) > _budget(path):
        return msg.FROZEN_TOO_BIG.format()
    if path == GLOBAL_FILE or path.startswith(REVIEWS_DIR + "/") or path.endswith("/" + SCOPE_FILE):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return msg.FROZEN_NOT_UTF8.format()
        return msg.FROZEN_NUL.format() if b"\0" in data else None
    entry = entry_from_bytes(path.rsplit("/", 1)[-1], data)
    return None if entry.is_valid else "; ".join(entry.invalid_reasons) or msg.FROZEN_INVALID.format()


def scan(
    root: Path, to_sync_key: dict[str, str], *, use_cache: bool = True, local_only: frozenset[str] = frozenset()
) -> LocalTree:
    """Walk the owned part of ``root``; ``to_sync_key`` maps local workspace keys to synced ones.
    ``local_only``: archived workspaces never synced (copies of workspaces purged on another machine)."""
    shadowed = {s for loc, s in to_sync_key.items() if loc != s} | local_only
    tree = LocalTree(root)
    cache_path = state.sync_path(root) / "index.json"
    cached = state.read_json(cache_path) if use_cache else None
    old: dict[str, list[object]] = {}
    if cached and cached.get("format") == INDEX_FORMAT and isinstance(cached.get("files"), dict):
        old = cached["files"]
    fresh: dict[str, list[object]] = {}
    now = time.time_ns()

    def visit(rel: str, path: str, st: os.stat_result | None) -> None:
        if st is None or not stat.S_ISREG(st.st_mode):
            tree.frozen[path] = msg.FROZEN_NOT_REGULAR.format()
            return
        tree.local[path] = rel
        sig = [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]
        hit = old.get(rel)
        if hit is not None and len(hit) == 6 and hit[:4] == sig:
            sha, problem = str(hit[4]), (str(hit[5]) if hit[5] else None)
        else:
            data = _read(root / rel, _budget(path))
            if data is None:
                tree.frozen[path] = msg.FROZEN_UNREADABLE.format()
                return
            data = export_bytes(path, data)
            sha, problem = blob_sha(data), _valid(path, data)
            tree.data[path] = data
        if problem is not None:
            tree.frozen[path] = problem
        else:
            tree.files[path] = sha
        if now - st.st_mtime_ns > RACY_NS and now - st.st_ctime_ns > RACY_NS:
            fresh[rel] = [*sig, sha, problem or ""]

    def lstat(p: Path) -> os.stat_result | None:
        try:
            return os.lstat(p)
        except OSError:
            return None

    if (root / GLOBAL_FILE).exists() or (root / GLOBAL_FILE).is_symlink():
        visit(GLOBAL_FILE, GLOBAL_FILE, lstat(root / GLOBAL_FILE))
    for top in (WORKSPACES_DIR, ARCHIVED_DIR):
        for ws in _dirs(root / top):
            if not ws.is_dir(follow_symlinks=False) or ws.name.startswith("."):
                continue
            skey = to_sync_key.get(ws.name, ws.name)
            if top == ARCHIVED_DIR and ws.name in shadowed:
                continue  # a copy a mapping move (or a purge elsewhere) left in the Recycle Bin: ours only

            for f in _dirs(Path(ws.path)):
                if f.name == INDEX_FILE or f.name.startswith("."):
                    continue
                if f.name != SCOPE_FILE and not f.name.endswith(RECORD_SUFFIX):
                    continue  # not ours: never synced
                st = f.stat(follow_symlinks=False)
                visit(f"{top}/{ws.name}/{f.name}", f"{top}/{skey}/{f.name}", st)
    for f in _dirs(root / REVIEWS_DIR):
        if f.name.endswith(RECORD_SUFFIX) and not f.name.startswith("."):
            visit(f"{REVIEWS_DIR}/{f.name}", f"{REVIEWS_DIR}/{f.name}", f.stat(follow_symlinks=False))
    if use_cache and fresh != old:
        state.sync_dir(root)
        state.write_json(cache_path, {"format": INDEX_FORMAT, "files": fresh})
    return tree
