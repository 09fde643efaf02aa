"""How a receipt reads in the window: its status, counts and changes in words, in the user's language.

A receipt on disk (``reviews/<id>.md``) is the English record :mod:`core.consolidation.receipts`
writes for agents and the CLI; the window shows the same facts from the receipt's fields,
translated, and says the counts in words ("4 changes proposed, 1 accepted") instead of the
file's terse ``4 put; 1 accepted``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from PySide6.QtCore import QCoreApplication

from core.consolidation.proposals import ChangeSummary, Receipt

translate = QCoreApplication.translate


def status_label(status: str) -> str:
    labels = {
        "proposed": translate("ReceiptText", "waiting for review"),
        "committed": translate("ReceiptText", "committed"),
        "partially-committed": translate("ReceiptText", "partly committed"),
        "rejected": translate("ReceiptText", "rejected"),
        "no-change": translate("ReceiptText", "nothing to remember"),
        "failed": translate("ReceiptText", "failed"),
        "conflict": translate("ReceiptText", "memory changed meanwhile"),
        "discarded": translate("ReceiptText", "deleted without writing"),
    }
    return labels.get(status, status)


def kind_label(kind: str) -> str:
    labels = {
        "put": translate("ReceiptText", "write record"),
        "delete": translate("ReceiptText", "delete record"),
        "replace_global": translate("ReceiptText", "replace GLOBAL.md"),
        "no_change": translate("ReceiptText", "no change"),
    }
    return labels.get(kind, kind)


def decision_label(decision: str) -> str:
    labels = {
        "pending": translate("ReceiptText", "waiting"),
        "accepted": translate("ReceiptText", "accepted"),
        "rejected": translate("ReceiptText", "rejected"),
        "refused": translate("ReceiptText", "refused by the checks"),
        "edited": translate("ReceiptText", "accepted as edited"),
        "unchanged": translate("ReceiptText", "nothing to write"),
    }
    return labels.get(decision, decision)


def counts_in_words(changes: Iterable[ChangeSummary]) -> str:
    """ "4 changes proposed, 1 accepted, 1 refused by the checks" from the receipt's change list."""
    rows = [c for c in changes if c.kind != "no_change"]
    if not rows:
        return translate("ReceiptText", "no change proposed")
    decisions: Counter[str] = Counter(c.decision for c in rows)
    n = len(rows)
    # English reads "1 change" / "4 changes"; Chinese has one form for both.
    parts = [
        translate("ReceiptText", "1 change proposed")
        if n == 1
        else translate("ReceiptText", "%n changes proposed", "", n)
    ]
    templates = {
        "accepted": translate("ReceiptText", "%n accepted", "", decisions["accepted"]),
        "edited": translate("ReceiptText", "%n accepted as edited", "", decisions["edited"]),
        "rejected": translate("ReceiptText", "%n rejected", "", decisions["rejected"]),
        "refused": translate("ReceiptText", "%n refused by the checks", "", decisions["refused"]),
        "pending": translate("ReceiptText", "%n waiting for review", "", decisions["pending"]),
        "unchanged": translate("ReceiptText", "%n with nothing to write", "", decisions["unchanged"]),
    }
    parts += [text for key, text in templates.items() if decisions[key]]
    return translate("ReceiptText", ", ").join(parts)


def receipt_markdown(receipt: Receipt, title: str = "") -> str:
    """The receipt pane's text: what was reviewed, what happened to each change."""
    head = title or receipt.session_id
    lines = [
        f"## {head}",
        "",
        translate("ReceiptText", "**Status:** {status}").format(status=status_label(receipt.status)),
        "",
        translate("ReceiptText", "**Changes:** {counts}").format(counts=counts_in_words(receipt.changes)),
        "",
        translate("ReceiptText", "- Session `{session}`, seqs {first}–{last}").format(
            session=receipt.session_id, first=receipt.seq_range[0], last=receipt.seq_range[1]
        ),
        translate("ReceiptText", "- Workspace `{key}` ({cwd})").format(key=receipt.workspace_key, cwd=receipt.cwd),
        translate("ReceiptText", "- Consolidator: {name}").format(
            name=receipt.consolidator + (f" ({receipt.model})" if receipt.model else "")
        ),
        translate("ReceiptText", "- Last updated: {when}").format(when=receipt.updated[:16].replace("T", " ")),
        translate("ReceiptText", "- Receipt file: `reviews/{id}.md`").format(id=receipt.review_id),
    ]
    if receipt.error:
        lines.append(translate("ReceiptText", "- Error: {error}").format(error=receipt.error))
    if receipt.changes:
        lines += [
            "",
            "| {} | {} | {} |".format(
                translate("ReceiptText", "Change"),
                translate("ReceiptText", "File"),
                translate("ReceiptText", "Decision"),
            ),
            "|---|---|---|",
        ]
        for c in receipt.changes:
            lines.append(f"| {kind_label(c.kind)} | {c.target or '-'} | {decision_label(c.decision)} |")
    return "\n".join(lines) + "\n"
