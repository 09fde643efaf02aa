"""Edit a proposed record before accepting it: description, type and body, validated as you type."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.models import RECORD_TYPES, Record
from gui.core_text import core_texts
from gui.widgets.fonts import monospace_font
from gui.widgets.review_mask import has_hidden, mask_secrets


def record_problems(record: Record) -> list[str]:
    """Why ``record`` could not be accepted: rule violations and credential-shaped text."""
    from core.records import validate_record
    from core.secrets import describe, find_secrets

    problems = core_texts(validate_record(record, f"{record.name}.md"))
    findings = find_secrets(f"{record.description}\n{record.body}")
    if findings:
        problems.append(
            QCoreApplication.translate("ReviewRecordEditor", "looks like it contains a credential: {found}").format(
                found="; ".join(describe(findings))
            )
        )
    return problems


class ReviewRecordEditor(QWidget):
    """Shows the proposed record; ``applied`` carries the edited, valid record."""

    applied = Signal(object)  # Record
    reverted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._base: Record | None = None
        self._editable = True
        self._masked = False
        self.name_label = QLabel()
        self.name_label.setToolTip(self.tr("The name is the file name; it cannot be changed here."))
        self.description = QLineEdit()
        self.description.setObjectName("editDescription")
        self.type_box = QComboBox()
        self.type_box.addItems(list(RECORD_TYPES))
        self.body = QPlainTextEdit()
        self.body.setObjectName("editBody")
        self.body.setFont(monospace_font())
        self.problems_label = QLabel()
        self.problems_label.setObjectName("editProblems")
        self.problems_label.setWordWrap(True)
        self.problems_label.setStyleSheet("color: #8a1c12;")
        self.apply_button = QPushButton(self.tr("Use edited record"))
        self.apply_button.setObjectName("applyEdit")
        self.revert_button = QPushButton(self.tr("Revert to proposal"))
        self.revert_button.setObjectName("revertEdit")
        # A record holding a credential-shaped value is shown masked; editing needs the real text.
        self.reveal_button = QPushButton(self.tr("Show hidden values"))
        self.reveal_button.setObjectName("revealEditor")
        self.reveal_button.setToolTip(self.tr("The record holds what looks like a credential; it is hidden."))
        self.reveal_button.hide()
        self.reveal_button.clicked.connect(self.reveal)
        self.hint = QLabel(self.tr("Only put changes can be edited. Select one in the list above."))
        self.hint.setWordWrap(True)

        form = QFormLayout()
        form.addRow(self.tr("Name"), self.name_label)
        form.addRow(self.tr("Description"), self.description)
        form.addRow(self.tr("Type"), self.type_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.problems_label, 1)
        buttons.addWidget(self.reveal_button)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.hint)
        layout.addLayout(form)
        layout.addWidget(self.body, 1)
        layout.addLayout(buttons)

        self.description.textChanged.connect(self._validate)
        self.type_box.currentTextChanged.connect(self._validate)
        self.body.textChanged.connect(self._validate)
        self.apply_button.clicked.connect(self._apply)
        self.revert_button.clicked.connect(self.reverted.emit)
        self.set_record(None)

    def set_record(self, record: Record | None, *, editable: bool = True) -> None:
        """Load ``record`` into the fields (None: nothing editable selected); credentials masked."""
        self._base = record
        self._editable = editable
        hidden = record is not None and has_hidden(record.description, record.body)
        self._fill(record, masked=hidden)

    @property
    def masked(self) -> bool:
        return self._masked

    def reveal(self) -> None:
        """Show the real values (an explicit click): only then can a masked record be edited."""
        self._fill(self._base, masked=False)

    def _fill(self, record: Record | None, *, masked: bool) -> None:
        self._masked = masked
        enabled = record is not None and self._editable and not masked
        for w in (self.description, self.type_box, self.body, self.apply_button, self.revert_button):
            w.setEnabled(enabled)
        self.hint.setVisible(record is None or not self._editable)
        self.reveal_button.setVisible(masked)
        description = record.description if record else ""
        body = record.body.strip("\n") if record else ""
        if masked:
            description, body = mask_secrets(description) or "", mask_secrets(body) or ""
        self.blockSignals(True)
        self.name_label.setText(record.name if record else "—")
        self.description.setText(description)
        self.type_box.setCurrentText(record.type if record else RECORD_TYPES[0])
        self.body.setPlainText(body)
        self.blockSignals(False)
        self._validate()

    def current_record(self) -> Record | None:
        if self._base is None:
            return None
        body = self.body.toPlainText().replace("\r\n", "\n").strip("\n")
        try:
            return self._base.model_copy(
                update={
                    "description": self.description.text().strip(),
                    "type": self.type_box.currentText(),
                    "body": "\n" + body + "\n" if body else "\n",
                }
            )
        except ValueError:
            return None

    def problems(self) -> list[str]:
        record = self.current_record()
        if record is None:
            return []
        return record_problems(record)

    def _validate(self) -> None:
        problems = self.problems() if self._base is not None and self.description.isEnabled() else []
        self.problems_label.setText("\n".join(problems))
        self.apply_button.setEnabled(self._base is not None and self.description.isEnabled() and not problems)

    def _apply(self) -> None:
        record = self.current_record()
        if record is not None and not record_problems(record):
            self.applied.emit(record)
