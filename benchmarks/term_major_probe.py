"""What one term-major table for every scope would cost and give (issue 15, the next step).

Not product code: it reads a root's persisted search index the way the window does, concatenates
every scope's postings into one ``term -> (document numbers, BM25 weights)`` table over all
documents, and prints how long that took and what a term's bitmap and dense weight array then cost,
beside what the per-scope layout costs for the same terms. See docs/search.md ("Measured for the
next step"). Run: ``python benchmarks/term_major_probe.py --root /tmp/bench-100k/memory`` (a workload
of benchmarks/scale_bench.py, its index persisted by an earlier run). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from array import array
from collections import deque
from itertools import repeat
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.search import SearchIndex, cache
from core.search import index as ix
from core.store.fs import FileStore

TERMS = ("docker", "compose", "the", "pnpm", "release", "打包")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, required=True)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cpus)")
    index = SearchIndex(FileStore(args.root))
    t0 = time.perf_counter()
    index.refresh()
    print(f"reopen {time.perf_counter() - t0:.2f} s, {index.doc_count} documents")
    segs = ix._select(index._state, None, False)

    t0 = time.perf_counter()
    parts: dict[str, list[tuple[int, array[int], array[float]]]] = {}
    offset = 0
    for s in segs:
        table = s.postings
        if isinstance(table, cache.LazyPostings) and table._weights is not None:
            start = 0
            for term, end in zip(table._keys, table._ends, strict=True):
                parts.setdefault(term, []).append((offset, table._refs[start:end], table._weights[start:end]))
                start = end
        offset += len(s.docs)
    merged: dict[str, tuple[array[int], array[float]]] = {}
    for term, pieces in parts.items():
        refs, weights = array("I"), array("d")
        for off, r, w in pieces:
            refs.extend(map(off.__add__, r))
            weights.extend(w)
        merged[term] = (refs, weights)
    n = offset
    postings = sum(len(r) for r, _ in merged.values())
    print(f"one table for all scopes: {time.perf_counter() - t0:.2f} s, {len(merged)} terms, {postings} postings")

    view = ix._View(segs)
    for term in TERMS:
        refs, weights = merged.get(term, (array("I"), array("d")))
        t0 = time.perf_counter()
        ba = bytearray(b"0") * n
        deque(map(ba.__setitem__, map((n - 1).__sub__, refs), repeat(49)), maxlen=0)
        int(ba, 2)
        t1 = time.perf_counter()
        dense = array("d", bytes(8 * n))
        deque(map(dense.__setitem__, refs, weights), maxlen=0)
        t2 = time.perf_counter()
        view.term(term)
        t3 = time.perf_counter()
        view.weights(term)
        t4 = time.perf_counter()
        print(
            f"  {term:8s} {len(refs):7d} postings: one table: bitmap {1000 * (t1 - t0):6.1f} ms,"
            f" weights {1000 * (t2 - t1):6.1f} ms | per scope: bitmap {1000 * (t3 - t2):6.1f} ms,"
            f" weights {1000 * (t4 - t3):6.1f} ms"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
