"""What the MCP server works out from the store besides reads: the scope a server serves, records
linked to a record (``memory_related``) and what changed lately (``memory_recent``).

Scope rule (the same in both protocol eras): start from the client's first ``file://`` root when
the client offers roots, else from the server's working directory (``--cwd``, default: the
directory it was started in); the workspace is the nearest of that directory and its ancestors
that already has workspace memory, else that directory itself. The user's home directory and ``/``
count only when they are the starting directory (a workspace there would swallow every project).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from core.keys import normalize_cwd
from core.models import EMPTY_REVISION, WorkspaceSnapshot
from core.store.api import MemoryStore
from core.store.files import RECEIPTS

MAX_RECEIPTS_SCANNED = 200
MAX_RECENT = 40
_LINK = re.compile(r"\[\[([^\[\]\n|#]{1,120})(?:[#|][^\[\]\n]*)?\]\]")


def resolve_scope(store: MemoryStore, start: str) -> str:
    """The workspace directory for ``start`` (see the module docstring)."""
    start = normalize_cwd(start)
    known = {normalize_cwd(w.cwd) for w in store.list_workspaces(counts=False)}
    if start in known:
        return start
    home = normalize_cwd(os.path.expanduser("~"))
    for parent in PurePosixPath(start).parents:
        p = str(parent)
        if p in (home, "/"):
            break
        if p in known:
            return p
    return start


def links_of(body: str) -> list[str]:
    """The record names a body links to with ``[[name]]`` (first occurrence order, no repeats)."""
    seen: dict[str, None] = {}
    for m in _LINK.finditer(body):
        seen.setdefault(m.group(1).strip(), None)
    return list(seen)


def related(snap: WorkspaceSnapshot | None, name: str) -> dict[str, Any]:
    """Records ``name`` links to and records that link to it, both with their descriptions."""
    records = {r.name: r for r in snap.records()} if snap is not None else {}
    me = records.get(name)
    out = links_of(me.body) if me is not None else []
    incoming = sorted(n for n, r in records.items() if n != name and name in links_of(r.body))
    return {
        "name": name,
        "exists": me is not None,
        "links_to": [{"name": n, "description": records[n].description if n in records else None} for n in out],
        "linked_from": [{"name": n, "description": records[n].description} for n in incoming],
    }


def _receipt_authors(store: MemoryStore) -> dict[str, str]:
    """Revision after a commit -> who made it, from the newest receipts (consolidations, agents' proposals)."""
    from core.consolidation.receipts import parse_receipt

    authors: dict[str, str] = {}
    for rid in sorted(store.files(RECEIPTS).list(), reverse=True)[:MAX_RECEIPTS_SCANNED]:
        text = store.files(RECEIPTS).read(rid)
        receipt = parse_receipt(text) if text is not None else None
        if receipt is None:
            continue
        c = receipt.consolidator
        who = (
            f"agent {c.removeprefix('agent:')} (its proposal, accepted by the user)"
            if c.startswith("agent:")
            else f"session consolidation ({c})"
        )
        for rev in (receipt.workspace_revision_after, receipt.global_revision_after):
            if rev:
                authors.setdefault(rev, who)
    return authors


def _who(origin: str, actor: str, after: str, authors: dict[str, str]) -> str:
    if actor == "cli":
        return "the dsh-memory CLI"
    if actor.startswith("agent:"):
        return f"agent {actor.removeprefix('agent:')} (direct write over MCP)"
    if after in authors:
        return authors[after]
    if origin == "manual":
        return "the DSH Memory Manager app"
    return "an automatic writer (no receipt)"


def recent(
    store: MemoryStore,
    key: str,
    current: dict[str, str],
    *,
    since_time: datetime | None,
    since_revision: str | None,
) -> list[dict[str, Any]]:
    """Commits of the workspace ``key`` and of Global, newest first, after ``since_time`` or after the
    commit that produced ``since_revision`` (the handle's workspace revision). ``current``: scope ->
    revision now, to notice changes made behind the store's back (another program editing files)."""
    authors: dict[str, str] | None = None
    rows: list[dict[str, Any]] = []
    for scope, label in ((key, "workspace"), ("global", "global")):
        entries = store.history.commit_log(scope)  # newest first
        if since_revision is not None and scope == key:
            cut = next((i for i, e in enumerate(entries) if e.after == since_revision), None)
            if cut is not None:
                # Global has no revision in a workspace handle: the commit the handle saw dates it.
                since_time = max(since_time, entries[cut].time) if since_time is not None else entries[cut].time
                entries = entries[:cut]
        if since_time is not None:
            entries = [e for e in entries if e.time > since_time]
        newest = store.history.commit_log(scope)[:1]
        now = current.get(scope, EMPTY_REVISION)
        if newest and newest[0].after != now and now != EMPTY_REVISION:
            rows.append(
                {
                    "time": None,
                    "where": label,
                    "who": "another program (changed the files directly, not through dsh-memory)",
                    "changes": [],
                }
            )
        for e in entries:
            if authors is None and not e.actor:
                authors = _receipt_authors(store)
            rows.append(
                {
                    "time": e.time.isoformat(timespec="seconds"),
                    "where": label,
                    "who": _who(e.origin, e.actor, e.after, authors or {}),
                    "changes": [{"name": c.name, "kind": c.kind} for c in e.changes],
                }
            )
    rows.sort(key=lambda r: r["time"] or "9999", reverse=True)
    return rows[:MAX_RECENT]


def names_in(rows: Sequence[dict[str, Any]]) -> list[str]:
    return sorted({c["name"] for r in rows for c in r["changes"]})
