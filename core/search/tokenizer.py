"""Normalization (NFKC + case folding) and query parsing into the terms documents are indexed by:
words, compounds whole and in parts, CJK bigrams (a one-character run is itself a term, which also
matches every bigram holding it); docs/search.md, "Matching". tantivy cuts documents (``engine``)."""

from __future__ import annotations

import re
import unicodedata
from itertools import filterfalse

from core.frozen import Frozen
from core.non_ascii_pattern import NonAsciiPattern

MAX_TOKEN_CHARS = 64  # a longer query word looks up the words it begins
MAX_QUERY_TERMS = 64  # a pasted page is not a query; the rest is ignored

CJK_CLASS = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u3190-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
)


CJK_RUN_RE = NonAsciiPattern(rf"(?:(?![\W_])[{CJK_CLASS}])++")  # (letters: radicals, strokes and marks cut runs)
# A chunk is a word with its compound tail (``electron-builder``, ``core.store.api``, ``3.11``).
_CHUNK_RE = re.compile(r"[^\W_]++(?:[-_.][^\W_]++)*+")  # (on text with CJK runs blanked)
_PART_RE = re.compile(r"[^\W_]++")
_LAST_WORD_RE = re.compile(r"(?:^|\s)([a-z0-9]{3,})$")
_SPACE_RE = re.compile(r"\s+")
_NON_WORD_RE = re.compile(r"[\W_]+")
_QUOTED_RE = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」')
# English function words carry no meaning for ranking: dropped unless the query has nothing else.
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
    """Normalized text without separators, spaces or punctuation: what ``electron builder``,
    ``electron-builder`` and ``Electron_Builder`` share."""
    return _NON_WORD_RE.sub("", norm)


def collapse_spaces(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip()


class ParsedQuery(Frozen):
    """A query ready to run: its terms and the phrase forms used by the first ranking rule."""

    text: str
    norm: str  # normalized, spaces collapsed
    squashed: str  # normalized without separators (the exact-name rule)
    terms: tuple[str, ...]  # distinct, in query order
    prefix_terms: tuple[str, ...]  # the last ASCII word (>= 3 chars), also matched as a word prefix
    phrases: tuple[str, ...]  # normalized quoted phrases: every hit must contain each of them
    multi_word: bool  # more than one term (or a quoted phrase): the phrase rule applies

    @property
    def empty(self) -> bool:
        return not self.terms and not self.phrases  # (nothing to look up)


def _dedupe(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def parse_query(query: str) -> ParsedQuery:
    phrases = _dedupe(
        [collapse_spaces(normalize(next(g for g in m.groups() if g is not None))) for m in _QUOTED_RE.finditer(query)]
    )
    bare = _QUOTED_RE.sub(lambda m: " " + next(g for g in m.groups() if g is not None) + " ", query)
    norm = collapse_spaces(normalize(bare))
    runs = CJK_RUN_RE.findall(norm)
    chunks = _CHUNK_RE.findall(CJK_RUN_RE.sub(" ", norm))
    comps = list(filterfalse(str.isalnum, chunks))
    words = [c for c in chunks if c.isalnum()] + _PART_RE.findall(" ".join(comps)) + comps
    words = [w for w in words if w not in STOPWORDS] or words
    cjk = [b for run in runs for b in ([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])]
    terms = _dedupe([t[:MAX_TOKEN_CHARS] for t in words + cjk])[:MAX_QUERY_TERMS]
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
