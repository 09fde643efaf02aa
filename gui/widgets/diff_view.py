"""A read-only view that colours unified diffs (``core.textdiff`` makes them)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from gui.widgets.fonts import monospace_font


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

    def set_diff(self, text: str, empty_message: str | None = None) -> None:
        self.setPlainText(text if text else empty_message if empty_message is not None else self.tr("No changes."))

    def diff_text(self) -> str:
        return self.toPlainText()
