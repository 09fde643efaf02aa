"""Which foreign entries an import takes: live ones, grouped into one target per workspace plus one for Global."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass

from core.consolidation.service import review_id_for
from core.keys import normalize_cwd, workspace_key
from core.sources.models import ForeignEntry, SourceKind, SourceSnapshot

GLOBAL_TARGET = "global"


def consolidator_name(kind: SourceKind) -> str:
    return f"import:{kind}"


@dataclass(frozen=True)
class Skipped:
    """A foreign entry the import leaves out, and why (shown with the reviews)."""

    entry: ForeignEntry
    reason: str


@dataclass(frozen=True)
class ImportTarget:
    """The entries that go to one workspace (``cwd``) or, with ``cwd`` None, to Global."""

    kind: SourceKind
    cwd: str | None
    entries: tuple[ForeignEntry, ...]

    @property
    def is_global(self) -> bool:
        return self.cwd is None

    @property
    def key(self) -> str:
        return GLOBAL_TARGET if self.cwd is None else workspace_key(self.cwd)

    @property
    def session_id(self) -> str:
        return f"{consolidator_name(self.kind)}:{self.key}"

    @property
    def revision(self) -> str:
        """Content hash of the entries: the same foreign content gives the same review id."""
        data = [
            [e.source, e.scope, e.id, e.kind, e.title, e.description, e.text, e.status, e.status_detail]
            for e in self.entries
        ]
        raw = json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8")
        return hashlib.sha256(raw).hexdigest()[:16]

    @property
    def review_id(self) -> str:
        return review_id_for(self.session_id, self.revision, consolidator_name(self.kind), "")


@dataclass(frozen=True)
class ImportPlan:
    kind: SourceKind
    targets: tuple[ImportTarget, ...]
    skipped: tuple[Skipped, ...] = ()


def plan_import(kind: SourceKind, sources: Sequence[SourceSnapshot], *, cwd: str | None = None) -> ImportPlan:
    """Group the live entries of every ``kind`` snapshot into targets; ``cwd`` keeps only that workspace."""
    only = normalize_cwd(cwd) if cwd else None
    skipped: list[Skipped] = []
    by_target: dict[str | None, list[ForeignEntry]] = {}
    for snap in sources:
        if snap.kind != kind:
            continue
        for e in snap.entries:
            own = normalize_cwd(e.cwd) if e.cwd and os.path.isabs(e.cwd) else None
            if only is not None and own != only and not (e.global_fact and own is None):
                continue
            if not e.is_live:
                skipped.append(Skipped(e, f"{e.status}: {e.status_detail or 'not a live entry'}"))
                continue
            if e.source == "cross-workspace" and e.kind == "activity":
                skipped.append(Skipped(e, "a progress note (activity), not a durable fact"))
                continue
            if e.global_fact:
                by_target.setdefault(None, []).append(e)
            elif own is None:
                why = "belongs to no workspace we could determine"
                if e.source == "claude-code":
                    why = "its Claude Code folder maps to no single known workspace; import it with --cwd"
                elif e.source == "cross-workspace":
                    why = f"belongs to {e.scope!r}, which is not a folder path on this machine"
                skipped.append(Skipped(e, why))
            else:
                by_target.setdefault(own, []).append(e)
    targets = [ImportTarget(kind, c, tuple(es)) for c, es in sorted(by_target.items(), key=lambda kv: kv[0] or "")]
    # Workspaces first (sorted by cwd), Global last.
    targets.sort(key=lambda t: (t.cwd is None, t.cwd or ""))
    return ImportPlan(kind=kind, targets=tuple(targets), skipped=tuple(skipped))
