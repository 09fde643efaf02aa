"""Tokenizer and query parsing: words, compounds, camelCase, CJK bigrams, normalization."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from search_support import indexed_terms as tokenize

from core.models import PutOp, Record
from core.search import SearchIndex
from core.search.tokenizer import MAX_TOKEN_CHARS, normalize, parse_query, query_terms
from core.store.memory import InMemoryStore


def test_ascii_words_are_case_folded() -> None:
    assert set(tokenize("Hello WORLD")) == {"hello", "world"}


def test_kebab_snake_and_dotted_names_keep_parts_and_the_whole() -> None:
    tokens = set(tokenize("Electron-Builder my_var core.store.api"))
    assert {"electron", "builder", "electron-builder"} <= tokens
    assert {"my", "var", "my_var"} <= tokens
    assert {"core", "store", "api", "core.store.api"} <= tokens


def test_numbers_and_versions() -> None:
    tokens = set(tokenize("Postgres 16 on port 5433, Python 3.11, released 2026-11-30."))
    assert {"16", "5433", "3.11", "3", "11", "2026-11-30", "2026"} <= tokens
    # A sentence-ending dot is not part of a compound.
    assert "2026-11-30." not in tokens


def test_cjk_runs_become_bigrams_and_lone_characters_unigrams() -> None:
    assert tokenize("打包用了") == ["打包", "包用", "用了"]
    assert sorted(tokenize("用 pnpm")) == ["pnpm", "用"]


def test_compounds_are_also_indexed_without_separators() -> None:
    assert {"electron-builder", "electronbuilder"} <= set(tokenize("Electron-Builder"))


def test_mixed_script_text() -> None:
    tokens = set(tokenize("用 pnpm 打包"))
    assert {"用", "pnpm", "打包"} <= tokens
    assert query_terms("用 pnpm 打包") == ("pnpm", "用", "打包")


def test_query_uses_bigrams_and_single_characters_only_for_one_character_runs() -> None:
    assert query_terms("打包为什么慢") == ("打包", "包为", "为什", "什么", "么慢")
    assert query_terms("包") == ("包",)


def test_full_width_and_compatibility_forms_are_normalized() -> None:
    assert normalize("ＥｌｅｃｔｒｏｎＢｕｉｌｄｅｒ") == "electronbuilder"
    assert "electron" in tokenize("Ｅｌｅｃｔｒｏｎ")
    assert normalize("Straße") == "strasse"


def test_query_stopwords_are_dropped_unless_nothing_else_is_left() -> None:
    assert query_terms("why is the build slow") == ("build", "slow")
    assert query_terms("the") == ("the",)


def test_quoted_phrases_and_prefix_term() -> None:
    pq = parse_query('"Build Cache" electr')
    assert pq.phrases == ("build cache",)
    assert pq.terms == ("build", "cache", "electr")
    assert pq.prefix_terms == ("electr",)
    assert parse_query("electr ").prefix_terms == ()
    assert parse_query("ab").prefix_terms == ()


def _finds(text: str, query: str) -> bool:
    store = InMemoryStore()
    snap = store.create_workspace("/w")
    store.commit(snap.key, [PutOp(record=Record(name="r", description="d", type="project", body=text))], snap.revision)
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    return [h.name for h in index.search(query).hits] == ["r"]


def test_very_long_words_are_found_whole_and_by_a_capped_query() -> None:
    assert parse_query("x" * 500).terms == ("x" * MAX_TOKEN_CHARS,)
    assert _finds("x" * 500, "x" * 500)
    assert _finds("x" * 500 + " other", "x" * MAX_TOKEN_CHARS)


_QUOTES = set('"“”「」')
_text = st.text(st.characters(blacklist_categories=("Cs", "Cn")), max_size=200)  # (Cn: no words)


@settings(max_examples=300, deadline=None)
@given(_text)
def test_tokenize_never_crashes_and_is_stable(text: str) -> None:
    first = tokenize(text)
    assert first == tokenize(text)
    for token in first:
        assert token
        assert not any(ch.isspace() for ch in token)


@settings(max_examples=300, deadline=None)
@given(_text.filter(lambda t: not (_QUOTES & set(t))))
def test_a_text_finds_itself(text: str) -> None:
    """Every term a query made of the text looks up is a term of that text (a capped one: the
    beginning of one)."""
    terms = set(tokenize(text))
    for term in query_terms(text):
        assert term in terms or (len(term) == MAX_TOKEN_CHARS and any(t.startswith(term) for t in terms))


@settings(max_examples=200, deadline=None)
@given(_text)
def test_parse_query_never_crashes(text: str) -> None:
    pq = parse_query(text)
    assert pq.text == text
    assert len(set(pq.terms)) == len(pq.terms)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="打包用了为什么慢电子构建器 abcXYZ-_.0123", max_size=60))
def test_cjk_and_ascii_mixtures(text: str) -> None:
    assert set(query_terms(text)) <= set(tokenize(text))
    if query_terms(text):
        assert _finds(text, text.replace('"', " "))
