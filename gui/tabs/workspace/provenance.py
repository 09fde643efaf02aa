"""Which consolidations wrote the records of a workspace (read on a worker once per load)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import DshMemoryError
from core.store.api import MemoryStore
from core.store.files import RECEIPTS

if TYPE_CHECKING:
    from core.provenance import Origin


def session_titles(sessions_root: Path, dsh_home: Path | None, cwd: str) -> dict[str, str]:
    """Session id -> title for the workspace's sessions still in DSH's sessions folder ({} if unreadable)."""
    from core.sessions import SessionCatalog

    try:
        return {s.id: s.title for s in SessionCatalog(sessions_root, dsh_home).list(cwd, include_subagents=True)}
    except (OSError, DshMemoryError):  # a provenance line without titles beats none
        return {}


def record_origins(
    store: MemoryStore, key: str, sessions_root: Path | None = None, dsh_home: Path | None = None, cwd: str = ""
) -> dict[str, list[Origin]]:
    """Record name -> the committed reviews that put or deleted it there, newest first (with the
    sessions' titles when ``sessions_root`` still holds them)."""
    # Imported here, on the worker: core.consolidation pulls in httpx and asyncio (0.4 s), which the
    # window's start-up should not wait for.
    from core.consolidation.receipts import parse_receipt
    from core.provenance import with_session_titles, written_by

    receipts = []
    for review_id in store.files(RECEIPTS).list():
        text = store.files(RECEIPTS).read(review_id)
        receipt = parse_receipt(text) if text else None
        if receipt is not None and receipt.workspace_key == key:
            receipts.append(receipt)
    names = {c.target.removesuffix(".md") for r in receipts for c in r.changes if c.target.endswith(".md")}
    out = {name: written_by(receipts, key, name) for name in names}
    found = {name: origins for name, origins in out.items() if origins}
    if found and sessions_root is not None and cwd:  # only a workspace a consolidation wrote pays for it
        found = with_session_titles(found, session_titles(sessions_root, dsh_home, cwd))
    return found
