"""Unified diffs as text, and a read-only view that colours them."""

from __future__ import annotations

import difflib

from PySide6.QtGui import QColor, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from gui.widgets.fonts import monospace_font


def unified_diff(old: str, new: str, old_label: str, new_label: str | None = None, context: int = 3) -> str:
    """``diff -u`` of two texts; "" when they are equal. Missing final newlines are marked."""
    if old == new:
        return ""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    for lines in (old_lines, new_lines):
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
    out = difflib.unified_diff(old_lines, new_lines, old_label, new_label or old_label, n=context)
    return "".join(out)


class _DiffHighlighter(QSyntaxHighlighter):
    def __init__(self, doc: QTextDocument) -> None:
        super().__init__(doc)

        def fmt(fg: str, bg: str | None = None, bold: bool = False) -> QTextCharFormat:
            f = QTextCharFormat()
            f.setForeground(QColor(fg))
            if bg:
                f.setBackground(QColor(bg))
            if bold:
                f.setFontWeight(700)
            return f

        self._add = fmt("#14501b", "#e6ffec")
        self._del = fmt("#7a1010", "#ffebe9")
        self._hunk = fmt("#5a3ea8")
        self._head = fmt("#333333", None, bold=True)

    def highlightBlock(self, text: str) -> None:
        if text.startswith(("+++", "---")) or text.startswith("== "):
            self.setFormat(0, len(text), self._head)
        elif text.startswith("+"):
            self.setFormat(0, len(text), self._add)
        elif text.startswith("-"):
            self.setFormat(0, len(text), self._del)
        elif text.startswith("@@"):
            self.setFormat(0, len(text), self._hunk)


class DiffView(QPlainTextEdit):
    """Read-only, monospace, coloured unified diff."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFont(monospace_font())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self._highlighter = _DiffHighlighter(self.document())

    def set_diff(self, text: str, empty_message: str = "No changes.") -> None:
        self.setPlainText(text if text else empty_message)

    def diff_text(self) -> str:
        return self.toPlainText()
