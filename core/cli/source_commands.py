"""``dsh-memory sources``, ``import`` and ``foreign-bin``: other memory stores from the shell.

- ``sources [--cwd PATH]``: every store found (path, scopes, entries, problems); with ``--cwd``
  also the entries other stores hold for that workspace, every status shown.
- ``import KIND [--path P] [--cwd CWD] [--apply] [--accept-global]``: foreign entries as reviews,
  one per target workspace plus one for Global; a dry run by default (writes nothing anywhere).
- ``foreign-bin list|show|restore|purge|archive``: workspace memory's Recycle Bin (the only
  commands that write a foreign store, each an explicit action).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cli.main import Context, Result
from core.cli.session_commands import change_json
from core.errors import DshMemoryError, UsageError
from core.keys import normalize_cwd

if TYPE_CHECKING:  # the modules behind these commands load only when one of them runs
    from core.consolidation.proposals import Receipt, Review
    from core.sources.discovery import Discovery, SourcePaths
    from core.sources.importer import ImportOutcome, Skipped
    from core.sources.models import ForeignEntry, SourceKind, SourceSnapshot
    from core.sources.workspace_memory_bin import BinScope, WorkspaceMemoryBin

IMPORT_KINDS = ("workspace-memory", "cross-workspace", "project-memory", "claude-code")
"""``core.sources.models.IMPORTABLE_KINDS``, spelled out so that registering the command imports nothing."""


def _label(kind: str) -> str:
    from core.sources.models import SOURCE_LABELS

    return SOURCE_LABELS[kind]


def _json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document")


def register(sub: Any) -> None:
    p = sub.add_parser("sources", help="list every memory store found on this machine (read-only)")
    p.add_argument("--cwd", help="also list the entries other stores hold for this workspace folder")
    p.add_argument("--search", metavar="QUERY", help="also search every other store's entries")
    _json_flag(p)
    p.set_defaults(handler=cmd_sources)

    p = sub.add_parser("import", help="import another store's entries through review (dry run by default)")
    p.add_argument("kind", choices=IMPORT_KINDS, metavar="KIND", help=", ".join(IMPORT_KINDS))
    p.add_argument("--path", help="the store's location, when not the default (a file or folder)")
    p.add_argument("--cwd", help="only this workspace; also says which workspace an unmapped folder is")
    p.add_argument("--apply", action="store_true", help="commit every valid change (Global only with --accept-global)")
    p.add_argument("--accept-global", action="store_true", help="with --apply: also commit the GLOBAL.md change")
    _json_flag(p)
    p.set_defaults(handler=cmd_import)

    p = sub.add_parser("foreign-bin", help="workspace memory's Recycle Bin: list, show, restore, purge, archive")
    p.add_argument("--path", help="workspace-memory folder (default: $DSH_HOME/workspace-memory)")
    _json_flag(p)
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=type(p))
    v = verbs.add_parser("list", help="archived scopes, and active scopes whose folder is gone")
    _json_flag(v)
    v.set_defaults(handler=cmd_bin_list)
    for verb, text in (
        ("show", "an archived scope's entries"),
        ("restore", "move an archived scope back to scopes/ (refused if that key is active)"),
        ("archive", "archive an active scope whose folder no longer exists"),
        ("purge", "delete an archived scope for good (needs --confirm NAME)"),
    ):
        v = verbs.add_parser(verb, help=text)
        v.add_argument("key", metavar="KEY", help="the scope key, ws-<20 hex>")
        if verb == "purge":
            v.add_argument("--confirm", required=True, metavar="NAME", help="the last part of the scope's folder")
        _json_flag(v)
        v.set_defaults(handler={"show": cmd_bin_show, "restore": cmd_bin_restore}.get(verb, cmd_bin_write))


# --- sources ------------------------------------------------------------------------------
def _paths(ctx: Context) -> SourcePaths:
    from core.settings import load_settings
    from core.sources.discovery import SourcePaths

    try:
        sessions_root: Path | None = load_settings(ctx.store).settings.resolved_sessions_root()
    except DshMemoryError:
        sessions_root = None
    return SourcePaths.from_env(memory_root=ctx.root, sessions_root=sessions_root)


def _discover(ctx: Context, claude_cwd: str | None = None) -> Discovery:
    from core.sources.discovery import discover

    return discover(_paths(ctx), ctx.store, claude_cwd=claude_cwd)


def _source_json(s: SourceSnapshot) -> dict[str, Any]:
    return {
        "kind": s.kind,
        "label": s.label,
        "path": s.path,
        "scopes": len(s.active_scopes),
        "archived_scopes": len(s.scopes) - len(s.active_scopes),
        "entries": s.count,
        "problems": [p.model_dump(mode="json") for p in s.problems],
        "scope_list": [sc.model_dump(mode="json") for sc in s.scopes],
    }


def _entry_json(e: ForeignEntry) -> dict[str, Any]:
    return {**e.model_dump(mode="json"), "label": _label(e.source)}


def cmd_sources(args: argparse.Namespace, ctx: Context) -> Result:
    found = _discover(ctx)
    data: dict[str, Any] = {"sources": [_source_json(s) for s in found.sources]}
    lines: list[str] = []
    for s in found.sources:
        errors = sum(1 for p in s.problems if p.severity == "error")
        notes = len(s.problems) - errors
        archived = len(s.scopes) - len(s.active_scopes)
        lines.append(
            f"{s.kind:17} {len(s.active_scopes):4} scopes{f' (+{archived} archived)' if archived else ''}  "
            f"{s.count:5} entries  {errors} problem(s){f', {notes} note(s)' if notes else ''}  {s.path}"
        )
        lines += [f"    {p.severity}: {p.path} {p.reason}" for p in s.problems]
    if not found.sources:
        lines.append("No memory stores found.")
    if args.cwd:
        entries = found.entries_for(args.cwd)
        data["cwd"] = normalize_cwd(args.cwd)
        data["entries"] = [_entry_json(e) for e in entries]
        lines += ["", f"Entries other stores hold for {normalize_cwd(args.cwd)} (read-only):"]
        for e in entries:
            status = e.status + (f" ({e.status_detail})" if e.status_detail else "")
            text = " ".join(e.text.split())
            gist = "" if text == e.title else f" — {text[:70]}{'…' if len(text) > 70 else ''}"
            lines.append(f"  [{_label(e.source)}] {e.id} {e.kind} {status}: {e.title}{gist}")
        if not entries:
            lines.append("  (none)")
    if args.search:
        from core.sources.search import search_entries

        every = [e for s in found.sources if s.kind != "markdown" for e in s.entries]
        hits = search_entries(every, args.search)
        data["hits"] = [{**_entry_json(h.entry), "score": h.score} for h in hits]
        lines += ["", f"Other stores matching {args.search!r} (read-only):"]
        lines += [f"  [{_label(h.entry.source)}] {h.entry.id} {h.entry.status}: {h.entry.title}" for h in hits]
        if not hits:
            lines.append("  (none)")
    return Result(data=data, text="\n".join(lines))


# --- import -------------------------------------------------------------------------------
def _review_json(review: Review, receipt: Receipt) -> dict[str, Any]:
    return {
        "review_id": review.review_id,
        "reused": review.reused,
        "status": receipt.status,
        "cwd": review.cwd,
        "changes": [change_json(ch) for ch in review.changes],
        "receipt": receipt.model_dump(mode="json"),
    }


def _review_text(outcome: ImportOutcome) -> list[str]:
    review, receipt = outcome.review, outcome.receipt
    where = "GLOBAL.md" if review.workspace_key == "global" else f"workspace {review.cwd}"
    lines = [f"Review {review.review_id} ({review.consolidator}) → {where}"]
    if review.reused:
        lines.append(
            f"  already {receipt.status} ({receipt.summary}); nothing to do (receipt reviews/{receipt.review_id}.md)"
        )
        return lines
    for ch in review.changes:
        state = "REFUSED" if ch.problems else ("no change" if not ch.is_actionable else "ok")
        lines.append(f"{ch.id} {ch.kind} {ch.target}".rstrip() + f"  [{state}]")
        lines.append(f"  reason: {ch.reason}")
        lines += [f"  problem: {p}" for p in ch.problems]
        lines += [f"  warning: {w}" for w in ch.warnings]
        if ch.diff:
            lines.append(ch.diff.rstrip("\n"))
    if outcome.note:
        lines.append(f"  note: {outcome.note}")
    if outcome.applied or receipt.status not in ("proposed",):
        lines.append(f"  {receipt.status}: {receipt.summary}")
    return lines


def _skipped_json(s: Skipped) -> dict[str, Any]:
    return {
        "source": s.entry.source,
        "id": s.entry.id,
        "scope": s.entry.scope,
        "title": s.entry.title,
        "reason": s.reason,
    }


def _import_sources(args: argparse.Namespace, ctx: Context, kind: SourceKind) -> list[SourceSnapshot]:
    from core.sources.discovery import read_source

    found = _discover(ctx, claude_cwd=args.cwd if kind == "claude-code" else None)
    if args.path:
        return [read_source(kind, Path(os.path.expanduser(args.path)), known_cwds=found.known_cwds, cwd=args.cwd)]
    sources = found.of_kind(kind)
    if not sources:
        raise UsageError(f"No {_label(kind)} store was found; name it with --path.")
    return sources


def cmd_import(args: argparse.Namespace, ctx: Context) -> Result:
    from core.sources.importer import ImportOutcome, ImportService, plan_import

    kind: SourceKind = args.kind
    if args.accept_global and not args.apply:
        raise UsageError("--accept-global only makes sense with --apply")
    sources = _import_sources(args, ctx, kind)
    plan = plan_import(kind, sources, cwd=args.cwd)
    from core.settings import load_settings

    service = ImportService(ctx.store, load_settings(ctx.store).settings)
    outcomes: list[ImportOutcome] = []
    blocked: list[dict[str, str]] = []
    skipped = list(plan.skipped)
    for target in plan.targets:
        try:
            prepared = service.prepare(target)
        except UsageError as exc:
            blocked.append({"cwd": target.cwd or "GLOBAL.md", "reason": exc.message})
            continue
        skipped += prepared.skipped
        if args.apply:
            outcomes.append(service.apply(prepared, accept_global=args.accept_global))
        else:
            review = service.review(prepared)
            outcomes.append(ImportOutcome(review, review.receipt))
    data = {
        "kind": kind,
        "applied": bool(args.apply),
        "reviews": [_review_json(o.review, o.receipt) for o in outcomes],
        "skipped": [_skipped_json(s) for s in skipped],
        "blocked": blocked,
        "problems": [p.model_dump(mode="json") for s in sources for p in s.problems],
    }
    lines: list[str] = []
    for o in outcomes:
        lines += [*_review_text(o), ""]
    if not outcomes:
        lines.append(f"Nothing to import from {_label(kind)}.")
    lines += [f"blocked: {b['cwd']}: {b['reason']}" for b in blocked]
    if skipped:
        lines.append(f"{len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'} skipped:")
        lines += [f"  {s.entry.id} ({s.entry.scope}): {s.reason}" for s in skipped]
    if not args.apply:
        valid = sum(len(o.review.actionable) for o in outcomes)
        lines.append(f"Dry run: nothing was written. {valid} valid change(s); run again with --apply to commit them.")
    conflict = any(o.receipt.status == "conflict" for o in outcomes)
    return Result(data=data, text="\n".join(lines), exit_code=1 if conflict else 0)


# --- foreign-bin --------------------------------------------------------------------------
def _bin(args: argparse.Namespace) -> WorkspaceMemoryBin:
    from core.sources.discovery import SourcePaths
    from core.sources.workspace_memory_bin import WorkspaceMemoryBin

    root = Path(os.path.expanduser(args.path)) if args.path else SourcePaths.from_env().workspace_memory
    return WorkspaceMemoryBin(root)


def _bin_json(s: BinScope) -> dict[str, Any]:
    return {
        "key": s.key,
        "cwd": s.cwd,
        "name": s.name,
        "label": s.label,
        "path": str(s.path),
        "archived": s.archived,
        "entries": s.entries,
        "size_bytes": s.size_bytes,
        "changed": s.changed.isoformat() if s.changed else None,
        "active_exists": s.active_exists,
        "problems": list(s.problems),
    }


def cmd_bin_list(args: argparse.Namespace, ctx: Context) -> Result:
    b = _bin(args)
    archived, stale, leftovers = b.archived(), b.stale(), b.interrupted_purges()
    data = {
        "root": str(b.root),
        "archived": [_bin_json(s) for s in archived],
        "missing_cwd": [_bin_json(s) for s in stale],
        "interrupted_purges": [str(p) for p in leftovers],
    }
    lines = [f"Workspace memory Recycle Bin ({b.root}):"]
    for s in archived:
        flag = "  [an active scope has this key: restore refused]" if s.active_exists else ""
        lines.append(f"  {s.key}  {s.entries:4} entries  {s.name:24} {s.cwd}{flag}")
    if not archived:
        lines.append("  (no archived scopes)")
    if stale:
        lines.append("Active scopes whose folder no longer exists (archive with `foreign-bin archive KEY`):")
        lines += [f"  {s.key}  {s.entries:4} entries  {s.cwd}" for s in stale]
    lines += [f"An interrupted purge left {p}; purge any scope to finish it." for p in leftovers]
    return Result(data=data, text="\n".join(lines))


def cmd_bin_show(args: argparse.Namespace, ctx: Context) -> Result:
    scope = _bin(args).preview(args.key)
    data = {
        "key": scope.key,
        "cwd": scope.cwd,
        "summary": scope.summary,
        "entries": [_entry_json(e) for e in scope.entries],
        "problems": [p.model_dump(mode="json") for p in scope.problems],
    }
    lines = [f"Archived workspace memory {scope.key} ({scope.cwd}):"]
    for e in scope.entries:
        lines.append(f"  {e.id} {e.kind} {e.status}{f' ({e.status_detail})' if e.status_detail else ''}: {e.title}")
    return Result(data=data, text="\n".join(lines))


def cmd_bin_restore(args: argparse.Namespace, ctx: Context) -> Result:
    dst = _bin(args).restore(args.key)
    return Result(
        data={"restored": args.key, "path": str(dst)},
        text=f"Restored {args.key} to {dst}. A running DSH sees it after a restart.",
    )


def cmd_bin_write(args: argparse.Namespace, ctx: Context) -> Result:
    b = _bin(args)
    if args.verb == "archive":
        dst = b.archive(args.key)
        return Result(data={"archived": args.key, "path": str(dst)}, text=f"Archived {args.key} to {dst}.")
    b.purge(args.key, args.confirm)
    return Result(data={"purged": args.key}, text=f"Purged {args.key} for good.")
