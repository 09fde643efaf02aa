"""How every table of the window looks and selects: whole rows, one at a time, sortable, read-only."""

from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTableView


def setup_table(view: QTableView, *, row_height: int | None = 24) -> None:
    """``row_height`` None keeps the style's row height (the Recycle Bin's tables)."""
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setSortingEnabled(True)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    if row_height is not None:
        view.verticalHeader().setDefaultSectionSize(row_height)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.horizontalHeader().setHighlightSections(False)


_WORD_END = re.compile(r"(?<=[-_. /])")  # a name's words end after these separators


def elide_words(text: str, fm: QFontMetrics, width: int) -> str:
    """``text`` shortened to ``width`` at word boundaries: its first words, "…", its last words.

    Names like ``billing-service-041`` and ``billing-service-042`` share a prefix, so both ends are
    kept when they fit; a word is never cut in the middle unless not even one whole word fits.
    """
    if fm.horizontalAdvance(text) <= width:
        return text
    words = [w for w in _WORD_END.split(text) if w]
    fitting = [
        head + "…" + tail
        for k in range(len(words))
        for m in range(len(words) - k)
        if k + m
        and fm.horizontalAdvance((head := "".join(words[:k])) + "…" + (tail := "".join(words[len(words) - m :])))
        <= width
    ]
    if fitting:
        return max(fitting, key=len)
    return fm.elidedText(text, Qt.TextElideMode.ElideRight, width)


class WordElideDelegate(QStyledItemDelegate):
    """Shows a column's text elided at word boundaries (:func:`elide_words`), never mid-word."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        style = option.widget.style() if option.widget is not None else None
        margin = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1) if style is not None else 6
        option.text = elide_words(option.text, option.fontMetrics, option.rect.width() - margin)
