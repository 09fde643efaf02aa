"""``SearchIndex``: the store's records and Global sections in a tantivy index, kept up to date.

Change detection (one rule with the store, ``core.fingerprint``): a workspace whose folder kept its
(mtime, inode) stamp is trusted; otherwise, or with ``deep``/``keys``/a watcher's note, the stat
fingerprint of its files is compared with the one recorded when it was indexed, and only when that
differs is the scope read through the store (``core.search.sync`` then re-indexes only the records
that changed). GLOBAL.md is compared by its own stat; stores without a root by scope revision.
A process that can't take the writer (another one is writing) answers from the last commit and
says so (``read_only``); its next refresh looks again.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import tantivy

from core.errors import DshMemoryError
from core.fingerprint import content_hash
from core.layout import GLOBAL_FILE
from core.search.documents import Doc, split_global_sections
from core.search.engine import QueryBuilder, stored_doc
from core.search.persist import INDEX_DIR, IndexDir
from core.search.snippets import hit_of, shrink
from core.search.sync import Scopes, Session, stored
from core.search.tokenizer import ParsedQuery, parse_query
from core.search.types import GLOBAL_SCOPE, Recall, RefreshStats, SearchHit, SearchResults

TYPE_CHECKING = False  # (mypy reads this name as True; ``typing`` stays out of a one-shot CLI's start-up)
if TYPE_CHECKING:
    from typing import Any

    from core.models import GlobalSnapshot, WorkspaceSnapshot
    from core.store.api import MemoryStore
    from core.store.scan import WorkspaceScan

TIE_MARGIN = 32  # hits fetched beyond ``limit`` (and 2 % of a big index: docs/search.md) to order ties
MAX_TIES = 2048  # (beyond, in tantivy's order: a prefix-only query ties thousands)
_SEP = "\x1f"
_Item = tuple[str, tuple[str, str, str, str], str, int]  # a record: file name, fields, revision, mtime


def _sid(key: str, archived: bool) -> str:
    return f"{'a' if archived else 'w'}:{key}"


class SearchIndex:
    """Search and recall over a :class:`~core.store.api.MemoryStore` (see ``core.search``)."""

    def __init__(self, store: MemoryStore, *, cache_dir: Path | bool | None = True) -> None:
        """``cache_dir``: True = the store's (``store.cache_dir()``); False/None = in memory; a path."""
        self._store = store
        self._lock = threading.Lock()
        folder = store.cache_dir() if cache_dir is True else None  # (None: a store with no disk)
        if not isinstance(cache_dir, bool) and cache_dir is not None:
            folder = Path(cache_dir)
        self._path = folder / INDEX_DIR if folder is not None else None
        self._index_dir: IndexDir | None = None
        self._scopes: Scopes = {}
        self._persisted: set[str] = set()  # scopes taken from the scopes file, not looked at yet
        self._hints: set[str] = set()  # workspace keys a watcher saw change
        self._hints_lock = threading.Lock()  # (not self._lock: a refresh holds that for seconds)
        self.watched = False  # a file watcher feeds note_changed: refreshes need not stat every file
        self.read_only = False  # the last refresh found the writer held elsewhere: answers come from the last commit

    @property
    def doc_count(self) -> int:
        return self._index_dir.index.searcher().num_docs if self._index_dir is not None else 0

    def scope_revisions(self) -> dict[str, str]:
        """Scope id (``w:<key>``, ``a:<key>``, ``global``) -> revision as indexed."""
        return {sid: row[3] for sid, row in self._scopes.items() if row[3] is not None}

    def _dir(self) -> IndexDir:
        if self._index_dir is None:
            self._load_scopes(d := IndexDir(self._path))
            self._index_dir = d
        return self._index_dir

    def _load_scopes(self, d: IndexDir) -> None:
        self._scopes = d.read_scopes() or {}
        self._persisted = set(self._scopes)

    def note_changed(self, keys: Iterable[str]) -> None:
        """A watcher saw these workspaces' files change (any thread, never blocks): the next refresh
        stats them (an in-place rewrite keeps the folder's stamp). Sets ``watched``."""
        self.watched = True
        self._hint(keys)

    def _hint(self, keys: Iterable[str]) -> None:
        with self._hints_lock:
            self._hints.update(keys)

    def _take_hints(self, wanted: set[str] | None) -> set[str]:
        with self._hints_lock:
            taken = set(self._hints) if wanted is None else self._hints & wanted
            self._hints -= taken
            return taken

    # --- refresh and apply -------------------------------------------------------------------
    def refresh(
        self,
        keys: Iterable[str] | None = None,
        *,
        deep: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> RefreshStats:
        """Bring the index up to date with the store. ``keys``: only these workspace keys (active
        and archived) and, with ``"global"``, GLOBAL.md. ``progress(done, total)``: as scopes are read."""
        t0 = time.perf_counter()
        with self._lock:
            wanted = None if keys is None else set(keys)
            hints = self._take_hints(wanted)
            try:
                with contextlib.suppress(ValueError, RuntimeError):  # tantivy met damaged files: start over, once
                    return self._refresh_locked(wanted, hints, deep or wanted is not None, progress, t0)
                # (rebuilt here, not in an except block: the exception's traceback holds the failed
                # session and its writer, whose threads would still write into the folder removed)
                self._dir().rebuild()
                self._scopes, self._persisted = {}, set()
                return self._refresh_locked(wanted, hints, True, progress, t0)
            except BaseException:
                self._hint(hints)  # (not looked at after all)
                raise

    def _refresh_locked(
        self,
        wanted: set[str] | None,
        hints: set[str],
        deep: bool,
        progress: Callable[[int, int], None] | None,
        t0: float,
    ) -> RefreshStats:
        d = self._dir()
        d.index.reload()  # (what other processes committed)
        if d.scopes_changed():  # (another process committed since)
            self._load_scopes(d)
        now, stamps = time.time_ns(), self._store.inspect.stamps
        targets = {
            _sid(key, archived): (key, archived)
            for archived in (False, True)
            for key in stamps.scope_keys(archived=archived)
            if wanted is None or key in wanted
        }
        todo: list[tuple[str, str, bool, list[Any]]] = []  # (sid, key, archived, [stamp, fingerprint])
        trusted, dirty = 0, False
        for sid, (key, archived) in targets.items():
            row = self._scopes.get(sid)
            stamp = stamps.scope_stamp(key, archived=archived, now_ns=now)
            fresh = sid in self._persisted
            self._persisted.discard(sid)
            if not deep and key not in hints and row and row[2] is not None and row[:2] == list(stamp or ()):
                trusted += fresh
                continue
            fp = stamps.fingerprint(key, archived=archived, now_ns=now)
            new_row = [*(stamp or (None, None)), fp]
            if row is not None and fp is not None and row[2] == fp:
                row[:3], dirty = new_row, True
                trusted += fresh
                continue
            todo.append((sid, key, archived, new_row))
        gone = [
            s for s in self._scopes if s != GLOBAL_SCOPE and s not in targets and (wanted is None or s[2:] in wanted)
        ]
        session, reread = Session(d, self._scopes, big=len(todo) > 10), 0
        session.dirty = dirty
        for n, ((sid, _, _, new_row), scan) in enumerate(zip(todo, _read_ahead(self._store, todo), strict=False)):
            if progress is not None:
                progress(n, len(todo) + 1)
            if scan is None:  # gone meanwhile, or a folder that is no scope
                gone.append(sid)
                continue
            reread += 1
            from core.records import record_fields  # (pydantic, PyYAML: not for a one-shot search)

            recs = [(r.file_name, r.data, r.revision, r.mtime_ns) for r in scan.records if r.data is not None]
            items = [(name, f, v, m) for name, data, v, m in recs if (f := record_fields(name, data)) is not None]
            if not self._index_records(session, scan.key, scan.cwd, sid, items, [*new_row[:3], scan.revision]):
                break
        for sid in gone:
            if not session.drop(sid):
                break
        if wanted is None or GLOBAL_SCOPE in wanted:
            global_reread, global_trusted = self._refresh_global(session, now)
            reread, trusted = reread + global_reread, trusted + global_trusted
        if session.refused:  # (looked at again next time)
            self._hint(hints | {key for _, key, _, _ in todo})
        session.finish()
        self.read_only = session.refused
        if progress is not None:
            progress(len(todo) + 1, len(todo) + 1)
        return self._stats(session, t0, len(targets) + (wanted is None or GLOBAL_SCOPE in wanted), reread, trusted)

    def _stats(self, session: Session, t0: float, checked: int, reread: int, trusted: int) -> RefreshStats:
        elapsed = (time.perf_counter() - t0) * 1000.0
        done = (session.reindexed, session.removed, self.doc_count, trusted, session.refused)
        return RefreshStats(checked, reread, *done, started_over=session.dir.take_discarded(), elapsed_ms=elapsed)

    def _index_records(
        self, session: Session, key: str, cwd: str, sid: str, items: Iterable[_Item], row: list[Any]
    ) -> bool:
        """Scope ``sid``'s documents made exactly ``items``: (file name, (name, description, type,
        body), revision, mtime) each; ``row`` = [stamp mtime, stamp inode, fingerprint, revision]."""
        docs: dict[str, tuple[str, Doc]] = {}
        for file_name, fields, revision, mtime in items:
            doc = Doc(key, cwd, sid[0] == "a", "record", *fields, file_name, -1, mtime)
            docs[f"{sid}{_SEP}{file_name}"] = (f"{revision}|{mtime}|{cwd}", doc)
        if session.sync(sid, docs):
            self._scopes[sid] = row
        return not session.refused

    def _refresh_global(self, session: Session, now: int) -> tuple[int, int]:
        """(read again, trusted from the scopes file): (0, 1) or (0, 0) when its stat is unchanged."""
        fp = self._store.inspect.stamps.fingerprint(None, now_ns=now)
        row = self._scopes.get(GLOBAL_SCOPE)
        fresh = GLOBAL_SCOPE in self._persisted
        self._persisted.discard(GLOBAL_SCOPE)
        if row is not None and fp is not None and row[2] == fp:
            return 0, int(fresh)
        if not session.refused:
            self._index_global(session, self._store.read_global(), fp)
        return 1, 0

    def _index_global(self, session: Session, snap: GlobalSnapshot, fp: str | None) -> None:
        mtime = self._store.inspect.stamps.global_mtime()  # the recency of every Global section
        docs: dict[str, tuple[str, Doc]] = {}
        for s in split_global_sections(snap.text if snap.exists and not snap.invalid_reasons else ""):
            sig = f"{content_hash(f'{s.heading}{_SEP}{s.text}'.encode())}|{mtime}"
            fields = ("global_section", s.heading, "", "global", s.text, GLOBAL_FILE, s.index, mtime)
            docs[f"{GLOBAL_SCOPE}{_SEP}{s.index}"] = (sig, Doc(GLOBAL_SCOPE, "", False, *fields))
        if session.sync(GLOBAL_SCOPE, docs):
            self._scopes[GLOBAL_SCOPE] = [None, None, fp, snap.revision]

    def apply(self, snapshot: WorkspaceSnapshot | GlobalSnapshot) -> RefreshStats:
        """Index the snapshot a store mutation returned (a commit, a Global save): no disk reads."""
        from core.models import GlobalSnapshot  # (pydantic: not for a one-shot search)

        t0 = time.perf_counter()
        with self._lock:
            session = Session(self._dir(), self._scopes, rows=False)
            session.take()  # (a commit's snapshot changes something: diff once, under the writer)
            if isinstance(snapshot, GlobalSnapshot):
                self._index_global(session, snapshot, None)
            else:
                sid = _sid(snapshot.key, snapshot.info.archived_at is not None)
                fields = [(e.file_name, e.record, e.revision, e.mtime_ns) for e in snapshot.entries if e.is_valid]
                items = [(n, (r.name, r.description, r.type, r.body), v, m) for n, r, v, m in fields if r is not None]
                row = [None, None, None, snapshot.revision]
                self._index_records(session, snapshot.key, snapshot.info.cwd, sid, items, row)
            if session.refused:
                self._hint([GLOBAL_SCOPE if isinstance(snapshot, GlobalSnapshot) else snapshot.key])
            session.finish()
            self.read_only = session.refused
            return self._stats(session, t0, 1, 0, 0)

    # --- search and recall -------------------------------------------------------------------
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
        used, truncated = 0, total > len(ranked)
        for doc, score in ranked:
            hit = hit_of(doc, score, pq)
            over = used + (size := hit.byte_size) > max_bytes
            if (kept := shrink(hit, max_bytes - used) if over else hit) is not None:
                hits.append(kept)
                used += kept.byte_size if over else size
            if over:
                truncated = True
                break
        return SearchResults(query, tuple(hits), total, truncated, used, (time.perf_counter() - t0) * 1000.0)

    def _ranked(
        self, pq: ParsedQuery, scopes: Sequence[str] | None, include_archived: bool, limit: int
    ) -> tuple[list[tuple[Doc, float]], int]:
        d = self._index_dir
        if d is None or pq.empty:
            return [], 0
        searcher, sids = d.index.searcher(), list(self._scopes)
        want = max(max(limit, 0) + TIE_MARGIN, min(MAX_TIES, searcher.num_docs // 50))
        try:  # (the plan looks terms up and may probe: inside, like the searches)
            scoped = _scope_filter(d, scopes, include_archived)
            if (plan := QueryBuilder(d.schema, searcher).ranked(pq, searcher.num_docs, scoped, sids)) is None:
                return [], 0
            query, level, full = plan
            hits = (result := searcher.search(query, limit=want, count=True)).hits
            if full is not None and limit > 0 and (len(hits) < limit or hits[limit - 1][0] < level):
                hits = searcher.search(query := full, limit=want, count=False).hits  # (the k-th not ranked exactly)
            if limit > 0 and len(hits) == want and hits[-1][0] >= hits[limit - 1][0]:  # ties past the margin
                hits = searcher.search(query, limit=MAX_TIES, count=False).hits
            cut = hits[min(limit, len(hits)) - 1][0] if limit > 0 and hits else float("inf")
            hits = [h for h in hits if h[0] >= cut]  # (sorted by score: only these can be in the top k)
            cols = [searcher.fast_field_values(f, [a for _, a in hits]) for f in ("mtime", "k1", "k2")]
            keys = [(-s, -(m or 0), k1 or 0, k2 or 0, a) for (s, a), m, k1, k2 in zip(hits, *cols, strict=True)]
            keys.sort(key=lambda k: k[:4])  # (the order up to the first 14 bytes of scope key and name)
            cut4 = keys[min(limit, len(keys)) - 1][:4] if keys else ()
            tied = [(k[:2], _order(d), d) for k in keys if k[:4] <= cut4 for d in [searcher.doc(k[4])]]
            tied.sort(key=lambda t: t[:2])  # (exactly, from the few documents read)
            docs = [(stored_doc(d)[0], -k[0]) for k, _, d in tied[: max(limit, 0)]]
        except (ValueError, OSError, RuntimeError):  # damaged files: start over from the store
            self._broken()
            return [], 0
        return docs, int(result.count)  # type: ignore[attr-defined]  # (stubs)

    def _broken(self) -> None:
        """A search met damaged files: a fresh folder, rebuilt by the next refresh."""
        if self._index_dir is not None and self._lock.acquire(blocking=False):
            try:
                self._index_dir.rebuild()
                self._scopes, self._persisted = {}, set()
            finally:
                self._lock.release()

    def build_recall(self, cwd: str, query: str, *, limit: int = 8, max_bytes: int = 12000) -> Recall:
        from core.search.recall import build_recall

        return build_recall(self, cwd, query, limit=limit, max_bytes=max_bytes)

    def recall(self, cwd: str, query: str, *, limit: int = 8, max_bytes: int = 12000) -> str:
        """Global + the workspace's relevant records: deterministic, delimited, redacted text."""
        return self.build_recall(cwd, query, limit=limit, max_bytes=max_bytes).text

    def _docs(self, sid: str) -> list[Doc]:
        """Every document of one scope, in a stable order (recall)."""
        d = self._index_dir
        docs = [stored_doc(x)[0] for x in stored(d, d.index.searcher(), sid)] if d is not None else []
        return sorted(docs, key=lambda x: (x.section_index, x.file_name))

    def _ranked_docs(self, query: str, scopes: Sequence[str], limit: int) -> list[tuple[Doc, float]]:
        """Ranked documents (no snippets, no byte bound): the building block of recall."""
        return self._ranked(parse_query(query), scopes, False, limit)[0]


def _order(stored: tantivy.Document) -> tuple[str, str, int]:
    """(scope key, name, section), the last tie-breaks: a record's from its id (no JSON: thousands tie)."""
    sid, _, file_name = (stored.get_first("id") or "").partition(_SEP)
    if sid[1:2] == ":" and file_name.endswith(".md"):
        return sid[2:], file_name[:-3], -1
    d = stored_doc(stored)[0]
    return d.scope_key, d.name, d.section_index


def _read_ahead(store: MemoryStore, todo: Sequence[tuple[str, str, bool, Any]]) -> Iterator[WorkspaceScan | None]:
    """Each scope's files as bytes (not the store's parsed and cached snapshot: docs/search.md), or
    None when it is gone; a thread reads two scopes ahead, so the file reads (which let go of the
    interpreter lock) run beside the indexing."""

    def scan(item: tuple[str, str, bool, Any]) -> WorkspaceScan | None:
        try:
            return store.inspect.scan(item[1], archived=item[2])
        except DshMemoryError:
            return None

    from concurrent.futures import ThreadPoolExecutor  # (4 ms of imports: not for a one-shot search)

    with ThreadPoolExecutor(1, thread_name_prefix="search-read") as pool:
        ahead = deque(pool.submit(scan, item) for item in todo[:2])
        for item in todo[2:]:
            ahead.append(pool.submit(scan, item))
            yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()


def _scope_filter(d: IndexDir, scopes: Sequence[str] | None, include_archived: bool) -> tantivy.Query | None:
    if scopes is None:
        return None if include_archived else tantivy.Query.term_query(d.schema, "arch", "0")
    sids = [GLOBAL_SCOPE if k == GLOBAL_SCOPE else _sid(k, False) for k in scopes]
    sids += [_sid(k, True) for k in scopes if include_archived and k != GLOBAL_SCOPE]
    return tantivy.Query.term_set_query(d.schema, "sid", sids)
