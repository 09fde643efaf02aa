"""Search over other stores' entries (the "include other stores" option; off by default in the GUI).

The same engine and ranking contract as our own search (``core.search.engine``: words, compounds,
CJK bigrams), so ``打包为什么慢`` finds ``打包用 electron-builder`` in a foreign store too. The
corpus is small (a few thousand entries at most), so it is indexed in memory per search.
Superseded, conflicting and deleted entries are found too and keep their status: a result list
shows them labelled, it never hides them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import tantivy

from core.search.documents import Doc
from core.search.engine import QueryBuilder, build_schema, make_document, register_analyzers
from core.search.tokenizer import parse_query
from core.sources.models import ForeignEntry

LIVE_BONUS = 0.5  # (below any rank group's step: only orders entries that rank alike)


@dataclass(frozen=True)
class ForeignHit:
    entry: ForeignEntry
    score: float

    def __repr__(self) -> str:
        return f"ForeignHit(source={self.entry.source!r}, id={self.entry.id!r}, score={self.score:.1f})"


def search_entries(entries: Iterable[ForeignEntry], query: str, *, limit: int = 20) -> list[ForeignHit]:
    """Entries matching ``query``, best first (docs/search.md); a live entry before a superseded,
    conflicting or deleted one that ranks alike."""
    listed = list(entries)
    ranked = rank_texts(
        [(e.title, e.description, f"{e.text}\n{' '.join(e.tags)}") for e in listed], query, max(limit, 0) * 2 + 20
    )
    hits = [ForeignHit(listed[i], score + (LIVE_BONUS if listed[i].is_live else 0.0)) for i, score in ranked]
    hits.sort(key=lambda h: (-h.score, h.entry.source, h.entry.scope, h.entry.id))
    return hits[:limit]


def rank_texts(items: Sequence[tuple[str, str, str]], query: str, limit: int) -> list[tuple[int, float]]:
    """(position in ``items``, score) of the (title, description, text) items matching ``query``,
    best first, at most ``limit``."""
    pq = parse_query(query)
    if pq.empty or not items or limit <= 0:
        return []
    schema = build_schema()
    index = tantivy.Index(schema)
    register_analyzers(index)
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    for i, (title, description, text) in enumerate(items):
        doc = Doc("x", "", False, "record", title, description, "", text, "", i, 0)
        writer.add_document(make_document(doc, doc_id=str(i), sid="x", revision=""))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    plan = QueryBuilder(schema, searcher).ranked(pq, searcher.num_docs, None)
    if plan is None:
        return []
    hits = searcher.search(plan[0], limit=limit, count=False).hits
    return [(int(searcher.doc(addr).get_first("id") or 0), float(score)) for score, addr in hits]
