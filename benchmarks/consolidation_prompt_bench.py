"""Model consolidation prompt size on a 1,000-record workspace: everything (before) vs bounded (now).

    .venv/bin/python benchmarks/consolidation_prompt_bench.py [--records 1000]

"Before" is the single request that carried every record of the workspace as JSON; "now" is the
first request of the restricted consolidator (core.consolidation.context): evidence, GLOBAL.md,
the index and the most relevant records within the input budget, the rest behind read-only tools.
Prints bytes (target: first request ≤ 64 KB) and the time to build it. No network.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.workload import _record, global_text
from core.consolidation.base import ConsolidationInput
from core.consolidation.chat import SYSTEM_PROMPT, ChatModelConsolidator
from core.keys import workspace_key
from core.model_catalog import ModelChoice
from core.sessions import render_evidence
from core.sessions.models import Evidence, EvidenceMessage, EvidenceTurn

CWD = "/home/bench/projects/big-app"


def _evidence() -> tuple[Evidence, str]:
    said = [
        "Remember that the release branch is cut every Thursday and tagged by CI.",
        "No, use pnpm for installs, not npm; the lockfile is pnpm's.",
        "We decided to keep feature flags in LaunchDarkly because product edits them.",
    ]
    turns = tuple(
        EvidenceTurn(
            index=i,
            messages=(
                EvidenceMessage(seq=2 * i - 1, role="user", text=text),
                EvidenceMessage(seq=2 * i, role="assistant", text="Done. " * 30),
            ),
        )
        for i, text in enumerate(said, start=1)
    )
    evidence = Evidence(session_id="bench", session_revision="r1", cwd=CWD, title="bench", turns=turns, size_bytes=0)
    text = render_evidence(evidence)
    return evidence.model_copy(update={"size_bytes": len(text.encode())}), text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1000)
    args = parser.parse_args()
    rng = random.Random(0)
    names = [f"topic{i:04d}-notes" for i in range(args.records)]
    records = tuple(_record(rng, name, names[:50], i) for i, name in enumerate(names))
    evidence, text = _evidence()
    request = ConsolidationInput(
        evidence=evidence,
        evidence_text=text,
        global_text=global_text(rng),
        records=records,
        cwd=CWD,
        workspace_key=workspace_key(CWD),
    )
    everything = json.dumps(
        [{"name": r.name, "description": r.description, "type": r.type, "body": r.body.strip()} for r in records],
        ensure_ascii=False,
        indent=1,
    )
    before = len(SYSTEM_PROMPT.encode()) + len(f"{request.global_text}{everything}{text}".encode())
    choice = ModelChoice(id="bench", label="bench", provider="bench", base_url="http://127.0.0.1:9/v1", model="m")
    consolidator = ChatModelConsolidator(choice)
    started = time.perf_counter()
    first = consolidator.first_request(request, tools=True)
    elapsed = time.perf_counter() - started
    now = len(SYSTEM_PROMPT.encode()) + len(first.encode())
    print(
        f"workspace of {len(records)} records (~{sum(len(r.body.encode()) for r in records) // 1024} KB of bodies), "
        f"GLOBAL.md {len(request.global_text.encode()) // 1024} KB, evidence {evidence.size_bytes} B"
    )
    print(f"  before (every record in one request): {before / 1024:8.1f} KB")
    print(f"  now (first request, bounded):         {now / 1024:8.1f} KB   (target ≤ 64 KB)")
    print(f"  built in {elapsed * 1000:.0f} ms (search index over the snapshot included)")


if __name__ == "__main__":
    main()
