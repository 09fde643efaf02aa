"""Lexical search and recall over Global sections and workspace records (PRODUCT.md §5), on tantivy.

Public API (what the GUI, CLI, MCP server and consolidation use)::

    index = SearchIndex(store)                   # any MemoryStore; opens nothing yet
    stats = index.refresh()                      # -> RefreshStats; re-reads only scopes that changed
    stats = index.refresh(keys=["proj-…", "global"], deep=True, progress=cb)  # cb(done, total)
    stats = index.apply(snapshot)                # after a commit / Global save: no disk reads
    res = index.search("打包 electron", scopes=None | [key, "global"], limit=20, max_bytes=16384,
                       include_archived=False)  # -> SearchResults of SearchHit (snippet, highlights)
    text = index.recall(cwd, query, limit=8, max_bytes=12000)   # -> str, deterministic
    rec = index.build_recall(cwd, query)         # -> Recall (text + what it contains)
    index.note_changed(keys)                     # a watcher saw these workspaces change
    index.doc_count, index.read_only, index.scope_revisions()

The index lives in the store's cache folder (``core.search.persist``), shared by every process on
the root; ranking and matching: ``docs/search.md``. ``search`` before any refresh finds nothing.
"""

from __future__ import annotations

from core.search.index import SearchIndex
from core.search.types import GLOBAL_SCOPE, Recall, RecallRecord, RefreshStats, SearchHit, SearchResults

__all__ = ["GLOBAL_SCOPE", "Recall", "RecallRecord", "RefreshStats", "SearchHit", "SearchIndex", "SearchResults"]
