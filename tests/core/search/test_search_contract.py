"""The ranking contract (docs/search.md), stated group by group, then checked against an independent
reference ranker (``reference_ranker.py``) on generated corpora: every hit in its group, groups in
order, and exactly the matching documents.

Groups, best first: 1. the query is the record's name (or the Global section's heading), separators
and case aside; 2. the query's words occur as a phrase; 3. more field points (per query term: 4 in
the name, 2 in the description, 1 in the type); 4. more query terms matched. Inside a group tantivy's
BM25 decides, then recency, then scope key and name.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_ranker import group

from core.models import PutOp, Record
from core.search import SearchIndex
from core.store.memory import InMemoryStore


def _index(docs: list[dict[str, str]]) -> SearchIndex:
    store = InMemoryStore()
    snap = store.create_workspace("/w")
    ops = [
        PutOp(record=Record(name=d["name"], description=d["description"], type=d["type"], body=f"\n{d['body']}\n"))  # type: ignore[arg-type]
        for d in docs
    ]
    store.commit(snap.key, ops, snap.revision)
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    return index


def _doc(name: str, body: str, description: str = "notes", type_: str = "project") -> dict[str, str]:
    return {"name": name, "description": description, "type": type_, "body": body}


def _order(docs: list[dict[str, str]], query: str) -> list[str]:
    return [h.name for h in _index(docs).search(query, limit=50).hits]


def test_group_1_the_name_beats_everything() -> None:
    docs = [
        _doc("build-cache", "unrelated text cache"),
        _doc("phrase", "the build cache is here, build cache again", "build cache notes"),
    ]
    assert _order(docs, "build cache") == ["build-cache", "phrase"]
    assert _order(docs, "Build_Cache") == ["build-cache", "phrase"]


def test_group_2_a_phrase_beats_field_points() -> None:
    docs = [_doc("apart", "cache things", "build notes"), _doc("together", "we build cache daily")]
    assert _order(docs, "build cache") == ["together", "apart"]


def test_group_3_field_points_beat_terms_matched() -> None:
    docs = [
        _doc("body-only", "pnpm cache ruff"),
        _doc("ruff", "nothing else"),  # one term, in the name: 4 points
        _doc("described", "text", "uses pnpm"),  # one term, in the description: 2 points
    ]
    assert _order(docs, "pnpm ruff cache") == ["ruff", "described", "body-only"]


def test_group_4_more_terms_matched_beat_frequency() -> None:
    docs = [_doc("one", "pnpm pnpm pnpm pnpm pnpm"), _doc("two", "pnpm and ruff")]
    assert _order(docs, "pnpm ruff") == ["two", "one"]


_VOCAB = ["build", "cache", "electron", "builder", "electron-builder", "pnpm", "ruff", "打包", "用了", "慢", "3.11"]
_VOCAB.append("the")
_words = st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=8).map(" ".join)
_names = st.lists(st.sampled_from(["build", "cache", "electron", "builder", "pnpm", "ruff"]), min_size=1, max_size=2)
_docs = st.lists(
    st.tuples(_names, _words, _words, st.sampled_from(["feedback", "project", "reference"])),
    min_size=1,
    max_size=25,
)
_query = st.tuples(
    st.lists(st.sampled_from([*_VOCAB, "electr", "bui", "包", "build-cache"]), min_size=1, max_size=3),
    st.booleans(),
).map(lambda qp: " ".join(qp[0]) + (' "build cache"' if qp[1] else ""))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_docs, query=_query)
def test_every_hit_is_in_its_reference_group_and_groups_come_in_order(
    raw: list[tuple[list[str], str, str, str]], query: str
) -> None:
    docs: list[dict[str, str]] = []
    by_name: dict[str, dict[str, str]] = {}
    for i, (n, body, desc, type_) in enumerate(raw):
        name = "-".join(n) if "-".join(n) not in by_name else f"{'-'.join(n)}-{i}"  # (exact names too)
        by_name[name] = _doc(name, body, desc, type_)
        docs.append(by_name[name])
    res = _index(docs).search(query, limit=100, max_bytes=10**7)
    expected = {d["name"] for d in docs if group(d, query) is not None}
    assert {h.name for h in res.hits} == expected
    assert res.total_matches == len(expected)
    keys = [group(by_name[h.name], query) for h in res.hits]
    assert keys == sorted(keys, reverse=True), (query, [(h.name, k) for h, k in zip(res.hits, keys, strict=True)])
