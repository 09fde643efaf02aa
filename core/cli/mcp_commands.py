"""``dsh-memory mcp`` (the MCP server for agents), ``dsh-memory reviews --pending`` and
``dsh-memory review ID [--apply | --reject]`` (pending agent proposals).

The MCP SDK is imported only when ``mcp`` runs, so every other command starts as fast as before.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cli.main import Context, Result
from core.errors import ConflictError, UsageError
from core.keys import normalize_cwd

if TYPE_CHECKING:
    from core.consolidation.proposals import Receipt, Review


def register(sub: Any) -> None:
    p = sub.add_parser(
        "mcp",
        help="serve memory to agents over MCP (stdio, or Streamable HTTP with --http)",
        description="An MCP server for agents working in one workspace: recall, search, read, index, related "
        "and recent tools, and memory_update / memory_edit with compare-and-swap against the `observed` handle "
        "of the agent's read. With --writes review (the default) an agent's changes become proposals you "
        "review (`dsh-memory reviews --pending`); direct commits them at once; off offers no write tools. "
        "The workspace: the client's first root when it offers roots, else --cwd (default: the directory the "
        "server starts in); the nearest of that directory and its ancestors that already has memory wins.",
    )
    p.add_argument("--root", default=argparse.SUPPRESS, help="memory root (same as the global --root)")
    p.add_argument("--cwd", default=".", help="the agent's working directory (default: where the server starts)")
    p.add_argument("--writes", choices=("direct", "review", "off"), default="review", help="default: review")
    p.add_argument("--allow-global", action="store_true", help="also offer replace_global (same write mode)")
    p.add_argument("--no-roots", action="store_true", help="ignore the client's roots; always use --cwd")
    p.add_argument("--create-root", action="store_true", help="create the memory root if it does not exist")
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP on HOST:PORT (e.g. 127.0.0.1:8765) instead of stdio; needs a bearer token",
    )
    p.add_argument(
        "--token-file",
        help="with --http: the bearer token's file (default: generated once under the user's config folder)",
    )
    p.set_defaults(handler=cmd_mcp)

    r = sub.add_parser(
        "review",
        help="show, apply or reject a pending agent proposal",
        description="Without --apply or --reject: the proposal's changes as diffs against the current memory.",
    )
    r.add_argument("proposal_id", metavar="ID", help="an id from `dsh-memory reviews --pending`")
    action = r.add_mutually_exclusive_group()
    action.add_argument("--apply", action="store_true", help="commit every acceptable change")
    action.add_argument("--reject", action="store_true", help="reject the whole proposal (nothing is written)")
    r.add_argument("--accept-global", action="store_true", help="with --apply: also commit a GLOBAL.md change")
    r.add_argument(
        "--refresh",
        action="store_true",
        help="with --apply: apply to the memory as it is now, after the memory changed since the agent read it",
    )
    r.add_argument(
        "--overwrite",
        action="store_true",
        help="with --apply --refresh: also overwrite records someone edited after the agent read them",
    )
    r.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document")
    r.set_defaults(handler=cmd_review)

    _add_pending_to_reviews(sub)


def _add_pending_to_reviews(sub: Any) -> None:
    """``reviews`` belongs to the consolidation commands; add ``--pending`` (agent proposals) to it."""
    reviews = sub.choices.get("reviews")
    if reviews is None:
        reviews = sub.add_parser("reviews", help="pending agent proposals (--pending)")
        reviews.set_defaults(handler=None)
    if "--pending" in reviews._option_string_actions:  # someone else already owns the flag
        return
    reviews.add_argument("--pending", action="store_true", help="list pending agent proposals (from MCP agents)")
    original = reviews.get_default("handler")

    def handler(args: argparse.Namespace, ctx: Context) -> Result:
        if getattr(args, "pending", False) or original is None:
            return cmd_pending(args, ctx)
        result: Result = original(args, ctx)
        return result

    reviews.set_defaults(handler=handler)


def check_root(root: Path, create: bool) -> None:
    """A wrong root is loud: one that is missing (unless ``create``) or is not a folder refuses to start,
    instead of serving empty memory and creating a second, divergent store at the first write."""
    if root.is_dir():
        return
    if root.exists() or root.is_symlink():
        raise UsageError(f"memory root {root} is not a directory; check --root, DSH_MEMORY_ROOT and DSH_HOME.")
    if not create:
        raise UsageError(
            f"memory root {root} does not exist; check --root, DSH_MEMORY_ROOT and DSH_HOME, or pass "
            "--create-root to start a new one there."
        )
    try:
        root.mkdir(parents=True, mode=0o700)
    except OSError as exc:
        raise UsageError(f"memory root {root} could not be created: {exc.strerror or exc}.") from exc


def cmd_mcp(args: argparse.Namespace, ctx: Context) -> Result:
    check_root(ctx.root, args.create_root)
    from core.mcp.agent import AgentSession

    if args.token_file and not args.http:
        raise UsageError("--token-file goes with --http.")
    store = ctx.store
    store.history.actor = ""  # not the CLI: an agent's direct write names the agent (AgentSession sets it)
    session = AgentSession(
        store,
        normalize_cwd(args.cwd),
        writes=args.writes,
        allow_global=args.allow_global,
        root_label=str(ctx.root),
    )
    if args.http:
        from core.mcp.http import serve_http

        serve_http(session, args.http, token_file=args.token_file)
        return Result(data=None, text="")
    from core.mcp.server import new_connection_id, run

    session.connection = new_connection_id()
    run(session, use_roots=not args.no_roots)  # until the client closes stdin
    return Result(data=None, text="")


def _proposals(ctx: Context) -> Any:
    from core.consolidation.agent_proposals import AgentProposals

    return AgentProposals(ctx.store)


def cmd_pending(args: argparse.Namespace, ctx: Context) -> Result:
    service = _proposals(ctx)
    pending, problems = service.pending()
    rows = []
    lines = []
    for item in pending:
        p = item.proposal
        kinds = [c.op for c in p.proposal.changes]
        rows.append(
            {
                "id": p.id,
                "created": p.created,
                "consolidator": p.consolidator,
                "cwd": p.cwd,
                "workspace_key": p.workspace_key,
                "reason": p.reason,
                "changes": len(kinds),
                "stale": item.stale,
            }
        )
        stale = "  (memory changed since; review against the current memory)" if item.stale else ""
        lines.append(f"{p.id}  {p.created[:19]}  {p.consolidator}  {len(kinds)} change(s)  [{p.cwd}]{stale}")
        lines.append(f"    reason: {p.reason}")
    lines += [f"unreadable: {msg}" for msg in problems]
    if not pending:
        lines.insert(0, "No pending agent proposals.")
    else:
        lines.append("Show one with `dsh-memory review ID`; commit with --apply, or --reject.")
    return Result(data={"pending_agent_proposals": rows, "problems": problems}, text="\n".join(lines))


def _review_lines(review: Review) -> list[str]:
    lines = [f"Agent proposal {review.review_id} by {review.consolidator}", f"Workspace {review.cwd}"]
    if review.proposal.summary:
        lines.append(f"Reason: {review.proposal.summary}")
    for ch in review.changes:
        state = "REFUSED" if ch.problems else ("no change" if not ch.is_actionable else "ok")
        lines += ["", f"{ch.id} {ch.kind} {ch.target}  [{state}]"]
        lines += [f"  problem: {p}" for p in ch.problems]
        lines += [f"  warning: {w}" for w in ch.warnings]
        if ch.diff:
            lines.append(ch.diff.rstrip("\n"))
    return lines


def cmd_review(args: argparse.Namespace, ctx: Context) -> Result:
    service = _proposals(ctx)
    if args.reject:
        receipt: Receipt = service.reject_id(args.proposal_id)
        return Result(data={"receipt": receipt.model_dump(mode="json")}, text=f"{receipt.status}: nothing was written.")
    if not args.apply:
        if args.accept_global or args.refresh or args.overwrite:
            raise UsageError("--accept-global, --refresh and --overwrite go with --apply.")
        review = service.open(args.proposal_id)
        from core.cli.session_commands import change_json  # consolidation imports: only when asked

        data = {"review_id": review.review_id, "changes": [change_json(c) for c in review.changes]}
        lines = _review_lines(review)
        lines += ["", f"Nothing was written. Commit with `dsh-memory review {review.review_id} --apply`, or --reject."]
        return Result(data=data, text="\n".join(lines))
    if args.overwrite and not args.refresh:
        raise UsageError("--overwrite goes with --apply --refresh.")
    receipt = service.apply(
        args.proposal_id, confirm_global=args.accept_global, rebase=args.refresh, overwrite=args.overwrite
    )
    if receipt.status == "conflict":
        raise ConflictError(
            "The memory changed since the agent read it, so nothing was written. See the proposal against the "
            f"current memory with `dsh-memory review {args.proposal_id}`, then apply it to the current memory "
            "with --apply --refresh, or --reject it.",
            receipt.workspace_revision_before,
        )
    return Result(
        data={"receipt": receipt.model_dump(mode="json")},
        text=f"{receipt.status}: {receipt.summary} (receipt reviews/{receipt.review_id}.md)",
    )
