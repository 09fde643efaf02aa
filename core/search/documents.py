"""Searchable documents: a workspace record or a Global section, with its token analysis."""

from __future__ import annotations

import sys
from collections import _count_elements  # type: ignore[attr-defined]  # C helper of Counter
from dataclasses import dataclass
from typing import Any

from core.search.tokenizer import normalize, squash, tokenize, tokenize_normalized

# Points a query term earns for appearing in a field (the second ranking rule).
NAME_POINTS = 4
DESCRIPTION_POINTS = 2
TYPE_POINTS = 1
_TYPE_WORDS = frozenset(("feedback", "project", "reference", "global"))


# BM25 with a fixed average document length: a record's term weights then depend on its own text
# only, so they are computed once per file revision and survive every later refresh unchanged.
K1 = 1.2
B = 0.75
AVGDL = 200.0  # tokens in a typical ~1 KB record
K1P = K1 + 1.0


def bm25_k(length: int) -> float:
    """The length part of a document's BM25 term weights."""
    return K1 * (1.0 - B + B * length / AVGDL)


def tf_weight(tf: int, k: float) -> float:
    """A term's BM25 weight in a document from its count there (``k = bm25_k(length)``)."""
    return tf * K1P / (tf + k)


class Analysis:
    """Everything the index needs from a document's text; depends only on the text.

    ``norm`` (the normalized text, for the phrase rule) is the record's text a second time: a
    scope loaded from the persisted index does not store it but passes ``source`` (the document's
    fields), and ``norm`` is recomputed from them on first use (one ``str.lower()`` for ASCII text)
    and remembered. Hashes by identity."""

    __slots__ = ("_norm", "_source", "length", "name_key", "points", "weights")

    def __init__(
        self,
        weights: dict[str, float],
        points: dict[str, int],
        norm: str | None,
        name_key: str,
        length: int,
        source: tuple[str, str, str, str] | None = None,
    ) -> None:
        if norm is None and source is None:
            raise ValueError("an analysis needs its normalized text or its source fields")
        self.weights = weights  # term -> BM25 term-frequency component (idf applied per query)
        self.points = points  # term -> field points (name/description/type)
        self._norm = norm
        self._source = source  # (name, description, type, body) while norm is not computed yet
        self.name_key = name_key  # squashed normalized name (exact-name rule)
        self.length = length  # number of tokens

    @property
    def norm(self) -> str:
        """Normalized ``"name\ndescription\ntype\nbody"``. (Two threads racing here compute the
        same string twice, harmlessly.)"""
        norm = self._norm
        if norm is None:
            source = self._source
            assert source is not None
            norm = self._norm = normalize("\n".join(source))
            self._source = None
        return norm


def analyze(name: str, description: str, type_: str, body: str) -> Analysis:
    norm = normalize(f"{name}\n{description}\n{type_}\n{body}")
    tokens = tokenize_normalized(norm)
    length = len(tokens)
    k = bm25_k(length)
    counts: dict[str, int] = {}
    _count_elements(counts, tokens)  # what Counter(tokens) runs, without its checks (a cold build: 100k calls)
    # tf -> weight from a small table, mapped in C (this runs for every record on a cold start).
    table = [tf_weight(tf, k) for tf in range(max(counts.values(), default=0) + 1)]
    # Interned terms: 10k records share one copy of each word instead of one per record.
    # (Also what makes the cold build's table passes fast: equal keys are the same object.)
    weights = dict(zip(map(sys.intern, counts.keys()), map(table.__getitem__, counts.values()), strict=True))
    name_norm = normalize(name)  # (once: for its points and for the exact-name key)
    points: dict[str, int] = dict.fromkeys(map(sys.intern, tokenize_normalized(name_norm)), NAME_POINTS)
    if description:
        for term in set(map(sys.intern, tokenize(description))):
            points[term] = points.get(term, 0) + DESCRIPTION_POINTS
    for term in set(tokenize(type_)) if type_ not in _TYPE_WORDS else (type_,):
        points[term] = points.get(term, 0) + TYPE_POINTS
    return Analysis(
        weights=weights,
        points=points,
        norm=norm,
        name_key=squash(name_norm),
        length=length,
    )


@dataclass(frozen=True, slots=True, eq=False)
class Doc:
    """One searchable unit. Hashes by identity: the index keys score tables by the object."""

    scope_key: str
    cwd: str
    archived: bool
    kind: str  # "record" | "global_section"
    name: str
    description: str
    type: str
    body: str
    file_name: str
    section_index: int
    mtime_ns: int
    revision: str  # file revision (records) or section fingerprint (Global)
    analysis: Analysis
    weights: dict[str, float]  # == analysis.weights (one attribute hop less in the hot loop)

    @property
    def sort_name(self) -> tuple[str, str, int]:
        return (self.scope_key, self.name, self.section_index)


@dataclass(frozen=True)
class GlobalSection:
    heading: str  # "" for text before the first heading
    level: int  # 1..6, 0 for the preamble
    text: str  # the section's text under its heading line (heading line excluded)
    index: int


_MD: list[Any] = []  # the parser, made on first use (importing markdown-it costs a one-shot CLI search)


def split_global_sections(text: str) -> list[GlobalSection]:
    """``GLOBAL.md`` cut at every Markdown heading (ATX or setext, not inside code fences).

    Text before the first heading is a section with an empty heading when it is not blank.
    """
    lines = text.splitlines(keepends=True)
    heads: list[tuple[int, int, int, str]] = []  # (first line, line after heading, level, title)
    if not _MD:
        from markdown_it import MarkdownIt

        _MD.append(MarkdownIt("commonmark"))
    tokens = _MD[0].parse(text)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map is not None:
            title = tokens[i + 1].content if i + 1 < len(tokens) else ""
            heads.append((tok.map[0], tok.map[1], int(tok.tag[1:]), title.strip()))
    sections: list[GlobalSection] = []
    first = heads[0][0] if heads else len(lines)
    pre = "".join(lines[:first])
    if pre.strip():
        sections.append(GlobalSection(heading="", level=0, text=pre, index=0))
    for n, (start, after, level, title) in enumerate(heads):
        del start
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        sections.append(GlobalSection(heading=title, level=level, text="".join(lines[after:end]), index=len(sections)))
    return sections
