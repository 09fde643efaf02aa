"""The Workspace tab's record editor: fields, live validation, links, and Stage / Revert / Delete."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
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
from core.records import find_links, validate_record
from gui.core_text import core_texts
from gui.tasks import Jobs, TaskRunner
from gui.widgets.fonts import monospace_font
from gui.widgets.read_only import mark_writes

if TYPE_CHECKING:  # core.provenance imports core.consolidation (httpx...): 0.4 s of start-up
    from core.provenance import Origin

NEW_BODY = (
    "\nThe durable, self-contained fact.\n\n**Why:** Why it matters.\n\n**How to apply:** When and how to use it.\n"
)


def new_body() -> str:
    """The template a new record starts with (in the interface language)."""
    return QCoreApplication.translate(
        "RecordEditor",
        "\nThe durable, self-contained fact.\n\n**Why:** Why it matters.\n\n**How to apply:** When and how to use it.\n",  # noqa: E501
    )


def is_template(body: str) -> bool:
    """True when the body is the untouched template (English or translated): not a fact yet."""
    text = body.strip()
    return bool(text) and text in (NEW_BODY.strip(), new_body().strip())


Fields = tuple[str, str, str, str]  # name, type, description, body


class _SecretScan:
    """Whether core.secrets has built its detectors (its first scan imports detect-secrets, ~0.2 s)."""

    ready = False


def secret_warnings(text: str) -> list[str]:
    from core.secrets import describe, find_secrets  # lazily: its first use imports detect-secrets

    return list(describe(find_secrets(text)))


class RecordEditor(QWidget):
    """Edits one record. ``editing_name`` is the record shown (None: a new record or nothing)."""

    stage_requested = Signal()
    delete_requested = Signal()
    revert_requested = Signal()
    link_activated = Signal(str)
    receipt_requested = Signal(str)  # review id of a consolidation receipt (provenance link)

    def __init__(
        self,
        runner: TaskRunner,
        known_names: Callable[[], set[str]],
        invalid_reasons: Callable[[str], tuple[str, ...]],
        parent: QWidget | None = None,
        has_staged: Callable[[str], bool] = lambda _name: False,
    ) -> None:
        super().__init__(parent)
        self.jobs = Jobs(self, runner)
        self._known_names = known_names
        self._has_staged = has_staged  # a staged change to that record exists (Revert can undo it)
        self._invalid_reasons = invalid_reasons  # of the file on disk under that name
        self.editing_name: str | None = None
        self.active = False  # fields hold a record (filling never counts as editing)
        self.invalid_file = False  # the fields were salvaged from an invalid file
        self._loaded: Fields = ("", "project", "", "")
        self._extra = ""
        self._checking = False

        v = QVBoxLayout(self)
        v.setContentsMargins(6, 6, 6, 6)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("record_name")
        self.name_edit.setPlaceholderText(self.tr("short-kebab-case-name"))
        self.name_edit.setFont(monospace_font())
        form.addRow(self.tr("Name"), self.name_edit)
        self.type_combo = QComboBox()
        self.type_combo.setObjectName("record_type")
        for t in RECORD_TYPES:
            self.type_combo.addItem(t, t)
        form.addRow(self.tr("Type"), self.type_combo)
        self.desc_edit = QLineEdit()
        self.desc_edit.setObjectName("record_description")
        self.desc_edit.setPlaceholderText(self.tr("One-line relevance hook"))
        form.addRow(self.tr("Description"), self.desc_edit)
        v.addLayout(form)
        self.body_edit = QPlainTextEdit()
        self.body_edit.setObjectName("record_body")
        self.body_edit.setFont(monospace_font())
        v.addWidget(self.body_edit, 1)
        self.links_label = QLabel()
        self.links_label.setObjectName("record_links")
        self.links_label.setWordWrap(True)
        self.links_label.setTextFormat(Qt.TextFormat.RichText)
        self.links_label.linkActivated.connect(self.link_activated.emit)
        v.addWidget(self.links_label)
        self.validation_label = QLabel()
        self.validation_label.setObjectName("record_validation")
        self.validation_label.setWordWrap(True)
        self.validation_label.setTextFormat(Qt.TextFormat.RichText)
        v.addWidget(self.validation_label)
        self.provenance_label = QLabel()
        self.provenance_label.setObjectName("record_provenance")
        self.provenance_label.setWordWrap(True)
        self.provenance_label.setTextFormat(Qt.TextFormat.RichText)
        self.provenance_label.linkActivated.connect(self.receipt_requested.emit)
        v.addWidget(self.provenance_label)
        row = QHBoxLayout()
        self.delete_button = QPushButton(self.tr("Delete"))
        self.delete_button.setToolTip(self.tr("Stage deleting this record (nothing is written until you commit)"))
        self.delete_button.clicked.connect(self.delete_requested.emit)
        row.addWidget(self.delete_button)
        row.addStretch(1)
        self.revert_button = QPushButton(self.tr("Revert"))
        self.revert_button.clicked.connect(self.revert_requested.emit)
        row.addWidget(self.revert_button)
        self.stage_button = QPushButton(self.tr("Stage"))
        mark_writes(self.name_edit, self.desc_edit, self.body_edit, self.delete_button, self.stage_button)
        self.stage_button.setToolTip(self.tr("Add this record to the batch of changes to commit"))
        self.stage_button.clicked.connect(self.stage_requested.emit)
        row.addWidget(self.stage_button)
        v.addLayout(row)
        for w in (self.name_edit, self.desc_edit):
            w.textChanged.connect(self.check)
        self.type_combo.currentIndexChanged.connect(self.check)
        self.body_edit.textChanged.connect(self.check)
        self.set_enabled(False)

    # --- fields ---------------------------------------------------------------------------------------
    def fields(self) -> Fields:
        return (
            self.name_edit.text().strip(),
            str(self.type_combo.currentData() or "project"),
            self.desc_edit.text(),
            self.body_edit.toPlainText(),
        )

    def dirty(self) -> bool:
        return self.active and self.fields() != self._loaded

    def record(self) -> Record:
        name, rtype, desc, body = self.fields()
        return Record.model_validate(
            {"name": name, "type": rtype, "description": desc, "body": body, "extra_frontmatter": self._extra}
        )

    def mark_clean(self) -> None:
        """What the fields show now counts as loaded (after staging it)."""
        self._loaded = self.fields()
        self.invalid_file = False

    def set_enabled(self, enabled: bool) -> None:
        for w in (self.name_edit, self.type_combo, self.desc_edit, self.body_edit):
            w.setEnabled(enabled)
        self.stage_button.setEnabled(enabled)
        self._update_revert(enabled and self.dirty())
        self.delete_button.setEnabled(enabled and self.editing_name is not None)

    def _update_revert(self, dirty: bool) -> None:
        """Revert undoes the editor's edits; with none, the record's one staged change (a delete too)."""
        staged = self.editing_name is not None and self._has_staged(self.editing_name)
        self.revert_button.setEnabled(dirty or staged)
        self.revert_button.setToolTip(
            self.tr("Undo the edits in the editor")
            if dirty or not staged
            else self.tr("Undo the staged change to this record (it is not written until you commit)")
        )

    def show_provenance(self, origins: list[Origin]) -> None:
        """Which consolidations wrote this record, each a link to its receipt (newest first)."""
        if not origins:
            self.provenance_label.setText("")
            return
        links = []
        for o in origins[:3]:
            verb = self.tr("created or changed") if o.kind == "put" else self.tr("deleted")
            # The session's title while DSH still has the session (else the start of its id).
            title = o.session_title if len(o.session_title) <= 48 else o.session_title[:47] + "…"
            what = self.tr("session {session} · seqs {first}–{last} · {when}").format(
                session=html.escape(f"“{title}”" if title else o.session_id[:12]),
                first=o.seq_range[0],
                last=o.seq_range[1],
                when=html.escape(o.when[:16].replace("T", " ")),
            )
            links.append(f'<a href="{html.escape(o.review_id)}">{what}</a> ({verb})')
        self.provenance_label.setText(self.tr("Written by a consolidation: ") + " · ".join(links))

    def show_record(self, name: str, record: Record) -> None:
        """Show ``record`` (on disk or staged) under ``name``."""
        self._fill(name, (record.name, record.type, record.description, record.body), record.extra_frontmatter)

    def show_salvaged(self, name: str, rtype: str, desc: str, body: str) -> None:
        """Show what could be read of an invalid file, so fixing it means correcting fields rather
        than re-typing; the file itself is untouched until a commit."""
        self._fill(name, (name, rtype, desc, body), "", invalid_file=True)

    def new_record(self) -> None:
        """Empty fields for a new record: unsaved from the start."""
        self._fill(None, ("", "project", "", new_body()), "")
        self.delete_button.setEnabled(False)
        self.name_edit.setFocus()

    def _fill(self, name: str | None, fields: Fields, extra: str, *, invalid_file: bool = False) -> None:
        self.active = False  # no validation churn while filling
        self.editing_name = name
        self.invalid_file = invalid_file
        self.name_edit.setText(fields[0])
        i = self.type_combo.findData(fields[1])
        self.type_combo.setCurrentIndex(i if i >= 0 else self.type_combo.findData("project"))
        self.desc_edit.setText(fields[2])
        self.desc_edit.setCursorPosition(0)  # show the start of a long description
        self.body_edit.setPlainText(fields[3])
        self._extra = extra
        self._loaded = self.fields() if name is not None else ("", "", "", "")
        self.active = True
        self.set_enabled(True)
        self.check()

    def clear(self) -> None:
        self.active = False
        self.editing_name = None
        self.invalid_file = False
        for w in (self.name_edit, self.desc_edit):
            w.clear()
        self.body_edit.clear()
        self._loaded = self.fields()
        self.validation_label.setText("")
        self.links_label.setText("")
        self.provenance_label.setText("")
        self.set_enabled(False)

    # --- checks ---------------------------------------------------------------------------------------
    def reasons(self) -> list[str]:
        """Why the fields are not a record that can be staged ([] when they are)."""
        name = self.fields()[0]
        try:
            record = self.record()
        except ValueError as exc:
            return [str(exc)]
        reasons = core_texts(validate_record(record, f"{name}.md" if name else None))
        if name and name != self.editing_name and name in self._known_names():
            reasons.append(self.tr("a record named {name} already exists in this workspace").format(name=repr(name)))
        if is_template(record.body):
            reasons.append(self.tr("the text is still the template: replace it with the fact to remember"))
        return reasons

    def broken_links(self) -> list[str]:
        known = self._known_names()
        return [x for x in find_links(self.body_edit.toPlainText()) if x not in known]

    def check(self) -> None:
        """Re-validate the fields and show the result (runs on every edit)."""
        if not self.active:
            return
        reasons = self.reasons()
        _, _, desc, body = self.fields()
        self._checking = True
        try:
            secrets = self._secret_check(desc + "\n" + body)
        finally:
            self._checking = False
        parts = []
        if self.invalid_file:
            file_reasons = self._invalid_reasons(self.editing_name or "")
            if file_reasons:
                text = self.tr(
                    "<b>This file is invalid</b> (agents skip it): {reasons}. The fields show what could be "
                    "read from it; correct them and stage to replace the file (Staged changes shows the old "
                    "text against the new)."
                ).format(reasons=html.escape("; ".join(core_texts(file_reasons))))
                parts.append(f"<span style='color:#b3261e'>{text}</span>")
                if "\ufffd" in self._loaded[3]:
                    text = self.tr(
                        "Bytes that are not UTF-8 are shown as �; staging writes them as � (the old file "
                        "stays in the Recycle Bin's history)."
                    )
                    parts.append(f"<span style='color:#b3261e'>{text}</span>")
        untouched = self.editing_name is None and self.fields() == ("", "project", "", new_body())
        if reasons and untouched:  # a new record: nothing is wrong before anything was typed
            hint = self.tr("Fill in a name, a description and the fact, then Stage.")
            parts.append(f"<span style='color:#555'>{html.escape(hint)}</span>")
        elif reasons:
            parts.append(
                "<span style='color:#b3261e'>" + "<br>".join(f"✗ {html.escape(r)}" for r in reasons) + "</span>"
            )
        if secrets:
            text = self.tr("⚠ Looks like a credential — agents read memory: {where}").format(
                where=html.escape("; ".join(secrets))
            )
            parts.append(f"<span style='color:#8a5a00'>{text}</span>")
        if not reasons and not secrets and not self.invalid_file:
            parts.append("<span style='color:#1b6e20'>" + self.tr("✓ Valid record") + "</span>")
        self.validation_label.setText("<br>".join(parts))
        # An invalid file can be staged as soon as the fields make a valid record, edited or not.
        self.stage_button.setEnabled(not reasons and (self.dirty() or self.invalid_file))
        self._update_revert(self.dirty())
        self._show_links(body)

    def _show_links(self, body: str) -> None:
        links = find_links(body)
        if not links:
            self.links_label.setText("")
            return
        known = self._known_names()
        no_such, missing = self.tr("no such record"), self.tr("(missing)")
        parts = []
        for link in links:
            if link in known:
                parts.append(f'<a href="{html.escape(link)}">[[{html.escape(link)}]]</a>')
            else:
                parts.append(
                    f'<span style="color:#b3261e;text-decoration:line-through" title="{no_such}">'
                    f"[[{html.escape(link)}]]</span> <span style='color:#b3261e'>{missing}</span>"
                )
        self.links_label.setText(self.tr("Links: ") + " · ".join(parts))

    def _secret_check(self, text: str) -> list[str]:
        """Credential warnings for the editor text, once the scanner is warm.

        The scanner's first use imports detect-secrets (~0.2-0.5 s of CPU). Opening a record (the
        first one opens by itself at start-up) never waits for that: the window warms it on a worker
        once start-up is done (``warm_up``), and the check re-runs then. The first edit warms it too.
        """
        if not _SecretScan.ready and self.dirty():
            self.warm_up()
        return secret_warnings(text) if _SecretScan.ready else []

    def warm_up(self) -> None:
        if _SecretScan.ready or self.jobs.running("warm-up"):
            return
        self.jobs.start("warm-up", secret_warnings, "password = 'warm-up'", done=self._warmed, failed=self._warmed)

    def _warmed(self, _result: object = None) -> None:
        _SecretScan.ready = True
        if not self._checking:
            self.check()
