"""The window's status line: root path, pending reviews, total bytes, workspace count, archived count."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton, QStatusBar, QWidget

from core.display import format_size
from core.models import Problem, RootStatus


class RootStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.root_label = QLabel()
        self.bytes_label = QLabel()
        self.workspaces_label = QLabel()
        self.archived_label = QLabel()
        self.pending_label = QLabel()
        self.problems_button = QPushButton()
        self.problems_button.setObjectName("problemsButton")
        self.problems_button.setFlat(True)
        self.problems_button.setStyleSheet("color:#a12a1c; padding: 0 6px;")
        self.problems_button.setToolTip(self.tr("What check found wrong in this memory root, and what to do"))
        self.problems_button.hide()
        self.problems: list[Problem] = []
        self.pending_label.setObjectName("pendingCount")
        self.addWidget(self.root_label, 1)
        self.addPermanentWidget(self.problems_button)
        for label in (self.pending_label, self.bytes_label, self.workspaces_label, self.archived_label):
            label.setContentsMargins(8, 0, 8, 0)
            self.addPermanentWidget(label)

    def show_root(self, root: str) -> None:
        self.root_label.setText(self.tr("Root: {root}").format(root=root))
        self.root_label.setToolTip(root)

    def show_status(self, status: RootStatus) -> None:
        self.show_root(status.root)
        self.bytes_label.setText(format_size(status.total_bytes))
        self.bytes_label.setToolTip(
            self.tr("{bytes} bytes of memory in this root (Global, workspaces, archived)").format(
                bytes=f"{status.total_bytes:,}"
            )
        )
        # English plurals as two messages (no English .qm is shipped); Chinese translates both alike.
        n = status.workspace_count
        self.workspaces_label.setText(self.tr("%n workspace", "", n) if n == 1 else self.tr("%n workspaces", "", n))
        self.archived_label.setText(self.tr("%n archived", "", status.archived_count))

    def show_pending(self, reviews: int, proposals: int) -> None:
        """Consolidation reviews and agent proposals waiting for a decision ("" when none)."""
        n = reviews + proposals
        self.pending_label.setText(self.tr("%n pending", "", n) if n else "")
        self.pending_label.setToolTip(
            self.tr("{reviews} and {proposals} wait for a decision (Session Consolidation tab)").format(
                reviews=self.tr("%n consolidation review", "", reviews)
                if reviews == 1
                else self.tr("%n consolidation reviews", "", reviews),
                proposals=self.tr("%n agent proposal", "", proposals)
                if proposals == 1
                else self.tr("%n agent proposals", "", proposals),
            )
        )

    def show_problems(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        n = len(problems)
        self.problems_button.setText(self.tr("⚠ %n problem", "", n) if n == 1 else self.tr("⚠ %n problems", "", n))
        self.problems_button.setVisible(n > 0)

    def show_problem(self, text: str) -> None:
        self.bytes_label.setText("")
        self.workspaces_label.setText("")
        self.archived_label.setText(text)

    def summary(self) -> str:
        parts = [
            self.root_label.text(),
            self.problems_button.text() if self.problems else "",
            self.pending_label.text(),
            self.bytes_label.text(),
            self.workspaces_label.text(),
            self.archived_label.text(),
        ]
        return " | ".join(p for p in parts if p)
