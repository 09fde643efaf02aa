"""The sessions list: every DSH session under a root, grouped by workspace, cached by revision."""

from __future__ import annotations

import builtins
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core import keys
from core import messages as M
from core.atomic import write_atomic
from core.errors import AmbiguousSessionError, NotFoundError, SessionReadError, StorageError, UsageError
from core.foreign import MAX_LOG_BYTES, load_json, read_capped
from core.sessions.files import HeaderVersions, SessionFile, find_session_file
from core.sessions.models import SessionRevision, SessionSummary
from core.sessions.parse import ParsedSession, folder_session_id, read_session_file, read_session_summary
from core.sessions.stability import DEFAULT_QUIET_SECONDS, describe_age, lock_state
from core.sessions.workspaces import WorkspaceRegistry, read_registry, registry_path

UNASSIGNED_TITLE = "Unassigned"
CACHE_FORMAT = 2  # bump when what a summary means changes (old cache files are then ignored)


@dataclass(frozen=True)
class WorkspaceGroup:
    """One workspace in the sessions list; ``key``/``cwd`` None is "Unassigned" (no header cwd)."""

    key: str | None
    cwd: str | None
    title: str
    session_count: int


class SessionCatalog:
    """Read-only view of a DSH sessions root (see ``core.sessions`` for the contract).

    ``dsh_home`` supplies ``storages/workspace.json``; when omitted it is ``$DSH_HOME`` if
    ``sessions_root`` is omitted too, and no registry otherwise (an explicit root is not guessed
    to live inside some DSH home).

    ``cache_file`` (optional, outside the sessions root) persists the summaries between runs so
    a fresh instance re-parses only what changed since; it is an optimization: a missing,
    stale or corrupt cache file is ignored and a failed save is skipped.
    """

    def __init__(
        self,
        sessions_root: str | os.PathLike[str] | None = None,
        dsh_home: str | os.PathLike[str] | None = None,
        cache_file: str | os.PathLike[str] | None = None,
    ) -> None:
        if sessions_root is None:
            self.sessions_root = keys.default_sessions_root()
            self.dsh_home: Path | None = Path(dsh_home) if dsh_home is not None else keys.dsh_home()
        else:
            self.sessions_root = Path(sessions_root)
            self.dsh_home = Path(dsh_home) if dsh_home is not None else None
        self._lock = threading.Lock()
        # folder -> (revision, summary or the read error's message, warnings from choosing the file)
        self._cache: dict[str, tuple[SessionRevision, SessionSummary | str, tuple[str, ...]]] = {}
        self._headers = HeaderVersions()  # generation files' header versions: each listing reads none again
        self._registry_stamp: tuple[int, int, int] | None = None
        self._registry = WorkspaceRegistry()
        self.parse_count = 0  # full parses done by this instance (tests and benchmarks read it)
        self.problems: dict[str, str] = {}
        self.cache_file = Path(cache_file) if cache_file is not None else None
        if self.cache_file is not None and _inside(self.cache_file, self.sessions_root):
            raise UsageError(
                f"The session list cache {self.cache_file} would be inside the DSH sessions folder "
                f"{self.sessions_root}, which this app never writes to. Put it in the app's cache folder.",
                reason="cache-inside-sessions",
            )
        self._cache_loaded = self.cache_file is None
        self._cache_dirty = False

    def __repr__(self) -> str:
        return f"SessionCatalog(root={str(self.sessions_root)!r}, cached={len(self._cache)})"

    # ------------------------------------------------------------ listing

    def _session_folders(self) -> Iterator[Path]:
        try:
            projects = sorted(e.path for e in os.scandir(self.sessions_root) if e.is_dir())
        except OSError:
            return
        for project in projects:
            try:
                with os.scandir(project) as entries:
                    folders = sorted(e.path for e in entries if e.is_dir())
            except OSError:
                continue
            for folder in folders:
                yield Path(folder)

    def registry(self) -> WorkspaceRegistry:
        """DSH's workspace registry, re-read only when the file's stat changes."""
        if self.dsh_home is None:
            return self._registry
        try:
            st = os.stat(registry_path(self.dsh_home))
            stamp: tuple[int, int, int] | None = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = None
        if stamp != self._registry_stamp:
            self._registry = read_registry(self.dsh_home) if stamp is not None else WorkspaceRegistry()
            self._registry_stamp = stamp
        return self._registry

    def _summary(self, folder: Path, found: SessionFile) -> SessionSummary | str:
        key = str(folder)
        cached = self._cache.get(key)
        # The same file read for the same reasons (a skipped generation file may have gone since).
        if cached is not None and cached[0] == found.revision and cached[2] == found.warnings:
            return cached[1]
        if found.unusable is not None:
            self._cache[key] = (found.revision, found.unusable, found.warnings)
            return found.unusable
        try:
            summary = read_session_summary(found.path, folder, found.warnings)
            self.parse_count += 1
            result: SessionSummary | str = summary
            revision = summary.revision
        except SessionReadError as exc:
            self.parse_count += 1
            result, revision = exc.message, found.revision
        self._cache[key] = (revision, result, found.warnings)
        self._cache_dirty = True
        return result

    def _load_cache_file(self) -> None:
        self._cache_loaded = True
        if self.cache_file is None:
            return
        try:
            doc = load_json(read_capped(self.cache_file, MAX_LOG_BYTES)[0])  # bounded, never trusted blindly
        except (OSError, ValueError):  # ForeignDataError (too large, too deep) is a ValueError
            return
        if not isinstance(doc, dict) or doc.get("format") != CACHE_FORMAT:
            return
        if doc.get("root") != str(self.sessions_root) or not isinstance(doc.get("entries"), dict):
            return
        for folder, entry in doc["entries"].items():
            try:
                revision = SessionRevision.model_validate(entry["revision"])
                summary = SessionSummary.model_validate(entry["summary"])
                selection = entry["selection"]
                if not isinstance(selection, list) or not all(isinstance(w, str) for w in selection):
                    continue
            except (KeyError, TypeError, ValueError):
                continue  # pydantic's ValidationError is a ValueError
            if summary.folder == folder and summary.revision == revision:
                self._cache[folder] = (revision, summary, tuple(selection))

    def _save_cache_file(self) -> None:
        if self.cache_file is None or not self._cache_dirty:
            return
        entries = {
            folder: {
                "revision": revision.model_dump(mode="json"),
                "summary": result.model_dump(mode="json"),
                "selection": list(selection),
            }
            for folder, (revision, result, selection) in sorted(self._cache.items())
            if isinstance(result, SessionSummary)
        }
        doc = {"format": CACHE_FORMAT, "root": str(self.sessions_root), "entries": entries}
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.cache_file, json.dumps(doc, ensure_ascii=False, sort_keys=True).encode("utf-8"))
        except (OSError, StorageError):
            return  # an optimization only: the next run re-parses, nothing is lost
        self._cache_dirty = False

    def _all(self) -> list[SessionSummary]:
        if not self._cache_loaded:
            self._load_cache_file()
        registry = self.registry()
        summaries: list[SessionSummary] = []
        problems: dict[str, str] = {}
        seen: set[str] = set()
        parsed = [(rev, result) for rev, result, _ in self._cache.values() if isinstance(result, SessionSummary)]
        self._headers.learn({rev: summary.format_version for rev, summary in parsed})
        for folder in self._session_folders():
            found = find_session_file(folder, self._headers)
            if found is None:
                continue
            seen.add(str(folder))
            result = self._summary(folder, found)
            if isinstance(result, str):
                problems[str(folder)] = result
                continue
            archived = result.id in registry.archived_session_ids
            if archived != result.archived_in_dsh:
                result = result.model_copy(update={"archived_in_dsh": archived})
            summaries.append(result)
        for gone in set(self._cache) - seen:
            del self._cache[gone]
            self._cache_dirty = True
        self.problems = problems
        self._save_cache_file()
        return summaries

    def list(
        self,
        cwd: str | os.PathLike[str] | None = None,
        include_subagents: bool = False,
        include_unassigned: bool = True,
        include_archived: bool = True,
    ) -> list[SessionSummary]:
        """Sessions newest first. ``cwd`` limits to one workspace (never Unassigned)."""
        with self._lock:
            summaries = self._all()
        wanted = keys.workspace_key(cwd) if cwd is not None else None
        out = [
            s
            for s in summaries
            if (include_subagents or not s.is_subagent)
            and (include_archived or not s.archived_in_dsh)
            and (
                s.workspace_key == wanted if wanted is not None else (include_unassigned or s.workspace_key is not None)
            )
        ]
        out.sort(key=_newest_first)
        return out

    def workspaces(self, include_subagents: bool = False) -> builtins.list[WorkspaceGroup]:
        """Workspaces that have sessions, by title; Unassigned last."""
        titles = self.registry().titles
        groups: dict[str | None, builtins.list[SessionSummary]] = {}
        for summary in self.list(include_subagents=include_subagents):
            groups.setdefault(summary.workspace_key, []).append(summary)
        out: builtins.list[WorkspaceGroup] = []
        for key, members in groups.items():
            if key is None:
                out.append(WorkspaceGroup(None, None, UNASSIGNED_TITLE, len(members)))
                continue
            cwd = members[0].cwd  # the newest session's spelling
            title = titles.get(key) or (keys.workspace_name(cwd) if cwd else key)
            out.append(WorkspaceGroup(key, cwd, title, len(members)))
        out.sort(key=lambda g: (g.key is None, g.title.casefold(), g.key or ""))
        return out

    # ------------------------------------------------------------ one session

    def _find(self, session: str) -> Path:
        candidate = Path(session)
        if candidate.is_absolute() and candidate.is_dir():
            return candidate
        with self._lock:
            summaries = self._all()
        summaries.sort(key=_newest_first)
        same = [summary.folder for summary in summaries if summary.id == session]
        if len(same) > 1:
            # Copies and fixtures share ids; loading one by id must not pick one silently.
            raise AmbiguousSessionError(
                f"{len(same)} sessions carry the id {session!r}: {same[0]} and {same[1]}"
                + (f" (and {len(same) - 2} more)" if len(same) > 2 else "")
                + ". Pick the session from its folder instead.",
                tuple(same),
            )
        if same:
            return Path(same[0])
        for summary in summaries:
            folder = Path(summary.folder)
            if folder.name == session or folder_session_id(folder) == session:
                return folder
        raise NotFoundError(
            f"No DSH session {session!r} under {self.sessions_root}. It may have been deleted, or "
            "the sessions folder in Settings points elsewhere.",
            reason="session",
        )

    def load(self, session: str | SessionSummary) -> ParsedSession:
        """Parse a whole session (its newest log, read now). Check ``.summary.revision`` if it matters."""
        folder = Path(session.folder) if isinstance(session, SessionSummary) else self._find(session)
        found = find_session_file(folder, self._headers)
        if found is None:
            label = session.id if isinstance(session, SessionSummary) else session
            raise NotFoundError(f"The DSH session {label!r} has no log in {folder} any more.", reason="session-log")
        if found.unusable is not None:
            raise SessionReadError(f"{folder}: {found.unusable}.", reason="unusable")
        parsed = read_session_file(found.path, folder, found.warnings)
        with self._lock:
            self.parse_count += 1
            self._cache[str(folder)] = (parsed.summary.revision, parsed.summary, found.warnings)
        archived = parsed.summary.id in self.registry().archived_session_ids
        if archived:
            parsed = ParsedSession(
                summary=parsed.summary.model_copy(update={"archived_in_dsh": True}),
                header=parsed.header,
                events=parsed.events,
                warnings=parsed.warnings,
            )
        return parsed

    def is_stable(
        self,
        summary: SessionSummary,
        quiet_seconds: float = DEFAULT_QUIET_SECONDS,
        now: float | None = None,
    ) -> tuple[bool, str]:
        """Whether the session can be consolidated now, and why not."""
        return check_stability(summary, quiet_seconds, now)


def check_stability(
    summary: SessionSummary, quiet_seconds: float = DEFAULT_QUIET_SECONDS, now: float | None = None
) -> tuple[bool, str]:
    """``(True, "stable")`` or ``(False, reason)``: live lock, recent writes, or changed since listed."""
    folder = Path(summary.folder)
    found = find_session_file(folder)
    if found is None:
        return False, M.SESSION_GONE.format()
    held = lock_state(folder, now)
    if held is not None:
        return False, held
    current = time.time() if now is None else now
    age = current - found.revision.mtime_ns / 1e9
    if age < quiet_seconds:
        return False, M.SESSION_QUIET.format(age=describe_age(age), quiet=describe_age(quiet_seconds))
    if found.revision != summary.revision:
        return False, M.SESSION_CHANGED.format()
    return True, "stable"


def _inside(path: Path, root: Path) -> bool:
    resolved = Path(os.path.realpath(path))
    return resolved.is_relative_to(os.path.realpath(root))


def _newest_first(summary: SessionSummary) -> tuple[float, str, str]:
    stamp = summary.updated.timestamp() if summary.updated is not None else 0.0
    return (-stamp, summary.id, summary.folder)
