"""The Recycle Bin's moves on disk: archive, restore (one rename each, made durable) and purge."""

from __future__ import annotations

import contextlib
import json
import os
from datetime import datetime
from pathlib import Path

from core.atomic import PRIVATE_DIR_MODE, fsync_dir, remove_tree_quietly, write_atomic
from core.errors import StorageError
from core.layout import ARCHIVE_STAMPS_DIR, ARCHIVED_DIR, MANAGER_DIR, WORKSPACES_DIR
from core.store import journal_recovery
from core.store.fs_paths import new_dir_mode, real_dir_or_absent
from core.store.journal_doc import archive_stamp_bytes


class ScopeMoves:
    """Moves whole scope folders of one root between ``workspaces/`` and ``archived/``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def scope_dir(self, key: str, archived: bool) -> Path:
        return self.root / (ARCHIVED_DIR if archived else WORKSPACES_DIR) / key

    def stamp(self, key: str) -> Path:
        return self.root / MANAGER_DIR / ARCHIVE_STAMPS_DIR / f"{key}.json"

    def archived_at(self, key: str, d: Path) -> datetime | None:
        try:
            doc = json.loads(self.stamp(key).read_text("utf-8"))
            return datetime.fromisoformat(doc["archived_at"])
        except (OSError, ValueError, KeyError, TypeError):
            # No stamp (archived by hand, or a crash right after the move): the folder's time is
            # the best we know.
            try:
                return datetime.fromtimestamp(d.stat().st_mtime).astimezone()
            except OSError:
                return None

    def move(self, src: Path, dst: Path, what: str) -> None:
        """Rename a scope folder (the one atomic step of archive/restore) and make it durable.

        If the rename can't be made durable it is undone, so a StorageError always means "not moved".
        Both folders must be real folders of the root (a symlinked ``archived/`` would move memory out).
        """
        for d in (src, dst.parent):
            real_dir_or_absent(self.root, d.relative_to(self.root).as_posix())
        try:
            dst.parent.mkdir(exist_ok=True, mode=new_dir_mode(self.root))
            if os.path.lexists(dst):
                raise FileExistsError(17, "already exists", str(dst))
            os.rename(src, dst)
        except OSError as exc:
            raise StorageError(f"Could not {what}: {exc.strerror or exc}. Nothing was moved.") from exc
        try:
            fsync_dir(dst.parent)
            fsync_dir(src.parent)
        except OSError as exc:
            try:
                os.rename(dst, src)
                fsync_dir(src.parent)
            except OSError:
                raise StorageError(
                    f"Could not {what} durably ({exc.strerror or exc}); it was moved but may be undone by "
                    "a crash. Check the disk."
                ) from exc
            raise StorageError(f"Could not {what}: {exc.strerror or exc}. Nothing was moved.") from exc

    def archive(self, key: str, when: datetime) -> None:
        stamp = self.stamp(key)
        try:
            stamp.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        except OSError as exc:
            raise StorageError(f"Could not archive {key}: {exc.strerror or exc}. Nothing was moved.") from exc
        try:
            # The stamp first: it means nothing until the folder is in archived/, and the rename
            # below is the single atomic step that archives.
            write_atomic(stamp, archive_stamp_bytes(when.isoformat()), mode=0o600)
            self.move(self.scope_dir(key, False), self.scope_dir(key, True), f"archive {key}")
        except StorageError:
            with contextlib.suppress(OSError):
                os.unlink(stamp)
            raise

    def restore(self, key: str) -> None:
        self.move(self.scope_dir(key, True), self.scope_dir(key, False), f"restore {key}")
        remove_tree_quietly(self.stamp(key))  # meaningless once restored; best effort

    def purge(self, key: str) -> None:
        real_dir_or_absent(self.root, MANAGER_DIR)
        journal_recovery.purge(self.root, key)
