"""Which local workspace a synced workspace is on this machine, and where a missing folder went.

The same project has different absolute paths on different machines, so its workspace key differs.
The synced tree keeps the key the workspace was first pushed under (its *sync key*); each machine
keeps its own map ``sync key -> local key`` in ``.manager/sync/map.json`` (never synced). A synced
workspace with no entry lives locally under its sync key with the other machine's folder, so no
agent here loads it (no local folder hashes to that key) while it stays browsable; the user maps it
by moving it to a local folder ("Moved? Pick the new folder…"), which records the entry.
"""

from __future__ import annotations

import configparser
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.sync import state

MAP_FORMAT = "dsh-sync-map/1"
MAX_GIT_CONFIG_BYTES = 256 << 10
MAX_SCANNED_DIRS = 4000  # a folder search is bounded: a huge home never freezes the flow


def _map_path(root: Path) -> Path:
    return state.sync_dir(root) / "map.json"


def load_map(root: Path) -> dict[str, str]:
    """sync key -> local key (only entries that differ from the identity)."""
    obj = state.read_json(state.sync_path(root) / "map.json")
    if obj is None or obj.get("format") != MAP_FORMAT or not isinstance(obj.get("map"), dict):
        return {}
    return {str(k): str(v) for k, v in obj["map"].items() if isinstance(k, str) and isinstance(v, str)}


def save_map(root: Path, mapping: dict[str, str]) -> None:
    clean = {k: v for k, v in sorted(mapping.items()) if k != v}
    state.write_json(_map_path(root), {"format": MAP_FORMAT, "map": clean})


def local_key(mapping: dict[str, str], sync_key: str) -> str:
    return mapping.get(sync_key, sync_key)


def sync_key(mapping: dict[str, str], local: str) -> str:
    for s, loc in mapping.items():
        if loc == local:
            return s
    # A local workspace whose own key is mapped elsewhere would collide in the tree: it can't happen
    # because a mapped sync key's local folder is re-keyed by the move that created the entry.
    return local


def rekey(root: Path, old_local: str, new_local: str) -> None:
    """After a move of ``old_local`` to ``new_local``: the synced workspace follows the new folder."""
    mapping = load_map(root)
    s = sync_key(mapping, old_local)
    known = s != old_local or (state.sync_path(root) / "repo.git").exists()
    if not known:
        return
    mapping[s] = new_local
    save_map(root, mapping)


# --- where did the folder go? ------------------------------------------------------------------


def normalize_remote(url: str) -> str:
    """``git@host:me/shop.git`` and ``https://host/me/shop`` name the same project."""
    u = url.strip().lower()
    u = re.sub(r"^[a-z+]+://", "", u)
    u = re.sub(r"^[^@/]+@", "", u)
    u = u.replace(":", "/", 1) if re.match(r"^[^/]+:[^/]", u) else u
    return u.removesuffix("/").removesuffix(".git")


def git_remote_url(folder: Path) -> str | None:
    """The ``origin`` (or first) remote URL of a git checkout, read through a size budget."""
    cfg = folder / ".git" / "config"
    try:
        if cfg.is_symlink() or not cfg.is_file() or cfg.stat().st_size > MAX_GIT_CONFIG_BYTES:
            return None
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        parser.read_string(cfg.read_text("utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return None
    remotes = [s for s in parser.sections() if s.startswith('remote "')]
    remotes.sort(key=lambda s: s != 'remote "origin"')
    for section in remotes:
        url = parser.get(section, "url", fallback=None)
        if url:
            return url.strip()
    return None


@dataclass(frozen=True)
class FolderCandidate:
    path: str
    reason: str  # "git-remote" | "same-name" | "similar-name"


def _fold(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", unicodedata.normalize("NFKC", name).lower())


def _walk(roots: Iterable[Path], depth: int) -> Iterable[Path]:
    seen = 0
    frontier = [(r, 0) for r in roots]
    while frontier:
        d, level = frontier.pop(0)
        try:
            children = sorted(
                p for p in d.iterdir() if p.is_dir() and not p.is_symlink() and not p.name.startswith(".")
            )
        except OSError:
            continue
        for c in children:
            seen += 1
            if seen > MAX_SCANNED_DIRS:
                return
            yield c
            if level + 1 < depth:
                frontier.append((c, level + 1))


def find_candidates(
    missing_cwd: str, search_roots: Sequence[Path], *, remote_url: str | None = None, depth: int = 3
) -> list[FolderCandidate]:
    """Existing folders that may be ``missing_cwd`` after a move: its git remote first, then the same
    folder name, then a similar one (``shop`` → ``shop-app``). Searches the nearest existing ancestor of
    the old path and ``search_roots``, a few levels deep and bounded."""
    old = Path(missing_cwd)
    roots: list[Path] = []
    anc = old.parent
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    for r in [anc, *search_roots]:
        if r.is_dir() and r not in roots:
            roots.append(r)
    want_name = _fold(old.name)
    want_remote = normalize_remote(remote_url) if remote_url else None
    found: dict[str, str] = {}
    rank = {"git-remote": 0, "same-name": 1, "similar-name": 2}
    for d in _walk(roots, depth):
        if str(d) == missing_cwd:
            continue
        reason = None
        if want_remote is not None and (d / ".git").is_dir():
            url = git_remote_url(d)
            if url and normalize_remote(url) == want_remote:
                reason = "git-remote"
        if reason is None and want_name:
            got = _fold(d.name)
            if got == want_name:
                reason = "same-name"
            elif len(want_name) >= 3 and got and (want_name in got or got in want_name) and len(got) >= 3:
                reason = "similar-name"
        if reason is not None:
            prev = found.get(str(d))
            if prev is None or rank[reason] < rank[prev]:
                found[str(d)] = reason
    out = [FolderCandidate(p, r) for p, r in found.items()]
    out.sort(key=lambda c: (rank[c.reason], len(c.path), c.path))
    return out


def remembered_remote(root: Path, key: str, scope_json: bytes | None = None) -> str | None:
    """The git remote URL a workspace's folder had: from its synced ``scope.json`` (the sync
    repository's copy, written by the machine that first pushed it) or the local one."""
    import json
    import subprocess

    sources = [scope_json]
    repo = state.sync_path(root) / "repo.git"
    if (repo / "HEAD").is_file():
        for top in ("workspaces", "archived"):
            try:
                proc = subprocess.run(
                    ["git", f"--git-dir={repo}", "cat-file", "blob", f"refs/heads/local:{top}/{key}/scope.json"],
                    capture_output=True, timeout=30, check=False,
                )
            except (OSError, subprocess.SubprocessError):
                break
            if proc.returncode == 0:
                sources.append(proc.stdout)
    for data in sources:
        try:
            obj = json.loads((data or b"").decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        url = obj.get("git_remote") if isinstance(obj, dict) else None
        if isinstance(url, str) and url:
            return url
    return None


def folder_exists(cwd: str) -> bool:
    return bool(cwd) and os.path.isdir(cwd)
