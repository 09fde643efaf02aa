"""Typed errors raised by the core. Each carries a stable ``code`` used by the CLI's JSON output.

Messages say what happened and what the user can do about it. Code that decides something from an
error looks at its type, its ``code`` or its typed ``reason`` — never at the message.

Each kind has its own ``exit_code`` for ``dsh-memory`` (the README's "Command line" lists them):
0 success · 1 ``check`` found problems, or an error of no kind below · 2 ``usage`` (the command line is
wrong) · 3 ``refused`` (the memory's state doesn't allow it now) · 4 ``not_found`` · 5 ``conflict`` ·
6 ``invalid`` · 7 ``secret`` · 8 ``confirmation_required`` · 9 ``storage`` · 10 ``read_only`` ·
11 ``session_read`` · 12 ``evidence-too-large`` · 13 ``consolidation_failed`` · 14 ``proposal_mismatch`` ·
15 ``undo_refused`` · 16 ``import-zip`` · 17 ``ambiguous-session`` · 130 ``cancelled`` (and Ctrl+C).
"""

from __future__ import annotations

TYPE_CHECKING = False  # (mypy reads this name as True; ``typing`` stays out of a one-shot CLI's start-up: issue 24)
if TYPE_CHECKING:  # (so are the reasons' Literal types below: import them under TYPE_CHECKING too)
    from typing import Any, ClassVar, Literal


class DshMemoryError(Exception):
    """Base class of every error the core raises on purpose."""

    code = "error"
    exit_code: ClassVar[int] = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


class ConflictError(DshMemoryError):
    """The scope changed since the caller read it; nothing was written.

    ``current_revision`` is the revision on disk now; ``current`` is the fresh snapshot when the
    store could read it, so a UI can show mine-vs-disk without another read.
    """

    code = "conflict"
    exit_code = 5

    def __init__(self, message: str, current_revision: str, current: Any = None) -> None:
        super().__init__(message)
        self.current_revision = current_revision
        self.current = current

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "current_revision": self.current_revision}


if TYPE_CHECKING:
    InvalidReason = Literal[
        "invalid", "refused", "redacted-credential", "not-a-name", "invalid-on-disk", "yaml-aliases", "not-utf8",
        "settings",
        "case-collision",  # a put whose file name differs only in case from an existing file's
    ]


class InvalidRecordError(DshMemoryError):
    """A record (or batch) breaks the on-disk rules. ``reasons`` lists every problem found (texts for
    people, made from :mod:`core.messages` templates where they can be translated).

    ``reason`` says which kind of refusal, for code and tests that decide from it: "invalid" (a record
    or batch breaks the record rules), "refused" (an agent's batch failed the review checks a
    consolidation gets: scope, names, secrets, Global), "redacted-credential" (an agent would write
    back a credential it was only shown redacted, perhaps among other problems), "not-a-name" (an
    agent named no record), "invalid-on-disk" (the record is invalid on disk; only a hand edit fixes
    it), "yaml-aliases" (frontmatter with YAML anchors or aliases), "not-utf8" (input that is not
    UTF-8), "settings" (settings.yml can't be used), "case-collision" (a new record's file name differs only in
    case from a file already there: one file on a case-insensitive disk). A batch with several kinds of
    problem says "yaml-aliases" or "case-collision" only when every problem is of that kind."""

    code = "invalid"
    exit_code = 6

    def __init__(
        self, message: str, reasons: tuple[str, ...] | list[str] = (), *, reason: InvalidReason = "invalid"
    ) -> None:
        reasons = tuple(reasons) or (message,)
        super().__init__(message)
        self.reasons = reasons
        self.reason: InvalidReason = reason

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "reasons": list(self.reasons)}


if TYPE_CHECKING:
    NotFoundReason = Literal["other", "session", "session-log"]


class NotFoundError(DshMemoryError):
    """``reason``: "session" (no DSH session by that id), "session-log" (its folder has no log any more),
    "other" (not typed yet)."""

    code = "not_found"
    exit_code = 4

    def __init__(self, message: str, *, reason: NotFoundReason = "other") -> None:
        super().__init__(message)
        self.reason: NotFoundReason = reason


class SecretRefusedError(DshMemoryError):
    """A write contained credential-shaped values. ``findings`` describe where (never the value)."""

    code = "secret"
    exit_code = 7

    def __init__(self, message: str, findings: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message)
        self.findings = tuple(findings)

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "findings": list(self.findings)}


if TYPE_CHECKING:
    ConfirmationReason = Literal["other", "malformed-settings", "workspace-name", "full-key"]


class ConfirmationRequiredError(DshMemoryError):
    """``reason``: "malformed-settings" (saving replaces a settings.yml that can't be read), "workspace-name"
    / "full-key" (a purge is confirmed by the workspace's name, or by its full key when its scope.json
    is invalid; ``expected`` holds it), "other"."""

    code = "confirmation_required"
    exit_code = 8

    def __init__(self, message: str, *, reason: ConfirmationReason = "other", expected: str = "") -> None:
        super().__init__(message)
        self.reason: ConfirmationReason = reason
        self.expected = expected


if TYPE_CHECKING:
    UsageReason = Literal[
        "usage", "export-inside-root", "cache-inside-sessions", "not-a-scope", "not-utf8",
        "model-incomplete", "model-unknown", "refused-change",
        "active-workspace", "no-cwd", "relative-cwd", "archived-workspace", "session-unstable", "not-pending",
        "too-large",  # an internal file (a pending review, a proposal...) over its kind's size bound
        "pending-limit",  # RefusedError's
        "ambiguous-session",  # AmbiguousSessionError's
    ]


class UsageError(DshMemoryError):
    """``reason``: "export-inside-root" (an export must be written outside the memory root),
    "cache-inside-sessions" (this app never writes into DSH's sessions folder), "not-a-scope" (a folder
    workspace memory would not use), "not-utf8" (a folder name that is not UTF-8), "model-incomplete" (the
    custom endpoint lacks a base URL or model), "model-unknown" (the selected model left DSH's list),
    "refused-change" (a commit accepts a change the review refused), "too-large" (an internal file over its
    kind's size bound; nothing was saved), :class:`RefusedError`'s reasons,
    "usage" (the rest)."""

    code = "usage"
    exit_code = 2

    def __init__(self, message: str, *, reason: UsageReason = "usage") -> None:
        super().__init__(message)
        self.reason: UsageReason = reason


if TYPE_CHECKING:
    RefusedReason = Literal[
        "active-workspace", "no-cwd", "relative-cwd", "archived-workspace", "session-unstable", "not-pending",
        "pending-limit",
    ]


class RefusedError(UsageError):
    """The command is well formed but the memory's state doesn't allow it now; nothing was written.

    ``reason``: "active-workspace" (purge of a workspace not in the Recycle Bin), "no-cwd" / "relative-cwd"
    (a session without an absolute working directory belongs to no workspace), "archived-workspace" (a
    session of a workspace whose memory is in the Recycle Bin), "session-unstable" (a session still being
    written, or changed while it was read), "not-pending" (the review is already settled), "pending-limit"
    (too many agent proposals wait for review). A UsageError subclass
    so callers that catch usage problems keep catching it; its code and exit code are its own.
    """

    code = "refused"
    exit_code = 3

    def __init__(self, message: str, *, reason: RefusedReason) -> None:
        super().__init__(message, reason=reason)


if TYPE_CHECKING:
    StorageReason = Literal["io", "not-a-folder", "rolled-back", "read-only"]


class AmbiguousSessionError(UsageError):
    """Two or more session folders carry the same session id (fixtures keep ``{{sessionId}}``):
    a session named by id is never picked silently; ``folders`` names them all."""

    code = "ambiguous-session"
    exit_code = 17

    def __init__(self, message: str, folders: tuple[str, ...]) -> None:
        super().__init__(message, reason="ambiguous-session")
        self.folders = folders


class StorageError(DshMemoryError):
    """The file system refused an operation (permissions, disk full...). Memory was left unchanged.

    ``reason``: "not-a-folder" (a symbolic link or a file where the store's folder belongs; it never
    writes through it), "rolled-back" (a commit failed after its commit point and was undone),
    "read-only" (:class:`ReadOnlyRootError`), "io" (any other refusal)."""

    code = "storage"
    exit_code = 9

    def __init__(self, message: str, *, reason: StorageReason = "io") -> None:
        super().__init__(message)
        self.reason: StorageReason = reason


class ReadOnlyRootError(StorageError):
    """The memory root is read-only (a read-only mount, or another user's files): reads work, writes don't."""

    code = "read_only"
    exit_code = 10

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="read-only")


if TYPE_CHECKING:
    EvidenceReason = Literal["evidence-limit", "input-budget"]


class EvidenceTooLargeError(DshMemoryError):
    """``reason``: "evidence-limit" (over the evidence size limit in Settings), "input-budget" (the
    evidence and GLOBAL.md do not fit the model's input budget)."""

    code = "evidence-too-large"
    exit_code = 12

    def __init__(self, message: str, *, reason: EvidenceReason = "evidence-limit") -> None:
        super().__init__(message)
        self.reason: EvidenceReason = reason


if TYPE_CHECKING:
    SessionReadReason = Literal["unreadable", "over-budget", "empty", "no-header", "no-log", "unusable"]


class SessionReadError(DshMemoryError):
    """``reason``: "unreadable" (the OS refused), "over-budget" (over a size or decompression budget),
    "empty", "no-header" (no session header line), "no-log" (no log file in the folder), "unusable"
    (the only log disagrees with its name, or is of a format this app can't read)."""

    code = "session_read"
    exit_code = 11

    def __init__(self, message: str, *, reason: SessionReadReason = "unreadable") -> None:
        super().__init__(message)
        self.reason: SessionReadReason = reason


if TYPE_CHECKING:
    ConsolidationReason = Literal[
        "no-key", "timeout", "refused", "dns", "unreachable", "http", "malformed", "tool-call", "tool-rounds", "failed"
    ]


class ConsolidationError(DshMemoryError):
    """A consolidator failed (network, HTTP error, malformed output). Memory was left unchanged.

    ``reason`` says which, for code that decides from it (never from the message): "no-key" (the
    key's environment variable is not set), "timeout", "refused" (nothing answered at the
    address), "dns" (the host name did not resolve), "unreachable" (another network error), "http"
    (the model answered with an HTTP error), "malformed" (twice no valid proposal), "tool-call" (twice
    a malformed tool call), "tool-rounds" (tools called past the round limit), or "failed" (anything else).
    """

    code = "consolidation_failed"
    exit_code = 13

    def __init__(self, message: str, *, reason: ConsolidationReason = "failed") -> None:
        super().__init__(message)
        self.reason: ConsolidationReason = reason


class CancelledError(DshMemoryError):
    code = "cancelled"
    exit_code = 130


class ProposalMismatchError(DshMemoryError):
    """A pending review's saved proposal does not hash to the proposal hash its receipt recorded
    (edited or damaged on disk). Nothing was written; the review must be run again."""

    code = "proposal_mismatch"
    exit_code = 14


if TYPE_CHECKING:
    UndoRefusal = Literal["nothing", "changed", "history-missing", "not-found"]


class UndoRefusedError(DshMemoryError):
    """An undo of a scope's last commit was refused; nothing was written.

    ``kind`` says why, for code that decides or translates from it (never from the message):
    "nothing" (no commit of this scope is logged), "changed" (the files changed since that commit;
    ``scope`` names it), "history-missing" (the saved version of ``name`` expired from history),
    "not-found" (the workspace is no longer active).
    """

    code = "undo_refused"
    exit_code = 15

    def __init__(self, message: str, *, kind: UndoRefusal, scope: str = "", name: str = "") -> None:
        super().__init__(message)
        self.kind: UndoRefusal = kind
        self.scope = scope
        self.name = name
