"""Store commands of ``dsh-memory``: status, workspaces, show, global, put, delete, archive, restore,
purge, history, check and demo.

Each handler reads or writes through the :class:`~core.store.api.MemoryStore` in ``ctx.store`` and
returns a :class:`~core.cli.main.Result`: ``data`` is the ``--json`` document, ``text`` what people
read. Errors are the core's typed errors; ``core.cli.main`` turns them into messages and exit codes.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.cli.main import Context, Result
from core.display import format_size
from core.errors import ConflictError, InvalidRecordError, NotFoundError, UsageError
from core.keys import normalize_cwd, workspace_key
from core.models import (
    EMPTY_REVISION,
    DeleteOp,
    GlobalSnapshot,
    HistoryEntry,
    Problem,
    PutOp,
    Record,
    RecordEntry,
    WorkspaceInfo,
    WorkspaceSnapshot,
)
from core.store.api import MemoryStore

# --- helpers --------------------------------------------------------------------------------------


def _store(ctx: Context) -> MemoryStore:
    store: MemoryStore = ctx.store
    return store


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _when(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")



def _read_input_file(path: str) -> bytes:
    """Bytes of ``--file`` (``-`` reads standard input)."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise NotFoundError(f"File {path!r} does not exist. Check the path passed to --file.") from None
    except IsADirectoryError:
        raise UsageError(f"{path!r} is a folder; --file needs a Markdown file.") from None
    except OSError as exc:
        raise UsageError(
            f"Can't read {path!r}: {exc.strerror or exc}. Check the path and permissions."
        ) from None


def _decode_text(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidRecordError(
            f"{what} is not valid UTF-8 (bad byte at offset {exc.start}); save it as UTF-8 and try again.",
            reason="not-utf8",
        ) from None


def _info_json(info: WorkspaceInfo) -> dict[str, Any]:
    return {**info.model_dump(mode="json"), "name": info.display_name}


def _entry_json(entry: RecordEntry, *, body: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "file_name": entry.file_name,
        "name": entry.name,
        "valid": entry.is_valid,
        "invalid_reasons": list(entry.invalid_reasons),
        "size": entry.size,
        "revision": entry.revision,
    }
    if entry.record is not None:
        out["type"] = entry.record.type
        out["description"] = entry.record.description
        if body:
            out["body"] = entry.record.body
    return out


def _workspace_by(store: MemoryStore, cwd: str | None, key: str | None) -> tuple[WorkspaceSnapshot, bool]:
    """The scope named by ``--cwd`` or ``--key``: active first, then the Recycle Bin. (snapshot, archived)."""
    if key is None:
        assert cwd is not None  # argparse requires one of the two
        key = workspace_key(cwd)
    try:
        return store.read_workspace(key), False
    except NotFoundError:
        pass
    try:
        return store.read_workspace(key, archived=True), True
    except NotFoundError:
        pass
    which = f"for {normalize_cwd(cwd)}" if cwd is not None else f"with key {key!r}"
    raise NotFoundError(
        f"No workspace {which}, active or archived. "
        "Run `dsh-memory workspaces` (or `--archived`) to list them."
    )


def _active_workspace(store: MemoryStore, cwd: str) -> WorkspaceSnapshot:
    snap = store.find_workspace(cwd)
    if snap is None:
        raise NotFoundError(
            f"No active workspace for {normalize_cwd(cwd)}. Run `dsh-memory workspaces` to list them "
            "(archived ones need `dsh-memory restore --key KEY` first)."
        )
    return snap


def _flags(info: WorkspaceInfo) -> list[str]:
    flags = []
    if not info.cwd_exists:
        flags.append("cwd missing")
    if info.invalid_count:
        flags.append(f"{info.invalid_count} invalid")
    if info.scope_problem:
        flags.append("scope.json problem")
    return flags


# --- status / listing / reading -------------------------------------------------------------------


def cmd_status(args: argparse.Namespace, ctx: Context) -> Result:
    st = _store(ctx).status()
    text = (
        f"Memory root: {st.root}\n"
        f"  Workspaces: {st.workspace_count} active, {st.archived_count} archived\n"
        f"  GLOBAL.md:  {format_size(st.global_size)}\n"
        f"  Total:      {format_size(st.total_bytes)}"
    )
    if st.read_only:
        text += "\n  Read-only:  reading works; every change is refused (make the root writable to edit)"
    if st.quarantined:
        text += (
            f"\n  Quarantine: {_plural(st.quarantined, 'damaged internal file')} moved aside, never acted on; "
            "run `dsh-memory check`"
        )
    return Result(st.model_dump(mode="json"), text)


def cmd_workspaces(args: argparse.Namespace, ctx: Context) -> Result:
    infos = _store(ctx).list_workspaces(archived=args.archived)
    data = {"archived": args.archived, "workspaces": [_info_json(i) for i in infos]}
    if not infos:
        where = "in the Recycle Bin" if args.archived else "yet"
        return Result(data, f"No workspaces {where} in {ctx.root}.")
    kind = "archived" if args.archived else "active"
    lines = [f"{_plural(len(infos), kind + ' workspace')} in {ctx.root}:", ""]
    for i in infos:
        flags = _flags(i)
        when = f"  archived {_when(i.archived_at)}" if i.archived_at else ""
        size = f"{_plural(i.record_count, 'record')}, {format_size(i.size_bytes)}"
        lines.append(f"{i.display_name}  ({size}){when}")
        lines.append(f"    cwd: {i.cwd or '?'}")
        lines.append(f"    key: {i.key}" + (f"   [{', '.join(flags)}]" if flags else ""))
    return Result(data, "\n".join(lines))


def cmd_show(args: argparse.Namespace, ctx: Context) -> Result:
    snap, archived = _workspace_by(_store(ctx), args.cwd, args.key)
    info = snap.info
    data = {
        "workspace": _info_json(info),
        "archived": archived,
        "revision": snap.revision,
        "records": [_entry_json(e, body=True) for e in snap.entries],
        "index": snap.index_text,
    }
    head = f"{info.display_name}{'  (archived, in the Recycle Bin)' if archived else ''}"
    lines = [head, f"  cwd:      {info.cwd}", f"  key:      {info.key}", f"  revision: {snap.revision}"]
    flags = _flags(info)
    if flags:
        lines.append(f"  flags:    {', '.join(flags)}")
    lines.append("")
    if not snap.entries:
        lines.append("No records yet. Add one with `dsh-memory put --cwd PATH --file RECORD.md`.")
    for e in snap.entries:
        if e.record is not None and e.is_valid:
            lines.append(f"- {e.name} [{e.record.type}] — {e.record.description}")
        else:
            lines.append(f"- {e.file_name} INVALID (listed as is, never rewritten):")
            lines += [f"    * {reason}" for reason in e.invalid_reasons]
    return Result(data, "\n".join(lines))


def _global_json(g: GlobalSnapshot) -> dict[str, Any]:
    return g.model_dump(mode="json")


def cmd_global_show(args: argparse.Namespace, ctx: Context) -> Result:
    g = _store(ctx).read_global()
    if not g.exists:
        text = (
            f"No GLOBAL.md yet (revision {g.revision}). Create it with "
            f"`dsh-memory global set --file FILE --expect {g.revision}`."
        )
        return Result(_global_json(g), text)
    head = f"# GLOBAL.md — revision {g.revision}, {format_size(g.size)}"
    if g.invalid_reasons:
        head += "\n# problems: " + "; ".join(g.invalid_reasons)
    return Result(_global_json(g), f"{head}\n\n{g.text}")


# --- writing --------------------------------------------------------------------------------------


def cmd_global_set(args: argparse.Namespace, ctx: Context) -> Result:
    text = _decode_text(_read_input_file(args.file), args.file)
    store = _store(ctx)
    g = store.replace_global(text, args.expect, origin="manual", allow_secrets=args.allow_secrets)
    return Result(
        {"revision": g.revision, "size": g.size},
        f"Saved GLOBAL.md ({format_size(g.size)}). New revision: {g.revision}",
    )


_NAME_LINE = re.compile(r"^name:[ \t]*['\"]?([^'\"\n]*?)['\"]?[ \t]*$", re.MULTILINE)


def _parse_record_file(path: str, data: bytes) -> Record:
    """Parse ``--file`` as a record named by its own frontmatter, whatever the file is called.

    ``put --file draft.md`` is normal use: the store saves it as ``<name>.md``, so the file-name rule
    is checked against that name, not the draft's.
    """
    from core.records import parse_record, record_file_name
    from core.store.base import YAML_ALIAS_REASON, frontmatter_text, yaml_has_aliases

    if yaml_has_aliases(frontmatter_text(data)):  # never hand an alias bomb to the YAML loader
        raise InvalidRecordError(
            f"{path} is not a valid record; fix it and run put again.", [YAML_ALIAS_REASON], reason="yaml-aliases"
        )
    head = data[:4096].decode("utf-8", "replace")
    m = _NAME_LINE.search(head.split("\n---", 1)[0])
    file_name = record_file_name(m.group(1)) if m and m.group(1) else Path(path).name
    try:
        return parse_record(file_name, data)
    except InvalidRecordError as err:
        raise InvalidRecordError(
            f"{path} is not a valid record; fix it and run put again.", err.reasons, reason=err.reason
        ) from None


def _refuse_if_archived(store: MemoryStore, cwd: str) -> None:
    """A put into an archived workspace would start a second scope with the same key; say so instead."""
    try:
        archived = store.read_workspace(workspace_key(cwd), archived=True)
    except NotFoundError:
        return
    raise ConflictError(
        f"The workspace for {normalize_cwd(cwd)} is in the Recycle Bin. Nothing was written; restore it "
        f"first with `dsh-memory restore --key {archived.key}`, then run put again.",
        archived.revision,
    )


def cmd_put(args: argparse.Namespace, ctx: Context) -> Result:
    from core.records import render_record
    from core.store.base import check_secrets

    record = _parse_record_file(args.file, _read_input_file(args.file))
    store = _store(ctx)
    snap = store.find_workspace(args.cwd)
    created = snap is None
    if snap is None:
        _refuse_if_archived(store, args.cwd)
        # Check what would refuse the commit *before* creating the workspace, so a refused put
        # leaves no empty scope behind.
        check_secrets(
            [(f"{record.name}.md", render_record(record).decode("utf-8"))], "manual", args.allow_secrets
        )
        if args.expect not in (None, EMPTY_REVISION):
            raise ConflictError(
                f"No workspace exists for {normalize_cwd(args.cwd)} yet, but you expected revision "
                f"{args.expect}. Nothing was written; check --cwd, or drop --expect to create it.",
                EMPTY_REVISION,
            )
        snap = store.create_workspace(args.cwd)
    expect = snap.revision if created else args.expect
    previous = snap.get(record.name)
    new = store.commit(
        snap.key, [PutOp(record=record)], expect, origin="manual", allow_secrets=args.allow_secrets
    )
    unchanged = previous is not None and new.revision == snap.revision
    action = "Unchanged" if unchanged else "Updated" if previous is not None else "Added"
    data = {
        "workspace": new.key,
        "cwd": new.info.cwd,
        "name": record.name,
        "action": action.lower(),
        "created_workspace": created,
        "revision": new.revision,
    }
    where = f"{new.info.display_name} ({new.info.cwd})"
    text = f"{action} record {record.name!r} in {where}. Revision: {new.revision}"
    if created:
        text = f"Created workspace {new.key} for {new.info.cwd}.\n" + text
    if previous is not None and not unchanged:
        text += (
            f"\nThe previous version is in history: "
            f"dsh-memory history --cwd {new.info.cwd} --name {record.name}"
        )
    return Result(data, text)


def cmd_delete(args: argparse.Namespace, ctx: Context) -> Result:
    store = _store(ctx)
    snap = _active_workspace(store, args.cwd)
    if snap.get(args.name) is None:
        names = ", ".join(e.name for e in snap.entries[:10]) or "none"
        raise NotFoundError(
            f"No record {args.name!r} in {snap.info.display_name} (records: {names}). "
            f"Run `dsh-memory show --cwd {snap.info.cwd}` to list them."
        )
    new = store.commit(snap.key, [DeleteOp(name=args.name)], args.expect, origin="manual")
    data = {"workspace": new.key, "cwd": new.info.cwd, "name": args.name, "revision": new.revision}
    text = (
        f"Deleted record {args.name!r} from {new.info.display_name}. Revision: {new.revision}\n"
        f"Its last content is kept in history: dsh-memory history --cwd {new.info.cwd} --name {args.name}"
    )
    return Result(data, text)


# --- Recycle Bin ----------------------------------------------------------------------------------


def cmd_archive(args: argparse.Namespace, ctx: Context) -> Result:
    store = _store(ctx)
    key = args.key if args.key is not None else workspace_key(args.cwd)
    info = store.recycle.archive(key, args.expect)
    text = (
        f"Archived {info.display_name} ({info.cwd}) to the Recycle Bin.\n"
        f"Restore it with: dsh-memory restore --key {info.key}"
    )
    return Result({"archived": _info_json(info)}, text)


def cmd_restore(args: argparse.Namespace, ctx: Context) -> Result:
    info = _store(ctx).recycle.restore(args.key)
    return Result(
        {"restored": _info_json(info)}, f"Restored {info.display_name} ({info.cwd}) from the Recycle Bin."
    )


def cmd_purge(args: argparse.Namespace, ctx: Context) -> Result:
    from core.recycle import purge_workspace  # the store's purge plus the sweep of derived copies

    store = _store(ctx)
    sweep = purge_workspace(store, args.key, args.confirm or "")
    text = f"Purged archived workspace {args.key} for good."
    if sweep.sync_history_rewritten:
        text += (
            "\nSynced history was rewritten without it: the next `dsh-memory sync` replaces the remote's "
            "history (a forced push), and every other machine must sync to drop its copy too."
        )
    return Result({"purged": args.key, "sync_history_rewritten": sweep.sync_history_rewritten}, text)


# --- history / check / demo -----------------------------------------------------------------------


def _history_json(entry: HistoryEntry, content: str) -> dict[str, Any]:
    return {**entry.model_dump(mode="json"), "content": content}


def cmd_history(args: argparse.Namespace, ctx: Context) -> Result:
    store = _store(ctx)
    key = workspace_key(args.cwd)
    entries = store.history.entries(key, args.name)
    versions = [_history_json(e, store.history.read(e.id).decode("utf-8", "replace")) for e in entries]
    current: dict[str, Any] | None = None
    try:  # the record as it is now, also when its workspace sits in the Recycle Bin
        snap: WorkspaceSnapshot | None = _workspace_by(store, args.cwd, None)[0]
    except NotFoundError:
        snap = None
    entry = snap.get(args.name) if snap is not None else None
    if entry is not None and entry.record is not None:
        from core.records import render_record

        current = {"revision": entry.revision, "content": render_record(entry.record).decode("utf-8")}
    data = {
        "cwd": normalize_cwd(args.cwd),
        "key": key,
        "name": args.name,
        "current": current,
        "versions": versions,
    }
    if not versions and current is None:
        raise NotFoundError(
            f"No record {args.name!r} and no history of it for {normalize_cwd(args.cwd)}. "
            "History keeps overwritten and deleted records for a limited time."
        )
    lines = [f"History of {args.name!r} in {normalize_cwd(args.cwd)} (newest first):"]
    if current is not None:
        lines += ["", f"== current (revision {current['revision']})", current["content"].rstrip("\n")]
    else:
        lines += ["", "== current: deleted"]
    for v, e in zip(versions, entries, strict=True):
        lines += [
            "",
            f"== {_when(e.time)}  {e.reason}  {format_size(e.size)}  id {e.id}",
            v["content"].rstrip("\n"),
        ]
    if not versions:
        lines += ["", "No earlier versions: it has not been overwritten or deleted (or its history expired)."]
    return Result(data, "\n".join(lines))


def _problem_json(p: Problem) -> dict[str, Any]:
    return p.model_dump(mode="json")


def cmd_check(args: argparse.Namespace, ctx: Context) -> Result:
    problems = _store(ctx).inspect.check()
    data = {"root": str(ctx.root), "ok": not problems, "problems": [_problem_json(p) for p in problems]}
    if not problems:
        return Result(data, f"No problems found in {ctx.root}.")
    lines = [f"{_plural(len(problems), 'problem')} in {ctx.root}:"]
    lines += [f"- {p.path}: {p.reason}" for p in problems]
    lines += [
        "",
        "Invalid files are never rewritten automatically: fix or remove them, then run check again.",
    ]
    return Result(data, "\n".join(lines), exit_code=1)


def cmd_demo(args: argparse.Namespace, ctx: Context) -> Result:
    from core.demo import build_demo_root

    target = Path(args.path).expanduser().absolute()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(
            f"{target} already exists and is not an empty folder; pick a new path for the demo root."
        )
    build_demo_root(target)
    from core.store.fs import FileStore

    st = FileStore(target).status()
    data = {"root": str(target), **st.model_dump(mode="json")}
    text = (
        f"Demo memory root written to {target}: {st.workspace_count} workspaces, "
        f"{st.archived_count} archived, GLOBAL.md {format_size(st.global_size)}.\n"
        f"Try: dsh-memory --root {target} workspaces"
    )
    return Result(data, text)


# --- registration ---------------------------------------------------------------------------------


def _cwd_or_key(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--cwd", help="the workspace's project directory")
    group.add_argument("--key", help="the workspace key (see `dsh-memory workspaces`)")


def _add(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help)
    # ``--json`` is accepted after the command too (``dsh-memory show --json ...``); SUPPRESS keeps the
    # global flag's value when it is not repeated here.
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    return parser


def register(sub: Any) -> None:
    """Add the store commands to the ``dsh-memory`` subparsers."""
    p = _add(sub, "status", help="root path, sizes and counts")
    p.set_defaults(handler=cmd_status)

    p = _add(sub, "workspaces", help="list workspaces")
    p.add_argument("--archived", action="store_true", help="list the Recycle Bin instead")
    p.set_defaults(handler=cmd_workspaces)

    p = _add(sub, "show", help="a workspace's records and revision")
    _cwd_or_key(p)
    p.set_defaults(handler=cmd_show)

    p = _add(sub, "global", help="show or replace GLOBAL.md")
    gsub = p.add_subparsers(dest="global_command", metavar="ACTION", required=True, parser_class=type(p))
    gp = _add(gsub, "show", help="print GLOBAL.md and its revision")
    gp.set_defaults(handler=cmd_global_show)
    gp = _add(gsub, "set", help="replace GLOBAL.md with a file (compare-and-swap)")
    gp.add_argument("--file", required=True, help="new GLOBAL.md content ('-' reads stdin)")
    gp.add_argument("--expect", required=True, help="the revision you read (from `global show`)")
    gp.add_argument(
        "--allow-secrets", action="store_true", help="save even if credential-shaped values are found"
    )
    gp.set_defaults(handler=cmd_global_set)

    p = _add(sub, "put", help="add or replace one record from a Markdown file")
    p.add_argument("--cwd", required=True, help="the workspace's project directory (created if new)")
    p.add_argument("--file", required=True, help="the record file ('-' reads stdin)")
    p.add_argument("--expect", help="the workspace revision you read (from `show`); omit to take the latest")
    p.add_argument(
        "--allow-secrets", action="store_true", help="save even if credential-shaped values are found"
    )
    p.set_defaults(handler=cmd_put)

    p = _add(sub, "delete", help="delete one record (kept in history)")
    p.add_argument("--cwd", required=True)
    p.add_argument("--name", required=True, help="record name (file name without .md)")
    p.add_argument("--expect", help="the workspace revision you read (from `show`)")
    p.set_defaults(handler=cmd_delete)

    p = _add(sub, "archive", help="move a workspace to the Recycle Bin")
    _cwd_or_key(p)
    p.add_argument("--expect", help="the workspace revision you read (from `show`)")
    p.set_defaults(handler=cmd_archive)

    p = _add(sub, "restore", help="bring an archived workspace back")
    p.add_argument("--key", required=True)
    p.set_defaults(handler=cmd_restore)

    p = _add(sub, "purge", help="delete an archived workspace for good")
    p.add_argument("--key", required=True)
    p.add_argument(
        "--confirm", help="the workspace name as listed (its full key if its scope.json is invalid), to confirm"
    )
    p.set_defaults(handler=cmd_purge)

    p = _add(sub, "history", help="earlier versions of a record, with time and content")
    p.add_argument("--cwd", required=True)
    p.add_argument("--name", required=True)
    p.set_defaults(handler=cmd_history)

    p = _add(sub, "check", help="report every problem in the root (exit 1 if any)")
    p.set_defaults(handler=cmd_check)

    p = _add(sub, "demo", help="write a realistic demo memory root to PATH")
    p.add_argument("path", metavar="PATH", help="a new or empty folder")
    p.set_defaults(handler=cmd_demo)
