"""Snippets around the best match of a query, and highlight spans into them."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from core.search.tokenizer import ParsedQuery, collapse_spaces, normalize

SNIPPET_CHARS = 160
ELLIPSIS = "…"


def _normalize_with_map(text: str) -> tuple[str, list[int]]:
    """Normalized ``text`` and, for each normalized char, the index of the source char."""
    norm = normalize(text)
    if len(norm) == len(text):
        return norm, list(range(len(text)))
    parts: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        n = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", ch).casefold())
        parts.append(n)
        origin.extend([i] * len(n))
    return "".join(parts), origin


@lru_cache(maxsize=256)
def _terms_pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    alts: list[str] = []
    for term in sorted(set(terms), key=lambda t: (-len(t), t)):
        if not term:
            continue
        esc = re.escape(term)
        # ASCII words start at a word boundary (so "s" doesn't light up every "s"), CJK anywhere.
        alts.append(rf"(?<![a-z0-9]){esc}" if term[0].isascii() and term[0].isalnum() else esc)
    return re.compile("|".join(alts)) if alts else None


def _pattern_for(pq: ParsedQuery) -> re.Pattern[str] | None:
    extra = (pq.norm,) if pq.multi_word and pq.norm else ()
    return _terms_pattern(extra + pq.phrases + pq.terms)


def highlight_spans(text: str, pq: ParsedQuery) -> tuple[tuple[int, int], ...]:
    """Sorted, merged ``(start, end)`` char spans of ``text`` matching the query's phrase or terms."""
    pattern = _pattern_for(pq)
    if pattern is None or not text:
        return ()
    norm, origin = _normalize_with_map(text)
    spans: list[tuple[int, int]] = []
    for m in pattern.finditer(norm):
        if m.end() == m.start():
            continue
        start, end = origin[m.start()], origin[m.end() - 1] + 1
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return tuple(spans)


def make_snippet(
    text: str, pq: ParsedQuery, width: int = SNIPPET_CHARS
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A one-line window of ``text`` (whitespace collapsed) around the first match, with highlights."""
    flat = collapse_spaces(text)
    if not flat:
        return "", ()
    anchor = 0
    pattern = _pattern_for(pq)
    if pattern is not None and len(flat) > width:
        norm, origin = _normalize_with_map(flat)
        m = pattern.search(norm)
        if m is not None:
            anchor = origin[m.start()]
    start = 0
    if len(flat) > width and anchor > width // 4:
        start = min(anchor - width // 4, len(flat) - width)
        space = flat.rfind(" ", max(0, start - 12), start + 1)
        if space > 0:
            start = space + 1
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", end - 12, end)
        if space > start:
            end = space
    snippet = flat[start:end].strip()
    if start > 0:
        snippet = ELLIPSIS + snippet
    if end < len(flat):
        snippet += ELLIPSIS
    return snippet, highlight_spans(snippet, pq)


def truncate_utf8(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits in ``max_bytes``."""
    if max_bytes <= 0:
        return ""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")
