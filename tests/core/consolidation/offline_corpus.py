"""The offline extractor's labeled corpus: load it, run each conversation as a real DSH session, score.

Shared by ``test_offline_quality.py`` (the quality bar as a test) and ``benchmarks/offline_quality.py``
(the figures). A proposed change *matches* an expected fact when it has the same scope and contains
every fragment of it; precision counts proposed facts that match, recall counts expected facts found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from consolidation_support import write_dsh_session

from core.consolidation import ConsolidationService
from core.consolidation.proposals import Review
from core.model_catalog import ModelCatalog
from core.sessions import SessionCatalog
from core.settings import AppSettings
from core.store.api import MemoryStore

CORPUS = Path(__file__).with_name("data") / "offline_corpus.yml"
CWD = "/home/ada/projects/corpus-app"


@dataclass(frozen=True)
class Expected:
    scope: str  # "workspace" | "global"
    has: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    id: str
    turns: tuple[tuple[str, str], ...]
    expect: tuple[Expected, ...]

    @property
    def language(self) -> str:
        return self.id.split("-", 1)[0]


def load_corpus(path: Path = CORPUS) -> list[Conversation]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Conversation(
            id=c["id"],
            turns=tuple((role, text) for role, text in c["turns"]),
            expect=tuple(Expected(e["scope"], tuple(e["has"])) for e in c["expect"]),
        )
        for c in data["conversations"]
    ]


def _exchanges(turns: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for role, text in turns:
        if role == "user":
            pairs.append((text, ""))
        else:
            user, said = pairs[-1]
            pairs[-1] = (user, f"{said}\n{text}".strip())
    return pairs


def write_session(sessions_root: Path, conversation: Conversation, *, cwd: str = CWD) -> None:
    write_dsh_session(sessions_root, conversation.id, cwd, _exchanges(conversation.turns), title=conversation.id)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


@dataclass(frozen=True)
class Candidate:
    scope: str
    text: str


def candidates(review: Review) -> list[Candidate]:
    """What the review would write, fact by fact: each put's record, each line added to Global."""
    out: list[Candidate] = []
    for change in review.changes:
        if not change.is_actionable:
            continue
        if change.kind == "put" and change.record is not None:
            out.append(Candidate("workspace", f"{change.record.description}\n{change.record.body}"))
        elif change.kind == "replace_global":
            before = set((change.before or "").splitlines())
            out += [
                Candidate("global", ln)
                for ln in (change.after or "").splitlines()
                if ln.strip() and not ln.startswith("#") and ln not in before
            ]
    return out


@dataclass
class Score:
    expected: int = 0
    found: int = 0
    proposed: int = 0
    correct: int = 0
    misses: list[str] = field(default_factory=list)
    false_alarms: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct / self.proposed if self.proposed else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0

    def add(self, conversation: Conversation, found: list[Candidate]) -> None:
        self.expected += len(conversation.expect)
        self.proposed += len(found)
        unmatched = list(found)
        for exp in conversation.expect:
            hit = next(
                (c for c in unmatched if c.scope == exp.scope and all(_norm(h) in _norm(c.text) for h in exp.has)),
                None,
            )
            if hit is None:
                self.misses.append(f"{conversation.id}: {exp.scope} {list(exp.has)}")
            else:
                self.found += 1
                self.correct += 1
                unmatched.remove(hit)
        self.false_alarms += [f"{conversation.id}: {c.scope} {c.text.strip()[:80]!r}" for c in unmatched]


class CorpusRunner:
    """A consolidation service over a sessions folder holding the corpus as real DSH session files."""

    def __init__(self, store: MemoryStore, root: Path, corpus: list[Conversation]) -> None:
        sessions_root = root / "sessions"
        for conversation in corpus:
            write_session(sessions_root, conversation)
        self.catalog = SessionCatalog(sessions_root=sessions_root, dsh_home=root / "dsh")
        self.service = ConsolidationService(store, ModelCatalog(()), AppSettings(), sessions=self.catalog)
        self.summaries = {s.id: s for s in self.catalog.list(cwd=CWD)}

    def review(self, conversation_id: str, *, force: bool = False) -> Review:
        prepared = self.service.prepare(self.summaries[conversation_id])
        return self.service.propose(prepared, consolidator="offline", force=force)


def fresh_reviews(root: Path, corpus: list[Conversation]) -> Iterator[tuple[Conversation, Review]]:
    """Each conversation reviewed against an empty memory of its own (for precision and recall)."""
    from core.store.memory import InMemoryStore

    for i, conversation in enumerate(corpus):
        runner = CorpusRunner(InMemoryStore(), root / f"c{i}", [conversation])
        yield conversation, runner.review(conversation.id)


@dataclass
class GrowingRun:
    """Every conversation consolidated twice into one workspace that keeps what was accepted."""

    committed: int = 0
    duplicates: int = 0  # changes the second run of a conversation still proposes
    flagged_similar: int = 0  # first-run records flagged "similar to [[…]]" by the host
    duplicate_ids: list[str] = field(default_factory=list)


def run_growing(store: MemoryStore, root: Path, corpus: list[Conversation]) -> GrowingRun:
    runner = CorpusRunner(store, root, corpus)
    out = GrowingRun()
    for conversation in corpus:
        first = runner.review(conversation.id)
        out.flagged_similar += sum(1 for c in first.changes if c.similar_to is not None)
        accepted = [c.id for c in first.actionable if c.similar_to is None]
        if accepted:
            runner.service.commit(first, accepted, confirm_global=True)
            out.committed += len(accepted)
        again = runner.review(conversation.id, force=True)
        if again.actionable:
            out.duplicates += len(again.actionable)
            out.duplicate_ids.append(conversation.id)
    return out
