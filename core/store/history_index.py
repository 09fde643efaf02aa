"""Which history versions each record of a scope has, without listing ``.manager/history/<scope>``
on every commit.

Pruning after a commit needs the versions of the records it displaced. Listing the scope's history
folder for that costs O(all versions): a 1,000-record workspace at the limit holds 20,000 entries,
~20 ms to list and ~400 ms to turn into entries, on *every* commit. This index maps each record
name to its version file names, built by one listing per process and kept current with the store's
own changes:

- it is trusted only while the folder's stat (size, ``mtime_ns``, inode, ``ctime_ns``) is the one
  recorded after the index was last brought up to date; any other change to the folder (a user
  deleting or copying history files by hand) gives another stat, and the next use lists it again;
- the store changes the folder only under the scope's lock (a commit's journal moves copies in,
  pruning removes them). Around each change it checks the stat *before* (the index must be current)
  and records the stat *after*, with the change applied to the index. A hand edit landing between
  the change and that second stat is missed until the folder changes again;
- it only decides what pruning *removes*, and pruning is best effort: an entry it misses is kept
  longer than the limits, an entry it lists that is gone is skipped. It never feeds a read: the
  Recycle Bin and ``history()`` still list the folder.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

_Sig = tuple[int, int, int, int]
_MAX_FOLDERS = 32


def _sig(folder: str) -> _Sig | None:
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


class HistoryIndex:
    """Version file stems by record name, per history folder (process-wide, thread-safe)."""

    def __init__(self, suffix: str, parse: re.Pattern[str]) -> None:
        self._suffix = suffix
        self._parse = parse  # HISTORY_ID_RE: groups (stamp, reason, revision, name)
        self._folders: dict[str, tuple[_Sig, dict[str, set[str]]]] = {}
        self._mutex = threading.Lock()

    def versions(self, folder: str, names: Iterable[str]) -> dict[str, list[str]]:
        """The version file stems (``<stamp>-<reason>-<revision>-<name>``) of each of ``names``."""
        by_name = self._current(folder)
        if by_name is None:
            return {}
        return {n: sorted(by_name.get(n, ())) for n in names}

    def _current(self, folder: str) -> dict[str, set[str]] | None:
        sig = _sig(folder)
        if sig is None:
            return None
        with self._mutex:
            known = self._folders.get(folder)
            if known is not None and known[0] == sig:
                return known[1]
        by_name: dict[str, set[str]] = {}
        try:
            with os.scandir(folder) as it:
                for fe in it:
                    if not fe.name.endswith(self._suffix):
                        continue
                    stem = fe.name[: -len(self._suffix)]
                    m = self._parse.match(stem)
                    if m is not None:
                        by_name.setdefault(m.group(4), set()).add(stem)
        except OSError:
            return None
        self._store(folder, sig, by_name)  # the stat taken before listing: a change meanwhile re-lists
        return by_name

    def _store(self, folder: str, sig: _Sig, by_name: dict[str, set[str]]) -> None:
        with self._mutex:
            self._folders.pop(folder, None)
            self._folders[folder] = (sig, by_name)
            while len(self._folders) > _MAX_FOLDERS:
                self._folders.pop(next(iter(self._folders)))

    @contextlib.contextmanager
    def changing(self, folder: str, added: Iterable[str] = (), removed: Iterable[str] = ()) -> Iterator[None]:
        """Around the store's own change to ``folder`` (under the scope's lock): if the index was
        current before it, it is current after it (stems added / removed); otherwise it is dropped."""
        before = _sig(folder)
        with self._mutex:
            known = self._folders.pop(folder, None)
        yield  # an exception leaves the index dropped: the next use lists the folder
        if known is None or before is None or known[0] != before:
            return
        after = _sig(folder)
        if after is None:
            return
        by_name = known[1]
        for stem in added:
            m = self._parse.match(stem)
            if m is not None:
                by_name.setdefault(m.group(4), set()).add(stem)
        for stem in removed:
            m = self._parse.match(stem)
            if m is not None:
                by_name.get(m.group(4), set()).discard(stem)
        self._store(folder, after, by_name)


def stamp_time(stamp: str, fmt: str) -> datetime | None:
    try:
        return datetime.strptime(stamp, fmt).replace(tzinfo=UTC)
    except ValueError:
        return None
