"""How one proposed change is shown: a unified diff or a side-by-side view of before and after."""

from __future__ import annotations

import difflib

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSplitter,
    QStackedWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from gui.widgets.diff_view import DiffView
from gui.widgets.fonts import monospace_font
from gui.widgets.review_mask import has_hidden, mask_secrets, masked_diff

_COLOURS = {"delete": "#ffebe9", "insert": "#e6ffec", "replace": "#fff5d6", "pad": "#f3f3f3"}


def side_by_side_rows(before: str, after: str) -> list[tuple[str | None, str | None, str]]:
    """Aligned (left, right, kind) rows; a None side is padding; kind: equal/delete/insert/replace."""
    a, b = before.splitlines(), after.splitlines()
    rows: list[tuple[str | None, str | None, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [(a[i], b[j], "equal") for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
        else:
            left, right = a[i1:i2], b[j1:j2]
            for k in range(max(len(left), len(right))):
                rows.append((left[k] if k < len(left) else None, right[k] if k < len(right) else None, tag))
    return rows


class _Side(QPlainTextEdit):
    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        self.setFont(monospace_font())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)

    def show_lines(self, lines: list[tuple[str | None, str]], colour_kind: str) -> None:
        self.setPlainText("\n".join("" if text is None else text for text, _ in lines))
        selections = []
        block = self.document().firstBlock()
        for text, kind in lines:
            colour = _COLOURS["pad"] if text is None else _COLOURS.get(kind)
            if (kind, colour_kind) in (("insert", "left"), ("delete", "right")):
                colour = _COLOURS["pad"]
            if kind != "equal" and colour:
                sel = QTextEdit.ExtraSelection()
                sel.format.setBackground(QColor(colour))
                sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                cursor = QTextCursor(block)
                sel.cursor = cursor
                selections.append(sel)
            block = block.next()
        self.setExtraSelections(selections)


class SideBySideView(QSplitter):
    """Before on the left, after on the right, aligned line by line, scrolling together."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.left = _Side()
        self.right = _Side()
        self.left.setObjectName("diffBefore")
        self.right.setObjectName("diffAfter")
        self.addWidget(self.left)
        self.addWidget(self.right)
        self.left.verticalScrollBar().valueChanged.connect(self.right.verticalScrollBar().setValue)
        self.right.verticalScrollBar().valueChanged.connect(self.left.verticalScrollBar().setValue)

    def set_texts(self, before: str | None, after: str | None) -> None:
        rows = side_by_side_rows(before or "", after or "")
        self.left.show_lines([(lt, kind) for lt, _, kind in rows], "left")
        self.right.show_lines([(rt, kind) for _, rt, kind in rows], "right")
        if before is None:
            self.left.setPlainText(self.tr("(does not exist yet)"))
        if after is None:
            self.right.setPlainText(self.tr("(deleted)"))


class ChangeDiffPanel(QWidget):
    """A caption, a Unified / Side by side switch, and the two views.

    Credential-shaped values are masked (:mod:`gui.widgets.review_mask`) until "Show hidden
    values" is clicked; the next change shown is masked again.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown: tuple[str, str | None, str | None, str, str] = ("", None, None, "", "")
        self._has_change = False
        self.caption = QLabel()
        self.caption.setObjectName("diffCaption")
        self.caption.setWordWrap(True)
        self.reveal_button = QPushButton(self.tr("Show hidden values"))
        self.reveal_button.setObjectName("revealSecrets")
        self.reveal_button.setCheckable(True)
        self.reveal_button.setToolTip(
            self.tr("This change holds what looks like a credential; it is hidden. Click to show it.")
        )
        self.reveal_button.hide()
        self.reveal_button.toggled.connect(lambda _on: self._render())
        self.unified_button = QRadioButton(self.tr("Unified"))
        self.side_button = QRadioButton(self.tr("Side by side"))
        self.unified_button.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.unified_button)
        group.addButton(self.side_button)
        self.unified = DiffView()
        self.unified.setObjectName("unifiedDiff")
        self.side_by_side = SideBySideView()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.unified)
        self.stack.addWidget(self.side_by_side)
        self.side_button.toggled.connect(lambda on: self.stack.setCurrentIndex(1 if on else 0))

        top = QHBoxLayout()
        top.addWidget(self.caption, 1)
        top.addWidget(self.reveal_button)
        top.addWidget(self.unified_button)
        top.addWidget(self.side_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)

    def show_change(self, caption: str, before: str | None, after: str | None, diff: str, label: str = "") -> None:
        self._has_change = True
        self._shown = (caption, before, after, diff, label)
        hidden = has_hidden(before, after, diff)
        self.reveal_button.blockSignals(True)
        self.reveal_button.setChecked(False)  # every change starts masked
        self.reveal_button.blockSignals(False)
        self.reveal_button.setVisible(hidden)
        self._render()

    @property
    def revealed(self) -> bool:
        return self.reveal_button.isChecked()

    def _render(self) -> None:
        caption, before, after, diff, label = self._shown
        self.caption.setText(caption)
        self.reveal_button.setText(self.tr("Hide values") if self.revealed else self.tr("Show hidden values"))
        if not self.revealed:
            diff = masked_diff(before, after, diff, label)
            before, after = mask_secrets(before), mask_secrets(after)
        empty = self.tr("This change writes nothing new.") if self._has_change else ""
        self.unified.set_diff(diff, empty)
        self.side_by_side.set_texts(before, after)

    def clear(self) -> None:
        self._has_change = False
        self._shown = (self.tr("Select a change to see what it does to memory."), "", "", "", "")
        self.reveal_button.hide()
        self._render()
