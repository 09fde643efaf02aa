"""Seam and junction keys: the necessary conditions that let phrase and squashed-substring checks skip
text scans must never rule out a document that contains the text (else ranking would change)."""

from __future__ import annotations

from pathlib import Path

from search_support import make_store, put, rec

from core.search import SearchIndex


def test_phrase_inside_a_compound_still_counts_as_phrase(tmp_path: Path) -> None:
    store = make_store("fs", tmp_path)
    put(
        store,
        "/w",
        [
            rec("compound", "we run my-postgres 5433 locally"),
            rec("loose", "postgres postgres postgres on port 5433 5433"),
        ],
    )
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    assert [h.name for h in index.search("postgres 5433").hits] == ["compound", "loose"]


def test_cjk_squashed_form_found_with_other_spacing(tmp_path: Path) -> None:
    store = make_store("memory", tmp_path)
    put(
        store,
        "/w",
        [
            rec("spaced", "缓存 and ci, more 缓存 and ci, then 缓存 and ci again"),
            rec("glued", "CI缓存命中率很高"),
        ],
    )
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    assert [h.name for h in index.search("CI 缓存").hits] == ["glued", "spaced"]
