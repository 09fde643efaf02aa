"""Global tab: GLOBAL.md in a Markdown editor beside its rendered preview, saved with compare-and-swap."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.atomic import write_atomic
from core.display import format_size
from core.errors import ConflictError, SecretRefusedError
from core.models import GlobalSnapshot, Revision
from core.store.api import MemoryStore
from core.textdiff import unified_diff
from gui.context import AppContext
from gui.core_text import core_texts
from gui.tabs.base import Tab
from gui.tabs.workspace.undo_button import UndoCommitButton
from gui.widgets.banner import Banner
from gui.widgets.diff_view import DiffView
from gui.widgets.fonts import monospace_font
from gui.widgets.markdown_view import MarkdownPreview, render_markdown
from gui.widgets.messages import describe_error
from gui.widgets.read_only import mark_writes

# The ways out of a save conflict, by key. "compare" (keep my edits, look at both) is the default
# of the question: Enter or Escape must never discard what the user typed.
CONFLICT_KEYS = ("compare", "overwrite", "copy", "reload")
_LEGACY_CHOICES = {"Reload": "reload", "Keep mine": "overwrite", "Save a copy": "copy"}


def write_copy(path: Path, text: str) -> None:
    """Write a conflict copy atomically (outside the memory root, so not through the store)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"))


def _read_global(store: MemoryStore) -> GlobalSnapshot:
    snap = store.read_global()
    render_markdown(snap.text)  # warm the preview's cache here, not on the GUI thread
    return snap


class GlobalTab(Tab):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.copies_dir = ctx.dsh_home / "memory-conflicts"
        self.snapshot: GlobalSnapshot | None = None
        self._loaded_text = ""  # editor text that matches ``base_revision``
        self._own_write = False  # the next load shows what this tab itself wrote (an undo)
        self.base_revision: Revision | None = None
        self._conflict: tuple[str, str, Revision] | None = None  # (mine, disk text, disk revision)
        self._busy = False
        self._preview_wanted: str | None = None  # text whose rendering is on its way

        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.setSpacing(6)

        head = QHBoxLayout()
        title = QLabel(
            self.tr("<b>GLOBAL.md</b> — about you: profile, preferences, general tips. Every agent loads it.")
        )
        head.addWidget(title, 1)
        self.size_label = QLabel()
        self.size_label.setObjectName("global_size")
        head.addWidget(self.size_label)
        self.reload_button = QPushButton(self.tr("Reload"))
        self.reload_button.setToolTip(self.tr("Discard your edits and load GLOBAL.md from disk"))
        self.reload_button.clicked.connect(self.reload_from_disk)
        head.addWidget(self.reload_button)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setToolTip(self.tr("Save GLOBAL.md (Ctrl+S)"))
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.save)
        head.addWidget(self.save_button)
        self.undo_button = UndoCommitButton(ctx, lambda: "global", self.has_unsaved_changes)  # ws area's widget
        head.insertWidget(head.indexOf(self.reload_button), self.undo_button)
        outer.addLayout(head)

        self.banner = Banner()
        outer.addWidget(self.banner)
        self.undo_button.undone.connect(self._after_undo)
        self.undo_button.refused.connect(lambda text: self.banner.show_message("warning", text))
        self.undo_button.failed.connect(self._on_error)

        self.conflict_panel = QWidget()
        cp = QVBoxLayout(self.conflict_panel)
        cp.setContentsMargins(0, 0, 0, 0)
        self.conflict_label = QLabel(
            self.tr(
                "GLOBAL.md changed on disk after you opened it. Lines with <b>-</b> are on disk, lines with "
                "<b>+</b> are yours. Nothing was written; your edits are still in the editor."
            )
        )
        self.conflict_label.setWordWrap(True)
        cp.addWidget(self.conflict_label)
        self.conflict_diff = DiffView()
        self.conflict_diff.setMinimumHeight(160)
        cp.addWidget(self.conflict_diff)
        row = QHBoxLayout()
        row.addStretch(1)
        self.conflict_buttons: dict[str, QPushButton] = {}
        labels = self._conflict_labels()
        for key in ("overwrite", "copy", "reload"):
            b = QPushButton(labels[key])
            b.setObjectName(f"conflict_{key}")
            b.clicked.connect(lambda _=False, k=key: self.resolve_conflict(k))
            row.addWidget(b)
            self.conflict_buttons[key] = b
        cp.addLayout(row)
        self.conflict_panel.hide()

        self.editor = QPlainTextEdit()
        mark_writes(self.editor, self.save_button)
        self.editor.setObjectName("global_editor")
        self.editor.setFont(monospace_font())
        self.editor.setPlaceholderText(self.tr("# User Profile\n\n# User Preferences\n\n# General Tips\n"))
        self.editor.textChanged.connect(self._on_text_changed)
        self.preview = MarkdownPreview()
        self.preview.setObjectName("global_preview")
        # The preview follows the editor: whatever line is at the editor's top is at the preview's.
        self.editor.verticalScrollBar().valueChanged.connect(lambda _v: self.sync_preview())

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.editor)
        self.splitter.addWidget(self.preview)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)

        vsplit = QSplitter(Qt.Orientation.Vertical)
        vsplit.addWidget(self.conflict_panel)
        vsplit.addWidget(self.splitter)
        vsplit.setStretchFactor(1, 3)
        outer.addWidget(vsplit, 1)

        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(200)
        self._preview_timer.timeout.connect(self._update_preview)

        self._update_size()

    # --- protocol ----------------------------------------------------------------------------
    def refresh(self) -> None:
        self.jobs.start("load", _read_global, self.ctx.store, done=self._on_loaded, failed=self._on_error)

    def _after_undo(self, text: str) -> None:
        """Reload what our own undo wrote, without calling it another program's change."""
        self._own_write = True
        self.refresh()
        self.banner.show_message("ok", text)

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None

    def has_unsaved_changes(self) -> bool:
        return self.editor.toPlainText() != self._loaded_text

    def shutdown(self) -> None:
        super().shutdown()
        self._preview_timer.stop()

    # --- loading -------------------------------------------------------------------------------
    def _on_loaded(self, snap: GlobalSnapshot) -> None:
        own_write, self._own_write = self._own_write, False
        self.snapshot = snap
        if snap.invalid_reasons:
            self.editor.setReadOnly(True)
            self.save_button.setEnabled(False)
            self.banner.show_message(
                "error",
                self.tr(
                    "GLOBAL.md can't be edited here: {reasons}. It is left exactly as it is; fix it in a text editor."
                ).format(reasons="; ".join(core_texts(snap.invalid_reasons))),
                topic="invalid",
            )
        else:
            self.editor.setReadOnly(self.read_only)
            self.save_button.setEnabled(True)
            self.banner.clear(topic="invalid")
        if snap.revision == self.base_revision:
            return  # nothing new on disk
        # Not the first load and not our own undo: someone else wrote it.
        outside = self.base_revision is not None and not own_write
        if self.has_unsaved_changes() and outside:
            self.banner.show_message(
                "warning",
                self.tr(
                    "GLOBAL.md changed on disk (by another program) while you were editing. Your edits are "
                    "kept and nothing was written. Compare the two versions, or load the disk version."
                ),
                [
                    (self.tr("Compare"), self._show_external_diff),
                    (self.tr("Load disk version"), self.reload_from_disk),
                ],
                topic="external",
            )
            return
        self._set_text(snap.text, snap.revision)
        if outside and not snap.invalid_reasons:
            self.banner.show_message(
                "info",
                self.tr("GLOBAL.md changed on disk (by another program); reloaded."),
                topic="external",
                transient=True,
            )

    def _set_text(self, text: str, revision: Revision) -> None:
        self._loaded_text = text
        self.base_revision = revision
        if self.editor.toPlainText() != text:
            cursor_pos = self.editor.textCursor().position()
            bar = self.editor.verticalScrollBar().value()
            self.editor.setPlainText(text)
            cursor = self.editor.textCursor()
            cursor.setPosition(min(cursor_pos, len(text)))
            self.editor.setTextCursor(cursor)
            self.editor.verticalScrollBar().setValue(bar)
        self._update_size()
        self._preview_timer.stop()  # setPlainText started it; render once, now
        self._update_preview()

    def sync_preview(self) -> None:
        """Scroll the preview to the source line at the top of the editor (fractional, so it glides)."""
        bar = self.editor.verticalScrollBar()
        preview_bar = self.preview.verticalScrollBar()
        if bar.value() >= bar.maximum() > 0:
            preview_bar.setValue(preview_bar.maximum())  # the end of the text is the end of the page
            return
        if bar.value() == 0:
            preview_bar.setValue(0)
            return
        block = self.editor.firstVisibleBlock()
        rect = self.editor.blockBoundingGeometry(block).translated(self.editor.contentOffset())
        fraction = min(1.0, max(0.0, -rect.top() / rect.height())) if rect.height() > 0 else 0.0
        self.preview.scroll_to_source_line(block.blockNumber() + fraction)

    def reload_from_disk(self) -> None:
        store = self.ctx.store
        self.banner.clear()
        self.conflict_panel.hide()
        self._conflict = None

        def loaded(snap: GlobalSnapshot) -> None:
            self.snapshot = snap
            self._set_text(snap.text, snap.revision)

        self.jobs.start("reload", store.read_global, done=loaded, failed=self._on_error)

    def _show_external_diff(self) -> None:
        if self.snapshot is None:
            return
        self._show_conflict_panel(self.editor.toPlainText(), self.snapshot.text, self.snapshot.revision)

    # --- editing ----------------------------------------------------------------------------------
    def _on_text_changed(self) -> None:
        self._update_size()
        self._preview_timer.start()

    def _update_preview(self) -> None:
        """Render on a worker (20 KB of Markdown costs ~0.1 s), show it if the text is still current."""
        text = self.editor.toPlainText()
        if text == self.preview.shown_text:
            self._preview_wanted = None  # back to what is shown: a rendering on its way is stale
            return
        if text == self._preview_wanted:
            return
        self._preview_wanted = text

        def show(html: str) -> None:
            if text == self._preview_wanted:
                self.preview.show_rendered(text, html)
                self._preview_wanted = None
                self.sync_preview()

        self.jobs.start("preview", render_markdown, text, done=show, failed=self._on_error)

    def _update_size(self) -> None:
        if self.base_revision is None and not self.editor.toPlainText():
            self.size_label.setText(self.tr("Loading…") if self.snapshot is None else "")
            return
        size = len(self.editor.toPlainText().encode("utf-8"))
        text = format_size(size)
        if self.has_unsaved_changes():
            text = self.tr("{size} (unsaved)").format(size=text)
        self.size_label.setText(text)
        self.size_label.setToolTip(self.tr("{bytes} bytes (UTF-8) — what the agent loads").format(bytes=f"{size:,}"))

    # --- saving ---------------------------------------------------------------------------------
    def save(self, *, allow_secrets: bool = False, expect: Revision | None = None) -> None:
        if self._busy or (not self.has_unsaved_changes() and expect is None):
            return
        self.banner.clear(topic="saved")  # a new action: the last outcome is old news
        if self.snapshot is not None and self.snapshot.invalid_reasons:
            return
        text = self.editor.toPlainText()
        base = expect if expect is not None else self.base_revision
        if base is None:
            return
        store = self.ctx.store
        self._busy = True
        self.save_button.setEnabled(False)

        def done(snap: GlobalSnapshot) -> None:
            self._busy = False
            self.save_button.setEnabled(True)
            self.snapshot = snap
            self._conflict = None
            self.conflict_panel.hide()
            # The user may have typed on while the save ran: only what was saved is "loaded".
            self._loaded_text = text
            self.base_revision = snap.revision
            self._update_size()
            self.banner.show_message(
                "ok", self.tr("Saved GLOBAL.md ({size}).").format(size=format_size(snap.size)), topic="saved"
            )

        def failed(exc: BaseException) -> None:
            self._busy = False
            self.save_button.setEnabled(True)
            if isinstance(exc, ConflictError):
                self._on_conflict(text, exc)
            elif isinstance(exc, SecretRefusedError) and not allow_secrets:
                where = "\n".join(exc.findings)
                if self.ctx.dialogs.confirm(
                    self,
                    self.tr("Possible credential"),
                    self.tr(
                        "GLOBAL.md looks like it contains a credential:\n{where}\n\nAgents read this file. "
                        "Save it anyway?"
                    ).format(where=where),
                    self.tr("Save anyway"),
                ):
                    self.save(allow_secrets=True, expect=base)
                else:
                    self.banner.show_message("warning", self.tr("Not saved: remove the credential, then save again."))
            else:
                self._on_error(exc)

        self.jobs.start(
            "save",
            partial(store.replace_global, origin="manual", allow_secrets=allow_secrets),
            text,
            base,
            done=done,
            failed=failed,
        )

    def _on_conflict(self, mine: str, exc: ConflictError) -> None:
        current = exc.current if isinstance(exc.current, GlobalSnapshot) else None
        if current is not None:
            self._ask_conflict(mine, current)
            return
        store = self.ctx.store
        self.jobs.start(
            "conflict", store.read_global, done=lambda snap: self._ask_conflict(mine, snap), failed=self._on_error
        )

    def _show_conflict_panel(self, mine: str, disk: str, disk_rev: Revision) -> None:
        self._conflict = (mine, disk, disk_rev)
        self.conflict_diff.set_diff(
            unified_diff(disk, mine, self.tr("GLOBAL.md (on disk)"), self.tr("GLOBAL.md (yours)")),
            self.tr("Your text equals the disk version."),
        )
        self.conflict_panel.show()

    def _conflict_labels(self) -> dict[str, str]:
        return {
            "compare": self.tr("Keep my edits and compare"),
            "overwrite": self.tr("Overwrite with mine"),
            "copy": self.tr("Save mine as a copy, load theirs"),
            "reload": self.tr("Discard mine, load theirs"),
        }

    def conflict_question(self) -> tuple[str, str, list[tuple[str, str]]]:
        """The conflict question: title, text and ``(key, label)`` choices (the first is the default)."""
        labels = self._conflict_labels()
        text = self.tr(
            "Someone else (an agent, the CLI or an editor) changed GLOBAL.md after you opened it. "
            "Nothing was written. The differences are shown in the Global tab.\n\n"
            "Keep my edits and compare: look at both versions first; your edits stay in the editor.\n"
            "Overwrite with mine: replace the disk version with yours (the store keeps the one you "
            "replace in its history).\n"
            "Save mine as a copy: write your version to a separate file, then load the disk version.\n"
            "Discard mine: load the disk version."
        )
        return self.tr("GLOBAL.md changed on disk"), text, [(k, labels[k]) for k in CONFLICT_KEYS]

    def _ask_conflict(self, mine: str, disk: GlobalSnapshot) -> None:
        self.snapshot = disk
        self._show_conflict_panel(mine, disk.text, disk.revision)
        self.banner.show_message(
            "warning",
            self.tr("Not saved: GLOBAL.md changed on disk after you opened it. Your edits are kept."),
            topic="conflict",
        )
        title, text, choices = self.conflict_question()
        choice = self.ctx.dialogs.ask(self, title, text, choices, default="compare", escape="compare")
        if choice is not None and choice != "compare":
            self.resolve_conflict(choice)

    def resolve_conflict(self, choice: str) -> None:
        """Settle a save conflict: "overwrite", "copy" or "reload" (the old labels are accepted too).

        Overwrite asks nothing more: the question (or the button under the diff) was the answer.
        """
        choice = _LEGACY_CHOICES.get(choice, choice)
        if self._conflict is None:
            return
        mine, disk, disk_rev = self._conflict
        if choice == "reload":
            self.conflict_panel.hide()
            self._conflict = None
            self.banner.clear()
            self._set_text(disk, disk_rev)
        elif choice == "overwrite":
            if self.editor.toPlainText() != mine:
                self.editor.setPlainText(mine)
            self.save(expect=disk_rev)
        elif choice == "copy":
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            path = self.copies_dir / f"GLOBAL-{stamp}.md"
            try:
                write_copy(path, mine)
            except OSError as exc:
                self._on_error(exc)
                return
            self.conflict_panel.hide()
            self._conflict = None
            self._set_text(disk, disk_rev)
            self.last_copy_path = path
            self.banner.show_message(
                "info", self.tr("Your version was saved to {path}. The disk version is loaded.").format(path=path)
            )

    def _on_error(self, exc: BaseException) -> None:
        self.banner.show_message("error", describe_error(exc))
