"""Supersession: is a proposed record a *new value* of a fact the workspace already holds?

Facts change between sessions: the codeword MARMALADE becomes SAFFRON, "run e2e before deploy"
becomes "run e2e and lint before deploy", a dashboard moves to another URL. Such pairs score
70–75 in :mod:`core.consolidation.similarity` (different values, same sentence), so a plain
similarity threshold either misses them or flags unrelated facts. This module looks at the
*subject* instead:

- **keyed values**: the same key with a different value — a URL on the same host (or the same
  kind of thing, "dashboard", pointing elsewhere), a codeword/暗号, a version of the same tool;
- **same sentence, changed value**: most of the fact's content words shared, some changed
  ("e2e" → "e2e and lint", "Node 18" → "Node 20");
- **contradiction**: the new fact negates a word the old one asserts about the same subject
  ("releases are cut from trunk-stable, never from main" beside "tag releases on main").

Every path that proposes a change (the offline extractor, the model, agent proposals through
MCP, imports) goes through :func:`find_superseded` — the offline extractor to turn its new record
into an update of the old one, the host's validation to mark the review row "supersedes
[[name]]" / "contradicts [[name]]" with Replace / Keep both / Merge. Same input, same answer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from core import pinyin_words
from core.consolidation.proposals import DeleteRecord, ProposedRecord, PutRecord
from core.models import Record

Relation = Literal["supersedes", "contradicts"]
Resolution = Literal["replace", "keep", "merge"]
RESOLUTIONS: tuple[Resolution, ...] = ("replace", "keep", "merge")

_I = re.IGNORECASE
_URL = re.compile(r"https?://[^\s)>\]\"'，。]+", _I)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_CODEWORD = re.compile(
    r"(?:code\s*word|codeword|pass\s*phrase|safe\s*word|code\s*name|暗号|口令|代号)"
    r"(?:\s+(?:is|was|are))?(?:\s+(?:now|still|currently))?(?:\s+(?:changed|set))?(?:\s+to)?"
    r"\s*[:：是为=]?\s*(?:现在|改成|改为|换成)?\s*[\"'“”`]?(?P<value>[A-Za-z0-9_\-]{3,40})",
    _I,
)
_VERSION = re.compile(r"(?P<key>[A-Za-z][A-Za-z.+#-]{1,20})\s*v?(?P<value>\d+(?:\.\d+){0,2})\b", _I)
_NEGATION = re.compile(
    r"\b(?:never|not|no\s+longer|instead\s+of|rather\s+than|don'?t|do\s+not|isn'?t|aren'?t|no)\s+"
    r"(?:(?:use|run|from|on|in|at|with|the|a|to|cut|tag|push|deploy|be)\s+){0,2}(?P<word>[a-z0-9][a-z0-9._/-]*)"
    r"|(?:不要|别|不是|而不是|不再|不用|禁止)(?:再)?(?:用|在|从)?\s*(?P<zh>[A-Za-z0-9._/-]+|[\u3400-\u9fff]{2})",
    _I,
)
_STOP_TEXT = (
    "a an the to of and or for in on at is are be been was were we i you it its that this with our my "
    "your should will would please always never use using used do does dont don t not can could just "
    "also us me them they there here from by as into than then so very really all any some now still "
    "new remember note keep mind forget moved move changed change instead rather no longer lives live "
    "prefer like want make sure every each when before after run runs running "
)
_STOP = frozenset(_STOP_TEXT.split())
# Words that are the subject of a keyed fact even when all else differs.
_KINDS_TEXT = (
    "dashboard dashboards docs documentation wiki runbook board tracker issue issues ticket grafana "
    "kibana sentry status page api endpoint url link repo staging production prod codeword "
)
_KINDS = frozenset(_KINDS_TEXT.split())
SUBJECT_SHARE = 0.6
"""Share of the smaller record's content words the two must have in common to be about the same
thing (tuned on tests/data/consolidation_sequences.yml: true supersessions share 0.67–1.0, distinct
facts of one workspace 0–0.5)."""


@dataclass(frozen=True)
class Supersession:
    """The existing record a proposed one replaces (``supersedes``) or denies (``contradicts``)."""

    name: str
    relation: Relation
    key: str  # what changed: "url", "codeword", "version", "wording" or "negation"
    old: str = ""  # the old value, when there is one to show ("MARMALADE")
    new: str = ""


def _text(record: Record) -> str:
    return unicodedata.normalize("NFKC", f"{record.description}\n{record.body}")


def content_words(text: str) -> set[str]:
    """Content words: English words (lower-case, stopwords gone) and Chinese words in pinyin."""
    text = _URL.sub(" ", text)
    if _CJK.search(text):
        found = set(pinyin_words.words(text, skip=frozenset()))
    else:
        found = set(re.findall(r"[a-z0-9][a-z0-9._+#-]*[a-z0-9]|[a-z0-9]", text.lower()))
    return {w for w in found if w not in _STOP and len(w) > 1}


def _urls(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _URL.finditer(text):
        url = m.group(0).rstrip(".,;:!")
        out.setdefault(urlsplit(url).hostname or url, url)
    return out


def _codeword(text: str) -> str | None:
    m = _CODEWORD.search(text)
    if m is None or m.group("value").lower() in ("is", "was", "now", "to", "the"):
        return None
    return m.group("value")


def _versions(text: str) -> dict[str, str]:
    return {m.group("key").lower(): m.group("value") for m in _VERSION.finditer(_URL.sub(" ", text))}


def _share(a: set[str], b: set[str]) -> float:
    small = min(len(a), len(b))
    return len(a & b) / small if small else 0.0


def _negated(text: str) -> set[str]:
    out: set[str] = set()
    for m in _NEGATION.finditer(text):
        word = (m.group("word") or m.group("zh") or "").lower()
        if word and word not in _STOP:
            out.add(word)
    return out


def compare(new: Record, old: Record) -> Supersession | None:
    """How ``new`` relates to ``old`` (another record), or None when they are about different things."""
    if new.name == old.name:
        return None
    a, b = _text(new), _text(old)
    if _norm(a) == _norm(b):
        return None  # an exact restatement: the duplicate check's business
    wa, wb = content_words(a), content_words(b)
    shared = wa & wb
    # A codeword is one fact per workspace, whatever else the sentences say.
    ca, cb = _codeword(a), _codeword(b)
    if ca and cb and ca.lower() != cb.lower():
        return Supersession(old.name, "supersedes", "codeword", cb, ca)
    # The same host, or the same kind of thing ("dashboard") at another address.
    ua, ub = _urls(a), _urls(b)
    if ua and ub:
        for host, url in ua.items():
            moved = ub.get(host, url).rstrip("/") != url.rstrip("/")
            if moved and (shared or new.type == old.type == "reference"):
                return Supersession(old.name, "supersedes", "url", ub[host], url)
        if set(ua.values()) != set(ub.values()) and shared & _KINDS:
            return Supersession(old.name, "supersedes", "url", next(iter(ub.values())), next(iter(ua.values())))
    # Contradiction: the new fact negates a word the old one asserts, about a shared subject.
    denied = (_negated(a) & _positive(b)) - _positive(a)
    if denied and shared - denied:
        word = sorted(denied)[0]
        return Supersession(old.name, "contradicts", "negation", word, "")
    va, vb = _versions(a), _versions(b)
    for key, value in va.items():
        if key in vb and vb[key] != value and key not in _STOP and _share(wa, wb) >= 0.5:
            return Supersession(old.name, "supersedes", "version", f"{key} {vb[key]}", f"{key} {value}")
    if len(shared) >= 2 and _share(wa, wb) >= SUBJECT_SHARE and wa != wb:
        return Supersession(old.name, "supersedes", "wording")
    return None


def _positive(text: str) -> set[str]:
    """Words the text asserts (not under a negation): used so "use X, not Y" never denies X."""
    return content_words(_NEGATION.sub(" ", text))


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


_RANK = {"codeword": 0, "url": 1, "negation": 2, "version": 3, "wording": 4}


def find_superseded(record: Record, existing: Iterable[Record]) -> Supersession | None:
    """The existing record ``record`` is a new value of (or contradicts), if any.

    When several qualify, a keyed match (codeword, URL) wins over a contradiction, a version and
    a reworded sentence; ties go to the most shared words, then the name (deterministic).
    """
    found: list[tuple[int, int, str, Supersession]] = []
    mine = content_words(_text(record))
    for other in existing:
        hit = compare(record, other)
        if hit is not None:
            found.append((_RANK[hit.key], -len(mine & content_words(_text(other))), other.name, hit))
    if not found:
        return None
    return min(found, key=lambda f: f[:3])[3]


def replaced_by(old: Record, new: Record) -> Record:
    """``new``'s whole corrected text under ``old``'s name (keeping the keys a user added by hand)."""
    return new.model_copy(update={"name": old.name, "extra_frontmatter": old.extra_frontmatter})


@dataclass(frozen=True)
class Draft:
    """A new record a consolidator wants to add, with why and where the user said it."""

    record: Record
    reason: str
    evidence: tuple[int, ...] = ()


def _holds(name: str, value: str) -> bool:
    """Does a record's name spell a value that changed ("release-codeword-marmalade" holds MARMALADE)?"""
    tokens = set(re.findall(r"[a-z0-9]+", value.lower())) - _STOP
    return bool(tokens & set(name.split("-")))


def settle(
    drafts: Sequence[Draft], existing: Sequence[Record], *, delete_reason: Callable[[str, str], str]
) -> list[PutRecord | DeleteRecord]:
    """Puts (and deletes) for ``drafts``, each turned into an update where it supersedes a record.

    A draft that is a new value of an existing record (or of an earlier draft) becomes a put of the
    whole corrected text under that record's name — unless the old name spells the old value
    ("release-codeword-marmalade"): then the new record keeps its own name and the old one is
    deleted (``delete_reason(old name, new name)`` says why). Deterministic for the same input.
    """
    current: dict[str, Record] = {r.name: r for r in existing}
    out: list[PutRecord | DeleteRecord] = []
    put_at: dict[str, int] = {}  # name -> index in out of the put proposed for it
    for draft in drafts:
        record = draft.record
        found = find_superseded(record, current.values())
        if found is not None:
            old = current[found.name]
            if found.name in put_at:  # a later statement of this session wins over an earlier one
                index = put_at.pop(found.name)
                del current[found.name]
                if not _holds(old.name, found.old):
                    record = replaced_by(old, record)
                current[record.name] = record
                put_at[record.name] = index
                out[index] = _put(record, draft)
                continue
            if _holds(old.name, found.old) and record.name != old.name:
                reason = delete_reason(old.name, record.name)
                out.append(DeleteRecord(name=old.name, reason=reason, evidence=draft.evidence))
                del current[old.name]
            else:
                record = replaced_by(old, record)
        current[record.name] = record
        put_at[record.name] = len(out)
        out.append(_put(record, draft))
    return out


def _put(record: Record, draft: Draft) -> PutRecord:
    return PutRecord(record=ProposedRecord.from_record(record), reason=draft.reason, evidence=draft.evidence)


def supersession_notes(puts: Iterable[Record], existing: Iterable[Record]) -> list[dict[str, str]]:
    """For a write that skips review (an MCP agent in direct mode): each new record that supersedes
    or contradicts an existing one, so the agent is told to update that record or delete the loser
    instead of leaving two. ``[{"name", "relation", "record", "hint"}]``, empty when there is none."""
    before = list(existing)
    names = {r.name for r in before}
    out: list[dict[str, str]] = []
    for record in puts:
        if record.name in names:
            continue  # an update of a record that exists: nothing left behind
        found = find_superseded(record, before)
        if found is None:
            continue
        out.append(
            {
                "name": record.name,
                "relation": found.relation,
                "record": found.name,
                "hint": f"{record.name} {found.relation} {found.name}: put the whole corrected text under "
                f"{found.name!r} and delete {record.name!r}, or delete {found.name!r} if it is wrong now.",
            }
        )
    return out
