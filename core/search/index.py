"""The search index: per-scope immutable segments, refreshed incrementally from a MemoryStore.

Layout: one :class:`Segment` per scope (Global, each active and each archived workspace) holding
its documents and a postings table ``term -> docs``; each document carries its BM25 term weights
(computed once per file revision with a fixed average length, so unchanged records are never
re-tokenized). A refresh rebuilds only the segments whose scope changed and swaps in a new
:class:`IndexState` (a dict of segments) with one assignment. Readers take ``self._state`` once
per query and so always see a complete, consistent state; refreshes are serialized by a lock.

Change detection: with an on-disk store, the scope folders are listed straight from the layout; a
scope whose folder kept its (mtime_ns, inode) stamp is trusted without a look at its files (a file
created, deleted or renamed into place changes it); otherwise, or with ``deep``/``keys``, it is
re-read through the store only when the stat fingerprint of its files (name, size, mtime_ns, inode)
differs from the one taken when it was last read. A stamp or fingerprint containing an mtime within
the last two seconds is not trusted (an edit in the same clock tick could keep size and mtime; git's
"racy clean" rule), so that scope is looked at again next time. Stores without a root (in memory)
are listed and compared by scope revision.

Query evaluation (pure Python; per-document bytecode is what costs, so there is next to none):
the selected segments' documents are numbered and each query term becomes a bitmap (a Python int,
memoized per index state and selection). Matches, coverage and field points are big-int ORs / ANDs
and bit-sliced counters; the rank groups (level, points, coverage) are taken from the top with a few
ANDs each until ``limit`` documents are ranked. The phrase and CJK-substring levels need text scans:
seam / junction keys (a lazily built per-segment table; see :func:`phrase_keys`) rule out most
documents first, and the scans that remain wait until the document's group reaches the top. BM25
is computed only for the groups taken, and in a big group where the cut falls only for the
documents that can still make the top (threshold algorithm over weight-ordered postings).
Snippets are built for the returned hits only.

Opened from the persisted index, a segment reads its row only when first needed (:class:`_Body`),
and a view over many scopes reads the term-major base instead (``core/search/termbase.py``: one row
per term for every scope it was built from, written by a process of its own,
``core/search/base_builder.py``): the scopes changed since are searched segment by segment beside
it, the base's documents of those scopes masked out. Ranking through it is ranking through the
segments, number for number (``tests/core/search/test_search_termbase.py``).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import gc
import heapq
import math
import os
import re
import secrets
import sqlite3
import threading
import time
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate, chain, compress, repeat
from operator import add, contains, itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from core.errors import DshMemoryError
from core.fingerprint import file_fingerprint, is_racy, scope_fingerprint
from core.layout import GLOBAL_FILE
from core.search import cache, termbase
from core.search.documents import Analysis, Doc, analyze, split_global_sections
from core.search.snippets import make_snippet, truncate_utf8
from core.search.tokenizer import _ASCII_CHUNK_RE, _CHUNK_RE, CJK_CLASS, ParsedQuery, bigram_table, parse_query
from core.search.types import GLOBAL_SCOPE, Recall, RefreshStats, SearchHit, SearchResults

if TYPE_CHECKING:  # (imported lazily: a one-shot CLI search over a fresh cache never needs pydantic)
    from core.models import GlobalSnapshot, WorkspaceInfo, WorkspaceSnapshot
    from core.store.api import MemoryStore

PREFIX_WEIGHT = 0.5  # a word that only begins with the typed prefix (or a bigram around one
# typed CJK character) counts half
MAX_EXPANSIONS = 64  # per segment and term
# The term-major base (core/search/termbase.py) is written once the index has this many documents,
# rebuilt when fewer than BASE_KEEP_SHARE of them are still the base's, and read by views of at
# least BASE_MIN_SEGMENTS segments (a workspace and Global are searched segment by segment).
BASE_MIN_DOCS = 5000
BASE_KEEP_SHARE = 0.95  # (each overlay scope costs a fresh process its row: ~2.5 ms; 5 % of 100k is 50)
BASE_MIN_SEGMENTS = 16
HIT_ROWS = 8  # documents of a segment read row by row before all its document rows are read at once


def _base_min_docs() -> int:
    """BASE_MIN_DOCS, or ``DSH_MEMORY_BASE_MIN_DOCS`` (tests of the builder process use small roots)."""
    raw = os.environ.get("DSH_MEMORY_BASE_MIN_DOCS", "")
    return int(raw) if raw.isdigit() else BASE_MIN_DOCS


_TIER = 1000.0  # coverage < _TIER, points < _TIER: coarse = level * _TIER² + points * _TIER + coverage
MAX_MEMO_ENTRIES = 2_000_000  # doc references memoized per index state (8 bytes each, ~16 MB)
MAX_EXPANDED = 64  # memoized prefix / CJK-character expansions per index state
COLD_MIN_SCOPES = 4  # a refresh with this many scopes to read builds them as rows (core/search/cold_build.py)
FLUSH_ROWS = 64  # a refresh writes the rows of new segments in batches of this many
AUTO_SAVE_DOCS = 200  # warm_up() that built seam tables for this many documents saves them

Fingerprint = str  # core.fingerprint: the one stat rule shared with the store
# (term, idf, weights through expansions only, document number -> the term's own BM25 weight)
_Idf = tuple[str, float, "dict[int, float] | None", "Callable[[int], float | None]"]
Stamp = tuple[int, int]


_CJK_RE = re.compile(rf"[{CJK_CLASS}]+")
_ALNUM2_RE = re.compile(r"[^\W_]{2}")
# Four letters/digits whose middle two are a CJK character and a non-CJK one, in either order.
_JUNCTION = rf"(?=([^\W_](?:[^\W_{CJK_CLASS}][{CJK_CLASS}]|[{CJK_CLASS}][^\W_{CJK_CLASS}])[^\W_]))"


@functools.cache
def _junction_re() -> re.Pattern[str]:
    """Compiled on first use: its character classes take tens of ms to compile, which a one-shot
    CLI search of an English query would pay for nothing."""
    return re.compile(_JUNCTION)


_LAST2 = itemgetter(slice(-2, None))
_FIRST2 = itemgetter(slice(None, 2))


def phrase_keys(phrase: str) -> list[str]:
    """Seam keys a document must hold to contain ``phrase`` (normalized, single spaces) as a substring.

    A document's *units* are the matches of the chunk pattern (``[^\\W_]+(?:[-_.][^\\W_]+)*``) over its
    normalized text, in order; its seam keys are ``unit[-2:] + next_unit[:2]`` for each pair of
    consecutive units. Where the phrase has a space with two letters/digits on each side
    (``…es 54…``), an occurrence puts a unit ending in those two characters right before the space
    and the next unit starting with the two after it, so that seam key (``es54``) is in the
    document: a necessary condition, used to skip substring scans, never to accept a document.
    """
    keys: list[str] = []
    at = phrase.find(" ")
    while at >= 0:
        if at >= 2 and _ALNUM2_RE.fullmatch(phrase, at - 2, at) and _ALNUM2_RE.fullmatch(phrase, at + 1, at + 3):
            keys.append(phrase[at - 2 : at] + phrase[at + 1 : at + 3])
        at = phrase.find(" ", at + 1)
    return keys


def squash_keys(squashed: str) -> list[str]:
    """Junction keys a document must hold to contain ``squashed`` (letters/digits only) as a substring.

    A junction is where a CJK character and a non-CJK letter/digit touch (``on公``); its key is the
    four characters around it (``on公证``). Every junction of ``squashed`` with two characters on
    each side occurs, with those characters, in a document containing it: a necessary condition.

    The keys :func:`_junction_re` finds, found by a loop over the (short) query: compiling that
    pattern costs ~8 ms, which the first CJK query of a one-shot search would pay for nothing.
    (``[^\\W_]`` is ``str.isalnum``.)
    """
    if squashed.isascii():
        return []
    cjk = [_CJK_RE.fullmatch(c) is not None for c in squashed]
    alnum = [c.isalnum() for c in squashed]
    return [
        squashed[p : p + 4]
        for p in range(len(squashed) - 3)
        if alnum[p]
        and alnum[p + 3]
        and cjk[p + 1] != cjk[p + 2]
        and (alnum[p + 2] if cjk[p + 1] else alnum[p + 1])  # (the non-CJK one of the two is a letter/digit)
    ]


def seam_keys(norm: str) -> set[str]:
    """The seam keys (see :func:`phrase_keys`) and junction keys (see :func:`squash_keys`) of a
    document's normalized text."""
    if norm.isascii():
        units = _ASCII_CHUNK_RE.findall(norm)
        return set(map(add, map(_LAST2, units), map(_FIRST2, units[1:])))
    units = _CHUNK_RE.findall(norm)
    keys = set(map(add, map(_LAST2, units), map(_FIRST2, units[1:])))
    keys.update(_junction_re().findall(norm))
    return keys


class _Tables(NamedTuple):
    """A segment's documents and term tables."""

    # A tuple, or a loaded row's columns (cache.LazyDocs: the Doc objects are made on first use;
    # queries work on document numbers and need them only for their hits).
    docs: Sequence[Doc]
    postings: Mapping[str, list[Doc]]
    # term -> docs with the term in name/description/type, each repeated as many times as the
    # points it earns there (4/2/1): Counter.update sums the points in C.
    field_reps: Mapping[str, list[Doc]]
    names: dict[str, list[int]]  # squashed normalized name -> document numbers (exact-name rule)


class _Body:
    """A segment's :class:`_Tables`, or what reads them from the persisted index the first time
    something needs them: opening the index reads only each row's meta (its document count, what
    tells whether its files changed), so a query that the term-major base answers, or that
    searches one workspace, never reads the other 999 rows (at 100k records reading and decoding
    them all was the whole of the reopen). Thread-safe: loaded once, under a lock."""

    __slots__ = ("_load", "_lock", "_tables", "n")

    def __init__(self, n: int, tables: _Tables | None = None, load: Callable[[], _Tables] | None = None) -> None:
        self.n = n
        self._tables = tables
        self._load = load
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._tables is not None

    def get(self) -> _Tables:
        got = self._tables
        if got is None:
            with self._lock:
                got = self._tables
                if got is None:
                    assert self._load is not None
                    got = self._tables = self._load()
                    self._load = None
        return got


@dataclass(frozen=True, eq=False)
class Segment:
    """The searchable state of one scope. Never mutated after construction (``lazy`` only gains
    derived tables computed on first use; a race computes the same value twice, harmlessly; the
    body is read from the persisted index once, on first use)."""

    id: str  # "global", "w:<key>" (active) or "a:<key>" (archived)
    key: str
    cwd: str
    archived: bool
    revision: str
    fingerprint: Fingerprint | None
    body: _Body
    info: WorkspaceInfo | None = None
    stamp: Stamp | None = None  # the scope folder's (mtime_ns, inode) when its files were checked
    lazy: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """The number of documents (known without reading the body)."""
        return self.body.n

    @property
    def docs(self) -> Sequence[Doc]:
        return self.body.get().docs

    @property
    def postings(self) -> Mapping[str, list[Doc]]:
        return self.body.get().postings

    @property
    def field_reps(self) -> Mapping[str, list[Doc]]:
        return self.body.get().field_reps

    @property
    def names(self) -> dict[str, list[int]]:
        return self.body.get().names

    def with_meta(self, fingerprint: Fingerprint | None, info: WorkspaceInfo | None, stamp: Stamp | None) -> Segment:
        return replace(self, fingerprint=fingerprint, info=info, stamp=stamp)

    @property
    def damaged(self) -> bool:
        """Its row, or its row's texts, turned out not to decode (see cache.LazyDocs), or another
        process rewrote the row before this one read it: re-read the scope. (A body not read yet
        is not known to be damaged; reading it is what finds out.)"""
        if not self.body.loaded:
            return False
        docs = self.docs
        return isinstance(docs, cache.LazyDocs) and docs.damaged

    # Queries address documents by number (position in ``docs``): a segment loaded from the
    # persisted index answers from its arrays and never makes its Doc objects for that.
    def _numbers(self) -> dict[Doc, int]:
        got: dict[Doc, int] | None = self.lazy.get("numbers")
        if got is None:
            got = self.lazy["numbers"] = {d: i for i, d in enumerate(self.docs)}
        return got

    def _refs_in(self, table: Mapping[str, list[Doc]], term: str) -> Sequence[int]:
        if isinstance(table, cache.LazyPostings):
            return table.refs_of(term)
        docs = table.get(term)
        return list(map(self._numbers().__getitem__, docs)) if docs else ()

    def refs(self, term: str) -> Sequence[int]:
        """Numbers of the documents holding ``term``."""
        return self._refs_in(self.postings, term)

    def field_refs(self, term: str) -> Sequence[int]:
        """Numbers of the documents with ``term`` in a field, repeated by the points it earns."""
        return self._refs_in(self.field_reps, term)

    def weighted_refs(self, term: str) -> tuple[Sequence[int], Sequence[float]]:
        """(document numbers, BM25 weights) of ``term``'s postings. A segment loaded from the
        persisted cache reads them from its arrays (its documents' own weight dicts stay unfilled:
        at 100k records they would be millions of entries no query needs)."""
        postings = self.postings
        if isinstance(postings, cache.LazyPostings):
            got = postings.term_arrays(term) if postings.has_weights else None
            return got if got is not None else ((), ())
        docs = postings.get(term)
        if not docs:
            return (), ()
        _ready(self)
        return list(map(self._numbers().__getitem__, docs)), [d.weights[term] for d in docs]

    def hit_doc(self, i: int) -> Doc:
        """Document ``i``. A segment whose body was not read yet (a view over the term-major base
        reads none) reads that document's own row instead (a few KB, not the scope's payload), up to
        HIT_ROWS documents, then all its document rows at once. A row that does not decode makes
        it read the body (a damaged row then makes the segment ``damaged``, and the index reads the
        scope again)."""
        if self.body.loaded or "rows" not in self.lazy:
            return self.docs[i]
        made: dict[int, Doc] = self.lazy.setdefault("hit_docs", {})
        got = made.get(i)
        if got is None:
            db, meta = self.lazy["rows"]
            try:
                if len(made) < HIT_ROWS:
                    got = cache.doc_from_row(meta.key, meta.cwd, meta.archived, db.read_doc(meta.sid, meta.token, i))
                else:  # (a phrase scan reads many: all the scope's rows at once, still not its payload)
                    rows: list[bytes] | None = self.lazy.get("doc_rows")
                    if rows is None:
                        rows = db.read_texts(meta.sid, meta.token)
                        if rows is None or len(rows) != self.n:
                            raise ValueError("document rows gone")
                        self.lazy["doc_rows"] = rows
                    got = cache.doc_from_row(meta.key, meta.cwd, meta.archived, rows[i])
            except cache.ROW_ERRORS:
                return self.docs[i]
            made[i] = got
        return got

    def norm(self, i: int) -> str:
        """Document ``i``'s normalized text. (From the body: what asks for one asks for many, a seam
        table or a scan of the segment; a view over the base reads a few through ``TermBase.norm_of``.)"""
        docs = self.docs
        if isinstance(docs, cache.LazyDocs):
            return docs.norm(i)
        return docs[i].analysis.norm

    def tiebreak(self, i: int) -> tuple[int, str, str, int]:
        """The last rank keys of document ``i``: most recent first, then scope key, name, section."""
        if not self.body.loaded:
            d = self.hit_doc(i)
            return (-d.mtime_ns, d.scope_key, d.name, d.section_index)
        docs = self.docs
        if isinstance(docs, cache.LazyDocs):
            return docs.tiebreak(i)
        d = docs[i]
        return (-d.mtime_ns, d.scope_key, d.name, d.section_index)

    def prefix_terms(self, prefix: str) -> list[str]:
        """Indexed words that begin with ``prefix`` (not the word itself), at most MAX_EXPANSIONS."""
        vocab: list[str] | None = self.lazy.get("vocab")
        if vocab is None:
            postings = self.postings  # (a fresh process's first query pays this for every scope)
            if isinstance(postings, cache.LazyPostings):
                vocab = list(filter(str.isascii, postings.sorted_keys()))
            else:
                vocab = sorted(filter(str.isascii, postings))
            self.lazy["vocab"] = vocab
        lo = bisect.bisect_left(vocab, prefix)
        out: list[str] = []
        for term in vocab[lo : lo + MAX_EXPANSIONS + 1]:
            if not term.startswith(prefix):
                break
            if term != prefix:
                out.append(term)
        return out[:MAX_EXPANSIONS]

    def seam_table(self, keep: bool = True) -> Mapping[str, Sequence[int]]:
        """Seam key -> numbers of the documents holding it, built from the texts on first use
        (``keep``: and kept; building the term-major base doesn't keep them: the base has them)."""
        table: Mapping[str, Sequence[int]] | None = self.lazy.get("seams")
        if table is None:
            building: defaultdict[str, list[int]] = defaultdict(list)
            get_list = building.__getitem__
            for i in range(self.n):
                deque(map(list.append, map(get_list, seam_keys(self.norm(i))), repeat(i)), maxlen=0)
            table = dict(building)
            if keep:
                self.lazy["seams"] = table
        return table

    def seam_docs(self, keys: list[str]) -> set[int]:
        """Numbers of the documents of this segment holding every seam key in ``keys`` (non-empty)."""
        table = self.seam_table()
        lookup: Callable[[str], Iterable[int]]
        if isinstance(table, cache.LazyPostings):
            lookup = table.refs_of
        else:
            plain = table
            lookup = lambda k: plain.get(k, ())  # noqa: E731
        found = set(lookup(keys[0]))
        for k in keys[1:]:
            if not found:
                break
            found.intersection_update(lookup(k))
        return found

    def bigrams_with(self, char: str) -> list[str]:
        """Indexed CJK bigrams containing ``char``."""
        table: dict[str, list[str]] | None = self.lazy.get("cjk")
        if table is None:
            table = bigram_table(self.postings)
            self.lazy["cjk"] = table
        return table.get(char, [])[: MAX_EXPANSIONS * 4]


def _build_segment(
    seg_id: str,
    key: str,
    cwd: str,
    archived: bool,
    revision: str,
    fingerprint: Fingerprint | None,
    docs: Sequence[Doc],
    info: WorkspaceInfo | None,
    cached_postings: Mapping[str, list[Doc]] | None = None,
    cached_reps: Mapping[str, list[Doc]] | None = None,
    pending: cache.PendingWeights | None = None,
    seams: Mapping[str, Sequence[int]] | None = None,
    stamp: Stamp | None = None,
) -> Segment:
    if not isinstance(docs, (tuple, cache.LazyDocs)):
        docs = tuple(docs)
    postings: Mapping[str, list[Doc]]
    if cached_postings is not None:  # from the persisted cache: term lists built on first lookup
        postings = cached_postings
    else:
        building: defaultdict[str, list[Doc]] = defaultdict(list)
        get_list = building.__getitem__
        for d in docs:  # one append per posting, all in C (map over the doc's terms)
            deque(map(list.append, map(get_list, d.weights), repeat(d)), maxlen=0)
        postings = dict(building)
    field_reps: Mapping[str, list[Doc]]
    if cached_reps is not None:
        field_reps = cached_reps
    else:
        fbuild: defaultdict[str, list[Doc]] = defaultdict(list)
        for d in docs:
            for term, pts in d.analysis.points.items():
                fbuild[term] += [d] * pts
        field_reps = dict(fbuild)
    names: defaultdict[str, list[int]] = defaultdict(list)
    name_keys = docs.name_keys if isinstance(docs, cache.LazyDocs) else [d.analysis.name_key for d in docs]
    for i, name_key in enumerate(name_keys):
        if name_key:
            names[name_key].append(i)
    return Segment(
        id=seg_id,
        key=key,
        cwd=cwd,
        archived=archived,
        revision=revision,
        fingerprint=fingerprint,
        body=_Body(len(docs), _Tables(docs, postings, field_reps, dict(names))),
        info=info,
        stamp=stamp,
        lazy={k: v for k, v in (("pending", pending), ("seams", seams)) if v is not None},
    )


def _ready(seg: Segment | None) -> None:
    """Make sure the documents of a segment loaded from the persisted cache have their weights and
    field points (see :class:`cache.PendingWeights`); then share their analyses process-wide."""
    if seg is None:
        return
    seg.body.get()  # (a segment opened from the persisted index: its pending weights come with its row)
    pending: cache.PendingWeights | None = seg.lazy.get("pending")
    if pending is not None:
        pending.fill()


def _compact(seg: Segment) -> Segment:
    """``seg`` in the form of its persisted row: documents without per-document weight dicts, term
    tables as flat arrays (what a scope loaded from the cache looks like). At 100k records the dicts
    were most of the memory; the row's payload is kept until the next save writes it."""
    scope = SearchIndex._cached_scope(seg)
    payload, c = cache.encode_and_reload(scope)
    out = _build_segment(
        c.sid,
        c.key,
        c.cwd,
        c.archived,
        c.revision,
        c.fingerprint,
        c.docs,
        seg.info,
        c.postings,
        c.field_reps,
        c.pending,
        stamp=c.stamp,
    )
    out.lazy["payload"] = ((out.fingerprint, out.stamp, out.revision), payload)
    return out


def _in_base(seg: Segment, base: termbase.TermBase) -> bool:
    """Whether ``seg`` is exactly what its slot of the base was built from."""
    slot = base.by_sid.get(seg.id)
    return slot is not None and slot.n == seg.n and seg.lazy.get("generation") == slot.token


def _load_body(db: cache.CacheDB, meta: cache.ScopeMeta, lazy: dict[str, Any]) -> _Tables:
    """The tables of a segment opened from the persisted index (see :class:`_Body`)."""
    c = db.load_scope(meta)
    assert isinstance(c.docs, cache.LazyDocs) and c.postings is not None and c.field_reps is not None
    if c.pending is not None:
        lazy["pending"] = c.pending
    names: defaultdict[str, list[int]] = defaultdict(list)
    for i, name_key in enumerate(c.docs.name_keys):
        if name_key:
            names[name_key].append(i)
    return _Tables(c.docs, c.postings, c.field_reps, dict(names))


@dataclass(frozen=True)
class IndexState:
    segments: dict[str, Segment] = field(default_factory=dict)
    # Derived, filled on first use: (selected segment ids, term) -> the view's document numbers of
    # that term, heaviest BM25 weight first. A new state (after any refresh) starts empty.
    impacts: dict[tuple[tuple[str, ...], str], list[Sequence[int]]] = field(default_factory=dict)
    asked: dict[tuple[tuple[str, ...], str], int] = field(default_factory=dict)  # the query that made them
    expanded: dict[tuple[tuple[str, ...], str], dict[int, float] | None] = field(default_factory=dict)
    memo_entries: list[int] = field(default_factory=lambda: [0])  # entries held by ``impacts``
    views: dict[tuple[tuple[str, ...], str], _View] = field(default_factory=dict)  # by selected ids, base token
    base: termbase.TermBase | None = None  # the term-major base, when the persisted index has one

    def expansions(self, pq: ParsedQuery, term: str, view: _View) -> dict[int, float] | None:
        """Memoized :func:`_expansions` (as-you-type queries repeat their prefixes)."""
        if term not in pq.prefix_terms and not (len(term) == 1 and _CJK_RE.fullmatch(term)):
            return None
        key = (view.key, "\0" + term)
        if key in self.expanded:
            return self.expanded[key]
        found = _expansions(pq, term, view)
        if len(self.expanded) >= MAX_EXPANDED:
            self.expanded.clear()
        self.expanded[key] = found
        return found

    def impact(self, view: _View, term: str, only: dict[int, float] | None = None) -> list[Sequence[int]]:
        """The view's documents of ``term``, heaviest BM25 weight first, in one or more parts (each
        heaviest first; the threshold walk reads them side by side); ``only`` = documents the term
        reaches through expansions alone (prefix, CJK character) with their weights. Numbers only
        (8 bytes an entry); the walker looks weights up as it goes."""
        key = (view.key, term if only is None else "\1" + term)
        parts = self.impacts.get(key)
        if parts is not None and len(parts) > 1 and self.asked.get(key) != view.queries:
            # Asked again (a repeated or typed-on query): one merged order from now on. Read side by
            # side, parts make the walk's bound count the term once per part, and so the walk longer.
            weights = view.weights(term)
            got = only or {}
            parts = [list(heapq.merge(*parts, key=lambda i: -(weights[i] or got.get(i, 0.0))))]
            self.impacts[key] = parts
        if parts is None:
            bt = view.base_term(term)
            if bt is not None and bt.order is not None:
                parts = _base_impact(view, term, bt.order, only)
            else:
                numbers = view.docs_of(view.term(term))
                weights = view.weights(term)
                if only is not None:
                    numbers += only
                    parts = [sorted(numbers, key=lambda i: weights[i] or only[i], reverse=True)]
                else:
                    parts = [sorted(numbers, key=weights.__getitem__, reverse=True)]
            size = sum(map(len, parts))
            if self.memo_entries[0] + size > MAX_MEMO_ENTRIES:  # bound the memory, not the count
                self.impacts.clear()
                self.memo_entries[0] = 0
            self.memo_entries[0] += size
            self.impacts[key] = parts
            self.asked[key] = view.queries  # (merged when a later query asks again, not this one)
        return parts

    @functools.cached_property
    def doc_count(self) -> int:  # (a state never changes; at 100k this sum was a tenth of apply())
        return sum(s.n for s in self.segments.values())


def _segment_id(key: str, archived: bool) -> str:
    return f"{'a' if archived else 'w'}:{key}"


def _dir_stamp(directory: Path, now_ns: int) -> Stamp | None:
    """(mtime_ns, inode) of a scope folder; None when missing or too recent to trust. Creating,
    deleting or renaming a file in the folder changes its mtime: that is how the store writes
    (temp file + rename), and how most editors and file tools save."""
    try:
        st = directory.stat()
    except OSError:
        return None
    if is_racy(st, now_ns):
        return None
    return (st.st_mtime_ns, st.st_ino)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while building: the index allocates millions of small,
    acyclic objects, and each full collection walks all of them again (at 100k records that
    doubled the build time). Reference counting still frees everything as usual."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


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
        self._cache_tried = False
        self._cache_ok = False  # the cache holds a recent state (loaded, or written by us)
        self._cache_db = cache.CacheDB(self._cache_dir) if self._cache_dir is not None else None
        # Segment id -> the segment object whose row the cache holds (identity = unchanged since).
        self._saved: dict[str, Segment] = {}
        # Workspace keys a file watcher saw change (``note_changed``), looked at file by file by the
        # next refresh: an in-place rewrite keeps its folder's mtime, which a plain refresh trusts.
        self._hints: set[str] = set()
        self._hints_lock = threading.Lock()  # not self._lock: a refresh holds that for seconds
        self._watched = False
        self._base: termbase.TermBase | None = None  # the persisted term-major base, once opened or built

    # --- state --------------------------------------------------------------------------
    @property
    def store(self) -> MemoryStore:
        return self._store

    @property
    def doc_count(self) -> int:
        return self._state.doc_count

    def damaged_scopes(self) -> list[str]:
        """Keys of the scopes whose persisted texts could not be read as they were when the index
        loaded them (another process rewrote their rows meanwhile, or the rows are damaged): their
        hits may lack text until ``refresh(keys=...)`` re-reads them from the store, which any
        refresh does. A one-shot caller can refresh and search again."""
        return sorted({seg.key for seg in self._state.segments.values() if seg.damaged})

    def scope_revisions(self) -> dict[str, str]:
        """Segment id -> revision of the scope as indexed (for diagnostics and tests)."""
        return {sid: seg.revision for sid, seg in self._state.segments.items()}

    # --- refresh ------------------------------------------------------------------------
    def note_changed(self, keys: Iterable[str]) -> None:
        """A file watcher saw files of these workspaces change (any thread, never blocks).

        The next refresh that covers a noted key compares its files' stat fingerprints, as
        ``deep=True`` would for every workspace; a plain ``refresh()`` then finds in-place rewrites
        the watcher saw, at the cost of the noted folders only (not 1.8 s of stats at 100k).
        """
        with self._hints_lock:
            self._watched = True
            self._hints.update(keys)

    @property
    def watched(self) -> bool:
        """Whether a file watcher reports changes (``note_changed``): then a plain refresh suffices."""
        return self._watched

    def _take_hints(self, wanted: set[str] | None) -> set[str]:
        with self._hints_lock:
            if wanted is None:
                taken, self._hints = self._hints, set()
            else:
                taken = self._hints & wanted
                self._hints -= taken
            return taken

    def _return_hints(self, hints: set[str]) -> None:
        with self._hints_lock:
            self._hints |= hints

    def refresh(
        self,
        keys: Iterable[str] | None = None,
        *,
        deep: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> RefreshStats:
        """Bring the index up to date with the store, re-reading only scopes that changed.

        ``keys`` limits the refresh to these workspace keys (active and archived) and, if it
        contains ``"global"``, to GLOBAL.md; other segments are left as they are.

        Change detection: a workspace whose folder kept its mtime is trusted without looking at
        its files (a file created, deleted or renamed into place changes the folder's mtime: every
        store commit, and most editors). A file rewritten in place keeps it; ``refresh(keys=[...])``
        (what a file watcher that saw the folder change calls) and ``deep=True`` compare every
        file's stat fingerprint as well, and so does a plain refresh for the workspaces a watcher
        noted (:meth:`note_changed`). GLOBAL.md is always compared by its own stat.

        ``progress(done, total)`` is called (on this thread) as scopes are checked, so a window can
        say "indexing 40 %…" while a cold build runs in its worker; searches meanwhile see the
        previous state (empty before the first refresh).
        """
        t0 = time.perf_counter()
        with self._lock, _gc_paused():
            wanted = None if keys is None else set(keys)
            hints = self._take_hints(wanted)
            try:
                return self._refresh_locked(wanted, hints, deep or wanted is not None, progress, t0)
            except BaseException:
                self._return_hints(hints)  # not looked at after all
                raise

    def _refresh_locked(
        self,
        wanted: set[str] | None,
        hints: set[str],
        deep: bool,
        progress: Callable[[int, int], None] | None,
        t0: float,
    ) -> RefreshStats:
        old = self._state
        counters = _Counters()
        segments = dict(old.segments)
        loaded: dict[str, Segment] = {}
        if not segments and not self._cache_tried and self._cache_db is not None:
            self._cache_tried = True
            loaded = self._load_cache(wanted)
            segments.update(loaded)
        targets: dict[str, tuple[str, bool, WorkspaceInfo | None]] = {}
        for archived in (False, True):
            if self._root is not None:
                # The on-disk layout names the scopes; no need to have the store parse them all.
                for key in self._disk_scope_keys(archived):
                    if wanted is None or key in wanted:
                        targets[_segment_id(key, archived)] = (key, archived, None)
            else:
                for info in self._store.list_workspaces(archived=archived):
                    if wanted is None or info.key in wanted:
                        targets[_segment_id(info.key, archived)] = (info.key, archived, info)
        for sid in list(segments):
            if sid == GLOBAL_SCOPE:
                continue
            seg_key = segments[sid].key
            if sid not in targets and (wanted is None or seg_key in wanted):
                counters.removed += segments.pop(sid).n
        now_ns = time.time_ns()
        unsaved: list[Segment] = []
        total = len(targets) + (1 if wanted is None or GLOBAL_SCOPE in wanted else 0)
        cold = [(sid, key, archived) for sid, (key, archived, _) in targets.items() if sid not in segments]
        built = self._cold_build(cold, progress, total, now_ns, counters)
        segments.update(built)
        for n, (sid, (key, archived, listed)) in enumerate(targets.items()):
            if progress is not None and not built:
                progress(n, total)
            counters.checked += 1
            seg = self._refresh_workspace(
                sid, key, listed, archived, segments.get(sid), now_ns, counters, deep or key in hints
            )
            if seg is None:
                if sid in segments:
                    counters.removed += segments.pop(sid).n
            else:
                if "payload" in seg.lazy and seg is not segments.get(sid):
                    unsaved.append(seg)
                    if len(unsaved) >= FLUSH_ROWS:  # a cold build: don't hold 1,000 payloads
                        self._write_rows(unsaved)
                        unsaved.clear()
                segments[sid] = seg
        if wanted is None or GLOBAL_SCOPE in wanted:
            counters.checked += 1
            segments[GLOBAL_SCOPE] = self._refresh_global(segments.get(GLOBAL_SCOPE), now_ns, counters)
        if progress is not None:
            progress(total, total)
        counters.from_cache = sum(1 for sid, seg in loaded.items() if segments.get(sid) is seg)
        if segments.keys() != old.segments.keys() or any(old.segments[k] is not v for k, v in segments.items()):
            self._state = IndexState(segments, base=self._base)  # else keep the old state and its memoized tables
        # Persist what changed: one row per changed scope, never the whole cache.
        self._persist_locked(full=wanted is None)
        self._sync_base()
        return counters.stats(self._state.doc_count, t0)

    # --- persisted cache ----------------------------------------------------------------
    def save_cache(self) -> bool:
        """Write the scopes that changed since the cache was last written or read (e.g. when the
        window closes). False if there is no cache folder or it could not be written; search
        never depends on it."""
        with self._lock:
            return self._persist_locked(full=False)

    def _write_rows(self, segs: list[Segment]) -> None:
        """Write these new segments' rows now (their payloads are then dropped); on failure they
        stay unsaved and the end-of-refresh save tries again."""
        if self._cache_db is None:
            return
        try:
            tokens = self._cache_db.save(_rows(segs))
        except (OSError, sqlite3.Error):
            return
        for seg in segs:
            if seg.id not in tokens:
                continue
            seg.lazy["generation"] = tokens[seg.id]
            seg.lazy.pop("payload", None)
            self._saved[seg.id] = seg

    def _persist_locked(self, *, full: bool) -> bool:
        """Write the rows of segments changed since they were saved or loaded, delete the rows of
        segments gone (``full``: also rows of scopes this index never loaded and no longer has)."""
        db = self._cache_db
        if db is None:
            return False
        segments = self._state.segments
        # (A damaged segment is never written back: its row's texts did not decode, so it would save
        # empty ones; the next refresh re-reads that scope from its files.)
        changed = [seg for sid, seg in segments.items() if self._saved.get(sid) is not seg and not seg.damaged]
        removed = {sid for sid in self._saved if sid not in segments}
        try:
            if full:
                removed |= set(db.row_tokens()) - set(segments)
            # A scope whose folder stamp or fingerprint is all that changed (the same body and
            # revision as its row) gets its meta rewritten only: no payload to read and write again,
            # and its slot of the base stays valid. (After commits, every process saw such stamps.)
            metas: dict[str, tuple[Segment, str, bytes]] = {}
            for seg in changed:
                old = self._saved.get(seg.id)
                token = seg.lazy.get("generation")
                if old is not None and token and old.body is seg.body and old.revision == seg.revision:
                    meta = cache.encode_meta(
                        cache.ScopeMeta(
                            seg.id,
                            str(token),
                            seg.key,
                            seg.cwd,
                            seg.archived,
                            seg.revision,
                            seg.fingerprint,
                            seg.stamp,
                            seg.info,
                            seg.n,
                        )
                    )
                    metas[seg.id] = (seg, str(token), meta)
            if metas:
                for sid in db.save_metas((sid, token, meta) for sid, (_s, token, meta) in metas.items()):
                    self._saved[sid] = metas[sid][0]
                changed = [seg for seg in changed if self._saved.get(seg.id) is not seg]
            if not changed and not removed:
                self._cache_ok = True
                return True
            tokens = db.save(_rows(changed), sorted(removed))
        except (OSError, sqlite3.Error):
            self._cache_ok = True  # don't retry on every refresh; save_cache() can
            return False
        for seg in changed:
            if seg.id not in tokens:  # (its texts could not be read: not written back)
                continue
            seg.lazy["generation"] = tokens[seg.id]
            seg.lazy.pop("payload", None)
            self._saved[seg.id] = seg
        for sid in removed:
            self._saved.pop(sid, None)
        self._cache_ok = True
        return True

    # --- the term-major base (core/search/termbase.py) ---------------------------------------
    def _current_base(self) -> termbase.TermBase | None:
        base = self._base
        return base if base is not None and not base.dead else None

    def _sync_base(self) -> None:
        """Open the base the cache holds when it is not the one in use (a builder process wrote a
        new one, or this index has none yet): one small read per refresh."""
        db = self._cache_db
        if db is None:
            return
        token = db.base_token()
        if token is None or (self._base is not None and self._base.token == token):
            return
        base = termbase.TermBase.open(db)
        if base is not None:
            self._base = base
            self._state = IndexState(self._state.segments, base=base)

    def base_wanted(self) -> bool:
        """Whether the term-major base should be (re)written: the index is big enough for it to
        matter, it persists, and the base is missing or fewer than BASE_KEEP_SHARE of the documents
        are still the base's (the rest are searched segment by segment)."""
        state = self._state
        total = state.doc_count
        if self._cache_db is None or total < _base_min_docs():
            return False
        base = self._current_base()
        if base is None:
            return True
        kept = sum(seg.n for seg in state.segments.values() if _in_base(seg, base))
        return kept < BASE_KEEP_SHARE * total

    def request_base(self) -> bool:
        """Start a detached builder process when the base is wanted (see core/search/base_builder.py);
        True when one was started. Never waits."""
        if self._root is None or not self.base_wanted():
            return False
        from core.search import base_builder

        return base_builder.spawn(self._root)

    def build_base(self) -> bool:
        """Write the term-major base now, when it is wanted (reads every segment: tens of seconds at
        100k records; the builder process calls this). True when it wrote one."""
        with self._lock, _gc_paused():
            db = self._cache_db
            if db is None or not self.base_wanted():
                return False
            state = self._state
            # Only segments whose row holds exactly them (the base's slots name those rows).
            saved = [
                seg
                for sid, seg in sorted(state.segments.items())
                if self._saved.get(sid) is seg and seg.lazy.get("generation") and not seg.damaged
            ]
            token = secrets.token_hex(8)
            meta, _vocab, rows = termbase.build_rows(saved, token)
            try:
                db.write_base(token, meta, rows)
            except (OSError, sqlite3.Error):
                return False
            self._base = termbase.TermBase.open(db)
            self._state = IndexState(state.segments, base=self._base)
            return True

    @staticmethod
    def _cached_scope(s: Segment) -> cache.CachedScope:
        scope = cache.CachedScope(
            s.id,
            s.key,
            s.cwd,
            s.archived,
            s.revision,
            s.fingerprint,
            s.docs,
            s.info,
            s.postings,
            s.field_reps,
            seams=s.lazy.get("seams"),
        )
        scope.stamp = s.stamp
        return scope

    def _load_cache(self, wanted: set[str] | None) -> dict[str, Segment]:
        """Segments for the persisted rows, each reading its row's payload on first use."""
        db = self._cache_db
        assert db is not None
        metas = db.load_meta(wanted)
        if metas is None:
            return {}
        self._cache_ok = True
        self._base = termbase.TermBase.open(db)
        return self._opened(m for m in metas if wanted is None or m.key in wanted)

    def _opened(self, metas: Iterable[cache.ScopeMeta]) -> dict[str, Segment]:
        """A segment per row meta, reading its row's payload on first use (as saved: ``_saved``)."""
        db = self._cache_db
        assert db is not None
        out: dict[str, Segment] = {}
        for m in metas:
            lazy: dict[str, Any] = {"generation": m.token, "rows": (db, m)}
            body = _Body(m.n, load=functools.partial(_load_body, db, m, lazy))
            seg = Segment(m.sid, m.key, m.cwd, m.archived, m.revision, m.fingerprint, body, m.info, m.stamp, lazy)
            out[m.sid] = seg
            self._saved[m.sid] = seg
        return out

    # --- a cold build shared with helper processes (core/search/cold_build.py) ------------------
    def _cold_build(
        self,
        cold: list[tuple[str, str, bool]],
        progress: Callable[[int, int], None] | None,
        total: int,
        now_ns: int,
        counters: _Counters,
    ) -> dict[str, Segment]:
        """Build and write the rows of the scopes in ``cold`` ((segment id, key, archived): no
        segment yet), sharing them with helper processes once the build proves long, then open those
        rows as a reopen would. Only for a persisted index of a root (rows are how helpers hand
        their work over); {} otherwise, and every scope left out is read by the refresh as before."""
        db, root = self._cache_db, self._root
        if db is None or root is None or len(cold) < COLD_MIN_SCOPES:
            return {}
        from core.search import cold_build  # (not on a one-shot search's path: its scopes have rows)

        queue = cold_build.Queue([cold_build.Item(*c) for c in cold])
        helpers: cold_build.Helpers | None = None
        wanted_helpers = cold_build.helper_count()
        t0 = time.perf_counter()
        try:
            while (item := queue.take()) is not None:
                try:
                    reindexed = self.build_row(item.sid, item.key, archived=item.archived, now_ns=now_ns, locked=True)
                except (OSError, sqlite3.Error):
                    queue.done(item, None)
                    break  # (the cache can't be written: the refresh builds the rest in memory, as before)
                queue.done(item, reindexed)
                if progress is not None:
                    progress(queue.finished(), total)
                if helpers is None and wanted_helpers:
                    # Helpers once the pace says enough work is left to repay their start-up.
                    spent = time.perf_counter() - t0
                    left = spent / queue.finished() * queue.remaining
                    if spent >= cold_build.HELPER_AFTER_S and left >= cold_build.HELPER_MIN_REMAINING_S:
                        argv = cold_build.helper_argv(root, db.directory)
                        helpers = cold_build.Helpers(queue, argv, wanted_helpers)
        finally:
            queue.close()  # (an error here: the helpers finish the scope they hold and stop)
            if helpers is not None:
                queue.wait_helpers(None if progress is None else lambda done: progress(done, total))
        if not queue.built:
            return {}
        metas = db.load_meta({key for _, key, _ in cold}) or []
        opened = self._opened(m for m in metas if m.sid in queue.built)
        counters.reread += len(opened)
        counters.reindexed += sum(queue.built[sid] for sid in opened)
        return opened

    def build_row(self, sid: str, key: str, *, archived: bool, now_ns: int, locked: bool = False) -> int | None:
        """Read workspace ``key`` and write its row to the persisted index without keeping it in
        this index (a cold build's share, here or in a helper process); the number of documents
        indexed, or None when there is no such scope. Raises OSError/sqlite3.Error when the row
        cannot be written."""
        db = self._cache_db
        if db is None:
            raise OSError("no persisted index to write to")
        with contextlib.nullcontext() if locked else self._lock:
            directory = self._scope_dir(key, archived)
            stamp = _dir_stamp(directory, now_ns) if directory is not None else None
            fp = scope_fingerprint(directory, now_ns) if directory is not None else None
            try:
                snap = self._store.read_workspace(key, archived=archived)
            except DshMemoryError:
                return None
            counters = _Counters()
            seg = self._workspace_segment(
                sid, snap, archived, fp, None, counters, None, stamp if fp is not None else None, compact=False
            )
            rows = list(_rows([seg]))  # (encoded before the write transaction: helpers write beside us)
            db.save(rows)
            return counters.reindexed

    def apply(self, snapshot: WorkspaceSnapshot | GlobalSnapshot) -> RefreshStats:
        """Index a snapshot a store mutation just returned (a commit, a Global save): no disk reads."""
        from core.models import GlobalSnapshot

        t0 = time.perf_counter()
        with self._lock, _gc_paused():
            counters = _Counters(checked=1)
            segments = dict(self._state.segments)
            if isinstance(snapshot, GlobalSnapshot):
                segments[GLOBAL_SCOPE] = self._global_segment(snapshot, None, segments.get(GLOBAL_SCOPE), counters)
            else:
                archived = snapshot.info.archived_at is not None
                sid = _segment_id(snapshot.key, archived)
                # Not compacted into row form here (half of apply's time at 10k): one scope's
                # weight dicts are small, and the next save encodes its row either way.
                segments[sid] = self._workspace_segment(
                    sid, snapshot, archived, None, segments.get(sid), counters, compact=False
                )
            self._state = IndexState(segments, base=self._base)  # persisted by the next refresh() or save_cache()
            return counters.stats(self._state.doc_count, t0)

    def _scope_dir(self, key: str, archived: bool) -> Path | None:
        if self._root is None:
            return None
        return self._root / ("archived" if archived else "workspaces") / key

    def _disk_scope_keys(self, archived: bool) -> list[str]:
        """Scope folders as the file store sees them (same filter as FileStore._scope_keys)."""
        assert self._root is not None
        try:
            with os.scandir(self._root / ("archived" if archived else "workspaces")) as it:
                return sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            return []

    def _refresh_workspace(
        self,
        sid: str,
        key: str,
        info: WorkspaceInfo | None,
        archived: bool,
        old: Segment | None,
        now_ns: int,
        counters: _Counters,
        deep: bool = False,
    ) -> Segment | None:
        if old is not None and old.damaged:
            old = None  # (nothing of it is reused)
        directory = self._scope_dir(key, archived)
        # The folder's stamp is taken before its files are looked at: a write meanwhile changes it
        # again, so the next refresh looks again.
        stamp = _dir_stamp(directory, now_ns) if directory is not None else None
        if old is not None and not deep and stamp is not None and old.stamp == stamp and old.fingerprint is not None:
            if info is None or old.info == info:
                return old
            return old.with_meta(old.fingerprint, info, stamp)
        fp = scope_fingerprint(directory, now_ns) if directory is not None else None
        if old is not None and fp is not None and old.fingerprint == fp:
            if old.stamp == stamp and (info is None or old.info == info):
                return old
            return old.with_meta(fp, info or old.info, stamp)
        try:
            snap = self._store.read_workspace(key, archived=archived)
        except DshMemoryError:  # gone meanwhile, or a folder that is no scope (bad key)
            return None
        counters.reread += 1
        return self._workspace_segment(sid, snap, archived, fp, old, counters, info, stamp if fp is not None else None)

    def _workspace_segment(
        self,
        sid: str,
        snap: WorkspaceSnapshot,
        archived: bool,
        fp: Fingerprint | None,
        old: Segment | None,
        counters: _Counters,
        info: WorkspaceInfo | None = None,
        stamp: Stamp | None = None,
        *,
        compact: bool = True,
    ) -> Segment:
        # ``info`` is kept only when the store listed it (a store without a root is compared by it).
        cwd = (info or snap.info).cwd
        # The previous segment's tables, when they can be remapped (cache.remap_tables) instead of
        # being rebuilt from every document's weight dicts (which a loaded segment must fill first).
        tables = None
        if old is not None and isinstance(old.postings, cache.LazyPostings) and old.postings.has_weights:
            tables = (old.postings, old.field_reps)
        else:
            _ready(old)
        previous: dict[str, tuple[int, Doc]] = {d.revision: (i, d) for i, d in enumerate(old.docs)} if old else {}
        docs: list[Doc] = []
        sources: list[int | None] = []  # per new document, its number in the old tables (same text)
        for entry in snap.entries:
            record = entry.record
            if record is None or not entry.is_valid:
                continue
            found = previous.pop(entry.revision, None)
            prev = found[1] if found is not None else None
            if found is not None and prev is not None and prev.name == record.name:
                sources.append(found[0])
                if prev.cwd == cwd and prev.mtime_ns == entry.mtime_ns and prev.file_name == entry.file_name:
                    docs.append(prev)
                    continue
                analysis = prev.analysis
            else:
                analysis = analyze(record.name, record.description, record.type, record.body)
                counters.reindexed += 1
                sources.append(None)
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
                    weights=analysis.weights,
                )
            )
        counters.removed += len(previous)
        if old is not None and len(docs) == len(old.docs) and all(a is b for a, b in zip(docs, old.docs, strict=True)):
            return replace(old, revision=snap.revision, fingerprint=fp, info=info, stamp=stamp)  # nothing to re-index
        new_docs = tuple(docs)
        remapped = None
        if tables is not None and isinstance(tables[1], cache.LazyPostings):
            remapped = cache.remap_tables(tables[0], tables[1], sources, new_docs)
        if remapped is None:
            _ready(old)
            built = _build_segment(sid, snap.key, cwd, archived, snap.revision, fp, new_docs, info, stamp=stamp)
            return _compact(built) if compact else built
        postings, reps = remapped
        # Already in row form (flat arrays with weights), so not compacted: the next save encodes it.
        pending = cache.PendingWeights(new_docs, postings, reps)
        return _build_segment(
            sid, snap.key, cwd, archived, snap.revision, fp, new_docs, info, postings, reps, pending, stamp=stamp
        )

    def _refresh_global(self, old: Segment | None, now_ns: int, counters: _Counters) -> Segment:
        if old is not None and old.damaged:
            old = None
        fp = file_fingerprint(self._root / GLOBAL_FILE, now_ns) if self._root is not None else None
        if old is not None and fp is not None and old.fingerprint == fp:
            return old
        snap = self._store.read_global()
        counters.reread += 1
        return self._global_segment(snap, fp, old, counters)

    def _global_segment(
        self, snap: GlobalSnapshot, fp: Fingerprint | None, old: Segment | None, counters: _Counters
    ) -> Segment:
        if old is not None and old.revision == snap.revision:
            return old.with_meta(fp, None, None)
        _ready(old)
        mtime_ns = 0  # recency of the Global sections
        if self._root is not None:
            with contextlib.suppress(OSError):
                mtime_ns = (self._root / GLOBAL_FILE).stat().st_mtime_ns
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
                    file_name=GLOBAL_FILE,
                    section_index=section.index,
                    mtime_ns=mtime_ns,
                    revision=snap.revision,
                    analysis=analysis,
                    weights=analysis.weights,
                )
            )
        counters.removed += len(previous)
        return _compact(_build_segment(GLOBAL_SCOPE, GLOBAL_SCOPE, "", False, snap.revision, fp, docs, None))

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
        text (see :attr:`SearchHit.byte_size`; the last hit's snippet is shortened to fit when it
        can be). ``scopes``: workspace keys and/or ``"global"``; None = Global and every active
        workspace. Archived scopes are searched only with ``include_archived=True`` (also when
        named in ``scopes``). Thread-safe against a concurrent refresh.
        """
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

    # --- recall -------------------------------------------------------------------------
    def build_recall(self, cwd: str, query: str, *, limit: int = 8, max_bytes: int = 12000) -> Recall:
        from core.search.recall import build_recall

        return build_recall(self, cwd, query, limit=limit, max_bytes=max_bytes)

    def recall(self, cwd: str, query: str, *, limit: int = 8, max_bytes: int = 12000) -> str:
        """Global summary + the workspace's relevant records as deterministic, delimited text,
        labelled untrusted, credentials redacted, at most ``max_bytes`` UTF-8 bytes."""
        return self.build_recall(cwd, query, limit=limit, max_bytes=max_bytes).text

    def _docs(self, segment_id: str) -> Sequence[Doc]:
        seg = self._state.segments.get(segment_id)
        return seg.docs if seg is not None else ()

    def warm_up(self) -> float:
        """Build the derived tables queries otherwise build on first use (phrase seam keys, prefix
        vocabulary, CJK bigram map, and the term weights of segments loaded from the persisted
        cache) for every segment lacking them; returns the seconds spent. Optional: call it in the
        worker after ``refresh()`` so the first phrase query after opening a root does not pay
        ~0.1 ms per document. Segments a later commit replaces are rebuilt lazily (a few ms per
        100 records). The seam tables are kept in the persisted cache: when this call built them
        for many documents, it rewrites the cache, so the next open gets them from there."""
        t0 = time.perf_counter()
        self.request_base()  # (a detached process: see core/search/base_builder.py)
        base = self._current_base()
        # Segments the base answers for need none of this (views read the base's rows instead).
        segments = [s for s in self._state.segments.values() if base is None or not _in_base(s, base)]
        stored = {s.id: s for s in segments if "seams" not in s.lazy and s.lazy.get("generation")}
        if stored and self._cache_db is not None:  # as loaded from the cache: their tables may be saved
            tokens = {sid: str(s.lazy["generation"]) for sid, s in stored.items()}
            tables = self._cache_db.load_seams(tokens, {sid: s.docs for sid, s in stored.items()})
            for sid, table in tables.items():
                stored[sid].lazy.setdefault("seams", table)
        built: list[Segment] = []
        for seg in segments:
            if "seams" not in seg.lazy:
                built.append(seg)
            seg.seam_docs([""])
            seg.prefix_terms("")
            seg.bigrams_with("")
            for term_table in (seg.postings, seg.field_reps):  # (a cached segment's term lookup tables)
                if isinstance(term_table, cache.LazyPostings):
                    term_table.warm()
            # The normalized texts a loaded row left to recompute (all-ASCII documents, see
            # cache._stored_norm): the phrase rule reads them for every candidate.
            deque(map(seg.norm, range(len(seg.docs))), maxlen=0)
        if sum(len(seg.docs) for seg in built) >= AUTO_SAVE_DOCS and self._cache_db is not None:
            # Add the tables to the rows that hold these very segments (others get them with their
            # next row write).
            with self._lock:
                rows = [
                    (self._cached_scope(seg), str(seg.lazy["generation"]))
                    for seg in built
                    if self._saved.get(seg.id) is seg and seg.lazy.get("generation") and not seg.damaged
                ]
                with contextlib.suppress(OSError, sqlite3.Error):
                    self._cache_db.save_seams(rows)
        return time.perf_counter() - t0

    def _ranked_docs(self, query: str, scopes: Sequence[str], limit: int) -> list[tuple[Doc, float]]:
        """Ranked documents (no snippets, no byte bound): the building block of recall."""
        return self._ranked(parse_query(query), scopes, False, limit)[0]

    def _ranked(
        self, pq: ParsedQuery, scopes: Sequence[str] | None, include_archived: bool, limit: int
    ) -> tuple[list[tuple[Doc, float]], int]:
        """:func:`_rank` over the selected scopes. A scope whose persisted row turned out unreadable
        while ranking (damaged, or rewritten by another process since it was opened: see
        :class:`_Body`) matched nothing; it is re-read from its files and the query ranked again,
        unless a refresh is running (that one, or the next, re-reads it)."""
        state = self._state
        segs = _select(state, scopes, include_archived)
        ranked, total = _rank(pq, state, segs, limit)
        hurt = {s.key for s in segs if s.damaged}
        if hurt and self._heal(hurt):
            state = self._state
            ranked, total = _rank(pq, state, _select(state, scopes, include_archived), limit)
        return ranked, total

    def _heal(self, keys: set[str]) -> bool:
        """Re-read these scopes now if no refresh holds the lock (a query never waits for one)."""
        if self._store is None or not self._lock.acquire(blocking=False):
            return False
        try:
            with _gc_paused():
                self._refresh_locked(keys, set(), True, None, time.perf_counter())
            return True
        except DshMemoryError:
            return False
        finally:
            self._lock.release()


def _rows(segs: Iterable[Segment]) -> Iterator[tuple[str, bytes, bytes, bytes | None, list[bytes]]]:
    """(segment id, meta, payload, seams, texts) of the rows that persist ``segs``; encoded when a save
    asks for them (a save streams its rows), from the row :func:`_compact` kept when still
    current. A loaded segment whose texts can no longer be read gives none (see cache.LazyDocs)."""
    for seg in segs:
        kept = seg.lazy.get("payload")
        scope = SearchIndex._cached_scope(seg)
        row: tuple[bytes, list[bytes]] | None
        if kept is not None and kept[0] == (seg.fingerprint, seg.stamp, seg.revision):
            row = kept[1]
        else:  # (a loaded segment's tables are written back as loaded; no weight dicts needed)
            row = cache.encode_scope(scope)
        if row is not None:
            yield seg.id, cache.encode_meta(cache.meta_of(scope)), row[0], cache.encode_seams(scope), row[1]


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


def _expansions(pq: ParsedQuery, term: str, view: _View) -> dict[int, float] | None:
    """Documents a term reaches only through the words it stands for besides itself (longer words
    for the typed prefix, bigrams around a single CJK character), with their best weight of those
    words times PREFIX_WEIGHT, by view number. None when the term has no expansions."""
    best: dict[int, float] = {}
    words = _base_words(pq, term, view)
    if view.base is not None and words is None:  # (too many words for the base to expand exactly)
        pairs = [(s, off) for s, off in zip(view.every, view.every_offsets, strict=True) if s is not None]
    else:
        pairs = list(zip(view.segs, view.offsets, strict=True))
        if words:
            _expand_base(view, term, words, best)
    for s, offset in pairs:
        if term in pq.prefix_terms:
            seg_words = s.prefix_terms(term)
        elif len(term) == 1 and _CJK_RE.fullmatch(term):
            seg_words = s.bigrams_with(term)
        else:
            seg_words = []
        if not seg_words:
            continue
        itself = set(s.refs(term))
        for t in seg_words:
            refs, weights = s.weighted_refs(t)
            for ref, w in zip(refs, weights, strict=False):
                if ref in itself:
                    continue
                v = w * PREFIX_WEIGHT
                i = offset + ref
                if v > best.get(i, 0.0):
                    best[i] = v
    return best or None


def _flags(bits: int, n: int) -> bytes:
    """One byte per document number below ``n``: 1 where ``bits`` has it."""
    return format(bits & ((1 << n) - 1), "b").zfill(n)[::-1].encode().translate(_BITS) if n else b""


def _base_impact(view: _View, term: str, order: Sequence[int], only: dict[int, float] | None) -> list[Sequence[int]]:
    """:meth:`IndexState.impact` from the base's stored order (its documents are never sorted
    here), beside the overlay's documents and the expansions' (``only``), each sorted here: parts
    the walk reads side by side rather than one merged order (a merge ran bytecode per entry)."""
    assert view.base is not None
    parts: list[Sequence[int]] = [
        order if view.whole else list(compress(order, map(view.live_flags.__getitem__, order)))
    ]
    overlay = view.term(term) >> view.base.n
    if overlay:
        weight = view.weigher(term)
        shift = view.base.n
        parts.append(sorted(map(shift.__add__, view.docs_of(overlay)), key=lambda i: weight(i) or 0.0, reverse=True))
    if only:
        parts.append(sorted(only, key=only.__getitem__, reverse=True))
    return parts


def _base_words(pq: ParsedQuery, term: str, view: _View) -> list[str] | None:
    """The base's words ``term`` stands for, when the base can expand it exactly as each segment
    would (every segment expands to at most MAX_EXPANSIONS words, or bigrams, of its own: when the
    whole vocabulary has no more, each segment's are all of its share). None otherwise."""
    base = view.base
    if base is None:
        return None
    if term in pq.prefix_terms:
        return base.expansions(term, MAX_EXPANSIONS)
    if len(term) == 1 and _CJK_RE.fullmatch(term):
        return base.bigrams_with(term, MAX_EXPANSIONS * 4)
    return []


def _expand_base(view: _View, term: str, words: list[str], best: dict[int, float]) -> None:
    """:func:`_expansions` over the base's (unmasked) documents."""
    itself = view.base_term(term)
    keep = view.mask & ~(itself.bits if itself is not None else 0)
    base_n = view.base.n if view.base is not None else 0
    seen = 0  # documents some earlier word reached (only those need a comparison, in bytecode)
    for t in words:
        bt = view.base_term(t)
        if bt is None or bt.weights is None:
            continue
        reached = bt.bits & keep
        if not reached:
            continue
        refs = bt.refs
        first = reached & ~seen
        if first:  # (C-level: filtered and added without a comparison)
            flags = _flags(first, base_n)
            halves = map(PREFIX_WEIGHT.__mul__, bt.weights)
            best.update(compress(zip(refs, halves, strict=True), map(flags.__getitem__, refs)))
        again = reached & seen
        if again:
            flags = _flags(again, base_n)
            for i, w in compress(zip(refs, bt.weights, strict=True), map(flags.__getitem__, refs)):
                v = w * PREFIX_WEIGHT
                if v > best[i]:
                    best[i] = v
        seen |= reached


def _phrase_candidates(view: _View, phrase: str, squashed: bool = False) -> tuple[set[int] | None, bool]:
    """A superset of the view's documents containing ``phrase`` (a squashed form when
    ``squashed``), None when it has no seam / junction to look up (then every document is); and
    whether every segment's seam table was consulted. Tables not built yet are built within a time
    budget per call (the rest of their segments count as candidates), so the first phrase queries
    after opening a root are never much slower than scanning; ``warm_up()`` builds them all."""
    keys = squash_keys(phrase) if squashed else phrase_keys(phrase)
    if not keys:
        return None, True
    out: set[int] = set()
    complete = True
    deadline = time.perf_counter() + SEAM_BUILD_BUDGET_S
    for s, offset in zip(view.segs, view.offsets, strict=False):
        if "seams" not in s.lazy and time.perf_counter() > deadline:
            out.update(range(offset, offset + s.n))
            complete = False
            continue
        out.update(map(offset.__add__, s.seam_docs(keys)))
    return out, complete


def _top_bm25(
    idf: list[_Idf],
    state: IndexState,
    view: _View,
    pool: set[int],
    limit: int,
    check: Callable[[int], bool] | None = None,
) -> tuple[list[tuple[float, int]], bool]:
    """(BM25, doc) for the pool's best documents, without scoring the whole pool (threshold
    algorithm). The terms' postings are walked heaviest first, in step; each pool document met is
    scored in full. Once the ``limit``-th best score is above what an unseen document could still
    reach (the sum of the current weights), the rest cannot enter the top; documents tying with
    that bound are still collected, so ties are broken exactly as without this shortcut.

    ``check``: pool documents it rejects (when met) are not of the pool after all. The flag
    returned is True when fewer than ``limit`` documents passed (the whole pool was walked)."""
    # (A term whose documents come in several parts walks each: the bound then counts its weight
    # once per part, an overestimate that only makes the walk stop a little later.)
    walkers = [
        (weight, f, only, iter(part)) for term, f, only, weight in idf for part in state.impact(view, term, only)
    ]
    frontier = [f * 10.0 for _, f, _, _ in walkers]  # above any weight (weights < K1 + 1)
    alive = [True] * len(walkers)
    seen: set[int] = set()
    best: list[float] = []  # min-heap of the top ``limit`` BM25 scores
    found: list[tuple[float, int]] = []
    steps = 0  # postings walked so far

    while any(alive):
        for i, (wweight, f, wonly, walker) in enumerate(walkers):
            if not alive[i]:
                continue
            d = next(walker, None)
            if d is None:
                alive[i] = False
                frontier[i] = 0.0
                continue
            x = wweight(d)
            frontier[i] = f * (x if x is not None else wonly[d] if wonly is not None else 0.0)
            if d in seen or d not in pool:
                continue
            seen.add(d)
            if check is not None and not check(d):
                continue
            bm = 0.0
            for _term, tf, only, weight in idf:
                x = weight(d)
                if x is not None:
                    bm += tf * x
                elif only is not None:
                    bm += tf * only.get(d, 0.0)
            found.append((bm, d))
            if len(best) < limit:
                heapq.heappush(best, bm)
            elif bm > best[0]:
                heapq.heapreplace(best, bm)
        if len(best) >= limit and best[0] > sum(frontier):
            break
        steps += len(walkers)
        if steps > WALK_MAX:
            # A walk this long is among many near-equal weights (a common term's thousands of
            # documents of one length), most of them outside the pool: scoring the rest of the
            # pool at once is cheaper than walking on. Same sums (same order of additions; an
            # absent weight adds 0.0), visited best first; the first that cannot enter the top ends it.
            rest = [d for d in pool if d not in seen]
            scores = _bulk_bm25(idf, view, rest) if len(rest) > DENSE_POOL else [_bm25(d, idf) for d in rest]
            for bm, d in sorted(zip(scores, rest, strict=True), reverse=True):
                if len(best) >= limit and bm < best[0]:
                    break
                if check is not None and not check(d):
                    continue
                found.append((bm, d))
                if len(best) < limit:
                    heapq.heappush(best, bm)
                elif bm > best[0]:
                    heapq.heapreplace(best, bm)
            break
    kth = best[0] if len(best) >= limit else float("-inf")
    return [(bm, d) for bm, d in found if bm >= kth], len(best) < limit


def _bulk_bm25(idf: list[_Idf], view: _View, docs: list[int]) -> list[float]:
    """Each document's BM25, added term by term in the order :func:`_bm25` adds them."""
    scores = [0.0] * len(docs)
    for term, tf, only, _weight in idf:
        xs = list(map(view.weights(term).__getitem__, docs))  # (0.0: the document lacks the term)
        if only:
            xs = [x or only.get(d, 0.0) for x, d in zip(xs, docs, strict=True)]
        scores = list(map(add, scores, map(tf.__mul__, xs)))
    return scores


_BITS = bytes.maketrans(b"01", b"\x00\x01")
_NONZERO_RE = re.compile(rb"[^\x00]")
WALK_MAX = 4000  # postings a threshold walk steps through before it scores the rest of its pool at once
DENSE_POOL = 2000  # ... from the terms' dense weight arrays when more of the pool is left
SPARSE_DOCS = 64  # bitmaps with at most this many documents are decoded byte by byte
SEAM_BUILD_BUDGET_S = 0.002  # seam tables built lazily per lookup, for about this long (one segment at least)
FEW_SCANS = 64  # pending checks below this many skip the seam lookup (scanning them is cheaper)
DENSE_BYTES = 64_000_000  # per view, for the per-term weight arrays (80 terms at 100k records)
MAX_VIEW_MEMO = 4096  # memoized bitmaps per view (each n/8 bytes: 1.25 KB at 10k documents)
MAX_CHECKED = 1_000_000  # remembered phrase checks per view over the base (see _View.holds)


class _View:
    """The selected segments' documents numbered 0..n-1 (segment by segment, each at its offset),
    with memoized per-term bitmaps (Python ints, bit i = document i): set algebra and counting over
    thousands of documents then cost a few C-level big-int operations instead of per-document
    bytecode. A query works on these numbers throughout; the Doc objects are looked up for its
    hits only (a segment loaded from the persisted index makes them then). Query-independent, so
    it is memoized per index state and segment selection; a refresh starts from a new state."""

    def __init__(self, segs: list[Segment], base: termbase.TermBase | None = None) -> None:
        self.key: tuple[str, ...] = tuple(s.id for s in segs)
        self.live = sum(s.n for s in segs)  # documents of the selection (BM25's document count)
        # With the term-major base: its slots whose row is still the selected segment's are read
        # from the base (numbered as there); the other selected segments (the overlay) are numbered
        # after it and searched segment by segment. The base's other documents are masked out.
        self.base: termbase.TermBase | None = None
        self.mask = 0
        every: list[Segment | None] = list(segs)
        sizes = [s.n for s in segs]
        overlay = segs
        if base is not None and len(segs) >= BASE_MIN_SEGMENTS:
            covered = {s.id: s for s in segs if _in_base(s, base)}
            if 2 * sum(s.n for s in covered.values()) >= self.live:
                self.base = base
                self.key = (*self.key, "\0base:" + base.token)
                overlay = [s for s in segs if s.id not in covered]
                every = [covered.get(slot.sid) for slot in base.slots] + list(overlay)
                sizes = [slot.n for slot in base.slots] + [s.n for s in overlay]
        # Every numbered segment (None: a base slot not selected) at its offset.
        self.every = every
        self.every_offsets: list[int] = [0, *accumulate(sizes)][: len(sizes)]
        self.n = sum(sizes)
        # The segments searched one by one (all of them without the base) and their offsets.
        self.segs = overlay
        self.offsets = self.every_offsets[len(every) - len(overlay) :]
        # Base documents by number: 1 when the view reads them (``live``), all of them (``whole``).
        self.live_flags = b""
        self.whole = False
        if self.base is not None:
            flags = bytearray(b"0") * self.n
            live = bytearray(self.base.n)
            top = self.n
            for seg, offset, size in zip(every, self.every_offsets, sizes, strict=True):
                if seg is not None and offset < self.base.n:
                    flags[top - offset - size : top - offset] = b"1" * size
                    live[offset : offset + size] = b"\x01" * size
            self.mask = int(flags, 2) if self.n else 0
            self.live_flags = bytes(live)
            self.whole = live.count(0) == 0
        self.memo: dict[tuple[str, str], Any] = {}
        # term -> BM25 weight by document number (0.0: the document lacks the term; weights are > 0).
        # 8 bytes a document and no Python object per posting: at 100k records a weight dict per
        # common word was tens of MB, and the memo thrashed rebuilding them.
        self.dense: dict[str, array[float]] = {}
        self.max_dense = max(16, DENSE_BYTES // (8 * max(self.n, 1)))
        self.checked: dict[str, dict[int, bool]] = {}  # text -> document -> contains it (see holds)
        self.queries = 0  # queries ranked over this view so far
        self.weighed: Counter[str] = Counter()  # terms weighed by bisection so far (see weigher)

    def _seg(self, i: int) -> tuple[Segment, int]:
        k = bisect.bisect_right(self.every_offsets, i) - 1  # (empty segments share an offset: the last wins)
        seg = self.every[k]
        assert seg is not None  # (masked documents are in no bitmap a query reads)
        return seg, i - self.every_offsets[k]

    def doc(self, i: int) -> Doc:
        seg, j = self._seg(i)
        return seg.hit_doc(j)

    def norm(self, i: int) -> str:
        seg, j = self._seg(i)
        if self.base is not None and not seg.body.loaded and "rows" in seg.lazy:
            got = self.base.norm_of(seg, j)
            if got is not None:
                return got
        return seg.norm(j)

    def tiebreak(self, i: int) -> tuple[int, str, str, int]:
        seg, j = self._seg(i)
        return seg.tiebreak(j)

    def base_term(self, term: str) -> termbase.BaseTerm | None:
        """``term``'s row of the base (None without a base, or when no base document holds it)."""
        return self.base.term(term) if self.base is not None else None

    def weights(self, term: str) -> array[float]:
        got = self.dense.get(term)
        if got is None:
            got = array("d", bytes(8 * self.n))
            setter = got.__setitem__
            bt = self.base_term(term)
            if bt is not None and bt.weights is not None:  # (masked documents too: never asked for)
                deque(map(setter, bt.refs, bt.weights), maxlen=0)
            for s, offset in zip(self.segs, self.offsets, strict=False):
                refs, weights = s.weighted_refs(term)
                if refs:  # (one C-level loop per segment: ~3x faster than a Python one at 100k)
                    deque(map(setter, map(offset.__add__, refs), weights), maxlen=0)
            if len(self.dense) >= self.max_dense:
                self.dense.clear()
            self.dense[term] = got
        return got

    def weigher(self, term: str) -> Callable[[int], float | None]:
        """``document number -> BM25 weight of term`` (None when the document lacks it). Over the
        base, a bisection into its postings (a query looks up the weights of the few hundred
        documents its walk meets: no array of every document is filled), the overlay's in a dict."""
        self.weighed[term] += 1
        if self.base is None or term in self.dense or self.weighed[term] > 1:
            # (A term queried again in this view: one array of every document's weight, filled in C,
            # answers a long walk faster than bisections.)
            weights = self.weights(term)

            def dense(i: int) -> float | None:
                return weights[i] or None

            return dense
        bt = self.base_term(term)
        refs, values = (bt.refs, bt.weights) if bt is not None and bt.weights is not None else ((), ())
        over: dict[int, float] = {}
        for s, offset in zip(self.segs, self.offsets, strict=False):
            seg_refs, seg_weights = s.weighted_refs(term)
            over.update(zip(map(offset.__add__, seg_refs), seg_weights, strict=True))
        base_n, size, find = self.base.n, len(refs), bisect.bisect_left

        def weight(i: int) -> float | None:
            if i >= base_n:
                return over.get(i)
            j = find(refs, i)
            return values[j] if j < size and refs[j] == i else None

        return weight

    def bits_from(self, parts: Iterable[tuple[int, Iterable[int]]]) -> int:
        """The bitmap of the documents ``(offset, segment document numbers)`` name, built by C-level
        maps (no per-document bytecode)."""
        top = self.n - 1
        ba = bytearray(b"0") * self.n
        setter = ba.__setitem__
        for offset, refs in parts:
            deque(map(setter, map((top - offset).__sub__, refs), repeat(49)), maxlen=0)
        return int(ba, 2) if self.n else 0

    def bits_of(self, numbers: Iterable[int]) -> int:
        """The bitmap of these view document numbers."""
        return self.bits_from(((0, numbers),))

    def docs_of(self, bits: int) -> list[int]:
        """The document numbers of a bitmap, ascending."""
        if not bits:
            return []
        if bits.bit_count() > SPARSE_DOCS:
            return list(compress(range(self.n), format(bits, "b")[::-1].encode().translate(_BITS)))
        raw = bits.to_bytes((bits.bit_length() + 7) // 8, "little")
        out: list[int] = []
        for m in _NONZERO_RE.finditer(raw):  # C-level skip over empty bytes
            byte, base = m.group()[0], m.start() * 8
            while byte:
                low = byte & -byte
                out.append(base + low.bit_length() - 1)
                byte ^= low
        return out

    def _remember(self, key: tuple[str, str], value: Any) -> Any:
        if len(self.memo) >= MAX_VIEW_MEMO:
            self.memo.clear()
        self.memo[key] = value
        return value

    def _parts(self, lookup: Callable[[Segment], Iterable[int]]) -> Iterator[tuple[int, Iterable[int]]]:
        return ((offset, lookup(s)) for s, offset in zip(self.segs, self.offsets, strict=False))

    def _overlaid(self, base_key: str, lookup: Callable[[Segment], Iterable[int]]) -> int:
        """The bitmap of the base's (unmasked) documents of ``base_key`` and of the searched
        segments' documents ``lookup`` names."""
        bits = self.bits_from(self._parts(lookup)) if self.segs else 0
        bt = self.base_term(base_key)
        if bt is not None:
            bits |= bt.bits & self.mask
        return bits

    def term(self, term: str) -> int:
        """Documents holding ``term`` itself."""
        key = ("t", term)
        got = self.memo.get(key)
        if got is None:
            got = self._remember(key, self._overlaid(term, lambda s: s.refs(term)))
        return int(got)

    def named(self, name_key: str) -> int:
        """Documents whose squashed normalized name is ``name_key``."""
        return self._overlaid(termbase.NAME_PREFIX + name_key, lambda s: s.names.get(name_key, ()))

    def field_points(self, term: str) -> tuple[int, int, int]:
        """Bit 0, 1 and 2 of the field points (name 4, description 2, type 1) ``term`` earns per doc."""
        key = ("p", term)
        got = self.memo.get(key)
        if got is None:
            per_doc = Counter(
                chain.from_iterable(
                    map(offset.__add__, s.field_refs(term)) for s, offset in zip(self.segs, self.offsets, strict=False)
                )
            )
            planes = [self.bits_of([i for i, pts in per_doc.items() if pts & bit]) for bit in (1, 2, 4)]
            bt = self.base_term(term)
            if bt is not None and bt.field_refs:
                pts = bt.field_pts
                planes = [
                    plane | (self.bits_of(compress(bt.field_refs, [p & bit for p in pts])) & self.mask)
                    for plane, bit in zip(planes, (1, 2, 4), strict=True)
                ]
            got = self._remember(key, tuple(planes))
        b0, b1, b2 = got
        return int(b0), int(b1), int(b2)

    def seams(self, phrase: str, squashed: bool = False) -> tuple[int | None, bool]:
        """Superset bitmap of the documents containing ``phrase`` (None: no key to look up), and
        whether it is as tight as the seam tables allow (False while some are not built yet)."""
        key = ("j" if squashed else "s", phrase)
        if key in self.memo:
            got: int | None = self.memo[key]
            return got, True
        docs, complete = _phrase_candidates(self, phrase, squashed)
        bits = None if docs is None else self.bits_of(docs)
        if bits is not None and self.base is not None:  # (the base's documents holding every key)
            found = self.mask
            for k in squash_keys(phrase) if squashed else phrase_keys(phrase):
                bt = self.base.term(termbase.SEAM_PREFIX + k)
                found = found & bt.bits if bt is not None else 0
                if not found:
                    break
            bits |= found
        if complete:
            self._remember(key, bits)
        # Over the base, whose seam keys are complete, the overlay's tables not built yet only add a
        # few candidates (it is a few per cent of the documents): the candidates stay tight, and the
        # rank checks them one by one as their groups reach the top, not all of them at once.
        return bits, complete or self.base is not None

    def containing(self, numbers: list[int], text: str) -> int:
        """The bitmap of those of ``numbers`` whose normalized text contains ``text`` (C-level scan)."""
        if self.base is None:
            return self.bits_of(compress(numbers, map(contains, map(self.norm, numbers), repeat(text))))
        # Segment by segment (``numbers`` ascend): the base reads a segment's checked documents in
        # one go, and the results are remembered as :meth:`holds` remembers its own.
        known = self._checked(text)
        todo = [i for i in numbers if i not in known]
        offsets = self.every_offsets
        at = 0
        while at < len(todo):
            k = bisect.bisect_right(offsets, todo[at]) - 1
            seg, lo = self.every[k], offsets[k]
            assert seg is not None  # (masked documents are in no bitmap a query reads)
            end = bisect.bisect_left(todo, lo + seg.n, at)
            local = [i - lo for i in todo[at:end]]
            passed = None
            if not seg.body.loaded and "rows" in seg.lazy:
                passed = self.base.holding(seg, local, text)
            if passed is None:
                passed = [j for j in local if text in seg.norm(j)]
            known.update(zip(todo[at:end], repeat(False)))
            known.update(zip(map(lo.__add__, passed), repeat(True)))
            at = end
        return self.bits_of(compress(numbers, map(known.__getitem__, numbers)))

    def holds(self, i: int, text: str) -> bool:
        """Whether document ``i``'s normalized text contains ``text``. Remembered per view over the
        base: its texts are read from the persisted document rows, not kept in memory, so a repeated
        query would read them again."""
        if self.base is None:
            return text in self.norm(i)
        known = self._checked(text)
        got = known.get(i)
        if got is None:
            got = known[i] = text in self.norm(i)
        return got

    def _checked(self, text: str) -> dict[int, bool]:
        """The remembered checks of ``text`` (see :meth:`holds`), bounded per view."""
        known = self.checked.get(text)
        if known is None:
            if len(self.checked) >= MAX_VIEW_MEMO or sum(map(len, self.checked.values())) > MAX_CHECKED:
                self.checked.clear()
            known = self.checked[text] = {}
        return known


def _view(state: IndexState, segs: list[Segment]) -> _View:
    base = state.base if state.base is not None and not state.base.dead else None
    key = (tuple(s.id for s in segs), base.token if base is not None else "")
    view = state.views.get(key)
    if view is None:
        if len(state.views) >= 16:
            state.views.clear()
        view = state.views[key] = _View(segs, base)
    return view


def _add_bits(planes: list[int], bits: int, k: int) -> None:
    """Add ``bits`` * 2**k to the bit-sliced per-document counters ``planes`` (plane j = bit j)."""
    carry = bits
    if carry and k > len(planes):
        planes += [0] * (k - len(planes))
    while carry:
        if k == len(planes):
            planes.append(carry)
            return
        plane = planes[k]
        planes[k] = plane ^ carry
        carry &= plane
        k += 1


def _value(planes: list[int], group: int) -> int:
    """The counter value shared by every document of ``group`` (a non-empty bitmap)."""
    return sum(1 << j for j, plane in enumerate(planes) if plane & group)


def _rank(pq: ParsedQuery, state: IndexState, segs: list[Segment], limit: int) -> tuple[list[tuple[Doc, float]], int]:
    """:func:`_rank_view` over the view of ``segs``; once more without the term-major base when the
    base turns out changed or damaged on the way (it is then not used again: see termbase)."""
    try:
        return _rank_view(pq, state, segs, limit)
    except termbase.BaseGone:
        return _rank_view(pq, state, segs, limit)


def _rank_view(
    pq: ParsedQuery, state: IndexState, segs: list[Segment], limit: int
) -> tuple[list[tuple[Doc, float]], int]:
    """Top ``limit`` (doc, score) pairs and the number of matching documents.

    Rank key, lexicographic: level (3 name, 2 phrase, 1 separator-insensitive substring, 0), field
    points, coverage, BM25, then recency, scope key, name. Levels, points and coverage are bit-sliced
    counters over document bitmaps, so the best key group is found with a few big-int ANDs, group
    by group from the top, until ``limit`` documents are ranked. Phrase and substring checks that
    need a text scan are left pending (the document keeps its best possible level) and settled only
    when the document's group reaches the top; BM25 is computed only for the groups taken, and for
    a big group where the cut falls, only for the documents that can still make the top
    (threshold algorithm). Documents are view numbers throughout; Doc objects only for the result.
    """
    if pq.empty or not segs:
        return [], 0
    view = _view(state, segs)
    view.queries += 1
    n_docs = view.live or 1
    term_bits: list[int] = []
    idf: list[_Idf] = []
    for term in pq.terms:
        bits = view.term(term)
        only = state.expansions(pq, term, view)
        if only is not None:
            key = ("o", term)
            ob = view.memo.get(key)
            if ob is None or ob[0] is not only:
                ob = view._remember(key, (only, view.bits_of(only)))
            bits |= ob[1]
        term_bits.append(bits)
        df = bits.bit_count()
        if df:
            idf.append((term, math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)), only, view.weigher(term)))
    matched = 0
    for bits in term_bits:
        matched |= bits
    for phrase in pq.phrases:  # quoted phrases are required
        if not matched:
            break
        # Which documents contain the phrase is memoized per view: (checked, passed) bitmaps, so a
        # repeated query (or one typed on) scans only documents not checked before.
        key = ("q", phrase)
        checked, passed = view.memo.get(key) or (0, 0)
        todo = matched & ~checked
        if todo:
            seam = view.seams(phrase)[0] if todo.bit_count() > FEW_SCANS else None
            passed |= view.containing(view.docs_of(todo if seam is None else todo & seam), phrase)
            checked |= todo
            view._remember(key, (checked, passed))
        matched &= passed
    total = matched.bit_count()
    if not total:
        return [], 0
    if limit <= 0:
        return [], total

    # Levels. Known for certain: name (3), the query as an indexed term (2), the squashed query as
    # an indexed term (1). Pending: documents that may contain the phrase (seam keys say they can),
    # and, for a CJK squashed form, documents that may contain it. A pending document counts at its
    # best possible level until its group reaches the top, then is checked.
    named = view.named(pq.squashed) & matched if pq.squashed else 0
    full = 0
    if pq.multi_word and pq.norm:
        full = matched
        for bits in term_bits:
            full &= bits
    phrased = loose = maybe_phrase = maybe_loose = 0
    tight = True  # False: a seam table was missing, so pending checks are mostly failures
    if full:
        cand = full & ~named
        phrased = view.term(pq.norm) & cand
        maybe_phrase = cand & ~phrased
        if pq.norm in pq.phrases:  # every match contains the quoted query already
            phrased, maybe_phrase = cand, 0
        if maybe_phrase.bit_count() > FEW_SCANS:
            seam, tight = view.seams(pq.norm)
            if seam is not None:
                maybe_phrase &= seam
        if pq.squashed:
            loose = view.term(pq.squashed) & cand & ~phrased
            if not pq.squashed.isascii():
                maybe_loose = cand & ~phrased & ~loose
                if maybe_loose.bit_count() > FEW_SCANS:
                    junctions, tight_j = view.seams(pq.squashed, squashed=True)
                    tight = tight and tight_j
                    if junctions is not None:
                        maybe_loose &= junctions
    hi = named | phrased | maybe_phrase  # level bit 1 (levels 2, 3)
    lo = named | ((loose | maybe_loose) & ~maybe_phrase)  # level bit 0 (levels 1, 3)
    pts: list[int] = []
    for term in pq.terms:
        for k, bits in enumerate(view.field_points(term)):
            if bits:
                _add_bits(pts, bits & matched, k)
    cov: list[int] = []
    for bits in term_bits:
        _add_bits(cov, bits, 0)

    def settle(docs: list[int]) -> None:
        """Check pending documents; those that fail drop to their real level."""
        nonlocal hi, lo, maybe_phrase, maybe_loose
        for d in docs:
            bit = 1 << d
            if maybe_phrase & bit:
                maybe_phrase ^= bit
                if view.holds(d, pq.norm):
                    maybe_loose &= ~bit
                    continue
                hi &= ~bit
                if loose & bit:
                    lo |= bit
                    continue
            if maybe_loose & bit:
                maybe_loose ^= bit
                if view.holds(d, pq.squashed):
                    lo |= bit
                else:
                    lo &= ~bit

    def settle_all(pending: int) -> None:
        """``settle`` for many documents at once: C-level scans, one bitmap update per level."""
        nonlocal hi, lo, maybe_phrase, maybe_loose
        check = maybe_phrase & pending
        if check:
            passed = view.containing(view.docs_of(check), pq.norm)
            failed = check & ~passed
            maybe_phrase &= ~check
            maybe_loose &= ~passed
            hi &= ~failed
            lo |= failed & loose
        check = maybe_loose & pending
        if check:
            passed = view.containing(view.docs_of(check), pq.squashed)
            maybe_loose &= ~check
            lo = (lo & ~check) | passed

    scored: list[tuple[float, int]] = []
    left = matched
    need = limit
    while left and need > 0:
        group = left
        for plane in (hi, lo, *reversed(pts), *reversed(cov)):
            if group & plane:
                group &= plane
        pending = group & (maybe_phrase | maybe_loose)
        size = group.bit_count()
        if pending and (size <= need or not tight or pending.bit_count() <= 4 * limit):
            settle_all(pending)
            continue  # the group may have shrunk: find the top again
        lv = (2 if group & hi else 0) + (1 if group & lo else 0)
        coarse = float(lv * 1_000_000 + _value(pts, group) * 1000 + _value(cov, group))
        docs = view.docs_of(group)
        left &= ~group
        if size <= need or size <= 4 * limit or not idf:
            if pending:  # (not reached: handled above; kept safe)
                settle(docs)
                left |= group
                continue
            base = coarse * _TIER
            scored += [(base + _bm25(d, idf), d) for d in docs]
            need -= size
            continue
        # The cut falls in a big group: BM25 only for documents that can still make the top; pending
        # ones are checked as the walk meets them (those that fail are not of this group).
        check: Callable[[int], bool] | None = None
        if pending:

            def check(d: int, phrase_level: bool = lv >= 2) -> bool:
                settle([d])
                return bool((hi if phrase_level else lo) & (1 << d))

        tier_score = coarse * _TIER
        top, short = _top_bm25(idf, state, view, set(docs), need, check)
        scored += [(tier_score + bm, d) for bm, d in top]
        if not short:
            break
        # The walk went through the whole group (fewer than ``need`` passed): the ones that
        # failed their check rank lower, with their levels settled.
        left |= group & ~view.bits_of(d for _, d in top)
        need -= len(top)
    if len(scored) > limit:
        cut = sorted([v for v, _ in scored], reverse=True)[limit - 1]
        scored = [vd for vd in scored if vd[0] >= cut]
    scored.sort(key=lambda vd: (-vd[0], *view.tiebreak(vd[1])))
    return [(view.doc(d), v) for v, d in scored[:limit]], total


def _bm25(d: int, idf: list[_Idf]) -> float:
    bm = 0.0
    for _term, f, only, weight in idf:
        x = weight(d)
        if x is not None:
            bm += f * x
        elif only is not None:
            bm += f * only.get(d, 0.0)
    return min(bm, _TIER - 1.0)


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
