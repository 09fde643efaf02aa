"""Reading DSH's own workspace registry, ``$DSH_HOME/storages/workspace.json`` (read-only, tolerant).

Accepted shape (what DSH writes, as far as public material shows)::

    {"global": {"workspaceIds": [...], "archivedSessionIds": ["id", ...], "pinnedSessionIds": [...]},
     "tables": {"workspaces": {"<ws-id>": {"id", "path", "title", "sessionIds": [...], ...}}}}

Also tolerated: workspaces as a list or a ``{"workspaces": ...}`` mapping at the top level;
the folder under ``path``/``cwd``/``root``/``directory``; the name under ``title``/``name``/
``label``; archived ids under ``archivedSessionIds``/``archivedSessions``/``archived`` at the
top level, under ``global``, or per workspace (strings or ``{"id": ...}`` objects); sessions
listed as ``{"id", "archived": true}``. Anything else is ignored; a broken file is an empty
registry, never an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import keys
from core.foreign import load_json, read_capped

_PATH_KEYS = ("path", "cwd", "root", "directory", "folder")
_TITLE_KEYS = ("title", "name", "label")
_ARCHIVE_KEYS = ("archivedSessionIds", "archivedSessions", "archived", "archived_session_ids")


@dataclass(frozen=True)
class WorkspaceRegistry:
    """Workspace titles by workspace key and archived session ids, from DSH's registry."""

    titles: Mapping[str, str] = field(default_factory=dict)
    archived_session_ids: frozenset[str] = frozenset()


def _ids(value: Any) -> Iterable[str]:
    if isinstance(value, list):
        for item in value:
            if isinstance(item, str) and item:
                yield item
            elif isinstance(item, Mapping):
                ident = item.get("id", item.get("sessionId"))
                if isinstance(ident, str) and ident:
                    yield ident
    elif isinstance(value, Mapping):
        # {"<id>": true} style
        for key, flag in value.items():
            if isinstance(key, str) and flag:
                yield key


def _workspace_entries(doc: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    containers: list[Any] = []
    tables = doc.get("tables")
    if isinstance(tables, Mapping):
        containers.append(tables.get("workspaces"))
    containers.append(doc.get("workspaces"))
    for container in containers:
        if isinstance(container, Mapping):
            yield from (v for v in container.values() if isinstance(v, Mapping))
        elif isinstance(container, list):
            yield from (v for v in container if isinstance(v, Mapping))


def parse_registry(doc: Any) -> WorkspaceRegistry:
    if isinstance(doc, list):
        doc = {"workspaces": doc}
    if not isinstance(doc, Mapping):
        return WorkspaceRegistry()
    titles: dict[str, str] = {}
    archived: set[str] = set()
    for scope in (doc, doc.get("global")):
        if isinstance(scope, Mapping):
            for key in _ARCHIVE_KEYS:
                if key != "archived" or not isinstance(scope.get(key), bool):
                    archived.update(_ids(scope.get(key)))
    for entry in _workspace_entries(doc):
        path = next((entry[k] for k in _PATH_KEYS if isinstance(entry.get(k), str) and entry[k].strip()), None)
        title = next((entry[k] for k in _TITLE_KEYS if isinstance(entry.get(k), str) and entry[k].strip()), None)
        if path is not None and title is not None and os.path.isabs(path):
            titles[keys.workspace_key(path)] = title.strip()
        for key in _ARCHIVE_KEYS:
            if not isinstance(entry.get(key), bool):
                archived.update(_ids(entry.get(key)))
        sessions = entry.get("sessions")
        if isinstance(sessions, list):
            for item in sessions:
                if isinstance(item, Mapping) and item.get("archived") is True:
                    ident = item.get("id")
                    if isinstance(ident, str) and ident:
                        archived.add(ident)
    return WorkspaceRegistry(titles=titles, archived_session_ids=frozenset(archived))


def registry_path(dsh_home: str | os.PathLike[str]) -> Path:
    return Path(dsh_home) / "storages" / "workspace.json"


def read_registry(dsh_home: str | os.PathLike[str] | None) -> WorkspaceRegistry:
    """The registry under ``dsh_home``; an empty one when absent or unreadable."""
    if dsh_home is None:
        return WorkspaceRegistry()
    try:
        raw, _st = read_capped(registry_path(dsh_home))  # DSH writes it: read through the bounded door
        doc = load_json(raw)
    except (OSError, ValueError):  # ForeignDataError (too large, too deep, not JSON) is a ValueError
        return WorkspaceRegistry()
    return parse_registry(doc)
