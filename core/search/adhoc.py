"""Rank a handful of texts that are not in the store (other stores' entries) by the same engine and
contract as memory search: a throwaway in-memory tantivy index per call (a few thousand entries
index in milliseconds)."""

from __future__ import annotations

from collections.abc import Sequence

import tantivy

from core.search.engine import QueryBuilder, build_schema, make_document, register_analyzers
from core.search.tokenizer import parse_query


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
        writer.add_document(make_document(
            doc_id=str(i), sid="x", key="x", cwd="", archived=False, kind="record", name=title,
            description=description, type_="", body=text, file_name="", section=i, mtime_ns=0, revision="",
        ))  # fmt: skip
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    query_ = QueryBuilder(schema).ranked(pq, searcher.num_docs, None)
    if query_ is None:
        return []
    hits = searcher.search(query_, limit=limit, count=False).hits
    return [(int(searcher.doc(addr).get_first("id") or 0), float(score)) for score, addr in hits]
