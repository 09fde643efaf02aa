"""Read-only access to DSH session logs: listing, parsing, stability, turn evidence.

Public API (import from ``core.sessions``; nothing here ever writes, locks or renames anything
under the sessions root)::

    catalog = SessionCatalog(sessions_root=None, dsh_home=None, cache_file=None)
        # sessions_root defaults to core.keys.default_sessions_root(). dsh_home (for
        # storages/workspace.json) defaults to core.keys.dsh_home() only when sessions_root is
        # defaulted too; with an explicit sessions_root and no dsh_home there is no registry.
        # One instance keeps an in-memory parse cache keyed by SessionRevision: keep it alive
        # (e.g. one per window / CLI run) so re-listing re-parses nothing that did not change.
        # Thread-safe: list()/load() may run on worker threads. cache_file (optional; must be
        # outside sessions_root, e.g. the app's cache dir) persists summaries across runs, so a
        # fresh instance re-parses only what changed; a bad cache file is ignored.

    catalog.list(cwd=None, include_subagents=False, include_unassigned=True,
                 include_archived=True) -> list[SessionSummary]
        # cwd=None: every workspace (+ Unassigned when include_unassigned); cwd="/some/dir": only
        # sessions whose header cwd maps to workspace_key("/some/dir") (Unassigned never included).
        # "Unassigned" means workspace_key None: no cwd in the header, or a relative one (which
        # names no folder; SessionSummary.cwd keeps its text). Newest first (updated desc, id,
        # folder). Unreadable folders are skipped (catalog.problems says why).
        # SessionSummary.archived_in_dsh comes from workspace.json.
    catalog.workspaces(include_subagents=False) -> list[WorkspaceGroup]
        # WorkspaceGroup(key: str | None, cwd: str | None, title: str, session_count: int),
        # sorted by title, Unassigned (key/cwd None) last; title from workspace.json when it
        # names the cwd, else the cwd's basename.
    catalog.load(session: str | SessionSummary) -> ParsedSession
        # by SessionSummary (its folder), header id (duplicates: the newest), folder path or
        # folder name; always reads the file now (check .summary.revision against the listed one).
        # Raises core.errors.NotFoundError, or core.errors.SessionReadError (no header/unreadable).
    catalog.is_stable(summary, quiet_seconds=DEFAULT_QUIET_SECONDS, now=None) -> tuple[bool, str]
        # == check_stability(summary, ...). (True, "stable") or (False, reason) with reasons such as
        # "modified 12 s ago; waiting for 120 s without changes", "DSH (pid 42) holds session.lock
        # (the session is open)", "the session changed since it was listed; refresh the list",
        # "the session log is gone". DEFAULT_QUIET_SECONDS = 120.
    catalog.problems -> dict[str, str]   # folder -> why it could not be read (last list() call)
    catalog.parse_count -> int           # full parses so far (cache checks in tests/benchmarks)

    ParsedSession (frozen dataclass): summary: SessionSummary, header: Mapping, events:
        tuple[SessionEvent, ...] (conversation events only: messages, tool calls/results,
        approvals, titles, seed marker; chunk rows and other types skipped),
        warnings: tuple[str, ...] (torn zstd frame / torn last line / skipped bad lines)
    SessionEvent (frozen dataclass): seq: int, type: str, time: int | None (epoch ms), data: Mapping

    build_evidence(session: ParsedSession, limit_bytes: int = DEFAULT_EVIDENCE_LIMIT_BYTES) -> Evidence
        # deterministic; turn 0 holds anything before the first human prompt (rare), turns 1..n
        # start at each human prompt. Over the limit raises EvidenceLimitError, a subclass of
        # core.errors.EvidenceTooLargeError (code "evidence-too-large") with .size_bytes,
        # .limit_bytes, .turns; never truncates. DEFAULT_EVIDENCE_LIMIT_BYTES = 200_000.
    render_evidence(evidence: Evidence) -> str
        # the exact text a consolidator/model gets (stable bytes; Evidence.size_bytes is its UTF-8 size).

    read_session_file(path) / read_session_folder(folder) -> ParsedSession   # outside any catalog
    is_lock_held(folder) -> bool / lock_state(folder) -> str | None         # never creates the lock
    live_session_protection(quiet_seconds) -> LiveSessionProtection(lock_checked, note)
        # lock_checked False on Windows (DSH keeps no session.lock there: only the quiet period
        # protects a live session); note is the sentence the Consolidation tab shows.

DSH's rules the reader applies (details in core.sessions.parse / files / stability):
    - SessionSummary.format_version is the header's format; above KNOWN_FORMAT_VERSION (4) the
      log is read best-effort and SessionSummary.warnings says "written by a newer DSH (format vN):
      shown as far as it can be read". warnings also lists generation files skipped because their
      header disagrees with their name, both encodings of one generation, damaged zstd data.
    - inherited history (SessionSummary.inherited_cut = first own seq): v0 the header's seedLength
      only; v1+ the seq after the LAST session/end-seed with data.inherited == true, only when the
      header says isSeeded: true. Untagged end-seed markers (written on every resume) cut nothing.
    - generation files: canonical names only (session.jsonl[.zstd], session.v<N>.jsonl[.zstd], N >= 1,
      no leading zeros); the highest N wins across plain and zstd, never by mtime.
    - assistant text: assistant/message, assistant/peer-message, and any event carrying
      data.message with role "assistant" (streaming, reasoning and request rows excepted).

Value types live in core.sessions.models (SessionRevision, SessionSummary, ToolUse,
EvidenceMessage, EvidenceTurn, Evidence).
"""

from core.sessions.catalog import UNASSIGNED_TITLE, SessionCatalog, WorkspaceGroup, check_stability
from core.sessions.evidence import (
    DEFAULT_EVIDENCE_LIMIT_BYTES,
    EvidenceLimitError,
    build_evidence,
    render_evidence,
)
from core.sessions.models import (
    Evidence,
    EvidenceMessage,
    EvidenceTurn,
    SessionRevision,
    SessionSummary,
    ToolUse,
)
from core.sessions.parse import (
    KNOWN_FORMAT_VERSION,
    ParsedSession,
    SessionEvent,
    read_session_file,
    read_session_folder,
)
from core.sessions.stability import (
    DEFAULT_QUIET_SECONDS,
    LiveSessionProtection,
    is_lock_held,
    live_session_protection,
    lock_state,
)
from core.sessions.workspaces import WorkspaceRegistry, parse_registry, read_registry

__all__ = [
    "DEFAULT_EVIDENCE_LIMIT_BYTES",
    "DEFAULT_QUIET_SECONDS",
    "KNOWN_FORMAT_VERSION",
    "UNASSIGNED_TITLE",
    "Evidence",
    "EvidenceLimitError",
    "EvidenceMessage",
    "EvidenceTurn",
    "LiveSessionProtection",
    "ParsedSession",
    "SessionCatalog",
    "SessionEvent",
    "SessionRevision",
    "SessionSummary",
    "ToolUse",
    "WorkspaceGroup",
    "WorkspaceRegistry",
    "build_evidence",
    "check_stability",
    "is_lock_held",
    "live_session_protection",
    "lock_state",
    "parse_registry",
    "read_registry",
    "read_session_file",
    "read_session_folder",
    "render_evidence",
]
