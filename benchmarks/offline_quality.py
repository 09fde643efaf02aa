"""Offline extractor quality: figures on the project's own corpora and on the real DSH logs (no pass/fail).

    .venv/bin/python benchmarks/offline_quality.py [-v] [--real DIR]

1. **Sequences** (tests/data/consolidation_sequences.yml): each workspace's sessions, written as real
   DSH logs, consolidated in order through the service the window uses, every proposal accepted as
   a user would (a supersession resolved with Replace). Printed per split — ``dev`` (the rules were
   tuned on it) and ``held`` (written before tuning) — precision, recall, duplicates and
   contradictions left in the final record sets.
2. **Conversations** (tests/core/consolidation/data/offline_corpus.yml): each against an empty
   memory (precision/recall), then all into one growing workspace twice (duplicates).
3. ``--real DIR``: every proposal the rules make on each real log in DIR (default
   /work/shared/fixtures/dsh-sessions), one per line.

These are the project's own corpora: the figures say how the rules do on what we wrote, not on
conversations in general.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "core" / "consolidation")]

from offline_corpus import Score, candidates, fresh_reviews, load_corpus, run_growing  # noqa: E402
from sequence_corpus import Score as SequenceScore  # noqa: E402
from sequence_corpus import consolidate, load  # noqa: E402

from core.consolidation import OfflineConsolidator  # noqa: E402
from core.consolidation.base import ConsolidationInput  # noqa: E402
from core.sessions import render_evidence  # noqa: E402
from core.sessions.evidence import build_evidence  # noqa: E402
from core.sessions.parse import read_session_file  # noqa: E402
from core.store.fs import FileStore  # noqa: E402
from core.store.memory import InMemoryStore  # noqa: E402

REAL_LOGS = Path("/work/shared/fixtures/dsh-sessions")


def sequences(verbose: bool) -> None:
    corpus = load()
    scores = {"dev": SequenceScore(), "held": SequenceScore(), "held2": SequenceScore()}
    started = time.perf_counter()
    proposals: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, ws in enumerate(corpus):
            outcome = consolidate(InMemoryStore(), Path(tmp) / f"w{i}", ws)
            scores[ws.split].add(outcome)
            proposals += outcome.proposals
    elapsed = time.perf_counter() - started
    sessions = sum(len(w.sessions) for w in corpus)
    print(f"sequence corpus: {len(corpus)} workspaces, {sessions} sessions, consolidated in order")
    for split, s in scores.items():
        n = sum(1 for w in corpus if w.split == split)
        print(
            f"  {split:>4} ({n} workspaces): precision {s.precision:.3f} ({s.correct}/{s.records})  "
            f"recall {s.recall:.3f} ({s.found}/{s.expected})  duplicates {s.duplicates}  "
            f"contradictions {s.contradictions}"
        )
    print(f"  {elapsed:.1f} s")
    for s in scores.values():
        for note in s.notes:
            print("   ", note)
    if verbose:
        for line in proposals:
            print("  proposal:", line)


def conversations(verbose: bool) -> None:
    corpus = load_corpus()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        by_language = {"en": Score(), "zh": Score()}
        total = Score()
        for conversation, review in fresh_reviews(Path(tmp) / "fresh", corpus):
            found = candidates(review)
            total.add(conversation, found)
            by_language[conversation.language].add(conversation, found)
        growing = run_growing(FileStore(Path(tmp) / "memory"), Path(tmp) / "growing", corpus)
        elapsed = time.perf_counter() - started
    expected = sum(len(c.expect) for c in corpus)
    print(
        f"conversation corpus: {len(corpus)} conversations ({expected} expected facts, "
        f"{sum(1 for c in corpus if not c.expect)} distractor conversations)"
    )
    for label, score in (("all", total), *by_language.items()):
        print(
            f"  {label:>3}: precision {score.precision:.3f} ({score.correct}/{score.proposed})  "
            f"recall {score.recall:.3f} ({score.found}/{score.expected})"
        )
    print(
        f"  growing workspace: {growing.committed} changes committed; second runs proposed "
        f"{growing.duplicates} duplicates; {growing.flagged_similar} records flagged similar"
    )
    print(f"  {elapsed:.1f} s")
    if verbose or total.misses or total.false_alarms:
        for line in total.misses:
            print("  missed:", line)
        for line in total.false_alarms:
            print("  false alarm:", line)


def real_logs(folder: Path) -> None:
    """Every proposal of the offline rules on each real log (each against an empty memory)."""
    logs = sorted(p for p in folder.iterdir() if p.name.endswith((".jsonl", ".jsonl.zstd")))
    consolidator = OfflineConsolidator()
    lines: list[str] = []
    unreadable = 0
    for log in logs:
        try:
            evidence = build_evidence(read_session_file(log))
        except Exception as exc:  # a log the reader refuses is counted, not fatal
            unreadable += 1
            lines.append(f"  {log.name}: not read ({type(exc).__name__})")
            continue
        request = ConsolidationInput(
            evidence=evidence,
            evidence_text=render_evidence(evidence),
            global_text="",
            records=(),
            cwd="/home/ada/projects/real",
            workspace_key="real-0000000000000000",
        )
        for change in consolidator.propose(request).changes:
            if change.op == "put":
                lines.append(f"  {log.name}: put {change.record.name} — {change.record.description!r}")
            elif change.op == "replace_global":
                lines.append(f"  {log.name}: replace_global — {change.text.strip()[-100:]!r}")
            elif change.op == "delete":
                lines.append(f"  {log.name}: delete {change.name}")
    proposals = [ln for ln in lines if "not read" not in ln]
    print(f"real DSH logs: {len(logs)} files in {folder}, {unreadable} not read, {len(proposals)} proposals")
    for line in lines:
        print(line)


def main() -> None:
    verbose = "-v" in sys.argv
    sequences(verbose)
    conversations(verbose)
    if "--real" in sys.argv:
        at = sys.argv.index("--real")
        real_logs(Path(sys.argv[at + 1]) if len(sys.argv) > at + 1 else REAL_LOGS)


if __name__ == "__main__":
    main()
