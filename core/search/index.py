"""The search index: per-scope immutable segments, refreshed incrementally from a MemoryStore.

Layout: one :class:`Segment` per scope (Global, each active and each archived workspace) holding
its documents and a postings table ``term -> (docs, BM25 term weights)``. A refresh rebuilds only
the segments whose scope changed, reusing the token analysis of every record whose file revision
is unchanged, and swaps in a new :class:`IndexState` (a dict of segments) with one assignment.
Readers take ``self._state`` once per query and so always see a complete, consistent state.

Change detection: with an on-disk store, a scope is re-read only when the stat fingerprint of its
files (name, size, mtime_ns, inode) differs from the one taken when it was last read. A
fingerprint containing an mtime within the last two seconds is not trusted (an edit in the same
clock tick could keep size and mtime; git's "racy clean" rule), so that scope is re-read next
time. Stores without a root (in memory) are compared by scope revision.
"""

from __future__ import annotations

import heapq
import math
import os
import threading
import time
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.errors import NotFoundError
from core.models import GlobalSnapshot, WorkspaceInfo, WorkspaceSnapshot
from core.search.documents import Analysis, Doc, analyze, split_global_sections
from core.search.snippets import make_snippet, truncate_utf8
from core.search.tokenizer import ParsedQuery, parse_query
from core.search.types import GLOBAL_SCOPE, Recall, RefreshStats, SearchHit, SearchResults
from core.store.api import MemoryStore

K1 = 1.2
B = 0.75
PREFIX_WEIGHT = 0.5  # a word that only begins with the typed prefix counts half
MAX_PREFIX_EXPANSIONS = 64  # per segment
RACY_NS = 2_000_000_000
_COVER = 1000.0  # score accumulator: coverage * _COVER + BM25 (BM25 stays far below _COVER)

Fingerprint = tuple[tuple[str, int, int, int], ...]


@dataclass(frozen=True, eq=False)
class Segment:
    """The searchable state of one scope. Never mutated after construction."""

    id: str  # "global", "w:<key>" (active) or "a:<key>" (archived)
    key: str
    cwd: str
    archived: bool
    revision: str
    fingerprint: Fingerprint | None
    docs: tuple[Doc, ...]
    postings: dict[str, tuple[tuple[Doc, ...], array[float]]]
    fields: dict[str, tuple[tuple[Doc, ...], tuple[int, ...]]]
    names: dict[str, tuple[Doc, ...]]
    vocab: tuple[str, ...]  # sorted terms, for prefix expansion
    info: WorkspaceInfo | None = None

    def with_meta(self, fingerprint: Fingerprint | None, info: WorkspaceInfo | None) -> Segment:
        return replace(self, fingerprint=fingerprint, info=info)


def _build_segment(
    seg_id: str,
    key: str,
    cwd: str,
    archived: bool,
    revision: str,
    fingerprint: Fingerprint | None,
    docs: Sequence[Doc],
    info: WorkspaceInfo | None,
) -> Segment:
    total_len = sum(d.analysis.length for d in docs)
    avgdl = (total_len / len(docs)) if docs else 1.0
    avgdl = avgdl or 1.0
    post_docs: dict[str, list[Doc]] = {}
    post_w: dict[str, array[float]] = {}
    field_docs: dict[str, list[Doc]] = {}
    field_pts: dict[str, list[int]] = {}
    names: dict[str, list[Doc]] = {}
    for d in docs:
        a = d.analysis
        norm = K1 * (1.0 - B + B * a.length / avgdl)
        for term, tf in a.counts.items():
            lst = post_docs.get(term)
            if lst is None:
                post_docs[term] = [d]
                post_w[term] = array("d", [tf * (K1 + 1.0) / (tf + norm)])
            else:
                lst.append(d)
                post_w[term].append(tf * (K1 + 1.0) / (tf + norm))
        for term, pts in a.points.items():
            fl = field_docs.get(term)
            if fl is None:
                field_docs[term] = [d]
                field_pts[term] = [pts]
            else:
                fl.append(d)
                field_pts[term].append(pts)
        if a.name_key:
            names.setdefault(a.name_key, []).append(d)
    return Segment(
        id=seg_id,
        key=key,
        cwd=cwd,
        archived=archived,
        revision=revision,
        fingerprint=fingerprint,
        docs=tuple(docs),
        postings={t: (tuple(ds), post_w[t]) for t, ds in post_docs.items()},
        fields={t: (tuple(ds), tuple(field_pts[t])) for t, ds in field_docs.items()},
        names={k: tuple(v) for k, v in names.items()},
        vocab=tuple(sorted(post_docs)),
        info=info,
    )


@dataclass(frozen=True)
class IndexState:
    segments: dict[str, Segment] = field(default_factory=dict)

    @property
    def doc_count(self) -> int:
        return sum(len(s.docs) for s in self.segments.values())


def _segment_id(key: str, archived: bool) -> str:
    return f"{'a' if archived else 'w'}:{key}"


def _scope_fingerprint(directory: Path, now_ns: int) -> Fingerprint | None:
    """Stat fingerprint of a scope folder's ``*.md`` files and ``scope.json``; None when it can't
    be trusted (missing folder, or a file modified too recently to tell same-tick edits apart)."""
    items: list[tuple[str, int, int, int]] = []
    try:
        with os.scandir(directory) as it:
            for entry in it:
                name = entry.name
                if not (name.endswith(".md") or name == "scope.json") or name == "MEMORY.md":
                    continue
                st = entry.stat(follow_symlinks=False)
                if st.st_mtime_ns > now_ns - RACY_NS:
                    return None
                items.append((name, st.st_size, st.st_mtime_ns, st.st_ino))
    except OSError:
        return None
    items.sort()
    return tuple(items)


def _file_fingerprint(path: Path, now_ns: int) -> Fingerprint | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return (("", -1, 0, 0),)
    except OSError:
        return None
    if st.st_mtime_ns > now_ns - RACY_NS:
        return None
    return ((path.name, st.st_size, st.st_mtime_ns, st.st_ino),)


class SearchIndex:
    """Search and recall over a :class:`~core.store.api.MemoryStore` (see ``core.search`` docs)."""

    def __init__(self, store: MemoryStore, *, cache_dir: Path | bool | None = True) -> None:
        """``cache_dir``: True = ``<root>/.manager/cache`` when the store has a root; False/None = no
        persisted cache; a path = that folder."""
        self._store = store
        self._state = IndexState()
        self._lock = threading.Lock()
        root = store.root
        self._root = Path(root) if root is not None else None
        if cache_dir is True:
            self._cache_dir = self._root / ".manager" / "cache" if self._root is not None else None
        elif cache_dir is False or cache_dir is None:
            self._cache_dir = None
        else:
            self._cache_dir = Path(cache_dir)
        self._cache_loaded = False
        self._cached: dict[str, object] = {}

    # --- state --------------------------------------------------------------------------
    @property
    def store(self) -> MemoryStore:
        return self._store

    @property
    def doc_count(self) -> int:
        return self._state.doc_count

    def scope_revisions(self) -> dict[str, str]:
        """Segment id -> revision of the scope as indexed (for diagnostics and tests)."""
        return {sid: seg.revision for sid, seg in self._state.segments.items()}

    # --- refresh ------------------------------------------------------------------------
    def refresh(self, keys: Iterable[str] | None = None) -> RefreshStats:
        """Bring the index up to date with the store, re-reading only scopes that changed.

        ``keys`` limits the refresh to these workspace keys (active and archived) and, if it
        contains ``"global"``, to GLOBAL.md; other segments are left as they are.
        """
        t0 = time.perf_counter()
        with self._lock:
            old = self._state
            wanted = None if keys is None else set(keys)
            counters = _Counters()
            segments = dict(old.segments)
            targets: dict[str, tuple[WorkspaceInfo, bool]] = {}
            for archived in (False, True):
                for info in self._store.list_workspaces(archived=archived):
                    if wanted is None or info.key in wanted:
                        targets[_segment_id(info.key, archived)] = (info, archived)
            for sid in list(segments):
                if sid == GLOBAL_SCOPE:
                    continue
                seg_key = segments[sid].key
                if sid not in targets and (wanted is None or seg_key in wanted):
                    counters.removed += len(segments.pop(sid).docs)
            now_ns = time.time_ns()
            for sid, (info, archived) in targets.items():
                counters.checked += 1
                seg = self._refresh_workspace(sid, info, archived, segments.get(sid), now_ns, counters)
                if seg is None:
                    if sid in segments:
                        counters.removed += len(segments.pop(sid).docs)
                else:
                    segments[sid] = seg
            if wanted is None or GLOBAL_SCOPE in wanted:
                counters.checked += 1
                segments[GLOBAL_SCOPE] = self._refresh_global(segments.get(GLOBAL_SCOPE), now_ns, counters)
            self._state = IndexState(segments)
            return counters.stats(self._state.doc_count, t0)

    def apply(self, snapshot: WorkspaceSnapshot | GlobalSnapshot) -> RefreshStats:
        """Index a snapshot a store mutation just returned (a commit, a Global save): no disk reads."""
        t0 = time.perf_counter()
        with self._lock:
            counters = _Counters(checked=1)
            segments = dict(self._state.segments)
            if isinstance(snapshot, GlobalSnapshot):
                segments[GLOBAL_SCOPE] = self._global_segment(
                    snapshot, None, segments.get(GLOBAL_SCOPE), counters
                )
            else:
                archived = snapshot.info.archived_at is not None
                sid = _segment_id(snapshot.key, archived)
                segments[sid] = self._workspace_segment(
                    sid, snapshot, archived, None, segments.get(sid), counters
                )
            self._state = IndexState(segments)
            return counters.stats(self._state.doc_count, t0)

    def _scope_dir(self, key: str, archived: bool) -> Path | None:
        if self._root is None:
            return None
        return self._root / ("archived" if archived else "workspaces") / key

    def _refresh_workspace(
        self,
        sid: str,
        info: WorkspaceInfo,
        archived: bool,
        old: Segment | None,
        now_ns: int,
        counters: _Counters,
    ) -> Segment | None:
        directory = self._scope_dir(info.key, archived)
        fp = _scope_fingerprint(directory, now_ns) if directory is not None else None
        if old is not None and fp is not None and old.fingerprint == fp:
            return old if old.info == info else old.with_meta(fp, info)
        try:
            snap = self._store.read_workspace(info.key, archived=archived)
        except NotFoundError:
            return None
        counters.reread += 1
        return self._workspace_segment(sid, snap, archived, fp, old, counters, info)

    def _workspace_segment(
        self,
        sid: str,
        snap: WorkspaceSnapshot,
        archived: bool,
        fp: Fingerprint | None,
        old: Segment | None,
        counters: _Counters,
        info: WorkspaceInfo | None = None,
    ) -> Segment:
        info = info or snap.info
        cwd = info.cwd
        previous: dict[str, Doc] = {d.revision: d for d in old.docs} if old is not None else {}
        docs: list[Doc] = []
        for entry in snap.entries:
            record = entry.record
            if record is None or not entry.is_valid:
                continue
            prev = previous.pop(entry.revision, None)
            if prev is not None and prev.name == record.name:
                if prev.cwd == cwd and prev.mtime_ns == entry.mtime_ns and prev.file_name == entry.file_name:
                    docs.append(prev)
                    continue
                analysis = prev.analysis
            else:
                analysis = analyze(record.name, record.description, record.type, record.body)
                counters.reindexed += 1
            docs.append(
                Doc(
                    scope_key=snap.key,
                    cwd=cwd,
                    archived=archived,
                    kind="record",
                    name=record.name,
                    description=record.description,
                    type=record.type,
                    body=record.body,
                    file_name=entry.file_name,
                    section_index=-1,
                    mtime_ns=entry.mtime_ns,
                    revision=entry.revision,
                    analysis=analysis,
                )
            )
        counters.removed += len(previous)
        if old is not None and len(docs) == len(old.docs) and all(a is b for a, b in zip(docs, old.docs)):
            return replace(old, revision=snap.revision, fingerprint=fp, info=info)  # nothing to re-index
        return _build_segment(sid, snap.key, cwd, archived, snap.revision, fp, docs, info)

    def _refresh_global(self, old: Segment | None, now_ns: int, counters: _Counters) -> Segment:
        fp = _file_fingerprint(self._root / "GLOBAL.md", now_ns) if self._root is not None else None
        if old is not None and fp is not None and old.fingerprint == fp:
            return old
        snap = self._store.read_global()
        counters.reread += 1
        return self._global_segment(snap, fp, old, counters)

    def _global_segment(
        self, snap: GlobalSnapshot, fp: Fingerprint | None, old: Segment | None, counters: _Counters
    ) -> Segment:
        if old is not None and old.revision == snap.revision:
            return old.with_meta(fp, None)
        mtime_ns = 0
        if fp is not None and fp[0][1] >= 0:
            mtime_ns = fp[0][2]
        elif self._root is not None:
            try:
                mtime_ns = (self._root / "GLOBAL.md").stat().st_mtime_ns
            except OSError:
                mtime_ns = 0
        previous: dict[tuple[str, str], Analysis] = {}
        if old is not None:
            previous = {(d.name, d.body): d.analysis for d in old.docs}
        docs: list[Doc] = []
        text = snap.text if snap.exists and not snap.invalid_reasons else ""
        for section in split_global_sections(text):
            analysis = previous.pop((section.heading, section.text), None)
            if analysis is None:
                analysis = analyze(section.heading, "", "global", section.text)
                counters.reindexed += 1
            docs.append(
                Doc(
                    scope_key=GLOBAL_SCOPE,
                    cwd="",
                    archived=False,
                    kind="global_section",
                    name=section.heading,
                    description="",
                    type="global",
                    body=section.text,
                    file_name="GLOBAL.md",
                    section_index=section.index,
                    mtime_ns=mtime_ns,
                    revision=snap.revision,
                    analysis=analysis,
                )
            )
        counters.removed += len(previous)
        return _build_segment(GLOBAL_SCOPE, GLOBAL_SCOPE, "", False, snap.revision, fp, docs, None)

    # --- search -------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        scopes: Sequence[str] | None = None,
        limit: int = 20,
        max_bytes: int = 16384,
        include_archived: bool = False,
    ) -> SearchResults:
        """Ranked hits for ``query``; at most ``limit`` hits and ``max_bytes`` UTF-8 bytes of hit
        text (see :attr:`SearchHit.byte_size`). ``scopes``: workspace keys and/or ``"global"``;
        None = Global and every active workspace (plus archived ones with ``include_archived``).
        """
        t0 = time.perf_counter()
        state = self._state
        pq = parse_query(query)
        segs = _select(state, scopes, include_archived)
        ranked, total = _rank(pq, segs, limit)
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

    # --- recall -------------------------------------------------------------------------
    def build_recall(self, cwd: str, query: str, *, limit: int = 8, max_bytes: int = 12000) -> Recall:
        from core.search.recall import build_recall

        return build_recall(self, cwd, query, limit=limit, max_bytes=max_bytes)

    def recall(self, cwd: str, query: str, *, limit: int = 8, max_bytes: int = 12000) -> str:
        """Global summary + the workspace's relevant records as deterministic, delimited text,
        labelled untrusted, credentials redacted, at most ``max_bytes`` UTF-8 bytes."""
        return self.build_recall(cwd, query, limit=limit, max_bytes=max_bytes).text

    def _docs(self, segment_id: str) -> tuple[Doc, ...]:
        seg = self._state.segments.get(segment_id)
        return seg.docs if seg is not None else ()

    def _ranked_docs(self, query: str, scopes: Sequence[str], limit: int) -> list[tuple[Doc, float]]:
        """Ranked documents (no snippets, no byte bound): the building block of recall."""
        segs = _select(self._state, scopes, False)
        return _rank(parse_query(query), segs, limit)[0]


@dataclass
class _Counters:
    checked: int = 0
    reread: int = 0
    reindexed: int = 0
    removed: int = 0
    from_cache: int = 0

    def stats(self, total: int, t0: float) -> RefreshStats:
        return RefreshStats(
            scopes_checked=self.checked,
            scopes_reread=self.reread,
            docs_reindexed=self.reindexed,
            docs_removed=self.removed,
            docs_total=total,
            from_cache=self.from_cache,
            elapsed_ms=(time.perf_counter() - t0) * 1000.0,
        )


def _select(state: IndexState, scopes: Sequence[str] | None, include_archived: bool) -> list[Segment]:
    wanted = None if scopes is None else set(scopes)
    out = []
    for seg in state.segments.values():
        if seg.archived and not include_archived:
            continue
        if wanted is not None and seg.key not in wanted:
            continue
        out.append(seg)
    out.sort(key=lambda s: s.id)
    return out


def _prefix_terms(seg: Segment, prefix: str) -> list[str]:
    vocab = seg.vocab
    lo = _bisect_left(vocab, prefix)
    out: list[str] = []
    for i in range(lo, min(len(vocab), lo + MAX_PREFIX_EXPANSIONS + 1)):
        term = vocab[i]
        if not term.startswith(prefix):
            break
        if term != prefix:
            out.append(term)
    return out


def _bisect_left(seq: Sequence[str], item: str) -> int:
    lo, hi = 0, len(seq)
    while lo < hi:
        mid = (lo + hi) // 2
        if seq[mid] < item:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _rank(pq: ParsedQuery, segs: list[Segment], limit: int) -> tuple[list[tuple[Doc, float]], int]:
    """Top ``limit`` (doc, score) pairs and the number of matching documents."""
    if pq.empty or not segs:
        return [], 0
    n_docs = sum(len(s.docs) for s in segs) or 1
    acc: dict[Doc, float] = {}
    get = acc.get
    for term in pq.terms:
        plists = [p for p in (s.postings.get(term) for s in segs) if p is not None]
        extra: list[tuple[tuple[Doc, ...], array[float]]] = []
        if term in pq.prefix_terms:
            for s in segs:
                for t in _prefix_terms(s, term):
                    extra.append(s.postings[t])
        df = sum(len(p[0]) for p in plists)
        if df == 0 and not extra:
            continue
        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        seen: set[Doc] = set()
        for docs, weights in plists:
            if extra:
                seen.update(docs)
            for d, w in zip(docs, weights, strict=True):
                acc[d] = get(d, 0.0) + _COVER + idf * w
        if extra:
            best: dict[Doc, float] = {}
            for docs, weights in extra:
                for d, w in zip(docs, weights, strict=True):
                    if d not in seen and w > best.get(d, 0.0):
                        best[d] = w
            edf = len(best) + df
            eidf = math.log(1.0 + (n_docs - edf + 0.5) / (edf + 0.5)) * PREFIX_WEIGHT
            for d, w in best.items():
                acc[d] = get(d, 0.0) + _COVER + eidf * w
    if pq.phrases:
        for d in [d for d in acc if not all(p in d.analysis.norm for p in pq.phrases)]:
            del acc[d]
    if not acc:
        return [], 0
    # Second rule: field points (name/description/type) and the exact-name bonus.
    points: dict[Doc, float] = {}
    pget = points.get
    for term in pq.terms:
        for s in segs:
            f = s.fields.get(term)
            if f is None:
                continue
            for d, p in zip(f[0], f[1], strict=True):
                if d in acc:
                    points[d] = pget(d, 0.0) + p
    # First rule: the query is a record's name / a section's heading (level 3), or occurs as an
    # exact phrase (2) or as a separator-insensitive substring (1). One word is its own phrase.
    level: dict[Doc, float] = {}
    if pq.squashed:
        for s in segs:
            for d in s.names.get(pq.squashed, ()):
                if d in acc:
                    level[d] = 3.0
    if pq.multi_word and pq.norm:
        full = _COVER * len(pq.terms)
        for d, v in acc.items():
            if v >= full and d not in level:
                a = d.analysis
                if pq.norm in a.norm:
                    level[d] = 2.0
                elif pq.squashed and pq.squashed in a.squashed:
                    level[d] = 1.0
    # Composite: phrase level, then points, then coverage*_COVER + BM25. Points are capped so a tier
    # never spills into the one above; coverage is capped by the number of terms.
    tier_points = _COVER * (len(pq.terms) + 1)
    tier_level = tier_points * 1000.0
    composite: dict[Doc, float] = {}
    lget = level.get
    for d, v in acc.items():
        composite[d] = lget(d, 0.0) * tier_level + min(pget(d, 0.0), 999.0) * tier_points + v
    total = len(composite)
    if limit <= 0:
        return [], total
    if total > limit:
        threshold = heapq.nlargest(limit, composite.values())[-1]
        pool = [(d, v) for d, v in composite.items() if v >= threshold]
    else:
        pool = list(composite.items())
    pool.sort(key=lambda dv: (-dv[1], -dv[0].mtime_ns, dv[0].scope_key, dv[0].name, dv[0].section_index))
    return pool[:limit], total


def _make_hit(doc: Doc, score: float, pq: ParsedQuery) -> SearchHit:
    source = doc.body if doc.body.strip() else (doc.description or doc.name)
    snippet, spans = make_snippet(source, pq)
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
