"""Searchable documents: a workspace record or a Global section, with its token analysis."""

from __future__ import annotations

import os
import sys
import threading
import time
from array import array
from collections import _count_elements  # type: ignore[attr-defined]  # C helper of Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.search.tokenizer import normalize, squash, tokenize, tokenize_normalized

# Points a query term earns for appearing in a field (the second ranking rule).
NAME_POINTS = 4
DESCRIPTION_POINTS = 2
TYPE_POINTS = 1
_TYPE_WORDS = frozenset(("feedback", "project", "reference", "global"))


# BM25 with a fixed average document length: a record's term weights then depend on its own text
# only, so they are computed once per file revision and survive every later refresh unchanged.
K1 = 1.2
B = 0.75
AVGDL = 200.0  # tokens in a typical ~1 KB record
K1P = K1 + 1.0


def bm25_k(length: int) -> float:
    """The length part of a document's BM25 term weights."""
    return K1 * (1.0 - B + B * length / AVGDL)


def tf_weight(tf: int, k: float) -> float:
    """A term's BM25 weight in a document from its count there (``k = bm25_k(length)``)."""
    return tf * K1P / (tf + k)


class Analysis:
    """Everything the index needs from a document's text; depends only on the text.

    ``norm`` (the normalized text, for the phrase rule) is the record's text a second time: a
    scope loaded from the persisted index does not store it but passes ``source`` (the document's
    fields), and ``norm`` is recomputed from them on first use (one ``str.lower()`` for ASCII text)
    and remembered. Hashes by identity."""

    __slots__ = ("_norm", "_source", "length", "name_key", "points", "weights")

    def __init__(
        self,
        weights: dict[str, float],
        points: dict[str, int],
        norm: str | None,
        name_key: str,
        length: int,
        source: tuple[str, str, str, str] | None = None,
    ) -> None:
        if norm is None and source is None:
            raise ValueError("an analysis needs its normalized text or its source fields")
        self.weights = weights  # term -> BM25 term-frequency component (idf applied per query)
        self.points = points  # term -> field points (name/description/type)
        self._norm = norm
        self._source = source  # (name, description, type, body) while norm is not computed yet
        self.name_key = name_key  # squashed normalized name (exact-name rule)
        self.length = length  # number of tokens

    @property
    def norm(self) -> str:
        """Normalized ``"name\ndescription\ntype\nbody"``. (Two threads racing here compute the
        same string twice, harmlessly.)"""
        norm = self._norm
        if norm is None:
            source = self._source
            assert source is not None
            norm = self._norm = normalize("\n".join(source))
            self._source = None
        return norm


def analyze(name: str, description: str, type_: str, body: str) -> Analysis:
    norm = normalize(f"{name}\n{description}\n{type_}\n{body}")
    tokens = tokenize_normalized(norm)
    length = len(tokens)
    k = bm25_k(length)
    counts: dict[str, int] = {}
    _count_elements(counts, tokens)  # what Counter(tokens) runs, without its checks (a cold build: 100k calls)
    # tf -> weight from a small table, mapped in C (this runs for every record on a cold start).
    table = [tf_weight(tf, k) for tf in range(max(counts.values(), default=0) + 1)]
    # Interned terms: 10k records share one copy of each word instead of one per record.
    # (Also what makes the cold build's table passes fast: equal keys are the same object.)
    weights = dict(zip(map(sys.intern, counts.keys()), map(table.__getitem__, counts.values()), strict=True))
    name_norm = normalize(name)  # (once: for its points and for the exact-name key)
    points: dict[str, int] = dict.fromkeys(map(sys.intern, tokenize_normalized(name_norm)), NAME_POINTS)
    if description:
        for term in set(map(sys.intern, tokenize(description))):
            points[term] = points.get(term, 0) + DESCRIPTION_POINTS
    for term in set(tokenize(type_)) if type_ not in _TYPE_WORDS else (type_,):
        points[term] = points.get(term, 0) + TYPE_POINTS
    return Analysis(
        weights=weights,
        points=points,
        norm=norm,
        name_key=squash(name_norm),
        length=length,
    )


@dataclass(frozen=True, slots=True, eq=False)
class Doc:
    """One searchable unit. Hashes by identity: the index keys score tables by the object."""

    scope_key: str
    cwd: str
    archived: bool
    kind: str  # "record" | "global_section"
    name: str
    description: str
    type: str
    body: str
    file_name: str
    section_index: int
    mtime_ns: int
    revision: str  # file revision (records) or section fingerprint (Global)
    analysis: Analysis
    weights: dict[str, float]  # == analysis.weights (one attribute hop less in the hot loop)

    @property
    def sort_name(self) -> tuple[str, str, int]:
        return (self.scope_key, self.name, self.section_index)


@dataclass(frozen=True)
class GlobalSection:
    heading: str  # "" for text before the first heading
    level: int  # 1..6, 0 for the preamble
    text: str  # the section's text under its heading line (heading line excluded)
    index: int


_MD: list[Any] = []  # the parser, made on first use (importing markdown-it costs a one-shot CLI search)


def split_global_sections(text: str) -> list[GlobalSection]:
    """``GLOBAL.md`` cut at every Markdown heading (ATX or setext, not inside code fences).

    Text before the first heading is a section with an empty heading when it is not blank.
    """
    lines = text.splitlines(keepends=True)
    heads: list[tuple[int, int, int, str]] = []  # (first line, line after heading, level, title)
    if not _MD:
        from markdown_it import MarkdownIt

        _MD.append(MarkdownIt("commonmark"))
    tokens = _MD[0].parse(text)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map is not None:
            title = tokens[i + 1].content if i + 1 < len(tokens) else ""
            heads.append((tok.map[0], tok.map[1], int(tok.tag[1:]), title.strip()))
    sections: list[GlobalSection] = []
    first = heads[0][0] if heads else len(lines)
    pre = "".join(lines[:first])
    if pre.strip():
        sections.append(GlobalSection(heading="", level=0, text=pre, index=0))
    for n, (start, after, level, title) in enumerate(heads):
        del start
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        sections.append(GlobalSection(heading=title, level=level, text="".join(lines[after:end]), index=len(sections)))
    return sections


# --- analysis in worker processes (a cold build) ------------------------------------------------
# analyze() is pure Python at ~150-250 us a record, the largest part of a cold build (100k records:
# ~25 s of one core). Worker processes analyze batches and send them back packed: each term as a
# number in that worker's vocabulary (a term's text crosses once per worker, NUL-joined: no token
# contains NUL), weights and points as raw arrays (every float the very same double). The caller
# then only maps numbers to its interned terms and builds the dicts: ~4x less work per record.
Fields = tuple[str, str, str, str]  # (name, description, type, body): analyze()'s arguments
_PackedDoc = tuple[bytes, bytes, bytes, bytes, str, str, int]
_Batch = tuple[str, int, str, list[_PackedDoc]]  # (worker id, number of the first new term, new terms, docs)
_WORKER: dict[str, Any] = {}  # in a worker: its id, vocabulary (term -> number), terms already sent


def _analyze_batch(batch: Sequence[Fields]) -> _Batch:
    """(In a worker.) A batch's analyses, packed."""
    if not _WORKER:
        _WORKER.update(id=f"{os.getpid()}-{time.time_ns()}", vocab={}, sent=0)
    vocab: dict[str, int] = _WORKER["vocab"]
    number = vocab.setdefault
    docs: list[_PackedDoc] = []
    for f in batch:
        a = analyze(*f)
        # (setdefault with len(vocab) numbers a new term; len() is taken before the insert)
        term_ids = array("I", [number(t, len(vocab)) for t in a.weights])
        point_ids = array("I", [number(t, len(vocab)) for t in a.points])
        docs.append(
            (
                term_ids.tobytes(),
                array("d", a.weights.values()).tobytes(),
                point_ids.tobytes(),
                array("i", a.points.values()).tobytes(),
                a.norm,
                a.name_key,
                a.length,
            )
        )
    sent = _WORKER["sent"]
    new_terms = "\0".join(list(vocab)[sent:]) if len(vocab) > sent else ""  # (dicts keep insertion order)
    _WORKER["sent"] = len(vocab)  # only now: a batch that failed above sent nothing
    return (_WORKER["id"], sent, new_terms, docs)


def worker_count() -> int:
    """Worker processes worth starting here: the CPUs this process may use, minus one for the
    caller (it reads the files and unpacks meanwhile), at most 4 (beyond that, the caller's
    share is what limits); 0 on a single CPU."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(0, min(4, cpus - 1))


class PendingAnalyses:
    """Analyses an :class:`AnalysisPool` is computing; :meth:`result` waits for them."""

    def __init__(self, pool: AnalysisPool, parts: list[tuple[Any, Sequence[Fields]]] | None, ready: list[Analysis]):
        self._pool = pool
        self._parts = parts  # (future of a packed batch, its fields), in order; None once unpacked
        self._ready = ready

    def result(self) -> list[Analysis]:
        """The analyses, in the order of the fields submitted. Unpacked here, in the caller's
        thread (the pool's own thread keeps feeding the workers meanwhile). A batch whose worker
        failed (killed, out of memory) is analyzed here instead: the result never depends on them."""
        if self._parts is not None:
            self._pool._unpack_until(self)
        return self._ready


class AnalysisPool:
    """Analyze many documents in worker processes: ``analyze()``'s results, equal in every field.

    ``submit(fields)`` returns at once, so the caller can read the next workspace meanwhile.
    Workers are started on first use ("forkserver" on POSIX, "spawn" elsewhere: never a plain fork
    of a process that may run Qt and other threads). With no workers (one CPU, or ``workers=0``)
    it analyzes in the calling thread. Close it (or use it as a context manager) after the build.
    """

    BATCH = 128  # records per task

    def __init__(self, workers: int | None = None) -> None:
        self._workers = worker_count() if workers is None else workers
        self._executor: Any = None
        self._queue: list[PendingAnalyses] = []  # submitted, not unpacked yet, in order
        self._vocabs: dict[str, list[str]] = {}  # worker id -> its terms by number (interned)
        self._lock = threading.Lock()

    def __enter__(self) -> AnalysisPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def workers(self) -> int:
        return self._workers

    def _pool(self) -> Any:
        if self._executor is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            self._executor = ProcessPoolExecutor(self._workers, mp_context=multiprocessing.get_context(method))
        return self._executor

    def submit(self, fields: Sequence[Fields]) -> PendingAnalyses:
        if self._workers == 0 or len(fields) < 8:  # not worth a round trip
            return PendingAnalyses(self, None, [analyze(*f) for f in fields])
        with self._lock:
            step = self.BATCH
            try:
                pool = self._pool()
                parts = [
                    (pool.submit(_analyze_batch, fields[i : i + step]), fields[i : i + step])
                    for i in range(0, len(fields), step)
                ]
            except Exception:  # workers can't start, or the pool broke: go on in this thread
                self._workers = 0
                return PendingAnalyses(self, None, [analyze(*f) for f in fields])
            pending = PendingAnalyses(self, parts, [])
            self._queue.append(pending)
        return pending

    def _unpack_until(self, target: PendingAnalyses) -> None:
        # Strictly in submission order: a worker runs its tasks in that order, and a batch may use
        # the numbers of terms an earlier batch of the same worker sent.
        with self._lock:
            while target._parts is not None:
                pending = self._queue.pop(0)
                assert pending._parts is not None
                for future, fields in pending._parts:
                    pending._ready += self._unpack(future, fields)
                pending._parts = None

    def _unpack(self, future: Any, fields: Sequence[Fields]) -> list[Analysis]:
        try:
            worker, first, new_terms, docs = future.result()
            vocab = self._vocabs.setdefault(worker, [])
            if first != len(vocab):  # an earlier batch of this worker was lost: its numbers can't be read
                raise LookupError(worker)
            if new_terms:
                vocab += map(sys.intern, new_terms.split("\0"))
            term = vocab.__getitem__
            out: list[Analysis] = []
            for ids, wbytes, pids, pbytes, norm, name_key, length in docs:
                terms, weights, pterms, points = array("I"), array("d"), array("I"), array("i")
                terms.frombytes(ids)
                weights.frombytes(wbytes)
                pterms.frombytes(pids)
                points.frombytes(pbytes)
                out.append(
                    Analysis(
                        weights=dict(zip(map(term, terms), weights, strict=True)),
                        points=dict(zip(map(term, pterms), points, strict=True)),
                        norm=norm,
                        name_key=name_key,
                        length=length,
                    )
                )
            return out
        except Exception:  # a worker's failure must not change the index: analyze the batch here
            return [analyze(*f) for f in fields]

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True, cancel_futures=True)
                self._executor = None


def analyze_many(fields: Sequence[Fields], workers: int | None = None) -> list[Analysis]:
    """``[analyze(*f) for f in fields]``, in worker processes when there are enough of both."""
    with AnalysisPool(workers) as pool:
        return pool.submit(fields).result()
