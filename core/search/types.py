"""Value types search hands out: hits, result pages and refresh statistics (all frozen).

They are :class:`~core.frozen.Frozen` rather than dataclasses: a one-shot ``dsh-memory search``
builds them, and ``dataclasses`` costs its start-up ~10 ms (``core/frozen.py`` says why).
"""

from __future__ import annotations

from core.frozen import Frozen

TYPE_CHECKING = False  # (mypy reads this name as True; ``typing`` stays out of a one-shot CLI's start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    HitKind = Literal["record", "global_section"]

GLOBAL_SCOPE = "global"  # the scope key of ``GLOBAL.md`` in ``scopes=[...]`` filters and in hits


class SearchHit(Frozen):
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
        out = {k: v for k, v in self.as_dict().items() if k != "mtime_ns"}
        return {**out, "score": round(self.score, 6), "highlights": [list(span) for span in self.highlights]}


class SearchResults(Frozen):
    """A bounded page of hits. ``total_matches`` counts every matching document before the bounds;
    ``truncated`` is True when the count or byte bound left matches out."""

    _uncompared = frozenset({"elapsed_ms"})
    query: str
    hits: tuple[SearchHit, ...]
    total_matches: int
    truncated: bool
    bytes_used: int
    elapsed_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:  # (the fields in order, the timing left out, the hits last)
        out = {k: v for k, v in self.as_dict().items() if k not in ("hits", "elapsed_ms")}
        return {**out, "hits": [h.to_json() for h in self.hits]}


class RefreshStats(Frozen):
    """What one ``refresh()`` / ``apply()`` did."""

    _uncompared = frozenset({"elapsed_ms"})
    scopes_checked: int = 0  # scopes whose state was compared with the index
    scopes_reread: int = 0  # scopes read again through the store (their files changed)
    docs_reindexed: int = 0  # records / sections tokenized again
    docs_removed: int = 0
    docs_total: int = 0  # documents searchable after the refresh (all scopes, archived included)
    from_cache: int = 0  # scopes taken from the persisted index without reading the store
    read_only: bool = False  # another process held the index's writer: changes are left for later
    started_over: bool = False  # the persisted index could not be used (damaged, foreign, unopenable): rebuilt
    elapsed_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {**self.as_dict(), "elapsed_ms": round(self.elapsed_ms, 3)}


class RecallRecord(Frozen):
    """A record (or Global section) that made it into a recall text."""

    scope_key: str
    name: str
    truncated: bool


class Recall(Frozen):
    """``recall()`` output plus what it contains, for ``--json`` and for tests."""

    text: str
    cwd: str
    query: str
    workspace_key: str | None  # None when ``cwd`` has no active workspace
    records: tuple[RecallRecord, ...]
    global_sections: tuple[str, ...]
    truncated: bool

    def to_json(self) -> dict[str, Any]:  # (the fields in order, the text last with its size before it)
        out = {k: v for k, v in self.as_dict().items() if k != "text"}
        out.update(records=[r.as_dict() for r in self.records], global_sections=list(self.global_sections))
        return {**out, "bytes": len(self.text.encode("utf-8")), "text": self.text}
