"""Persisted search index under ``<root>/.manager/cache/``: makes a cold start skip re-tokenizing.

The Markdown files stay the only truth. The cache (:class:`CacheDB`, one SQLite file) holds one row
per scope: the stat fingerprint it was built from and its documents with their analyses; a scope
whose files still have that fingerprint is used as is, any other scope is re-read through the
store (reusing the cached analyses of files whose revision did not change). A commit rewrites
that scope's row only. A row's payload is ``MAGIC + sha256(payload) + payload`` with ``payload =
marshal.dumps(...)`` of plain dicts/lists/str/int/bytes (marshal cannot execute code); a wrong
magic, checksum or shape means "no cache for that scope", and the next save replaces the row.

Opening the index reads each row's small ``meta`` column only (:class:`ScopeMeta`: the document
count, fingerprint, folder stamp); the payload is read when something first needs that scope's
tables (:meth:`CacheDB.load_scope`), by segment id **and token**, so a row another process rewrote
meanwhile is never mixed with what this one opened: it reads as a damaged stand-in
(:func:`damaged_scope`) and the index reads the scope again from its files.

Row layout, chosen so that loading is a few C-level calls per document and none per posting: the
document fields are stored column by column (the record text once: the normalized text the phrase
rule reads is recomputed from it on first use, see ``Analysis.norm``); the scope's terms are one
list. The postings and field repetitions (``term -> documents``) are flat arrays of document
numbers (2 bytes each) cut per term by end offsets, with each term table's key positions in sorted
key order (a term's first lookups bisect: no dict of every key is built), and are turned into
document lists only when a query first looks a term up (:class:`LazyPostings`); next to each
posting, its BM25 weight (a float array). The per-document weight dicts are
filled in only when the scope is re-indexed (:class:`PendingWeights`). A damaged or inconsistent
table never raises in a query: a bad weight table is re-derived from the document text, a bad
document number gives an empty list or zero weights.

The documents themselves (light fields, description, body, stored normalized text) are also rows
of a ``docs`` table, one per document, each with an 8-byte BLAKE2b digest and the scope row's
token: a hit of a query answered by the term-major base (``core/search/termbase.py``, tables
``base`` and ``base_terms`` of the same file) reads its own document's row, not its scope's
payload; a scope whose texts are needed whole reads all its document rows at once, and refuses
them unless every one decodes and matches the payload's columns (see :class:`LazyDocs`).

The phrase seam tables (built by ``SearchIndex.warm_up`` or by phrase queries) go to another
column of the same row, written with the payload or added later to a row whose random ``token``
still names the payload they were built from; ``warm_up`` reads them, so opening never pays for it.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import hashlib
import marshal
import secrets
import sqlite3
import sys
import threading
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, compress, repeat
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.models import WorkspaceInfo

from core.private_modes import private_dir, tighten_tree
from core.search.documents import Analysis, Doc, analyze
from core.search.tokenizer import normalize

DB_FILE = "search-index-v5.sqlite"
_OLD_FILES = (
    "search-index-v2.bin",
    "search-index-v3.bin",
    "search-seams-v3.bin",
    "search-index-v4.sqlite",
    "search-index-v4.sqlite-wal",
    "search-index-v4.sqlite-shm",
)
MAGIC = b"DSHSRCH5"
SEAMS_MAGIC = b"DSHSEAM5"
META_MAGIC = b"DSHMETA5"
# 5: fingerprints are core.fingerprint digests; 6: no normalized-text column (recomputed on use);
# 7: postings kept term counts instead of BM25 weights (measured, undone in 11);
# 8: document numbers of postings and field repetitions in 2 bytes (scopes under 65,536 documents);
# 9: each term table's keys in sorted order (lookups by bisection); 10: the normalized text of
# documents that are not all ASCII is stored again; 11: BM25 weights as floats again; 12: the
# texts (descriptions, bodies, normalized texts) in a column of their own, read on first use
_VERSION = 12
_DB_VERSION = 11  # 8: the texts table; 9: a meta column (rows read on first use); 10: a row per document;
# 11: document rows checked by CRC-32
_LAYOUT = f"{sys.byteorder}:{array('I').itemsize}:{array('d').itemsize}"


# Term lookups per table answered by bisection before its dict of positions is built: a one-shot
# search looks up a few terms (bisection: microseconds), a window many (the dict: one C call).
_BISECTIONS = 16


# The row's document columns: the light ones are in the payload (ranking ties, the exact-name rule);
# the texts (descriptions, bodies, normalized texts) are a checksummed blob in a column of their
# own, read and decoded when a query first reads a text of that scope (see LazyDocs).
_LIGHT = ("kind", "name", "type", "file_name", "section_index", "mtime_ns", "revision")
_LIGHT_TYPES = (str, str, str, str, int, int, str, str, int)  # + name_key, length
_TEXTS = ("description", "body")  # + the stored normalized text


class LazyDocs(Sequence[Doc]):
    """A loaded scope's documents, kept as the row's columns: the :class:`Doc` objects are made
    only when something needs them (a hit, a re-index of the scope), all at once and once; the
    texts are read from the scope's document rows (the docs table) when first needed.

    A query ranks by document number (``norm``, ``tiebreak`` and the term tables need no
    ``Doc``), so a fresh process never builds 100,000 of them to answer one search (at 100k
    records that was a third of the time to open the persisted index), and opening the index
    reads no text at all (two fifths of what the rows hold): a query that reads no text of a scope
    (no phrase to check, no hit there) never reads that scope's texts. Thread-safe: objects are
    made under a lock, so every caller sees the same ones (the index keys tables by them).

    Texts that can't be had as they were when the row was loaded are never guessed at: document
    rows that fail their digest, do not decode to this scope's shape or do not match its columns (a
    bug, a damaged or forged file), or rows another process has rewritten since (their token
    changed), read as empty texts, and ``damaged`` turns true: the index never writes such a
    segment back and re-reads that scope from the store (the query that found it does so at once,
    unless a refresh is running)."""

    __slots__ = ("_docs", "_light", "_lock", "_norms", "_raw", "_texts", "archived", "cwd", "damaged", "key")

    def __init__(
        self,
        key: str,
        cwd: str,
        archived: bool,
        light: list[list[Any]],
        texts: Callable[[], list[bytes] | None] | tuple[list[str], list[str], list[str]],
    ) -> None:
        self.key = key
        self.cwd = cwd
        self.archived = archived
        # kinds, names, types, files, sections, mtimes, revisions, name_keys, lengths
        self._light = light
        # Reads the row's texts (None: the row is gone or was rewritten since).
        self._raw: Callable[[], list[bytes] | None] | None = None if isinstance(texts, tuple) else texts
        # (descriptions, bodies, stored normalized texts: "" = all-ASCII, lower-cased on first use)
        self._texts: tuple[list[str], list[str], list[str]] | None = texts if isinstance(texts, tuple) else None
        self._norms: list[str | None] | None = None
        self._docs: tuple[Doc, ...] | None = None
        self._lock = threading.Lock()
        self.damaged = False

    def __len__(self) -> int:
        return len(self._light[-1])

    @property
    def light(self) -> list[list[Any]]:
        return self._light

    @property
    def name_keys(self) -> list[str]:
        return self._light[7]

    @property
    def materialized(self) -> bool:
        return self._docs is not None

    def texts(self) -> tuple[list[str], list[str], list[str]]:
        got = self._texts
        if got is None:
            with self._lock:
                got = self._texts
                if got is None:
                    got = self._texts = self._decode_texts()
                    self._raw = None
        return got

    def doc_rows(self) -> list[bytes] | None:
        """The documents as the docs table stores them; None when they could not be read (damaged)."""
        texts = self.texts()
        return None if self.damaged else doc_rows(self._light, texts)

    def _decode_texts(self) -> tuple[list[str], list[str], list[str]]:
        n = len(self)
        light = self._light
        try:
            rows = self._raw() if self._raw is not None else None
            if rows is not None and len(rows) == n:
                descs: list[str] = []
                bodies: list[str] = []
                norms: list[str] = []
                for i, data in enumerate(rows):
                    values = decode_doc_row(data)
                    # (The light fields must be the payload's: a row of another scope or version is refused.)
                    if any(values[k] != light[k][i] for k in range(len(_LIGHT_TYPES))):
                        raise ValueError("a document row of another scope")
                    descs.append(values[-3])
                    bodies.append(values[-2])
                    norms.append(values[-1])
                return descs, bodies, norms
        except _ROW_ERRORS:  # (damaged, or of another version)
            pass
        self.damaged = True
        empty = [""] * n
        return empty, empty, empty

    def norm(self, i: int) -> str:
        """Document ``i``'s normalized text (what the phrase rule reads), without making its Doc."""
        norms = self._norms
        if norms is None:
            norms = self._norms = [n or None for n in self.texts()[2]]
        got = norms[i]
        if got is None:
            docs = self._docs
            if docs is not None:
                got = docs[i].analysis.norm
            else:
                descs, bodies, _ = self.texts()
                light = self._light
                got = normalize(f"{light[1][i]}\n{descs[i]}\n{light[2][i]}\n{bodies[i]}")
            norms[i] = got
        return got

    def tiebreak(self, i: int) -> tuple[int, str, str, int]:
        """``(-mtime_ns, scope key, name, section index)`` of document ``i``: the rank's last keys."""
        light = self._light
        return (-light[5][i], self.key, light[1][i], light[4][i])

    def docs(self) -> tuple[Doc, ...]:
        docs = self._docs
        if docs is None:
            descs, bodies, stored = self.texts()
            with self._lock:
                docs = self._docs
                if docs is None:
                    docs = self._docs = self._make(descs, bodies, stored)
        return docs

    def _make(self, descs: list[str], bodies: list[str], stored: list[str]) -> tuple[Doc, ...]:
        kinds, names, types, files, sections, mtimes, revisions, name_keys, lengths = self._light
        key, cwd, archived = self.key, self.cwd, self.archived
        known = self._norms
        out: list[Doc] = []
        for i, stored_norm in enumerate(stored):
            weights: dict[str, float] = {}  # filled by PendingWeights.fill() when the scope is re-indexed
            norm = (known[i] if known is not None else None) or stored_norm or None
            source = (names[i], descs[i], types[i], bodies[i]) if norm is None else None
            analysis = Analysis(weights, {}, norm, name_keys[i], lengths[i], source)
            out.append(
                Doc(
                    key,
                    cwd,
                    archived,
                    kinds[i],
                    names[i],
                    descs[i],
                    types[i],
                    bodies[i],
                    files[i],
                    sections[i],
                    mtimes[i],
                    revisions[i],
                    analysis,
                    weights,
                )
            )
        return tuple(out)

    def __getitem__(self, i: Any) -> Any:
        return self.docs()[i]

    def __iter__(self) -> Iterator[Doc]:
        return iter(self.docs())


class LazyPostings(Mapping[str, list[Doc]]):
    """``term -> documents`` over flat arrays; a term's list is built on its first lookup.

    Keys iterate in the order they were saved (the order of the eagerly built table). Safe to
    share between threads: a race builds the same list twice, harmlessly. Document numbers out of
    range (a cache that passed its checksum yet is inconsistent) give an empty list, never an
    exception in a query."""

    __slots__ = (
        "_docs",
        "_done",
        "_ends",
        "_keys",
        "_lookups",
        "_order",
        "_pos",
        "_refs",
        "_weights",
    )

    def __init__(
        self,
        keys: list[str],
        ends: array[int],
        refs: array[int],
        docs: Sequence[Doc],
        weights: array[float] | None = None,
        order: array[int] | None = None,
    ) -> None:
        self._keys = keys
        # Key positions in sorted key order (persisted with the row): a fresh process finds a term
        # by bisection instead of first building a dict of every key of every scope (at 100k
        # records, millions of entries and a quarter of the first query).
        self._order = order
        self._lookups = 0
        self._ends = ends
        self._refs = refs
        self._docs = docs
        # For postings tables, each posting's BM25 weight (aligned with refs). (Storing the term's
        # count instead, 2 bytes rather than 8, and computing the weights of a queried term from it
        # was measured: a fifth smaller rows, but a fresh process's first queries 30-50 % slower.)
        self._weights = weights
        self._pos: dict[str, int] | None = None  # built on first use
        self._done: dict[str, list[Doc]] = {}

    def _slice_weights(self, i: int) -> array[float]:
        """The BM25 weights of the postings of term number ``i``."""
        start = self._ends[i - 1] if i else 0
        assert self._weights is not None
        return self._weights[start : self._ends[i]]

    def _positions(self) -> dict[str, int]:
        pos = self._pos
        if pos is None:
            pos = self._pos = dict(zip(self._keys, range(len(self._keys)), strict=True))
        return pos

    def _find(self, term: str) -> int | None:
        """Position of ``term`` among the keys; None when it is not one."""
        order = self._order
        if order is None or self._pos is not None:
            return self._positions().get(term)
        self._lookups += 1
        if self._lookups > _BISECTIONS:  # a long-lived process: the dict pays for itself from here
            return self._positions().get(term)
        keys = self._keys
        j = bisect.bisect_left(order, term, key=keys.__getitem__)
        if j < len(order) and keys[order[j]] == term:
            return order[j]
        return None

    def warm(self) -> None:
        """Build what lookups otherwise build on first use (a window's worker calls this through
        ``SearchIndex.warm_up``, so its first queries don't pay it)."""
        self._positions()

    def sorted_keys(self) -> list[str]:
        """The keys in sorted order."""
        if self._order is None:
            return sorted(self._keys)
        return list(map(self._keys.__getitem__, self._order))

    def _load(self, term: str) -> list[Doc] | None:
        """The documents of ``term`` (None: not a key), built from the arrays and remembered."""
        i = self._find(term)
        if i is None:
            return None
        start = self._ends[i - 1] if i else 0
        docs = self._docs
        if isinstance(docs, LazyDocs):
            docs = docs.docs()
        try:
            got = list(map(docs.__getitem__, self._refs[start : self._ends[i]]))
        except IndexError:
            got = []
        self._done[term] = got
        return got

    def _slice(self, term: str) -> tuple[int, array[int]] | None:
        """(position, document numbers) of ``term``; None when it is not a key, or when a number
        is out of range (an inconsistent row that passed its checksum)."""
        i = self._find(term)
        if i is None:
            return None
        refs = self._refs[self._ends[i - 1] if i else 0 : self._ends[i]]
        if refs and max(refs) >= len(self._docs):
            return None
        return i, refs

    def refs_of(self, term: str) -> Sequence[int]:
        """The document numbers of ``term`` (empty: see :meth:`_slice`), straight from the arrays."""
        got = self._slice(term)
        return got[1] if got is not None else ()

    @property
    def has_weights(self) -> bool:
        return self._weights is not None

    def slices(self) -> Iterator[tuple[str, array[int], array[float] | None]]:
        """Every ``(term, document numbers, weights or None)``, straight from the arrays in key order
        (building the term-major base reads whole tables); empty when a number is out of range."""
        refs, weights, ends = self._refs, self._weights, self._ends
        if refs and max(refs) >= len(self._docs):
            return
        start = 0
        for term, end in zip(self._keys, ends, strict=True):
            yield term, refs[start:end], weights[start:end] if weights is not None else None
            start = end

    def term_arrays(self, term: str) -> tuple[array[int], array[float]] | None:
        """(document numbers, BM25 weights) of ``term``'s postings, straight from the arrays."""
        got = self._slice(term) if self.has_weights else None
        if got is None:
            return None
        return got[1], self._slice_weights(got[0])

    # The query paths look terms up here: a term seen before costs one frame and a dict lookup.
    def __getitem__(self, term: str) -> list[Doc]:
        got = self._done.get(term)
        if got is None:
            got = self._load(term)
            if got is None:
                raise KeyError(term)
        return got

    def get(self, term: str, default: Any = None) -> Any:
        got = self._done.get(term)
        if got is None:
            got = self._load(term)
            if got is None:
                return default
        return got

    def __contains__(self, term: object) -> bool:
        return term in self._done or (isinstance(term, str) and self._find(term) is not None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def remap_tables(
    postings: LazyPostings, field_reps: LazyPostings, sources: list[int | None], docs: tuple[Doc, ...]
) -> tuple[LazyPostings, LazyPostings] | None:
    """The term tables of a re-indexed scope, made from its previous tables instead of from every
    document's weight dicts: ``docs`` are the new documents and ``sources[i]`` the number document
    ``i`` had in the previous tables (same text, so the same postings), or None for a document
    analyzed afresh (its ``analysis`` gives its postings). None when the previous tables can't be
    read that way (no weights, or numbers out of range); the caller then builds from the dicts.

    A commit into a loaded 100-record workspace re-indexed it by first filling all 100 documents'
    weight dicts from the arrays (~20 ms, the most of ``apply()``); this reads the arrays once."""
    old_n = len(postings._docs)
    if postings._weights is None or field_reps._docs is not postings._docs:
        return None
    new_of = [-1] * old_n
    for i, j in enumerate(sources):
        if j is not None:
            if not 0 <= j < old_n:
                return None
            new_of[j] = i
    fresh = [(i, docs[i].analysis) for i, j in enumerate(sources) if j is None]

    keep = bytes(1 if i >= 0 else 0 for i in new_of)
    code = _ref_code(len(docs))

    def merge(table: LazyPostings, weighted: bool) -> LazyPostings | None:
        # Whole-array passes in C (which postings are kept, their new numbers, their weights),
        # then one slice per term; only the terms of the afresh-analyzed documents are merged one
        # by one (a commit changes a record or two: a few hundred postings).
        old_refs, old_weights = table._refs, table._weights
        try:
            mask = bytes(map(keep.__getitem__, old_refs))
            refs_all = array(code, map(new_of.__getitem__, compress(old_refs, mask)))
        except IndexError:
            return None
        weights_all = array("d", compress(old_weights, mask)) if weighted and old_weights is not None else None
        added: dict[str, list[tuple[int, float]]] = {}
        for i, analysis in fresh:
            if weighted:
                for term, w in analysis.weights.items():
                    added.setdefault(term, []).append((i, w))
            else:
                for term, pts in analysis.points.items():
                    added.setdefault(term, []).extend([(i, 0.0)] * pts)
        keys: list[str] = []
        refs = array(code)
        weights = array("d")
        ends = array("I")
        start = at = 0
        for term, end in zip(table._keys, table._ends, strict=True):
            count = mask.count(1, start, end)
            start = end
            term_refs = refs_all[at : at + count]
            term_weights = weights_all[at : at + count] if weights_all is not None else None
            at += count
            extra = added.pop(term, None)
            if extra is not None:
                ws = term_weights if term_weights is not None else repeat(0.0)  # (field repetitions: no weights)
                pairs = sorted([*zip(term_refs, ws, strict=False), *extra], key=itemgetter(0))
                term_refs = array(code, [r for r, _ in pairs])
                term_weights = array("d", [w for _, w in pairs])
            if not term_refs:
                continue  # (a word only the removed documents had)
            keys.append(term)
            refs.extend(term_refs)
            if weighted and term_weights is not None:
                weights.extend(term_weights)
            ends.append(len(refs))
        for term, pairs in added.items():  # words new to the scope
            pairs.sort(key=itemgetter(0))
            keys.append(term)
            refs.extend([r for r, _ in pairs])
            if weighted:
                weights.extend([w for _, w in pairs])
            ends.append(len(refs))
        order = array("I", sorted(range(len(keys)), key=keys.__getitem__))
        return LazyPostings(keys, ends, refs, docs, weights if weighted else None, order)

    new_postings = merge(postings, True)
    new_reps = merge(field_reps, False)
    if new_postings is None or new_reps is None:
        return None
    return new_postings, new_reps


_FILL_LOCK = threading.Lock()


class PendingWeights:
    """The BM25 weights and field points of a loaded scope's documents, kept in the term tables
    (postings with their weights, field repetitions) until :meth:`fill` inverts them into the (so
    far empty) per-document dicts, in place. Only re-indexing a scope needs those dicts (its
    unchanged documents' terms go into the new tables); queries and saves read the tables."""

    __slots__ = ("_args", "done")

    def __init__(self, docs: Sequence[Doc], postings: LazyPostings, field_reps: LazyPostings) -> None:
        self.done = False
        self._args: tuple[Sequence[Doc], LazyPostings, LazyPostings] | None = (docs, postings, field_reps)

    def fill(self) -> bool:
        """Fill the dicts (once; thread-safe). True when this call did it."""
        if self.done:
            return False
        with _FILL_LOCK:
            if self.done or self._args is None:
                return False
            docs, postings, reps = self._args
            if isinstance(docs, LazyDocs):
                docs = docs.docs()
            try:  # (document numbers out of range: an inconsistent cache that passed its checksum)
                if not postings.has_weights:
                    raise ValueError("no posting weights")
                start = 0
                for i, (term, end) in enumerate(zip(postings._keys, postings._ends, strict=True)):
                    weights = postings._slice_weights(i)
                    if len(weights) != end - start:
                        raise ValueError("bad posting weights")
                    for ref, w in zip(postings._refs[start:end], weights, strict=True):
                        docs[ref].analysis.weights[term] = w
                    start = end
                start = 0
                for term, end in zip(reps._keys, reps._ends, strict=True):
                    for ref in reps._refs[start:end]:
                        points = docs[ref].analysis.points
                        points[term] = points.get(term, 0) + 1
                    start = end
            except (IndexError, ValueError):  # re-derive them from the text, as a fresh build does
                for d in docs:
                    fresh = analyze(d.name, d.description, d.type, d.body)
                    d.analysis.weights.clear()
                    d.analysis.weights.update(fresh.weights)
                    d.analysis.points.clear()
                    d.analysis.points.update(fresh.points)
            self._args = None
            self.done = True
            return True


class CachedScope:
    """One scope as the cache remembers it."""

    def __init__(
        self,
        sid: str,
        key: str,
        cwd: str,
        archived: bool,
        revision: str,
        fingerprint: str | None,
        docs: Sequence[Doc],
        info: WorkspaceInfo | None,
        postings: Mapping[str, list[Doc]] | None = None,
        field_reps: Mapping[str, list[Doc]] | None = None,
        pending: PendingWeights | None = None,
        seams: Mapping[str, Sequence[int]] | None = None,
    ) -> None:
        self.sid = sid
        self.key = key
        self.cwd = cwd
        self.archived = archived
        self.revision = revision
        self.fingerprint = fingerprint
        self.docs: Sequence[Doc] = docs if isinstance(docs, (tuple, LazyDocs)) else tuple(docs)
        self.info = info
        self.postings = postings  # term -> docs (saves rebuilding the postings)
        self.field_reps = field_reps  # term -> docs, repeated by field points
        self.pending = pending  # the documents' weights and points, still to be filled in
        self.seams = seams  # phrase seam key -> document numbers (see index.phrase_keys), when it was built
        self.stamp: tuple[int, int] | None = None  # the scope folder's (mtime_ns, inode) when it was read
        self.generation = ""  # token of the row it was loaded from (pairs it with that row's seams)


@dataclass(frozen=True)
class ScopeMeta:
    """What opening the index reads of a row: enough to number the scope's documents and to tell
    whether its files changed (the row's ``meta`` column, a few hundred bytes). The payload, with
    the documents and term tables, is read when something first needs them (``CacheDB.load_scope``)."""

    sid: str
    token: str
    key: str
    cwd: str
    archived: bool
    revision: str
    fingerprint: str | None
    stamp: tuple[int, int] | None
    info: WorkspaceInfo | None
    n: int


def meta_of(s: CachedScope) -> ScopeMeta:
    """The meta of the row that persists ``s`` (its token is the one it was loaded with, if any)."""
    return ScopeMeta(
        s.sid, s.generation, s.key, s.cwd, s.archived, s.revision, s.fingerprint, s.stamp, s.info, len(s.docs)
    )


def encode_meta(m: ScopeMeta) -> bytes:
    """A row's meta column (the token is the row's own column, not part of it)."""
    return _wrap(META_MAGIC, _meta_fields(m))


def _meta_fields(m: ScopeMeta) -> dict[str, Any]:
    """The fields of a row's meta (the payload repeats them: a row is checked against its meta)."""
    return {
        "sid": m.sid,
        "key": m.key,
        "cwd": m.cwd,
        "archived": m.archived,
        "revision": m.revision,
        "fingerprint": m.fingerprint,
        "stamp": list(m.stamp) if m.stamp is not None else None,
        "info": m.info.model_dump(mode="json") if m.info is not None else None,
        "n": m.n,
    }


def decode_meta(token: str, data: bytes) -> ScopeMeta:
    """A row's meta; raises ValueError (or another of _ROW_ERRORS) for anything else."""
    return _meta_from(_unwrap(META_MAGIC, data), token)


def _meta_from(raw: Any, token: str) -> ScopeMeta:
    """The meta fields of a row's meta or payload object, checked (see :func:`_meta_fields`)."""
    if not isinstance(raw, dict):
        raise ValueError("bad cache meta")
    sid, key, cwd, archived, revision, n = (raw.get(k) for k in ("sid", "key", "cwd", "archived", "revision", "n"))
    fingerprint, stamp_raw, info_raw = raw.get("fingerprint"), raw.get("stamp"), raw.get("info")
    if not (
        isinstance(sid, str)
        and isinstance(key, str)
        and isinstance(cwd, str)
        and isinstance(archived, bool)
        and isinstance(revision, str)
        and isinstance(n, int)
        and n >= 0
        and (fingerprint is None or isinstance(fingerprint, str))
        and (stamp_raw is None or (isinstance(stamp_raw, list) and len(stamp_raw) == 2))
    ):
        raise ValueError("bad cache meta")
    stamp = (int(stamp_raw[0]), int(stamp_raw[1])) if stamp_raw is not None else None
    info = None
    if info_raw is not None:  # (only for stores listed by the store itself; on-disk roots have none)
        from core.models import WorkspaceInfo

        info = WorkspaceInfo.model_validate(info_raw)
    return ScopeMeta(sid, token, key, cwd, archived, revision, fingerprint, stamp, info, n)


def damaged_scope(meta: ScopeMeta) -> CachedScope:
    """The stand-in for a row that turned out unreadable when first needed (damaged, or rewritten
    by another process since its meta was read): as many documents as the meta promised (the
    index has numbered them already), none of them matching anything, ``damaged`` so that the
    index never writes it back and re-reads the scope from its files."""
    n = meta.n
    columns: list[list[Any]] = [
        ["record"] * n,
        [""] * n,
        [""] * n,
        [""] * n,
        [-1] * n,
        [0] * n,
        [""] * n,
        [""] * n,
        [0] * n,
    ]
    empty = [""] * n
    docs = LazyDocs(meta.key, meta.cwd, meta.archived, columns, (empty, empty, empty))
    docs.damaged = True
    none = LazyPostings([], array("I"), array(_ref_code(n)), docs, array("d"), array("I"))
    reps = LazyPostings([], array("I"), array(_ref_code(n)), docs, None, array("I"))
    out = CachedScope(
        meta.sid, meta.key, meta.cwd, meta.archived, meta.revision, meta.fingerprint, docs, meta.info, none, reps
    )
    out.pending = PendingWeights(docs, none, reps)
    out.stamp = meta.stamp
    out.generation = meta.token
    return out


def _u32(values: Iterable[int]) -> bytes:
    return array("I", values).tobytes()


def _ref_code(n: int) -> str:
    """Array type of the document numbers of a scope of ``n`` documents: 2 bytes each below 65,536
    (every workspace in practice), else 4; known from ``n`` alone, so a row does not say it."""
    return "H" if n < 1 << 16 else "I"


def _table(table: Mapping[str, list[Doc]], term_no: dict[str, int], docs: Sequence[Doc], weighted: bool = False) -> Any:
    """``(term numbers, end offsets, document numbers[, ("d", weights)])`` of a term -> documents
    table; ``weighted``: with each posting's BM25 weight (the postings table; weights must be filled)."""
    ids = _u32(map(term_no.__getitem__, table))
    if isinstance(table, LazyPostings) and table._docs is docs and (table.has_weights or not weighted):
        # As loaded: the arrays are still right.
        out = (ids, table._ends.tobytes(), array(_ref_code(len(docs)), table._refs).tobytes())
        if not weighted:
            return out
        assert table._weights is not None
        return (*out, ("d", table._weights.tobytes()))
    where = {d: i for i, d in enumerate(docs)}
    lists = list(table.values())
    refs = array(_ref_code(len(docs)), map(where.__getitem__, chain.from_iterable(lists)))
    out = (ids, _u32(accumulate(map(len, lists))), refs.tobytes())
    if not weighted:
        return out
    weights = array("d")
    for term, term_docs in zip(table, lists, strict=True):
        weights.extend([d.weights[term] for d in term_docs])
    return (*out, ("d", weights.tobytes()))


def _key_order(table: Mapping[str, list[Doc]]) -> bytes:
    """Positions of ``table``'s keys (in its order) sorted by key: see LazyPostings._order."""
    if isinstance(table, LazyPostings) and table._order is not None:
        return table._order.tobytes()
    keys = list(table)
    return _u32(sorted(range(len(keys)), key=keys.__getitem__))


def _keyed_table(table: Mapping[str, Sequence[int]], docs: Sequence[Doc]) -> Any:
    """Like :func:`_table` for a table whose keys are not terms and whose values are document
    numbers (the seam tables): the keys are stored as they are."""
    if isinstance(table, LazyPostings):
        return (table._keys, table._ends.tobytes(), array("I", table._refs).tobytes())
    lists = list(table.values())
    refs = array("I", chain.from_iterable(lists))
    return (list(table), _u32(accumulate(map(len, lists))), refs.tobytes())


def _encode_scope(s: CachedScope) -> tuple[dict[str, Any], tuple[list[str], list[str], list[str]] | None]:
    """The row's payload object, and the texts of its document rows when they were made here."""
    docs = s.docs
    postings = s.postings if s.postings is not None else {}
    reps = s.field_reps if s.field_reps is not None else {}
    # Per-document weights and points are not stored: they are the term tables read the other way
    # (see PendingWeights), and only re-indexing needs them.
    term_no: dict[str, int] = dict(zip(postings, range(len(postings)), strict=True))
    for t in reps:
        term_no.setdefault(t, len(term_no))
    texts: tuple[list[str], list[str], list[str]] | None = None
    if isinstance(docs, LazyDocs):  # as loaded: the columns are still right (no Doc needs making)
        light = docs.light
    else:
        light, texts = _columns(docs)
    return {
        **_meta_fields(meta_of(s)),
        "columns": light,
        "terms": list(term_no),
        "postings": _table(postings, term_no, docs, weighted=True) if s.postings is not None else None,
        "field_reps": _table(reps, term_no, docs) if s.field_reps is not None else None,
        "postings_order": _key_order(postings),
        "field_reps_order": _key_order(reps),
    }, texts


def _columns(docs: Sequence[Doc]) -> tuple[list[list[Any]], tuple[list[str], list[str], list[str]]]:
    """(light columns, (descriptions, bodies, stored normalized texts)) of ``docs``."""
    light = [[getattr(d, f) for d in docs] for f in _LIGHT]
    light += [[getattr(d.analysis, f) for d in docs] for f in ("name_key", "length")]
    descs, bodies = ([getattr(d, f) for d in docs] for f in _TEXTS)
    # The normalized text of an all-ASCII document is not stored: it is its text lower-cased (the
    # record text again: most of a fifth of the payload), and a loaded document recomputes it with
    # one str.lower() when a phrase first needs it (Analysis.norm); "" stands for it (a normalized
    # text is never empty: it holds three newlines). Other documents keep theirs: NFKC and case
    # folding of the whole text would cost a fresh process's first phrase queries twice their time.
    return light, (descs, bodies, [_stored_norm(d) for d in docs])


def _stored_norm(d: Doc) -> str:
    if d.name.isascii() and d.description.isascii() and d.type.isascii() and d.body.isascii():
        return ""
    return d.analysis.norm


def _wrap(magic: bytes, obj: dict[str, Any]) -> bytes:
    payload = marshal.dumps({"version": _VERSION, "layout": _LAYOUT, **obj})
    return magic + hashlib.sha256(payload).digest() + payload


def _unwrap(magic: bytes, data: bytes) -> dict[str, Any]:
    if not data.startswith(magic) or len(data) < len(magic) + 32:
        raise ValueError("not a search cache")
    digest = data[len(magic) : len(magic) + 32]
    payload = memoryview(data)[len(magic) + 32 :]
    if hashlib.sha256(payload).digest() != digest:
        raise ValueError("damaged search cache")
    try:
        obj = marshal.loads(payload)
    except (EOFError, ValueError, TypeError) as exc:
        raise ValueError("unreadable search cache") from exc
    if not isinstance(obj, dict) or obj.get("version") != _VERSION or obj.get("layout") != _LAYOUT:
        raise ValueError("search cache of another version")
    return obj


def encode_scope(s: CachedScope) -> tuple[bytes, list[bytes]] | None:
    """One scope's row: its payload (``MAGIC + sha256 + marshal(...)``) and its documents' rows (see
    :func:`doc_rows`); None when a loaded scope's texts can no longer be read (it is not written
    back, see LazyDocs)."""
    obj, texts = _encode_scope(s)
    if texts is not None:
        rows: list[bytes] | None = doc_rows(obj["columns"], texts)
    else:
        assert isinstance(s.docs, LazyDocs)
        rows = s.docs.doc_rows()
    return None if rows is None else (_wrap(MAGIC, obj), rows)


def encode_and_reload(s: CachedScope) -> tuple[tuple[bytes, list[bytes]], CachedScope]:
    """``(encode_scope(s), decode_scope(...))`` of a freshly built scope, without decoding the
    payload again: the scope in the form a loaded row has (what a cold build keeps), and its row."""
    obj, texts = _encode_scope(s)
    assert texts is not None  # (a built scope's documents are Doc objects)
    return (_wrap(MAGIC, obj), doc_rows(obj["columns"], texts)), _decode_scope(obj, texts)


# A row of the docs table: one document's light fields (as the payload's columns), its description,
# body and stored normalized text, after a CRC-32 of them. A hit of a query the term-major base
# answers reads its documents' rows only (a few KB), not its scope's payload. CRC-32 and not a
# cryptographic digest: it is there to find damage (a forger who can write this file can write the
# records it is derived from), and a quoted phrase at 100k checks ~34,000 rows: BLAKE2b of a 4 KB
# row is 5.4 µs here, CRC-32 1.3 µs (database version 11).
DOC_DIGEST = 4
_DOC_TYPES = (*_LIGHT_TYPES, str, str, str)


def seal_doc_row(data: bytes) -> bytes:
    """A docs-table row: ``data`` (marshalled values) after its CRC-32."""
    return zlib.crc32(data).to_bytes(DOC_DIGEST, "little") + data


def doc_rows(light: list[list[Any]], texts: tuple[list[str], list[str], list[str]]) -> list[bytes]:
    return [seal_doc_row(marshal.dumps(list(values))) for values in zip(*light, *texts, strict=True)]


def decode_doc_row(data: Any) -> list[Any]:
    """The values of a docs-table row; raises ValueError for anything else."""
    if not isinstance(data, bytes) or len(data) <= DOC_DIGEST:
        raise ValueError("not a document row")
    body = memoryview(data)[DOC_DIGEST:]
    if zlib.crc32(body).to_bytes(DOC_DIGEST, "little") != data[:DOC_DIGEST]:
        raise ValueError("damaged document row")
    values = marshal.loads(body)
    if not isinstance(values, list) or tuple(map(type, values)) != _DOC_TYPES:
        raise ValueError("bad document row")
    return values


def doc_row_norm(data: Any) -> str:
    """The normalized text of a docs-table row (what the phrase rule reads), exactly as the
    :class:`Doc` made from it would give it (:func:`doc_from_row`, ``Analysis.norm``), without making
    one: a phrase scan over the base checks tens of thousands. Raises ValueError like
    :func:`decode_doc_row`."""
    values = decode_doc_row(data)
    norm: str = values[-1]
    # (name, description, type, body): the order of Analysis's source
    return norm or normalize(f"{values[1]}\n{values[-3]}\n{values[2]}\n{values[-2]}")


def doc_from_row(key: str, cwd: str, archived: bool, data: Any) -> Doc:
    """A :class:`Doc` made from one docs-table row (for a hit; its weights stay empty: re-indexing
    reads the whole scope). Raises ValueError for a row that does not decode."""
    kind, name, type_, file_name, section, mtime_ns, revision, name_key, length, desc, body, norm = decode_doc_row(data)
    source = (name, desc, type_, body) if not norm else None
    analysis = Analysis({}, {}, norm or None, name_key, length, source)
    return Doc(key, cwd, archived, kind, name, desc, type_, body, file_name, section, mtime_ns, revision, analysis, {})


def encode_seams(s: CachedScope) -> bytes | None:
    if s.seams is None or (isinstance(s.seams, LazyPostings) and s.seams._docs is not s.docs):
        return None  # (a loaded table numbers the documents it was loaded with)
    return _wrap(SEAMS_MAGIC, {"seams": _keyed_table(s.seams, s.docs)})


def _arr(code: str, raw: Any) -> array[Any]:
    if not isinstance(raw, bytes):
        raise ValueError("bad cache array")
    out = array(code)
    out.frombytes(raw)
    return out


def _ends(raw: Any, count: int, total: int) -> array[int]:
    ends = _arr("I", raw)
    if len(ends) != count or (count and ends[-1] != total):
        raise ValueError("bad cache offsets")
    return ends


def _lazy(raw: Any, terms: list[str], docs: Sequence[Doc], weighted: bool = False, order: Any = None) -> LazyPostings:
    if raw is None:
        raise ValueError("missing cache table")
    ids_raw, ends_raw, refs_raw, *rest = raw
    ids = _arr("I", ids_raw)
    refs = _arr(_ref_code(len(docs)), refs_raw)
    ends = _ends(ends_raw, len(ids), len(refs))
    keys = list(map(terms.__getitem__, ids))
    weights = None
    if rest:
        kind, raw_values = rest[0]
        if kind != "d":
            raise ValueError("bad cache weights")
        weights = _arr(kind, raw_values)
        if len(weights) != len(refs):
            raise ValueError("bad cache weights")
    elif weighted:
        raise ValueError("bad cache weights")
    key_order = _arr("I", order)
    if len(key_order) != len(keys) or (keys and max(key_order) >= len(keys)):
        raise ValueError("bad cache key order")
    return LazyPostings(keys, ends, refs, docs, weights, key_order)


def _decode_scope(
    raw: Any, texts: Callable[[], list[bytes] | None] | tuple[list[str], list[str], list[str]] | None = None
) -> CachedScope:
    """A row's scope; ``texts``: its texts, or what reads its document rows (None: no texts)."""
    m = _meta_from(raw, "")
    n = m.n
    columns = raw["columns"]
    terms = raw["terms"]
    if not (
        isinstance(terms, list)
        and set(map(type, terms)) <= {str}
        and isinstance(columns, list)
        and len(columns) == len(_LIGHT_TYPES)
        and all(isinstance(c, list) and len(c) == n for c in columns)
    ):
        raise ValueError("bad cache scope")
    for col, kind_of in zip(columns, _LIGHT_TYPES, strict=True):
        if not set(map(type, col)) <= {kind_of}:
            raise ValueError("bad cache column")
    if min(columns[-1], default=0) < 0:  # (token counts)
        raise ValueError("bad cache column")
    terms = list(map(sys.intern, terms))  # one copy of each word across scopes, as a fresh build has
    tdocs = LazyDocs(m.key, m.cwd, m.archived, columns, texts if texts is not None else _no_texts)
    postings = _lazy(raw["postings"], terms, tdocs, weighted=True, order=raw["postings_order"])
    field_reps = _lazy(raw["field_reps"], terms, tdocs, order=raw["field_reps_order"])
    pending = PendingWeights(tdocs, postings, field_reps)
    out = CachedScope(
        m.sid, m.key, m.cwd, m.archived, m.revision, m.fingerprint, tdocs, m.info, postings, field_reps, pending
    )
    out.stamp = m.stamp
    return out


def _no_texts() -> list[bytes] | None:
    return None


def decode_scope(data: bytes, texts: Callable[[], list[bytes] | None] | None = None) -> CachedScope:
    """A cached scope; raises ValueError for anything that isn't an intact row of this version.
    ``texts`` reads the row's texts when they are first needed."""
    return _decode_scope(_unwrap(MAGIC, data), texts)


def decode_seams(data: bytes, docs: Sequence[Doc]) -> LazyPostings:
    obj = _unwrap(SEAMS_MAGIC, data)
    keys, ends_raw, refs_raw = obj["seams"]
    if not (isinstance(keys, list) and set(map(type, keys)) <= {str}):
        raise ValueError("bad seams table")
    refs = _arr("I", refs_raw)
    return LazyPostings(keys, _ends(ends_raw, len(keys), len(refs)), refs, docs)


_IN_CHUNK = 500  # document numbers per "i IN (...)" (SQLite allows 32,766 parameters since 3.32)
_ROW_ERRORS = (ValueError, TypeError, KeyError, IndexError, OverflowError, EOFError)  # pydantic's is a ValueError
ROW_ERRORS = _ROW_ERRORS
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS scopes("
    " sid TEXT PRIMARY KEY, token TEXT NOT NULL, meta BLOB NOT NULL, payload BLOB NOT NULL, seams BLOB) WITHOUT ROWID"
)
# The documents of each scope row, one row each, with that row's token: a table of their own, not a
# column after the payload (SQLite reads a row's overflow pages in order, so reading a last column
# read the payload again: 1,000 scopes' texts took seconds at 100k), and a row per document so that
# a hit reads its own document only.
_DOCS_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS docs("
    " sid TEXT NOT NULL, i INTEGER NOT NULL, token TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (sid, i))"
)


# The term-major base (core/search/termbase.py): its slot list and vocabulary, and one row per
# term. Rowid tables: a term row is up to a few MB, which WITHOUT ROWID tables store poorly.
_BASE_SCHEMA = "CREATE TABLE IF NOT EXISTS base(k TEXT PRIMARY KEY, token TEXT NOT NULL, data BLOB NOT NULL)"
_BASE_TERMS_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS base_terms(term TEXT PRIMARY KEY, token TEXT NOT NULL, data BLOB NOT NULL)"
)


class CacheDB:
    """The persisted index: one SQLite row per scope (its documents, analyses and tables, as one
    checksummed payload), so a commit rewrites one row, never the whole cache, and two processes
    (the window and a CLI search) can update it concurrently under SQLite's locking. A row that is
    damaged, of another layout or inconsistent is skipped (that scope is rebuilt from the store); a
    file that is not a database of ours is replaced. Every failure means "no cache": search never
    depends on it. SQLite, not ``core.atomic``: a derived cache needs transactions per row, which a
    whole-file atomic write cannot give without rewriting everything."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / DB_FILE
        self._con: sqlite3.Connection | None = None
        # A second connection, for reading texts on demand from query threads: never
        # inside a write transaction of the first (which would show rows not committed yet).
        self._reader: sqlite3.Connection | None = None
        self._reader_lock = threading.Lock()

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if self._con is not None:
            return self._con
        if not create and not self.path.is_file():
            return None
        for attempt in (1, 2):
            try:
                if create:
                    private_dir(self.directory)  # every record's text: owner-only (issue 25)
                con = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False, isolation_level=None)
                tighten_tree(self.path)  # before the first write: SQLite gives -wal/-shm the db's mode
                try:
                    con.execute("PRAGMA journal_mode=WAL")
                    con.execute("PRAGMA synchronous=NORMAL")  # a cache: integrity yes, durability not needed
                    version = con.execute("PRAGMA user_version").fetchone()[0]
                    if version not in (0, _DB_VERSION):
                        raise sqlite3.DatabaseError("search cache of another version")
                    con.execute(_SCHEMA)
                    con.execute(_DOCS_SCHEMA)
                    con.execute(_BASE_SCHEMA)
                    con.execute(_BASE_TERMS_SCHEMA)
                    con.execute(f"PRAGMA user_version={_DB_VERSION}")
                except BaseException:
                    con.close()
                    raise
            except sqlite3.DatabaseError:  # not a database of ours (or damaged): replace it, once
                if attempt == 2 or not create:
                    return None
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(OSError):
                        (self.directory / (DB_FILE + suffix)).unlink()
                continue
            except (sqlite3.Error, OSError):
                return None
            self._con = con
            return con
        return None

    def close(self) -> None:
        if self._con is not None:
            with contextlib.suppress(sqlite3.Error):
                self._con.close()
            self._con = None
        with self._reader_lock:
            if self._reader is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._reader.close()
                self._reader = None

    def _reader_con(self) -> sqlite3.Connection | None:
        """The read-only connection (opened on first use; call with ``_reader_lock`` held)."""
        if self._reader is None:
            if not self.path.is_file():
                return None
            self._reader = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False, isolation_level=None)
            self._reader.execute("PRAGMA query_only=1")
        return self._reader

    def _row(self, sql: str, args: tuple[str, ...] = ()) -> tuple[Any, ...] | None:
        """The one row ``sql`` selects, through the read-only connection (query threads read on
        demand; never inside a write transaction of the main connection); None on any failure."""
        with self._reader_lock:
            try:
                reader = self._reader_con()
                if reader is None:
                    return None
                row: tuple[Any, ...] | None = reader.execute(sql, args).fetchone()
                return row
            except sqlite3.Error:
                return None

    def _read(self, sql: str, args: tuple[str, ...]) -> bytes | None:
        """The one blob ``sql`` selects (see :meth:`_row`)."""
        row = self._row(sql, args)
        data = row[0] if row is not None else None
        return data if isinstance(data, bytes) else None

    def read_texts(self, sid: str, token: str) -> list[bytes] | None:
        """The document rows of ``sid``'s row, in order, if that row is still the one of ``token``
        (another process may have rewritten it since it was loaded: then None, never newer texts)."""
        with self._reader_lock:
            try:
                reader = self._reader_con()
                if reader is None:
                    return None
                rows = reader.execute("SELECT i, token, data FROM docs WHERE sid = ? ORDER BY i", (sid,)).fetchall()
            except sqlite3.Error:
                return None
        if any(i != n or tok != token for n, (i, tok, _) in enumerate(rows)):
            return None
        return [data for _, _, data in rows]

    def read_docs(self, sid: str, token: str, numbers: Sequence[int]) -> list[bytes] | None:
        """Documents ``numbers`` of ``sid``'s row, in that order, if that row is still the one of
        ``token`` and holds each of them (else None)."""
        found: dict[int, bytes] = {}
        with self._reader_lock:
            try:
                reader = self._reader_con()
                if reader is None:
                    return None
                for at in range(0, len(numbers), _IN_CHUNK):
                    chunk = numbers[at : at + _IN_CHUNK]
                    marks = ",".join("?" * len(chunk))
                    sql = f"SELECT i, data FROM docs WHERE sid = ? AND token = ? AND i IN ({marks})"
                    found.update(reader.execute(sql, (sid, token, *chunk)))
            except sqlite3.Error:
                return None
        # (numbers are distinct, so a row missing or of another token leaves fewer)
        return [found[i] for i in numbers] if len(found) == len(numbers) else None

    def read_doc(self, sid: str, token: str, i: int) -> bytes | None:
        """Document ``i`` of ``sid``'s row if that row is still the one of ``token``."""
        with self._reader_lock:
            try:
                reader = self._reader_con()
                if reader is None:
                    return None
                row = reader.execute("SELECT token, data FROM docs WHERE sid = ? AND i = ?", (sid, i)).fetchone()
            except sqlite3.Error:
                return None
        return row[1] if row is not None and row[0] == token and isinstance(row[1], bytes) else None

    def load_meta(self, wanted: set[str] | None = None) -> list[ScopeMeta] | None:
        """The metas of the intact rows (all, or those whose key is in ``wanted``); None when there
        is no cache file at all, or it is unreadable. Reads no payload: see :meth:`load_scope`."""
        con = self._connect(create=False)
        if con is None:
            return None
        out: list[ScopeMeta] = []
        try:
            for sid, token, data in con.execute("SELECT sid, token, meta FROM scopes"):
                if wanted is not None and sid.partition(":")[2] not in wanted and sid not in wanted:
                    continue
                try:
                    meta = decode_meta(token, data)
                except _ROW_ERRORS:
                    continue
                if meta.sid == sid:
                    out.append(meta)
        except sqlite3.Error:
            return None
        return out

    def load_scope(self, meta: ScopeMeta) -> CachedScope:
        """The scope of the row ``meta`` was read from. Never raises: a row that is gone, was
        rewritten since (another token), is damaged or does not match its meta gives
        :func:`damaged_scope` (the index then re-reads the scope from its files)."""
        data = self._read("SELECT payload FROM scopes WHERE sid = ? AND token = ?", (meta.sid, meta.token))
        if data is not None:
            try:
                scope = decode_scope(data, functools.partial(self.read_texts, meta.sid, meta.token))
            except _ROW_ERRORS:
                pass
            else:
                found = (scope.sid, scope.revision, scope.fingerprint, len(scope.docs))
                if found == (meta.sid, meta.revision, meta.fingerprint, meta.n):
                    scope.stamp = meta.stamp
                    scope.info = meta.info
                    scope.generation = meta.token
                    return scope
        return damaged_scope(meta)

    def load_seams(self, tokens: Mapping[str, str], docs: Mapping[str, Sequence[Doc]]) -> dict[str, LazyPostings]:
        """Seam tables of the scopes whose row still holds the payload they were loaded from
        (``tokens``: segment id -> token); damaged or missing tables are left out."""
        con = self._connect(create=False)
        if con is None or not tokens:
            return {}
        try:
            rows = con.execute("SELECT sid, token, seams FROM scopes WHERE seams IS NOT NULL").fetchall()
        except sqlite3.Error:
            return {}
        out: dict[str, LazyPostings] = {}
        for sid, token, data in rows:
            if sid not in docs or tokens.get(sid) != token:
                continue
            try:
                out[sid] = decode_seams(data, docs[sid])
            except _ROW_ERRORS:
                continue
        return out

    def save(
        self, changed: Iterable[tuple[str, bytes, bytes, bytes | None, list[bytes]]], removed: Iterable[str] = ()
    ) -> dict[str, str]:
        """Write the rows ``(segment id, meta, payload, seams, document rows)`` of ``changed`` (consumed one at a time:
        a cold save of 1,000 scopes never holds every payload at once) and delete those of
        ``removed`` segment ids, in one transaction; returns segment id -> the token of its new
        row. Raises OSError/sqlite3.Error."""
        con = self._connect(create=True)
        if con is None:
            raise OSError(f"cannot open the search cache {self.path}")
        tokens: dict[str, str] = {}

        # (A batch's worth: a cold build saves 64 scopes at a time.)
        doc_rows: list[tuple[str, int, str, bytes]] = []
        written: list[tuple[str]] = []

        def rows() -> Iterator[tuple[str, str, bytes, bytes, bytes | None]]:
            for sid, meta, payload, seams, docs in changed:
                token = tokens[sid] = secrets.token_hex(8)
                written.append((sid,))
                doc_rows.extend((sid, i, token, data) for i, data in enumerate(docs))
                yield sid, token, meta, payload, seams

        with contextlib.closing(con.cursor()) as cur:
            cur.execute("BEGIN IMMEDIATE")
            try:
                gone = [(sid,) for sid in removed]
                cur.executemany("DELETE FROM scopes WHERE sid = ?", gone)
                cur.executemany("DELETE FROM docs WHERE sid = ?", gone)
                cur.executemany("INSERT OR REPLACE INTO scopes VALUES (?, ?, ?, ?, ?)", rows())
                cur.executemany("DELETE FROM docs WHERE sid = ?", written)  # (a scope that shrank)
                cur.executemany("INSERT INTO docs VALUES (?, ?, ?, ?)", doc_rows)
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        for old in _OLD_FILES:  # a cache of an earlier layout is never read again
            with contextlib.suppress(OSError):
                (self.directory / old).unlink()
        return tokens

    def save_seams(self, scopes: Iterable[tuple[CachedScope, str]]) -> int:
        """Add seam tables to rows that still hold the payload of ``token``; returns rows updated."""
        con = self._connect(create=False)
        if con is None:
            return 0
        rows = [(data, s.sid, token) for s, token in scopes if (data := encode_seams(s)) is not None]
        with contextlib.closing(con.cursor()) as cur:
            cur.execute("BEGIN IMMEDIATE")
            try:
                cur.executemany("UPDATE scopes SET seams = ? WHERE sid = ? AND token = ?", rows)
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        return len(rows)

    def read_base_meta(self) -> tuple[str, bytes] | None:
        """(token, data) of the term-major base, if there is one."""
        row = self._row("SELECT token, data FROM base WHERE k = 'base'")
        if row is None or not isinstance(row[0], str) or not isinstance(row[1], bytes):
            return None
        return row[0], row[1]

    def base_token(self) -> str | None:
        row = self._row("SELECT token FROM base WHERE k = 'base'")
        return row[0] if row is not None and isinstance(row[0], str) else None

    def read_base_term(self, term: str, token: str) -> bytes | None:
        """A term row of the base of ``token`` (None: no such row in that base)."""
        return self._read("SELECT data FROM base_terms WHERE term = ? AND token = ?", (term, token))

    def write_base(self, token: str, meta: bytes, rows: Iterable[tuple[str, bytes]]) -> None:
        """Replace the term-major base, in one transaction (rows consumed one at a time).
        Raises OSError/sqlite3.Error."""
        con = self._connect(create=True)
        if con is None:
            raise OSError(f"cannot open the search cache {self.path}")
        with contextlib.closing(con.cursor()) as cur:
            cur.execute("BEGIN IMMEDIATE")
            try:
                cur.execute("DELETE FROM base")
                cur.execute("DELETE FROM base_terms")
                cur.executemany("INSERT INTO base_terms VALUES (?, ?, ?)", ((t, token, d) for t, d in rows))
                cur.execute("INSERT INTO base VALUES ('base', ?, ?)", (token, meta))
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise

    def save_metas(self, metas: Iterable[tuple[str, str, bytes]]) -> set[str]:
        """Rewrite only the meta of rows ``(segment id, token, meta)`` that still hold that token (a
        scope whose folder stamp or stat fingerprint changed while its files did not: its payload,
        document rows and the base's slot stay as they are); returns the segment ids written."""
        con = self._connect(create=False)
        if con is None:
            return set()
        done: set[str] = set()
        with contextlib.closing(con.cursor()) as cur:
            cur.execute("BEGIN IMMEDIATE")
            try:
                for sid, token, meta in metas:
                    cur.execute("UPDATE scopes SET meta = ? WHERE sid = ? AND token = ?", (meta, sid, token))
                    if cur.rowcount:
                        done.add(sid)
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        return done

    def row_tokens(self) -> dict[str, str]:
        """Segment id -> token of every row (for tests and diagnostics)."""
        con = self._connect(create=False)
        if con is None:
            return {}
        return dict(con.execute("SELECT sid, token FROM scopes").fetchall())


__all__ = [
    "DB_FILE",
    "CacheDB",
    "CachedScope",
    "LazyDocs",
    "LazyPostings",
    "PendingWeights",
    "decode_scope",
    "encode_and_reload",
    "encode_scope",
]
