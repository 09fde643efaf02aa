"""Try the session reader on a folder of DSH logs: the real ones in ../shared/fixtures/dsh-sessions by default.

FOLDER is either flat ``<case>__<file>.jsonl`` fixture files (laid out in a temp dir in DSH's real
``--<slug>--/<encoded-id>/session.jsonl`` layout, symlinks, nothing copied into the project) or a
DSH sessions root as it is (``--<slug>--/<id>/session*.jsonl[.zstd]``). It lists them with
SessionCatalog, builds evidence for every one and prints, per session: format version, human
turns, assistant texts, inherited cut and reader warnings; then a report.
With ``--consolidate`` it also runs the offline consolidator over every session and commits what
it proposes into a throwaway in-memory store (the logs' ``{{cwd}}`` placeholders are mapped to a
made-up absolute folder per case, since a session needs a workspace to be consolidated).
``--build-rule-logs DIR`` first writes one log per DSH reader rule into DIR (resumed v0/v3, seeded
fork, fork of a fork, fork of a resumed parent, v5 header, bad generation names, header/name
mismatch, peer messages) with the test suite's builders, then reads DIR.

    .venv/bin/python scripts/try_real_sessions.py [FOLDER] [--quiet] [--verbose] [--consolidate]
    .venv/bin/python scripts/try_real_sessions.py --build-rule-logs /tmp/rule-logs
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
from core.sessions import Evidence, SessionCatalog, SessionSummary, build_evidence  # noqa: E402

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


def _is_flat(folder: Path) -> bool:
    return any(folder.glob("*.jsonl"))


def _as_is(root: Path) -> dict[str, Path]:
    """A DSH sessions root read in place: folder -> the folder itself (for the labels)."""
    return {str(f): f for project in sorted(root.iterdir()) if project.is_dir() for f in sorted(project.iterdir())}


def per_session_line(label: str, summary: SessionSummary, evidence: Evidence) -> str:
    """format version, human turns, assistant texts, inherited cut, warnings (one session)."""
    assistant_texts = sum(1 for t in evidence.turns for m in t.messages if m.role == "assistant")
    cut = f"seq {summary.inherited_cut}" if summary.inherited_cut else "-"
    warnings = "; ".join(summary.warnings) or "-"
    return (
        f"{label}: v{summary.format_version} human_turns={summary.turns} assistant_texts={assistant_texts} "
        f"inherited_cut={cut} warnings={warnings}"
    )


def run(fixtures: Path, verbose: bool = False, quiet: bool = False) -> dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="dsh-real-sessions-") as tmp:
        if _is_flat(fixtures):
            root = Path(tmp) / "sessions"
            placed = lay_out(fixtures, root)
        else:
            root, placed = fixtures, _as_is(fixtures)
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
            if not quiet:
                print(per_session_line(placed[summary.folder].name, summary, evidence))
            stats["assistant_texts"] += sum(1 for t in evidence.turns for m in t.messages if m.role == "assistant")
            stats["inherited_cuts"] += 1 if summary.inherited_cut else 0
            stats["summary_warnings"] += 1 if summary.warnings else 0
            stats[f"format:v{summary.format_version}"] += 1
            stats["turns"] += summary.turns
            stats["evidence_turns"] += len(evidence.turns)
            stats["tools"] += sum(len(t.tools) for t in evidence.turns)
            stats["evidence_bytes"] += evidence.size_bytes
            for turn in evidence.turns:
                for tool in turn.tools:
                    stats[f"outcome:{tool.outcome}"] += 1
            if verbose:
                print(
                    f"{placed[summary.folder].name}: v{summary.format_version} turns={summary.turns} "
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
            "assistant_texts": stats["assistant_texts"],
            "sessions_with_inherited_cut": stats["inherited_cuts"],
            "sessions_with_warnings": stats["summary_warnings"],
            "tool_uses": stats["tools"],
            "evidence_bytes": stats["evidence_bytes"],
        }
        report.update({k: v for k, v in sorted(stats.items()) if k.startswith(("outcome:", "format:"))})
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


def build_rule_logs(root: Path) -> None:
    """One DSH sessions root with a log per reader rule (the test suite's builders)."""
    sys.path.insert(0, str(REPO / "tests" / "core" / "sessions"))
    import dsh_log_builders as b

    def put(rows: list[dict[str, object]], case: str, name: str = "session.jsonl") -> Path:
        return b.write_session(root, rows, slug=f"--{case}--", folder=case, name=name)

    put(b.resumed(0, session_id="resumed-v0"), "resumed-v0")
    put(b.resumed(3, session_id="resumed-v3", resumes=2), "resumed-v3", "session.v3.jsonl.zstd")
    parent = [b.header("parent", 3), *b.exchange(0, "parent prompt", "parent answer", 3)]
    put(b.fork(parent, [("child task", "child answer")], 3, session_id="seeded-fork-v3"), "seeded-fork-v3")
    grand = [b.header("gp", 3), *b.exchange(0, "grandparent prompt", "gp answer", 3)]
    middle = b.fork(grand, [("parent prompt", "parent answer")], 3, session_id="parent")
    put(b.fork(middle, [("child prompt", "child answer")], 3, session_id="fork-of-fork-v3"), "fork-of-fork-v3")
    put(b.fork(b.resumed(0, "p0", 2), [("child one", "a1")], 0, session_id="fork-of-resumed-v0"), "fork-of-resumed-v0")
    rp = b.resumed(3, "p3", 2)
    put(b.fork(rp, [("c1", "a1"), ("c2", "a2")], 3, "fork-of-resumed-v3", resume_after=True), "fork-of-resumed-v3")
    put(b.conversation(5, turns=2, session_id="v5-header"), "v5-header", "session.v5.jsonl")
    bad = put(b.conversation(0, turns=1, session_id="bad-names"), "bad-names")
    for name in ("session.v0.jsonl", "session.v03.jsonl", "SESSION.jsonl", "session.v2.jsonl.tmp"):
        (bad / name).write_bytes(b'{"type":"session","version":2,"id":"bad-names"}\n')
    put(b.resumed(0, session_id="mismatch"), "mismatch")
    put(b.conversation(2, turns=5, session_id="mismatch"), "mismatch", "session.v3.jsonl.zstd")
    peer = [b.header("peer-v4", 4), b.user(0, "/planning split it", 4), b.peer_message(1, "Three waves.")]
    put([*peer, *b.exchange(2, "thanks", "welcome", 4)], "peer-v4", "session.v4.jsonl")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("fixtures", nargs="?", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="no per-session lines, only the report")
    parser.add_argument("--consolidate", action="store_true", help="also run the offline consolidator on each")
    parser.add_argument("--build-rule-logs", type=Path, metavar="DIR", help="write one log per reader rule, read DIR")
    args = parser.parse_args(argv)
    if args.build_rule_logs is not None:
        build_rule_logs(args.build_rule_logs)
        args.fixtures = args.build_rule_logs
    if not args.fixtures.is_dir():
        print(f"No fixtures at {args.fixtures}", file=sys.stderr)
        return 2
    report = run(args.fixtures, args.verbose, args.quiet)
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
