"""Search over other stores' entries (the "include other stores" option; off by default in the GUI).

Same tokenizer as our own search (ASCII words + CJK bigrams, ``core.search.tokenizer``), so
``打包为什么慢`` finds ``打包用 electron-builder`` in a foreign store too. The corpus is small (a
few thousand entries at most), so this scores in one pass instead of keeping an index.
Superseded, conflicting and deleted entries are found too and keep their status: a result list
shows them labelled, it never hides them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.search.tokenizer import normalize, query_terms, tokenize
from core.sources.models import ForeignEntry


@dataclass(frozen=True)
class ForeignHit:
    entry: ForeignEntry
    score: float

    def __repr__(self) -> str:
        return f"ForeignHit(source={self.entry.source!r}, id={self.entry.id!r}, score={self.score:.1f})"


def search_entries(entries: Iterable[ForeignEntry], query: str, *, limit: int = 20) -> list[ForeignHit]:
    """Entries matching ``query``, best first: exact phrase, then terms in the title, then in the text."""
    terms = set(query_terms(query))
    phrase = normalize(query).strip()
    if not terms and not phrase:
        return []
    hits: list[ForeignHit] = []
    for e in entries:
        title = set(tokenize(e.title))
        body = set(tokenize(f"{e.description}\n{e.text}\n{' '.join(e.tags)}"))
        matched = terms & (title | body)
        exact = bool(phrase) and phrase in normalize(f"{e.title}\n{e.text}")
        if not matched and not exact:
            continue
        score = 10.0 * exact + 2.0 * len(terms & title) + len(matched) + (0.5 if e.is_live else 0.0)
        hits.append(ForeignHit(e, score))
    hits.sort(key=lambda h: (-h.score, h.entry.source, h.entry.scope, h.entry.id))
    return hits[:limit]
