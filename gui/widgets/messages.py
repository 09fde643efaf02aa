"""Turning errors into words a user understands: what happened and what to do."""

from __future__ import annotations

from core.errors import (
    ConflictError,
    DshMemoryError,
    InvalidRecordError,
    NotFoundError,
    SecretRefusedError,
)


def describe_error(exc: BaseException) -> str:
    """A one-paragraph message: what happened and what to do."""
    if isinstance(exc, ConflictError):
        return (
            "Someone else changed this memory since you opened it (an agent, the CLI or an editor). "
            "Nothing was written. Reload to see the current version."
        )
    if isinstance(exc, InvalidRecordError):
        return "Nothing was written: " + "; ".join(exc.reasons)
    if isinstance(exc, SecretRefusedError):
        where = "; ".join(exc.findings)
        return "Nothing was written: it looks like it contains a credential" + (f" ({where})" if where else "") + "."
    if isinstance(exc, NotFoundError):
        return exc.message or "It no longer exists on disk. Refresh to see the current state."
    if isinstance(exc, DshMemoryError):
        return exc.message
    if isinstance(exc, PermissionError):
        return f"Permission denied: {exc.filename or exc}. Check the folder's permissions."
    if isinstance(exc, OSError):
        return f"The file system refused the operation: {exc.strerror or exc}. Memory was left unchanged."
    return f"Unexpected error: {type(exc).__name__}: {exc}"
