"""What ``check`` found, in the interface language: by the problem's kind and fields, never its text.

A kind this module does not know yet falls back to the store's English sentence (``reason``).
Nested free-text details (why a record file is invalid) come from the parser as English and are
quoted as they are.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication

from core.models import Problem

# kind -> template; placeholders are the problem's params (``detail``, ``file``).
_TEMPLATES: dict[str, Callable[[], str]] = {
    "global_invalid": lambda: QCoreApplication.translate(
        "Problems", "GLOBAL.md can't be used: {detail}. Fix it in a text editor; the window leaves it as it is"
    ),
    "scope_file": lambda: QCoreApplication.translate("Problems", "the workspace's scope.json is damaged: {detail}"),
    "invalid_record": lambda: QCoreApplication.translate(
        "Problems", "not a valid record: {detail}. Fix it in a text editor; the store never changes it"
    ),
    "index_missing": lambda: QCoreApplication.translate(
        "Problems", "{file} is missing; the next commit to this workspace rebuilds it"
    ),
    "index_stale": lambda: QCoreApplication.translate(
        "Problems", "{file} is out of date with the records; the next commit to this workspace rebuilds it"
    ),
    "archived_key_clash": lambda: QCoreApplication.translate(
        "Problems", "an active workspace has the same key; restoring this one needs that one archived or purged first"
    ),
    "root_read_only": lambda: QCoreApplication.translate(
        "Problems",
        "the memory root is read-only: it can be read but not edited; make it writable (or copy it) to edit memory",
    ),
    "store_folder_blocked": lambda: QCoreApplication.translate(
        "Problems",
        "a symbolic link or file where the store's folder belongs; the store never writes through it. "
        "Replace it with a real folder (move its contents in)",
    ),
    "workspace_symlink": lambda: QCoreApplication.translate(
        "Problems",
        "a symbolic link where a workspace folder belongs; the store never reads or writes through it. "
        "Move the real folder here or delete the link",
    ),
    "stray_file": lambda: QCoreApplication.translate(
        "Problems", "a file where only workspace folders belong; move it elsewhere"
    ),
    "pending_change": lambda: QCoreApplication.translate(
        "Problems",
        "an interrupted change is waiting to be settled; open the memory with write access "
        "(any command that writes) to finish or undo it",
    ),
    "quarantined": lambda: QCoreApplication.translate(
        "Problems",
        "a damaged internal file was moved aside and never acted on; memory was settled from what is on "
        "disk. Look at it (its .why file says why), then delete it",
    ),
    "scope_file_blocked": lambda: QCoreApplication.translate(
        "Problems",
        "{file} is a symbolic link or not a regular file; the store never replaces it. Replace it with a "
        "regular file (the next commit rebuilds MEMORY.md)",
    ),
    "orphaned_history": lambda: QCoreApplication.translate(
        "Problems",
        "history of a workspace that no longer exists (purged or deleted by hand); it may hold old secrets. "
        "Delete this folder if you don't need those versions",
    ),
}


def describe_problem(problem: Problem) -> str:
    """One problem's sentence (what is wrong and what to do), translated when its kind is known."""
    template = _TEMPLATES.get(problem.kind)
    if template is None:
        return problem.reason
    params = dict(problem.params)
    try:
        return template().format(**params)
    except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder
        return problem.reason
