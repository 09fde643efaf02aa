"""An in-place message strip (info / ok / warning / error) with optional action buttons.

Two kinds of message (issue 14):

- **Lasting** messages (errors, warnings, anything with an action button) sit in the layout where
  the banner is placed and stay until the code that showed them clears them (the condition is
  gone) or the user dismisses them (×).
- **Transient** messages ("Committed 1 change.", "Archived …") float over the bottom edge of the
  banner's parent as a toast: showing or hiding one never moves the layout, and clicks pass
  through a toast without buttons, so a click aimed at a row still lands on that row. A toast
  fades out after :data:`TRANSIENT_MS`, on the user's next click or key press in the window
  (after a short grace, so the click that caused it does not also hide it), and when its tab is
  switched away.

``show_message(level, text, actions, topic=..., transient=None)``: ``transient`` None means
"ok" messages without actions are transient and everything else lasts, which is what the tabs
written before this distinction want.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QEvent, QObject, QPoint, QPropertyAnimation, QRect, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QFrame,
    QGraphicsOpacityEffect,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

_STYLES = {
    "info": "background:#e8f1fb; border:1px solid #9cc2e8; color:#13385e;",
    "ok": "background:#e9f6ea; border:1px solid #9fd3a3; color:#174d1c;",
    "warning": "background:#fff6dc; border:1px solid #e6c25a; color:#5a4300;",
    "error": "background:#fdecea; border:1px solid #ea9a92; color:#6b1a12;",
}
TRANSIENT_MS = 8000  # how long a toast stays when nothing else happens
GRACE_MS = 1200  # input sooner than this after a toast appeared does not dismiss it
FADE_MS = 350
_INPUT_EVENTS = (QEvent.Type.MouseButtonPress, QEvent.Type.KeyPress)


class _Strip(QFrame):
    """The coloured frame with the text, the action buttons and a dismiss button."""

    def __init__(self, on_dismiss: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.label = QLabel()
        self.label.setObjectName("bannerText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self.buttons: list[QPushButton] = []
        self.layout_ = layout
        # Actions stack in a column: side by side, two long labels squeezed the text to a sliver.
        self.actions_box = QVBoxLayout()
        self.actions_box.setSpacing(2)
        layout.addLayout(self.actions_box)
        self.close_button = QToolButton()
        self.close_button.setObjectName("bannerDismiss")
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(self.tr("Dismiss this message"))
        self.close_button.clicked.connect(on_dismiss)
        layout.addWidget(self.close_button)

    def fill(self, level: str, text: str, actions: list[tuple[str, Callable[[], None]]]) -> None:
        self.setStyleSheet(f"QFrame#banner {{ {_STYLES.get(level, _STYLES['info'])} border-radius:4px; }}")
        self.label.setText(text)
        for b in self.buttons:
            b.deleteLater()
        self.buttons = []
        for label, callback in actions:
            button = QPushButton(label)
            button.clicked.connect(lambda _=False, cb=callback: cb())
            self.actions_box.addWidget(button)
            self.buttons.append(button)

    def empty(self) -> None:
        self.label.setText("")
        for b in self.buttons:
            b.deleteLater()
        self.buttons = []


class _Toast(_Strip):
    """A strip floating over the bottom of its parent; reports when it is hidden with its tab."""

    def __init__(self, owner: Banner, parent: QWidget) -> None:
        super().__init__(owner.dismiss, parent)
        self.setObjectName("banner")
        self._owner = owner
        self.setAutoFillBackground(True)
        self.effect = QGraphicsOpacityEffect(self)
        self.effect.setOpacity(1.0)
        self.setGraphicsEffect(self.effect)
        parent.installEventFilter(self)

    def place(self) -> None:
        parent = self.parentWidget()
        if parent is None:
            return
        margin = 12
        # A toast, not a second banner: as wide as its text needs, within the parent, centred.
        room = max(120, parent.width() - 2 * margin)
        width = min(room, max(self.sizeHint().width(), min(room, 480)))
        height = self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height()
        height = max(height, self.minimumSizeHint().height())
        x = (parent.width() - width) // 2
        bottom = max(0, parent.height() - height - margin)
        rect = QRect(x, bottom, width, height)
        # Never over a control or a figure the user reads (Discard all, Stage, the record counter):
        # lift it above whatever it would cover, and keep the bottom edge only when no place is free.
        obstacles = self._obstacles(parent)
        for _ in range(len(obstacles)):
            hit = [r for r in obstacles if r.intersects(rect)]
            if not hit:
                break
            rect.moveBottom(min(r.top() for r in hit) - 4)
        if rect.top() < 0 or any(r.intersects(rect) for r in obstacles):
            rect.moveTop(bottom)
        self.setGeometry(rect)
        self.raise_()

    def _obstacles(self, parent: QWidget) -> list[QRect]:
        """Where the visible buttons and texts of ``parent`` are, in its coordinates."""
        widgets: list[QWidget] = [*parent.findChildren(QAbstractButton), *parent.findChildren(QLabel)]
        return [
            QRect(w.mapTo(parent, QPoint(0, 0)), w.size())
            for w in widgets
            if w is not self
            and not self.isAncestorOf(w)
            and w.isVisibleTo(parent)
            and not (isinstance(w, QLabel) and not w.text())
        ]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget():
            if event.type() == QEvent.Type.Resize and self.isVisible():
                self.place()
            elif event.type() == QEvent.Type.Hide and not self.isHidden():
                self._owner.clear()  # its tab was switched away: the news is old when it comes back
        return False


class Banner(QWidget):
    """Hidden until ``show_message``; lasting messages stay until cleared, transient ones fade."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("bannerHost")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._strip = _Strip(self.dismiss)
        layout.addWidget(self._strip)
        self.label = self._strip.label  # kept: callers and tests read banner.label
        self._toast: _Toast | None = None
        self.level = ""
        self.topic = ""  # what the message is about, for code that clears its own message later
        self.transient = False
        self._text = ""
        self._shown_for = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.fade)
        self._fade: QPropertyAnimation | None = None
        self._watching_input = False
        self.hide()

    # --- reading -------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The message shown now ("" when none)."""
        return self._text

    @property
    def _buttons(self) -> list[QPushButton]:
        return self._current_strip().buttons

    def _current_strip(self) -> _Strip:
        return self._toast if self.transient and self._toast is not None else self._strip

    def button(self, label: str) -> QPushButton | None:
        return next((b for b in self._buttons if b.text() == label), None)

    def strip(self) -> QFrame | None:
        """The frame showing the message now (the toast or the inline strip), None when none."""
        return self._current_strip() if self._text else None

    # --- showing ---------------------------------------------------------------------------------
    def show_message(
        self,
        level: str,
        text: str,
        actions: list[tuple[str, Callable[[], None]]] | None = None,
        *,
        topic: str = "",
        transient: bool | None = None,
    ) -> None:
        """Show ``text``; ``transient`` None: "ok" without actions is transient, the rest lasts."""
        actions = actions or []
        if transient is None:
            transient = level == "ok" and not actions
        self._stop()
        self.level, self.topic, self.transient, self._text = level, topic, transient, text
        host = self.parentWidget()
        # A splitter would take the toast in as a pane: there the message stays in the layout.
        if transient and host is not None and not isinstance(host, QSplitter):
            self._strip.empty()
            self.hide()
            if self._toast is None or self._toast.parentWidget() is not host:
                self._toast = _Toast(self, host)
            self._toast.fill(level, text, actions)
            # Without buttons a toast is only news: clicks go through it to whatever it covers
            # (the row the user aimed at), and it fades by itself, so it needs no close button.
            self._toast.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, not actions)
            self._toast.close_button.setVisible(bool(actions))
            self._toast.effect.setOpacity(1.0)
            self._toast.show()
            self._toast.place()
            self._shown_for.start()
            self._timer.start(TRANSIENT_MS)
            self._watch_input(True)
        else:
            self.transient = False
            self._hide_toast()
            self._strip.fill(level, text, actions)
            self.show()

    def clear(self, topic: str | None = None) -> None:
        """Hide the message (only when it is about ``topic``, if one is given)."""
        if topic is not None and (self.topic != topic or not self._text):
            return
        self._stop()
        self.level = ""
        self.topic = ""
        self.transient = False
        self._text = ""
        self._strip.empty()
        self._hide_toast()
        self.hide()

    def dismiss(self) -> None:
        """The user closed the message (×)."""
        self.clear()

    def fade(self) -> None:
        """Fade a transient message out, then clear it (a lasting one is cleared at once)."""
        if not self.transient or self._toast is None or not self._toast.isVisible():
            if self.transient:
                self.clear()
            return
        if self._fade is not None:
            return
        self._fade = QPropertyAnimation(self._toast.effect, b"opacity", self)
        self._fade.setDuration(FADE_MS)
        self._fade.setStartValue(1.0)
        self._fade.setEndValue(0.0)
        self._fade.finished.connect(self.clear)
        self._fade.start()

    # --- internals -------------------------------------------------------------------------------
    def _stop(self) -> None:
        self._timer.stop()
        if self._fade is not None:
            fade, self._fade = self._fade, None
            fade.stop()
            fade.deleteLater()
        self._watch_input(False)

    def _hide_toast(self) -> None:
        if self._toast is not None:
            self._toast.empty()
            self._toast.hide()

    def _watch_input(self, on: bool) -> None:
        app = QApplication.instance()
        if app is None or on == self._watching_input:
            return
        if on:
            app.installEventFilter(self)
        else:
            app.removeEventFilter(self)
        self._watching_input = on

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() in _INPUT_EVENTS
            and self.transient
            and self._toast is not None
            and self._toast.isVisible()
            and self._shown_for.isValid()
            and self._shown_for.elapsed() >= GRACE_MS
            and isinstance(watched, QWidget)
            and watched.window() is self._toast.window()
            and not self._toast.isAncestorOf(watched)
            and watched is not self._toast
        ):
            self.fade()  # the user moved on: the message has been read or is no longer news
        return False


def banner_above(banner: Banner, body: QWidget) -> QWidget:
    """``body`` with ``banner`` above it, edge to edge (the window's central widget)."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(banner)
    layout.addWidget(body, 1)
    return box
