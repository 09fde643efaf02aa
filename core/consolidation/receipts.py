"""Receipts (``reviews/<review-id>.md``): Markdown with YAML frontmatter, no conversation or memory text.

A receipt names the source session and its revision, the workspace, the seq range, the
consolidator and model, the status, the revisions before/after, the proposal hash and one line
per change (kind, target file, decision). Reasons, descriptions, bodies and evidence stay out.
"""

from __future__ import annotations

import yaml
from pydantic import ValidationError

from core.consolidation.proposals import Receipt

_HEADER = "---\n"


def render_receipt(receipt: Receipt) -> str:
    data = receipt.model_dump(mode="json")
    data["seq_range"] = list(receipt.seq_range)
    front = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
    lines = [
        f"# Review {receipt.review_id}: {receipt.status}",
        "",
        f"- Session `{receipt.session_id}` (revision `{receipt.session_revision}`), "
        f"seqs {receipt.seq_range[0]}–{receipt.seq_range[1]}",
        f"- Workspace `{receipt.workspace_key}` ({receipt.cwd})",
        f"- Consolidator: {receipt.consolidator}" + (f" ({receipt.model})" if receipt.model else ""),
        f"- Global: `{receipt.global_revision_before}` → `{receipt.global_revision_after or '-'}`",
        f"- Workspace: `{receipt.workspace_revision_before}` → `{receipt.workspace_revision_after or '-'}`",
    ]
    if receipt.summary:
        lines.append(f"- Summary: {receipt.summary}")
    if receipt.error:
        lines.append(f"- Error: {receipt.error}")
    if receipt.changes:
        lines += ["", "| change | operation | file | decision |", "|---|---|---|---|"]
        for c in receipt.changes:
            lines.append(f"| {c.id} | {c.kind} | {c.target or '-'} | {c.decision} |")
    return _HEADER + front + _HEADER + "\n" + "\n".join(lines) + "\n"


def parse_receipt(text: str) -> Receipt | None:
    """The receipt in ``text``, or None when it is not one this app wrote (never raises)."""
    if not text.startswith(_HEADER):
        return None
    end = text.find("\n---\n", len(_HEADER) - 1)
    if end < 0:
        return None
    try:
        data = yaml.safe_load(text[len(_HEADER) : end + 1])
        if not isinstance(data, dict):
            return None
        if isinstance(data.get("seq_range"), list):
            data["seq_range"] = tuple(data["seq_range"])
        return Receipt.model_validate(data)
    except (yaml.YAMLError, ValidationError):
        return None
