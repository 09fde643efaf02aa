"""Find every memory store on this machine and read each into a :class:`SourceSnapshot` (read-only).

Where each store lives comes from ``DSH_HOME`` and ``HOME`` (a :class:`SourcePaths` value, so
tests and the GUI can point it anywhere). Project memory lives inside workspaces, so it is looked
for in the cwd of every workspace we know of: our own workspaces (active and archived), DSH
sessions, workspace-memory scopes and cross-workspace projects. The same cwds map Claude Code
folders to workspaces.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.keys import normalize_cwd
from core.sources import claude_code, cross_workspace, project_memory, workspace_memory
from core.sources.files import is_dir
from core.sources.models import ForeignEntry, SourceKind, SourceProblem, SourceScope, SourceSnapshot
from core.store.api import MemoryStore


def _blank(value: str | None) -> bool:
    return value is None or not value.strip()


@dataclass(frozen=True)
class SourcePaths:
    """Where to look. ``memory_root`` is our own root (cross-workspace ``memory.json`` lives there)."""

    dsh_home: Path
    home: Path
    memory_root: Path | None = None
    sessions_root: Path | None = None

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        memory_root: Path | None = None,
        sessions_root: Path | None = None,
    ) -> SourcePaths:
        env = os.environ if env is None else env
        home_text = env.get("HOME")
        home = Path(home_text.strip()) if home_text and not _blank(home_text) else Path(os.path.expanduser("~"))
        dsh_text = env.get("DSH_HOME")
        dsh = Path(os.path.expanduser(dsh_text.strip())) if dsh_text and not _blank(dsh_text) else home / ".dsh"
        return cls(dsh_home=dsh, home=home, memory_root=memory_root, sessions_root=sessions_root)

    @property
    def workspace_memory(self) -> Path:
        return self.dsh_home / "workspace-memory"

    @property
    def claude_projects(self) -> Path:
        return self.home / ".claude" / "projects"

    @property
    def cross_workspace_files(self) -> tuple[Path, ...]:
        roots = [self.memory_root] if self.memory_root is not None else []
        roots.append(self.dsh_home / "memory")
        unique = dict.fromkeys(Path(os.path.abspath(r)) / cross_workspace.FILE_NAME for r in roots)
        return tuple(unique)

    @property
    def resolved_sessions_root(self) -> Path:
        return self.sessions_root if self.sessions_root is not None else self.dsh_home / "sessions"


@dataclass(frozen=True)
class Discovery:
    """Every store found, and every workspace cwd known while looking (for mapping and ``--cwd``)."""

    sources: tuple[SourceSnapshot, ...]
    known_cwds: tuple[str, ...]

    def of_kind(self, kind: SourceKind) -> list[SourceSnapshot]:
        return [s for s in self.sources if s.kind == kind]

    def entries_for(self, cwd: str) -> list[ForeignEntry]:
        """Entries other stores hold for workspace ``cwd`` (every status: shown, never hidden)."""
        target = normalize_cwd(cwd)
        return [
            e
            for s in self.sources
            if s.kind != "markdown"
            for e in s.entries
            if e.cwd is not None and os.path.isabs(e.cwd) and normalize_cwd(e.cwd) == target
        ]


def markdown_snapshot(store: MemoryStore) -> SourceSnapshot:
    """Our own store, summarized like the others (entries are counted, not loaded)."""
    active = store.list_workspaces()
    archived = store.list_workspaces(archived=True)
    root = store.root
    scopes: list[SourceScope] = []
    problems: list[SourceProblem] = []
    for info, is_archived in [(i, False) for i in active] + [(i, True) for i in archived]:
        folder = (root / ("archived" if is_archived else "workspaces") / info.key) if root is not None else None
        scopes.append(
            SourceScope(
                key=info.key,
                cwd=info.cwd or None,
                path=str(folder) if folder is not None else info.key,
                archived=is_archived,
                entries=info.record_count,
                cwd_exists=info.cwd_exists,
            )
        )
        if info.scope_problem:
            problems.append(SourceProblem(path=str(folder or info.key), reason=info.scope_problem))
        if info.invalid_count:
            problems.append(
                SourceProblem(path=str(folder or info.key), reason=f"{info.invalid_count} invalid record(s)")
            )
    return SourceSnapshot(
        kind="markdown",
        path=str(root) if root is not None else "(in memory)",
        scopes=tuple(scopes),
        problems=tuple(problems),
        entry_count=sum(i.record_count for i in active),
    )


def _session_cwds(paths: SourcePaths) -> list[str]:
    root = paths.resolved_sessions_root
    if not is_dir(root):
        return []
    from core.errors import DshMemoryError
    from core.sessions import SessionCatalog

    try:
        groups = SessionCatalog(sessions_root=root, dsh_home=paths.dsh_home).workspaces(include_subagents=True)
    except DshMemoryError:
        return []
    return [g.cwd for g in groups if g.cwd and os.path.isabs(g.cwd)]


def _absolute(cwds: Iterable[str | None]) -> list[str]:
    return [c for c in cwds if c and os.path.isabs(c)]


def read_source(
    kind: SourceKind,
    path: Path,
    *,
    known_cwds: Sequence[str] = (),
    cwd: str | None = None,
) -> SourceSnapshot:
    """One store at an explicit ``path`` (``--path``): what ``discover`` would read there.

    ``cwd`` is the workspace the user says it belongs to: required for a ``project_memory``
    folder (or a workspace folder holding one), and for a Claude Code folder that no known cwd
    maps to unambiguously.
    """
    path = Path(os.path.abspath(path))
    if kind == "workspace-memory":
        return workspace_memory.read_workspace_memory(path)
    if kind == "cross-workspace":
        return cross_workspace.read_cross_workspace(path / cross_workspace.FILE_NAME if is_dir(path) else path)
    if kind == "project-memory":
        folder = path if path.name == project_memory.FOLDER else path / project_memory.FOLDER
        # The folder sits in its workspace, so its parent is the cwd unless the user says otherwise.
        return project_memory.read_project_memory(folder, normalize_cwd(cwd) if cwd else str(folder.parent))
    if kind == "claude-code":
        if is_dir(path / "memory"):  # one project folder
            assign = {path.name: normalize_cwd(cwd)} if cwd else {}
            snap = claude_code.read_claude_code(path.parent, known_cwds, assign)
            return snap.model_copy(
                update={
                    "path": str(path),
                    "scopes": tuple(s for s in snap.scopes if s.key == path.name),
                    "entries": tuple(e for e in snap.entries if e.scope == path.name),
                    "problems": tuple(p for p in snap.problems if p.path.startswith(str(path))),
                }
            )
        assign = {}
        if cwd:
            assign = {claude_code.encode_project(normalize_cwd(cwd)): normalize_cwd(cwd)}
        return claude_code.read_claude_code(path, known_cwds, assign)
    raise ValueError(f"not a foreign store kind: {kind}")


def discover(
    paths: SourcePaths,
    store: MemoryStore | None = None,
    *,
    extra_cwds: Iterable[str] = (),
    claude_cwd: str | None = None,
) -> Discovery:
    """Every store found under ``paths`` (plus our own, when ``store`` is given), read now.

    ``claude_cwd`` assigns the Claude Code folder that cwd encodes to (the user's ``--cwd``),
    which settles an ambiguous folder.
    """
    sources: list[SourceSnapshot] = []
    known: list[str] = list(_absolute(extra_cwds))
    if store is not None:
        ours = markdown_snapshot(store)
        sources.append(ours)
        known += _absolute(s.cwd for s in ours.scopes)
    known += _session_cwds(paths)
    if is_dir(paths.workspace_memory):
        wm = workspace_memory.read_workspace_memory(paths.workspace_memory)
        sources.append(wm)
        known += _absolute(s.cwd for s in wm.scopes)
    for file in paths.cross_workspace_files:
        if file.exists() and not file.is_dir():  # a FIFO or device is reported by the reader, not skipped
            cw = cross_workspace.read_cross_workspace(file)
            sources.append(cw)
            known += _absolute(s.cwd for s in cw.scopes)
    known_cwds = tuple(dict.fromkeys(normalize_cwd(c) for c in known))
    if is_dir(paths.claude_projects):
        assign = {}
        if claude_cwd:
            assign = {claude_code.encode_project(normalize_cwd(claude_cwd)): normalize_cwd(claude_cwd)}
        sources.append(claude_code.read_claude_code(paths.claude_projects, known_cwds, assign))
    for cwd in known_cwds:
        folder = Path(cwd) / project_memory.FOLDER
        if is_dir(folder):
            sources.append(project_memory.read_project_memory(folder, cwd))
    return Discovery(sources=tuple(sources), known_cwds=known_cwds)
