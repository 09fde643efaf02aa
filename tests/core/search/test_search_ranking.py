"""Search behaviour over real stores: each ranking rule, CJK bigrams, phrases, bounds, scopes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from search_support import make_store, put, rec, set_mtime

from core.search import GLOBAL_SCOPE, SearchIndex
from core.search.tokenizer import normalize
from core.store.api import MemoryStore

CWD = "/home/me/proj"


@pytest.fixture(params=["fs", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    yield make_store(request.param, tmp_path)


def names(index: SearchIndex, query: str, **kw: object) -> list[str]:
    return [h.name for h in index.search(query, **kw).hits]  # type: ignore[arg-type]


def indexed(store: MemoryStore) -> SearchIndex:
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    return index


def test_chinese_question_finds_record_by_bigram(store: MemoryStore) -> None:
    put(store, CWD, [rec("packaging", "打包用了 electron-builder。"), rec("style", "代码风格用 ruff。")])
    assert names(indexed(store), "打包为什么慢") == ["packaging"]


def test_word_finds_kebab_compound_case_insensitively(store: MemoryStore) -> None:
    put(store, CWD, [rec("packaging", "We package with Electron-Builder."), rec("other", "Nothing here.")])
    res = indexed(store).search("electron")
    assert [h.name for h in res.hits] == ["packaging"]
    hit = res.hits[0]
    start, end = hit.highlights[0]
    assert hit.snippet[start:end] == "Electron"


def test_single_cjk_character_query(store: MemoryStore) -> None:
    put(store, CWD, [rec("a", "打包用了 pnpm"), rec("b", "构建很快")])
    assert names(indexed(store), "包") == ["a"]


def test_mixed_script_query(store: MemoryStore) -> None:
    put(store, CWD, [rec("a", "用 pnpm 打包"), rec("b", "pnpm only"), rec("c", "打包 only")])
    assert names(indexed(store), "用 pnpm 打包")[0] == "a"


def test_exact_phrase_ranks_first(store: MemoryStore) -> None:
    put(
        store,
        CWD,
        [
            # Scattered words, and more of them: would win on BM25 alone.
            rec("scattered", "cache the build. build the cache. cache cache build build everything."),
            rec("phrase", "We keep a build cache on CI for every branch and other unrelated words here."),
        ],
    )
    assert names(indexed(store), "build cache") == ["phrase", "scattered"]


def test_normalized_substring_ranks_above_loose_words(store: MemoryStore) -> None:
    put(
        store,
        CWD,
        [
            rec("loose", "the builder of electron apps; builder builder electron electron"),
            rec("compound", "packaging uses Electron-Builder with some notes"),
        ],
    )
    assert names(indexed(store), "electron builder") == ["compound", "loose"]


def test_name_match_beats_body_match(store: MemoryStore) -> None:
    put(
        store,
        CWD,
        [
            rec("deploy-window", "Deploys after six only.", description="Staging is shared"),
            rec("unrelated", "deploy deploy deploy window window", description="Something else"),
        ],
    )
    # "deploy" appears more often in 'unrelated', but 'deploy-window' has it in its name.
    assert names(indexed(store), "deploy") == ["deploy-window", "unrelated"]


def test_description_match_beats_body_match(store: MemoryStore) -> None:
    put(
        store,
        CWD,
        [
            rec("a-body", "migrations migrations migrations must be reversible", description="Database notes"),
            rec("b-desc", "Use alembic.", description="How migrations work"),
        ],
    )
    assert names(indexed(store), "migrations") == ["b-desc", "a-body"]


def test_exact_name_query_ranks_that_record_first(store: MemoryStore) -> None:
    put(
        store,
        CWD,
        [
            rec("release-checklist", "Tag, build, publish."),
            rec("release-notes", "release checklist release checklist release checklist"),
        ],
    )
    assert names(indexed(store), "release checklist")[0] == "release-checklist"


def test_type_match_counts(store: MemoryStore) -> None:
    put(
        store,
        CWD,
        [
            rec("a", "Prefer short answers.", type_="project"),
            rec("b", "Prefer short answers.", type_="feedback"),
        ],
    )
    assert names(indexed(store), "feedback answers") == ["b", "a"]


def test_coverage_beats_frequency(store: MemoryStore) -> None:
    put(
        store,
        CWD,
        [
            rec("one-word", "postgres postgres postgres postgres postgres"),
            rec("both-words", "postgres runs on port 5433"),
        ],
    )
    assert names(indexed(store), "postgres 5433") == ["both-words", "one-word"]


def test_bm25_prefers_higher_term_frequency(store: MemoryStore) -> None:
    put(
        store,
        CWD,
        [rec("once", "redis cache alpha beta gamma"), rec("twice", "redis cache redis alpha beta")],
    )
    assert names(indexed(store), "redis") == ["twice", "once"]


def test_recency_breaks_ties(tmp_path: Path) -> None:
    store = make_store("fs", tmp_path)
    snap = put(store, CWD, [rec("aaa-old", "same words here"), rec("zzz-new", "same words here")])
    root = tmp_path / "memory" / "workspaces" / snap.key
    set_mtime(root / "aaa-old.md", 1_700_000_000)
    set_mtime(root / "zzz-new.md", 1_700_100_000)
    index = indexed(store)
    assert names(index, "same words") == ["zzz-new", "aaa-old"]
    set_mtime(root / "aaa-old.md", 1_700_200_000)
    index.refresh(keys=[snap.key])  # an in-place change: what a watcher that saw the folder calls
    assert names(index, "same words") == ["aaa-old", "zzz-new"]


def test_full_ties_are_broken_by_scope_key_then_name(tmp_path: Path) -> None:
    store = make_store("fs", tmp_path)
    a = put(store, "/w/one", [rec("b-rec", "identical text"), rec("a-rec", "identical text")])
    b = put(store, "/w/two", [rec("a-rec", "identical text")])
    for snap in (a, b):
        for entry in snap.entries:
            set_mtime(tmp_path / "memory" / "workspaces" / snap.key / entry.file_name, 1_700_000_000)
    hits = indexed(store).search("identical").hits
    expected = sorted([(a.key, "a-rec"), (a.key, "b-rec"), (b.key, "a-rec")])
    assert [(h.scope_key, h.name) for h in hits] == expected


def test_ties_past_the_margin_are_ordered_by_scope_key_then_name(tmp_path: Path) -> None:
    """More equal hits than the tie margin (the search that fetches them all), one mtime: the first
    hits are the smallest (scope key, name), whichever order tantivy found them in."""
    store = make_store("fs", tmp_path)
    names_ = [f"m-{i:02d}" for i in reversed(range(42))]
    snaps = [put(store, cwd, [rec(n, "identical text") for n in names_]) for cwd in ("/w/two", "/w/one")]
    for snap in snaps:
        for entry in snap.entries:
            set_mtime(tmp_path / "memory" / "workspaces" / snap.key / entry.file_name, 1_700_000_000)
    res = indexed(store).search("identical", limit=3)
    first = min(s.key for s in snaps)
    assert [(h.scope_key, h.name) for h in res.hits] == [(first, "m-00"), (first, "m-01"), (first, "m-02")]
    assert res.total_matches == 2 * len(names_)


def test_results_are_deterministic_across_indexes(store: MemoryStore) -> None:
    put(store, CWD, [rec(f"r-{i:02d}", f"shared words and number {i % 3}") for i in range(30)])
    put(store, "/other", [rec(f"s-{i:02d}", "shared words 打包 构建") for i in range(10)])
    first = indexed(store).search("shared words 1", limit=50)
    second = indexed(store).search("shared words 1", limit=50)
    assert first == second
    assert first.hits == indexed(store).search("shared words 1", limit=50).hits


def test_quoted_phrase_requires_adjacency(store: MemoryStore) -> None:
    put(store, CWD, [rec("adjacent", "the build cache is warm"), rec("apart", "the cache of the build")])
    index = indexed(store)
    assert names(index, '"build cache"') == ["adjacent"]
    assert sorted(names(index, "build cache")) == ["adjacent", "apart"]


def test_prefix_of_last_word_matches_as_you_type(store: MemoryStore) -> None:
    put(store, CWD, [rec("a", "notarization takes ten minutes"), rec("b", "nothing")])
    assert names(indexed(store), "notari") == ["a"]
    assert names(indexed(store), "notari ") == []


def test_count_bound(store: MemoryStore) -> None:
    put(store, CWD, [rec(f"r-{i:02d}", "common word") for i in range(25)])
    res = indexed(store).search("common", limit=7)
    assert len(res.hits) == 7
    assert res.total_matches == 25
    assert res.truncated


def test_byte_bound(store: MemoryStore) -> None:
    put(store, CWD, [rec(f"r-{i:02d}", "常见的词 common word " * 20) for i in range(25)])
    index = indexed(store)
    for max_bytes in (100, 300, 1000, 5000):
        res = index.search("common", limit=100, max_bytes=max_bytes)
        assert res.bytes_used == sum(h.byte_size for h in res.hits)
        assert res.bytes_used <= max_bytes
        assert res.truncated
        for hit in res.hits:
            for start, end in hit.highlights:
                assert 0 <= start < end <= len(hit.snippet)
    assert index.search("common", limit=100, max_bytes=10).hits == ()


def test_highlights_point_at_query_terms(store: MemoryStore) -> None:
    put(store, CWD, [rec("a", "前面的文字。打包用了 Electron-Builder，很慢。后面的文字。")])
    hit = indexed(store).search("打包 electron").hits[0]
    marked = [normalize(hit.snippet[s:e]) for s, e in hit.highlights]
    assert "打包" in marked
    assert "electron" in marked


def test_global_sections_are_searchable_by_heading(store: MemoryStore) -> None:
    store.replace_global(
        "# Me\n\n## User Profile\nBackend developer.\n\n## User Preferences\nShort answers, 中文注释。\n",
        None,
    )
    put(store, CWD, [rec("a", "unrelated")])
    index = indexed(store)
    hits = index.search("preferences").hits
    assert [(h.scope_key, h.kind, h.name) for h in hits] == [(GLOBAL_SCOPE, "global_section", "User Preferences")]
    assert [h.name for h in index.search("中文").hits] == ["User Preferences"]
    assert index.search("backend", scopes=[GLOBAL_SCOPE]).hits[0].section_index == 1


def test_scopes_filter(store: MemoryStore) -> None:
    store.replace_global("## Tips\nuse pnpm\n", None)
    a = put(store, "/w/a", [rec("a", "use pnpm")])
    put(store, "/w/b", [rec("b", "use pnpm")])
    index = indexed(store)
    assert {h.scope_key for h in index.search("pnpm").hits} == {
        GLOBAL_SCOPE,
        a.key,
        workspace_of(store, "/w/b"),
    }
    assert [h.name for h in index.search("pnpm", scopes=[a.key]).hits] == ["a"]
    assert {h.scope_key for h in index.search("pnpm", scopes=[a.key, GLOBAL_SCOPE]).hits} == {
        a.key,
        GLOBAL_SCOPE,
    }


def workspace_of(store: MemoryStore, cwd: str) -> str:
    snap = store.find_workspace(cwd)
    assert snap is not None
    return snap.key


def test_archived_scopes_are_excluded_unless_asked(store: MemoryStore) -> None:
    a = put(store, "/w/a", [rec("kept", "zebra crossing")])
    b = put(store, "/w/b", [rec("gone", "zebra crossing")])
    index = indexed(store)
    store.recycle.archive(b.key)
    index.refresh()
    assert names(index, "zebra") == ["kept"]
    hits = index.search("zebra", include_archived=True).hits
    assert sorted((h.name, h.archived) for h in hits) == [("gone", True), ("kept", False)]
    store.recycle.restore(b.key)
    index.refresh()
    assert sorted(names(index, "zebra")) == ["gone", "kept"]
    assert a.key != b.key


def test_invalid_records_are_not_indexed(tmp_path: Path) -> None:
    store = make_store("fs", tmp_path)
    snap = put(store, CWD, [rec("good", "valid zebra")])
    (tmp_path / "memory" / "workspaces" / snap.key / "broken.md").write_text("no frontmatter zebra\n")
    assert names(indexed(store), "zebra") == ["good"]


def test_empty_and_punctuation_queries(store: MemoryStore) -> None:
    put(store, CWD, [rec("a", "text")])
    index = indexed(store)
    for q in ("", "   ", "!!!", '""', "。，"):
        res = index.search(q)
        assert res.hits == () and res.total_matches == 0


def test_search_before_refresh_is_empty(store: MemoryStore) -> None:
    put(store, CWD, [rec("a", "text")])
    assert SearchIndex(store, cache_dir=False).search("text").hits == ()
