"""How every table of the window looks and selects: whole rows, one at a time, sortable, read-only."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QTableView


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
