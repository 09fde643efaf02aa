"""The term-major base: every persisted scope's postings merged into one table keyed by term.

Per-scope rows (``cache.CacheDB``) are what a commit rewrites, but a query over every scope then
visits 1,000 segments per term at 100k records, and a fresh process has to read every row before
its first answer. The base is the same postings the other way round: one row per term, with the
documents of every scope it was built from numbered in one space (slot by slot, each scope a slot
at its offset), their BM25 weights and field points, plus one row per exact-name key. A fresh
process reads the base's slot list and vocabulary, then only the rows of its query's terms.

It is derived and never trusted blindly:

- Each slot names the row (segment id and row token) its documents came from. A view uses a slot
  only when the segment it selects is still the one of that row (same token, same document
  count); every other scope (changed since, new, or opened from another row) is searched through
  its own segment, numbered after the base (the "overlay"), and the base's documents of such
  slots are masked out. So a commit never rewrites the base; it is rebuilt when the overlay has
  grown (``SearchIndex`` decides when).
- Every row is checksummed and carries the base's token. A row that fails its checksum, does not
  match the base's shape, or belongs to another base (another process rebuilt it meanwhile)
  raises :class:`BaseGone`: the query is ranked again without the base, which is then not used by
  this process again.

Ranking through the base is the ranking through the segments, number for number (the views'
numbering differs, the scores and the order do not): the tests compare both.
"""

from __future__ import annotations

import bisect
import threading
from array import array
from collections import Counter, OrderedDict, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from operator import contains, gt
from typing import TYPE_CHECKING, Any, Protocol

from core.search.cache import _ROW_ERRORS, LazyPostings, _unwrap, _wrap, doc_row_norm
from core.search.tokenizer import bigram_table

if TYPE_CHECKING:
    from core.search.cache import CacheDB

BASE_MAGIC = b"DSHBASE1"
TERM_MAGIC = b"DSHBTRM1"
# + a squashed normalized name: the exact-name rule's documents (terms never hold control characters)
NAME_PREFIX = "\x01n"
SEAM_PREFIX = "\x01s"  # + a seam or junction key (index.phrase_keys): the phrase rule's candidates
DENSE_SHARE = 64  # a term held by more than 1 / DENSE_SHARE of the documents stores its bitmap too
MEMO_BYTES = 96_000_000  # decoded term rows kept per base (a window's queries repeat their terms)
SINGLE_ROWS = 4  # documents of a scope read row by row before its rows are read at once
ROWS_BYTES = 24_000_000  # document rows kept per base for phrase scans (a scan of every scope reads all)


class BaseGone(Exception):
    """The base changed or turned out damaged while in use: rank again without it."""


@dataclass(frozen=True)
class Slot:
    sid: str
    token: str  # the token of the per-scope row the slot's documents came from
    n: int
    offset: int


class BaseTerm:
    """One term's postings over the base's numbering: document numbers (ascending), their BM25
    weights (None for a name key), the bitmap of those documents, the documents that earn field
    points with the term, with their points (name 4 + description 2 + type 1), and the documents
    heaviest weight first (what the threshold walk reads; sorted once, by the builder)."""

    __slots__ = ("bits", "field_pts", "field_refs", "order", "refs", "size", "weights")

    def __init__(
        self,
        refs: array[int],
        weights: array[float] | None,
        bits: int,
        field_refs: array[int],
        field_pts: bytes,
        order: array[int] | None = None,
    ) -> None:
        self.refs = refs
        self.weights = weights
        self.bits = bits
        self.field_refs = field_refs
        self.field_pts = field_pts
        self.order = order
        self.size = 20 * len(refs) + len(field_pts) * 5 + 64


def _array(code: str, raw: Any, size: int | None = None) -> array[Any]:
    """An array decoded from a row's bytes; ValueError unless it has ``size`` items (when given)."""
    out = array(code)
    out.frombytes(raw)
    if size is not None and len(out) != size:
        raise ValueError("a base array of another length")
    return out


def _bits(refs: Iterable[int], n: int) -> int:
    """The bitmap of these document numbers (C-level maps, as ``_View.bits_from``)."""
    if not n:
        return 0
    ba = bytearray(b"0") * n
    top = n - 1
    deque(map(ba.__setitem__, map(top.__sub__, refs), repeat(49)), maxlen=0)
    return int(ba, 2)


class TermBase:
    """An opened base (see the module docstring). Thread-safe; rows are read on demand through the
    cache's read-only connection and remembered up to :data:`MEMO_BYTES`."""

    def __init__(self, db: CacheDB, token: str, slots: list[Slot], vocab: list[str], n: int) -> None:
        self._db = db
        self.token = token
        self.slots = slots
        self.by_sid = {s.sid: s for s in slots}
        self.vocab = vocab  # the real terms, sorted (prefix and CJK-character expansions)
        self._vocab_set = frozenset(vocab)
        self.n = n
        self.dead = False
        self._cjk: dict[str, list[str]] | None = None
        self._memo: OrderedDict[str, BaseTerm | None] = OrderedDict()
        # (segment id, row token) -> that scope's document rows, for phrase scans (see norm_of)
        self._rows: OrderedDict[tuple[str, str], list[bytes]] = OrderedDict()
        self._rows_bytes = 0
        self._asked: dict[tuple[str, str], int] = {}  # rows asked for one at a time, per scope
        self._memo_bytes = 0
        self._lock = threading.Lock()

    @classmethod
    def open(cls, db: CacheDB) -> TermBase | None:
        """The base the cache holds, or None (none yet, damaged, or of another version)."""
        got = db.read_base_meta()
        if got is None:
            return None
        token, data = got
        try:
            obj = _unwrap(BASE_MAGIC, data)
            raw_slots, vocab = obj["slots"], obj["vocab"]
            if not (isinstance(raw_slots, list) and isinstance(vocab, list) and set(map(type, vocab)) <= {str}):
                raise ValueError("bad base")
            slots: list[Slot] = []
            offset = 0
            for sid, row_token, n in raw_slots:
                if not (isinstance(sid, str) and isinstance(row_token, str) and isinstance(n, int) and n >= 0):
                    raise ValueError("bad base slot")
                slots.append(Slot(sid, row_token, n, offset))
                offset += n
        except (*_ROW_ERRORS, AttributeError):
            return None
        if vocab != sorted(vocab):
            return None
        return cls(db, token, slots, vocab, offset)

    def term(self, term: str) -> BaseTerm | None:
        """The postings of ``term`` (or of a :data:`NAME_PREFIX` key); None when no document of the
        base holds it. Raises BaseGone (see the module docstring)."""
        if self.dead:
            raise BaseGone(term)
        with self._lock:
            if term in self._memo:
                self._memo.move_to_end(term)
                return self._memo[term]
        known = term.startswith("\x01") or term in self._vocab_set  # (a name or seam key: read to know)
        got = self._read(term) if known else None
        with self._lock:
            self._memo[term] = got
            self._memo_bytes += got.size if got is not None else 64
            while self._memo_bytes > MEMO_BYTES and len(self._memo) > 1:
                _, old = self._memo.popitem(last=False)
                self._memo_bytes -= old.size if old is not None else 64
        return got

    def _read(self, term: str) -> BaseTerm | None:
        data = self._db.read_base_term(term, self.token)
        if data is None:
            if term in self._vocab_set or self._db.base_token() != self.token:
                self.dead = True  # (a term of the vocabulary has a row; a gone row means another base)
                raise BaseGone(term)
            return None  # (a name key no document has)
        try:
            obj = _unwrap(TERM_MAGIC, data)
            refs = _array("I", obj["refs"])
            weights = _array("d", obj["weights"], len(refs)) if obj["weights"] is not None else None
            order = _array("I", obj["order"], len(refs)) if obj["order"] is not None else None
            field_refs = _array("I", obj["field_refs"])
            field_pts = obj["field_pts"]
            if not isinstance(field_pts, bytes) or len(field_pts) != len(field_refs):
                raise ValueError("bad base field points")
            n = self.n
            # (The builder writes the numbers ascending, and the order as a permutation of them, under
            # the checksum: the last number bounds them all; a full scan per row was a third of a
            # fresh process's first query at 100k.)
            if (refs and refs[-1] >= n) or (field_refs and max(field_refs) >= n):
                raise ValueError("bad base numbers")
            raw_bits = obj["bits"]
            if raw_bits is not None:
                if not isinstance(raw_bits, bytes) or len(raw_bits) != (n + 7) // 8:
                    raise ValueError("bad base bitmap")
                bits = int.from_bytes(raw_bits, "little")
                if bits.bit_count() != len(refs):
                    raise ValueError("bad base bitmap")
            else:
                bits = _bits(refs, n)
        except (*_ROW_ERRORS, AttributeError) as exc:
            self.dead = True
            raise BaseGone(term) from exc
        return BaseTerm(refs, weights, bits, field_refs, field_pts, order)

    def norm_of(self, seg: _Scoped, i: int) -> str | None:
        """The normalized text of document ``i`` of a segment whose body was not read (a phrase scan
        over the base reads thousands): from its document rows, kept in a bounded memo here, so
        that no Doc is made and kept for each document scanned. None when the rows can't be read
        (the caller then reads the segment's body, which finds out whether it is damaged)."""
        made = seg.lazy.get("hit_docs")
        if made is not None and i in made:
            return str(made[i].analysis.norm)
        db, meta = seg.lazy["rows"]
        key = (meta.sid, meta.token)
        with self._lock:
            rows = self._rows.get(key)
            if rows is not None:
                self._rows.move_to_end(key)
            else:
                asked = self._asked[key] = self._asked.get(key, 0) + 1
        if rows is None and asked <= SINGLE_ROWS:  # (a walk checks a document here and there: its own row)
            try:
                return doc_row_norm(db.read_doc(meta.sid, meta.token, i))
            except _ROW_ERRORS:
                return None
        if rows is None:
            rows = db.read_texts(meta.sid, meta.token)
            if rows is None or len(rows) != meta.n:
                return None
            with self._lock:
                self._rows[key] = rows
                self._rows_bytes += sum(map(len, rows))
                while self._rows_bytes > ROWS_BYTES and len(self._rows) > 1:
                    _, old = self._rows.popitem(last=False)
                    self._rows_bytes -= sum(map(len, old))
        try:
            return doc_row_norm(rows[i])
        except _ROW_ERRORS:
            return None

    def holding(self, seg: _Scoped, numbers: list[int], text: str) -> list[int] | None:
        """Those of ``numbers`` (documents of a segment whose body was not read) whose normalized
        text contains ``text``: the phrase rule's scan over the base, one read of just these
        documents' rows and no Doc made for any (a quoted phrase at 100k checks ~34,000). None when
        the rows can't be read (the caller then reads the segment's body, which finds out whether
        it is damaged)."""
        db, meta = seg.lazy["rows"]
        with self._lock:
            rows = self._rows.get((meta.sid, meta.token))
        got = [rows[i] for i in numbers] if rows is not None else db.read_docs(meta.sid, meta.token, numbers)
        if got is None:
            return None
        try:
            return list(compress(numbers, map(contains, map(doc_row_norm, got), repeat(text))))
        except _ROW_ERRORS:
            return None

    def expansions(self, prefix: str, cap: int) -> list[str] | None:
        """The vocabulary's words that begin with ``prefix`` (not the word itself), when there are at
        most ``cap``: then every segment's own list (its first ``cap``) is exactly its share of
        these. None when there are more (the caller expands segment by segment)."""
        vocab = self.vocab
        lo = bisect.bisect_left(vocab, prefix)
        out: list[str] = []
        for term in vocab[lo:]:
            if not term.startswith(prefix) or len(out) > cap:
                break
            if term != prefix and term.isascii():  # (segments expand to ASCII words only)
                out.append(term)
        return out if len(out) <= cap else None

    def bigrams_with(self, char: str, cap: int) -> list[str] | None:
        """The vocabulary's CJK bigrams holding ``char``, when there are at most ``cap`` (see
        :meth:`expansions`); None when there are more."""
        table = self._cjk
        if table is None:
            table = bigram_table(self.vocab)
            self._cjk = table
        got = table.get(char, [])
        return got if len(got) <= cap else None


class _Scoped(Protocol):
    """A segment opened from the persisted index (``lazy["rows"]``: its database and meta)."""

    @property
    def lazy(self) -> dict[str, Any]: ...


class _Segment(Protocol):
    """What building a base reads of an index segment (``index.Segment``)."""

    @property
    def id(self) -> str: ...
    @property
    def lazy(self) -> dict[str, Any]: ...
    @property
    def n(self) -> int: ...
    @property
    def postings(self) -> Mapping[str, Any]: ...
    @property
    def field_reps(self) -> Mapping[str, Any]: ...
    @property
    def names(self) -> dict[str, list[int]]: ...
    def weighted_refs(self, term: str) -> tuple[Sequence[int], Sequence[float]]: ...
    def field_refs(self, term: str) -> Sequence[int]: ...
    def seam_table(self, keep: bool = True) -> Mapping[str, Sequence[int]]: ...


def build_rows(segments: Sequence[_Segment], token: str) -> tuple[bytes, list[str], Iterator[tuple[str, bytes]]]:
    """(meta blob, vocabulary, term rows) of a base over ``segments`` (each with the token of its
    persisted row in ``lazy["generation"]``), slot by slot in the order given. The rows are made as
    they are consumed (the accumulated postings are freed term by term)."""
    slots: list[tuple[str, str, int]] = []
    refs: dict[str, array[int]] = {}
    weights: dict[str, array[float]] = {}
    fields: dict[str, tuple[array[int], bytearray]] = {}
    names: dict[str, array[int]] = {}
    seams: dict[str, array[int]] = {}
    offsets = [0, *accumulate(s.n for s in segments)]
    for seg, offset in zip(segments, offsets, strict=False):
        slots.append((seg.id, str(seg.lazy["generation"]), seg.n))
        shift = offset.__add__
        for term, seg_refs, seg_weights in _weighted(seg):
            got = refs.get(term)
            if got is None:
                got = refs[term] = array("I")
                weights[term] = array("d")
            got.extend(map(shift, seg_refs))
            weights[term].extend(seg_weights)
        for term, reps in _field_reps(seg):
            per_doc = Counter(reps)
            if not per_doc:
                continue
            f = fields.get(term)
            if f is None:
                f = fields[term] = (array("I"), bytearray())
            docs = sorted(per_doc)
            f[0].extend(map(shift, docs))
            f[1].extend(map(per_doc.__getitem__, docs))
        for name_key, docs in seg.names.items():
            got = names.get(name_key)
            if got is None:
                got = names[name_key] = array("I")
            got.extend(map(shift, docs))
        table = seg.seam_table(keep=False)
        for seam in table:
            got = seams.get(seam)
            if got is None:
                got = seams[seam] = array("I")
            got.extend(map(shift, table[seam]))
    n = offsets[-1]
    vocab = sorted(set(refs) | set(fields))
    meta = _wrap(BASE_MAGIC, {"slots": slots, "vocab": vocab})

    def rows() -> Iterator[tuple[str, bytes]]:
        dense = max(1, n // DENSE_SHARE)
        for term in vocab:
            term_refs = refs.pop(term, None) or array("I")
            term_weights = weights.pop(term, None) or array("d")
            if any(map(gt, term_refs, term_refs[1:])):  # (readers bisect: numbers ascending)
                pairs = sorted(zip(term_refs, term_weights, strict=True))
                term_refs = array("I", [r for r, _ in pairs])
                term_weights = array("d", [w for _, w in pairs])
            f_refs, f_pts = fields.pop(term, (array("I"), bytearray()))
            bits = _bits(term_refs, n).to_bytes((n + 7) // 8, "little") if len(term_refs) > dense else None
            # (A stable sort: equal weights stay in number order.)
            heaviest = sorted(range(len(term_refs)), key=term_weights.__getitem__, reverse=True)
            order = array("I", map(term_refs.__getitem__, heaviest))
            yield term, _term_row(term_refs, term_weights, bits, f_refs, bytes(f_pts), order)
        for name_key in sorted(names):
            yield NAME_PREFIX + name_key, _term_row(names.pop(name_key), None, None, array("I"), b"")
        for seam in sorted(seams):
            seam_refs = seams.pop(seam)
            bits = _bits(seam_refs, n).to_bytes((n + 7) // 8, "little") if len(seam_refs) > dense else None
            yield SEAM_PREFIX + seam, _term_row(seam_refs, None, bits, array("I"), b"")

    return meta, vocab, rows()


def _weighted(seg: _Segment) -> Iterator[tuple[str, Sequence[int], Sequence[float]]]:
    """Every term of the segment's postings with its documents and their weights."""
    postings = seg.postings
    if isinstance(postings, LazyPostings) and postings.has_weights:  # (as loaded or compacted: whole arrays)
        for term, refs, weights in postings.slices():
            assert weights is not None
            yield term, refs, weights
        return
    for term in postings:
        yield term, *seg.weighted_refs(term)


def _field_reps(seg: _Segment) -> Iterator[tuple[str, Sequence[int]]]:
    reps = seg.field_reps
    if isinstance(reps, LazyPostings):
        for term, refs, _ in reps.slices():
            yield term, refs
        return
    for term in reps:
        yield term, seg.field_refs(term)


def _term_row(
    refs: array[int],
    weights: array[float] | None,
    bits: bytes | None,
    field_refs: array[int],
    field_pts: bytes,
    order: array[int] | None = None,
) -> bytes:
    return _wrap(
        TERM_MAGIC,
        {
            "refs": refs.tobytes(),
            "weights": weights.tobytes() if weights is not None else None,
            "bits": bits,
            "field_refs": field_refs.tobytes(),
            "field_pts": field_pts,
            "order": order.tobytes() if order is not None else None,
        },
    )


__all__ = ["NAME_PREFIX", "SEAM_PREFIX", "BaseGone", "BaseTerm", "Slot", "TermBase", "build_rows"]
