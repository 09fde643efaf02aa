"""Editing disabled while the memory root is read-only (issue 9).

A widget that writes memory is marked with :func:`mark_writes`; :func:`set_read_only` on a tab
finds the marked widgets under it. Buttons stay disabled while the root is read-only even when the
tab's own logic enables them (an event filter turns them off again), and text editors become
read-only, so reading, selecting and scrolling still work. The store refuses every write there
anyway (``ReadOnlyRootError``); this only keeps the window from offering what cannot work.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtWidgets import QAbstractButton, QLineEdit, QPlainTextEdit, QTextEdit, QWidget

WRITES = "dshWrites"
READ_ONLY_TIP = "The memory root is read-only: nothing can be changed here."  # English, for tests


def read_only_tip() -> str:
    return QCoreApplication.translate("ReadOnly", "The memory root is read-only: nothing can be changed here.")


def mark_writes(*widgets: QWidget) -> None:
    for w in widgets:
        w.setProperty(WRITES, True)


class _KeepDisabled(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.EnabledChange and isinstance(watched, QWidget) and watched.isEnabled():
            watched.setEnabled(False)
        return False


def set_read_only(container: QWidget, read_only: bool) -> list[QWidget]:
    """Disable (or give back) every marked widget under ``container``; returns them."""
    marked = [w for w in container.findChildren(QWidget) if w.property(WRITES)]
    guard = container.findChild(_KeepDisabled, "readOnlyGuard")
    if guard is None:
        guard = _KeepDisabled(container)
        guard.setObjectName("readOnlyGuard")
    for w in marked:
        if isinstance(w, QAbstractButton):
            if read_only:
                w.installEventFilter(guard)
                w.setEnabled(False)
            else:
                w.removeEventFilter(guard)
        elif isinstance(w, (QLineEdit, QPlainTextEdit, QTextEdit)):
            w.setReadOnly(read_only)
        tip = read_only_tip()
        w.setToolTip(tip if read_only else w.toolTip().replace(tip, ""))
    return marked
