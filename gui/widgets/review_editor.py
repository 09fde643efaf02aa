"""Edit a proposed record before accepting it: description, type and body, validated as you type."""

from __future__ import annotations

from PySide6.QtCore import Signal
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
from gui.widgets.fonts import monospace_font


def record_problems(record: Record) -> list[str]:
    """Why ``record`` could not be accepted: rule violations and credential-shaped text."""
    from core.records import validate_record
    from core.secrets import describe, find_secrets

    problems = list(validate_record(record, f"{record.name}.md"))
    findings = find_secrets(f"{record.description}\n{record.body}")
    if findings:
        problems.append("looks like it contains a credential: " + "; ".join(describe(findings)))
    return problems


class ReviewRecordEditor(QWidget):
    """Shows the proposed record; ``applied`` carries the edited, valid record."""

    applied = Signal(object)  # Record
    reverted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._base: Record | None = None
        self.name_label = QLabel()
        self.name_label.setToolTip("The name is the file name; it cannot be changed here.")
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
        self.apply_button = QPushButton("Use edited record")
        self.apply_button.setObjectName("applyEdit")
        self.revert_button = QPushButton("Revert to proposal")
        self.revert_button.setObjectName("revertEdit")
        self.hint = QLabel("Only put changes can be edited. Select one in the list above.")
        self.hint.setWordWrap(True)

        form = QFormLayout()
        form.addRow("Name", self.name_label)
        form.addRow("Description", self.description)
        form.addRow("Type", self.type_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.problems_label, 1)
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
        """Load ``record`` into the fields (None: nothing editable selected)."""
        self._base = record
        enabled = record is not None and editable
        for w in (self.description, self.type_box, self.body, self.apply_button, self.revert_button):
            w.setEnabled(enabled)
        self.hint.setVisible(not enabled)
        self.blockSignals(True)
        self.name_label.setText(record.name if record else "—")
        self.description.setText(record.description if record else "")
        self.type_box.setCurrentText(record.type if record else RECORD_TYPES[0])
        self.body.setPlainText(record.body.strip("\n") if record else "")
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
