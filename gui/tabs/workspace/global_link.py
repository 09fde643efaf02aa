"""A Global search hit opens the Global tab at its section: find the heading in the editor."""

from __future__ import annotations

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit


def reveal_heading(editor: QPlainTextEdit, heading: str) -> bool:
    """Put the cursor on the Markdown heading line ``heading`` (any level) and scroll it to the top
    of the editor; False when there is no such heading (the editor is left where it was)."""
    wanted = heading.strip().lstrip("#").strip().lower()
    if not wanted:
        return False
    block = editor.document().firstBlock()
    while block.isValid():
        line = block.text().strip()
        if line.startswith("#") and line.lstrip("#").strip().lower() == wanted:
            cursor = QTextCursor(block)
            editor.setTextCursor(cursor)
            # Scroll so the heading is the first line shown: to the end first, then back to it.
            bar = editor.verticalScrollBar()
            bar.setValue(bar.maximum())
            editor.ensureCursorVisible()
            editor.setFocus()
            return True
        block = block.next()
    return False
