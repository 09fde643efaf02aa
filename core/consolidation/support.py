"""What the user said behind a change: the words at its cited seqs, and whether they back it.

The review shows, for each change, the user's words at the seqs it cites (an answer given through
``ask_user_question`` counts: it is the user's). A change whose cited seqs don't mention its key
words — a model citing seq 3 for a fact said at seq 9, or said by nobody — is flagged
"unsupported by the cited evidence" so the user reads it before accepting.
"""

from __future__ import annotations

from collections.abc import Sequence

from core import messages as M
from core.consolidation.base import ConsolidationInput
from core.consolidation.supersede import content_words
from core.models import Record

SUPPORT_SHARE = 0.34
"""At least this share of a record's description words must occur in the cited messages
(paraphrases keep a third of the words; a fact from elsewhere keeps almost none)."""


def cited_messages(request: ConsolidationInput, seqs: Sequence[int]) -> tuple[tuple[int, str, str], ...]:
    """``(seq, role, text)`` of the messages at ``seqs``, in seq order (unknown seqs are left out)."""
    wanted = set(seqs)
    return tuple(
        (m.seq, m.role, m.text)
        for t in request.evidence.turns
        for m in t.messages
        if m.seq in wanted
    )


def user_quotes(request: ConsolidationInput, seqs: Sequence[int]) -> tuple[tuple[int, str], ...]:
    """The user's own words at ``seqs`` (answers to ``ask_user_question`` included)."""
    return tuple((seq, text) for seq, role, text in cited_messages(request, seqs) if role == "user")


def unsupported_words(record: Record, request: ConsolidationInput, seqs: Sequence[int]) -> list[str] | None:
    """The record's key words missing from its cited messages, when too few are there; else None.

    A change that cites nothing is not judged here (imports and hand edits have no session seqs).
    """
    if not seqs:
        return None
    keys = content_words(record.description) or content_words(record.body)
    if not keys:
        return None
    said: set[str] = set()
    for _seq, _role, text in cited_messages(request, seqs):
        said |= content_words(text)
    if len(keys & said) >= SUPPORT_SHARE * len(keys):
        return None
    return sorted(keys - said)[:4]


def support_warning(record: Record, request: ConsolidationInput, seqs: Sequence[int]) -> str | None:
    missing = unsupported_words(record, request, seqs)
    if missing is None:
        return None
    return M.UNSUPPORTED.format(seqs=", ".join(map(str, seqs)), words=", ".join(missing))
