"""Text normalization and tokenization shared by the index and by queries.

Normalization is NFKC + case folding (``Electron-Builder`` → ``electron-builder``, full-width
``ＡＢＣ`` → ``abc``). Tokens are:

- word parts: maximal runs of letters/digits of non-CJK scripts (``snake_case`` → ``snake``, ``case``);
- compounds: parts joined by ``-``, ``_`` or ``.`` kept whole as well (``electron-builder``,
  ``core.store.api``, ``3.11``, ``2026-11-30``), so an exact compound outranks its loose parts;
- CJK (Han, kana, Hangul): overlapping character bigrams of each run (``打包用了`` → ``打包``,
  ``包用``, ``用了``); a one-character run is itself a token. A one-character *query* also
  matches every bigram containing that character (the index expands it).

Everything is regex-driven (C speed) because the index tokenizes ~10 MB on a cold start.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import filterfalse
from operator import add

MAX_TOKEN_CHARS = 64
MAX_QUERY_TERMS = 64  # a pasted page is not a query; the rest is ignored

CJK_CLASS = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u3190-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
)
# Possessive quantifiers (``++``, ``*+``): nothing after a run can ever make it give characters
# back (what follows a word run is an optional tail that always matches, and a tail needs its
# separator first), so they find exactly what ``+`` / ``*`` find, without the engine recording
# backtrack points for every character: ~1.4-2x faster on a cold build's 10 MB.
_CJK_RUN_RE = re.compile(rf"[{CJK_CLASS}]++")
# A chunk is a word with its compound tail (``electron-builder``, ``core.store.api``, ``3.11``):
# one left-to-right pass, no retries inside words.
_ASCII_CHUNK_RE = re.compile(r"[a-z0-9]++(?:[-_.][a-z0-9]++)*+")
_ASCII_PART_RE = re.compile(r"[a-z0-9]++")
_CHUNK_RE = re.compile(r"[^\W_]++(?:[-_.][^\W_]++)*+")  # any script, on text with CJK runs blanked
_PART_RE = re.compile(r"[^\W_]++")
_LAST_WORD_RE = re.compile(r"(?:^|\s)([a-z0-9]{3,})$")
_SPACE_RE = re.compile(r"\s+")
_NON_WORD_RE = re.compile(r"[\W_]+")
_QUOTED_RE = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」')

# Query-only: English function words carry no meaning for ranking. Dropped from a query unless
# the query has nothing else.
_STOPWORD_TEXT = (
    "a an and are as at be by do does did for from how i in is it its of on or so that the this to "
    "was we what when where which who why with you"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split(" "))


def normalize(text: str) -> str:
    """NFKC + case folding (idempotent for practical text), in C; ASCII takes a fast path."""
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKC", text).casefold()
    return folded if unicodedata.is_normalized("NFKC", folded) else unicodedata.normalize("NFKC", folded)


def squash(norm: str) -> str:
    """Normalized text with every separator, space and punctuation run removed: the form
    ``electron builder``, ``electron-builder`` and ``Electron_Builder`` share."""
    return _NON_WORD_RE.sub("", norm)


def collapse_spaces(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip()


def _cap(tokens: list[str]) -> list[str]:
    if not tokens or max(map(len, tokens)) <= MAX_TOKEN_CHARS:
        return tokens
    return [t if len(t) <= MAX_TOKEN_CHARS else t[:MAX_TOKEN_CHARS] for t in tokens]


def cjk_terms(run: str) -> list[str]:
    """Bigrams of a CJK run; the character itself for a one-character run."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def bigram_table(terms: Iterable[str]) -> dict[str, list[str]]:
    """CJK character -> the CJK bigrams among ``terms`` holding it (what a one-character query
    expands to), in the order of ``terms``."""
    table: dict[str, list[str]] = {}
    for term in terms:
        if len(term) == 2 and not term.isascii() and _CJK_RUN_RE.fullmatch(term):
            table.setdefault(term[0], []).append(term)
            if term[1] != term[0]:
                table.setdefault(term[1], []).append(term)
    return table


def _words(norm: str) -> tuple[list[str], list[str], list[str]]:
    """(words and compounds, the compounds alone, CJK runs) of normalized text."""
    if norm.isascii():
        chunks = _ASCII_CHUNK_RE.findall(norm)
        return chunks, list(filterfalse(str.isalnum, chunks)), []
    runs = _CJK_RUN_RE.findall(norm)
    plain = _CHUNK_RE.findall(_CJK_RUN_RE.sub(" ", norm) if runs else norm)
    return plain, list(filterfalse(str.isalnum, plain)), runs


def _compound_parts(comps: list[str]) -> list[str]:
    return _PART_RE.findall(" ".join(comps)) if comps else []


def tokenize_normalized(norm: str) -> list[str]:
    """Tokens of already-normalized text.

    Documents also get each compound without its separators (``electronbuilder``), so a query
    written either way finds it and the "normalized substring" rule can look it up.
    """
    tokens, comps, runs = _words(norm)
    # Only a chunk can be over-long: what is added below is a part of a chunk, a chunk without its
    # separators, or one or two CJK characters. So the cap looks at the chunks alone.
    capped = bool(tokens) and max(map(len, tokens)) > MAX_TOKEN_CHARS
    if comps:
        joined = " ".join(comps)  # (compounds hold no spaces)
        tokens += _PART_RE.findall(joined)
        tokens += joined.replace("-", "").replace("_", "").replace(".", "").split(" ")
    for run in runs:  # bigrams of each run, C-level (``map`` stops at the shorter string)
        tokens += map(add, run, run[1:]) if len(run) > 1 else (run,)
    return _cap(tokens) if capped else tokens


def tokenize(text: str) -> list[str]:
    """Every index token of ``text`` (with repeats, grouped by kind, not in text order)."""
    return tokenize_normalized(normalize(text))


@dataclass(frozen=True)
class ParsedQuery:
    """A query ready to run: its terms and the phrase forms used by the first ranking rule."""

    text: str
    norm: str  # normalized, spaces collapsed
    squashed: str  # normalized without separators (for the "normalized substring" rule)
    terms: tuple[str, ...]  # distinct, in query order
    prefix_terms: tuple[str, ...]  # the last ASCII word (>= 3 chars), also matched as a word prefix
    phrases: tuple[str, ...]  # normalized quoted phrases: every hit must contain each of them
    multi_word: bool  # more than one term: the phrase rule needs a substring check

    @property
    def empty(self) -> bool:
        return not self.terms and not self.phrases


def _dedupe(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def query_terms(query: str) -> tuple[str, ...]:
    """The terms a query looks up (stopwords dropped unless nothing else is left)."""
    return parse_query(query).terms


def parse_query(query: str) -> ParsedQuery:
    phrases = _dedupe(
        [collapse_spaces(normalize(next(g for g in m.groups() if g is not None))) for m in _QUOTED_RE.finditer(query)]
    )
    bare = _QUOTED_RE.sub(lambda m: " " + next(g for g in m.groups() if g is not None) + " ", query)
    norm = collapse_spaces(normalize(bare))
    chunks, comps, runs = _words(norm)
    words: list[str] = [c for c in chunks if c.isalnum()] + _compound_parts(comps) + comps
    content = [w for w in words if w not in STOPWORDS]
    if content:
        words = content
    cjk: list[str] = []
    for run in runs:
        cjk += cjk_terms(run)
    terms = _dedupe(_cap(words + cjk))[:MAX_QUERY_TERMS]
    # Search-as-you-type: the last word, when the query does not end in a space, also matches
    # longer words it begins (``electr`` → ``electron``), at a lower weight.
    # (Not when the last word is part of a compound or glued to punctuation.)
    m = _LAST_WORD_RE.search(norm) if not query[-1:].isspace() else None
    last = m.group(1) if m else ""
    prefix = (last,) if last in terms else ()
    return ParsedQuery(
        text=query,
        norm=norm,
        squashed=squash(norm),
        terms=terms,
        prefix_terms=prefix,
        phrases=phrases,
        multi_word=len(terms) > 1 or len(phrases) > 0,
    )
