"""Turning errors into words a user understands: what happened and what to do.

Decided from the error's type and fields, never its text; the templates are translated
(context "Messages"). A store error's own ``message`` is English free text and is shown as it is.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from core.errors import (
    ConflictError,
    DshMemoryError,
    InvalidRecordError,
    NotFoundError,
    ReadOnlyRootError,
    SecretRefusedError,
)
from gui.core_text import core_texts


def describe_error(exc: BaseException) -> str:
    """A one-paragraph message: what happened and what to do."""
    if isinstance(exc, ConflictError):
        return QCoreApplication.translate(
            "Messages",
            "Someone else changed this memory since you opened it (an agent, the CLI or an editor). "
            "Nothing was written. Reload to see the current version.",
        )
    if isinstance(exc, InvalidRecordError):
        return QCoreApplication.translate("Messages", "Nothing was written: {reasons}").format(
            reasons="; ".join(core_texts(exc.reasons))
        )
    if isinstance(exc, SecretRefusedError):
        where = "; ".join(exc.findings)
        if where:
            return QCoreApplication.translate(
                "Messages", "Nothing was written: it looks like it contains a credential ({where})."
            ).format(where=where)
        return QCoreApplication.translate("Messages", "Nothing was written: it looks like it contains a credential.")
    if isinstance(exc, ReadOnlyRootError):
        return QCoreApplication.translate(
            "Messages",
            "The memory root is read-only (a read-only mount, or files of another user); nothing was "
            "written. Reading works; to edit, make it writable or copy it.",
        )
    if isinstance(exc, NotFoundError):
        return exc.message or QCoreApplication.translate(
            "Messages", "It no longer exists on disk. Refresh to see the current state."
        )
    if isinstance(exc, DshMemoryError):
        return exc.message
    if isinstance(exc, PermissionError):
        return QCoreApplication.translate(
            "Messages", "Permission denied: {path}. Check the folder's permissions."
        ).format(path=exc.filename or exc)
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
        if exc.filename:
            return QCoreApplication.translate(
                "Messages", "The file system refused the operation on {path}: {reason}. Memory was left unchanged."
            ).format(path=exc.filename, reason=reason)
        return QCoreApplication.translate(
            "Messages", "The file system refused the operation: {reason}. Memory was left unchanged."
        ).format(reason=reason)
    return QCoreApplication.translate("Messages", "Unexpected error: {kind}: {error}").format(
        kind=type(exc).__name__, error=exc
    )
