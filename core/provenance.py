"""Provenance: which consolidation (receipt, session, seqs) created or changed a record, and back.

Receipts never hold memory bodies, but each lists the changes it made with their target file and
decision, which is enough to link both ways: from a record to the reviews that wrote it, and from
a receipt to the records it touched.

Receipts name the session by id only: a session's title is its first prompt, and receipts
deliberately hold no conversation text (tests/core/consolidation/test_consolidation_privacy.py
plants a marker in the title to keep it that way). The window looks the title up in DSH's
sessions folder when it shows a record's provenance (:func:`with_session_titles`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from core.consolidation.proposals import Receipt

_WRITTEN = frozenset({"accepted", "edited"})
_COMMITTED = frozenset({"committed", "partially-committed"})


@dataclass(frozen=True)
class Origin:
    """One review that wrote a record."""

    review_id: str
    session_id: str
    seq_range: tuple[int, int]
    consolidator: str
    when: str  # ISO-8601, the receipt's update time
    kind: str  # "put" or "delete"
    session_title: str = ""  # from the sessions folder, when the session is still there


def written_by(receipts: Iterable[Receipt], workspace_key: str, name: str) -> list[Origin]:
    """The committed reviews that put or deleted ``name`` in the workspace, newest first."""
    target = f"{name}.md"
    out = [
        Origin(r.review_id, r.session_id, r.seq_range, r.consolidator, r.updated, c.kind)
        for r in receipts
        if r.workspace_key == workspace_key and r.status in _COMMITTED
        for c in r.changes
        if c.target == target and c.decision in _WRITTEN
    ]
    return sorted(out, key=lambda o: o.when, reverse=True)


def touched(receipt: Receipt) -> list[str]:
    """The record names (and ``GLOBAL.md``) a committed receipt wrote, in its order."""
    if receipt.status not in _COMMITTED:
        return []
    names = [c.target.removesuffix(".md") if c.target != "GLOBAL.md" else c.target for c in receipt.changes]
    return [n for n, c in zip(names, receipt.changes, strict=True) if c.decision in _WRITTEN]


def with_session_titles(origins: dict[str, list[Origin]], titles: dict[str, str]) -> dict[str, list[Origin]]:
    """``origins`` with each session's title filled in from ``titles`` (session id -> title)."""
    return {
        name: [replace(o, session_title=titles.get(o.session_id, o.session_title)) for o in items]
        for name, items in origins.items()
    }
