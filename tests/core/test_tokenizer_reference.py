"""tantivy's analyzers (over ``engine.fields_of``) index exactly the terms the previous engine's
tokenizer gave a text, written here the obvious way (backtracking regexes, no fast paths): queries
are still cut in Python (``core.search.tokenizer``), and a query term finds a document only if
both sides agree.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import tantivy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core.search import engine
from core.search.tokenizer import CJK_CLASS, normalize, squash

_CJK = re.compile(rf"(?:(?=\w)[{CJK_CLASS}])+")  # (CJK letters: a radical or a stroke is no word)
_ASCII_CHUNK = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
_CHUNK = re.compile(r"[^\W_]+(?:[-_.][^\W_]+)*")
_PART = re.compile(r"[^\W_]+")


def reference_tokens_uncapped(text: str) -> set[str]:
    """Every term of a text: words and compounds (and their parts and squashed forms), CJK bigrams
    (a one-character run itself); no 64-character cap (tantivy keeps long words whole)."""
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


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_tantivy_indexes_the_terms_of_the_plain_algorithm(text: str) -> None:
    """Words and CJK bigrams from the word analyzer, compounds from the compound one; a compound's
    squashed form is looked up through the compounds (engine.QueryBuilder.term). Any assigned
    characters, combining marks included (Rust's alphanumerics are a superset of Python's)."""
    assume(all(unicodedata.category(c) != "Cn" for c in text))  # (unassigned code points: no words)
    words, compounds = _analyzers()
    word_text, comp_text, cjk_text = engine.fields_of(normalize(text))
    comps = set(compounds.analyze(comp_text))
    assert set(words.analyze(word_text)) | comps | {squash(c) for c in comps} == reference_tokens_uncapped(text)
    # The CJK field: every character of every CJK run, each a term (a one-character query finds it).
    assert words.analyze(cjk_text) == [c for run in _CJK.findall(normalize(text)) for c in run]


def test_text_that_rust_cuts_differently_is_always_spaced_out() -> None:
    """``engine.fields_of`` leaves non-word characters in place unless the text may hold one that
    Rust calls alphanumeric and Python does not (combining marks, newer Unicode): every such code
    point, found by running tantivy's tokenizer over all of them, must trip that check."""
    chars = [chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    rust_words = set(_analyzers()[0].analyze(" ".join(chars)))
    rust_only = [c for c in chars if c in rust_words and not (c.isalnum() or c == "_")]
    assert rust_only  # (the check is needed at all: marks, newer Unicode)
    assert [hex(ord(c)) for c in rust_only if not engine._ODD_RE.match(c)] == []
