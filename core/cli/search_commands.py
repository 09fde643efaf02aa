"""``dsh-memory search`` and ``dsh-memory recall``: the search index from the command line."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from core.cli.main import Context, Result
from core.errors import UsageError
from core.keys import normalize_cwd, workspace_key
from core.layout import cache_dir_of
from core.search import GLOBAL_SCOPE, SearchIndex, SearchResults
from core.store.stamps import ScopeStamps

TYPE_CHECKING = False  # (mypy reads this name as True; ``typing`` stays out of a one-shot CLI's start-up)
if TYPE_CHECKING:
    from typing import Any, TextIO

    from core.store.api import MemoryStore

PROGRESS_MIN_SCOPES = 20  # fewer scopes to index: done before a progress line would be read
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "search",
        help="search Global and workspace memory",
        description="Search GLOBAL.md sections and the records of the workspace of --cwd (default: the "
        "current directory), or of every active workspace with --all.",
    )
    p.add_argument("query", help="words, phrases in double quotes, Chinese text...")
    p.add_argument("--cwd", help="workspace directory (default: the current directory)")
    p.add_argument("--all", action="store_true", help="search every active workspace")
    p.add_argument("--archived", action="store_true", help="include archived workspaces too")
    p.add_argument("--limit", type=int, default=20, help="at most N hits (default 20)")
    p.add_argument("--max-bytes", type=int, default=16384, help="at most N UTF-8 bytes of hits (default 16384)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document")
    p.set_defaults(handler=_search)

    r = sub.add_parser(
        "recall",
        help="what an agent working in --cwd would recall for a query",
        description="Global memory plus the relevant records of the workspace of --cwd, as the "
        "deterministic, delimited, redacted text an agent reads.",
    )
    r.add_argument("query", nargs="?", default="", help="what the agent is working on (may be empty)")
    r.add_argument("--cwd", required=True, help="the agent's working directory")
    r.add_argument("--limit", type=int, default=8, help="at most N workspace records (default 8)")
    r.add_argument("--max-bytes", type=int, default=12000, help="at most N UTF-8 bytes (default 12000)")
    r.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON document")
    r.set_defaults(handler=_recall)


class _LazyStore:
    """The root's store, opened (and its modules imported) only when the index has to read a scope:
    a one-shot search over an up-to-date persisted index never does."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self.root: Path | None = ctx.root

    def cache_dir(self) -> Path:
        return Path(cache_dir_of(self._ctx.root))

    @property
    def inspect(self) -> _LazyInspect:
        return _LazyInspect(self._ctx)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx.store, name)


class _LazyInspect:
    """``store.inspect`` whose stamps need no store (``core/store/stamps.py`` imports nothing heavy)."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self.stamps = ScopeStamps(ctx.root)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx.store.inspect, name)


def _index(ctx: Context) -> SearchIndex:
    store: MemoryStore = _LazyStore(ctx)  # type: ignore[assignment]  # (what the index asks of a store)
    return SearchIndex(store)


class _Progress:
    """``indexing 40 %…`` on stderr while a first search builds the index (one line, redrawn);
    nothing for the quick refreshes of an index that is already there."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        if total < PROGRESS_MIN_SCOPES:
            return
        percent = 100 * done // total
        if percent != self.shown:
            self.shown = percent
            end = "\n" if done >= total else ""
            self.err.write(f"\rindexing {percent} %…{end}")
            self.err.flush()


def _refresh(index: SearchIndex, ctx: Context, keys: list[str] | None) -> None:
    index.refresh(keys=keys, progress=_Progress(ctx.stderr))


def _check_bounds(limit: int, max_bytes: int) -> None:
    if limit < 1:
        raise UsageError("--limit must be at least 1.")
    if max_bytes < 256:
        raise UsageError("--max-bytes must be at least 256.")


def _search(args: argparse.Namespace, ctx: Context) -> Result:
    _check_bounds(args.limit, args.max_bytes)
    if args.all and args.cwd:
        raise UsageError("Use either --cwd PATH or --all, not both.")
    index = _index(ctx)
    scopes: list[str] | None
    if args.all:
        _refresh(index, ctx, None)
        scopes = None
        where = "Global or any workspace"
    else:
        cwd = normalize_cwd(args.cwd or os.getcwd())
        key = workspace_key(cwd)
        _refresh(index, ctx, [key, GLOBAL_SCOPE])
        scopes = [key, GLOBAL_SCOPE]
        where = f"Global or the workspace of {cwd} (add --all to search every workspace)"
    results = index.search(
        args.query, scopes=scopes, limit=args.limit, max_bytes=args.max_bytes, include_archived=args.archived
    )
    color = bool(getattr(ctx.stdout, "isatty", lambda: False)())
    return Result(data=results.to_json(), text=_format(results, color, where))


def _mark(snippet: str, spans: tuple[tuple[int, int], ...], color: bool) -> str:
    if not color:
        return snippet
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out += [snippet[pos:start], _BOLD, snippet[start:end], _RESET]
        pos = end
    out.append(snippet[pos:])
    return "".join(out)


def _format(results: SearchResults, color: bool, where: str) -> str:
    if not results.hits:
        return f"No memory in {where} matches {results.query!r}."
    lines: list[str] = []
    for n, hit in enumerate(results.hits, 1):
        if hit.kind == "global_section":
            where = f"GLOBAL.md § {hit.name or '(preamble)'}"
        else:
            archived = " (archived)" if hit.archived else ""
            where = f"{hit.cwd or hit.scope_key}{archived} › {hit.name} [{hit.type}]"
        lines.append(f"{n}. {where}")
        if hit.description:
            lines.append(f"   {hit.description}")
        if hit.snippet:
            lines.append(f"   {_mark(hit.snippet, hit.highlights, color)}")
    shown = len(results.hits)
    more = f" (showing {shown}; raise --limit or --max-bytes for more)" if results.truncated else ""
    lines.append(f"{results.total_matches} match{'es' if results.total_matches != 1 else ''}{more}")
    return "\n".join(lines)


def _recall(args: argparse.Namespace, ctx: Context) -> Result:
    _check_bounds(args.limit, args.max_bytes)
    key = workspace_key(normalize_cwd(args.cwd))
    index = _index(ctx)
    _refresh(index, ctx, [key, GLOBAL_SCOPE])
    recall = index.build_recall(args.cwd, args.query, limit=args.limit, max_bytes=args.max_bytes)
    return Result(data=recall.to_json(), text=recall.text)
