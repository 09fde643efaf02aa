"""The file store's history: ``.manager/history/<scope>/<id>.hist``, one read-only file per version."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from core.errors import StorageError
from core.layout import HISTORY_DIR, MANAGER_DIR
from core.models import HistoryEntry
from core.store.base import GLOBAL_SCOPE, HISTORY_ID_RE, HISTORY_STAMP, HistoryItem
from core.store.caches import HISTORY_SUFFIX, StoreCaches
from core.store.fs_read import read_regular
from core.store.history_index import stamp_time


class FileHistory:
    """Lists, reads, drops and indexes history versions of one root (the journal moves them in)."""

    def __init__(self, root: Path, caches: StoreCaches, scope_cwd: Callable[[str], str]) -> None:
        self.dir = root / MANAGER_DIR / HISTORY_DIR
        self._caches = caches
        self._scope_cwd = scope_cwd  # a scope's cwd, for the entries' labels

    def path(self, entry_id: str) -> Path:
        scope = entry_id.partition("/")[0]
        return self.dir / scope / self.file_name(entry_id)

    @staticmethod
    def file_name(entry_id: str) -> str:
        scope, _, rest = entry_id.partition("/")
        for part in (scope, rest):
            if not part or "/" in part or "\\" in part or part.startswith(".") or "\0" in part:
                raise StorageError(f"Invalid history id {entry_id!r}.")
        return f"{rest}{HISTORY_SUFFIX}"

    def items(self, scope: str | None = None) -> list[HistoryEntry]:
        """History entries, read from file names (time, reason, revision, name) and sizes."""
        out: list[HistoryEntry] = []
        base = self.dir
        try:
            if scope is not None:
                scopes = [scope] if (base / scope).is_dir() and "/" not in scope else []
            else:
                with os.scandir(base) as it:
                    scopes = [e.name for e in it if e.is_dir(follow_symlinks=False)]
        except (FileNotFoundError, NotADirectoryError):
            return out
        for name in scopes:
            cwd = "" if name == GLOBAL_SCOPE else self._scope_cwd(name)
            with os.scandir(base / name) as it:
                for fe in it:
                    if not fe.name.endswith(HISTORY_SUFFIX):
                        continue
                    m = HISTORY_ID_RE.match(fe.name[: -len(HISTORY_SUFFIX)])
                    if m is None:
                        continue
                    try:
                        size = fe.stat(follow_symlinks=False).st_size
                        when = datetime.strptime(m.group(1), HISTORY_STAMP).replace(tzinfo=UTC)
                    except (OSError, ValueError):
                        continue
                    out.append(
                        HistoryEntry(
                            id=f"{name}/{fe.name[: -len(HISTORY_SUFFIX)]}",
                            scope_key=name,
                            cwd=cwd,
                            name=m.group(4),
                            time=when,
                            reason="delete" if m.group(2) == "delete" else "overwrite",
                            size=size,
                            revision=m.group(3),
                        )
                    )
        return out

    def read(self, entry_id: str) -> bytes | None:
        try:
            path = self.path(entry_id)
        except StorageError:
            return None
        return read_regular(path)

    def drop(self, entry_ids: Sequence[str]) -> None:
        by_scope: dict[str, list[str]] = {}
        for entry_id in entry_ids:
            scope, _, stem = entry_id.partition("/")
            by_scope.setdefault(scope, []).append(stem)
        for scope, stems in by_scope.items():
            with self._caches.history.changing(str(self.dir / scope), removed=stems):
                for stem in stems:
                    with contextlib.suppress(OSError, StorageError):
                        os.unlink(self.path(f"{scope}/{stem}"))

    def versions(self, scope: str, names: set[str]) -> dict[str, list[tuple[datetime, str]]]:
        """From the history index (:mod:`core.store.history_index`): no listing of a scope's whole
        history per commit."""
        if "/" in scope or scope.startswith("."):
            return {}
        out: dict[str, list[tuple[datetime, str]]] = {}
        for name, stems in self._caches.history.versions(str(self.dir / scope), names).items():
            for stem in stems:
                m = HISTORY_ID_RE.match(stem)
                when = stamp_time(m.group(1), HISTORY_STAMP) if m is not None else None
                if when is not None:
                    out.setdefault(name, []).append((when, f"{scope}/{stem}"))
        return out

    @contextlib.contextmanager
    def added(self, items: Sequence[HistoryItem]) -> Iterator[None]:
        """Around a transaction that moves ``items`` into history: keeps the history index current."""
        with contextlib.ExitStack() as stack:
            by_scope: dict[str, list[str]] = {}
            for item in items:
                scope, _, stem = item.entry.id.partition("/")
                by_scope.setdefault(scope, []).append(stem)
            for scope, stems in by_scope.items():
                stack.enter_context(self._caches.history.changing(str(self.dir / scope), added=stems))
            yield
