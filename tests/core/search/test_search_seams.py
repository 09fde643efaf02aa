"""Seam and junction keys: the necessary conditions that let phrase and squashed-substring checks skip
text scans must never rule out a document that contains the text (else ranking would change)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from search_support import make_store, put, rec

from core.search import SearchIndex, index
from core.search.index import phrase_keys, seam_keys, squash_keys
from core.search.tokenizer import collapse_spaces, normalize, squash

_ALPHABET = st.sampled_from([*"ab Z9-_.,\n \u3000打包用了缓存公证Ｃｉé\u0301ß", "ci", "pnpm", " "])
_text = st.lists(_ALPHABET, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(_text, st.integers(min_value=0, max_value=80), st.integers(min_value=0, max_value=80))
def test_keys_of_any_substring_are_in_the_document(text: str, i: int, j: int) -> None:
    norm = normalize(text)
    part = norm[min(i, j) : max(i, j)]
    keys = seam_keys(norm)
    assert set(phrase_keys(part)) <= keys
    assert set(squash_keys(part)) <= keys
    squashed = squash(part)
    if squashed in norm:
        assert set(squash_keys(squashed)) <= keys


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab9_ -Ｃé́ß打包缓存⺀ぁㇰ", "ci"]), max_size=24).map("".join))
def test_query_junction_keys_are_the_ones_documents_hold(text: str) -> None:
    """A query's junction keys are found without the pattern documents' keys are found with
    (``seam_keys``); they must be exactly the keys that pattern finds in the same text."""
    assert squash_keys(text) == [m.group(1) for m in index._junction_re().finditer(text)]


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
            rec("spaced", "缓存, ci; 缓存 and ci, 缓存 and ci again"),
            rec("glued", "CI缓存命中率很高"),
        ],
    )
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    assert index.warm_up() >= 0.0
    assert [h.name for h in index.search("CI 缓存").hits] == ["glued", "spaced"]


def test_seam_keys_examples() -> None:
    assert phrase_keys("postgres 5433") == ["es54"]
    assert phrase_keys("a b") == []
    assert squash_keys("ci缓存") == ["ci缓存"]
    assert "es54" in seam_keys(collapse_spaces(normalize("My-Postgres 5433")))
