"""Core's reasons in the user's language.

Core writes each reason from one template in :mod:`core.messages` (English, Qt-free, persisted as
text in reviews and receipts). Here a reason is matched back to its template and the translated
template is filled with the same values. A text that matches no template — an older receipt, a
reason from a file's own content, a template without a translation yet — is shown as it is: a
half-translated line would be worse than an English one.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QCoreApplication

from core import messages


def core_text(text: str) -> str:
    found = messages.parse(text)
    if found is None:
        return text
    template, values = found
    # A value can itself be a reason ("record 'x'" inside a refusal): translate it the same way.
    values = {key: core_text(value) for key, value in values.items()}
    translated = QCoreApplication.translate(messages.CONTEXT, template.text)
    if not translated or translated == template.text:
        return text
    try:
        return translated.format(**values)
    except (KeyError, IndexError, ValueError):  # a translation with a broken placeholder
        return text


def core_texts(texts: Iterable[str]) -> list[str]:
    return [core_text(t) for t in texts]


def core_note(note: str) -> str:
    """A review row's note ("✖ reason" / "⚠ reason"): the mark kept, the reason translated."""
    mark, sep, rest = note.partition(" ")
    if sep and mark in ("✖", "⚠"):
        return f"{mark} {core_text(rest)}"
    return core_text(note)
