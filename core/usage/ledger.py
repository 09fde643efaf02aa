"""The usage ledger on disk: ``<root>/.manager/usage/`` (derived data, never in a record file).

Two files, both private (0600, folder 0700), both owned by this module:

- ``ledger.json``: one entry per DSH session folder counted (the log revision it was counted at,
  the session id and workspace, call counts, and its uses: key, name, kind, tool, seq, time).
  Rebuildable at any time from the logs (``rebuild=True``); an update reads only the sessions
  that are new or whose log revision changed since, and only once they are stable (the same
  rules as consolidation: no live ``session.lock``, quiet for ``quiet_seconds``). Entries of
  session folders that are gone are dropped, so the ledger mirrors what DSH keeps.
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
from core.sessions.files import find_session_file
from core.sessions.stability import DEFAULT_QUIET_SECONDS, lock_state
from core.store.api import MemoryStore
from core.usage.paths import MemoryRoot
from core.usage.place import MemoryFiles
from core.usage.scan import scan_session
from core.usage.types import UpdateStats
from core.usage.view import UsageView, fold

LEDGER_FILE = "ledger.json"
SERVED_FILE = "served.jsonl"
LOCK_FILE = "ledger.lock"
SERVED_LOCK_FILE = "served.lock"
FORMAT = 1
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
            raise StorageError(f"{folder} is not a plain folder (a link or a file); the usage ledger is not kept there.")
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


def _empty(sessions_root: str) -> dict[str, Any]:
    return {"format": FORMAT, "sessions_root": sessions_root, "updated": None, "sessions": {}}


def _session_folders(sessions_root: Path) -> Iterator[Path]:
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
        yield from (Path(f) for f in folders)


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

    # --- reading ---------------------------------------------------------------------------
    def _load(self) -> dict[str, Any]:
        data = _read_private(self.dir / LEDGER_FILE, MAX_LEDGER_BYTES)
        blank = _empty(str(self.sessions_root))
        if data is None:
            return blank
        try:
            doc = json.loads(data)
        except ValueError:
            return blank
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("sessions"), dict):
            return blank
        if doc.get("sessions_root") != str(self.sessions_root):
            return blank  # counted from another sessions folder: start over
        return doc

    def exists(self) -> bool:
        return (self.dir / LEDGER_FILE).is_file()

    def view(self, *, now: float | None = None) -> UsageView:
        """Per-record usage from the ledger and the MCP log, as they are on disk now (no update)."""
        doc = self._load()
        served = read_served(self.dir)
        return fold(doc["sessions"], served, available=self.exists(), updated=doc.get("updated"))

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
        entries: dict[str, Any] = old["sessions"]
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
            found = find_session_file(folder)
            if found is None:
                continue
            name = str(folder)
            present.add(name)
            stats.sessions_seen += 1
            entry = entries.get(name)
            if isinstance(entry, dict) and entry.get("rev") == found.revision.token:
                stats.sessions_kept += 1
                continue
            if found.unusable is not None:
                stats.problems[name] = found.unusable
                continue
            if lock_state(folder, current) is not None or current - found.revision.mtime_ns / 1e9 < self.quiet_seconds:
                stats.sessions_waiting += 1  # counted at its old revision (if any) until it is stable
                continue
            try:
                uses = scan_session(found, folder, root, files)
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
            fresh[name] = uses.to_json()
        if progress is not None:
            progress(len(folders), len(folders))
        gone = [f for f in entries if f not in present and not os.path.isdir(f)]
        stats.sessions_dropped = len(gone)
        if fresh or gone or rebuild or not self.exists():
            self._merge(fresh, gone, rebuild=rebuild)
        stats.seconds = time.perf_counter() - started
        return stats

    def _merge(self, fresh: dict[str, dict[str, Any]], gone: Sequence[str], *, rebuild: bool) -> None:
        _ensure_dir(self.dir)
        try:
            with FileLock(str(self.dir / LOCK_FILE), timeout=LOCK_TIMEOUT, mode=PRIVATE_FILE_MODE):
                doc = _empty(str(self.sessions_root)) if rebuild else self._load()
                sessions: dict[str, Any] = doc["sessions"]
                for folder, entry in fresh.items():
                    sessions[folder] = entry  # same revision as another writer's: the same entry
                for folder in gone:
                    sessions.pop(folder, None)
                doc["sessions"] = dict(sorted(sessions.items()))
                doc["updated"] = int(time.time() * 1000)
                data = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
                # Derived and rebuildable: a power cut may cost the last update, never tear the file.
                write_atomic(self.dir / LEDGER_FILE, data, mode=PRIVATE_FILE_MODE, durable=False)
        except Timeout as exc:
            raise StorageError(f"Another program has held the usage ledger's lock for {LOCK_TIMEOUT:.0f} s.") from exc


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
        data = _read_private(folder / LEDGER_FILE, MAX_LEDGER_BYTES)
        try:
            doc = json.loads(data) if data else None
        except ValueError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("sessions"), dict):
            for entry in doc["sessions"].values():
                if not isinstance(entry, dict) or not isinstance(entry.get("uses"), list):
                    continue
                kept = [u for u in entry["uses"] if not (isinstance(u, list) and u and u[0] == key)]
                removed += len(entry["uses"]) - len(kept)
                entry["uses"] = kept
            if removed:
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
