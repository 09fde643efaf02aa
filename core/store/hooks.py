"""The storage primitives a backend provides: where bytes live, and nothing else.

:class:`StorageHooks` is the seam between :class:`~core.store.base.StoreCore` (every rule, written once)
and a backend (``FileStore`` on disk, ``InMemoryStore`` in a dict). A backend implements the abstract
methods; the others have a default that fits a backend with no disk. The collaborators
(``core/store/files.py``, ``history.py``, ``recycle.py``, ``inspection.py``) use these hooks through the
store they serve, never the backend's own helpers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.models import HistoryEntry, Problem
from core.store.rules import HistoryItem, ScopeChange
from core.store.scope_files import ScopeFiles

if TYPE_CHECKING:
    from core.store.multi import GlobalChange
    from core.store.scan import WorkspaceScan


class StorageHooks(ABC):
    """Where a store's bytes live: locks, scopes, GLOBAL.md, history files, the app's own files."""

    @abstractmethod
    def _lock(self, scope: str) -> AbstractContextManager[None]:
        """Exclusive lock on one scope (``global``, ``settings``, or a workspace key), cross-process."""

    @abstractmethod
    def _prepare(self, scope: str) -> None:
        """Called under the scope lock before a mutation: finish any interrupted transaction."""

    @abstractmethod
    def _scope_keys(self, archived: bool) -> list[str]: ...

    @abstractmethod
    def _load_scope(self, key: str, archived: bool) -> ScopeFiles | None: ...

    @abstractmethod
    def _file_bytes(self, key: str, file_name: str) -> bytes | None:
        """Raw bytes of a regular file in an active scope."""

    @abstractmethod
    def _write_scope(self, change: ScopeChange, before: ScopeFiles | None) -> ScopeFiles | None:
        """Apply a ScopeChange all-or-nothing (creating the scope folder if needed).

        May return the scope as it is now (saves a re-read); None means "read it back".
        """

    @abstractmethod
    def _global_bytes(self) -> bytes | None: ...

    @abstractmethod
    def _write_global(self, data: bytes, old: bytes | None, history: Sequence[HistoryItem]) -> None:
        """Replace GLOBAL.md, never displacing anything but ``old`` (ConflictError otherwise)."""

    @abstractmethod
    def _archive_move(self, key: str, when: datetime) -> None: ...

    @abstractmethod
    def _restore_move(self, key: str) -> None: ...

    @abstractmethod
    def _purge_archived(self, key: str) -> None: ...

    @abstractmethod
    def _history_items(self, scope: str | None = None) -> list[HistoryEntry]:
        """History entries (of one scope, or all)."""

    @abstractmethod
    def _history_bytes(self, entry_id: str) -> bytes | None: ...

    @abstractmethod
    def _drop_history(self, entry_ids: Sequence[str]) -> None: ...

    @abstractmethod
    def _aux_read(self, rel: str) -> bytes | None:
        """Bytes of an app-owned file next to the memory (settings.yml, reviews/..., debug/...)."""

    @abstractmethod
    def _aux_write(self, rel: str, data: bytes) -> None: ...

    @abstractmethod
    def _aux_append(self, rel: str, data: bytes) -> None: ...

    @abstractmethod
    def _aux_list(self, rel_dir: str) -> list[str]: ...

    def _extra_problems(self) -> list[Problem]:
        """Backend-specific findings for :meth:`check` (stray files, leftover transactions)."""
        return []

    def _global_problem(self) -> str | None:
        """A reason if GLOBAL.md exists but is not a regular file (the store never touches it then)."""
        return None

    def _read_lock(self, scope: str) -> AbstractContextManager[None]:
        """Reads take the scope lock too, so they never see a half-applied transaction."""
        return self._lock(scope)

    @abstractmethod
    def _scan_scope(self, key: str, archived: bool) -> WorkspaceScan | None:
        """The scope's files as bytes (``core.store.scan``), None if there is no such scope."""

    @property
    def read_only(self) -> bool:
        """True when the root can be read but not written (read-only mount, another user's root)."""
        return False

    def _quarantined_count(self) -> int:
        return 0

    @property
    @abstractmethod
    def root(self) -> Path | None: ...

    @abstractmethod
    def _write_scopes(
        self, changes: Sequence[ScopeChange], global_change: GlobalChange | None, archive: Sequence[str],
        when: datetime,
    ) -> None:
        """Apply workspace changes, a new GLOBAL.md and archive moves as one transaction (all or none)."""

    def _history_versions(self, scope: str, names: set[str]) -> dict[str, list[tuple[datetime, str]]]:
        """``(time, id)`` of every history version of each of ``names`` (what pruning needs)."""
        groups: dict[str, list[tuple[datetime, str]]] = {}
        for h in self._history_items(scope):
            if h.name in names:
                groups.setdefault(h.name, []).append((h.time, h.id))
        return groups

    def _aux_read_confined(self, rel: str) -> bytes | None:
        """``_aux_read`` for private state: the file store refuses a symlinked folder on the way."""
        return self._aux_read(rel)

    def _aux_list_confined(self, rel_dir: str) -> list[str]:
        """``_aux_list`` for private state (the file store also refuses links and sweeps old temp files)."""
        return self._aux_list(rel_dir)

    def _aux_delete(self, rel: str) -> bool:
        """Remove one app-owned file next to the memory; False when it was not there."""
        raise NotImplementedError

    def _aux_write_private(self, rel: str, data: bytes) -> None:
        """``_aux_write`` for private state (the file store makes it owner-only)."""
        self._aux_write(rel, data)

    def _write_log(self, rel: str, data: bytes) -> None:
        """Write a commit log: private, atomic; the file store skips the fsyncs (see commit_log.py)."""
        self._aux_write_private(rel, data)
