"""The index folder in the store's cache directory: opened, or rebuilt when it can't be trusted.

``<cache>/search-v<N>/`` holds tantivy's files and ``dsh-scopes.json`` (per scope: folder stamp,
stat fingerprint, revision when indexed). Processes share it: tantivy lets one hold the writer (its
lock is released when the holder exits, even on SIGKILL), the others read the last commit. A commit
is atomic (tantivy replaces its ``meta.json`` at once) and the scopes file is written after it, so
a crash between the two only makes the next refresh look at those scopes again.

A folder tantivy can't open, of another schema, or a symlink or file in its place is never trusted:
it is removed and the index rebuilt from the store; so are earlier versions (``search-*``). Files
are private: the folder is created 0700 and tantivy's files narrowed to 0600 after each commit.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from pathlib import Path

import tantivy

from core.atomic import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, remove_tree_quietly, write_atomic
from core.search.engine import SCHEMA_VERSION, build_schema, register_analyzers

TYPE_CHECKING = False  # (mypy reads this name as True; ``typing`` stays out of a one-shot CLI's start-up)
if TYPE_CHECKING:
    from typing import Any

INDEX_DIR = f"search-v{SCHEMA_VERSION}"
SCOPES_FILE = "dsh-scopes.json"
MAX_SCOPES_BYTES = 64 * 1024 * 1024  # (1,000 scopes take ~150 KB)
# (heap shared by the threads, threads): a build's writer, and a commit's (its arena stays in RSS)
WRITERS = {True: (96_000_000, 2), False: (20_000_000, 1)}


class IndexDir:
    """One index: in memory (``path`` None: a store without a root) or in a folder."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.schema = build_schema()
        self._scopes_stat: tuple[int, int, int] | None = None
        self._discarded = False  # a folder was thrown away (or left for memory) since take_discarded
        self._secured: set[str] = set()  # files narrowed to 0600 (or found so)
        self.index = self._open()

    def _open(self) -> tantivy.Index:
        path = self.path
        if path is None:
            index = tantivy.Index(self.schema)
        else:
            with contextlib.suppress(OSError), os.scandir(path.parent) as it:
                for entry in it:  # earlier versions: derived data, rebuilt as needed
                    if entry.name.startswith("search-") and entry.name != path.name:
                        remove_tree_quietly(Path(entry.path))
            try:
                index = self._open_folder(path)
            except (OSError, ValueError, RuntimeError):  # (a read-only root, a full disk: in memory)
                self.path, index, self._discarded = None, tantivy.Index(self.schema), True
        register_analyzers(index)
        return index

    def _open_folder(self, path: Path) -> tantivy.Index:
        try:
            mode: int | None = path.lstat().st_mode
        except OSError:
            mode = None
        for attempt in range(2 if mode is not None and stat.S_ISDIR(mode) else 0):
            try:
                index = tantivy.Index.open(str(path))
            except (OSError, ValueError, RuntimeError):  # (once more, a moment later: another process
                time.sleep(0.05 * (1 - attempt))  # may be mid-commit, and this would remove its work)
                continue
            if index.schema == self.schema:
                return index
            break
        if mode is not None:  # damaged, foreign, or not a folder: never followed, never trusted
            remove_tree_quietly(path)
            self._discarded = True
        path.parent.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=PRIVATE_DIR_MODE)
        return tantivy.Index(self.schema, str(path), reuse=True)

    def rebuild(self) -> None:
        """Throw the folder away and start empty (a search found it damaged)."""
        if self.path is not None:
            remove_tree_quietly(self.path)
        self._scopes_stat, self._discarded, self._secured = None, True, set()
        self.index = self._open()

    def take_discarded(self) -> bool:
        """Whether a folder was thrown away and started over (or left for memory) since the last call."""
        discarded, self._discarded = self._discarded, False
        return discarded

    def writer(self, big: bool) -> tantivy.IndexWriter | None:
        """The writer, or None when another process (or thread) holds it: never waits."""
        try:
            return self.index.writer(*WRITERS[big])
        except (ValueError, OSError, RuntimeError):
            return None

    def secure(self) -> None:
        """Narrow what tantivy created with the process umask to 0600."""
        if self.path is None:
            return
        with contextlib.suppress(OSError), os.scandir(self.path) as it:
            for entry in it:
                if entry.name in self._secured:  # (tantivy never rewrites a file: each is looked at once)
                    continue
                self._secured.add(entry.name)
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077:
                        os.chmod(entry.path, PRIVATE_FILE_MODE)

    def scopes_changed(self) -> bool:
        """Whether the scopes file changed since this process last read or wrote it."""
        return self.path is not None and _stat_key(self.path / SCOPES_FILE) != self._scopes_stat

    def read_scopes(self) -> dict[str, list[Any]] | None:
        """sid -> [stamp mtime, stamp inode, fingerprint, revision]; None when missing or invalid."""
        if self.path is None:
            return None
        self._scopes_stat = _stat_key(self.path / SCOPES_FILE)
        try:
            with open(self.path / SCOPES_FILE, "rb") as f:
                data = json.loads(f.read(MAX_SCOPES_BYTES + 1))
            scopes = data["scopes"] if data["version"] == SCHEMA_VERSION else None
        except (OSError, ValueError, TypeError, KeyError):
            return None
        if not isinstance(scopes, dict):
            return None
        return {k: v for k, v in scopes.items() if isinstance(k, str) and _valid_row(v)}

    def write_scopes(self, scopes: dict[str, list[Any]]) -> None:
        if self.path is None:
            return
        data = json.dumps({"version": SCHEMA_VERSION, "scopes": scopes}, separators=(",", ":")).encode()
        with contextlib.suppress(Exception):  # (the index is committed; a missing file costs a look)
            write_atomic(self.path / SCOPES_FILE, data, mode=PRIVATE_FILE_MODE, durable=False)
        self._scopes_stat = _stat_key(self.path / SCOPES_FILE)


def _valid_row(row: object) -> bool:
    if not (isinstance(row, list) and len(row) == 4):
        return False
    return all(x is None or isinstance(x, k) for x, k in zip(row, (int, int, str, str), strict=True))


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        return (st := path.stat()).st_mtime_ns, st.st_ino, st.st_size
    except OSError:
        return None
