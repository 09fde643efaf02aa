"""The review queue for stale memory: what in a workspace deserves a second look, and why.

Four reasons, each a :class:`StaleItem` with keep / edit / delete left to the user:

- **old**: not changed for ``older_than_days`` (file mtime);
- **broken-links**: ``[[name]]`` links to records that don't exist in the workspace;
- **near-duplicate**: says nearly what another record says (``core.consolidation.similarity``);
- **missing-files**: mentions paths (``src/app.py``, ``docs/CHANGELOG.md``) that no longer exist in
  the workspace folder (checked only when the folder exists; URLs are not paths).

"Mark reviewed" is kept outside the record (the design note wants frontmatter for the agent, not
for bookkeeping): ``reviewed`` maps a record name to when it was marked, and a record marked after
its last change is left out of the queue until it changes again.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from core.consolidation.similarity import most_similar
from core.models import WorkspaceSnapshot

Reason = Literal["old", "broken-links", "near-duplicate", "missing-files"]
_LINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
# A relative path with a folder or a file extension: "src/app.py", "docs/", "Makefile.am"; backticks
# and quotes around it are common in notes.
_PATH = re.compile(
    r"(?<![\w/.~-])((?:[\w.-]+/)+[\w.-]*|[\w-]+\.(?:py|ts|tsx|js|jsx|md|toml|ya?ml|json|rs|go|sh|cfg|ini|txt))(?![\w/])"
)


@dataclass(frozen=True)
class StaleItem:
    name: str
    reason: Reason
    detail: str  # what to look at, in words: "links to [[x]], [[y]]", "similar to [[z]], 87 %", ...


def _mentioned_paths(text: str) -> list[str]:
    text = _URL.sub(" ", text)
    out: list[str] = []
    for m in _PATH.finditer(text):
        path = m.group(1).rstrip(".")
        if path.startswith(("/", "~")) or ".." in path.split("/") or len(path) < 3:
            continue
        out.append(path)
    return list(dict.fromkeys(out))


def stale_items(
    snapshot: WorkspaceSnapshot,
    *,
    older_than_days: int = 180,
    reviewed: Mapping[str, datetime] | None = None,
    now: datetime | None = None,
) -> list[StaleItem]:
    """Every reason each record of ``snapshot`` deserves a look, in record-name order."""
    now = now or datetime.now(UTC)
    reviewed = reviewed or {}
    records = snapshot.records()
    names = {r.name for r in records}
    changed = {e.name: datetime.fromtimestamp(e.mtime_ns / 1e9, UTC) for e in snapshot.entries if e.mtime_ns}
    folder = snapshot.info.cwd if os.path.isdir(snapshot.info.cwd) else None
    items: list[StaleItem] = []
    for record in sorted(records, key=lambda r: r.name):
        when = changed.get(record.name)
        marked = reviewed.get(record.name)
        if marked is not None and (when is None or marked >= when):
            continue
        if when is not None and now - when > timedelta(days=older_than_days):
            items.append(StaleItem(record.name, "old", f"not changed for {(now - when).days} days"))
        broken = sorted({m.group(1).strip() for m in _LINK.finditer(record.body)} - names)
        if broken:
            items.append(StaleItem(record.name, "broken-links", "links to " + ", ".join(f"[[{b}]]" for b in broken)))
        similar = most_similar(record, records)
        if similar is not None:
            items.append(StaleItem(record.name, "near-duplicate", f"similar to [[{similar.name}]], {similar.score} %"))
        if folder is not None:
            missing = [p for p in _mentioned_paths(record.body) if not os.path.lexists(os.path.join(folder, p))]
            if missing:
                items.append(StaleItem(record.name, "missing-files", "mentions " + ", ".join(missing[:5])))
    return items
