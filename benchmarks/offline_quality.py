"""Offline extractor quality on the labeled corpus: precision, recall and duplicates (figures, no pass/fail).

    .venv/bin/python benchmarks/offline_quality.py [-v]

Each of the corpus's conversations (tests/core/consolidation/data/offline_corpus.yml) is written as
a real DSH session and consolidated through the service the window uses: first each against an
empty memory (precision/recall), then all into one growing workspace, twice each (duplicates:
changes the second run still proposes; similar: records the host flags "similar to [[…]]").
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "core" / "consolidation")]

from offline_corpus import Score, candidates, fresh_reviews, load_corpus, run_growing  # noqa: E402

from core.store.fs import FileStore  # noqa: E402


def main() -> None:
    verbose = "-v" in sys.argv
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
        f"offline extractor on {len(corpus)} conversations ({expected} expected facts, "
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
    print(f"  {elapsed:.1f} s in all")
    if verbose or total.misses or total.false_alarms:
        for line in total.misses:
            print("  missed:", line)
        for line in total.false_alarms:
            print("  false alarm:", line)


if __name__ == "__main__":
    main()
