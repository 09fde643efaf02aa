"""Where the window looks for other memory stores (issue 12), and the reads its tabs run as jobs.

The paths come from the window's context, not from the process environment alone: the memory
root and sessions root the window was opened on (Settings may have changed the sessions root),
and ``ctx.dsh_home`` for ``$DSH_HOME``. Every call here reads foreign stores and runs on a worker.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from core.sources.discovery import Discovery, SourcePaths, discover
from core.sources.workspace_memory_bin import BinScope, WorkspaceMemoryBin
from core.store.api import MemoryStore
from gui.context import AppContext


def source_paths(ctx: AppContext) -> SourcePaths:
    env = {**os.environ, "DSH_HOME": str(ctx.dsh_home)}
    return SourcePaths.from_env(env, memory_root=ctx.root, sessions_root=ctx.sessions_root)


def discover_sources(paths: SourcePaths, store: MemoryStore) -> Discovery:
    """Every store on this machine, ours included (a worker job)."""
    return discover(paths, store)


@dataclass(frozen=True)
class BinContents:
    """Workspace memory's side of the Recycle Bin: archived scopes, stale active ones, crashed purges."""

    archived: list[BinScope]
    stale: list[BinScope]
    interrupted: int

    @property
    def rows(self) -> list[BinScope]:
        return [*self.archived, *self.stale]


def read_bin(bin_: WorkspaceMemoryBin) -> BinContents:
    return BinContents(bin_.archived(), bin_.stale(), len(bin_.interrupted_purges()))
