"""Writing to the index: one writer session per refresh/apply, taken only when something must
change; a scope's documents brought to exactly what the store holds, touching only those whose
signature (revision, mtime, cwd) changed. The diff is against the index's own stored documents, so
a crash between a commit and the scopes file costs a second look, never a wrong answer.
"""

from __future__ import annotations

from typing import Any

import tantivy

from core.search.documents import Doc
from core.search.engine import make_document, stored_doc
from core.search.persist import IndexDir

MERGE_WAIT_SEGMENTS = 64  # a commit past this many segments waits for the merges it starts
CHECKPOINT_DOCS = 25_000  # a cold build commits every so many documents (searchable meanwhile)
Scopes = dict[str, list[Any]]  # sid -> [stamp mtime, stamp inode, fingerprint, revision]


class Session:
    """The writer, taken when the first change needs it, committed (and released) by ``finish``."""

    def __init__(self, index_dir: IndexDir, scopes: Scopes, big: bool = False, rows: bool = True) -> None:
        self.dir, self.scopes, self.big = index_dir, scopes, big
        self.rows = rows  # write the scopes file after a commit (an apply()'s rows hold no stamps: not worth it)
        self.writer: tantivy.IndexWriter | None = None
        self.refused = False  # another process holds the writer
        self.reindexed = self.removed = self.committed = 0
        self.dirty = False  # scope rows confirmed or changed: written even without a commit
        self.seen: tantivy.Searcher | None = None  # the last commit (a searcher costs ~1 ms: one per commit)
        self.sids: set[str] = set()

    def take(self) -> tantivy.IndexWriter | None:
        if self.writer is None and not self.refused:
            self.writer = self.dir.writer(self.big)
            self.refused = self.writer is None
            if self.writer is not None:
                self.dir.index.reload()  # (what another writer committed before this one)
                self.seen = None
        return self.writer

    def sync(self, sid: str, docs: dict[str, tuple[str, Doc]]) -> bool:
        """Make scope ``sid``'s documents exactly ``docs`` (id -> (signature, document)). False
        when that needs the writer and another process holds it."""
        fresh = self.writer is None
        indexed = self._indexed(sid)
        old = {i: indexed.pop(i, None) for i in docs}
        changed = [(i, old[i] is not None) for i, (sig, _) in docs.items() if old[i] != sig]
        if not changed and not indexed:
            self.dirty = True  # (the caller records the scope's row: worth writing)
            return True
        if (writer := self.take()) is None:
            return False
        if fresh:  # (diffed before this process held the writer: another may have committed since)
            return self.sync(sid, docs)
        gone = [i for i, replaced in changed if replaced] + list(indexed)
        for doc_id in gone:  # (a delete covers what was added before it: the new versions come after)
            writer.delete_documents_by_term("id", doc_id)
        for doc_id, _ in changed:
            writer.add_document(make_document(docs[doc_id][1], doc_id=doc_id, sid=sid, revision=docs[doc_id][0]))
        self.removed, self.reindexed = self.removed + len(gone), self.reindexed + len(changed)
        if self.reindexed - self.committed >= CHECKPOINT_DOCS:
            writer.commit()
            self._published()
            self.committed = self.reindexed
        return True

    def drop(self, sid: str) -> bool:
        if (writer := self.take()) is None:
            return False
        self.removed += self.dir.index.searcher().doc_freq("sid", sid)
        writer.delete_documents_by_term("sid", sid)
        self.scopes.pop(sid, None)
        return True

    def _indexed(self, sid: str) -> dict[str, str]:
        """id -> signature of the scope's documents as last committed."""
        if self.seen is None:  # (a build: the scopes it holds from one walk, where doc_freq takes ~1 ms a scope)
            self.seen = self.dir.index.searcher()
            self.sids = {t for t, n in self.seen.terms_with_prefix("sid", "") if n} if self.big else set()
        if self.big and sid not in self.sids:
            return {}
        return {d.get_first("id") or "": stored_doc(d)[1] for d in stored(self.dir, self.seen, sid)}

    def _published(self) -> None:
        self.dir.secure()
        if self.rows:  # (else the next refresh here, or another process, confirms them: a second look)
            self.dir.write_scopes(self.scopes)
        self.dir.index.reload()
        self.seen = None

    def finish(self) -> None:
        writer, self.writer = self.writer, None
        if writer is None:  # (rows confirmed against the last commit: the next process trusts them)
            return self.dir.write_scopes(self.scopes) if self.dirty and not self.refused else None
        writer.commit()
        if self.big or self.dir.index.searcher().num_segments > MERGE_WAIT_SEGMENTS:
            writer.wait_merging_threads()  # (a build ends merged; a commit waits only past the bound)
        del writer  # (releases the lock; merges still running are abandoned, their files collected later)
        self._published()


def stored(index_dir: IndexDir, searcher: tantivy.Searcher, sid: str) -> list[tantivy.Document]:
    """Every stored document of one scope."""
    count = searcher.doc_freq("sid", sid)  # (deleted documents included until a merge: a bound)
    hits = searcher.search(tantivy.Query.term_query(index_dir.schema, "sid", sid), limit=count).hits if count else []
    return [searcher.doc(addr) for _score, addr in hits]
