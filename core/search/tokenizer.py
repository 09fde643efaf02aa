"""Text normalization and tokenization shared by the index and by queries.

Normalization is NFKC + case folding (``Electron-Builder`` → ``electron-builder``, full-width
``ＡＢＣ`` → ``abc``). Tokens are:

- word parts: maximal runs of letters/digits of non-CJK scripts (``snake_case`` → ``snake``, ``case``);
- compounds: parts joined by ``-``, ``_`` or ``.`` kept whole as well (``electron-builder``,
  ``core.store.api``, ``3.11``, ``2026-11-30``), so an exact compound outranks its loose parts;
- camelCase humps (``SearchIndex`` → ``search``, ``index``, besides ``searchindex``);
- CJK (Han, kana, Hangul): overlapping character bigrams of each run (``打包用了`` → ``打包``,
  ``包用``, ``用了``) plus single characters, which queries use only for one-character runs.

Everything is regex-driven (C speed) because the index tokenizes ~10 MB on a cold start.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_TOKEN_CHARS = 64

_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u3190-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
)
_W = rf"[^\W_{_CJK}]"  # a letter or digit of a non-CJK script
_PART_RE = re.compile(rf"{_W}+")
_COMPOUND_RE = re.compile(rf"{_W}+(?:[-_.]{_W}+)+")
_CJK_BIGRAM_RE = re.compile(rf"(?=([{_CJK}]{{2}}))")
_CJK_CHAR_RE = re.compile(rf"[{_CJK}]")
_CJK_RUN_RE = re.compile(rf"[{_CJK}]+")
_CAMEL_WORD_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]*(?:[a-z][A-Z]|[A-Z]{2}[a-z])[A-Za-z0-9]*")
_HUMP_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
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
    """NFKC + case folding (idempotent for practical text); ASCII takes a fast path."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def squash(norm: str) -> str:
    """Normalized text with every separator, space and punctuation run removed: the form
    ``electron builder``, ``electron-builder`` and ``Electron_Builder`` share."""
    return _NON_WORD_RE.sub("", norm)


def collapse_spaces(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip()


def _camel_parts(text: str) -> list[str]:
    """Lower-cased humps of camelCase / PascalCase words of the *un-folded* text."""
    out: list[str] = []
    for word in _CAMEL_WORD_RE.findall(text):
        out.extend(h.lower() for h in _HUMP_RE.findall(word))
    return out


def _cap(tokens: list[str]) -> list[str]:
    if all(len(t) <= MAX_TOKEN_CHARS for t in tokens):
        return tokens
    return [t if len(t) <= MAX_TOKEN_CHARS else t[:MAX_TOKEN_CHARS] for t in tokens]


def tokenize_normalized(norm: str, raw: str | None = None) -> list[str]:
    """Tokens of already-normalized text (``raw`` = the text before folding, for camelCase)."""
    tokens = _PART_RE.findall(norm)
    if "-" in norm or "_" in norm or "." in norm:
        tokens += _COMPOUND_RE.findall(norm)
    if raw is not None and not raw.islower() and not raw.isupper():
        tokens += _camel_parts(raw)
    if not norm.isascii():
        tokens += _CJK_BIGRAM_RE.findall(norm)
        tokens += _CJK_CHAR_RE.findall(norm)
    return _cap(tokens)


def tokenize(text: str) -> list[str]:
    """Every index token of ``text`` (with repeats, grouped by kind, not in text order)."""
    return tokenize_normalized(normalize(text), text)


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
        [
            collapse_spaces(normalize(next(g for g in m.groups() if g is not None)))
            for m in _QUOTED_RE.finditer(query)
        ]
    )
    bare = _QUOTED_RE.sub(lambda m: " " + next(g for g in m.groups() if g is not None) + " ", query)
    norm = collapse_spaces(normalize(bare))
    parts = _PART_RE.findall(norm)
    words: list[str] = list(parts)
    if "-" in norm or "_" in norm or "." in norm:
        words += _COMPOUND_RE.findall(norm)
    words += _camel_parts(bare)
    content = [w for w in words if w not in STOPWORDS]
    if content:
        words = content
    cjk: list[str] = []
    for run in _CJK_RUN_RE.findall(norm):
        if len(run) == 1:
            cjk.append(run)
        else:
            cjk.extend(run[i : i + 2] for i in range(len(run) - 1))
    terms = _dedupe(_cap(words + cjk))
    # Search-as-you-type: the last word, when the query does not end in a space, also matches
    # longer words it begins (``electr`` → ``electron``), at a lower weight.
    last = parts[-1] if parts and not query[-1:].isspace() and norm.endswith(parts[-1]) else ""
    prefix = (last,) if len(last) >= 3 and last.isascii() and last in terms else ()
    return ParsedQuery(
        text=query,
        norm=norm,
        squashed=squash(norm),
        terms=terms,
        prefix_terms=prefix,
        phrases=phrases,
        multi_word=len(terms) > 1 or len(phrases) > 0,
    )
