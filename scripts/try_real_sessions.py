"""Try the session reader on the real DSH logs in ../shared/fixtures/dsh-sessions.

The fixtures are flat ``<case>__<file>.jsonl`` files; this lays each one out in a temp dir in
DSH's real ``--<slug>--/<encoded-id>/session.jsonl`` layout (symlinks, nothing copied into the
project), lists them with SessionCatalog, builds evidence for every one and prints a report.
With ``--consolidate`` it also runs the offline consolidator over every session and commits what
it proposes into a throwaway in-memory store (the logs' ``{{cwd}}`` placeholders are mapped to a
made-up absolute folder per case, since a session needs a workspace to be consolidated).

    .venv/bin/python scripts/try_real_sessions.py [FIXTURES_DIR] [--verbose] [--consolidate]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from core.errors import DshMemoryError  # noqa: E402
from core.sessions import SessionCatalog, build_evidence  # noqa: E402

DEFAULT_FIXTURES = REPO.parent / "shared" / "fixtures" / "dsh-sessions"


def lay_out(fixtures: Path, root: Path) -> dict[str, Path]:
    """Symlink every fixture log as ``root/--<case>--/<n>/session.jsonl``; folder -> source file."""
    placed: dict[str, Path] = {}
    for index, source in enumerate(sorted(fixtures.glob("*.jsonl"))):
        case = source.name.split("__", 1)[0]
        folder = root / f"--{case}--" / f"s{index:03d}"
        folder.mkdir(parents=True)
        (folder / "session.jsonl").symlink_to(source.resolve())
        placed[str(folder)] = source
    return placed


def run(fixtures: Path, verbose: bool = False) -> dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="dsh-real-sessions-") as tmp:
        root = Path(tmp) / "sessions"
        placed = lay_out(fixtures, root)
        catalog = SessionCatalog(root)
        everything = catalog.list(include_subagents=True)
        listed = {s.folder for s in everything}
        clean = 0
        with_warnings = 0
        evidence_failures = 0
        summary_mismatches = 0  # the cheap listing summary must equal the full parse's
        stats: Counter[str] = Counter()
        for summary in everything:
            try:
                parsed = catalog.load(summary)
                evidence = build_evidence(parsed, limit_bytes=10_000_000)
            except DshMemoryError as exc:
                evidence_failures += 1
                print(f"FAIL {placed[summary.folder].name}: {exc.message}")
                continue
            if parsed.summary != summary:
                summary_mismatches += 1
                print(f"MISMATCH {placed[summary.folder].name}: listed {summary!r} != loaded {parsed.summary!r}")
            if parsed.warnings:
                with_warnings += 1
                print(f"WARN {placed[summary.folder].name}: {'; '.join(parsed.warnings)}")
            else:
                clean += 1
            stats["turns"] += summary.turns
            stats["evidence_turns"] += len(evidence.turns)
            stats["tools"] += sum(len(t.tools) for t in evidence.turns)
            stats["evidence_bytes"] += evidence.size_bytes
            for turn in evidence.turns:
                for tool in turn.tools:
                    stats[f"outcome:{tool.outcome}"] += 1
            if verbose:
                print(
                    f"{placed[summary.folder].name}: v{summary.version} turns={summary.turns} "
                    f"subagent={summary.is_subagent} cwd={summary.cwd!r} title={summary.title!r}"
                )
        for folder, problem in sorted(catalog.problems.items()):
            print(f"UNREADABLE {placed[folder].name}: {problem}")
        top_level = catalog.list()
        report = {
            "files": len(placed),
            "listed": len(listed),
            "read_cleanly": clean,
            "read_with_warnings": with_warnings,
            "unreadable": len(catalog.problems),
            "evidence_failures": evidence_failures,
            "summary_mismatches": summary_mismatches,
            "subagent": sum(1 for s in everything if s.is_subagent),
            "no_cwd": sum(1 for s in everything if s.cwd is None),
            "relative_cwd_unassigned": sum(1 for s in everything if s.cwd is not None and s.workspace_key is None),
            "top_level_listed_by_default": len(top_level),
            "workspaces": len(catalog.workspaces()),
            "human_turns": stats["turns"],
            "tool_uses": stats["tools"],
            "evidence_bytes": stats["evidence_bytes"],
        }
        report.update({k: v for k, v in stats.items() if k.startswith("outcome:")})
        return report


def consolidate_offline(fixtures: Path, verbose: bool = False) -> dict[str, int]:
    """Offline consolidation of every real log (sub-agents included) into an in-memory store."""
    from core.consolidation import ConsolidationService
    from core.model_catalog import ModelCatalog
    from core.sessions import render_evidence
    from core.settings import AppSettings
    from core.store.memory import InMemoryStore

    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="dsh-real-sessions-") as tmp:
        root = Path(tmp) / "sessions"
        placed = lay_out(fixtures, root)
        catalog = SessionCatalog(root)
        service = ConsolidationService(InMemoryStore(), ModelCatalog(()), AppSettings(), sessions=catalog)
        for summary in catalog.list(include_subagents=True):
            name = placed[summary.folder].name
            try:
                evidence = build_evidence(catalog.load(summary), limit_bytes=10_000_000)
                if evidence.cwd is None or not evidence.cwd.startswith("/"):
                    evidence = evidence.model_copy(update={"cwd": f"/fixtures/{Path(summary.folder).parent.name}"})
                review = service.propose(
                    service.prepare_evidence(evidence, render_evidence(evidence)), consolidator="offline"
                )
                receipt = service.commit(review, [c.id for c in review.actionable])
            except DshMemoryError as exc:
                counts["failed"] += 1
                print(f"CONSOLIDATION FAILED {name}: {exc.code}: {exc.message}")
                continue
            counts[f"consolidated:{receipt.status}"] += 1
            counts["records_committed"] += sum(1 for c in receipt.changes if c.decision == "accepted")
            if verbose:
                for change in review.actionable:
                    print(f"{name}: {change.kind} {change.target}")
    return dict(counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("fixtures", nargs="?", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--consolidate", action="store_true", help="also run the offline consolidator on each")
    args = parser.parse_args(argv)
    if not args.fixtures.is_dir():
        print(f"No fixtures at {args.fixtures}", file=sys.stderr)
        return 2
    report = run(args.fixtures, args.verbose)
    for key, value in report.items():
        print(f"{key}: {value}")
    ok = report["unreadable"] == 0 and report["evidence_failures"] == 0 and report["summary_mismatches"] == 0
    if args.consolidate:
        consolidated = consolidate_offline(args.fixtures, args.verbose)
        for key, value in sorted(consolidated.items()):
            print(f"{key}: {value}")
        ok = ok and consolidated.get("failed", 0) == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
