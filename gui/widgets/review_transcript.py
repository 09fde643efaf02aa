"""A read-only transcript of a session: what the user and the assistant said and which tools ran.

Shown before a run (what is in this session?) and during a review, where the seqs the selected
change cites are highlighted and scrolled into view, so the user reads the words behind a change.
Tool bodies never appear (the evidence has none): a tool is its name and outcome.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QLabel, QTextEdit, QVBoxLayout, QWidget

from core.sessions.models import Evidence

_HIGHLIGHT = QColor("#ffe58a")


def transcript_items(evidence: Evidence) -> list[tuple[int, str, str]]:
    """``(seq, who, text)`` in seq order: user and assistant messages, and tools as ``name\x1foutcome``."""
    items: list[tuple[int, int, str, str]] = []
    for turn in evidence.turns:
        for m in turn.messages:
            items.append((m.seq, 0, m.role, m.text))
        for tool in turn.tools:
            items.append((tool.seq, 1, "tool", f"{tool.name}\x1f{tool.outcome}"))
    items.sort(key=lambda i: (i[0], i[1]))
    return [(seq, who, text) for seq, _, who, text in items]


class TranscriptPane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcriptPane")
        self.caption = QLabel(self.tr("Select a session to read its transcript."))
        self.caption.setObjectName("transcriptCaption")
        self.caption.setWordWrap(True)
        self.view = QTextEdit()
        self.view.setObjectName("sessionTranscript")
        self.view.setReadOnly(True)
        self.view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)
        self.evidence: Evidence | None = None
        self._highlighted: list[int] = []

    def _outcome(self, outcome: str) -> str:
        words = {
            "ok": self.tr("ok"),
            "error": self.tr("error"),
            "rejected": self.tr("rejected"),
            "cancelled": self.tr("cancelled"),
            "unknown": self.tr("no result recorded"),
        }
        return words.get(outcome, outcome)

    def _who(self, who: str) -> str:
        return {"user": self.tr("user"), "assistant": self.tr("assistant"), "tool": self.tr("tool")}.get(who, who)

    def show_evidence(self, evidence: Evidence | None, highlight: Iterable[int] = (), *, caption: str = "") -> None:
        """Show ``evidence`` (None: nothing) with the messages at ``highlight`` marked."""
        self.evidence = evidence
        wanted = set(highlight)
        self.view.clear()
        self._highlighted = []
        if evidence is None:
            self.caption.setText(caption or self.tr("Select a session to read its transcript."))
            return
        self.caption.setText(
            caption
            or self.tr("Transcript of “{title}” (read-only; tool output is never shown)").format(
                title=evidence.title or evidence.session_id
            )
        )
        cursor = QTextCursor(self.view.document())
        head = QTextCharFormat()
        head.setFontWeight(QFont.Weight.Bold)
        first_hit: int | None = None
        for seq, who, text in transcript_items(evidence):
            if who == "tool":  # "name\x1foutcome": the outcome in the user's language
                name, _, outcome = text.partition("\x1f")
                text = f"{name} — {self._outcome(outcome)}"
            body = QTextCharFormat()
            if who == "tool":
                body.setForeground(QColor("#666666"))
            if seq in wanted:
                body.setBackground(_HIGHLIGHT)
                head_hit = QTextCharFormat(head)
                head_hit.setBackground(_HIGHLIGHT)
                self._highlighted.append(seq)
                if first_hit is None:
                    first_hit = cursor.position()
            label = f"[seq {seq}] {self._who(who)}"
            answer = next((m.answer_to for t in evidence.turns for m in t.messages if m.seq == seq and m.answer_to), "")
            if answer:
                label += " " + self.tr("(answer to “{question}”)").format(question=answer)
            cursor.insertText(label + ("" if who == "tool" else ":"), head_hit if seq in wanted else head)
            cursor.insertText(" " if who == "tool" else "\n", body)
            cursor.insertText(text + "\n\n", body)
        if first_hit is not None:
            at = QTextCursor(self.view.document())
            at.setPosition(first_hit)
            self.view.setTextCursor(at)
            self.view.ensureCursorVisible()
        else:
            self.view.moveCursor(QTextCursor.MoveOperation.Start)

    def highlighted_seqs(self) -> list[int]:
        """The seqs shown highlighted (what the selected change cites and the session holds)."""
        return list(self._highlighted)

    def text(self) -> str:
        return self.view.toPlainText()
