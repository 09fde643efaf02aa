"""``dsh-memory sessions``, ``consolidate`` and ``reviews``: session consolidation from the shell."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from core.cli.main import Context, Result
from core.consolidation import ConsolidationService, Receipt, Review, ReviewChange
from core.display import format_size
from core.errors import UsageError
from core.keys import dsh_home, normalize_cwd
from core.model_catalog import load_model_catalog
from core.sessions.models import SessionSummary
from core.sessions.stability import live_session_protection
from core.settings import AppSettings, load_settings
from core.store.files import RECEIPTS


def register(sub: Any) -> None:
    p = sub.add_parser("sessions", help="list DSH sessions that can be consolidated")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--cwd", help="only sessions of this workspace folder (default: the current folder)")
    scope.add_argument("--all", action="store_true", help="every workspace, and sessions with no cwd")
    p.add_argument("--include-subagents", action="store_true", help="also list sub-agent sessions")
    _sessions_root_option(p)
    p.set_defaults(handler=cmd_sessions)

    p = sub.add_parser(
        "consolidate", help="propose memory changes from one session, or every unreviewed one (dry run by default)"
    )
    p.add_argument("session_id", metavar="SESSION_ID", nargs="?")
    p.add_argument(
        "--pending",
        action="store_true",
        help="instead of SESSION_ID: every stable session of --cwd not yet reviewed with this consolidator",
    )
    p.add_argument("--cwd", help="with --pending: the workspace folder (default: the current folder)")
    p.add_argument("--consolidator", choices=("offline", "model"), help="default: the one chosen in Settings")
    p.add_argument("--apply", action="store_true", help="commit every valid change (Global only with --accept-global)")
    p.add_argument("--accept-global", action="store_true", help="with --apply: also commit a GLOBAL.md change")
    p.add_argument("--force", action="store_true", help="run again even if this review already has a receipt")
    p.add_argument(
        "--no-wait",
        action="store_true",
        help="skip the quiet-period check (the session lock is still honoured)",
    )
    _sessions_root_option(p)
    p.set_defaults(handler=cmd_consolidate)

    p = sub.add_parser("reviews", help="list consolidation receipts (newest first), or the pending reviews")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--pending", action="store_true", help="reviews saved at 'proposed', waiting for a decision")
    what.add_argument("--delete", metavar="REVIEW_ID", help="delete a pending review (its receipt says discarded)")
    p.set_defaults(handler=cmd_reviews)


def _sessions_root_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sessions-root", help="DSH sessions folder (default: Settings, then $DSH_HOME/sessions)")


def _settings(ctx: Context) -> AppSettings:
    return load_settings(ctx.store).settings


def _catalog(args: argparse.Namespace, settings: AppSettings) -> Any:
    from core.sessions import SessionCatalog

    if getattr(args, "sessions_root", None):
        root = Path(os.path.abspath(os.path.expanduser(args.sessions_root)))
    else:
        root = settings.resolved_sessions_root()
    return SessionCatalog(sessions_root=root, dsh_home=dsh_home())


def _service(ctx: Context, settings: AppSettings, sessions: Any) -> ConsolidationService:
    return ConsolidationService(ctx.store, load_model_catalog(dsh_home()), settings, sessions=sessions)


def cmd_sessions(args: argparse.Namespace, ctx: Context) -> Result:
    settings = _settings(ctx)
    catalog = _catalog(args, settings)
    if args.all:
        found: list[SessionSummary] = catalog.list(include_subagents=args.include_subagents)
    else:
        found = catalog.list(cwd=normalize_cwd(args.cwd or os.getcwd()), include_subagents=args.include_subagents)
    service = _service(ctx, settings, catalog)
    receipts = service.latest_receipts()
    rows: list[dict[str, Any]] = []
    for s in found:
        stable, why = catalog.is_stable(s, settings.quiet_period_seconds)
        last = receipts.get(s.id)
        rows.append(
            {
                "id": s.id,
                "title": s.title,
                "cwd": s.cwd,
                "workspace_key": s.workspace_key,
                "updated": s.updated.isoformat() if s.updated else None,
                "turns": s.turns,
                "format_version": s.format_version,
                "inherited_cut": s.inherited_cut,
                "warnings": list(s.warnings),
                "size": s.size,
                "subagent": s.is_subagent,
                "stable": stable,
                "state": why,
                "last_review": {"review_id": last.review_id, "status": last.status} if last else None,
            }
        )
    lines = []
    for row in rows:
        where = row["cwd"] or "Unassigned"
        status = row["last_review"]["status"] if row["last_review"] else "-"
        lines.append(
            f"{row['id']}  {(row['updated'] or '')[:19]:19}  v{row['format_version']:<2} {row['turns']:4} turns  "
            f"{format_size(row['size']):>10}  "
            f"{'stable' if row['stable'] else 'live':6}  review: {status:19}  {row['title'] or '(untitled)'}"
            + (f"  [{where}]" if args.all else "")
        )
        lines += [f"    warning: {w}" for w in row["warnings"]]
    if not rows:
        lines.append(f"No sessions found under {catalog.sessions_root}.")
    protection = live_session_protection(settings.quiet_period_seconds)
    if protection.note:
        lines.append(protection.note)
    problems: dict[str, str] = dict(catalog.problems)
    if problems:
        lines.append(f"{len(problems)} session folder(s) could not be read (skipped; nothing was changed):")
        lines += [f"  {folder}: {why}" for folder, why in sorted(problems.items())]
    data = {
        "sessions_root": str(catalog.sessions_root),
        "sessions": rows,
        "unreadable": problems,
        "live_check": {"lock_checked": protection.lock_checked, "note": protection.note},
    }
    return Result(data=data, text="\n".join(lines))


def _find_summary(catalog: Any, session_id: str) -> SessionSummary:
    for s in catalog.list(include_subagents=True):
        if s.id == session_id:
            return s  # type: ignore[no-any-return]  # SessionCatalog.list is typed; catalog is Any here
    summary: SessionSummary = catalog.load(session_id).summary
    return summary


def change_json(ch: ReviewChange) -> dict[str, Any]:
    """One change as every command's ``--json`` prints it (consolidate, import, review)."""
    return {
        "id": ch.id,
        "kind": ch.kind,
        "target": ch.target,
        "reason": ch.reason,
        "evidence": list(ch.evidence),
        "problems": list(ch.problems),
        "warnings": list(ch.warnings),
        "needs_confirmation": ch.needs_confirmation,
        "actionable": ch.is_actionable,
        "diff": ch.diff,
    }


def _review_text(review: Review) -> list[str]:
    lines = [
        f"Review {review.review_id} ({review.consolidator}{': ' + review.model if review.model else ''})",
        f"Session {review.session_id} {review.session_title!r}, seqs {review.seq_range[0]}-{review.seq_range[1]}",
        f"Workspace {review.cwd}",
    ]
    if review.proposal.summary:
        lines.append(f"Summary: {review.proposal.summary}")
    for ch in review.changes:
        lines.append("")
        label = f"{ch.id} {ch.kind} {ch.target}".rstrip()
        state = "REFUSED" if ch.problems else ("no change" if not ch.is_actionable else "ok")
        lines.append(f"{label}  [{state}]  evidence: {', '.join(map(str, ch.evidence)) or '-'}")
        lines.append(f"  reason: {ch.reason}")
        lines += [f"  problem: {p}" for p in ch.problems]
        lines += [f"  warning: {w}" for w in ch.warnings]
        if ch.diff:
            lines.append(ch.diff.rstrip("\n"))
    return lines


def _receipt_json(r: Receipt) -> dict[str, Any]:
    return r.model_dump(mode="json")


def cmd_consolidate(args: argparse.Namespace, ctx: Context) -> Result:
    settings = _settings(ctx)
    if args.no_wait:
        settings = settings.with_changes(quiet_period_seconds=0)
    catalog = _catalog(args, settings)
    service = _service(ctx, settings, catalog)
    if args.pending == (args.session_id is not None):
        raise UsageError("name one SESSION_ID, or use --pending (with --cwd) for every unreviewed session")
    if args.pending:
        return _consolidate_pending(args, service, catalog, settings)
    summary = _find_summary(catalog, args.session_id)
    prepared = service.prepare(summary)
    review = service.propose(prepared, consolidator=args.consolidator, force=args.force)
    data: dict[str, Any] = {
        "review_id": review.review_id,
        "reused": review.reused,
        "restored": review.restored,
        "edited": list(review.edited),
        "notes": list(review.notes),
        "status": review.receipt.status,
        "changes": [change_json(ch) for ch in review.changes],
        "receipt": _receipt_json(review.receipt),
    }
    if review.reused:
        text = (
            f"Session {review.session_id} was already consolidated with {review.consolidator}: review "
            f"{review.review_id} is {review.receipt.status} ({review.receipt.summary}). "
            "Nothing was run; use --force to run it again."
        )
        return Result(data=data, text=text)
    lines = _review_text(review)
    if review.restored:
        lines.insert(
            0,
            f"Pending review {review.review_id} restored from {review.receipt.created[:19]} "
            "(saved earlier; the consolidator was not run again).",
        )
    lines[1:1] = [f"Note: {note}" for note in review.notes]
    valid = [ch for ch in review.changes if ch.is_actionable]
    if not args.apply:
        lines += [
            "",
            f"Dry run: nothing was written. {len(valid)} valid change(s); "
            "run again with --apply to commit them"
            + (
                " (a GLOBAL.md change also needs --accept-global)." if any(c.needs_confirmation for c in valid) else "."
            ),
        ]
        return Result(data=data, text="\n".join(lines))
    chosen = [ch.id for ch in valid if args.accept_global or not ch.needs_confirmation]
    receipt = service.commit(review, chosen, confirm_global=args.accept_global)
    data["status"] = receipt.status
    data["receipt"] = _receipt_json(receipt)
    lines.append("")
    if receipt.status == "conflict":
        lines.append(
            f"Conflict: {(receipt.error or '').removeprefix('conflict: ')} "
            "Run the command again to get a proposal against the current memory."
        )
        return Result(data=data, text="\n".join(lines), exit_code=1)
    lines.append(f"{receipt.status}: {receipt.summary} (receipt reviews/{receipt.review_id}.md)")
    return Result(data=data, text="\n".join(lines))


def _consolidate_pending(
    args: argparse.Namespace, service: ConsolidationService, catalog: Any, settings: AppSettings
) -> Result:
    """``consolidate --pending``: every unreviewed stable session of one workspace, one line each."""
    from core.consolidation.batch import BatchRun, unreviewed

    cwd = normalize_cwd(args.cwd or os.getcwd())
    listed: list[SessionSummary] = catalog.list(cwd=cwd)
    stable = [s for s in listed if catalog.is_stable(s, settings.quiet_period_seconds)[0]]
    todo = unreviewed(service, stable, args.consolidator)
    items = BatchRun(
        service, todo, consolidator=args.consolidator, apply=args.apply, accept_global=args.accept_global
    ).run()
    rows: list[dict[str, Any]] = [
        {
            "session_id": i.session_id,
            "title": i.title,
            "status": i.status,
            "review_id": i.review_id,
            "changes": len(i.review.actionable) if i.review is not None else 0,
            "error": {"code": i.error_code, "message": i.error} if i.error_code else None,
        }
        for i in items
    ]
    lines = [
        f"{i.session_id}  {i.status:16}  {r['changes']} change(s)  {i.title or '(untitled)'}"
        + (f"  — {i.error}" if i.error else "")
        for i, r in zip(items, rows, strict=True)
    ]
    live = len(listed) - len(stable)
    if not rows:
        lines.append(f"No unreviewed stable sessions for {cwd}.")
    if live:
        lines.append(f"{live} session(s) still live or too recent were left for later.")
    if rows and not args.apply:
        lines.append("Dry run: nothing was written; --apply commits each review's valid changes.")
    failed = sum(1 for r in rows if r["status"] in ("failed", "conflict"))
    return Result(data={"cwd": cwd, "sessions": rows}, text="\n".join(lines), exit_code=1 if failed else 0)


def _pending_json(review: Review) -> dict[str, Any]:
    return {
        "review_id": review.review_id,
        "created": review.receipt.created,
        "status": review.receipt.status,
        "session_id": review.session_id,
        "session_title": review.session_title,
        "cwd": review.cwd,
        "consolidator": review.consolidator,
        "model": review.model,
        "actionable": len(review.actionable),
        "edited": list(review.edited),
        "notes": list(review.notes),
    }


def _pending(ctx: Context, args: argparse.Namespace) -> Result:
    service = ConsolidationService(ctx.store, load_model_catalog(dsh_home()), _settings(ctx))
    if args.delete:
        receipt = service.delete_review(args.delete)
        text = f"Deleted pending review {receipt.review_id}; its receipt says {receipt.status}. Nothing was written."
        return Result(data={"deleted": receipt.review_id, "receipt": _receipt_json(receipt)}, text=text)
    pending = service.pending_reviews()
    settings = service.settings
    lines = [
        f"{r.review_id}  {r.receipt.created[:19]}  {r.receipt.status:9}  {len(r.actionable)} change(s)"
        + (f", {len(r.edited)} edited" if r.edited else "")
        + f"  session {r.session_id} {r.session_title!r}  [{r.cwd}]"
        for r in pending
    ]
    if not pending:
        lines.append("No pending session reviews.")
    lines += [f"  {rid}: {why}" for rid, why in sorted(service.problems.items())]
    lines += [f"Recovered {rid}: {what}" for rid, what in service.recovered]
    lines.append(
        f"Pending reviews are kept for {settings.pending_review_max_age_days:g} days, at most "
        f"{settings.pending_review_max_count}; `consolidate SESSION_ID` shows one, `reviews --delete ID` removes one."
    )
    # Agents' proposals wait for the same decision: one listing for everything pending.
    from core.cli.mcp_commands import cmd_pending

    agents = cmd_pending(args, ctx)
    data = {
        "pending": [_pending_json(r) for r in pending],
        "problems": dict(service.problems),
        "recovered": [{"review_id": rid, "outcome": what} for rid, what in service.recovered],
        "max_age_days": settings.pending_review_max_age_days,
        "max_count": settings.pending_review_max_count,
        "pending_agent_proposals": (agents.data or {}).get("pending_agent_proposals", []),
        "agent_proposal_problems": (agents.data or {}).get("problems", []),
    }
    # Agents' proposals first: a listing never opens with "nothing pending" above pending proposals.
    return Result(data=data, text="\n".join([agents.text, "", *lines]))


def cmd_reviews(args: argparse.Namespace, ctx: Context) -> Result:
    if args.pending or args.delete:
        return _pending(ctx, args)
    if not ctx.store.files(RECEIPTS).list():
        return Result(data={"reviews": []}, text="No consolidation receipts yet.")
    settings = _settings(ctx)
    service = ConsolidationService(ctx.store, load_model_catalog(dsh_home()), settings)
    service.recover()  # a commit interrupted at its barrier is settled before receipts are shown
    receipts = service.receipts()
    lines = [
        f"{r.review_id}  {r.updated[:19]}  {r.status:19}  {r.consolidator:7}  session {r.session_id}  "
        f"{r.summary}  [{r.cwd}]"
        for r in receipts
    ]
    if not receipts:
        raise UsageError("the receipts in reviews/ could not be read")
    return Result(data={"reviews": [_receipt_json(r) for r in receipts]}, text="\n".join(lines))
