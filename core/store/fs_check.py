"""What ``check`` finds on disk beyond invalid records: blocked folders, stray files, interrupted
changes, quarantined files, orphaned history (each with what to do about it)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from core.layout import (
    ARCHIVED_DIR,
    DEBUG_DIR,
    HISTORY_DIR,
    INDEX_FILE,
    QUARANTINE_DIR,
    REVIEWS_DIR,
    SCOPE_FILE,
    STAGING_DIR,
)
from core.layout import MANAGER_DIR as MANAGER
from core.layout import WORKSPACES_DIR as ACTIVE_DIR
from core.models import Problem
from core.store import journal_recovery
from core.store.base import GLOBAL_SCOPE


def fs_problems(root: Path, read_only: bool, keys: Callable[[bool], list[str]]) -> list[Problem]:
    """What the file system shows beyond invalid records: each with what to do about it."""
    problems: list[Problem] = []
    if read_only:
        problems.append(
            Problem(
                path=".",
                reason="the memory root is read-only: it can be read but not edited; make it "
                "writable (or copy it) to edit memory",
                kind="root_read_only",
            )
        )
    for top in (ACTIVE_DIR, ARCHIVED_DIR, MANAGER, REVIEWS_DIR, DEBUG_DIR):
        p = root / top
        if p.is_symlink() or (p.exists() and not p.is_dir()):
            problems.append(
                Problem(
                    path=top,
                    reason="a symbolic link or file where the store's folder belongs; the store never "
                    "writes through it. Replace it with a real folder (move its contents in)",
                    kind="store_folder_blocked",
                )
            )
    for top in (ACTIVE_DIR, ARCHIVED_DIR):
        try:
            with os.scandir(root / top) as it:
                for e in it:
                    if e.is_symlink():
                        problems.append(
                            Problem(
                                path=f"{top}/{e.name}",
                                reason="a symbolic link where a workspace folder belongs; the store never "
                                "reads or writes through it. Move the real folder here or delete the link",
                                kind="workspace_symlink",
                            )
                        )
                    elif not e.is_dir(follow_symlinks=False):
                        problems.append(
                            Problem(
                                path=f"{top}/{e.name}",
                                reason="a file where only workspace folders belong; move it elsewhere",
                                kind="stray_file",
                            )
                        )
                    else:
                        problems += _blocked_problems(root, top, e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
    for name in journal_recovery.pending(root):
        problems.append(
            Problem(
                path=f"{MANAGER}/{STAGING_DIR}/{name}",
                reason="an interrupted change is waiting to be settled; open the memory with write "
                "access (any command that writes) to finish or undo it",
                kind="pending_change",
            )
        )
    for name in journal_recovery.quarantined(root):
        problems.append(
            Problem(
                path=f"{MANAGER}/{QUARANTINE_DIR}/{name}",
                reason="a damaged internal file was moved aside and never acted on; memory was "
                "settled from what is on disk. Look at it (its .why file says why), then delete it",
                kind="quarantined",
            )
        )
    problems += _orphaned_history(root, keys)
    return problems

def _blocked_problems(root: Path, top: str, key: str) -> list[Problem]:
    out: list[Problem] = []
    for fn in (SCOPE_FILE, INDEX_FILE):
        p = root / top / key / fn
        if os.path.lexists(p) and (p.is_symlink() or not p.is_file()):
            out.append(
                Problem(
                    path=f"{top}/{key}/{fn}",
                    reason=f"{fn} is a symbolic link or not a regular file; the store never replaces it. "
                    "Replace it with a regular file (the next commit rebuilds MEMORY.md)",
                    scope_key=key,
                    kind="scope_file_blocked",
                    params=(("file", fn),),
                )
            )
    return out

def _orphaned_history(root: Path, keys: Callable[[bool], list[str]]) -> list[Problem]:
    base = root / MANAGER / HISTORY_DIR
    try:
        with os.scandir(base) as it:
            scopes = [e.name for e in it if e.is_dir(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    known = set(keys(False)) | set(keys(True)) | {GLOBAL_SCOPE}
    return [
        Problem(
            path=f"{MANAGER}/{HISTORY_DIR}/{scope}",
            reason="history of a workspace that no longer exists (purged or deleted by hand); it may "
            "hold old secrets. Delete this folder if you don't need those versions",
            scope_key=scope,
            kind="orphaned_history",
        )
        for scope in sorted(scopes)
        if scope not in known
    ]
