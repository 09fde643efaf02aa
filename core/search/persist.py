"""The index folder under the store's cache directory: open it, or rebuild it when it can't be trusted.

``<cache>/search-v<N>/`` holds tantivy's files and ``dsh-scopes.json`` (what each scope was when it
was indexed: folder stamp, stat fingerprint, revision). Several processes share the folder: tantivy
lets one of them hold the writer (its lock file is released when the holder exits, even on
SIGKILL); the others read the last committed state. A commit is atomic in tantivy (its
``meta.json`` is replaced at once), and the scopes file is written after the commit it describes,
so a crash between the two only makes the next refresh look at those scopes again.

A folder that tantivy can't open, a symlink, or one of another schema version is never trusted:
it is removed and the index rebuilt from the store. Older versions' files (``search-*``) go too.
Everything is created 0700/0600 (memory is private; tantivy's own files are narrowed after each
commit).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import Any

import tantivy

from core.atomic import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, remove_tree_quietly, write_atomic
from core.search.engine import SCHEMA_VERSION, build_schema, register_analyzers

INDEX_DIR = f"search-v{SCHEMA_VERSION}"
SCOPES_FILE = "dsh-scopes.json"
MAX_SCOPES_BYTES = 64 * 1024 * 1024  # (1,000 scopes take ~150 KB)
WRITER_HEAP = 96_000_000  # split between the writer threads; the build's peak memory
WRITER_THREADS = 2


class IndexDir:
    """One index: in memory (``path`` None, for stores without a root) or in a folder."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.schema = build_schema()
        self.index = self._open()
        self._scopes_stat: tuple[int, int, int] | None = None

    def _open(self) -> tantivy.Index:
        if self.path is None:
            index = tantivy.Index(self.schema)
        else:
            _drop_other_versions(self.path)
            index = self._open_folder()
        register_analyzers(index)
        return index

    def _open_folder(self) -> tantivy.Index:
        path = self.path
        assert path is not None
        try:
            st = path.lstat()
        except FileNotFoundError:
            st = None
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode) and (path / "meta.json").exists():
            try:
                index = tantivy.Index.open(str(path))
                if _same_schema(index.schema, self.schema):
                    return index
            except (OSError, ValueError, RuntimeError):
                pass  # damaged or foreign: rebuilt below
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                remove_tree_quietly(path)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()  # (a symlink or a file: never followed)
        path.parent.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=PRIVATE_DIR_MODE)
        return tantivy.Index(self.schema, str(path), reuse=True)

    def rebuild(self) -> None:
        """Throw the folder away and start empty (after a search found it damaged)."""
        if self.path is not None:
            remove_tree_quietly(self.path)
        self.index = self._open()
        self._scopes_stat = None

    def writer(self) -> tantivy.IndexWriter | None:
        """The writer, or None when another process (or thread) holds it: never waits."""
        try:
            return self.index.writer(heap_size=WRITER_HEAP, num_threads=WRITER_THREADS)
        except (ValueError, OSError, RuntimeError):
            return None

    def secure(self) -> None:
        """Narrow what tantivy created (it uses the process umask) to 0600 files in a 0700 folder."""
        if self.path is None:
            return
        with contextlib.suppress(OSError), os.scandir(self.path) as it:
            for entry in it:
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077:
                        os.chmod(entry.path, PRIVATE_FILE_MODE)

    # --- the scopes file ------------------------------------------------------------------
    def scopes_changed(self) -> bool:
        """Whether the scopes file changed since this process last read or wrote it."""
        return self.path is not None and _stat_key(self.path / SCOPES_FILE) != self._scopes_stat

    def read_scopes(self) -> dict[str, list[Any]] | None:
        """sid -> [stamp mtime, stamp inode, fingerprint, revision]; None when missing or invalid."""
        if self.path is None:
            return None
        target = self.path / SCOPES_FILE
        self._scopes_stat = _stat_key(target)
        try:
            with open(target, "rb") as f:
                data = json.loads(f.read(MAX_SCOPES_BYTES + 1))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("version") != SCHEMA_VERSION:
            return None
        scopes = data.get("scopes")
        if not isinstance(scopes, dict):
            return None
        return {k: v for k, v in scopes.items() if isinstance(k, str) and _valid_row(v)}

    def write_scopes(self, scopes: dict[str, list[Any]]) -> None:
        if self.path is None:
            return
        target = self.path / SCOPES_FILE
        data = json.dumps({"version": SCHEMA_VERSION, "scopes": scopes}, separators=(",", ":")).encode()
        with contextlib.suppress(OSError, Exception):
            write_atomic(target, data, mode=PRIVATE_FILE_MODE, durable=False)
        self._scopes_stat = _stat_key(target)


def _valid_row(row: object) -> bool:
    return (
        isinstance(row, list)
        and len(row) == 4
        and all(x is None or isinstance(x, int) for x in row[:2])
        and all(x is None or isinstance(x, str) for x in row[2:])
    )


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ino, st.st_size)


def _same_schema(a: tantivy.Schema, b: tantivy.Schema) -> bool:
    return bool(a == b)


def _drop_other_versions(path: Path) -> None:
    """Remove earlier index versions (``search-*`` beside ours): derived data, rebuilt as needed."""
    with contextlib.suppress(OSError), os.scandir(path.parent) as it:
        for entry in it:
            if entry.name.startswith("search-") and entry.name != path.name:
                if entry.is_dir(follow_symlinks=False):
                    remove_tree_quietly(Path(entry.path))
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
