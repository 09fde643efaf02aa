"""The usage ledger on disk: ``<root>/.manager/usage/`` (derived data, never in a record file).

Three files, all private (0600, folder 0700), all owned by this module:

- ``ledger.json``: the index: per DSH session folder counted, the log revision it was counted at
  and the stat stamp of its log files (so an unchanged session is skipped without opening it).
- ``entries.jsonl``: what each counted session contributed (session id, workspace, call counts,
  its uses: key, name, kind, tool, first seq, last time, count), one line per session revision,
  appended; the line whose revision the index names is the live one. It is rewritten without the
  dead lines once they outnumber the live ones, and when a workspace was purged. Appending keeps
  the update after one new session small however many sessions were counted before.

Rebuildable at any time from the logs (``rebuild=True``); an update reads only the sessions that
are new or whose log revision changed since, and only once they are stable (the same rules as
consolidation: no live ``session.lock``, quiet for ``quiet_seconds``). Entries of session folders
that are gone are dropped, so the ledger mirrors what DSH keeps.
- ``served.jsonl``: what ``dsh-memory mcp`` served (:func:`note_served`), append-only, trimmed
  to its newest half past ``MAX_SERVED_BYTES``. Not in any log, so a rebuild keeps it.

Several processes may update at once: logs are read without a lock, then the merge happens
under a file lock on a freshly read ``ledger.json`` (an entry already written at the same
revision by another process wins), written atomically (``core.atomic``). The MCP append has its
own lock, so a reader is never held up by an update.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from core.atomic import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, append_durable, write_atomic
from core.errors import CancelledError, DshMemoryError, StorageError, UsageError
from core.foreign import ForeignDataError
from core.layout import MANAGER_DIR, USAGE_DIR
from core.sessions.files import find_session_file, log_generation
from core.sessions.stability import DEFAULT_QUIET_SECONDS, lock_state
from core.store.api import MemoryStore
from core.usage.paths import MemoryRoot
from core.usage.place import MemoryFiles
from core.usage.scan import scan_session
from core.usage.types import UpdateStats
from core.usage.view import UsageView, fold

LEDGER_FILE = "ledger.json"
ENTRIES_FILE = "entries.jsonl"
SERVED_FILE = "served.jsonl"
LOCK_FILE = "ledger.lock"
SERVED_LOCK_FILE = "served.lock"
FORMAT = 2
MAX_LEDGER_BYTES = 256 << 20  # a ledger bigger than this is not ours to trust: it is rebuilt
MAX_SERVED_BYTES = 4 << 20
LOCK_TIMEOUT = 30.0
ProgressFn = Callable[[int, int], None]


def usage_dir(store: MemoryStore) -> Path:
    """The ledger's folder (the store names the root; ``core.layout`` the place in it)."""
    if store.root is None:
        raise UsageError("This memory has no folder on disk, so it keeps no usage ledger.")
    return Path(store.root) / MANAGER_DIR / USAGE_DIR


def _ensure_dir(path: Path) -> Path:
    """Create ``.manager/usage`` owner-only; refuse a symlink or non-folder on the way (never
    write through a link out of the root)."""
    if not path.parent.parent.is_dir():
        raise UsageError(f"The memory root {path.parent.parent} does not exist yet; there is no usage to keep.")
    for folder in (path.parent, path):
        try:
            st = os.lstat(folder)
        except FileNotFoundError:
            try:
                os.mkdir(folder, PRIVATE_DIR_MODE)
            except FileExistsError:
                pass
            except OSError as exc:
                raise StorageError(f"Could not create {folder}: {exc.strerror or exc}.") from exc
            st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode):
            raise StorageError(
                f"{folder} is not a plain folder (a link or a file); the usage ledger is not kept there."
            )
    return path


def _read_private(path: Path, limit: int) -> bytes | None:
    """A ledger file's bytes, never through a symlink; None when absent, over ``limit`` or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if os.fstat(fd).st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _load_doc(folder: Path) -> dict[str, Any] | None:
    data = _read_private(folder / LEDGER_FILE, MAX_LEDGER_BYTES)
    if data is None:
        return None
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("index"), dict):
        return None
    return doc


def read_entries(folder: Path, index: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The live entry of each indexed session folder: its last line at the revision the index names."""
    data = _read_private(folder / ENTRIES_FILE, MAX_LEDGER_BYTES)
    out: dict[str, dict[str, Any]] = {}
    for line in (data or b"").split(b"\n"):
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn last line (an append cut short): its session is read again
        if not isinstance(entry, dict):
            continue
        where = entry.get("f")
        known = index.get(where) if isinstance(where, str) else None
        if isinstance(known, dict) and known.get("rev") == entry.get("rev"):
            out[str(where)] = entry
    return out


def load_view(store: MemoryStore) -> UsageView:
    """What the ledger on disk says now (no update; an empty, unavailable view when there is none)."""
    if store.root is None:
        return UsageView()
    folder = usage_dir(store)
    doc = _load_doc(folder)
    served = read_served(folder)
    # "Never used" means something only once some use could have been seen: a ledger built over
    # an empty (or misconfigured) sessions folder and no MCP read says nothing about any record.
    sessions = read_entries(folder, doc["index"]) if doc is not None else {}
    updated = doc.get("updated") if doc is not None else None
    return fold(sessions, served, available=bool(sessions) or bool(served), updated=updated)


def _empty(sessions_root: str) -> dict[str, Any]:
    return {"format": FORMAT, "sessions_root": sessions_root, "updated": None, "keys": [], "lines": 0, "index": {}}


def _stamp(folder: str) -> list[list[Any]] | None:
    """Name and stat identity of every canonical log file in a session folder. Equal to the stamp
    stored when the session was counted => the reader would pick the same file at the same
    revision, so it is not looked at again (no header read, no path objects: the warm update over
    a thousand sessions is this loop)."""
    out: list[list[Any]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if log_generation(entry.name) is None:
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    continue
                out.append([entry.name, st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev])
    except OSError:
        return None
    out.sort()
    return out


def _session_folders(sessions_root: Path) -> Iterator[str]:
    """``<root>/<project>/<session>/`` folders, the layout the session catalog lists."""
    try:
        projects = sorted(e.path for e in os.scandir(sessions_root) if e.is_dir(follow_symlinks=False))
    except OSError:
        return
    for project in projects:
        try:
            with os.scandir(project) as entries:
                folders = sorted(e.path for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        yield from folders  # (text, not Path objects: a Path is made only for the few folders read)


class UsageLedger:
    """The ledger of one memory root over one DSH sessions folder."""

    def __init__(
        self,
        store: MemoryStore,
        sessions_root: str | os.PathLike[str],
        *,
        quiet_seconds: float = DEFAULT_QUIET_SECONDS,
    ) -> None:
        self.store = store
        self.sessions_root = Path(os.path.abspath(os.fspath(sessions_root)))
        self.quiet_seconds = quiet_seconds
        self.dir = usage_dir(store)
        # The ledger as this update read it, with its stat: re-read under the lock only if it moved.
        self._loaded: tuple[tuple[int, int, int] | None, dict[str, Any] | None] = (None, None)

    # --- reading ---------------------------------------------------------------------------
    def _ledger_stat(self) -> tuple[int, int, int] | None:
        try:
            st = os.lstat(self.dir / LEDGER_FILE)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _load(self) -> dict[str, Any]:
        self._loaded = (self._ledger_stat(), None)
        doc = _load_doc(self.dir)
        self._loaded = (self._loaded[0], doc)
        if doc is None or doc.get("sessions_root") != str(self.sessions_root):
            return _empty(str(self.sessions_root))  # counted from another sessions folder: start over
        return doc

    def exists(self) -> bool:
        return (self.dir / LEDGER_FILE).is_file()

    def view(self) -> UsageView:
        """Per-record usage from the ledger and the MCP log, as they are on disk now (no update)."""
        return load_view(self.store)

    # --- updating --------------------------------------------------------------------------
    def update(
        self,
        *,
        rebuild: bool = False,
        now: float | None = None,
        cancelled: Callable[[], bool] = lambda: False,
        progress: ProgressFn | None = None,
    ) -> UpdateStats:
        """Count new and changed stable sessions (all of them with ``rebuild``); returns figures."""
        started = time.perf_counter()
        current = time.time() if now is None else now
        old = _empty(str(self.sessions_root)) if rebuild else self._load()
        entries: dict[str, Any] = old["index"]
        root = MemoryRoot(self.store.root or "")
        files = MemoryFiles(self.store)
        fresh: dict[str, dict[str, Any]] = {}
        present: set[str] = set()
        stats = UpdateStats()
        folders = list(_session_folders(self.sessions_root))
        for done, folder in enumerate(folders):
            if done % 50 == 0:
                if cancelled():
                    raise CancelledError("The usage update was cancelled; the ledger was not changed.")
                if progress is not None:
                    progress(done, len(folders))
            name = folder
            stamp = _stamp(name)
            if not stamp:
                continue
            present.add(name)
            stats.sessions_seen += 1
            entry = entries.get(name)
            if isinstance(entry, dict) and entry.get("stamp") == stamp:
                stats.sessions_kept += 1
                continue
            found = find_session_file(Path(folder))
            if found is None:
                continue
            if isinstance(entry, dict) and entry.get("rev") == found.revision.token:
                stats.sessions_kept += 1  # another log file came or went, the one read is the same
                continue
            if found.unusable is not None:
                stats.problems[name] = found.unusable
                continue
            if lock_state(name, current) is not None or current - found.revision.mtime_ns / 1e9 < self.quiet_seconds:
                stats.sessions_waiting += 1  # counted at its old revision (if any) until it is stable
                continue
            try:
                uses = scan_session(found, Path(folder), root, files)
            except (OSError, DshMemoryError, ForeignDataError) as exc:  # over a reading budget: its problem
                stats.problems[name] = getattr(exc, "message", None) or str(exc)
                continue
            if uses is None:
                stats.problems[name] = "no DSH session header"
                continue
            if uses.revision != found.revision.token:
                stats.sessions_waiting += 1  # written to while it was read
                continue
            stats.sessions_read += 1
            stats.tool_calls += uses.calls
            stats.calls_parsed += uses.parsed
            stats.uses_found += len(uses.uses)
            for tool, count in uses.unknown.items():
                stats.unknown_tools[tool] = stats.unknown_tools.get(tool, 0) + count
            fresh[name] = {"f": name, **uses.to_json(), "stamp": stamp}
        if progress is not None:
            progress(len(folders), len(folders))
        gone = [f for f in entries if f not in present and not os.path.isdir(f)]
        # A workspace counted before and gone from the root now (purged): rewrite without its uses.
        pruned = any(not files.known(k) for k in old.get("keys") or ())
        _prune_served(self.dir, files.known)
        stats.sessions_dropped = len(gone)
        if fresh or gone or rebuild or pruned or old.get("keys") != files.known_keys():
            self._merge(fresh, gone, files, rebuild=rebuild, prune=pruned)
        stats.seconds = time.perf_counter() - started
        return stats

    def _merge(
        self, fresh: dict[str, dict[str, Any]], gone: Sequence[str], files: MemoryFiles, *, rebuild: bool, prune: bool
    ) -> None:
        _ensure_dir(self.dir)
        try:
            with FileLock(str(self.dir / LOCK_FILE), timeout=LOCK_TIMEOUT, mode=PRIVATE_FILE_MODE):
                self._merge_locked(fresh, gone, files, rebuild=rebuild, prune=prune)
        except Timeout as exc:
            raise StorageError(f"Another program has held the usage ledger's lock for {LOCK_TIMEOUT:.0f} s.") from exc

    def _merge_locked(
        self, fresh: dict[str, dict[str, Any]], gone: Sequence[str], files: MemoryFiles, *, rebuild: bool, prune: bool
    ) -> None:
        if rebuild:
            doc = _empty(str(self.sessions_root))
        elif (
            self._loaded[1] is not None
            and self._loaded[0] == self._ledger_stat()
            and (self._loaded[1].get("sessions_root") == str(self.sessions_root))
        ):
            doc = self._loaded[1]  # nobody wrote it since this update read it
        else:
            doc = self._load()
        index: dict[str, Any] = doc["index"]
        lines = [
            json.dumps({k: v for k, v in e.items() if k != "stamp"}, ensure_ascii=False, separators=(",", ":")) + "\n"
            for e in fresh.values()
        ]
        for folder, entry in fresh.items():
            index[folder] = {"rev": entry["rev"], "stamp": entry["stamp"]}
        for folder in gone:
            index.pop(folder, None)
        target = self.dir / ENTRIES_FILE
        lines_total = int(doc.get("lines") or 0) + len(lines)
        if rebuild:
            write_atomic(target, "".join(lines).encode("utf-8"), mode=PRIVATE_FILE_MODE, durable=False)
            lines_total = len(lines)
        elif prune or lines_total > 2 * len(index) + 64:
            # Compact: the live line of each session only (and no uses of purged workspaces).
            live = read_entries(self.dir, index)
            live.update({f: {k: v for k, v in e.items() if k != "stamp"} for f, e in fresh.items()})
            _prune(live, files.known)
            kept = [json.dumps(live[f], ensure_ascii=False, separators=(",", ":")) + "\n" for f in sorted(live)]
            write_atomic(target, "".join(kept).encode("utf-8"), mode=PRIVATE_FILE_MODE, durable=False)
            lines_total = len(kept)
        elif lines:
            append_durable(target, "".join(lines).encode("utf-8"))  # before the index names them
        doc["lines"] = lines_total
        doc["keys"] = files.known_keys()
        doc["index"] = dict(sorted(index.items()))
        doc["updated"] = int(time.time() * 1000)
        data = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        # Derived and rebuildable: a power cut may cost the last update, never tear the file.
        write_atomic(self.dir / LEDGER_FILE, data, mode=PRIVATE_FILE_MODE, durable=False)


def _prune(sessions: dict[str, Any], known: Callable[[str], bool]) -> bool:
    """Drop uses of workspaces that are no longer in the root (purged); True when any was dropped."""
    changed = False
    for entry in sessions.values():
        uses = entry.get("uses") if isinstance(entry, dict) else None
        if not isinstance(uses, list):
            continue
        kept = [u for u in uses if isinstance(u, list) and u and isinstance(u[0], str) and known(u[0])]
        if len(kept) != len(uses):
            entry["uses"] = kept
            changed = True
    return changed


# --- what the MCP server served ------------------------------------------------------------------
def read_served(folder: Path) -> list[dict[str, Any]]:
    data = _read_private(folder / SERVED_FILE, MAX_SERVED_BYTES * 2)
    if not data:
        return []
    out: list[dict[str, Any]] = []
    for line in data.split(b"\n"):
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a torn last line
        if isinstance(item, dict) and isinstance(item.get("n"), list) and isinstance(item.get("k"), str):
            out.append(item)
    return out


def note_served(store: MemoryStore, workspace_key: str, names: Sequence[str], tool: str, client: str) -> None:
    """Append one line to the ledger: the MCP server served ``names`` of ``workspace_key``
    (``""`` for GLOBAL.md) through ``tool`` to ``client``. Never raises: usage is bookkeeping,
    and an agent's read must not fail because of it."""
    if store.root is None or not names:
        return
    try:
        folder = _ensure_dir(usage_dir(store))
        line = {
            "t": int(time.time() * 1000),
            "k": workspace_key,
            "n": [str(n) for n in names][:100],
            "tool": tool[:64],
            "c": (client or "unknown")[:128],
        }
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        with FileLock(str(folder / SERVED_LOCK_FILE), timeout=5, mode=PRIVATE_FILE_MODE):
            target = folder / SERVED_FILE
            try:
                size = os.lstat(target).st_size
            except FileNotFoundError:
                size = 0
            if size + len(data) > MAX_SERVED_BYTES:
                _trim(target)
            append_durable(target, data)
    except (OSError, DshMemoryError, Timeout):
        return


def _prune_served(folder: Path, known: Callable[[str], bool]) -> None:
    """Drop the MCP log's lines about workspaces no longer in the root (a purge), under its lock."""
    served = read_served(folder)
    if all(known(str(item.get("k"))) for item in served):
        return
    try:
        with FileLock(str(folder / SERVED_LOCK_FILE), timeout=5, mode=PRIVATE_FILE_MODE):
            kept = [item for item in read_served(folder) if known(str(item.get("k")))]
            data = "".join(json.dumps(i, ensure_ascii=False, separators=(",", ":")) + "\n" for i in kept)
            write_atomic(folder / SERVED_FILE, data.encode("utf-8"), mode=PRIVATE_FILE_MODE, durable=False)
    except (OSError, DshMemoryError, Timeout):
        return  # tried again at the next update


def _trim(target: Path) -> None:
    """Keep the newest half of the served log (bounded; called under its lock)."""
    data = _read_private(target, MAX_SERVED_BYTES * 2) or b""
    keep = data[len(data) // 2 :]
    keep = keep[keep.find(b"\n") + 1 :] if b"\n" in keep else b""
    write_atomic(target, keep, mode=PRIVATE_FILE_MODE, durable=False)


def forget_workspace(store: MemoryStore, key: str) -> int:
    """Drop every use of workspace ``key`` from the ledger and the served log (a purge's sweep, issue
    25: usage of a purged workspace is a derived copy of it). Session entries stay at their revision,
    so an update does not count them again. The number of uses and served lines removed."""
    if store.root is None:
        return 0
    folder = usage_dir(store)
    if not folder.is_dir():
        return 0
    removed = 0
    with FileLock(str(folder / LOCK_FILE), timeout=LOCK_TIMEOUT, mode=PRIVATE_FILE_MODE):
        doc = _load_doc(folder)
        if doc is not None:
            live = read_entries(folder, doc["index"])
            before = sum(len(e.get("uses") or ()) for e in live.values())
            _prune(live, lambda k: k != key)
            removed = before - sum(len(e.get("uses") or ()) for e in live.values())
            # Always rewritten compact: the dead lines (older revisions) may hold its uses too.
            kept = [json.dumps(live[f], ensure_ascii=False, separators=(",", ":")) + "\n" for f in sorted(live)]
            write_atomic(folder / ENTRIES_FILE, "".join(kept).encode("utf-8"), mode=PRIVATE_FILE_MODE, durable=False)
            doc["lines"] = len(kept)
            out = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            write_atomic(folder / LEDGER_FILE, out, mode=PRIVATE_FILE_MODE, durable=False)
    with FileLock(str(folder / SERVED_LOCK_FILE), timeout=5, mode=PRIVATE_FILE_MODE):
        served = _read_private(folder / SERVED_FILE, MAX_SERVED_BYTES * 2)
        if served:
            lines = served.split(b"\n")
            kept_lines = []
            for line in lines:
                try:
                    item = json.loads(line) if line else None
                except ValueError:
                    item = None
                if isinstance(item, dict) and item.get("k") == key:
                    removed += 1
                    continue
                kept_lines.append(line)
            if len(kept_lines) != len(lines):
                write_atomic(folder / SERVED_FILE, b"\n".join(kept_lines), mode=PRIVATE_FILE_MODE, durable=False)
    return removed
