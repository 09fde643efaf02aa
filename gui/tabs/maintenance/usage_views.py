"""The usage ledger in the Maintenance tab (issue 30): the review queue's "Agent use" column and
its two usage views' sort order, the ledger update before a scan, and the load meter's "followed
by a read" figures."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from core.errors import CancelledError, DshMemoryError
from core.staleness import StaleItem
from core.store.api import MemoryStore
from core.usage import UsageLedger

# Review-queue view -> the column it opens sorted by (descending): never used the longest first
# (Details sorts by days), used most first (Agent use sorts by uses).
USAGE_SORT = {"never-used": 4, "used-unchanged": 3}
_INDEX_LINE = re.compile(r"^- \[([a-z0-9-]+)\]\(")


def update_usage(store: MemoryStore, sessions_root: Path, cancelled: Callable[[], bool]) -> None:
    """On the worker: count new sessions into the ledger; a failure leaves the last ledger in use."""
    try:
        UsageLedger(store, sessions_root).update(cancelled=cancelled)
    except CancelledError:
        raise
    except DshMemoryError:
        pass  # (a read-only root, a held lock: the queue still works on the last ledger, or without)


def use_cell(item: StaleItem, available: bool) -> str:
    if not available:
        return ""
    if item.uses == 0:
        return QCoreApplication.translate("MaintenanceUsage", "never")
    if item.last_used_days is None:
        return QCoreApplication.translate("MaintenanceUsage", "%n use(s)", None, item.uses)
    days = max(0, item.last_used_days)
    when = (
        QCoreApplication.translate("MaintenanceUsage", "today")
        if days == 0
        else QCoreApplication.translate("MaintenanceUsage", "%n day(s) ago", None, days)
    )
    return QCoreApplication.translate("MaintenanceUsage", "%n use(s), last {when}", None, item.uses).format(when=when)


def use_rank(item: StaleItem) -> tuple[int, int]:
    return (item.uses, -(item.last_used_days if item.last_used_days is not None else 1_000_000))


@dataclass(frozen=True)
class LoadFollow:
    """Of one workspace's start-up load: in how many sessions the index was loaded, and how many of
    its bytes (index lines) belong to records an agent then opened in the same session."""

    sessions: int
    followed_bytes: int
    index_bytes: int
    followed_records: int


def load_follows(store: MemoryStore) -> dict[str, LoadFollow]:
    """On the worker: workspace key -> LoadFollow, from the ledger on disk (no update)."""
    from core.usage import load_view

    view = load_view(store)
    out: dict[str, LoadFollow] = {}
    if not view.available:
        return out
    for key, sessions in view.loads.items():
        try:
            index = store.read_workspace(key).index_text
        except DshMemoryError:
            continue
        followed = total = records = 0
        for line in index.splitlines(keepends=True):
            size = len(line.encode("utf-8"))
            total += size
            match = _INDEX_LINE.match(line)
            usage = view.get(key, match.group(1)) if match else None
            if usage is not None and usage.followed:
                followed += size
                records += 1
        out[key] = LoadFollow(sessions, followed, total, records)
    return out


def follow_cell(follow: LoadFollow | None) -> str:
    if follow is None or not follow.index_bytes:
        return ""
    share = round(100 * follow.followed_bytes / follow.index_bytes)
    return QCoreApplication.translate("MaintenanceUsage", "{share} % (%n session(s))", None, follow.sessions).format(
        share=share
    )


def follow_tip(follow: LoadFollow | None) -> str:
    if follow is None:
        return QCoreApplication.translate(
            "MaintenanceUsage", "No session in the usage ledger shows this workspace's index being loaded."
        )
    return QCoreApplication.translate(
        "MaintenanceUsage",
        "The index was loaded in %n session(s). {records} of its records were then opened in the same session: "
        "{followed} of its {total} bytes led to a read. The rest was loaded and not followed up.",
        None,
        follow.sessions,
    ).format(records=follow.followed_records, followed=follow.followed_bytes, total=follow.index_bytes)
