"""Snippets around the best match of a query, and highlight spans into them."""

from __future__ import annotations

import re
from functools import lru_cache

from core.search.documents import Doc
from core.search.tokenizer import ParsedQuery, collapse_spaces, normalize
from core.search.types import SearchHit

TYPE_CHECKING = False  # (mypy reads this name as True; ``typing`` stays out of a one-shot CLI's start-up)
if TYPE_CHECKING:
    from core.search.types import HitKind

SNIPPET_CHARS = 160
ELLIPSIS = "…"
_KINDS: dict[str, HitKind] = {"record": "record"}


def _normalize_with_map(text: str) -> tuple[str, list[int] | None]:
    """Normalized ``text`` and, for each normalized char, the index of the source char (None when
    normalization kept every character in place)."""
    if text.isascii():
        return text.lower(), None
    norm = normalize(text)
    if len(norm) == len(text):
        return norm, None
    parts = [normalize(ch) for ch in text]  # (a snippet window: a few hundred characters)
    origin: list[int] = []
    for i, n in enumerate(parts):
        origin += [i] * len(n)
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


def highlight_spans(text: str, pq: ParsedQuery) -> tuple[tuple[int, int], ...]:
    """Sorted, merged ``(start, end)`` char spans of ``text`` matching the query's phrase or terms."""
    pattern = _terms_pattern(_anchor_order(pq))
    if pattern is None or not text:
        return ()
    norm, origin = _normalize_with_map(text)
    spans: list[tuple[int, int]] = []
    for m in pattern.finditer(norm):
        if m.end() == m.start():
            continue
        start, end = (m.start(), m.end()) if origin is None else (origin[m.start()], origin[m.end() - 1] + 1)
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return tuple(spans)


def _anchor_order(pq: ParsedQuery) -> tuple[str, ...]:
    """What a snippet should show first: the whole phrase, quoted phrases, then terms in query order
    (the first word typed is usually the point; CJK bigrams keep the typed order too)."""
    extra = (pq.norm,) if pq.multi_word and pq.norm else ()
    return extra + pq.phrases + pq.terms


def _first_match(text: str, pq: ParsedQuery, flags: int = 0) -> re.Match[str] | None:
    """The first match of the phrase, else of the terms in query order (``flags``: on raw text)."""
    for want in _anchor_order(pq):
        if (pattern := _terms_pattern((want,))) is not None and (m := re.search(pattern.pattern, text, flags)):
            return m
    return None


def make_snippet(text: str, pq: ParsedQuery, width: int = SNIPPET_CHARS) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A one-line window of ``text`` (whitespace collapsed) around the first match, with highlights."""
    cut_before = cut_after = False
    if len(text) > 3 * width:
        # Long text: find the first match in the raw text (case-insensitive search; CJK needs no
        # folding) and only flatten a stretch around it, not the whole document.
        at = m.start() if (m := _first_match(text, pq, re.IGNORECASE)) is not None else 0
        lo, hi = max(0, at - width), at + 2 * width
        cut_before, cut_after = lo > 0, hi < len(text)
        text = text[lo:hi]
    flat = collapse_spaces(text)
    if not flat:
        return "", ()
    anchor = 0
    if len(flat) > width:
        norm, origin = _normalize_with_map(flat)
        if (m := _first_match(norm, pq)) is not None:
            anchor = m.start() if origin is None else origin[m.start()]
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
    window = flat[start:end].strip()
    spans = highlight_spans(window, pq)  # before the ellipses: "…" would normalize to "..."
    if start > 0 or cut_before:
        window = ELLIPSIS + window
        spans = tuple((a + 1, b + 1) for a, b in spans)
    if end < len(flat) or cut_after:
        window += ELLIPSIS
    return window, spans


def truncate_utf8(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits in ``max_bytes``."""
    data = text.encode("utf-8")
    return text if len(data) <= max_bytes else data[: max(max_bytes, 0)].decode("utf-8", errors="ignore")


def hit_of(doc: Doc, score: float, pq: ParsedQuery) -> SearchHit:
    """A hit: the snippet around the body's first match, or the description's when only the
    description matched (its words highlighted there), or the body's first line."""
    snippet, spans = make_snippet(doc.body if doc.body.strip() else (doc.description or doc.name), pq)
    if not spans and doc.description:
        snippet, spans = max((snippet, spans), make_snippet(doc.description, pq), key=lambda s: bool(s[1]))
    d, kind = doc, _KINDS.get(doc.kind, "global_section")
    head = (d.scope_key, d.cwd, kind, d.name, d.type, d.description, score, snippet, spans)
    return SearchHit(*head, d.file_name, d.section_index, d.archived, d.mtime_ns)


def shrink(hit: SearchHit, budget: int) -> SearchHit | None:
    """``hit`` with its snippet cut to fit ``budget`` bytes, or None if even its metadata doesn't fit."""
    room = budget - (hit.byte_size - len(hit.snippet.encode("utf-8")))
    if room < 16:
        return None
    snippet = truncate_utf8(hit.snippet, room - len("…".encode())).rstrip() + "…"
    spans = tuple((s, min(e, len(snippet) - 1)) for s, e in hit.highlights if s < len(snippet) - 1)
    return hit.replace(snippet=snippet, highlights=spans)
