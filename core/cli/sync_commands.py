"""``dsh-memory move`` and ``dsh-memory sync``: a workspace to a new folder, the root with a git remote.

``move --key KEY --to-cwd PATH`` re-keys a workspace (merging into the workspace already at PATH; a
record in both needs ``--take existing|moved`` or an ``--edited NAME=FILE``, otherwise the command
lists them and writes nothing). ``sync [--remote URL]`` runs one sync; ``sync --review`` lists a pending
sync review, ``--accept ID=mine|theirs`` / ``--edited ID=FILE`` settle items; ``sync --map`` proposes
local folders for synced workspaces whose folder is not on this machine.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from core.cli.main import Context, Result
from core.errors import NotFoundError, UsageError
from core.store.api import MemoryStore
from core.sync.review import Resolution


def _add(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help)
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    return parser


def _pairs(values: list[str] | None, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values or []:
        k, sep, val = v.partition("=")
        if not sep or not k or not val:
            raise UsageError(f"{what} takes NAME=VALUE, got {v!r}.")
        out[k] = val
    return out


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text("utf-8")
    except FileNotFoundError:
        raise NotFoundError(f"File {path!r} does not exist.") from None


def cmd_move(args: argparse.Namespace, ctx: Context) -> Result:
    from core.sync.move import apply_move, finish_pending_moves, plan_move

    store: MemoryStore = ctx.store
    finish_pending_moves(store)
    plan = plan_move(store, args.key, args.to_cwd)
    edited = {k: Resolution(choice="edited", text=_read_text(v)) for k, v in _pairs(args.edited, "--edited").items()}
    res: dict[str, Resolution] = {}
    for item in plan.conflicts:
        if item.id in edited:
            res[item.id] = edited[item.id]
        elif args.take:
            res[item.id] = Resolution(choice="mine" if args.take == "existing" else "theirs")
    data: dict[str, Any] = {
        "source": plan.source_key, "target": plan.target_key, "target_cwd": plan.target_cwd,
        "merge": plan.is_merge, "incoming": [n for n, _ in plan.incoming], "identical": list(plan.identical),
        "conflicts": [i.name for i in plan.conflicts], "left_behind": list(plan.left_behind),
    }
    open_items = [i for i in plan.conflicts if i.id not in res]
    if open_items or args.dry_run:
        lines = [f"Moving {plan.source_name} to {plan.target_cwd}" + (" (merge)" if plan.is_merge else "")]
        lines.append(f"  moves: {', '.join(data['incoming']) or '-'}")
        lines.append(f"  same in both: {', '.join(plan.identical) or '-'}")
        for item in open_items:
            lines += [f"  in both, different: {item.name}", *("    " + ln for ln in item.diff().splitlines())]
        if open_items:
            lines.append("Nothing was moved. Choose with --take existing|moved or --edited NAME=FILE.")
        data["written"] = False
        return Result(data, "\n".join(lines), exit_code=3 if open_items else 0)  # 3: refused until chosen
    result = apply_move(store, plan, res)
    data.update(written=True, receipt=result.receipt_id, replaced=list(result.replaced), kept=list(result.kept))
    text = (
        f"Moved {plan.source_name} to {plan.target_cwd} ({result.target_key}): "
        f"{len(result.moved)} moved, {len(result.replaced)} replaced, {len(result.kept)} kept. "
        f"The old copy is in the Recycle Bin; receipt {result.receipt_id}."
    )
    return Result(data, text)


def cmd_sync(args: argparse.Namespace, ctx: Context) -> Result:
    from core.sync import engine
    from core.sync.gitcli import GitMissingError, SyncError

    store: MemoryStore = ctx.store
    root = ctx.root
    if args.review or args.accept or args.edited:
        for item_id, choice in _pairs(args.accept, "--accept").items():
            if choice not in ("mine", "theirs"):
                raise UsageError("--accept takes ID=mine or ID=theirs.")
            engine.resolve(store, item_id, Resolution(choice="mine" if choice == "mine" else "theirs"))
        for item_id, path in _pairs(args.edited, "--edited").items():
            engine.resolve(store, item_id, Resolution(choice="edited", text=_read_text(path)))
        review = engine.pending_review(root)
        if review is None:
            return Result({"items": []}, "No sync review is pending.")
        lines = []
        for item in review.items:
            done = review.resolutions.get(item.id)
            lines.append(f"{item.id}  [{done.choice if done else 'open'}]")
            if not done:
                lines += ["    " + ln for ln in item.diff().splitlines()]
        if not review.open_items():
            lines.append("Every item is chosen: run `dsh-memory sync` to commit the merge and push it.")
        return Result(review.model_dump(mode="json"), "\n".join(lines), exit_code=0)
    if args.map:
        from core.sync.mapping import find_candidates

        roots = [Path(p) for p in args.search or []] or [Path.home()]
        out = []
        lines = []
        for key in engine.unmapped_workspaces(store):
            info = store.read_workspace(key).info
            cands = find_candidates(info.cwd, roots)
            out.append({"key": key, "cwd": info.cwd, "candidates": [c.__dict__ for c in cands]})
            found = ", ".join(f"{c.path} [{c.reason}]" for c in cands) or "no candidate"
            lines.append(f"{key} ({info.cwd}): {found}")
        lines.append("Map one with `dsh-memory move --key KEY --to-cwd PATH`.")
        return Result(out, "\n".join(lines))
    if args.status:
        last = engine.last_result(root)
        cfg = engine.load_config(root)
        data = {"remote": cfg.remote, "last": last.model_dump(mode="json") if last else None}
        said = f"{last.status} — {last.message}" if last else "never"
        return Result(data, f"remote: {cfg.remote or '-'}\nlast: {said}")
    result = engine.run_sync(store, args.remote, branch=args.branch)
    lines = [f"{result.status}: {result.message}"]
    for p, why in {**result.held, **result.frozen}.items():
        lines.append(f"  not synced: {p}: {why}")
    if result.unmapped:
        n = len(result.unmapped)
        shown = ", ".join(result.unmapped[:5]) + (f" and {n - 5} more" if n > 5 else "")
        lines.append(f"  {n} synced workspace(s) not on this machine (`dsh-memory sync --map`): {shown}")
    for key in result.purged:
        lines.append(
            f"  deleted forever on another machine: {key} — this machine's copy is in the Recycle Bin and no "
            f"longer synced; `dsh-memory purge --key {key}` deletes it here too"
        )
    code = 0 if result.ok else (GitMissingError.exit_code if result.status == "git-missing" else SyncError.exit_code)
    return Result(result.model_dump(mode="json"), "\n".join(lines), exit_code=code)


def register(sub: Any) -> None:
    p = _add(sub, "move", help="move a workspace to a new folder (merging into the workspace there)")
    p.add_argument("--key", required=True, help="the workspace to move (see `dsh-memory workspaces`)")
    p.add_argument("--to-cwd", required=True, help="its new project folder")
    p.add_argument("--take", choices=("existing", "moved"), help="for records in both: which version wins")
    p.add_argument("--edited", action="append", metavar="NAME=FILE", help="for a record in both: this text")
    p.add_argument("--dry-run", action="store_true", help="show what would happen, write nothing")
    p.set_defaults(handler=cmd_move)

    p = _add(sub, "sync", help="sync the memory with a git remote")
    p.add_argument("--remote", help="the git remote URL (saved for next time)")
    p.add_argument("--branch", help="the remote branch (default main)")
    p.add_argument("--status", action="store_true", help="show the remote and the last result")
    p.add_argument("--review", action="store_true", help="list the pending sync review")
    p.add_argument("--accept", action="append", metavar="ID=mine|theirs", help="settle a sync review item")
    p.add_argument("--edited", action="append", metavar="ID=FILE", help="settle a sync review item with a text")
    p.add_argument("--map", action="store_true", help="propose local folders for synced workspaces")
    p.add_argument("--search", action="append", metavar="DIR", help="with --map: where to look (default: home)")
    p.set_defaults(handler=cmd_sync)
