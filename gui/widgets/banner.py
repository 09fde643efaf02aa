"""An in-place message strip (info / warning / error) with optional action buttons."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

_STYLES = {
    "info": "background:#e8f1fb; border:1px solid #9cc2e8; color:#13385e;",
    "ok": "background:#e9f6ea; border:1px solid #9fd3a3; color:#174d1c;",
    "warning": "background:#fff6dc; border:1px solid #e6c25a; color:#5a4300;",
    "error": "background:#fdecea; border:1px solid #ea9a92; color:#6b1a12;",
}


class Banner(QFrame):
    """Hidden until ``show_message``; messages stay until cleared or replaced."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self._buttons: list[QPushButton] = []
        self._layout = layout
        self.level = ""
        self.topic = ""  # what the message is about, for code that clears its own message later
        self.hide()

    @property
    def text(self) -> str:
        return "" if self.isHidden() else self.label.text()

    def show_message(
        self,
        level: str,
        text: str,
        actions: list[tuple[str, Callable[[], None]]] | None = None,
        *,
        topic: str = "",
    ) -> None:
        self.level = level
        self.topic = topic
        self.setStyleSheet(f"QFrame#banner {{ {_STYLES.get(level, _STYLES['info'])} border-radius:4px; }}")
        self.label.setText(text)
        for b in self._buttons:
            b.deleteLater()
        self._buttons = []
        for label, callback in actions or []:
            button = QPushButton(label)
            button.clicked.connect(lambda _=False, cb=callback: cb())
            self._layout.addWidget(button)
            self._buttons.append(button)
        self.show()

    def button(self, label: str) -> QPushButton | None:
        return next((b for b in self._buttons if b.text() == label), None)

    def clear(self, topic: str | None = None) -> None:
        """Hide the message (only when it is about ``topic``, if one is given)."""
        if topic is not None and (self.topic != topic or self.isHidden()):
            return
        self.level = ""
        self.topic = ""
        self.label.setText("")
        for b in self._buttons:
            b.deleteLater()
        self._buttons = []
        self.hide()
