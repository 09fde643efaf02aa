"""Every modal question the app asks, behind one seam that tests replace.

Widgets call ``ctx.dialogs.confirm(...)`` etc. and never ``exec()`` a dialog themselves, so a
test swaps in :class:`ScriptedDialogs` with canned answers and nothing blocks.

:meth:`Dialogs.ask` is the keyed form: each choice is ``(key, label)``, the answer is a key (so a
translated label never has to be compared), and the caller names the default button (Enter) and
the escape choice. A question that can lose work makes the safe choice its default.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

Choice = tuple[str, str]  # (key, button label)


def question_box(
    parent: QWidget | None,
    title: str,
    text: str,
    choices: Sequence[Choice],
    *,
    default: str | None = None,
    escape: str | None = None,
    warning: bool = True,
) -> tuple[QMessageBox, dict[str, Any]]:
    """The message box :meth:`Dialogs.ask` shows, and its buttons by key (built, not shown).

    A choice whose key is ``"cancel"`` becomes the standard Cancel button when its label is empty.
    """
    icon = QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Question
    box = QMessageBox(icon, title, text, parent=parent)
    box.setObjectName("questionBox")
    buttons: dict[str, Any] = {}
    for key, label in choices:
        if key == "cancel" and not label:
            buttons[key] = box.addButton(QMessageBox.StandardButton.Cancel)
        else:
            role = QMessageBox.ButtonRole.RejectRole if key == escape else QMessageBox.ButtonRole.ActionRole
            buttons[key] = box.addButton(label, role)
        buttons[key].setObjectName(f"choice_{key}")
    if default in buttons:
        box.setDefaultButton(buttons[default])
    if escape in buttons:
        box.setEscapeButton(buttons[escape])
    return box, buttons


class Dialogs:
    """Real dialogs (modal, on the GUI thread)."""

    def confirm(self, parent: QWidget | None, title: str, text: str, ok_label: str = "OK") -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, title, text, parent=parent)
        ok = box.addButton(
            ok_label if ok_label != "OK" else QCoreApplication.translate("Dialogs", "OK"),
            QMessageBox.ButtonRole.AcceptRole,
        )
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is ok

    def ask_text(self, parent: QWidget | None, title: str, label: str) -> str | None:
        text, ok = QInputDialog.getText(parent, title, label)
        return text if ok else None

    def choose(
        self, parent: QWidget | None, title: str, text: str, options: list[str], *, default: str | None = None
    ) -> str | None:
        """Ask the user to pick one of ``options`` (button labels); None when dismissed."""
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=parent)
        buttons = [(box.addButton(o, QMessageBox.ButtonRole.ActionRole), o) for o in options]
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        chosen = next((b for b, o in buttons if o == default), None)
        # Without a named default the safe one is Cancel (Qt would pick the first option).
        box.setDefaultButton(chosen if chosen is not None else cancel)
        box.exec()
        clicked = box.clickedButton()
        return next((label for button, label in buttons if button is clicked), None)

    def ask(
        self,
        parent: QWidget | None,
        title: str,
        text: str,
        choices: Sequence[Choice],
        *,
        default: str,
        escape: str | None = None,
    ) -> str | None:
        """The key of the chosen ``(key, label)``; ``escape`` (or None) when dismissed."""
        box, buttons = question_box(parent, title, text, choices, default=default, escape=escape)
        box.exec()
        clicked = box.clickedButton()
        return next((key for key, b in buttons.items() if b is clicked), escape)

    def info(self, parent: QWidget | None, title: str, text: str) -> None:
        QMessageBox.information(parent, title, text)

    def choose_directory(self, parent: QWidget, title: str, start: str) -> str | None:
        """A folder picked by the user, or None when dismissed."""
        return QFileDialog.getExistingDirectory(parent, title, start) or None

    def error(self, parent: QWidget | None, title: str, text: str) -> None:
        QMessageBox.warning(parent, title, text)

    def save_file(self, parent: QWidget, title: str, start: str, filters: str) -> str | None:
        """A file name to write, picked by the user (None when dismissed)."""
        return QFileDialog.getSaveFileName(parent, title, start, filters)[0] or None

    def open_file(self, parent: QWidget, title: str, start: str, filters: str) -> str | None:
        """An existing file to read, picked by the user (None when dismissed)."""
        return QFileDialog.getOpenFileName(parent, title, start, filters)[0] or None


class ScriptedDialogs(Dialogs):
    """Test double: answers from queues, records every question asked.

    ``ask`` records ``("ask", title, text)`` and the default it offered in :attr:`defaults`.
    """

    def __init__(self) -> None:
        self.answers: deque[Any] = deque()
        self.asked: list[tuple[str, str, str]] = []
        self.defaults: list[str] = []  # the default key of every ``ask``, in order
        self.choices: list[list[Choice]] = []  # the choices of every ``ask``, in order
        self.directories: deque[str | None] = deque()  # answers of choose_directory

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

    def choose(
        self, parent: QWidget | None, title: str, text: str, options: list[str], *, default: str | None = None
    ) -> str | None:
        answer = self._next("choose", title, text)
        assert answer is None or answer in options, f"{answer!r} not among {options}"
        return answer  # type: ignore[no-any-return]

    def ask(
        self,
        parent: QWidget | None,
        title: str,
        text: str,
        choices: Sequence[Choice],
        *,
        default: str,
        escape: str | None = None,
    ) -> str | None:
        self.defaults.append(default)
        self.choices.append(list(choices))
        answer = self._next("ask", title, text)
        keys = [k for k, _ in choices]
        assert answer is None or answer in keys, f"{answer!r} not among {keys}"
        return escape if answer is None else str(answer)

    def choose_directory(self, parent: QWidget, title: str, start: str) -> str | None:
        # Never the real, blocking folder picker: answers from ``directories``, else the common queue.
        if self.directories:
            self.asked.append(("choose_directory", title, start))
            return self.directories.popleft()
        answer = self._next("choose_directory", title, start)
        return None if answer is None else str(answer)

    def info(self, parent: QWidget | None, title: str, text: str) -> None:
        self.asked.append(("info", title, text))

    def error(self, parent: QWidget | None, title: str, text: str) -> None:
        self.asked.append(("error", title, text))

    def save_file(self, parent: QWidget, title: str, start: str, filters: str) -> str | None:
        answer = self._next("save_file", title, start)
        return None if answer is None else str(answer)

    def open_file(self, parent: QWidget, title: str, start: str, filters: str) -> str | None:
        answer = self._next("open_file", title, start)
        return None if answer is None else str(answer)
