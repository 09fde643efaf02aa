"""The parse caches of the last few memory roots this app opened, so switching back to one opens warm.

A root switch builds a new :class:`~core.store.fs.FileStore` (and a new window). Handed the
:class:`~core.store.caches.StoreCaches` its root had before, the store re-reads every workspace with a
stat per file instead of a parse per record (~40 ms per 1,000 records saved). The registry is an object
the app owns and passes from window to window in :class:`~gui.context.AppContext` (no module-level
state), bounded to :attr:`RootCaches.MAX` roots: each holds the parsed records of its root.
Sharing is safe: every cached parse is checked against the disk before it is believed.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from core.store.api import MemoryStore

if TYPE_CHECKING:
    from core.store.caches import StoreCaches


def _root_key(root: Path | str) -> str:
    return os.path.abspath(os.path.expanduser(root))


class RootCaches:
    """Per-root :class:`StoreCaches`, most recently used last; the oldest is forgotten past ``max_roots``."""

    MAX = 3

    def __init__(self, max_roots: int = MAX) -> None:
        self._max = max_roots
        self._by_root: OrderedDict[str, StoreCaches] = OrderedDict()
        self._lock = threading.Lock()  # roots open on a worker while the window keeps the one it leaves

    def for_root(self, root: Path | str) -> StoreCaches:
        """The caches ``root`` had (a fresh set the first time), now the most recent."""
        from core.store.caches import StoreCaches  # the store's modules load with the first root

        with self._lock:
            caches = self._by_root.pop(_root_key(root), None) or StoreCaches()
            self._put(_root_key(root), caches)
            return caches

    def keep(self, root: Path | str, store: MemoryStore) -> RootCaches:
        """Remember the caches of ``store`` (open on ``root``) for the next time ``root`` opens; a store
        without parse caches (in memory) is ignored. Returns the registry, to hand it on."""
        from core.store.fs import FileStore  # loaded already: ``store`` exists

        if isinstance(store, FileStore):
            with self._lock:
                self._by_root.pop(_root_key(root), None)
                self._put(_root_key(root), store.caches)
        return self

    def roots(self) -> list[str]:
        """The roots whose caches are kept, least recently used first."""
        with self._lock:
            return list(self._by_root)

    def _put(self, key: str, caches: StoreCaches) -> None:
        self._by_root[key] = caches
        while len(self._by_root) > self._max:
            self._by_root.popitem(last=False)
