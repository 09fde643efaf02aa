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
"no, the tests still fail", "不对，还是报错"). A sentence joining two standing statements ("…, and
always use pnpm in this repo", "…，而且…") gives one fact per clause.

Each workspace hit becomes a whole-record ``put`` in the source workspace, written the way a person
would: the description is the fact on one line (no "Remember:" label), the body the fact and, only
when the user gave one, **Why:** with their reason. Names are kebab-case ASCII from the fact's words:
English words as they are, Chinese words in pinyin (``jianjie-huida``). Statements about the user
across projects ("in every project I…", "我在所有项目里都…", "I always prefer…") become one
``replace_global`` adding bullets to the preferences section of ``GLOBAL.md``; the host still asks
for explicit confirmation. A fact memory already holds is skipped (also an exact restatement under
another name); a name already taken by a different record gets a numeric suffix. Same input, same
proposal.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from core import messages as M
from core import pinyin_words
from core.consolidation.base import (
    CancelCheck,
    ConsolidationInput,
    DebugSink,
    NullDebugSink,
    never_cancelled,
    raise_if_cancelled,
)
from core.consolidation.proposals import DeleteRecord, NoChange, Proposal, PutRecord, ReplaceGlobal
from core.consolidation.similarity import is_exact_duplicate
from core.consolidation.supersede import Draft, settle
from core.models import Record, RecordType
from core.secrets import without_secrets  # names derived from text never carry a credential

Kind = Literal["remember", "decision", "correction", "preference", "reference", "constraint"]
RULES_VERSION = "rules-4"
"""Bump when the rules change what they propose, so earlier receipts don't hide the new results."""

_I = re.IGNORECASE
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])|\n+")
_LEAD = re.compile(
    r"^(?:ok(?:ay)?|also|and|so|but|hey|hi|btw|oh|well|嗯|好的?|另外|还有|对了)[,，:：!！.\s]+"
    r"|^(?:correction|update|heads[\s-]+up|fyi|psa|更正|注意|提醒)\s*[:：,，!！]\s*",
    _I,
)
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
# "always/never/from now on/每次": what makes an instruction standing rather than about this task.
_STANDING = re.compile(
    r"\b(?:always|never|every\s+time|whenever|each\s+time|from\s+now\s+on|going\s+forward|in\s+future|"
    r"in\s+the\s+future|by\s+default)\b|以后|每次|总是|永远|一律|从现在起|今后|默认",
    _I,
)
# "记得帮我把 README 的错别字改了" / "remember to update the changelog": a task for now, not a fact.
_TASK = re.compile(
    r"^(?:请)?(?:记得|别忘了|不要忘了|不要忘记|记住)(?:要|去)?\s*"
    r"(?:帮我|帮忙|给我|替我|把|去|跑|改|修|更新|提交|删|加|做|看|检查|运行|重新|处理|发|弄|写一下|测试一下)"
    r"|^(?:please\s+)?(?:remember|don'?t\s+forget|do\s+not\s+forget)\s+to\s+\w",
    _I,
)
# "failing again", "because of the lockfile", "还是报错": the state of the work today.
_ONE_OFF = re.compile(
    r"\b(?:fail(?:s|ed|ing)?|broken|broke|crash(?:es|ed|ing)?|erroring|errored|flaky|timed?\s*out)\b"
    # "(no,) it's because of the lockfile": the cause of what happened now. A rule's reason
    # ("we chose Postgres because of the transactions") is not this.
    r"|^(?:no\s*[,.!]?\s*)?(?:it'?s|it\s+is|that'?s|that\s+is|this\s+is)\s+(?:just\s+)?because\s+of\b"
    r"|挂了|失败|报错|出错|崩了",
    _I,
)
# "remember that." / "记住这个" / "remember the rules in AGENTS.md": nothing in the evidence to keep.
_CONTENTLESS = re.compile(
    r"^(?:all\s+)?(?:that|this|it|these|those|them|everything|what\s+(?:i|we)\s+(?:said|told\s+you|discussed)"
    r"|(?:the\s+)?(?:above|previous|last\s+(?:one|message))"
    r"|(?:what\s+)?(?:the\s+)?[\w.-]*\.md(?:\s+says)?"
    r"|(?:the\s+)?(?:rules?|conventions?|instructions?|guidelines?|notes?|things?|stuff)\s+(?:in|from|of)\s+\S+"
    r"|这个|这些|那个|那些|上面的?(?:内容)?|刚才(?:说的|的)?|以上(?:内容)?)[\s.!。！]*$",
    _I,
)
# A URL said as a statement ("the dashboard is at …", "Status page: …"), with or without "remember".
_URL_TASK = re.compile(
    r"^(?:please\s+)?(?:check|open|fetch|look|see|visit|read|go|browse|download|curl|try|test|use)\b"
    r"|^(?:请)?(?:看看|打开|查看|访问|帮我|下载|试试)",
    _I,
)
# A constraint without a trigger word: a subject that must / must not + a verb of state or use
# ("The public API must stay …"); "the child must attempt one more call" is the task at hand.
_CONSTRAINT = [
    re.compile(
        r"^(?P<fact>(?:the|our|all|every|each|any|no|these|those)\b[^?]{3,}?\b(?:must(?:\s+not)?|mustn'?t|cannot|"
        r"can'?t|may\s+not|has\s+to|have\s+to|needs?\s+to|is\s+not\s+allowed\s+to|are\s+not\s+allowed\s+to|"
        r"should\s+never)\s+(?:always\s+|ever\s+)?(?:stay|remain|be|keep|support|work|run|use|target|follow|pass|"
        r"go|depend|include|have|contain|import|call|ship|live|touch|break|change)\b.+)$",
        _I,
    ),
    re.compile(r"^(?P<fact>(?![你我它这那先现今暂])[^？?]{2,30}?(?:必须|不能|不得|不允许|禁止).+)$"),
]
_TRANSIENT_ZH_CONSTRAINT = re.compile(r"现在|今天|这次|暂时|先|目前|马上")

# (kind, pattern, group holding the fact or None for the whole sentence)
_REMEMBER = [
    re.compile(
        r"^(?:please\s+|pls\s+)?(?:remember|keep\s+in\s+mind|don'?t\s+forget|do\s+not\s+forget|note\s+for\s+the\s+future)"
        r"\b(?:\s+that\b)?\s*[:,\-–]?\s*(?P<fact>.+)$",
        _I,
    ),
    # "暗号改成 KESTREL 了，记住。": the Chinese "…, remember that".
    re.compile(r"^(?P<fact>.{3,}?)\s*[，,；;]\s*(?:请)?(?:记住|记一下|记下来|别忘了)(?:了|哦|啊|这个)?\s*[。！!]*$"),
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
    # "No, releases are cut from trunk-stable, never from main": a comma after "no" and a statement.
    re.compile(
        r"^(?:no|nope|wrong)\s*[,;:—–]\s*(?P<fact>\w+\s+(?:is|are|should|must|go|goes|live|lives)\b.+)$",
        _I,
    ),
    re.compile(r"^actually[,:]?\s+(?P<fact>.+)$", _I),
    re.compile(r"^(?:that'?s|this\s+is|you'?re)\s+(?:wrong|not\s+right|incorrect)[,.;:!]?\s*(?P<fact>.+)$", _I),
    re.compile(r"^(?:不对|错了|搞错了|不是这样)[，,。！!：:\s]*(?P<fact>.+)$"),
    re.compile(r"(?P<fact>.*不是.+?[，,]?\s*而是.+)$"),
]
_PREFERENCE = [
    # "以后提交信息用中文写": 以后/从现在起 + a verb phrase (but "以后再说" is "later", not a rule).
    re.compile(r"^(?:请)?(?:以后|从现在起|从现在开始|今后)(?:都|请|一律)?(?!再)[，,]?\s*(?P<fact>.{2,})$"),
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
        r"(?P<fact>(?:我(?:都|也|一直|总是|一向)?(?:更|比较)?(?:喜欢|习惯|偏好|倾向于?)|以后(?:都|请|一律|不要|别)|不要再|永远不要|总是用).+)$"
    ),
    re.compile(r"(?P<fact>我在(?:所有|每个|任何|全部)的?(?:项目|仓库|工作区)(?:里|中)?都.+)$"),
]
# A statement about the user across projects ("in every project I …", "我在所有项目里都…",
# "I always prefer …") belongs to GLOBAL.md, never to one workspace; "this repo" keeps it local.
_GLOBAL_SCOPE = re.compile(
    r"\b(?:in|for|across|on)\s+(?:every|each|all(?:\s+(?:of\s+)?(?:my|our))?|any)\s+(?:of\s+my\s+)?"
    r"(?:projects?|repos|repositories|repository|workspaces?|codebases?)\b"
    r"|\bno\s+matter\s+(?:the|which|what)\s+project\b|\bI\s+always\s+prefer\b"
    r"|(?:所有|每个|每一个|任何|全部)的?(?:项目|仓库|工作区)|(?:不管|无论)(?:是)?(?:哪个|什么)项目"
    r"|我(?:一直|总是|一向)都?(?:喜欢|偏好|习惯)",
    _I,
)
_WORKSPACE_SCOPE = re.compile(
    r"\b(?:this|the|our)\s+(?:repo|repository|project|codebase|workspace|app)\b|\bhere\b"
    r"|(?:这个|本|该)(?:仓库|项目|工作区|代码库)|这里",
    _I,
)
# Plain "I like X" is chatter ("I like this fix") unless said about every project.
_GLOBAL_STATEMENTS = [
    re.compile(r"(?P<fact>\bI\s+(?:really\s+)?(?:like|want|need|expect)\b.+)$", _I),
    re.compile(r"(?P<fact>我.{0,6}(?:喜欢|希望|需要|要求).+)$"),
]
# Two standing statements joined in one sentence become two facts (one record each).
_CLAUSES = re.compile(r"\s*[,;]\s+(?:and\s+|but\s+|also\s+)|\s*;\s*|\s*[，,；;]\s*(?:而且|并且|另外|同时|还有)")
_REASON = [
    re.compile(r"^(?P<fact>.+?)\s*[,;]?\s+(?:because(?!\s+of\b)|since)\s+(?P<why>.+)$", _I),
    re.compile(r"^(?P<fact>.+?)[，,]\s*(?:因为|由于)(?P<why>.+)$"),
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


Scope = Literal["workspace", "global"]


@dataclass
class _Hit:
    kind: Kind
    fact: str
    why: str | None
    seqs: list[int] = field(default_factory=list)
    scope: Scope = "workspace"


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
    """The durable statement in ``sentence``, if any (first matching rule wins).

    Before any rule: a question, a task ("记得帮我…", "remember to update…"), and a one-off report
    ("failing again", "because of the lockfile") are nothing to keep, unless the sentence says the
    instruction is standing ("always", "以后", "每次").
    """
    if _QUESTION.search(sentence):
        return None
    standing = _STANDING.search(sentence) is not None
    if not standing and (_TASK.search(sentence) or _ONE_OFF.search(sentence)):
        return None
    hit = _classify_rules(sentence)
    if hit is not None or _NOT_A_FACT.search(sentence):
        return hit
    return _reference(sentence) or _constraint(sentence)


def _reference(sentence: str) -> _Hit | None:
    """ "The dashboard is at https://…", "Status page: https://…": a reference, "remember" or not."""
    if not _URL.search(sentence) or _URL_TASK.search(sentence):
        return None
    subject = _URL.sub(" ", sentence)
    if len(re.sub(r"[\W_]", "", subject)) < 3:  # a bare link says nothing about what it is
        return None
    return _Hit("reference", _clean(sentence), None)


def _constraint(sentence: str) -> _Hit | None:
    for pattern in _CONSTRAINT:
        m = pattern.search(sentence)
        if m is None:
            continue
        if _is_cjk(sentence) and _TRANSIENT_ZH_CONSTRAINT.search(sentence):
            return None
        return _Hit("constraint", _clean(m.group("fact")), None)
    return None


def _classify_rules(sentence: str) -> _Hit | None:
    for kind, patterns in _RULES:
        for pattern in patterns:
            m = pattern.search(sentence)
            if m is None:
                continue
            groups = m.groupdict()
            if kind == "decision":
                what = _clean(groups.get("what") or "")
                why = _clean(re.sub(r"^of\s+", "", groups.get("why") or "")) or None  # "because of X" -> X
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
            if _QUESTION.search(fact) or _NOT_A_FACT.search(fact) or _CONTENTLESS.match(fact):
                return None
            if kind == "correction" and not _STATEMENT.search(fact):
                # "actually, always run e2e and lint": the rest may be a rule of its own kind;
                # "actually, fix the tests too" is a new request, not a correction.
                if fact != sentence:
                    inner = classify(fact)
                    if inner is not None:
                        return inner
                continue
            if kind == "correction" and _TRANSIENT.search(fact):
                return None  # "no, it's fine" / "no, the tests still fail": nothing to keep
            if len(re.sub(r"\W", "", fact)) < 3:
                continue
            return _scoped(_with_reason(_Hit(kind, fact, None)), sentence)
    if _GLOBAL_SCOPE.search(sentence) and not _WORKSPACE_SCOPE.search(sentence):
        for pattern in _GLOBAL_STATEMENTS:
            m = pattern.search(sentence)
            if m is not None and len(_clean(m.group("fact"))) >= 3:
                return _scoped(_Hit("preference", _clean(m.group("fact")), None), sentence)
    return None


def _with_reason(hit: _Hit) -> _Hit:
    """ "Prefer X because Y": the reason becomes the record's **Why:** instead of part of the fact."""
    for pattern in _REASON:
        m = pattern.match(hit.fact)
        if m is not None and len(_clean(m.group("fact"))) >= 3:
            return _Hit(hit.kind, _clean(m.group("fact")), _clean(m.group("why")) or None)
    return hit


def _scoped(hit: _Hit, sentence: str) -> _Hit:
    """Remembered facts and preferences about every project go to Global, said the way the user said it."""
    if (
        hit.kind in ("remember", "preference")
        and _GLOBAL_SCOPE.search(sentence)
        and not _WORKSPACE_SCOPE.search(sentence)
    ):
        hit.scope = "global"
        if not _GLOBAL_SCOPE.search(hit.fact):  # "In every project, I prefer X": keep "in every project"
            hit.fact = _clean(_strip_request(sentence))
    return hit


def _strip_request(sentence: str) -> str:
    """A sentence without its "remember:"/"记住：" request words (they are not part of the fact)."""
    for pattern in _REMEMBER[:3]:
        m = pattern.search(sentence)
        if m is not None:
            return m.group("fact")
    return sentence


def classify_all(sentence: str) -> list[_Hit]:
    """Every durable statement in ``sentence``: one per clause when it joins several, else at most one."""
    clauses = [c for c in _CLAUSES.split(sentence) if c.strip()]
    if len(clauses) > 1:
        hits = [h for h in (classify(c) for c in clauses) if h is not None]
        if len(hits) > 1:
            return hits
    hit = classify(sentence)
    return [hit] if hit is not None else []


def _record_type(hit: _Hit) -> RecordType:
    if hit.kind in ("decision", "constraint"):
        return "project"
    if hit.kind == "reference":
        return "reference"
    if hit.kind in ("correction", "preference"):
        return "feedback"
    if _URL.search(hit.fact) or _REFERENCE_WORDS.search(hit.fact):
        return "reference"
    return "feedback" if _FEEDBACK_WORDS.search(hit.fact) else "project"


def _normalized(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


def slug_name(fact: str) -> str:
    """A kebab-case ASCII name from the words of ``fact``.

    English words are kept as they are; Chinese words (segmented with rjieba) are spelled in pinyin
    without tones, so ``简洁的回答`` becomes ``jianjie-huida`` rather than an opaque hash. Function
    words of either language are left out; ``note-<hash8>`` only when nothing is left.
    """
    digest = hashlib.sha256(_normalized(fact).encode("utf-8")).hexdigest()[:8]
    text = _URL.sub(lambda m: " ".join(re.findall(r"[a-z0-9]+", m.group(0).lower())[1:3]), without_secrets(fact))
    words = _cjk_words(text) if _is_cjk(text) else _ascii_words(text)
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


def _ascii_words(text: str) -> list[str]:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return [w for w in re.findall(r"[a-z0-9]+", ascii_text.replace("'", "")) if w not in _STOPWORDS]


# Function words left out of names (rjieba splits the text; these carry no meaning on their own).
_ZH_STOPWORDS = frozenset(
    word
    for line in (
        "的 地 得 了 着 过 是 在 我 你 他 她 它 我们 你们 他们 都 也 就",
        "要 想 把 被 让 给 用 请 帮 记住 记得 记一下 记下 一下 应该 必须",
        "需要 可以 能 会 不 没 没有 而 而是 不是 和 与 或 及 跟 这个 那个",
        "这 那 这里 里 中 上 下 前 后 到 以后 总是 一直 一向 喜欢 习惯",
        "偏好 倾向 更 比较 所有 每个 任何 全部 项目 仓库 因为 由于 所以 决定",
        "做 吧 呢 吗 啊 先 再 还 很 一 个 别 别用 不要 以后都 永远 时候",
        "时 的话",
    )
    for word in line.split()
)


def _cjk_words(text: str) -> list[str]:
    # English function words go too: they are as empty in a mixed sentence as in an English one.
    return [w for w in pinyin_words.words(text, skip=_ZH_STOPWORDS) if w not in _STOPWORDS]


def _one_line(text: str, limit: int = 110) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if not _is_cjk(text) else text[:limit]
    return cut.rstrip(" ,.;:，。") + "…"


def build_record(hit: _Hit, name: str) -> Record:
    """A record that reads as a person would write it: the fact, and why only when the user said why.

    The description is the fact itself on one line (no "Remember:" label); the body is the fact,
    then **Why:** with the user's own reason when there was one ("…because we need transactions").
    """
    fact = _finish(hit.fact)
    if hit.kind == "decision" and _is_cjk(fact) and not fact.startswith("决定"):
        fact = "决定" + fact
    description = _one_line(fact.rstrip(".。"))
    body = f"\n{fact}\n"
    if hit.why:
        body += f"\n**Why:** {_finish(hit.why)}\n"
    return Record(name=name, description=description, type=_record_type(hit), body=body)


GLOBAL_HEADING = "## User Preferences"
_PREFERENCES_HEADING = re.compile(r"^#{1,6}\s*(?:user\s+preferences|preferences|偏好|用户偏好)\s*$", _I | re.MULTILINE)


def global_with(current: str, facts: list[str]) -> str:
    """``GLOBAL.md`` with ``facts`` added as bullets at the end of its preferences section
    (a new ``## User Preferences`` section at the end when it has none); nothing else changes."""
    bullets = [f"- {_finish(f)}" for f in facts]
    lines = current.splitlines()
    m = _PREFERENCES_HEADING.search(current)
    if m is None:
        head = current.rstrip("\n")
        return (f"{head}\n\n" if head else "") + GLOBAL_HEADING + "\n\n" + "\n".join(bullets) + "\n"
    start = current[: m.start()].count("\n")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    out = [*lines[:end], *bullets, *lines[end:]]
    return "\n".join(out).rstrip("\n") + "\n"


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
                    found = classify_all(_join_negation(sentence)) if negated else []
                    found = found or classify_all(sentence)
                    negated = _BARE_NO.match(sentence) is not None
                    for hit in found:
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
        drafts: list[Draft] = []
        skipped = 0
        global_hits: list[_Hit] = []
        known_global = _normalized(request.global_text)
        for hit in hits:
            fact_key = _normalized(hit.fact)
            if hit.scope == "global":
                if fact_key and fact_key in known_global:
                    skipped += 1
                else:
                    global_hits.append(hit)
                continue
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
            if is_exact_duplicate(record, request.records) is not None:
                skipped += 1
                continue
            reason = M.OFFLINE_STATED[hit.kind].format(seqs=", ".join(map(str, hit.seqs)))
            drafts.append(Draft(record, reason, tuple(hit.seqs)))
        # A fact whose value changed updates its record (or replaces it) instead of piling up.
        changes: list[PutRecord | DeleteRecord | ReplaceGlobal] = list(
            settle(drafts, request.records, delete_reason=lambda o, n: M.OFFLINE_SUPERSEDED.format(old=o, new=n))
        )
        if global_hits:
            seqs = sorted({s for h in global_hits for s in h.seqs})
            changes.append(
                ReplaceGlobal(
                    text=global_with(request.global_text, [h.fact for h in global_hits]),
                    reason=M.OFFLINE_GLOBAL.format(seqs=", ".join(map(str, seqs))),
                    evidence=tuple(seqs),
                )
            )
        debug.event("offline", hits=len(hits), proposed=len(changes), already_known=skipped)
        if not changes:
            reason = M.OFFLINE_ALL_KNOWN.format() if skipped else M.OFFLINE_NOTHING.format()
            return Proposal(changes=(NoChange(reason=reason),), summary=reason)
        counts: dict[str, int] = {}
        for hit in hits:
            counts[hit.kind] = counts.get(hit.kind, 0) + 1
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        return Proposal(changes=tuple(changes), summary=f"Offline rules found {summary}.")
