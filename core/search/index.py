"""``SearchIndex``: the store's records and Global sections in a tantivy index, kept up to date.

Change detection (one rule with the store, ``core.fingerprint``): a scope whose folder kept its
(mtime, inode) stamp is trusted; otherwise, or with ``deep``/``keys``/a watcher's note, the stat
fingerprint of its files is compared with the one recorded when it was indexed; only when that
differs is the scope read through the store, and then only records whose revision, mtime or cwd
changed are re-indexed (the index's stored fields are the reference, so a crash between a commit
and the scopes file costs a look, never a wrong answer). Stores without a root are compared by
scope revision.

Every refresh or apply that changes something takes tantivy's writer for its own commit only and
releases it: another process that wants it meanwhile does not wait; it answers from the last
committed state and reports ``read_only`` (and looks again at its next refresh).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy

from core.errors import DshMemoryError
from core.fingerprint import content_hash, file_fingerprint, is_racy, scope_fingerprint
from core.layout import ARCHIVED_DIR, GLOBAL_FILE, WORKSPACES_DIR
from core.search.documents import Doc, split_global_sections
from core.search.engine import QueryBuilder, make_document
from core.search.persist import INDEX_DIR, IndexDir
from core.search.snippets import make_snippet, truncate_utf8
from core.search.tokenizer import ParsedQuery, parse_query
from core.search.types import GLOBAL_SCOPE, Recall, RefreshStats, SearchHit, SearchResults

if TYPE_CHECKING:
    from core.models import GlobalSnapshot, WorkspaceSnapshot
    from core.store.api import MemoryStore

CHECKPOINT_DOCS = 25_000  # a cold build commits every so many documents (searchable meanwhile)
TIE_MARGIN = 32  # hits fetched beyond ``limit`` so equal scores are ordered by recency, scope, name
Progress = Callable[[int, int], None]
_SEP = "\x1f"


def _sid(key: str, archived: bool) -> str:
    return f"{'a' if archived else 'w'}:{key}"


@dataclass
class _Counters:
    checked: int = 0
    reread: int = 0
    reindexed: int = 0
    removed: int = 0
    from_cache: int = 0
    read_only: bool = False

    def stats(self, total: int, t0: float) -> RefreshStats:
        return RefreshStats(
            scopes_checked=self.checked,
            scopes_reread=self.reread,
            docs_reindexed=self.reindexed,
            docs_removed=self.removed,
            docs_total=total,
            from_cache=self.from_cache,
            read_only=self.read_only,
            elapsed_ms=(time.perf_counter() - t0) * 1000.0,
        )


class _Commit:
    """One writer session: taken when the first change needs it, committed and released at the end."""

    def __init__(self, owner: SearchIndex) -> None:
        self.owner = owner
        self.writer: tantivy.IndexWriter | None = None
        self.refused = False
        self.reloaded = False  # the searcher was just reloaded: diffs made before must be redone
        self.committed_docs = 0

    def get(self) -> tantivy.IndexWriter | None:
        if self.writer is None and not self.refused:
            self.writer = self.owner._dir().writer()
            self.refused = self.writer is None
            if self.writer is not None:
                self.owner._dir().index.reload()  # (diff against what the last writer committed)
                self.reloaded = True
        return self.writer

    def checkpoint(self, docs: int) -> None:
        """Commit what was added so far and keep the writer (a long build becomes searchable in steps)."""
        if self.writer is not None:
            self.writer.commit()
            self._published()
            self.committed_docs = docs

    def _published(self) -> None:
        d = self.owner._dir()
        d.secure()
        d.write_scopes(self.owner._scopes)
        d.index.reload()

    def finish(self) -> None:
        writer, self.writer = self.writer, None
        if writer is None:
            return
        try:
            writer.commit()
            writer.wait_merging_threads()  # (also releases the writer's lock)
        finally:
            del writer
        self._published()


class SearchIndex:
    """Search and recall over a :class:`~core.store.api.MemoryStore` (see ``core.search``)."""

    def __init__(self, store: MemoryStore, *, cache_dir: Path | bool | None = True) -> None:
        """``cache_dir``: True = the store's cache folder (``store.cache_dir()``); False/None = the
        index lives in memory only; a path = that folder."""
        self._store = store
        self._lock = threading.Lock()
        root = store.root
        self._root = Path(root) if root is not None else None
        folder: Path | None = None
        if cache_dir is True:
            folder = store.cache_dir() if self._root is not None else None
        elif cache_dir not in (False, None):
            folder = Path(cache_dir)  # type: ignore[arg-type]
        self._path = folder / INDEX_DIR if folder is not None else None
        self._index_dir: IndexDir | None = None
        self._scopes: dict[str, list[Any]] = {}  # sid -> [stamp mtime, stamp inode, fingerprint, revision]
        self._persisted: set[str] = set()  # sids taken from the scopes file, not yet looked at
        self._hints: set[str] = set()
        self._hints_lock = threading.Lock()
        self._watched = False
        self._read_only = False

    # --- state ----------------------------------------------------------------------------
    @property
    def store(self) -> MemoryStore:
        return self._store

    @property
    def doc_count(self) -> int:
        return self._index_dir.index.searcher().num_docs if self._index_dir is not None else 0

    @property
    def read_only(self) -> bool:
        """True when the last refresh found the writer held by another process: the index answers
        from the last committed state until a later refresh can write."""
        return self._read_only

    def scope_revisions(self) -> dict[str, str]:
        """Scope id (``w:<key>``, ``a:<key>``, ``global``) -> revision as indexed."""
        return {sid: row[3] for sid, row in self._scopes.items() if row[3] is not None}

    def _dir(self) -> IndexDir:
        if self._index_dir is None:
            self._index_dir = IndexDir(self._path)
            self._load_scopes()
        return self._index_dir

    def _load_scopes(self) -> None:
        assert self._index_dir is not None
        got = self._index_dir.read_scopes()
        self._scopes = got or {}
        self._persisted = set(self._scopes)

    # --- watcher hints --------------------------------------------------------------------
    def note_changed(self, keys: Iterable[str]) -> None:
        """A file watcher saw files of these workspaces change (any thread, never blocks): the next
        refresh compares their files' stats (an in-place rewrite keeps the folder's stamp)."""
        with self._hints_lock:
            self._watched = True
            self._hints.update(keys)

    @property
    def watched(self) -> bool:
        return self._watched

    def _take_hints(self, wanted: set[str] | None) -> set[str]:
        with self._hints_lock:
            taken = set(self._hints) if wanted is None else self._hints & wanted
            self._hints -= taken
            return taken

    def _return_hints(self, keys: Iterable[str]) -> None:
        with self._hints_lock:
            self._hints.update(keys)

    # --- refresh ----------------------------------------------------------------------------
    def refresh(
        self, keys: Iterable[str] | None = None, *, deep: bool = False, progress: Progress | None = None
    ) -> RefreshStats:
        """Bring the index up to date with the store (see the module docstring). ``keys``: only
        these workspace keys (active and archived) and, with ``"global"``, GLOBAL.md.
        ``progress(done, total)`` is called as scopes are read and indexed."""
        t0 = time.perf_counter()
        with self._lock:
            wanted = None if keys is None else set(keys)
            hints = self._take_hints(wanted)
            try:
                return self._refresh_locked(wanted, hints, deep or wanted is not None, progress, t0)
            except BaseException:
                self._return_hints(hints)
                raise

    def _refresh_locked(
        self, wanted: set[str] | None, hints: set[str], deep: bool, progress: Progress | None, t0: float
    ) -> RefreshStats:
        d = self._dir()
        d.index.reload()  # (what other processes committed)
        if d.scopes_changed():  # another process committed: start from what it recorded
            self._load_scopes()
        counters = _Counters()
        now = time.time_ns()
        targets: dict[str, tuple[str, bool]] = {}
        for archived in (False, True):
            for key in self._scope_keys(archived):
                if wanted is None or key in wanted:
                    targets[_sid(key, archived)] = (key, archived)
        todo: list[tuple[str, str, bool, list[Any]]] = []  # (sid, key, archived, new row sans revision)
        for sid, (key, archived) in targets.items():
            counters.checked += 1
            row = self._scopes.get(sid)
            folder = self._scope_dir(key, archived)
            stamp = _dir_stamp(folder, now) if folder is not None else None
            fresh = sid in self._persisted
            self._persisted.discard(sid)
            trusted = row is not None and row[2] is not None and stamp is not None and row[:2] == list(stamp)
            if trusted and not (deep or key in hints):
                counters.from_cache += fresh
                continue
            fp = scope_fingerprint(folder, now) if folder is not None else None
            new_row = [*(stamp or (None, None)), fp]
            if row is not None and fp is not None and row[2] == fp:
                row[:3] = new_row
                counters.from_cache += fresh
                continue
            todo.append((sid, key, archived, new_row))
        gone = [
            sid
            for sid in self._scopes
            if sid != GLOBAL_SCOPE and sid not in targets and (wanted is None or sid[2:] in wanted)
        ]
        commit = _Commit(self)
        total = len(todo) + 1
        for n, (sid, key, archived, new_row) in enumerate(todo):
            if progress is not None:
                progress(n, total)
            try:
                snap = self._store.read_workspace(key, archived=archived)
            except DshMemoryError:  # gone meanwhile, or a folder that is no scope
                gone.append(sid)
                continue
            counters.reread += 1
            if not self._index_workspace(snap, sid, new_row, commit, counters):
                break
            if counters.reindexed - commit.committed_docs >= CHECKPOINT_DOCS:
                commit.checkpoint(counters.reindexed)  # (a window searching meanwhile sees these)
        if gone and not commit.refused and commit.get() is not None:
            for sid in gone:
                assert commit.writer is not None
                counters.removed += self._delete_scope(commit.writer, sid)
        if wanted is None or GLOBAL_SCOPE in wanted:
            counters.checked += 1
            if not commit.refused:
                self._refresh_global(now, commit, counters)
        if commit.refused:
            counters.read_only = True
            self._return_hints([key for _, key, _, _ in todo])
        commit.finish()
        self._read_only = commit.refused
        if progress is not None:
            progress(total, total)
        return counters.stats(self.doc_count, t0)

    def _scope_keys(self, archived: bool) -> list[str]:
        if self._root is None:
            return [info.key for info in self._store.list_workspaces(archived=archived, counts=False)]
        try:  # the on-disk layout names the scopes (same filter as the file store's)
            with os.scandir(self._root / (ARCHIVED_DIR if archived else WORKSPACES_DIR)) as it:
                return sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            return []

    def _scope_dir(self, key: str, archived: bool) -> Path | None:
        if self._root is None:
            return None
        return self._root / (ARCHIVED_DIR if archived else WORKSPACES_DIR) / key

    def _index_workspace(
        self, snap: WorkspaceSnapshot, sid: str, new_row: list[Any], commit: _Commit, counters: _Counters
    ) -> bool:
        """Index a workspace snapshot's changed records. False when the writer is held elsewhere."""
        cwd = snap.info.cwd
        archived = sid.startswith("a:")
        wanted: dict[str, tuple[str, Any]] = {}
        for entry in snap.entries:
            record = entry.record
            if record is None or not entry.is_valid:
                continue
            doc_id = f"{sid}{_SEP}{entry.file_name}"
            sig = f"{entry.revision}|{entry.mtime_ns}|{cwd}"
            wanted[doc_id] = (sig, (entry, record))
        synced = self._sync_docs(commit, sid, wanted, counters, lambda doc_id, sig, item: make_document(
            doc_id=doc_id, sid=sid, key=snap.key, cwd=cwd, archived=archived, kind="record",
            name=item[1].name, description=item[1].description, type_=item[1].type, body=item[1].body,
            file_name=item[0].file_name, section=-1, mtime_ns=item[0].mtime_ns, revision=sig,
        ))  # fmt: skip
        if synced:
            self._scopes[sid] = [*new_row[:3], snap.revision]
        return synced

    def _sync_docs(
        self,
        commit: _Commit,
        sid: str,
        wanted: dict[str, tuple[str, Any]],
        counters: _Counters,
        make: Callable[[str, str, Any], tantivy.Document],
    ) -> bool:
        """Make the scope's documents in the index exactly ``wanted`` (id -> (signature, source)),
        touching only those whose signature differs. False when that needs the writer and
        another process holds it."""
        indexed = self._indexed(sid)
        changed: list[tuple[str, bool]] = []  # (id, whether an older version is indexed)
        for doc_id, (sig, _) in wanted.items():
            old = indexed.pop(doc_id, None)
            if old != sig:
                changed.append((doc_id, old is not None))
        if not changed and not indexed:
            return True
        writer = commit.get()
        if writer is None:
            return False
        if commit.reloaded:  # (another writer may have committed since: diff again)
            commit.reloaded = False
            return self._sync_docs(commit, sid, wanted, counters, make)
        for doc_id, replaced in changed:
            if replaced:
                writer.delete_documents_by_term("id", doc_id)
                counters.removed += 1
            writer.add_document(make(doc_id, wanted[doc_id][0], wanted[doc_id][1]))
            counters.reindexed += 1
        for doc_id in indexed:
            writer.delete_documents_by_term("id", doc_id)
            counters.removed += 1
        return True

    def _indexed(self, sid: str) -> dict[str, str]:
        """id -> signature of the scope's documents as last committed."""
        d = self._dir()
        searcher = d.index.searcher()
        if not searcher.doc_freq("sid", sid):
            return {}
        out: dict[str, str] = {}
        for doc in self._stored(searcher, tantivy.Query.term_query(d.schema, "sid", sid)):
            out[doc.get_first("id") or ""] = doc.get_first("rev") or ""
        return out

    def _stored(self, searcher: tantivy.Searcher, query: tantivy.Query) -> list[tantivy.Document]:
        count = _count(searcher.search(query, limit=1, count=True))
        if not count:
            return []
        return [searcher.doc(addr) for _score, addr in searcher.search(query, limit=count, count=False).hits]

    def _delete_scope(self, writer: tantivy.IndexWriter, sid: str) -> int:
        n = self._dir().index.searcher().doc_freq("sid", sid)
        writer.delete_documents_by_term("sid", sid)
        self._scopes.pop(sid, None)
        return n

    def _refresh_global(self, now: int, commit: _Commit, counters: _Counters) -> None:
        path = self._root / GLOBAL_FILE if self._root is not None else None
        fp = file_fingerprint(path, now) if path is not None else None
        row = self._scopes.get(GLOBAL_SCOPE)
        fresh = GLOBAL_SCOPE in self._persisted
        self._persisted.discard(GLOBAL_SCOPE)
        if row is not None and fp is not None and row[2] == fp:
            counters.from_cache += fresh
            return
        snap = self._store.read_global()
        counters.reread += 1
        self._index_global(snap, fp, commit, counters)

    def _index_global(self, snap: GlobalSnapshot, fp: str | None, commit: _Commit, counters: _Counters) -> None:
        mtime_ns = 0  # recency of the Global sections
        if self._root is not None:
            with contextlib.suppress(OSError):
                mtime_ns = (self._root / GLOBAL_FILE).stat().st_mtime_ns
        text = snap.text if snap.exists and not snap.invalid_reasons else ""
        wanted: dict[str, tuple[str, Any]] = {}
        for section in split_global_sections(text):
            sig = f"{content_hash(f'{section.heading}{_SEP}{section.text}'.encode())}|{mtime_ns}"
            wanted[f"{GLOBAL_SCOPE}{_SEP}{section.index}"] = (sig, section)
        synced = self._sync_docs(commit, GLOBAL_SCOPE, wanted, counters, lambda doc_id, sig, s: make_document(
            doc_id=doc_id, sid=GLOBAL_SCOPE, key=GLOBAL_SCOPE, cwd="", archived=False, kind="global_section",
            name=s.heading, description="", type_="global", body=s.text, file_name=GLOBAL_FILE,
            section=s.index, mtime_ns=mtime_ns, revision=sig,
        ))  # fmt: skip
        if synced:
            self._scopes[GLOBAL_SCOPE] = [None, None, fp, snap.revision]

    def apply(self, snapshot: WorkspaceSnapshot | GlobalSnapshot) -> RefreshStats:
        """Index a snapshot a store mutation just returned (a commit, a Global save): no disk reads."""
        from core.models import GlobalSnapshot

        t0 = time.perf_counter()
        with self._lock:
            self._dir()
            counters = _Counters(checked=1)
            commit = _Commit(self)
            if isinstance(snapshot, GlobalSnapshot):
                self._index_global(snapshot, None, commit, counters)
                key = GLOBAL_SCOPE
            else:
                sid = _sid(snapshot.key, snapshot.info.archived_at is not None)
                self._index_workspace(snapshot, sid, [None, None, None], commit, counters)
                key = snapshot.key
            if commit.refused:
                counters.read_only = True
                self._return_hints([key])
            commit.finish()
            self._read_only = commit.refused
            return counters.stats(self.doc_count, t0)

    def save_cache(self) -> bool:
        """Every change is committed as it is indexed; kept for callers that close a window."""
        return self._path is not None and self._index_dir is not None

    def warm_up(self) -> float:
        """Nothing to warm any more (tantivy reads its files through the page cache); kept for callers."""
        return 0.0

    # --- search -----------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 20,
        max_bytes: int = 16384,
        include_archived: bool = False,
    ) -> SearchResults:
        """Ranked hits for ``query`` (``docs/search.md``); at most ``limit`` hits and ``max_bytes``
        UTF-8 bytes of hit text (the last hit's snippet is shortened to fit when it can be).
        ``scopes``: workspace keys and/or ``"global"``; None = Global and every active workspace.
        Archived scopes only with ``include_archived=True``. Thread-safe against a refresh."""
        t0 = time.perf_counter()
        pq = parse_query(query)
        ranked, total = self._ranked(pq, scopes, include_archived, limit)
        hits: list[SearchHit] = []
        used = 0
        truncated = total > len(ranked)
        for doc, score in ranked:
            hit = _make_hit(doc, score, pq)
            size = hit.byte_size
            if used + size > max_bytes:
                shrunk = _shrink(hit, max_bytes - used)
                truncated = True
                if shrunk is not None:
                    hits.append(shrunk)
                    used += shrunk.byte_size
                break
            hits.append(hit)
            used += size
        return SearchResults(
            query=query,
            hits=tuple(hits),
            total_matches=total,
            truncated=truncated,
            bytes_used=used,
            elapsed_ms=(time.perf_counter() - t0) * 1000.0,
        )

    def _ranked(
        self, pq: ParsedQuery, scopes: Sequence[str] | None, include_archived: bool, limit: int
    ) -> tuple[list[tuple[Doc, float]], int]:
        d = self._index_dir
        if d is None or pq.empty:
            return [], 0
        searcher = d.index.searcher()
        query = QueryBuilder(d.schema).ranked(pq, searcher.num_docs, self._scope_filter(d, scopes, include_archived))
        if query is None:
            return [], 0
        try:
            result = searcher.search(query, limit=max(limit, 0) + TIE_MARGIN, count=True)
            docs = [(_doc(searcher.doc(addr)), float(score)) for score, addr in result.hits]
        except (ValueError, OSError, RuntimeError):  # damaged files: rebuilt by the next refresh
            self._broken()
            return [], 0
        docs.sort(key=lambda ds: (-ds[1], -ds[0].mtime_ns, ds[0].scope_key, ds[0].name, ds[0].section_index))
        return docs[: max(limit, 0)], _count(result)

    def _scope_filter(self, d: IndexDir, scopes: Sequence[str] | None, include_archived: bool) -> tantivy.Query | None:
        if scopes is None:
            return None if include_archived else tantivy.Query.term_query(d.schema, "arch", "0")
        sids: list[str] = []
        for key in scopes:
            if key == GLOBAL_SCOPE:
                sids.append(GLOBAL_SCOPE)
                continue
            sids.append(_sid(key, False))
            if include_archived:
                sids.append(_sid(key, True))
        return tantivy.Query.term_set_query(d.schema, "sid", sids)

    def _broken(self) -> None:
        """A search hit damaged files: forget what the scopes file says, so the next refresh
        rebuilds everything into a fresh folder."""
        if self._lock.acquire(blocking=False):
            try:
                if self._index_dir is not None:
                    self._index_dir.rebuild()
                self._scopes, self._persisted = {}, set()
            finally:
                self._lock.release()

    # --- recall -----------------------------------------------------------------------------
    def build_recall(self, cwd: str, query: str, *, limit: int = 8, max_bytes: int = 12000) -> Recall:
        from core.search.recall import build_recall

        return build_recall(self, cwd, query, limit=limit, max_bytes=max_bytes)

    def recall(self, cwd: str, query: str, *, limit: int = 8, max_bytes: int = 12000) -> str:
        """Global summary + the workspace's relevant records as deterministic, delimited text,
        labelled untrusted, credentials redacted, at most ``max_bytes`` UTF-8 bytes."""
        return self.build_recall(cwd, query, limit=limit, max_bytes=max_bytes).text

    def _docs(self, sid: str) -> list[Doc]:
        """Every document of one scope, in a stable order."""
        d = self._index_dir
        if d is None:
            return []
        searcher = d.index.searcher()
        docs = [_doc(x) for x in self._stored(searcher, tantivy.Query.term_query(d.schema, "sid", sid))]
        docs.sort(key=lambda x: (x.section_index, x.file_name))
        return docs

    def _ranked_docs(self, query: str, scopes: Sequence[str], limit: int) -> list[tuple[Doc, float]]:
        """Ranked documents (no snippets, no byte bound): the building block of recall."""
        return self._ranked(parse_query(query), scopes, False, limit)[0]


def _count(result: tantivy.SearchResult) -> int:
    return int(getattr(result, "count", 0) or 0)  # (the stubs lack the attribute)


def _dir_stamp(folder: Path, now_ns: int) -> tuple[int, int] | None:
    """(mtime_ns, inode) of a scope folder; None when missing or too recent to trust."""
    try:
        st = folder.stat()
    except OSError:
        return None
    if is_racy(st, now_ns):
        return None
    return (st.st_mtime_ns, st.st_ino)


def _doc(stored: tantivy.Document) -> Doc:
    get = stored.get_first
    return Doc(
        scope_key=get("key") or "",
        cwd=get("cwd") or "",
        archived=(get("id") or "").startswith("a:"),
        kind=get("kind") or "record",
        name=get("dname") or "",
        description=get("ddesc") or "",
        type=get("dtype") or "",
        body=get("body") or "",
        file_name=get("file") or "",
        section_index=int(get("sec") or 0),
        mtime_ns=int(get("mtime") or 0),
    )


def _make_hit(doc: Doc, score: float, pq: ParsedQuery) -> SearchHit:
    source = doc.body if doc.body.strip() else (doc.description or doc.name)
    snippet, spans = make_snippet(source, pq)
    if not spans and doc.description:  # the word matched in the description: show it there
        desc_snippet, desc_spans = make_snippet(doc.description, pq)
        if desc_spans:
            snippet, spans = desc_snippet, desc_spans
    return SearchHit(
        scope_key=doc.scope_key,
        cwd=doc.cwd,
        kind="record" if doc.kind == "record" else "global_section",
        name=doc.name,
        type=doc.type,
        description=doc.description,
        score=score,
        snippet=snippet,
        highlights=spans,
        file_name=doc.file_name,
        section_index=doc.section_index,
        archived=doc.archived,
        mtime_ns=doc.mtime_ns,
    )


def _shrink(hit: SearchHit, budget: int) -> SearchHit | None:
    """``hit`` with its snippet cut to fit ``budget`` bytes, or None if even its metadata doesn't fit."""
    fixed = hit.byte_size - len(hit.snippet.encode("utf-8"))
    room = budget - fixed
    if room < 16:
        return None
    snippet = truncate_utf8(hit.snippet, room - len("…".encode()))
    snippet = snippet.rstrip() + "…"
    spans = tuple((s, min(e, len(snippet) - 1)) for s, e in hit.highlights if s < len(snippet) - 1)
    return replace(hit, snippet=snippet, highlights=spans)
