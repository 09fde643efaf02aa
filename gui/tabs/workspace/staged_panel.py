"""The Workspace tab's right-hand pages besides the editor: the staged batch and what the agent loads."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from core.changeset import ChangeSet
from core.display import format_size
from core.models import DeleteOp, WorkspaceSnapshot
from gui.widgets.diff_view import DiffView
from gui.widgets.fonts import monospace_font
from gui.widgets.read_only import mark_writes


class StagedPanel(QWidget):
    """The staged changes as per-file diffs, with Discard all and Commit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        v = QVBoxLayout(self)
        v.setContentsMargins(6, 6, 6, 6)
        self.label = QLabel(self.tr("Nothing staged."))
        self.label.setWordWrap(True)
        v.addWidget(self.label)
        self.diff_view = DiffView()
        self.diff_view.setObjectName("staged_diff")
        self.diff_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # the pane is narrow
        v.addWidget(self.diff_view, 1)
        row = QHBoxLayout()
        self.discard_button = QPushButton(self.tr("Discard all"))
        row.addWidget(self.discard_button)
        row.addStretch(1)
        self.commit_button = QPushButton(self.tr("Commit"))
        mark_writes(self.commit_button)
        self.commit_button.setObjectName("commit_button")
        self.commit_button.setToolTip(self.tr("Write every staged change at once (Ctrl+S)"))
        row.addWidget(self.commit_button)
        v.addLayout(row)
        self.show_changes(None, busy=False)

    def show_changes(self, changes: ChangeSet | None, *, busy: bool) -> None:
        n = len(changes) if changes is not None else 0
        if changes is None or not n:
            self.label.setText(
                self.tr("Nothing staged. Edit a record and press Stage; changes are written together on Commit.")
            )
            self.diff_view.set_diff("", "")
        else:
            parts = [
                self.tr("delete {name}").format(name=name) if isinstance(op, DeleteOp) else name
                for name, op in sorted(changes.staged.items())
            ]
            for out in changes.outgoing.values():
                where = out.target.snapshot.info.display_name
                parts += [self.tr("{name} → {workspace}").format(name=n, workspace=where) for n in sorted(out.records)]
            self.label.setText(
                self.tr(
                    "<b>%n staged change(s)</b>: {names}. Review the diff, then Commit writes them all at once (or nothing).",  # noqa: E501
                    "",
                    n,
                ).format(names=html.escape(", ".join(parts)))
            )
            self.diff_view.set_diff(changes.diff())
        self.commit_button.setEnabled(bool(n) and not busy)
        self.discard_button.setEnabled(bool(n))


class AgentView(QWidget):
    """The workspace's MEMORY.md: what an agent loads for it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        v = QVBoxLayout(self)
        v.setContentsMargins(6, 6, 6, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        v.addWidget(self.label)
        self.text = QPlainTextEdit()
        self.text.setObjectName("agent_view")
        self.text.setReadOnly(True)
        self.text.setFont(monospace_font())
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        v.addWidget(self.text, 1)

    def show_snapshot(self, snap: WorkspaceSnapshot | None) -> None:
        if snap is None:
            self.label.setText(self.tr("Select a workspace."))
            self.text.setPlainText("")
            return
        size = len(snap.index_text.encode("utf-8"))
        self.label.setText(
            self.tr(
                "<b>MEMORY.md</b> — {size} ({bytes} bytes). This index is what the agent loads for this "
                "workspace; it opens individual records when one looks relevant. It is rebuilt on every "
                "commit and never edited by hand."
            ).format(size=format_size(size), bytes=f"{size:,}")
        )
        self.text.setPlainText(snap.index_text or self.tr("(MEMORY.md is missing: the next commit writes it)"))
