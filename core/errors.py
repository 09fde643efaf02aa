"""Typed errors raised by the core. Each carries a stable ``code`` used by the CLI's JSON output.

Messages say what happened and what the user can do about it.
"""

from __future__ import annotations

from typing import Any


class DshMemoryError(Exception):
    """Base class of every error the core raises on purpose."""

    code = "error"

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

    def __init__(self, message: str, current_revision: str, current: Any = None) -> None:
        super().__init__(message)
        self.current_revision = current_revision
        self.current = current

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "current_revision": self.current_revision}


class InvalidRecordError(DshMemoryError):
    """A record (or batch) breaks the on-disk rules. ``reasons`` lists every problem found."""

    code = "invalid"

    def __init__(self, message: str, reasons: tuple[str, ...] | list[str] = ()) -> None:
        reasons = tuple(reasons) or (message,)
        super().__init__(message)
        self.reasons = reasons

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "reasons": list(self.reasons)}


class NotFoundError(DshMemoryError):
    code = "not_found"


class SecretRefusedError(DshMemoryError):
    """A write contained credential-shaped values. ``findings`` describe where (never the value)."""

    code = "secret"

    def __init__(self, message: str, findings: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message)
        self.findings = tuple(findings)

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "findings": list(self.findings)}


class ConfirmationRequiredError(DshMemoryError):
    code = "confirmation_required"


class UsageError(DshMemoryError):
    code = "usage"


class AmbiguousSessionError(UsageError):
    """Two or more session folders carry the same session id (fixtures keep ``{{sessionId}}``):
    a session named by id is never picked silently; ``folders`` names them all."""

    code = "ambiguous-session"

    def __init__(self, message: str, folders: tuple[str, ...]) -> None:
        super().__init__(message)
        self.folders = folders


class StorageError(DshMemoryError):
    """The file system refused an operation (permissions, disk full...). Memory was left unchanged."""

    code = "storage"


class ReadOnlyRootError(StorageError):
    """The memory root is read-only (a read-only mount, or another user's files): reads work, writes don't."""

    code = "read_only"


class EvidenceTooLargeError(DshMemoryError):
    code = "evidence-too-large"


class SessionReadError(DshMemoryError):
    code = "session_read"


class ConsolidationError(DshMemoryError):
    """A consolidator failed (network, HTTP error, malformed output). Memory was left unchanged.

    ``reason`` says which, for code that decides from it (never from the message): "no-key" (the
    key's environment variable is not set), "timeout", "refused" (nothing answered at the
    address), "dns" (the host name did not resolve), "unreachable" (another network error), or
    "failed" (anything else).
    """

    code = "consolidation_failed"

    def __init__(self, message: str, *, reason: str = "failed") -> None:
        super().__init__(message)
        self.reason = reason


class CancelledError(DshMemoryError):
    code = "cancelled"


class ProposalMismatchError(DshMemoryError):
    """A pending review's saved proposal does not hash to the proposal hash its receipt recorded
    (edited or damaged on disk). Nothing was written; the review must be run again."""

    code = "proposal_mismatch"


class UndoRefusedError(DshMemoryError):
    """An undo of a scope's last commit was refused; nothing was written.

    ``kind`` says why, for code that decides or translates from it (never from the message):
    "nothing" (no commit of this scope is logged), "changed" (the files changed since that commit;
    ``scope`` names it), "history-missing" (the saved version of ``name`` expired from history),
    "not-found" (the workspace is no longer active).
    """

    code = "undo_refused"

    def __init__(self, message: str, *, kind: str, scope: str = "", name: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.scope = scope
        self.name = name
