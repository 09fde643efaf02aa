"""The tantivy side of search: schema, analyzers, documents in, rank-group queries out.

Text reaches tantivy normalized, CJK runs written out as bigrams (``打包用了`` → ``打包 包用 用了``);
tantivy's simple tokenizer cuts it into words (with positions) in Rust; compounds are indexed whole.
A query's score *is* its rank: constant-score clauses add the rank group (docs/search.md) in steps
above any BM25 sum, the term clauses add tantivy's BM25 below them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from functools import partial
from operator import add

import tantivy
from tantivy import Occur

from core.non_ascii_pattern import NonAsciiPattern
from core.search.documents import Doc
from core.search.tokenizer import CJK_RUN_RE, MAX_TOKEN_CHARS, ParsedQuery, normalize, squash

SCHEMA_VERSION = 7  # bump on any change to the schema, the analyzers or the text prep: the index is rebuilt
WORD = "dsh_word"  # tantivy's simple tokenizer, no filters: runs of letters/digits
COMPOUND = "whitespace"  # the compounds, found in Python and joined by spaces
_PY_WORD_RE, _NON_WORD_RE = re.compile(r"[^\W_]+"), re.compile(r"[\W_]+")
# (The look-behind starts a try only at a word's first character: the same matches, a pass per word.)
_COMPOUND_RE = re.compile(r"(?<![^\W_])[^\W_]++(?:[-_.][^\W_]++)++")
_ASCII_COMPOUND_RE = re.compile(r"(?<![a-z0-9])[a-z0-9]++(?:[-_.][a-z0-9]++)++")
_RUN_SPLIT_RE = NonAsciiPattern(f"({CJK_RUN_RE.pattern})")  # (compiled when first used: indexing CJK text)
# Characters Rust may call alphanumeric and Python doesn't (marks, newer Unicode, a few symbols)
# are outside these: ASCII, words, spaces, and blocks of punctuation and symbols without such
# (tests/core/test_tokenizer_reference.py checks every code point against tantivy's tokenizer).
_ODD_RE = NonAsciiPattern(
    r"[^\w\s\x00-\x7f\xa0-\u02ff\u2000-\u20ff\u2190-\u23ff\u2500-\u27ff\u3000-\u3029\u3030-\u303f]"
)
_DROP_SEPS = str.maketrans("", "", "-_.")  # a compound squashed: electron-builder -> electronbuilder
_esc = partial(re.compile(r"([.\\+*?()|\[\]{}^$#&~-])").sub, r"\\\1")  # (a word inside a regex query)
_JSON = json.JSONEncoder(ensure_ascii=False).encode  # (a stored document; json.dumps adds ~3 µs a call)
PREFIX_BOOST = 0.5  # a word that only begins with the typed prefix counts half (BM25 part only)
MAX_EXPANSIONS = 64  # a prefix beginning more words is looked up as one regex (all equal scores)
_POINTS = NAME_POINTS, DESCRIPTION_POINTS, TYPE_POINTS = 4, 2, 1  # field points per query term (the third rank group)

# (field, tokenizer, index option) of the analysed fields; name/desc/type feed the field points; the
# compounds, whole and squashed (a term finds electron-builder as electronbuilder), use whitespace.
_SQUASHED = {"comp": "compsq", "namec": "namesq", "descc": "descsq"}
_COMPOUNDS = (*_SQUASHED, *_SQUASHED.values())
TEXT_FIELDS = [
    (f, COMPOUND if f in _COMPOUNDS else WORD, "position" if f == "text" else "freq")
    for f in ("text", "name", "desc", "type", "cjk", *_COMPOUNDS)
]
RAW_FIELDS = ("id", "sid", "arch", "named")  # exact terms: delete / filter / exact-name lookups


def build_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    for name, tokenizer, option in TEXT_FIELDS:
        sb.add_text_field(name, stored=False, tokenizer_name=tokenizer, index_option=option)
    for name in RAW_FIELDS:
        sb.add_text_field(name, stored=name == "id", tokenizer_name="raw", index_option="basic")
    sb.add_bytes_field("doc", stored=True)  # the Doc and its signature as JSON (stored, not indexed)
    for name in ("mtime", "k1", "k2"):  # recency, then (scope key, name)'s first 14 bytes: ties without documents
        sb.add_integer_field(name, fast=True)
    return sb.build()


def register_analyzers(index: tantivy.Index) -> None:
    """The analyzers live in the process, not in the index folder: every open registers them."""
    index.register_tokenizer(WORD, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).build())


def prep(norm: str) -> tuple[str, str, str]:
    """(normalized text with its CJK runs written out as bigrams between spaces, the text without
    them, their characters between spaces): the runs are cut out in C (``re.split``)."""
    if norm.isascii():
        return norm, norm, ""
    parts = _RUN_SPLIT_RE.split(norm)  # [other, CJK run, other, CJK run, ..., other]
    rest, chars = " ".join(parts[::2]), " ".join("".join(parts[1::2]))
    parts[1::2] = [" ".join(map(add, r, r[1:])) if len(r) > 1 else r for r in parts[1::2]]
    return " ".join(parts), rest, chars


def fields_of(norm: str) -> tuple[str, str, str]:
    """(words, compounds, CJK characters) of normalized text, as the word, compound and CJK fields take them.

    tantivy's simple tokenizer cuts at every character that is not alphanumeric to Rust, which
    is a superset of Python's ``str.isalnum`` (combining marks, newer Unicode): text that may hold
    such a character has every non-word character made a space first, so both sides cut alike."""
    if norm.isascii():
        return norm, " ".join(_ASCII_COMPOUND_RE.findall(norm)), ""
    text, rest, chars = prep(norm)
    if _ODD_RE.search(text):
        text = _NON_WORD_RE.sub(" ", text)
    return text, " ".join((_ASCII_COMPOUND_RE if rest.isascii() else _COMPOUND_RE).findall(rest)), chars


def make_document(doc: Doc, *, doc_id: str, sid: str, revision: str) -> tantivy.Document:
    name, desc, kind, body = map(normalize, (doc.name, doc.description, doc.type, doc.body))
    name_words, name_comp, name_cjk = fields_of(name)  # (each part once: the whole text is their lines)
    desc_words, desc_comp, desc_cjk = fields_of(desc)
    kind_words, kind_comp, kind_cjk = fields_of(kind)
    body_words, body_comp, body_cjk = fields_of(body)
    d = doc  # (a plain tuple of the fields: ``astuple`` deep-copies each, a tenth of a cold build)
    stored = [d.scope_key, d.cwd, d.archived, d.kind, d.name, d.description, d.type, d.body, d.file_name]
    return tantivy.Document(
        id=doc_id,
        sid=sid,
        arch="1" if doc.archived else "0",
        named=squash(name),
        text=f"{name_words}\n{desc_words}\n{kind_words}\n{body_words}",
        cjk=" ".join((name_cjk, desc_cjk, kind_cjk, body_cjk)),
        comp=(comp := " ".join((name_comp, desc_comp, kind_comp, body_comp))),
        compsq=comp.translate(_DROP_SEPS),
        name=name_words,
        namec=name_comp,
        namesq=name_comp.translate(_DROP_SEPS),
        desc=desc_words,
        descc=desc_comp,
        descsq=desc_comp.translate(_DROP_SEPS),
        type=kind,
        mtime=d.mtime_ns,
        k1=int.from_bytes((key := f"{d.scope_key}\0{d.name}".encode()[:14].ljust(14, b"\0"))[:7], "big"),
        k2=int.from_bytes(key[7:], "big"),
        doc=_JSON([*stored, d.section_index, d.mtime_ns, revision]).encode(),
    )


def stored_doc(stored: tantivy.Document) -> tuple[Doc, str]:
    """The :class:`Doc` a stored document was made from, and its signature (ValueError when the
    stored bytes are not what ``make_document`` writes: a damaged or foreign index)."""
    raw = json.loads(stored.get_first("doc") or b"[]") if isinstance(stored.get_first("doc"), bytes) else None
    if not (isinstance(raw, list) and len(raw) == len(_TYPES) and all(map(isinstance, raw, _TYPES))):
        raise ValueError("not a stored document of this index")
    return Doc(*raw[:-1]), raw[-1]


_TYPES = (str, str, bool, str, str, str, str, str, str, int, int, str)  # (Doc's fields, then the signature)
Plan = tuple[
    tantivy.Query, float, tantivy.Query | None
]  # a query; if its k-th hit scores below the float, the full one


class QueryBuilder:
    """Turns a :class:`ParsedQuery` into tantivy queries for one searcher."""

    def __init__(self, schema: tantivy.Schema, searcher: tantivy.Searcher) -> None:
        self.schema, self.searcher = schema, searcher
        self._term, self._regex = partial(tantivy.Query.term_query, schema), partial(tantivy.Query.regex_query, schema)

    def _any(self, queries: Sequence[tantivy.Query]) -> tantivy.Query:
        return queries[0] if len(queries) == 1 else tantivy.Query.boolean_query([(Occur.Should, q) for q in queries])

    def term(self, term: str, word: str, compound: str, *, prefix: bool = False, expand: bool = True) -> tantivy.Query:
        """Documents holding ``term`` in these fields (as a word, a compound, or a compound's
        squashed form); ``expand``: a one-character CJK term in any CJK run, and ``prefix``:
        words the term begins."""
        if any(s in term for s in "-_."):  # a compound
            return self._term(compound, term)
        if len(term) == 1 and CJK_RUN_RE.fullmatch(term):  # (``expand``: in any CJK run, not only alone)
            return self._term("cjk" if expand else word, term)
        parts = [self._term(word, term)]
        if len(term) > 1 and term.isalnum() and not CJK_RUN_RE.match(term):  # (no compound holds CJK)
            parts.append(self._term(_SQUASHED[compound], term))
        if len(term) >= MAX_TOKEN_CHARS:  # a capped query term: the long words it begins
            parts.append(self._regex(word, _esc(term) + ".*"))
        if prefix and expand:  # the words it begins: as terms (BM25 tells them apart), one regex if many
            sq, tset, regex = _SQUASHED[compound], tantivy.Query.term_set_query, _esc(term) + ".+"
            got = [self.searcher.terms_with_prefix(f, term, limit=MAX_EXPANSIONS + 2) for f in (word, sq)]
            words, squashed = ([w for w, _ in g if w != term] for g in got)
            grown = [self._regex(word, regex)] if len(words) > MAX_EXPANSIONS else [self._term(word, w) for w in words]
            # (squashed they score alike: as a term set as they did as a regex, which takes ~0.4 ms to build)
            grown.append(self._regex(sq, regex) if len(squashed) > MAX_EXPANSIONS else tset(self.schema, sq, squashed))
            parts.append(tantivy.Query.boost_query(tantivy.Query.disjunction_max_query(grown), PREFIX_BOOST))
        return self._any(parts)

    def phrase(self, text: str) -> tantivy.Query | None:
        """Documents holding the words of ``text`` (normalized) next to each other."""
        words = _PY_WORD_RE.findall(prep(text)[0])
        if len(words) < 2:
            return self.term(words[0], "text", "comp") if words else None
        return tantivy.Query.phrase_query(self.schema, "text", words)

    def ranked(
        self, pq: ParsedQuery, num_docs: int, scope_filter: tantivy.Query | None, probe: Sequence[str] | None = None
    ) -> Plan | None:
        """The query: matches = OR over terms (+ required phrases); score = rank group weights + BM25; None when
        nothing can match. With ``probe`` (scope ids to sample), a cheaper plan ranking alike (docs/search.md)."""
        phrases = [self.phrase(p) for p in pq.phrases]
        if not pq.terms or None in phrases:
            return None
        n, S, const = len(pq.terms), Occur.Should, tantivy.Query.const_score_query
        matches = [self.term(t, "text", "comp", prefix=t in pq.prefix_terms) for t in pq.terms]
        # Group weights: each step above the largest possible sum of the steps below it and BM25
        # (at most ~2.2 * idf per term and field clause, idf <= ln(1 + N)).
        w_cover = math.ceil(n * (2.2 * math.log(2.0 + num_docs) + 4.0)) + 1.0
        w_points = w_cover * (n + 1)
        w_level = w_points * (7 * n + 1)
        musts = [self._any(matches), *(const(q, 0.0) for q in phrases if q is not None)]
        must = [(Occur.Must, q) for q in musts + ([const(scope_filter, 0.0)] if scope_filter is not None else [])]
        field = partial(self.term, expand=False)
        fields = [(field(t, "name", "namec"), field(t, "desc", "descc"), self._term("type", t)) for t in pq.terms]
        points = [[(S, const(q, w * w_points)) for q, w in zip(f, _POINTS, strict=True)] for f in fields]
        named = self._term("named", pq.squashed) if pq.squashed else None
        phrase = self.phrase(pq.norm) if pq.multi_word and pq.norm else None
        levels = [const(q, w * w_level) for q, w in ((named, 3), (phrase, 2)) if q is not None]
        covers = [(S, const(m, w_cover)) for m in matches]
        clauses = [*must, *(c for cover, p in zip(covers, points, strict=True) for c in (cover, *p))]
        full = tantivy.Query.boolean_query(clauses + [(S, tantivy.Query.disjunction_max_query(levels))] * bool(levels))
        if probe is None or 3 * w_level + 8 * n * w_points >= 2**24 or (phrase is None and n > 1):
            return full, 0.0, None  # (the cheaper plans need the weights' f32 sums exact)
        # tantivy scores a hit BM25 + the integer sum of its clauses' constants (exact in f32): a plan drops the covers
        # a carrier implies (a phrase: its words; one term: any match) into its constant, exact for the hits it carries.
        words = _PY_WORD_RE.findall(prep(pq.norm)[0]) if phrase is not None else pq.terms
        implied = [t in words for t in pq.terms]
        if phrase is None:  # (the hits with points carry one term)
            carrier, level = self._any(fields[0]), w_points + w_cover
        elif pq.norm in pq.phrases and len(words) > 1:  # every match holds the phrase: its rarest word will do
            carrier, level = self._term("text", min(words, key=partial(self.searcher.doc_freq, "text"))), 0.0
        else:
            carrier, level = phrase, 2 * w_level
        sids = [self._term("sid", s) for s in probe[:: max(1, len(probe) // 20)]]  # (about 20 of the scopes)
        sample = [(Occur.Must, carrier), (Occur.Must, self._any(sids or matches))]
        named_hits = named is not None and self.searcher.doc_freq("named", pq.squashed)  # (their covers vary)
        if named_hits or (level and not self.searcher.search(tantivy.Query.boolean_query(sample)).count):  # type: ignore[attr-defined]
            return full, 0.0, None  # (none in the sample: likely too few to fill the top k, not worth a try)
        opt = [c for p in points for c in p] + [c for c, i in zip(covers, implied, strict=True) if not i]
        carried = const(carrier, 2 * w_level * (phrase is not None) + sum(implied) * w_cover)
        return tantivy.Query.boolean_query([*must, *opt, (S, carried)]), level, full if level else None
