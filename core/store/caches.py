"""What a file store keeps in memory between reads, as one object owned by whoever opens the root.

No module-level caches: a :class:`StoreCaches` belongs to the code that opens a root (the app, the
CLI, a benchmark). A reopened :class:`~core.store.fs.FileStore` over the same root is warm only when
it is handed the same object (``FileStore(root, caches=first.caches)``). Every cache is checked
against the disk before it is believed (stat signatures, racy window, folder stats), so sharing one
saves work and never changes what a read returns.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from core.models import RecordEntry
from core.store.base import HISTORY_ID_RE
from core.store.commit_log import CommitLogCache
from core.store.history_index import HistoryIndex
from core.store.scope_files import ScopeFiles

HISTORY_SUFFIX = ".hist"
"""History version files: ``.manager/history/<scope>/<id>.hist``."""

StatSig = tuple[int, int, int, int]
"""``(size, mtime_ns, inode, ctime_ns)`` of a file: what a cached parse is keyed on."""
Cached = tuple[StatSig, RecordEntry, bool]
"""A parsed entry: ``(stat, entry, verify)``. ``verify`` marks an entry cached while its file was
racily clean (touched within the racy window, so a same-tick rewrite could keep the stat): it is used
only after re-reading the bytes and finding the entry's content hash, which saves the parse but never
trusts the stat alone."""


def stat_sig(st: os.stat_result) -> StatSig:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


class ScopeCache:
    """The last ScopeFiles read or written per active folder (the :attr:`MAX` most recent).

    A re-read that finds every entry, scope.json, MEMORY.md and blocked name equal to it returns that
    object, with the revision, name map and MEMORY.md items it already computed: the next commit then
    pays the stats of the re-read, not the recomputation."""

    MAX = 16

    def __init__(self) -> None:
        self._by_folder: dict[str, ScopeFiles] = {}

    def get(self, folder: str) -> ScopeFiles | None:
        return self._by_folder.get(folder)

    def remember(self, folder: str, files: ScopeFiles) -> None:
        self._by_folder.pop(folder, None)
        self._by_folder[folder] = files  # newest last
        while len(self._by_folder) > self.MAX:
            with contextlib.suppress(StopIteration, KeyError, RuntimeError):  # another thread may trim too
                self._by_folder.pop(next(iter(self._by_folder)))

    def folders(self) -> list[str]:
        return list(self._by_folder)

    def clear(self) -> None:
        self._by_folder.clear()


@dataclass
class StoreCaches:
    """Everything a file store caches in memory; share one between stores of the same root."""

    entries: dict[str, dict[str, Cached]] = field(default_factory=dict)
    """Parsed entries by folder, then file name (see :data:`Cached`)."""
    scopes: ScopeCache = field(default_factory=ScopeCache)
    history: HistoryIndex = field(default_factory=lambda: HistoryIndex(HISTORY_SUFFIX, HISTORY_ID_RE))
    """Which history versions each record has (:mod:`core.store.history_index`)."""
    commit_logs: CommitLogCache = field(default_factory=CommitLogCache)
    parsed: int = 0
    """Record files parsed from disk through these caches: a cold open parses every record, a warm one
    only what changed since. What sharing saves, for tests and benchmarks to read (counted without a
    lock: a close figure, not an exact one, while several threads read at once)."""

    def entries_of(self, folder: str) -> dict[str, Cached]:
        return self.entries.setdefault(folder, {})

    def clear(self) -> None:
        """Forget everything (what a fresh process would know)."""
        self.entries.clear()
        self.scopes.clear()
        self.history = HistoryIndex(HISTORY_SUFFIX, HISTORY_ID_RE)
        self.commit_logs.clear()
