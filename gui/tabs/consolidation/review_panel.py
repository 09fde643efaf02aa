"""The right of the Session Consolidation tab: the review (changes, diff, edit, commit) and the receipts."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.consolidation.proposals import Receipt, Review, ReviewChange
from core.consolidation.receipts import parse_receipt
from core.consolidation.review_sources import review_source
from core.consolidation.review_state import ReceiptItem, strip_frontmatter
from core.provenance import touched
from gui.core_text import core_text, core_texts
from gui.qtmodels.consolidation_models import ReceiptListModel, ReviewChangesModel
from gui.widgets.markdown_view import MarkdownPreview
from gui.widgets.read_only import mark_writes
from gui.widgets.review_diff import ChangeDiffPanel
from gui.widgets.review_editor import ReviewRecordEditor
from gui.widgets.review_receipt import kind_label, receipt_markdown
from gui.widgets.review_transcript import TranscriptPane

TRANSCRIPT_TAB = 3


class ReviewPanel(QTabWidget):
    """Two pages: "Review" (one row per proposed change, its diff or editor) and "Receipts".

    ``record_requested(workspace_key, name)``: the user asked to open a record a receipt touched
    (``name`` is ``GLOBAL.md`` for the Global file); the main window shows it.
    """

    record_requested = Signal(str, str)
    resolve_requested = Signal(str)  # "replace" | "keep" | "merge" for the current supersession
    rename_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._receipt_texts: dict[str, str] = {}
        self._receipt_titles: dict[str, str] = {}
        self.review: Review | None = None
        self.settled: set[str] = set()  # changes whose supersession the user settled (Keep both)
        # Page 1: the review.
        self.review_title = QLabel(self.tr("Run a consolidator on a session to review what it proposes."))
        self.review_title.setObjectName("reviewTitle")
        self.review_title.setWordWrap(True)
        self.review_title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.review_title.font()
        font.setBold(True)
        self.review_title.setFont(font)
        self.review_summary = QLabel()
        self.review_summary.setObjectName("reviewSummary")
        self.review_summary.setWordWrap(True)
        self.changes_model = ReviewChangesModel(self)
        self.changes_view = QTableView()
        self.changes_view.setObjectName("changesTable")
        self.changes_view.setModel(self.changes_model)
        self.changes_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.changes_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.changes_view.verticalHeader().hide()
        self.changes_view.setWordWrap(False)
        ch = self.changes_view.horizontalHeader()
        ch.setSectionResizeMode(ReviewChangesModel.ACCEPT, QHeaderView.ResizeMode.ResizeToContents)
        ch.setSectionResizeMode(ReviewChangesModel.OP, QHeaderView.ResizeMode.ResizeToContents)
        # Names are short (≤ 48 characters) and must be read whole: never elided mid-word.
        ch.setSectionResizeMode(ReviewChangesModel.TARGET, QHeaderView.ResizeMode.ResizeToContents)
        ch.setSectionResizeMode(ReviewChangesModel.REASON, QHeaderView.ResizeMode.Stretch)
        ch.setSectionResizeMode(ReviewChangesModel.NOTES, QHeaderView.ResizeMode.Interactive)
        ch.resizeSection(ReviewChangesModel.NOTES, 170)
        self.changes_view.verticalHeader().setDefaultSectionSize(24)
        self.changes_view.setTextElideMode(Qt.TextElideMode.ElideRight)

        self.diff_panel = ChangeDiffPanel()
        self.editor = ReviewRecordEditor()
        self.detail_tabs = QTabWidget()
        self.detail_tabs.setObjectName("changeDetail")
        self.detail_tabs.addTab(self.diff_panel, self.tr("Diff"))
        # "Edit record": the editor, with the existing record beside it after "Merge into existing".
        self.merge_existing = QPlainTextEdit()
        self.merge_existing.setObjectName("mergeExisting")
        self.merge_existing.setReadOnly(True)
        self.merge_existing_label = QLabel()
        self.merge_existing_label.setObjectName("mergeExistingLabel")
        existing = QWidget()
        el = QVBoxLayout(existing)
        el.setContentsMargins(0, 0, 0, 0)
        el.addWidget(self.merge_existing_label)
        el.addWidget(self.merge_existing, 1)
        self.merge_side = existing
        existing.hide()
        edit_split = QSplitter(Qt.Orientation.Horizontal)
        edit_split.addWidget(existing)
        edit_split.addWidget(self.editor)
        edit_split.setChildrenCollapsible(False)
        self.detail_tabs.addTab(edit_split, self.tr("Edit record"))
        # "What the model saw": the model's transcript, when the consolidator kept one.
        self.transcript_view = QPlainTextEdit()
        self.transcript_view.setObjectName("transcriptView")
        self.transcript_view.setReadOnly(True)
        self.transcript_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.detail_tabs.addTab(self.transcript_view, self.tr("What the model saw"))
        self.detail_tabs.setTabEnabled(2, False)
        # "Transcript": the session read-only, the current change's cited seqs highlighted.
        self.transcript_pane = TranscriptPane()
        self.detail_tabs.addTab(self.transcript_pane, self.tr("Transcript"))  # index TRANSCRIPT_TAB
        # The user's words at the current change's cited seqs, and its supersession choices.
        self.quote_label = QLabel()
        self.quote_label.setObjectName("changeQuotes")
        self.quote_label.setWordWrap(True)
        self.quote_label.setTextFormat(Qt.TextFormat.PlainText)
        self.relation_label = QLabel()
        self.relation_label.setObjectName("relationLabel")
        self.relation_label.setWordWrap(True)
        self.relation_label.setTextFormat(Qt.TextFormat.PlainText)
        self.replace_button = QPushButton(self.tr("Replace"))
        self.replace_button.setObjectName("relationReplace")
        self.replace_button.setToolTip(self.tr("Put the corrected text under the existing record's name"))
        self.keep_button = QPushButton(self.tr("Keep both"))
        self.keep_button.setObjectName("relationKeep")
        self.keep_button.setToolTip(self.tr("Add the new record and leave the existing one as it is"))
        self.merge_relation_button = QPushButton(self.tr("Merge"))
        self.merge_relation_button.setObjectName("relationMerge")
        self.merge_relation_button.setToolTip(self.tr("Append the new text to the existing record"))
        self.replace_button.clicked.connect(lambda: self.resolve_requested.emit("replace"))
        self.keep_button.clicked.connect(lambda: self.resolve_requested.emit("keep"))
        self.merge_relation_button.clicked.connect(lambda: self.resolve_requested.emit("merge"))
        self.relation_bar = QWidget()
        self.relation_bar.setObjectName("relationBar")
        self.relation_bar.setStyleSheet("QWidget#relationBar { background:#fff6dc; border-radius:4px; }")
        bar = QHBoxLayout(self.relation_bar)
        bar.setContentsMargins(6, 3, 6, 3)
        bar.addWidget(self.relation_label, 1)
        for b in (self.replace_button, self.keep_button, self.merge_relation_button):
            bar.addWidget(b)
        self.relation_bar.hide()
        detail = QWidget()
        dl = QVBoxLayout(detail)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addWidget(self.quote_label)
        dl.addWidget(self.relation_bar)
        dl.addWidget(self.detail_tabs, 1)

        self.accept_all_button = QPushButton(self.tr("Accept all valid"))
        self.accept_all_button.setObjectName("acceptAll")
        self.reject_all_button = QPushButton(self.tr("Reject all"))
        self.reject_all_button.setObjectName("rejectAll")
        self.commit_button = QPushButton(self.tr("Commit selected"))
        self.commit_button.setObjectName("commitButton")
        self.selection_label = QLabel()
        self.selection_label.setObjectName("selectionCount")
        self.merge_button = QPushButton(self.tr("Merge into existing"))
        self.merge_button.setObjectName("mergeButton")
        self.merge_button.setToolTip(self.tr("Turn this new record into an update of the similar record it restates"))
        self.merge_button.hide()
        self.rename_button = QPushButton(self.tr("Rename…"))
        self.rename_button.setObjectName("renameButton")
        self.rename_button.setToolTip(self.tr("Give the proposed record another name (checked like any name)"))
        self.rename_button.clicked.connect(self.rename_requested.emit)
        self.delete_button = QPushButton(self.tr("Delete review"))
        # Every one of these writes into the root (receipts, review state, memory): off when read-only.
        mark_writes(
            self.accept_all_button,
            self.reject_all_button,
            self.commit_button,
            self.merge_button,
            self.delete_button,
            self.rename_button,
            self.replace_button,
            self.keep_button,
            self.merge_relation_button,
        )
        self.delete_button.setObjectName("deleteReview")
        self.delete_button.setToolTip(self.tr("Delete this pending review; nothing is written to memory"))
        self.delete_button.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.accept_all_button)
        buttons.addWidget(self.reject_all_button)
        buttons.addWidget(self.merge_button)
        buttons.addWidget(self.rename_button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(self.selection_label)
        buttons.addWidget(self.commit_button)

        review_split = QSplitter(Qt.Orientation.Vertical)
        review_split.addWidget(self.changes_view)
        review_split.addWidget(detail)
        review_split.setStretchFactor(0, 2)
        review_split.setStretchFactor(1, 3)
        review_split.setSizes([230, 420])
        review_split.setChildrenCollapsible(False)
        review_page = QWidget()
        rl = QVBoxLayout(review_page)
        rl.addWidget(self.review_title)
        rl.addWidget(self.review_summary)
        rl.addWidget(review_split, 1)
        rl.addLayout(buttons)

        # Page 2: receipts.
        self.receipt_model = ReceiptListModel(self)
        self.receipts_view = QListView()
        self.receipts_view.setObjectName("receiptsList")
        self.receipts_view.setModel(self.receipt_model)
        self.receipts_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.receipt_view = MarkdownPreview()
        self.receipt_view.setObjectName("receiptView")
        # Provenance: the records this receipt wrote; double-click or "Open record" shows one.
        self.touched_label = QLabel(self.tr("Records this review wrote"))
        self.touched_list = QListWidget()
        self.touched_list.setObjectName("touchedRecords")
        self.touched_list.setMaximumHeight(110)
        self.open_record_button = QPushButton(self.tr("Open record"))
        self.open_record_button.setObjectName("openTouched")
        self.open_record_button.setToolTip(self.tr("Show this record in the Workspace tab"))
        self.open_record_button.clicked.connect(lambda: self.open_touched())
        self.touched_list.itemDoubleClicked.connect(lambda _item: self.open_touched())
        self.touched_list.currentRowChanged.connect(lambda row: self.open_record_button.setEnabled(row >= 0))
        receipt_side = QWidget()
        rs = QVBoxLayout(receipt_side)
        rs.setContentsMargins(0, 0, 0, 0)
        rs.addWidget(self.receipt_view, 1)
        rs.addWidget(self.touched_label)
        touched_row = QHBoxLayout()
        touched_row.addWidget(self.touched_list, 1)
        touched_row.addWidget(self.open_record_button, 0, Qt.AlignmentFlag.AlignTop)
        rs.addLayout(touched_row)
        self._receipt_workspace = ""
        receipts_split = QSplitter(Qt.Orientation.Horizontal)
        receipts_split.addWidget(self.receipts_view)
        receipts_split.addWidget(receipt_side)
        receipts_split.setStretchFactor(0, 2)
        receipts_split.setStretchFactor(1, 3)
        receipts_split.setSizes([300, 440])
        self.receipts_view.setWordWrap(True)
        self.receipts_view.setAlternatingRowColors(True)
        self.receipts_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.setObjectName("reviewTabs")
        self.addTab(review_page, self.tr("Review"))
        self.addTab(receipts_split, self.tr("Receipts"))

    # --- the review -------------------------------------------------------------------------------------
    def show_review(self, review: Review | None, *, reason: str = "") -> None:
        self.review = review
        self.settled = set()
        self.changes_model.set_changes(review.changes if review else (), review.edited if review else ())
        transcript = review.proposal.transcript if review is not None else None
        self.transcript_view.setPlainText(transcript.render() if transcript is not None else "")
        self.detail_tabs.setTabEnabled(2, transcript is not None and bool(transcript.entries))
        self.merge_side.hide()
        self.transcript_pane.show_evidence(review.evidence if review is not None else None)
        # Agent proposals and imports come with no session: nothing to read there.
        self.detail_tabs.setTabEnabled(TRANSCRIPT_TAB, review is None or review.evidence is not None)
        self.delete_button.setVisible(
            review is not None and (review.restored or review_source(review.consolidator) != "session")
        )
        self.delete_button.setText(
            self.tr("Reject proposal")
            if review is not None and review_source(review.consolidator) == "agent"
            else self.tr("Delete review")
        )
        if review is None:
            self.review_title.setText(self.tr("Run a consolidator on a session to review what it proposes."))
            self.review_summary.setText("")
            self.diff_panel.clear()
            self.editor.set_record(None)
            return
        model = f" · {review.model}" if review.model else ""
        title = core_text(review.session_title) or review.session_id  # an agent proposal's title is core's
        self.review_title.setText(f"{title} — {review.consolidator}{model}")
        refused = sum(1 for c in review.changes if c.problems)
        # The offline rules' summary is their English tally of what the counts below already say;
        # a model's summary is its own words about the session (content, shown as it is).
        summary = "" if review.consolidator == "offline" else (review.proposal.summary or "")
        source = review_source(review.consolidator)
        n = len(review.actionable)
        head = self.tr("1 change to review") if n == 1 else self.tr("%n changes to review", "", n)
        if refused:
            head += self.tr(", %n refused by the checks", "", refused)
        parts = [head, self.tr("workspace {cwd}").format(cwd=review.cwd)]
        if source == "session":  # agents and imports bring no session seqs
            parts.append(self.tr("seqs {first}–{last}").format(first=review.seq_range[0], last=review.seq_range[1]))
        parts.append(self.tr("review {id}").format(id=review.review_id))
        lines = [summary] if summary and summary != reason else []
        if reason:
            lines.append(self.tr("The agent's reason: {reason}").format(reason=reason))
        if transcript is not None and transcript.fallback_note:
            lines.append(transcript.fallback_note)
        if review.restored:
            lines.append(self.tr("Restored from a saved review; the consolidator was not run again."))
        lines.append(" · ".join(parts))
        self.review_summary.setText("\n".join(lines))
        self.setCurrentIndex(0)
        self.detail_tabs.setCurrentIndex(0)  # the diff first (a preview may have shown the transcript)
        if self.changes_model.rowCount():
            self.changes_view.selectRow(0)
        self.show_current_change()

    def current_change_row(self) -> int:
        index = self.changes_view.selectionModel().currentIndex()
        return index.row() if index.isValid() else -1

    def show_current_change(self) -> None:
        row = self.current_change_row()
        if row < 0 or row >= self.changes_model.rowCount():
            self.diff_panel.clear()
            self.editor.set_record(None)
            self.quote_label.clear()
            self.relation_bar.hide()
            return
        r = self.changes_model.change_row(row)
        current = r.current
        self._show_evidence_of(current, related=r.edited is None)
        caption = f"{kind_label(current.kind)} {current.target or ''}".strip()
        if self.changes_model.is_edited(row):
            caption += self.tr(" (edited)")
        if current.similar_to and r.edited is None:
            caption += self.tr(" — similar to [[{name}]], {percent} %").format(
                name=current.similar_to, percent=current.similarity
            )
        self.merge_button.setVisible(bool(current.similar_to) and r.edited is None)
        if current.problems:
            caption += self.tr(" — refused: {why}").format(why="; ".join(core_texts(current.problems)))
        self.diff_panel.show_change(caption, current.before, current.after, current.diff, current.target)
        self.editor.set_record(current.record if current.kind == "put" else None, editable=current.is_valid)

    def _show_evidence_of(self, change: ReviewChange, *, related: bool) -> None:
        """The user's words behind ``change``, its cited seqs highlighted, and its supersession choices."""
        if change.quotes:
            words = "\n".join(f"[seq {seq}] “{text}”" for seq, text in change.quotes)
            self.quote_label.setText(self.tr("The user's words:") + "\n" + words)
        elif change.evidence:
            self.quote_label.setText(self.tr("No words of the user at the cited seqs."))
        else:
            self.quote_label.setText("")
        self.quote_label.setVisible(bool(self.quote_label.text()))
        if self.review is not None and self.review.evidence is not None:
            self.transcript_pane.show_evidence(self.review.evidence, change.evidence)
        show = related and change.related_to is not None and change.relation != "" and change.id not in self.settled
        if show:
            text = (
                self.tr("Contradicts [[{name}]]: replace it, keep both, or merge?")
                if change.relation == "contradicts"
                else self.tr("Supersedes [[{name}]]: replace it, keep both, or merge?")
            )
            self.relation_label.setText(text.format(name=change.related_to))
        self.relation_bar.setVisible(show)

    def show_merge(self, merged: ReviewChange) -> None:
        """After "Merge into existing": the existing record beside the merged one, in the editor."""
        self.merge_existing_label.setText(self.tr("Existing {target}").format(target=merged.target))
        self.merge_existing.setPlainText(merged.before or "")
        self.merge_side.show()
        self.detail_tabs.setCurrentIndex(1)

    def set_all(self, accepted: bool) -> None:
        for i in range(self.changes_model.rowCount()):
            self.changes_model.set_accepted(i, accepted)

    def toggle_current(self) -> None:
        """Space in the changes list: accept or reject the current change."""
        row = self.current_change_row()
        if row >= 0:
            self.changes_model.set_accepted(row, not self.changes_model.change_row(row).accepted)

    def update_controls(self, busy: bool) -> None:
        has_review = self.review is not None and not busy
        accepted = self.changes_model.accepted_rows()
        any_acceptable = any(r.acceptable for r in self.changes_model.change_rows())
        self.accept_all_button.setEnabled(has_review and any_acceptable)  # nothing to accept on 0 changes
        self.reject_all_button.setEnabled(has_review and any_acceptable)
        row = self.current_change_row()
        current = self.changes_model.change_row(row).current if 0 <= row < self.changes_model.rowCount() else None
        self.rename_button.setEnabled(has_review and current is not None and current.kind == "put")
        for b in (self.replace_button, self.keep_button, self.merge_relation_button):
            b.setEnabled(has_review)
        self.commit_button.setEnabled(has_review)
        self.merge_button.setEnabled(has_review)
        self.delete_button.setEnabled(has_review)
        closing_text = (
            self.tr("Commit selected") if accepted or self.review is None else self.tr("Reject all and close")
        )
        self.commit_button.setText(closing_text)
        total = sum(1 for r in self.changes_model.change_rows() if r.acceptable)
        counts = (
            self.tr("{n} of {total} accepted").format(n=len(accepted), total=total) if self.review is not None else ""
        )
        self.selection_label.setText(counts)
        self.editor.setEnabled(not busy)

    # --- receipts ---------------------------------------------------------------------------------------
    def set_receipts(self, items: list[ReceiptItem], texts: dict[str, str]) -> None:
        current = self.receipts_view.currentIndex()
        keep = self.receipt_model.item(current.row()).review_id if current.isValid() else None
        self._receipt_texts = texts
        self.receipt_model.set_receipts(items)
        if keep is not None:
            self.show_receipt(keep, switch=False)

    def remember_receipt(self, receipt: Receipt, title: str) -> None:
        """Show a receipt the pipeline just wrote without waiting for the next refresh."""
        from core.consolidation.receipts import render_receipt

        self._receipt_texts[receipt.review_id] = render_receipt(receipt)
        self._receipt_titles[receipt.review_id] = title
        items = [
            self.receipt_model.item(i)
            for i in range(self.receipt_model.rowCount())
            if self.receipt_model.item(i).review_id != receipt.review_id
        ]
        items.insert(0, ReceiptItem(receipt.review_id, receipt.status, title, receipt.updated))
        self.set_receipts(items, self._receipt_texts)

    def show_receipt(self, review_id: str, *, switch: bool = True) -> bool:
        row = self.receipt_model.row_of(review_id)
        if row < 0:
            return False
        self.receipts_view.setCurrentIndex(self.receipt_model.index(row))
        self.show_current_receipt()
        if switch:
            self.setCurrentIndex(1)
        return True

    def show_current_receipt(self) -> None:
        index: QModelIndex = self.receipts_view.currentIndex()
        self.touched_list.clear()
        self.open_record_button.setEnabled(False)
        if not index.isValid():
            self.receipt_view.set_markdown("")
            self._show_touched([])
            return
        item = self.receipt_model.item(index.row())
        text = self._receipt_texts.get(item.review_id, "")
        receipt = parse_receipt(text)
        if receipt is None:  # not one this app wrote: show the file as it is
            body = strip_frontmatter(text)
            body = "\n".join("##" + line if line.startswith("# ") else line for line in body.splitlines())
            self.receipt_view.set_markdown(body)
            self._show_touched([])
            return
        self._receipt_workspace = receipt.workspace_key
        self.receipt_view.set_markdown(
            receipt_markdown(receipt, item.title or self._receipt_titles.get(item.review_id, ""))
        )
        self._show_touched(touched(receipt))

    def _show_touched(self, names: list[str]) -> None:
        for name in names:
            entry = QListWidgetItem(name if name == "GLOBAL.md" else f"{name}.md")
            entry.setData(Qt.ItemDataRole.UserRole, name)
            self.touched_list.addItem(entry)
        for w in (self.touched_label, self.touched_list, self.open_record_button):
            w.setVisible(bool(names))
        if names:
            self.touched_list.setCurrentRow(0)

    def touched_names(self) -> list[str]:
        """The records the receipt shown wrote (what the provenance list offers)."""
        items = (self.touched_list.item(i) for i in range(self.touched_list.count()))
        return [str(it.data(Qt.ItemDataRole.UserRole)) for it in items if it is not None]

    def open_touched(self, name: str | None = None) -> None:
        """Ask for record ``name`` (default: the current one in the list) to be shown."""
        if name is None:
            item = self.touched_list.currentItem()
            if item is None:
                return
            name = str(item.data(Qt.ItemDataRole.UserRole))
        self.record_requested.emit(self._receipt_workspace, name)

    def clear_receipt(self) -> None:
        """No receipt selected: the pane no longer shows one that belongs to another run."""
        self.receipts_view.selectionModel().clear()
        self.receipts_view.setCurrentIndex(QModelIndex())
        self.show_current_receipt()
