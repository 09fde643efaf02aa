"""Credential-shaped values hidden on screen: a refused change's diff and editor show dots, not the key.

The review shows what a consolidator proposed, and a refused change is refused precisely because
it holds something that looks like a credential. Showing it in full would put the key on the
screen (and in every screenshot) for no reason, so the views mask the spans
:func:`core.secrets.secret_spans` finds and reveal them only after an explicit click.
"""

from __future__ import annotations

from core.secrets import secret_spans
from core.textdiff import unified_diff

MASK = "••••••••"


def mask_secrets(text: str | None) -> str | None:
    """``text`` with every credential-shaped value replaced by :data:`MASK` (None stays None)."""
    if not text:
        return text
    spans = secret_spans(text)
    if not spans:
        return text
    parts: list[str] = []
    pos = 0
    for start, end, _kind in spans:
        parts.append(text[pos:start])
        parts.append(MASK)
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def has_hidden(*texts: str | None) -> bool:
    return any(t and secret_spans(t) for t in texts)


def masked_diff(before: str | None, after: str | None, diff: str, label: str) -> str:
    """The unified diff of the masked texts (the same hunks, without the values).

    Masking the diff text itself could miss a value the ``+``/``-`` prefixes split from its
    keyword; masking both sides first and diffing them again cannot.
    """
    if not has_hidden(before, after, diff):
        return diff
    if before is None and after is None:
        return mask_secrets(diff) or ""
    old, new = mask_secrets(before) or "", mask_secrets(after) or ""
    old_label = f"a/{label}" if before is not None else "/dev/null"
    new_label = f"b/{label}" if after is not None else "/dev/null"
    return unified_diff(old, new, old_label, new_label)
