"""Workspace memory's Recycle Bin: its archived scopes (list, preview, restore, purge) and stale active scopes.

These are the only writes this app makes to a foreign store, each an explicit user action, each
done the way the store itself does it (it archives by renaming ``scopes/<key>`` into
``archived/<key>`` and purges by deleting the folder; it has no restore of its own):

- **restore**: one atomic rename ``archived/<key>`` → ``scopes/<key>``, only when no active scope
  of that key exists (a crash leaves the scope entirely in one place or the other);
- **purge**: the typed confirmation is the last part of the scope's cwd (as for our own purge);
  the folder is first renamed out of ``archived/`` into ``.dsh-memory-purge/`` (atomic: the scope
  is gone from the store at once), then deleted; a purge interrupted by a crash is finished by
  the next purge and reported meanwhile;
- **archive**: offered for active scopes whose cwd no longer exists; one rename into ``archived/``.

The store keeps an in-process cache, so a running DSH may only see a restored scope after a restart.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core.atomic import fsync_dir, remove_tree
from core.errors import ConfirmationRequiredError, ConflictError, NotFoundError, StorageError, UsageError
from core.sources.workspace_memory import GLOBAL_SCOPE, ScopeFolder, cwd_name, read_scope

PURGE_FOLDER = ".dsh-memory-purge"


@dataclass(frozen=True)
class BinScope:
    """One workspace-memory scope as the Recycle Bin lists it (labelled as workspace memory)."""

    key: str
    cwd: str
    path: Path
    archived: bool
    entries: int
    size_bytes: int
    changed: datetime | None  # the folder's mtime: for an archived scope, about when it was archived
    active_exists: bool = False  # an archived scope whose key also has an active scope cannot be restored
    problems: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """What a purge confirmation must type."""
        return cwd_name(self.cwd)

    @property
    def label(self) -> str:
        return f"{self.name} (DSH workspace memory)"


def _size(folder: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, f)).st_size
    return total


def _mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError:
        return None


def _real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


class WorkspaceMemoryBin:
    """The Recycle Bin side of a workspace-memory root (``$DSH_HOME/workspace-memory``)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.abspath(root))

    def __repr__(self) -> str:
        return f"WorkspaceMemoryBin(root={str(self.root)!r})"

    @property
    def scopes_dir(self) -> Path:
        return self.root / "scopes"

    @property
    def archived_dir(self) -> Path:
        return self.root / "archived"

    # --- reading ---------------------------------------------------------------------------
    def _list(self, parent: Path, archived: bool) -> list[BinScope]:
        try:
            folders = sorted(p for p in parent.iterdir() if _real_dir(p) and not p.name.startswith("."))
        except OSError:
            return []
        out: list[BinScope] = []
        for folder in folders:
            scope = read_scope(folder, archived=archived)
            if not scope.valid:
                continue
            out.append(self._bin_scope(scope))
        return out

    def _bin_scope(self, scope: ScopeFolder) -> BinScope:
        return BinScope(
            key=scope.key,
            cwd=scope.cwd,
            path=scope.path,
            archived=scope.archived,
            entries=len(scope.entries),
            size_bytes=_size(scope.path),
            changed=_mtime(scope.path),
            active_exists=scope.archived and (self.scopes_dir / scope.key).exists(),
            problems=tuple(p.reason for p in scope.problems),
        )

    def archived(self) -> list[BinScope]:
        """Archived scopes whose ``scope.json`` matches their folder (the others are reported by discovery)."""
        return self._list(self.archived_dir, archived=True)

    def stale(self) -> list[BinScope]:
        """Active scopes whose cwd no longer exists: offered for archiving, never archived silently."""
        # A cwd that is not a path here (a Windows path on Linux) is from another machine, not gone.
        return [
            s
            for s in self._list(self.scopes_dir, archived=False)
            if s.cwd and os.path.isabs(s.cwd) and not Path(s.cwd).is_dir()
        ]

    def preview(self, key: str) -> ScopeFolder:
        """An archived scope's entries (every status) and summary, read-only."""
        return self._valid_scope(self._archived_path(key), archived=True)

    def interrupted_purges(self) -> list[Path]:
        """Folders a crashed purge left behind (finished by the next purge)."""
        try:
            return sorted((self.root / PURGE_FOLDER).iterdir())
        except OSError:
            return []

    # --- explicit writes -------------------------------------------------------------------
    def restore(self, key: str) -> Path:
        """Move ``archived/<key>`` back to ``scopes/<key>`` atomically; ConflictError if that key is active."""
        src = self._archived_path(key)
        self._valid_scope(src, archived=True)
        dst = self.scopes_dir / key
        if os.path.lexists(dst):
            raise ConflictError(
                f"Workspace memory already has an active scope {key} (for the same folder); nothing was moved. "
                "Archive or purge one of them first.",
                "",
            )
        self._rename(src, dst, create_parent=True)
        return dst

    def archive(self, key: str) -> Path:
        """Move an active scope whose cwd no longer exists into ``archived/`` (what the store itself would do)."""
        if key == GLOBAL_SCOPE:
            raise UsageError("The global scope of workspace memory is never archived.")
        src = self.scopes_dir / self._check_key(key)
        if not _real_dir(src):
            raise NotFoundError(f"Workspace memory has no active scope {key}.")
        scope = self._valid_scope(src, archived=False)
        if not os.path.isabs(scope.cwd):
            raise UsageError(
                f"The folder {scope.cwd} is not a path on this machine, so it cannot be told to be gone; "
                "nothing was moved."
            )
        if Path(scope.cwd).is_dir():
            raise UsageError(
                f"The folder {scope.cwd} still exists, so workspace memory would keep this scope active; "
                "nothing was moved."
            )
        dst = self.archived_dir / key
        if os.path.lexists(dst):
            raise ConflictError(
                f"Workspace memory already has an archived scope {key}; nothing was moved. Purge or restore it first.",
                "",
            )
        self._rename(src, dst, create_parent=True)
        return dst

    def purge(self, key: str, confirm: str) -> None:
        """Delete an archived scope for good. ``confirm`` must be the last part of its cwd."""
        src = self._archived_path(key)
        scope = self._valid_scope(src, archived=True)
        expected = cwd_name(scope.cwd)
        if confirm != expected:
            raise ConfirmationRequiredError(
                f"To purge the archived workspace memory of {scope.cwd} for good, confirm with its name "
                f"{expected!r}; nothing was deleted."
            )
        self.finish_interrupted_purges()
        trash = self.root / PURGE_FOLDER
        trash.mkdir(exist_ok=True)
        doomed = trash / f"{key}-{secrets.token_hex(4)}"
        self._rename(src, doomed)
        self._remove(doomed)
        with contextlib.suppress(OSError):
            trash.rmdir()
            fsync_dir(self.root)

    def finish_interrupted_purges(self) -> None:
        for leftover in self.interrupted_purges():
            self._remove(leftover)

    # --- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _check_key(key: str) -> str:
        if not key.startswith("ws-") or "/" in key or "\\" in key or key in (".", ".."):
            raise UsageError(f"{key!r} is not a workspace-memory scope key (ws-<20 hex>).")
        return key

    def _archived_path(self, key: str) -> Path:
        path = self.archived_dir / self._check_key(key)
        if not _real_dir(path):
            raise NotFoundError(f"Workspace memory has no archived scope {key}.")
        return path

    @staticmethod
    def _valid_scope(path: Path, *, archived: bool) -> ScopeFolder:
        scope = read_scope(path, archived=archived)
        if not scope.valid:
            reasons = "; ".join(f"{p.path} {p.reason}" for p in scope.problems) or "it is not a scope folder"
            raise UsageError(
                f"The scope {path} is not one workspace memory would use ({reasons}); nothing was changed.",
                reason="not-a-scope",
            )
        return scope

    @staticmethod
    def _rename(src: Path, dst: Path, *, create_parent: bool = False) -> None:
        try:
            if create_parent:
                dst.parent.mkdir(exist_ok=True)
            os.rename(src, dst)
            fsync_dir(dst.parent)
            if src.parent != dst.parent:
                fsync_dir(src.parent)
        except OSError as exc:
            raise StorageError(f"Could not move {src} to {dst}: {exc.strerror or exc}; nothing was moved.") from exc

    @staticmethod
    def _remove(path: Path) -> None:
        try:
            remove_tree(path)
        except OSError as exc:
            raise StorageError(
                f"Could not delete {path}: {exc.strerror or exc}. It is out of the store already; "
                "purge again to finish."
            ) from exc
