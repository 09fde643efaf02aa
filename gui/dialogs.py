"""Every modal question the app asks, behind one seam that tests replace.

Widgets call ``ctx.dialogs.confirm(...)`` etc. and never ``exec()`` a dialog themselves, so a
test swaps in :class:`ScriptedDialogs` with canned answers and nothing blocks.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget


class Dialogs:
    """Real dialogs (modal, on the GUI thread)."""

    def confirm(self, parent: QWidget | None, title: str, text: str, ok_label: str = "OK") -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, title, text, parent=parent)
        ok = box.addButton(ok_label, QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is ok

    def ask_text(self, parent: QWidget | None, title: str, label: str) -> str | None:
        text, ok = QInputDialog.getText(parent, title, label)
        return text if ok else None

    def choose(self, parent: QWidget | None, title: str, text: str, options: list[str]) -> str | None:
        """Ask the user to pick one of ``options`` (button labels); None when dismissed."""
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=parent)
        buttons = [(box.addButton(o, QMessageBox.ButtonRole.ActionRole), o) for o in options]
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        return next((label for button, label in buttons if button is clicked), None)

    def info(self, parent: QWidget | None, title: str, text: str) -> None:
        QMessageBox.information(parent, title, text)

    def choose_directory(self, parent: QWidget, title: str, start: str) -> str | None:
        """A folder picked by the user, or None when dismissed."""
        return QFileDialog.getExistingDirectory(parent, title, start) or None

    def error(self, parent: QWidget | None, title: str, text: str) -> None:
        QMessageBox.warning(parent, title, text)


class ScriptedDialogs(Dialogs):
    """Test double: answers from queues, records every question asked."""

    def __init__(self) -> None:
        self.answers: deque[Any] = deque()
        self.asked: list[tuple[str, str, str]] = []

    def push(self, *answers: Any) -> None:
        self.answers.extend(answers)

    def _next(self, kind: str, title: str, text: str) -> Any:
        self.asked.append((kind, title, text))
        if not self.answers:
            raise AssertionError(f"unexpected {kind} dialog: {title}: {text}")
        return self.answers.popleft()

    def confirm(self, parent: QWidget | None, title: str, text: str, ok_label: str = "OK") -> bool:
        return bool(self._next("confirm", title, text))

    def ask_text(self, parent: QWidget | None, title: str, label: str) -> str | None:
        answer = self._next("ask_text", title, label)
        return None if answer is None else str(answer)

    def choose(self, parent: QWidget | None, title: str, text: str, options: list[str]) -> str | None:
        answer = self._next("choose", title, text)
        assert answer is None or answer in options, f"{answer!r} not among {options}"
        return answer  # type: ignore[no-any-return]

    def choose_directory(self, parent: QWidget, title: str, start: str) -> str | None:
        answer = self._next("choose_directory", title, start)  # never the real, blocking folder picker
        return None if answer is None else str(answer)

    def info(self, parent: QWidget | None, title: str, text: str) -> None:
        self.asked.append(("info", title, text))

    def error(self, parent: QWidget | None, title: str, text: str) -> None:
        self.asked.append(("error", title, text))
