"""Lexical search and recall over Global sections and workspace records (PRODUCT.md §5), no server.

Public API (what the GUI and CLI use)::

    from core.search import SearchIndex, GLOBAL_SCOPE

    index = SearchIndex(store)                   # any core.store.api.MemoryStore; builds nothing yet
    stats = index.refresh()                      # -> RefreshStats; re-reads only scopes whose folder changed
    stats = index.refresh(keys=["proj-…"])       # only these workspace keys (and "global"), every file
    stats = index.refresh(deep=True, progress=cb)  # compare every file's stat; cb(done, total) per scope
    stats = index.apply(snapshot)                # after a commit: index the WorkspaceSnapshot /
                                                 # GlobalSnapshot the store returned, no disk reads
    res = index.search("打包 electron", scopes=None | ["<workspace key>", "global"], limit=20,
                       max_bytes=16384, include_archived=False)      # -> SearchResults
    for hit in res.hits:                         # SearchHit: scope_key, cwd, kind, name, type, description,
        hit.snippet, hit.highlights              # score, snippet, highlights ((start, end) into snippet)
    text = index.recall(cwd, query, limit=8, max_bytes=12000)        # -> str, deterministic
    rec = index.build_recall(cwd, query, ...)    # -> Recall (text + what it contains)
    index.save_cache()                           # persist the index under <root>/.manager/cache/ now
    index.warm_up()                              # optional, in the worker after refresh(): build the
                                                 # tables the first phrase query would build (~0.1 ms/doc)

Persisted index: ``SearchIndex(store)`` (``cache_dir=True``) keeps one SQLite row per scope in
``<root>/.manager/cache/search-index-v5.sqlite`` (see ``core.search.cache``). The first refresh
loads the rows and trusts each scope while its folder keeps the (mtime, inode) stamp recorded with it
(a file rewritten in place needs ``refresh(keys=...)`` or ``deep=True``); every refresh writes the rows
of the scopes it changed, never the whole cache; ``save_cache()`` writes what ``apply()`` changed.
A damaged row or file is ignored and replaced. ``cache_dir=False`` disables it. A refresh that
finds many scopes without a row shares building them with helper processes
(``core.search.cold_build``). Loaded scopes build
almost no Python objects: posting lists are materialized when a query first needs them, and queries
read BM25 weights from the postings arrays. ``warm_up()`` builds (or reads from the rows) the phrase
seam tables.

Threading: ``refresh``/``apply`` build a new immutable index state and swap it in with one
attribute assignment; ``search``/``recall`` read that attribute once and never see a half-built
state. Refreshes are serialized by a lock, so one worker thread may refresh while the GUI
thread searches. ``search`` before any ``refresh`` returns no hits.

Ranking (lexicographic): the query is a record name / section heading > it occurs as an exact
phrase > as a separator-insensitive substring (``electron builder`` ~ ``Electron-Builder``) >
points for query terms in name (4) / description (2) / type (1) > number of query terms matched,
then BM25 > recency (file mtime) > scope key, name. Matching is OR over terms; a "quoted phrase"
is required. The last word also matches as a prefix (search as you type) at half weight.
"""

from __future__ import annotations

from core.search.index import SearchIndex
from core.search.tokenizer import normalize, query_terms, tokenize
from core.search.types import (
    GLOBAL_SCOPE,
    Recall,
    RecallRecord,
    RefreshStats,
    SearchHit,
    SearchResults,
)

__all__ = [
    "GLOBAL_SCOPE",
    "Recall",
    "RecallRecord",
    "RefreshStats",
    "SearchHit",
    "SearchIndex",
    "SearchResults",
    "normalize",
    "query_terms",
    "tokenize",
]
