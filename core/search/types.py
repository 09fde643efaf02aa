"""Value types search hands out: hits, result pages and refresh statistics (all frozen)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

GLOBAL_SCOPE = "global"  # the scope key of ``GLOBAL.md`` in ``scopes=[...]`` filters and in hits

HitKind = Literal["record", "global_section"]


@dataclass(frozen=True)
class SearchHit:
    """One matching workspace record or Global section.

    ``highlights`` are ``(start, end)`` character offsets into ``snippet`` (end exclusive,
    sorted, non-overlapping). ``score`` is for display only; the order of ``SearchResults.hits``
    is the ranking (phrase > name/description/type > coverage/BM25 > recency > key, name).
    """

    scope_key: str  # workspace key, or "global"
    cwd: str  # workspace cwd ("" for Global)
    kind: HitKind
    name: str  # record name, or the Global section heading ("" for text before the first heading)
    type: str  # feedback | project | reference, or "global"
    description: str  # record description ("" for Global sections)
    score: float
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    file_name: str = ""  # "<name>.md", or "GLOBAL.md"
    section_index: int = -1  # position of a Global section in GLOBAL.md (0-based), -1 for records
    archived: bool = False
    mtime_ns: int = 0

    @property
    def byte_size(self) -> int:
        """UTF-8 bytes this hit counts against ``max_bytes``: its key, cwd, name, description, snippet."""
        return sum(
            len(s.encode("utf-8")) for s in (self.scope_key, self.cwd, self.name, self.description, self.snippet)
        )

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k != "mtime_ns"}
        return {**out, "score": round(self.score, 6), "highlights": [list(span) for span in self.highlights]}


@dataclass(frozen=True)
class SearchResults:
    """A bounded page of hits. ``total_matches`` counts every matching document before the bounds;
    ``truncated`` is True when the count or byte bound left matches out."""

    query: str
    hits: tuple[SearchHit, ...]
    total_matches: int
    truncated: bool
    bytes_used: int
    elapsed_ms: float = field(default=0.0, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "total_matches": self.total_matches,
            "truncated": self.truncated,
            "bytes_used": self.bytes_used,
            "hits": [h.to_json() for h in self.hits],
        }


@dataclass(frozen=True)
class RefreshStats:
    """What one ``refresh()`` / ``apply()`` did."""

    scopes_checked: int = 0  # scopes whose state was compared with the index
    scopes_reread: int = 0  # scopes read again through the store (their files changed)
    docs_reindexed: int = 0  # records / sections tokenized again
    docs_removed: int = 0
    docs_total: int = 0  # documents searchable after the refresh (all scopes, archived included)
    from_cache: int = 0  # scopes taken from the persisted index without reading the store
    read_only: bool = False  # another process held the index's writer: changes are left for later
    started_over: bool = False  # the persisted index could not be used (damaged, foreign, unopenable): rebuilt
    elapsed_ms: float = field(default=0.0, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "elapsed_ms": round(self.elapsed_ms, 3)}


@dataclass(frozen=True)
class RecallRecord:
    """A record (or Global section) that made it into a recall text."""

    scope_key: str
    name: str
    truncated: bool


@dataclass(frozen=True)
class Recall:
    """``recall()`` output plus what it contains, for ``--json`` and for tests."""

    text: str
    cwd: str
    query: str
    workspace_key: str | None  # None when ``cwd`` has no active workspace
    records: tuple[RecallRecord, ...]
    global_sections: tuple[str, ...]
    truncated: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "cwd": self.cwd,
            "query": self.query,
            "workspace_key": self.workspace_key,
            "records": [{"scope_key": r.scope_key, "name": r.name, "truncated": r.truncated} for r in self.records],
            "global_sections": list(self.global_sections),
            "truncated": self.truncated,
            "bytes": len(self.text.encode("utf-8")),
            "text": self.text,
        }
