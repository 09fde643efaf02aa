"""Settling what a crash left: recovery of interrupted transactions (idempotent, from what is on
disk), the quarantine for damaged journals, and purge (itself a journaled operation)."""

from __future__ import annotations

import os
import secrets
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from core.atomic import PRIVATE_DIR_MODE, fsync_dir, read_nofollow, remove_tree_quietly, write_atomic, write_durable
from core.errors import StorageError
from core.layout import (
    ARCHIVE_STAMPS_DIR,
    ARCHIVED_DIR,
    HISTORY_DIR,
    MANAGER_DIR,
    QUARANTINE_DIR,
    STAGING_DIR,
    TRASH_DIR,
)
from core.store.journal import (
    DisplacedError,
    _apply,
    _finish,
    _mark_rollback,
    _undo,
    _unlink_durable,
    _write_journal,
)
from core.store.journal_doc import JOURNAL_NAMES, ROLLBACK_NAMES, JournalDoc, make_doc, staging_dir, tx_name


# --- recovery ---------------------------------------------------------------------------------
def quarantine_dir(root: Path) -> Path:
    return root / MANAGER_DIR / QUARANTINE_DIR


def quarantine(root: Path, path: Path, why: str) -> None:
    """Move ``path`` aside (never delete it), with a note saying why, for ``check`` to report."""
    q = quarantine_dir(root)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    dest = q / f"{stamp}-{secrets.token_hex(3)}-{path.parent.name}-{path.name}"
    try:
        q.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        os.rename(path, dest)
        write_atomic(dest.with_name(dest.name + ".why"), (why + "\n").encode("utf-8"), mode=0o600)
    except (OSError, StorageError) as exc:
        raise StorageError(
            f"Could not move the damaged journal {path} aside ({exc}); move it out of the memory root "
            "by hand."
        ) from exc


def _parse_copy(line: bytes, staging: Path) -> JournalDoc:
    candidate = JournalDoc.model_validate_json(line)
    if candidate.kind == "commit" and tx_name(candidate.scopes) != staging.name:
        raise ValueError("names other scopes than its folder")
    if candidate.kind == "purge" and candidate.scopes[0] != staging.name:
        raise ValueError("names another scope than its folder")
    return candidate


def read_journal(root: Path, staging: Path) -> tuple[JournalDoc | None, bool, bool]:
    """``(doc, rollback, present)``: the first valid copy. A journal with a damaged copy is copied to
    the quarantine (and used through its other copy); one with no valid copy is moved there.

    ``present`` is whether any journal file existed (the commit point was passed).
    """
    names = [(n, False) for n in JOURNAL_NAMES] + [(n, True) for n in ROLLBACK_NAMES]
    doc: JournalDoc | None = None
    rollback = False
    present = False
    for n, is_rollback in names:
        path = staging / n
        if not os.path.lexists(path):
            continue
        present = True
        rollback = rollback or is_rollback
        problems: list[str] = []
        found: JournalDoc | None = None
        raw: bytes | None = None
        try:
            raw = read_nofollow(str(path))
            if raw is None:
                raise ValueError("not a regular file")
            lines = raw.split(b"\n")
            if len(lines) != 2:
                problems.append(f"{len(lines)} copies instead of 2")
            for line in lines[:2]:
                try:
                    found = found or _parse_copy(line, staging)
                    if found is not None and _parse_copy(line, staging) != found:
                        problems.append("its copies disagree")
                except (ValueError, ValidationError) as exc:
                    problems.append(str(exc)[:500])
        except (ValueError, OSError) as exc:
            problems.append(str(exc)[:500])
        if found is None:
            quarantine(root, path, "invalid journal: " + "; ".join(problems))
            continue
        if problems:
            why = "journal with a damaged copy (the other was used): " + "; ".join(problems)
            _quarantine_copy(root, path, raw or b"", why)
        doc = doc or found
    return doc, rollback, present


def _quarantine_copy(root: Path, path: Path, data: bytes, why: str) -> None:
    q = quarantine_dir(root)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    dest = q / f"{stamp}-{secrets.token_hex(3)}-{path.parent.name}-{path.name}"
    try:
        q.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        write_durable(dest, data, mode=0o600)
        write_atomic(dest.with_name(dest.name + ".why"), (why + "\n").encode("utf-8"), mode=0o600)
    except (OSError, StorageError):
        return  # the report is best effort; the valid copy is used either way


def discard_unnamed(root: Path, name: str) -> str | None:
    """A hashed staging folder with no valid scopes file (caller holds the lock named ``name``):
    without a journal it never reached its commit point (dropped); with one it is kept for the user."""
    staging = staging_dir(root, name)
    if not os.path.lexists(staging):
        return None
    present = any(os.path.lexists(staging / n) for n in (*JOURNAL_NAMES, *ROLLBACK_NAMES))
    if present or staging.is_symlink() or not staging.is_dir():
        quarantine(root, staging, "a staging folder whose scopes can't be known")
        return "quarantined"
    remove_tree_quietly(staging)
    return "discarded"


def recover(root: Path, name: str) -> str | None:
    """Settle an interrupted transaction (caller holds the locks of its scopes). Returns what was done."""
    staging = staging_dir(root, name)
    if not os.path.lexists(staging):
        return None
    if staging.is_symlink() or not staging.is_dir():
        quarantine(root, staging, "a staging entry that is not a folder")
        return "quarantined"
    doc, rollback, present = read_journal(root, staging)
    if doc is None:
        if not present:
            remove_tree_quietly(staging)  # never reached its commit point
            return "discarded"
        # Both copies damaged: act on nothing; keep every staged byte for the user.
        quarantine(root, staging, "no valid journal copy; the staged files are kept here untouched")
        return "quarantined"
    try:
        if doc.kind == "purge":
            finish_purge(root, doc)
            _finish(staging)
            return "purged"
        if rollback:
            _undo(root, staging, doc)
        else:
            try:
                _apply(root, staging, doc)
            except DisplacedError:
                _mark_rollback(staging)
                _undo(root, staging, doc)
                rollback = True
    except (OSError, StorageError) as exc:
        raise StorageError(
            f"Could not finish an interrupted change to {name}: {getattr(exc, 'strerror', None) or exc}. "
            "It will be retried."
        ) from exc
    _finish(staging)
    return "rolled back" if rollback else "rolled forward"


def pending(root: Path) -> list[str]:
    """Names of staging folders left behind (with or without a journal)."""
    try:
        with os.scandir(root / MANAGER_DIR / STAGING_DIR) as it:
            return sorted(e.name for e in it if not e.name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []


def quarantined(root: Path) -> list[str]:
    try:
        return sorted(n for n in os.listdir(quarantine_dir(root)) if not n.endswith(".why"))
    except (FileNotFoundError, NotADirectoryError):
        return []


# --- purge ------------------------------------------------------------------------------------
def purge(root: Path, key: str) -> None:
    """Delete ``archived/<key>``, its history and its archive stamp as one journaled operation."""
    staging = staging_dir(root, key)
    if os.path.lexists(staging):
        remove_tree_quietly(staging)
    doc = make_doc("purge", [key], trash=f"{key}-{secrets.token_hex(4)}")
    try:
        staging.mkdir(parents=True, mode=PRIVATE_DIR_MODE)
        _write_journal(staging, doc)
    except (OSError, StorageError) as exc:
        remove_tree_quietly(staging)
        raise StorageError(f"Could not purge {key}: {exc}. Nothing was deleted.") from exc
    src = root / ARCHIVED_DIR / key
    try:
        finish_purge(root, doc)
    except (OSError, StorageError) as exc:
        if os.path.lexists(src):  # nothing moved yet: withdraw the purge
            try:
                for n in JOURNAL_NAMES:
                    _unlink_durable(staging / n)
            except OSError:
                raise StorageError(
                    f"Could not purge {key} ({exc}); it will be finished the next time the memory is opened."
                ) from exc
            remove_tree_quietly(staging)
            raise StorageError(f"Could not purge {key}: {exc}. Nothing was deleted.") from exc
        try:  # the Recycle Bin no longer shows it: finish the clean-up (one retry)
            finish_purge(root, doc)
        except (OSError, StorageError):
            raise StorageError(
                f"Purged {key}, but its history could not be deleted yet ({exc}); that is finished the next "
                "time the memory is opened."
            ) from exc
    _finish(staging)


def finish_purge(root: Path, doc: JournalDoc) -> None:
    """Idempotent: every step checks what is left. Paths come from the validated key, never the journal."""
    key = doc.scopes[0]
    assert doc.trash is not None
    trash = root / MANAGER_DIR / TRASH_DIR / doc.trash
    src = root / ARCHIVED_DIR / key
    if os.path.lexists(src):
        trash.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        os.rename(src, trash)  # a symlinked entry moves as the link itself: nothing outside is touched
        fsync_dir(src.parent)
    for p in (root / MANAGER_DIR / HISTORY_DIR / key, trash, root / MANAGER_DIR / ARCHIVE_STAMPS_DIR / f"{key}.json"):
        if os.path.lexists(p):
            remove_tree_quietly(p)
            if os.path.lexists(p):
                raise StorageError(f"Could not delete {p}; the purge will be finished on the next open.")
