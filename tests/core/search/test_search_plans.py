"""The cheaper query plans (``QueryBuilder.ranked`` given a probe; docs/search.md, "The ranking
contract") rank exactly like the whole query: the same hits in the same order with the same scores,
and the same count, on generated corpora and on each plan's own path: one term (carried by the hits with points),
the phrase group taken for the top k, that guess found wrong (the whole query instead), a quoted
phrase that is the whole query."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import PutOp, Record
from core.search import SearchIndex
from core.search.engine import Plan, QueryBuilder  # (Plan: query, level, full)
from core.search.tokenizer import parse_query
from core.store.memory import InMemoryStore

WORDS = ["build", "cache", "electron", "builder", "electron-builder", "pnpm", "打包", "用了", "ci", "3.11"]
NAMES = ["build-cache", "pnpm", "electron-builder", "ci"]
_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=10).map(" ".join)
_record = st.tuples(st.sampled_from([*NAMES, ""]), st.sampled_from([*WORDS, "notes"]), _text)
_query = st.lists(st.sampled_from([*WORDS, "electr", "包", '"build cache"']), min_size=1, max_size=3).map(" ".join)


def _index(records: list[tuple[str, str, str]]) -> SearchIndex:
    store = InMemoryStore()
    snap = store.create_workspace("/w")
    ops = [
        PutOp(record=Record(name=name or f"r-{i:03d}", description=desc, type="project", body=f"\n{body}\n"))
        for i, (name, desc, body) in enumerate(records)
        if not name or name not in {r[0] for r in records[:i]}
    ]
    store.commit(snap.key, ops, snap.revision)
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    return index


def _both(index: SearchIndex, query: str, limit: int) -> tuple[Any, Any]:
    """(the plan's ranking, the whole query's ranking)."""
    pq = parse_query(query)
    ranked = QueryBuilder.ranked
    with pytest.MonkeyPatch.context() as m:
        m.setattr(QueryBuilder, "ranked", lambda self, pq, n, f, probe=None: ranked(self, pq, n, f))
        full = index._ranked(pq, None, False, limit)
    return index._ranked(pq, None, False, limit), full


def _plan(index: SearchIndex, query: str) -> tuple[Plan, list[tuple[float, Any]]]:
    d = index._index_dir
    assert d is not None
    searcher = d.index.searcher()
    plan = QueryBuilder(d.schema, searcher).ranked(parse_query(query), searcher.num_docs, None, list(index._scopes))
    assert plan is not None
    return plan, searcher.search(plan[0], limit=1000).hits


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(_record, min_size=1, max_size=60), query=_query, limit=st.integers(1, 8))
def test_every_plan_ranks_like_the_whole_query(records: list[tuple[str, str, str]], query: str, limit: int) -> None:
    fast, full = _both(_index(records), query, limit)
    assert fast == full


def test_one_term_is_carried_by_the_hits_with_points() -> None:
    records = [("", "pnpm", "x"), ("", "pnpm", "pnpm pnpm")]
    records += [("", "notes", "pnpm " + "y " * i) for i in range(30)]
    index = _index(records)
    plan, hits = _plan(index, "pnpm")
    assert plan[2] is not None and sum(s >= plan[1] for s, _ in hits) == 2  # (the two descriptions)
    for limit in (1, 2, 3, 10):  # (from 3 on, the full query)
        fast, full = _both(index, "pnpm", limit)
        assert fast == full
    assert [d.name for d, _ in fast[0]][:2] == ["r-001", "r-000"]


def test_a_record_named_by_the_query_takes_the_full_query() -> None:
    index = _index([("pnpm", "notes", "x")] + [("", "pnpm", "pnpm " + "y " * i) for i in range(5)])
    plan, _ = _plan(index, "pnpm")
    assert plan[2] is None and plan[1] == 0.0
    fast, full = _both(index, "pnpm", 3)
    assert fast == full and fast[0][0][0].name == "pnpm"


def test_the_phrase_group_fills_the_top_k() -> None:
    records = [("", "notes", f"we build cache {'x ' * i}") for i in range(20)] + [("", "build", "cache build")] * 5
    index = _index(records)
    plan, hits = _plan(index, "build cache")
    assert plan[2] is not None and hits[4][0] >= plan[1]  # (the plan's guess holds for 5)
    for limit in (1, 5, 20, 25):
        fast, full = _both(index, "build cache", limit)
        assert fast == full


def test_too_few_in_the_phrase_group_falls_back_to_the_whole_query() -> None:
    records = [("", "notes", "we build cache"), ("", "build", "cache build ci")]
    records += [("", "cache", f"build ci cache {'x ' * i}") for i in range(20)]
    index = _index(records)
    plan, hits = _plan(index, "build cache")
    assert plan[2] is not None and hits[4][0] < plan[1]  # (one phrase hit: the top 5 needs the full query)
    fast, full = _both(index, "build cache", 5)
    assert fast == full
    assert fast[0][0][0].body.strip() == "we build cache" and len(fast[0]) == 5


def test_a_quoted_phrase_that_is_the_query_needs_no_phrase_search_of_its_own() -> None:
    records = [("", "build", "the build cache")] + [("", "cache", f"build cache {'x ' * i}") for i in range(9)]
    index = _index(records)
    plan, _ = _plan(index, '"build cache"')
    assert plan[1] == 0.0 and plan[2] is None and repr(plan[0]).count("PhraseQuery") == 1  # (the required one)
    fast, full = _both(index, '"build cache"', 3)
    assert fast == full and len(fast[0]) == 3 and fast[1] == 10


def test_the_phrase_implies_its_words_not_the_compound() -> None:
    """``electron builder`` holds the phrase of ``electron-builder`` but not the compound: one term less."""
    records = [("", "notes", f"electron builder {'x ' * i}") for i in range(6)]
    records += [("", "notes", f"electron-builder {'x ' * i}") for i in range(6)]
    fast, full = _both(_index(records), "electron-builder", 8)
    assert fast == full
    assert {d.body.split()[0] for d, _ in fast[0][:6]} == {"electron-builder"}
