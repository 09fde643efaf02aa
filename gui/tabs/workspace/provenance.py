"""Which consolidations wrote the records of a workspace (read on a worker once per load)."""

from __future__ import annotations

from core.consolidation.receipts import parse_receipt
from core.provenance import Origin, written_by
from core.store.api import MemoryStore


def record_origins(store: MemoryStore, key: str) -> dict[str, list[Origin]]:
    """Record name -> the committed reviews that put or deleted it there, newest first."""
    receipts = []
    for review_id in store.list_receipts():
        text = store.read_receipt(review_id)
        receipt = parse_receipt(text) if text else None
        if receipt is not None and receipt.workspace_key == key:
            receipts.append(receipt)
    names = {c.target.removesuffix(".md") for r in receipts for c in r.changes if c.target.endswith(".md")}
    out = {name: written_by(receipts, key, name) for name in names}
    return {name: origins for name, origins in out.items() if origins}
