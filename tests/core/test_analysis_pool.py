"""AnalysisPool: documents analyzed in real worker processes come back equal to ``analyze()``.

A cold build may hand its analysis to worker processes; whatever happens to them (a batch that
shares a worker's vocabulary with earlier ones, a worker killed with SIGKILL, a batch lost on the
way), the caller gets exactly the analyses it would have computed itself.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator

import pytest

from core.search import documents
from core.search.documents import Analysis, AnalysisPool, Fields, analyze, analyze_many


def as_tuple(a: Analysis) -> tuple[object, ...]:
    return (list(a.weights.items()), a.points, a.norm, a.name_key, a.length)


def corpus(n: int, salt: str = "") -> list[Fields]:
    words = ["electron-builder", "pnpm", "打包用了", "包", "core.store.api", "Ｆｕｌｌ", "café", "x" * 80, "3.11"]
    out: list[Fields] = []
    for i in range(n):
        body = " ".join(words[(i + j) % len(words)] for j in range(i % 17)) + f" {salt}{i} 第{i}条"
        out.append((f"note-{salt}{i}", f"about {words[i % len(words)]}" if i % 5 else "", "project", body))
    out.append(("", "", "global", ""))  # an empty Global section: no terms at all
    return out


@pytest.fixture(scope="module")
def pool() -> Iterator[AnalysisPool]:
    with AnalysisPool(workers=2) as p:
        yield p


def test_pool_results_equal_analyze(pool: AnalysisPool) -> None:
    fields = corpus(700)
    got = pool.submit(fields).result()
    assert [as_tuple(a) for a in got] == [as_tuple(analyze(*f)) for f in fields]
    assert all(t is sys.intern(t) for a in got for t in a.weights)  # shared term copies


def test_later_batches_reuse_the_workers_vocabulary(pool: AnalysisPool) -> None:
    """Submitted one after another and collected out of order, every batch still reads right."""
    batches = [corpus(150, salt=s) for s in ("a", "b", "a", "c")]
    pending = [pool.submit(b) for b in batches]
    for p, b in reversed(list(zip(pending, batches, strict=True))):
        assert [as_tuple(a) for a in p.result()] == [as_tuple(analyze(*f)) for f in b]


def test_killed_workers_change_nothing() -> None:
    fields = corpus(600)
    with AnalysisPool(workers=1) as p:
        p.submit(corpus(20)).result()  # workers started
        pending = p.submit(fields)
        for pid in list(p._executor._processes):  # (the executor's own table of its workers)
            os.kill(pid, signal.SIGKILL)
        assert [as_tuple(a) for a in pending.result()] == [as_tuple(analyze(*f)) for f in fields]
        again = p.submit(fields[:50]).result()  # the pool is broken: analyzed in this process
        assert [as_tuple(a) for a in again] == [as_tuple(analyze(*f)) for f in fields[:50]]


def test_a_batch_after_a_lost_one_is_analyzed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Numbers of terms sent with a batch the caller never unpacked can't be trusted."""
    monkeypatch.setattr(documents, "_WORKER", {})  # this process plays the worker
    # The lost batch numbers two terms (0 and 1); the next one sends many more and uses those two.
    first: list[Fields] = [("", "", "global", "pnpm")]
    second = corpus(30, salt="q") + first
    documents._analyze_batch(first)  # its new terms are lost
    batch = documents._analyze_batch(second)  # refers to them by number

    class Done:
        def result(self) -> object:
            return batch

    got = AnalysisPool(workers=0)._unpack(Done(), second)
    assert [as_tuple(a) for a in got] == [as_tuple(analyze(*f)) for f in second]


def test_no_workers_means_this_thread() -> None:
    fields = corpus(40)
    assert [as_tuple(a) for a in analyze_many(fields, workers=0)] == [as_tuple(analyze(*f)) for f in fields]
