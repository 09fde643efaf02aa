"""Per-record usage folded from the ledger's session entries and the MCP server's log."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.layout import INDEX_FILE
from core.usage.types import USED_KINDS, RecordUsage, Use

MAX_RECENT = 10  # the last uses kept per record (the tooltip shows them)


@dataclass
class _Acc:
    counts: dict[str, int] = field(default_factory=dict)
    sessions: dict[str, set[str]] = field(default_factory=dict)
    followed: int = 0
    last_used: int | None = None
    last_seen: int | None = None
    recent: list[Use] = field(default_factory=list)

    def add(self, use: Use, who: str, count: int = 1) -> None:
        self.counts[use.kind] = self.counts.get(use.kind, 0) + count
        self.sessions.setdefault(use.kind, set()).add(who)
        stamp = use.time
        if stamp is not None:
            if self.last_seen is None or stamp > self.last_seen:
                self.last_seen = stamp
            if use.kind in USED_KINDS and (self.last_used is None or stamp > self.last_used):
                self.last_used = stamp
        self.recent.append(use)
        if len(self.recent) > MAX_RECENT * 4:  # keep memory bounded while folding
            self._trim()

    def _trim(self) -> None:
        self.recent.sort(key=lambda u: (u.time or 0, u.seq), reverse=True)
        del self.recent[MAX_RECENT:]


@dataclass(frozen=True)
class UsageView:
    """What the window, the CLI and the stale-memory queue read. ``available`` is False before the
    ledger was ever built (then nothing can be said about use, and rules that need it stay quiet)."""

    records: Mapping[tuple[str, str], RecordUsage] = field(default_factory=dict)
    loads: Mapping[str, int] = field(default_factory=dict)  # workspace key -> sessions that loaded its index
    sessions: int = 0
    available: bool = False
    updated: int | None = None  # epoch ms of the last update

    def get(self, key: str, name: str) -> RecordUsage | None:
        return self.records.get((key, name))

    def workspace(self, key: str) -> dict[str, RecordUsage]:
        return {name: usage for (k, name), usage in self.records.items() if k == key}


def _uses(entry: Mapping[str, Any]) -> Iterable[tuple[Use, int]]:
    """(use, how many times) of one session entry: [key, name, kind, tool, first seq, last time, count]."""
    session = str(entry.get("id") or "")
    for raw in entry.get("uses") or ():
        if not isinstance(raw, list) or len(raw) != 7:
            continue
        key, name, kind, tool, seq, stamp, count = raw
        if not (isinstance(key, str) and isinstance(name, str) and isinstance(kind, str) and isinstance(seq, int)):
            continue
        count = count if isinstance(count, int) and count > 0 else 1
        yield Use(key, name, kind, str(tool), stamp if isinstance(stamp, int) else None, session, seq), count  # type: ignore[arg-type]


def fold(
    sessions: Mapping[str, Any], served: Iterable[Mapping[str, Any]], *, available: bool, updated: Any = None
) -> UsageView:
    acc: dict[tuple[str, str], _Acc] = {}
    loads: dict[str, int] = {}
    counted = 0
    for folder, entry in sessions.items():
        if not isinstance(entry, Mapping):
            continue
        counted += 1
        loaded_at: dict[str, int] = {}  # workspace -> first seq its index was loaded
        followed: set[tuple[str, str]] = set()
        uses = list(_uses(entry))
        for use, count in uses:
            acc.setdefault((use.key, use.name), _Acc()).add(use, folder, count)
            if use.kind == "loaded" and use.name == INDEX_FILE:
                loaded_at.setdefault(use.key, use.seq)
        for use, _ in uses:
            if use.kind == "opened" and use.key in loaded_at and use.seq > loaded_at[use.key]:
                followed.add((use.key, use.name))
        for key in loaded_at:
            loads[key] = loads.get(key, 0) + 1
        for pair in followed:
            acc[pair].followed += 1
    for item in served:
        names = item.get("n") or []
        stamp = item.get("t")
        client = str(item.get("c") or "unknown")
        for name in names:
            use = Use(str(item.get("k")), str(name), "served", str(item.get("tool") or ""),
                      stamp if isinstance(stamp, int) else None, client=client)  # fmt: skip
            acc.setdefault((use.key, use.name), _Acc()).add(use, client)
    records: dict[tuple[str, str], RecordUsage] = {}
    for (key, name), a in acc.items():
        a._trim()
        records[(key, name)] = RecordUsage(
            key=key,
            name=name,
            counts=dict(a.counts),
            sessions={kind: len(who) for kind, who in a.sessions.items()},
            followed=a.followed,
            last_used=a.last_used,
            last_seen=a.last_seen,
            recent=tuple(a.recent),
        )
    return UsageView(
        records=records,
        loads=loads,
        sessions=counted,
        available=available,
        updated=updated if isinstance(updated, int) else None,
    )
