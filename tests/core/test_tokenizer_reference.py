"""The search tokenizer's fast paths give exactly the tokens and analyses of the plain algorithm.

``core.search.tokenizer`` uses possessive regexes and caps only the chunks; ``analyze`` counts
with Counter's C helper and normalizes the name once. Ranking depends on every token (and on the
order of a document's weights, which the persisted index stores), so these tests compare them,
token for token, with a reference written the obvious way: backtracking regexes, every token
capped, ``Counter``, each field normalized on its own.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from core.search.documents import (
    DESCRIPTION_POINTS,
    NAME_POINTS,
    TYPE_POINTS,
    analyze,
    bm25_k,
    tf_weight,
)
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


def reference_analysis(name: str, description: str, type_: str, body: str) -> tuple[object, ...]:
    tokens = reference_tokens(f"{name}\n{description}\n{type_}\n{body}")
    k = bm25_k(len(tokens))
    weights = [(term, tf_weight(tf, k)) for term, tf in Counter(tokens).items()]
    points: dict[str, int] = {}
    for term in set(reference_tokens(name)):
        points[term] = points.get(term, 0) + NAME_POINTS
    for term in set(reference_tokens(description)):
        points[term] = points.get(term, 0) + DESCRIPTION_POINTS
    for term in set(reference_tokens(type_)):
        points[term] = points.get(term, 0) + TYPE_POINTS
    norm = normalize(f"{name}\n{description}\n{type_}\n{body}")
    return (len(tokens), weights, sorted(points.items()), norm, squash(normalize(name)))


def actual_analysis(name: str, description: str, type_: str, body: str) -> tuple[object, ...]:
    a = analyze(name, description, type_, body)
    return (a.length, list(a.weights.items()), sorted(a.points.items()), a.norm, a.name_key)


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


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT, st.sampled_from(["project", "feedback", "reference", "global", "Odd-Type"]), _TEXT)
def test_analysis_equals_the_plain_algorithm(name: str, description: str, type_: str, body: str) -> None:
    assert actual_analysis(name, description, type_, body) == reference_analysis(name, description, type_, body)


def test_over_long_chunks_are_capped_wherever_they_come_from() -> None:
    text = "x" * 70 + " long-" + "y" * 66 + " " + "é" * 65 + " 打包"
    tokens = tokenize(text)
    assert tokens == reference_tokens(text)
    assert "x" * MAX_TOKEN_CHARS in tokens
    assert ("long" + "y" * 66)[:MAX_TOKEN_CHARS] in tokens  # the compound without its separator
    assert all(len(t) <= MAX_TOKEN_CHARS for t in tokens)
    assert "打包" in tokens


def test_analysis_terms_are_interned() -> None:
    """Documents share one copy of each term (the index's memory at 100k records depends on it)."""
    a = analyze("electron-builder", "packaging notes", "project", "Electron builder 打包")
    b = analyze("other", "", "project", "electron-builder")
    for term in a.weights.keys() & b.weights.keys():
        assert next(t for t in a.weights if t == term) is next(t for t in b.weights if t == term)
        assert next(t for t in a.weights if t == term) is sys.intern(term)
