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

    __slots__ = (
        *("scope_key", "cwd", "kind", "name", "type", "description", "score", "snippet", "highlights"),
        *("file_name", "section_index", "archived", "mtime_ns"),
    )
    scope_key: str  # workspace key, or "global"
    cwd: str  # workspace cwd ("" for Global)
    kind: HitKind
    name: str  # record name, or the Global section heading ("" for text before the first heading)
    type: str  # feedback | project | reference, or "global"
    description: str  # record description ("" for Global sections)
    score: float
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    file_name: str  # "<name>.md", or "GLOBAL.md"
    section_index: int  # position of a Global section in GLOBAL.md (0-based), -1 for records
    archived: bool
    mtime_ns: int

    def __init__(
        self,
        scope_key: str,
        cwd: str,
        kind: HitKind,
        name: str,
        type: str,
        description: str,
        score: float,
        snippet: str,
        highlights: tuple[tuple[int, int], ...],
        file_name: str = "",
        section_index: int = -1,
        archived: bool = False,
        mtime_ns: int = 0,
    ) -> None:
        self._init(locals())

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

    __slots__ = ("query", "hits", "total_matches", "truncated", "bytes_used", "elapsed_ms")  # noqa: RUF023
    _uncompared = frozenset({"elapsed_ms"})
    query: str
    hits: tuple[SearchHit, ...]
    total_matches: int
    truncated: bool
    bytes_used: int
    elapsed_ms: float

    def __init__(
        self,
        query: str,
        hits: tuple[SearchHit, ...],
        total_matches: int,
        truncated: bool,
        bytes_used: int,
        elapsed_ms: float = 0.0,
    ) -> None:
        self._init(locals())

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "total_matches": self.total_matches,
            "truncated": self.truncated,
            "bytes_used": self.bytes_used,
            "hits": [h.to_json() for h in self.hits],
        }


class RefreshStats(Frozen):
    """What one ``refresh()`` / ``apply()`` did."""

    __slots__ = (
        *("scopes_checked", "scopes_reread", "docs_reindexed", "docs_removed", "docs_total", "from_cache"),
        *("read_only", "started_over", "elapsed_ms"),
    )
    _uncompared = frozenset({"elapsed_ms"})
    scopes_checked: int  # scopes whose state was compared with the index
    scopes_reread: int  # scopes read again through the store (their files changed)
    docs_reindexed: int  # records / sections tokenized again
    docs_removed: int
    docs_total: int  # documents searchable after the refresh (all scopes, archived included)
    from_cache: int  # scopes taken from the persisted index without reading the store
    read_only: bool  # another process held the index's writer: changes are left for later
    started_over: bool  # the persisted index could not be used (damaged, foreign, unopenable): rebuilt
    elapsed_ms: float

    def __init__(
        self,
        scopes_checked: int = 0,
        scopes_reread: int = 0,
        docs_reindexed: int = 0,
        docs_removed: int = 0,
        docs_total: int = 0,
        from_cache: int = 0,
        read_only: bool = False,
        started_over: bool = False,
        elapsed_ms: float = 0.0,
    ) -> None:
        self._init(locals())

    def to_json(self) -> dict[str, Any]:
        return {**self.as_dict(), "elapsed_ms": round(self.elapsed_ms, 3)}


class RecallRecord(Frozen):
    """A record (or Global section) that made it into a recall text."""

    __slots__ = ("scope_key", "name", "truncated")  # noqa: RUF023
    scope_key: str
    name: str
    truncated: bool

    def __init__(self, scope_key: str, name: str, truncated: bool) -> None:
        self._init(locals())


class Recall(Frozen):
    """``recall()`` output plus what it contains, for ``--json`` and for tests."""

    __slots__ = ("text", "cwd", "query", "workspace_key", "records", "global_sections", "truncated")  # noqa: RUF023
    text: str
    cwd: str
    query: str
    workspace_key: str | None  # None when ``cwd`` has no active workspace
    records: tuple[RecallRecord, ...]
    global_sections: tuple[str, ...]
    truncated: bool

    def __init__(
        self,
        text: str,
        cwd: str,
        query: str,
        workspace_key: str | None,
        records: tuple[RecallRecord, ...],
        global_sections: tuple[str, ...],
        truncated: bool,
    ) -> None:
        self._init(locals())

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
