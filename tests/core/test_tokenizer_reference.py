"""The search tokenizer's fast paths give exactly the tokens of the plain algorithm, and tantivy's
analyzers (over ``engine.prep``) index exactly that set of terms.

``core.search.tokenizer`` (what queries are cut with) uses possessive regexes and caps only the
chunks; the documents are cut by tantivy's regex tokenizers in Rust. A query term finds a document
only if both sides agree, so these tests compare them with a reference written the obvious way.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import tantivy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core.search import engine
from core.search.tokenizer import CJK_CLASS, MAX_TOKEN_CHARS, normalize, squash, tokenize

_CJK = re.compile(rf"[{CJK_CLASS}]+")
_ASCII_CHUNK = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
_CHUNK = re.compile(r"[^\W_]+(?:[-_.][^\W_]+)*")
_PART = re.compile(r"[^\W_]+")


def reference_tokens(text: str) -> list[str]:
    norm = normalize(text)
    if norm.isascii():
        chunks, runs = _ASCII_CHUNK.findall(norm), []
    else:
        runs = _CJK.findall(norm)
        chunks = _CHUNK.findall(_CJK.sub(" ", norm))
    comps = [c for c in chunks if not c.isalnum()]
    tokens = list(chunks)
    tokens += [p for c in comps for p in _PART.findall(c)]
    tokens += [c.replace("-", "").replace("_", "").replace(".", "") for c in comps]
    for run in runs:
        tokens += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    return [t[:MAX_TOKEN_CHARS] for t in tokens]


def reference_tokens_uncapped(text: str) -> set[str]:
    """The terms of ``reference_tokens`` before the 64-character cap (tantivy keeps long words)."""
    norm = normalize(text)
    runs = _CJK.findall(norm)
    chunks = _CHUNK.findall(_CJK.sub(" ", norm))
    comps = [c for c in chunks if not c.isalnum()]
    tokens = set(chunks) | {p for c in comps for p in _PART.findall(c)}
    tokens |= {c.replace("-", "").replace("_", "").replace(".", "") for c in comps}
    for run in runs:
        tokens |= {run} if len(run) == 1 else {run[i : i + 2] for i in range(len(run) - 1)}
    return tokens


def _analyzers() -> tuple[Any, Any]:
    words = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).build()  # (engine.register_analyzers)
    compounds = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
    return words, compounds


# Text that exercises every branch: compounds with each separator (and doubled / trailing ones),
# CJK runs of one and more characters beside Latin words, full-width forms NFKC changes, accents
# with combining marks, over-long words and compounds.
_WORDS = "electron-builder core.store.api snake_case 3.11 a--b x. .y _z_ 打包用了 包 한국어 カタカナ ＡＢＣ"
_MORE = "Ｅｌｅｃｔｒｏｎ café cafe\u0301 ß İ α-β ٣.١٤ ， 。 !"
_PIECES = st.sampled_from([*_WORDS.split(" "), *_MORE.split(" "), "x" * 70, "long-" + "y" * 66, "é" * 65, " ", "\n"])
_TEXT = st.one_of(
    st.lists(_PIECES, max_size=12).map("".join),
    st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=10).map(" ".join),
)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_tokens_equal_the_plain_algorithm(text: str) -> None:
    assert tokenize(text) == reference_tokens(text)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_tantivy_indexes_the_terms_of_the_plain_algorithm(text: str) -> None:
    """Words and CJK bigrams from the word analyzer, compounds from the compound one; a compound's
    squashed form is looked up through the compounds (engine.QueryBuilder.term). Any assigned
    characters, combining marks included (Rust's alphanumerics are a superset of Python's)."""
    assume(all(unicodedata.category(c) != "Cn" for c in text))  # (unassigned code points: no words)
    words, compounds = _analyzers()
    word_text, comp_text = engine.fields_of(normalize(text))
    comps = set(compounds.analyze(comp_text))
    assert set(words.analyze(word_text)) | comps | {squash(c) for c in comps} == reference_tokens_uncapped(text)


def test_over_long_chunks_are_capped_wherever_they_come_from() -> None:
    text = "x" * 70 + " long-" + "y" * 66 + " " + "é" * 65 + " 打包"
    tokens = tokenize(text)
    assert tokens == reference_tokens(text)
    assert "x" * MAX_TOKEN_CHARS in tokens
    assert ("long" + "y" * 66)[:MAX_TOKEN_CHARS] in tokens  # the compound without its separator
    assert all(len(t) <= MAX_TOKEN_CHARS for t in tokens)
    assert "打包" in tokens
