"""Hypothesis over the index: any records, any query — no crash, bounded, and the top k hits are
exactly the prefix of the full ranking (ties included: the tie margin orders them)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import PutOp, Record
from core.search import SearchIndex
from core.search.tokenizer import normalize, parse_query
from core.store.memory import InMemoryStore

WORDS = ["build", "cache", "electron", "builder", "electron-builder", "pnpm", "打包", "用了", "慢", "ci", "3.11"]
_body = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
_records = st.lists(_body, min_size=1, max_size=40)
_many = st.lists(_body, min_size=30, max_size=150)  # enough look-alikes for the threshold algorithm
_query = st.lists(st.sampled_from([*WORDS, "electr", "包", '"build cache"']), min_size=1, max_size=3).map(" ".join)


def _index(bodies: list[str]) -> SearchIndex:
    store = InMemoryStore()
    snap = store.create_workspace("/w")
    ops = [
        PutOp(record=Record(name=f"r-{i:03d}", description="d", type="project", body=f"\n{body}\n"))
        for i, body in enumerate(bodies)
    ]
    store.commit(snap.key, ops, snap.revision)
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    return index


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies=_many, query=_query, limit=st.integers(min_value=1, max_value=6))
def test_top_k_is_the_prefix_of_the_full_ranking(bodies: list[str], query: str, limit: int) -> None:
    index = _index(bodies)
    pq = parse_query(query)
    full, total = index._ranked(pq, None, False, 10_000)
    top, total_k = index._ranked(pq, None, False, limit)
    assert total == total_k == len(full)
    assert [d for d, _ in top] == [d for d, _ in full[:limit]]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_records, _query, st.integers(min_value=0, max_value=6), st.integers(min_value=0, max_value=2000))
def test_search_is_bounded_and_hits_match(bodies: list[str], query: str, limit: int, max_bytes: int) -> None:
    index = _index(bodies)
    res = index.search(query, limit=limit, max_bytes=max_bytes)
    assert len(res.hits) <= limit
    assert res.bytes_used == sum(h.byte_size for h in res.hits) <= max_bytes
    terms = parse_query(query).terms
    for hit in res.hits:
        text = normalize(f"{hit.name}\n{hit.description}\n{hit.type}\n{bodies[int(hit.name[2:])]}")
        assert any(t in text or t.replace("-", "") in text for t in terms)
        for start, end in hit.highlights:
            assert 0 <= start < end <= len(hit.snippet)
    assert res == index.search(query, limit=limit, max_bytes=max_bytes)
