"""The Recycle Bin's purge question: type the workspace's name, then "Delete forever".

A generic text prompt was wider than the window, had an OK that was enabled for any text, and
closed on a typo. This dialog wraps its text at a readable width, enables "Delete forever" only
while the typed name matches exactly, stays open on Enter with a wrong name, and says what else
goes: the kept history of records deleted from that workspace earlier.

The tab asks through ``RecycleBinTab.ask_purge`` (``(parent, question) -> typed name or None``).
With the real :class:`~gui.dialogs.Dialogs` that is this dialog; with a test double (scripted
answers, the screenshot script) the same question goes to its ``ask_text``, so a test answers it
like any typed question, and the dialog itself is tested as a widget.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

translate = QCoreApplication.translate
TEXT_WIDTH = 440  # px: the explanation wraps here instead of stretching the dialog past the window


@dataclass(frozen=True)
class PurgeQuestion:
    """What the dialog says: the workspace, what to type, and what goes with it."""

    display_name: str
    folder: str  # "" when unknown
    records: int
    history_entries: int  # deleted records and earlier versions of this workspace, kept in history
    confirm_text: str  # what must be typed: the name, or the full key of a damaged scope
    by_key: bool = False  # confirm_text is the folder key (its scope.json could not be read)
    synced: bool = False  # sync is set up: the purge rewrites the synced history too (issue 28)


def explain(q: PurgeQuestion) -> tuple[str, str]:
    """(what a purge deletes, what to type): the dialog's two paragraphs."""
    folder = q.folder or translate("PurgeDialog", "folder unknown")
    text = (
        translate("PurgeDialog", "This permanently deletes the archived workspace “{name}” ({folder}) and its record.")
        if q.records == 1
        else translate(
            "PurgeDialog",
            "This permanently deletes the archived workspace “{name}” ({folder}) and its %n records.",
            "",
            q.records,
        )
    ).format(name=q.display_name, folder=folder)
    if q.history_entries:
        text += (
            translate(
                "PurgeDialog",
                " It also deletes the kept history of this workspace: 1 earlier deleted record or earlier "
                "version you could otherwise still restore.",
            )
            if q.history_entries == 1
            else translate(
                "PurgeDialog",
                " It also deletes the kept history of this workspace: %n earlier deleted records or earlier "
                "versions you could otherwise still restore.",
                "",
                q.history_entries,
            )
        )
    if q.synced:
        text += translate(
            "PurgeDialog",
            " Synced history will be rewritten without it: the next sync replaces the remote's history, "
            "and your other machines must sync to remove their copies.",
        )
    text += translate("PurgeDialog", " This cannot be undone.")  # the leading space is English's
    prompt = (
        translate(
            "PurgeDialog", "Type the full key “{key}” of its folder to confirm (its scope.json could not be read):"
        )
        if q.by_key
        else translate("PurgeDialog", "Type the workspace name “{key}” to confirm:")
    ).format(key=q.confirm_text)
    return text, prompt


def dialog_title() -> str:
    return translate("PurgeDialog", "Delete archived workspace forever")


class PurgeDialog(QDialog):
    """Modal; ``typed()`` is the confirmed name after ``accept()``."""

    def __init__(self, question: PurgeQuestion, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.question = question
        self.setObjectName("purgeDialog")
        self.setWindowTitle(dialog_title())
        text, prompt = explain(question)
        self.text_label = QLabel(text)
        self.text_label.setObjectName("purgeText")
        self.text_label.setWordWrap(True)
        self.text_label.setTextFormat(Qt.TextFormat.PlainText)
        self.text_label.setFixedWidth(TEXT_WIDTH)
        self.prompt_label = QLabel(prompt)
        self.prompt_label.setWordWrap(True)
        self.prompt_label.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt_label.setFixedWidth(TEXT_WIDTH)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("purgeName")
        self.name_edit.setPlaceholderText(question.confirm_text)
        self.mismatch_label = QLabel()
        self.mismatch_label.setObjectName("purgeMismatch")
        self.mismatch_label.setStyleSheet("color: #8a1c12;")
        self.mismatch_label.setWordWrap(True)
        self.buttons = QDialogButtonBox()
        self.delete_button = QPushButton(self.tr("Delete forever"))
        self.delete_button.setObjectName("purgeDelete")
        self.delete_button.setAutoDefault(False)
        self.buttons.addButton(self.delete_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setDefault(True)  # Enter never deletes by itself
        self.delete_button.clicked.connect(self._delete)
        self.cancel_button.clicked.connect(self.reject)
        self.name_edit.textChanged.connect(self._update)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text_label)
        layout.addSpacing(6)
        layout.addWidget(self.prompt_label)
        layout.addWidget(self.name_edit)
        layout.addWidget(self.mismatch_label)
        layout.addWidget(self.buttons)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetFixedSize)
        self._update()

    def matches(self) -> bool:
        return self.name_edit.text() == self.question.confirm_text

    def typed(self) -> str:
        return self.name_edit.text()

    def _update(self) -> None:
        ok = self.matches()
        self.delete_button.setEnabled(ok)
        typed = self.name_edit.text()
        self.mismatch_label.setText(
            ""
            if ok or not typed
            else self.tr("Not the name yet: type “{name}” exactly.").format(name=self.question.confirm_text)
        )

    def _delete(self) -> None:
        if self.matches():
            self.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Enter in the name field: delete only when it matches; a typo keeps the dialog open.
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if self.matches():
                self.accept()
            else:
                self._update()
            return
        super().keyPressEvent(event)


def run_purge_dialog(parent: QWidget | None, question: PurgeQuestion) -> str | None:
    """Ask modally; the typed name when "Delete forever" was clicked, None when cancelled."""
    dialog = PurgeDialog(question, parent)
    try:
        return dialog.typed() if dialog.exec() == QDialog.DialogCode.Accepted else None
    finally:
        dialog.deleteLater()
