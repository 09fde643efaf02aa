"""Near-duplicate detection for proposed records: "similar to [[existing]], 87 %" and Merge into existing.

Every consolidator (model, offline, imports) can propose a *new* record that restates one the
workspace already has. The host compares each new put with the existing records using rapidfuzz
over the fact text (description + body, normalized), so the review can offer to merge instead of
piling up duplicates. Exact restatements are not worth a review row at all and become no-change.

Scores are 0–100. ASCII text is compared word by word in sorted order (word order rarely matters
for "use pnpm, not npm" vs "not npm, use pnpm"); text with Chinese is compared character by
character, because Chinese has no spaces to split words on.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from core.models import Record

SIMILAR_THRESHOLD = 80
"""At or above this score a new record is flagged as a likely duplicate (chosen on the offline corpus:
restatements score 85–100, different facts about the same tool 40–70)."""

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_MARKUP = re.compile(r"\*\*(?:why|how to apply):\*\*", re.IGNORECASE)


@dataclass(frozen=True)
class Similar:
    """The existing record a proposed one most resembles."""

    name: str
    score: int


def fact_text(record: Record) -> str:
    """The comparable text of a record: description and body, NFKC, lower-case, markup and punctuation gone."""
    return _normalized(f"{record.description}\n{record.body}")


def _normalized(text: str) -> str:
    text = _MARKUP.sub(" ", unicodedata.normalize("NFKC", text).lower())
    text = "".join(ch if ch.isalnum() or ch in "./-_" else " " for ch in text)
    return " ".join(text.split())


def _scorer(a: str, b: str, **_: object) -> float:
    if _CJK.search(a) or _CJK.search(b):
        return fuzz.ratio(a.replace(" ", ""), b.replace(" ", ""))
    return fuzz.token_sort_ratio(a, b)


def is_exact_duplicate(record: Record, existing: Iterable[Record]) -> Record | None:
    """An existing record (under another name) that says exactly the same thing, if any."""
    mine = fact_text(record)
    return next((r for r in existing if r.name != record.name and fact_text(r) == mine), None)


def most_similar(record: Record, existing: Iterable[Record], *, threshold: int = SIMILAR_THRESHOLD) -> Similar | None:
    """The existing record (other than ``record`` itself) most like ``record``, when it scores ≥ threshold."""
    others = {r.name: fact_text(r) for r in existing if r.name != record.name}
    if not others:
        return None
    best = process.extractOne(fact_text(record), others, scorer=_scorer, score_cutoff=threshold)
    if best is None:
        return None
    _text, score, name = best
    return Similar(name=str(name), score=round(score))


def merged_record(existing: Record, proposed: Record) -> Record:
    """``existing`` updated with what ``proposed`` adds: its name, type, description and frontmatter
    kept, the proposed body's paragraphs that it does not already hold appended after its own."""
    have = fact_text(existing)
    new_paragraphs = [
        p.strip() for p in proposed.body.strip("\n").split("\n\n") if p.strip() and _normalized(p) not in have
    ]
    if not new_paragraphs:
        return existing
    body = existing.body.rstrip("\n") + "\n\n" + "\n\n".join(new_paragraphs) + "\n"
    return existing.model_copy(update={"body": body})
