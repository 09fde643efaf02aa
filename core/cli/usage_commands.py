"""``dsh-memory usage [--cwd PATH | --all] [--rebuild] [--json]``: what agents actually used.

Updates the usage ledger from the DSH session logs (only new and changed stable sessions;
``--rebuild`` re-reads every log) and prints, per record, the uses by kind and when it was last
used. The MCP server's reads are in it too (with the client's name).
"""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.cli.main import Context, Result
from core.errors import NotFoundError
from core.keys import normalize_cwd, workspace_key
from core.usage import GLOBAL_KEY, KINDS, RecordUsage, UpdateStats, UsageLedger, UsageView


def register(sub: Any) -> None:
    p = sub.add_parser(
        "usage",
        help="which memories agents actually read (from DSH session logs and the MCP server)",
        description="Update the usage ledger from the DSH session logs (new and changed sessions only) and "
        "print each record's uses: opened, matched by a search, listed, edited by an agent, served over "
        "MCP, loaded at session start. Default: the workspace of the current folder.",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--cwd", help="workspace directory (default: the current directory)")
    where.add_argument("--all", action="store_true", help="every workspace, and GLOBAL.md")
    p.add_argument("--rebuild", action="store_true", help="forget the ledger and re-read every session log")
    p.add_argument("--sessions-root", help="DSH sessions folder (default: Settings, then $DSH_HOME/sessions)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document")
    p.set_defaults(handler=cmd_usage)


def _sessions_root(args: argparse.Namespace, ctx: Context) -> Path:
    if args.sessions_root:
        return Path(os.path.abspath(os.path.expanduser(args.sessions_root)))
    from core.settings import load_settings

    return load_settings(ctx.store).settings.resolved_sessions_root()


def _when(stamp: int | None) -> str:
    if stamp is None:
        return "never"
    return datetime.fromtimestamp(stamp / 1000, UTC).strftime("%Y-%m-%d %H:%M")


def _usage_json(usage: RecordUsage) -> dict[str, Any]:
    return {
        "workspace": usage.key or None,
        "name": usage.name,
        "counts": usage.counts,
        "sessions": usage.sessions,
        "followed_load": usage.followed,
        "last_used": _when(usage.last_used) if usage.last_used is not None else None,
        "recent": [
            {
                "kind": u.kind,
                "tool": u.tool,
                "session": u.session or None,
                "seq": u.seq if u.session else None,
                "client": u.client or None,
                "time": _when(u.time),
            }
            for u in usage.recent
        ],
    }


def _stats_json(stats: UpdateStats) -> dict[str, Any]:
    return {
        "sessions_seen": stats.sessions_seen,
        "sessions_read": stats.sessions_read,
        "sessions_unchanged": stats.sessions_kept,
        "sessions_waiting": stats.sessions_waiting,
        "sessions_dropped": stats.sessions_dropped,
        "tool_calls": stats.tool_calls,
        "calls_parsed": stats.calls_parsed,
        "memory_uses_found": stats.uses_found,
        "unknown_tools": stats.unknown_tools,
        "problems": stats.problems,
        "seconds": round(stats.seconds, 3),
    }


def _selected(view: UsageView, key: str | None) -> list[RecordUsage]:
    rows = [u for (k, _), u in view.records.items() if key is None or k == key]
    return sorted(rows, key=lambda u: (u.key != GLOBAL_KEY, u.key, -(u.last_used or 0), u.name))


def cmd_usage(args: argparse.Namespace, ctx: Context) -> Result:
    store = ctx.store
    key: str | None = None
    if not args.all:
        cwd = normalize_cwd(args.cwd or os.getcwd())
        key = workspace_key(cwd)
        if store.find_workspace(cwd) is None and args.cwd:
            raise NotFoundError(f"No workspace memory for {cwd}. Run `dsh-memory workspaces` to list them.")
    ledger = UsageLedger(store, _sessions_root(args, ctx))
    stats = ledger.update(rebuild=args.rebuild)
    view = ledger.view()
    rows = _selected(view, key)
    data = {"update": _stats_json(stats), "workspace": key, "records": [_usage_json(u) for u in rows]}
    lines = [
        f"{stats.sessions_read} session(s) read, {stats.sessions_kept} unchanged, {stats.sessions_waiting} waiting "
        f"(live or written in the last minutes); {stats.tool_calls} tool calls, {stats.uses_found} memory uses "
        f"found in {stats.seconds:.2f} s."
    ]
    if stats.unknown_tools:
        lines.append("unknown tools: " + ", ".join(f"{n} ({c})" for n, c in sorted(stats.unknown_tools.items())))
    if not rows:
        lines.append("No recorded use of this memory yet.")
    for usage in rows:
        counts = ", ".join(f"{kind} {usage.counts[kind]}" for kind in KINDS if usage.counts.get(kind))
        where = "GLOBAL.md" if usage.key == GLOBAL_KEY else (usage.name if key else f"{usage.key}/{usage.name}")
        lines.append(f"{where:<40} last used {_when(usage.last_used):<16}  {counts}")
    return Result(data, "\n".join(lines))
