"""The built-in offline consolidator: deterministic rules over the user's own words, no network.

It reads only human prompts (never assistant text or tools: the agent's guesses are not facts)
and looks, sentence by sentence, for four kinds of durable statement, English and Chinese:

- **remember**: "remember (that) …", "keep in mind …", "don't forget …", "…, remember that",
  "记住/请记住/记一下 …", "记得/别忘了 …";
- **decision**: "we decided (to/on) … (because …)", "we're going with / we chose …",
  "let's go with … because …", "决定… 因为…",
  "因为…，所以决定…" (``project`` records; the reason becomes **Why:**);
- **correction**: "no, use X", "nope — use X", "No. Use X." (a bare "no" joins the next sentence),
  "actually, …", "that's wrong, …", "不对，…", "不是…而是…" (``feedback``);
- **preference**: "I prefer …", "prefer …", "my preference is …", "always use …", "never …",
  "use X, not Y", "don't use X, use Y", "from now on …", "我喜欢/我习惯/我偏好 …",
  "以后都/以后请/以后不要 …", "不要再 …", "别用 X，用 Y" (``feedback``).

Questions are skipped, and so are "corrections" that only report the moment ("no, it's fine",
"no, the tests still fail", "不对，还是报错"). Each hit becomes a whole-record ``put`` in the source
workspace (never a Global change) with a kebab-case ASCII name derived from the fact's ASCII words
(``note-<hash8>`` when it has none, e.g. all-Chinese text), a one-line description and a body with
**Why:** / **How to apply:**, in Chinese when the fact contains Chinese. A fact an existing record
already holds is skipped; a name already taken by a different record gets a numeric suffix. Same
input, same proposal.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from core.consolidation.base import (
    CancelCheck,
    ConsolidationInput,
    DebugSink,
    NullDebugSink,
    never_cancelled,
    raise_if_cancelled,
)
from core.consolidation.proposals import NoChange, Proposal, ProposedRecord, PutRecord
from core.models import Record, RecordType

Kind = Literal["remember", "decision", "correction", "preference"]
RULES_VERSION = "rules-2"
"""Bump when the rules change what they propose, so earlier receipts don't hide the new results."""

_I = re.IGNORECASE
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])|\n+")
_LEAD = re.compile(r"^(?:ok(?:ay)?|also|and|so|but|hey|hi|btw|oh|well|嗯|好的?|另外|还有|对了)[,，:：!！.\s]+", _I)
_QUESTION = re.compile(
    r"[?？]\s*$|[吗呢]\s*[。]?\s*$|^(?:can|could|would|should|do|does|did|is|are|what|why|how|which|when|where)\b",
    _I,
)
_FILLER = re.compile(
    r"^(?:this|the\s+following)(?:\s+(?:fact|note|detail|thing))?(?:\s+for\s+later)?\s*[:：,\-–]\s*", _I
)
_NOT_A_FACT = re.compile(r"^(?:never\s*mind|always\s+the\s+same)\b", _I)
_STATEMENT = re.compile(
    r"\b(?:is|are|was|were|should|must|use|uses|used|lives|live|it'?s|we|not|instead|don'?t|do\s+not|never)\b"
    r"|[是不要用该]",
    _I,
)
# What a "no, …" that is not a lasting correction says: chatter and the state of the work right now.
_TRANSIENT = re.compile(
    r"\b(?:it'?s|that'?s|is|are)\s+(?:fine|ok(?:ay)?|good|great|alright|all\s+right)\b"
    r"|\b(?:still|again)\s+(?:fail|broken|erroring|crash|not\s+work|does\s*n[o']t\s+work)"
    r"|\b(?:carry\s+on|go\s+ahead|keep\s+going|try\s+again|never\s*mind)\b"
    r"|还是(?:报错|不行|失败|有问题|错)|仍然|依然|没问题|没关系|可以了",
    _I,
)
_URL = re.compile(r"https?://\S+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

# (kind, pattern, group holding the fact or None for the whole sentence)
_REMEMBER = [
    re.compile(
        r"^(?:please\s+|pls\s+)?(?:remember|keep\s+in\s+mind|don'?t\s+forget|do\s+not\s+forget|note\s+for\s+the\s+future)"
        r"\b(?:\s+that\b)?\s*[:,\-–]?\s*(?P<fact>.+)$",
        _I,
    ),
    re.compile(r"(?:请|帮我|你要)?(?:记住|记一下|记下来|记下|牢记)(?:一下)?[：:，,、]?\s*(?P<fact>.+)$"),
    # "记得 X" at the start is "remember to X" ("我记得…" is "I recall…", not a request).
    re.compile(r"^(?:请|你要)?(?:记得|别忘了|不要忘了|不要忘记)[：:，,、]?\s*(?P<fact>.+)$"),
    # "we deploy with fly.io, remember that"
    re.compile(
        r"^(?P<fact>.+?)\s*[,;，；:—–-]+\s*(?:please\s+)?(?:remember|keep\s+(?:that|this|it)\s+in\s+mind|"
        r"don'?t\s+forget)(?:\s+(?:that|this|it))?\s*[.!]*$",
        _I,
    ),
]
_DECISION = [
    re.compile(
        r"\b(?:we|i)\s+(?:have\s+|'ve\s+)?decided\s+(?:to\s+|that\s+|(?P<verb>on)\s+)?(?P<what>.+?)"
        r"(?:\s*[,;]?\s+(?:because|since)\s+(?P<why>.+))?$",
        _I,
    ),
    re.compile(
        r"\b(?:we(?:'re|\s+are)\s+(?P<verb>going\s+with|sticking\s+with)|we\s+(?P<verb2>chose|picked|"
        r"settled\s+on|went\s+with|opted\s+for))\s+(?!to\b)(?P<what>.+?)"
        r"(?:\s*[,;]?\s+(?:because|since)\s+(?P<why>.+))?$",
        _I,
    ),
    re.compile(
        r"\b(?:let'?s|we(?:'ll| will| should))\s+(?P<verb>go\s+with|use|stick\s+with|pick|choose)\s+"
        r"(?P<what>.+?)"
        r"\s*[,;]?\s+(?:because|since)\s+(?P<why>.+)$",
        _I,
    ),
    # "不决定/没决定" is the opposite of a decision.
    re.compile(r"(?:因为|由于)(?P<why>.+?)[，,]\s*(?:所以)?(?:我们)?(?<![不没未])决定(?:了)?(?:要)?(?P<what>.+)$"),
    re.compile(r"(?<![不没未])决定(?:了)?(?:要)?(?P<what>.+?)(?:[，,]?\s*(?:因为|由于)(?P<why>.+))?$"),
]
_CORRECTION = [
    re.compile(
        r"^(?:no|nope|nah|wrong)\s*[,.!;:—–-]*\s+"
        r"(?P<fact>(?:use|it'?s|it\s+is|we|the|that|you|don'?t|do\s+not|please|this|it\s+should)\b.+)$",
        _I,
    ),
    re.compile(r"^actually[,:]?\s+(?P<fact>.+)$", _I),
    re.compile(r"^(?:that'?s|this\s+is|you'?re)\s+(?:wrong|not\s+right|incorrect)[,.;:!]?\s*(?P<fact>.+)$", _I),
    re.compile(r"^(?:不对|错了|搞错了|不是这样)[，,。！!：:\s]*(?P<fact>.+)$"),
    re.compile(r"(?P<fact>.*不是.+?[，,]?\s*而是.+)$"),
]
_PREFERENCE = [
    re.compile(
        r"(?P<fact>\bI\s+(?:really\s+)?(?:prefer|like\s+to|like\s+it\s+when|want\s+you\s+to\s+always)\b.+)$",
        _I,
    ),
    re.compile(r"(?P<fact>\bI(?:'d|\s+would)\s+(?:really\s+)?(?:prefer|rather)\b.+)$", _I),  # not "I'd like to"
    re.compile(r"^(?P<fact>(?:please\s+)?(?:always|never)\s+\w.+)$", _I),
    re.compile(r"(?P<fact>\b(?:always|never)\s+use\b.+)$", _I),
    re.compile(r"^(?:from\s+now\s+on|going\s+forward|in\s+the\s+future)[,:]?\s+(?P<fact>.+)$", _I),
    re.compile(r"^(?:please\s+)?(?P<fact>prefer\s+\w.+)$", _I),
    re.compile(r"(?P<fact>\bmy\s+preference\s+is\b.+)$", _I),
    # Short "use X, not Y" / "don't use X, use Y": a standing instruction, not a task.
    re.compile(
        r"^(?:please\s+)?(?P<fact>use\s+[^,;.]{1,40}?,?\s+(?:not|instead\s+of|rather\s+than)\s+[^,;.]{1,40})[.!]?$", _I
    ),
    re.compile(r"^(?:please\s+)?(?P<fact>(?:don'?t|do\s+not)\s+use\s+[^,;.]{1,40}[,;]\s*use\s+[^,;.]{1,40})[.!]?$", _I),
    re.compile(r"^(?:请)?(?P<fact>(?:别|不要)(?:再)?用.+?[，,]\s*(?:要|请|改|而是|就)?用.+)$"),
    re.compile(
        r"(?P<fact>(?:我(?:更|比较)?(?:喜欢|习惯|偏好|倾向于?)|以后(?:都|请|一律|不要|别)|不要再|永远不要|总是用).+)$"
    ),
]
_RULES: list[tuple[Kind, list[re.Pattern[str]]]] = [
    ("remember", _REMEMBER),
    ("decision", _DECISION),
    ("correction", _CORRECTION),
    ("preference", _PREFERENCE),
]

_STOPWORDS_TEXT = (
    "a an the to of and or for in on at is are be been we i you it its that this with our my your "
    "should will would please always never use using do does dont don t not can could just also "
    "us me them they there here from by as into than then so very really all any some "
    "prefer like want id im ive ill were weve lets thats theres youre"
)
_STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_FEEDBACK_WORDS = re.compile(
    r"\b(?:always|never|prefer|don'?t|do not|please|use|avoid|instead)\b|总是|不要|别|请|以后|习惯|喜欢", _I
)
_REFERENCE_WORDS = re.compile(r"\b(?:dashboard|docs?|documentation|issue|ticket|runbook|wiki)\b|文档|看板", _I)


@dataclass
class _Hit:
    kind: Kind
    fact: str
    why: str | None
    seqs: list[int] = field(default_factory=list)


def _is_cjk(text: str) -> bool:
    """Chinese text, for labels and punctuation: any CJK ideograph ("打包用 electron-builder" is Chinese)."""
    return _CJK.search(text) is not None


def _clean(text: str) -> str:
    # Control characters (ESC, NUL, BOM, line separators...) never belong in a one-line description.
    text = "".join(" " if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch == "\ufeff" else ch for ch in text)
    text = re.sub(r"\s+", " ", text).strip().strip("\"'“”‘’「」`").strip()
    text = text.rstrip(" ,，;；:：")
    return text


def _finish(text: str) -> str:
    """A sentence with a capital letter and a final full stop (CJK: 。)."""
    text = _clean(text).rstrip(".。!！")
    if not text:
        return text
    if _is_cjk(text):
        return text + "。"
    end = "" if _URL.search(text.split()[-1]) else "."  # a full stop glued to a URL breaks the link
    return text[0].upper() + text[1:] + end


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for part in _SENTENCE_END.split(text):
        part = part.strip()
        while True:
            stripped = _LEAD.sub("", part, count=1).strip()
            if stripped == part:
                break
            part = stripped
        if part:
            out.append(part)
    return out


_BARE_NO = re.compile(r"^(?:no|nope|nah|wrong|not\s+quite|不对|错了|不是这样)\s*[.!。！]*$", _I)


def _join_negation(sentence: str) -> str:
    return f"不对，{sentence}" if _is_cjk(sentence) else f"No, {sentence[:1].lower()}{sentence[1:]}"


def classify(sentence: str) -> _Hit | None:
    """The durable statement in ``sentence``, if any (first matching rule wins)."""
    if _QUESTION.search(sentence):
        return None
    for kind, patterns in _RULES:
        for pattern in patterns:
            m = pattern.search(sentence)
            if m is None:
                continue
            groups = m.groupdict()
            if kind == "decision":
                what = _clean(groups.get("what") or "")
                why = _clean(groups.get("why") or "") or None
                if len(what) < 2:
                    continue
                verb = (groups.get("verb") or groups.get("verb2") or "").lower()
                if verb:  # "let's go with X because ..." -> "Use X"
                    what = f"{'Stick with' if verb.startswith('stick') else 'Use'} {what}"
                    what = what.replace("Use use ", "Use ", 1)
                return _Hit(kind, what, why)
            fact = _clean(groups.get("fact") or sentence)
            if kind == "remember":  # "remember this fact for later: X" -> "X"
                fact = _FILLER.sub("", fact, count=1)
            if _QUESTION.search(fact) or _NOT_A_FACT.search(fact):
                return None
            if kind == "correction" and not _STATEMENT.search(fact):
                continue  # "actually, fix the tests too" is a new request, not a correction
            if kind == "correction" and _TRANSIENT.search(fact):
                return None  # "no, it's fine" / "no, the tests still fail": nothing to keep
            if len(re.sub(r"\W", "", fact)) < 3:
                continue
            return _Hit(kind, fact, None)
    return None


def _record_type(hit: _Hit) -> RecordType:
    if hit.kind == "decision":
        return "project"
    if hit.kind in ("correction", "preference"):
        return "feedback"
    if _URL.search(hit.fact) or _REFERENCE_WORDS.search(hit.fact):
        return "reference"
    return "feedback" if _FEEDBACK_WORDS.search(hit.fact) else "project"


def _normalized(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


def slug_name(fact: str) -> str:
    """A kebab-case name from the ASCII words of ``fact``; ``note-<hash8>`` when it has none (all Chinese)."""
    digest = hashlib.sha256(_normalized(fact).encode("utf-8")).hexdigest()[:8]
    text = _URL.sub(lambda m: " ".join(re.findall(r"[a-z0-9]+", m.group(0).lower())[1:3]), fact)
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = [w for w in re.findall(r"[a-z0-9]+", ascii_text.replace("'", "")) if w not in _STOPWORDS]
    if not words:
        return f"note-{digest}"
    name = ""
    for word in words[:5]:
        candidate = f"{name}-{word}" if name else word
        if len(candidate) > 48:
            break
        name = candidate
    name = name or words[0][:48]
    return f"{name}-note" if name == "memory" else name


_TEXT = {
    "en": {
        "label": {
            "remember": "Remember",
            "decision": "Decision",
            "correction": "Correction",
            "preference": "Preference",
        },
        "why": {
            "remember": "The user explicitly asked to remember this.",
            "decision": "Decided during a session; no reason was stated.",
            "correction": "The user corrected the assistant on this.",
            "preference": "The user stated this preference explicitly.",
        },
        "how": {
            "remember": "Keep this in mind when working in this workspace.",
            "decision": "Treat this as settled; revisit it only if the reason no longer holds.",
            "correction": "Apply the corrected approach; do not repeat the mistake.",
            "preference": "Follow this by default in this workspace unless the user says otherwise.",
        },
    },
    "zh": {
        "label": {"remember": "记住", "decision": "决定", "correction": "纠正", "preference": "偏好"},
        "why": {
            "remember": "用户明确要求记住这一点。",
            "decision": "在会话中做出的决定，未说明原因。",
            "correction": "用户就此纠正过助手。",
            "preference": "用户明确表达了这个偏好。",
        },
        "how": {
            "remember": "在这个工作区工作时牢记这一点。",
            "decision": "视为已定；只有当原因不再成立时才重新考虑。",
            "correction": "按纠正后的做法执行，不要重复之前的错误。",
            "preference": "在这个工作区默认遵循，除非用户另有说明。",
        },
    },
}


def _one_line(text: str, limit: int = 110) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if not _is_cjk(text) else text[:limit]
    return cut.rstrip(" ,.;:，。") + "…"


def build_record(hit: _Hit, name: str) -> Record:
    lang = "zh" if _is_cjk(hit.fact) else "en"
    text = _TEXT[lang]
    fact = _finish(hit.fact)
    if hit.kind == "decision" and lang == "zh" and not fact.startswith("决定"):
        fact = "决定" + fact
    sep = "：" if lang == "zh" else ": "
    summary = fact.removeprefix("决定") if hit.kind == "decision" else fact
    description = _one_line(f"{text['label'][hit.kind]}{sep}{summary.rstrip('.。')}")
    why = _finish(hit.why) if hit.why else text["why"][hit.kind]
    body = f"\n{fact}\n\n**Why:** {why}\n\n**How to apply:** {text['how'][hit.kind]}\n"
    return Record(name=name, description=description, type=_record_type(hit), body=body)


class OfflineConsolidator:
    """Deterministic rule-based extractor (always available, no network)."""

    name = "offline"
    model = RULES_VERSION  # part of the review id: changed rules give new reviews

    def extract(self, request: ConsolidationInput) -> list[_Hit]:
        hits: dict[str, _Hit] = {}
        for turn in request.evidence.turns:
            for message in turn.messages:
                if message.role != "user":
                    continue
                negated = False
                for sentence in sentences(message.text):
                    # "No. Use pnpm." / "不对。用 pnpm。": a bare "no" makes the next sentence a correction.
                    hit = classify(_join_negation(sentence)) if negated else None
                    hit = hit or classify(sentence)
                    negated = _BARE_NO.match(sentence) is not None
                    if hit is None:
                        continue
                    key = _normalized(hit.fact)
                    if key in hits:
                        hits[key].seqs.append(message.seq)
                    else:
                        hit.seqs.append(message.seq)
                        hits[key] = hit
        return list(hits.values())

    def propose(
        self,
        request: ConsolidationInput,
        *,
        cancelled: CancelCheck = never_cancelled,
        debug: DebugSink | None = None,
    ) -> Proposal:
        debug = debug or NullDebugSink()
        raise_if_cancelled(cancelled)
        hits = self.extract(request)
        existing = {r.name: r for r in request.records}
        known_text = [_normalized(f"{r.description} {r.body}") for r in request.records]
        taken = set(existing)
        changes: list[PutRecord] = []
        skipped = 0
        for hit in hits:
            fact_key = _normalized(hit.fact)
            if fact_key and any(fact_key in text for text in known_text):
                skipped += 1
                continue
            base = slug_name(hit.fact)
            name, n = base, 2
            while name in taken:
                name = f"{base}-{n}"
                n += 1
            taken.add(name)
            record = build_record(hit, name)
            changes.append(
                PutRecord(
                    record=ProposedRecord.from_record(record),
                    reason=f"{hit.kind} stated by the user (seq {', '.join(map(str, hit.seqs))})",
                    evidence=tuple(hit.seqs),
                )
            )
        debug.event("offline", hits=len(hits), proposed=len(changes), already_known=skipped)
        if not changes:
            reason = (
                "Everything found is already in memory."
                if skipped
                else "No explicit remember requests, preferences, corrections or decisions were found."
            )
            return Proposal(changes=(NoChange(reason=reason),), summary=reason)
        counts: dict[str, int] = {}
        for hit in hits:
            counts[hit.kind] = counts.get(hit.kind, 0) + 1
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        return Proposal(changes=tuple(changes), summary=f"Offline rules found {summary}.")
