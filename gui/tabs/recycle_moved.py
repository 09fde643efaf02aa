"""Recycle Bin ▸ "Folder missing": workspaces whose folder is gone, with "Moved? Pick the new folder…"
next to Archive (issue 28).

Picking the new folder moves the workspace there (:mod:`core.sync.move`): candidates are found on a
worker by the project's git remote URL and by folder name; when the folder already has a workspace,
the records both hold with different texts are reviewed side by side before anything is written.
A synced workspace from another machine shows up here too; moving it maps it to this machine's folder.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.models import WorkspaceInfo
from core.store.api import MemoryStore
from core.sync.mapping import FolderCandidate, find_candidates, remembered_remote
from core.sync.move import MovePlan, MoveResult, apply_move, plan_move
from core.sync.review import Resolution
from gui.context import AppContext
from gui.core_text import core_text
from gui.tasks import Jobs
from gui.widgets.messages import describe_error
from gui.widgets.read_only import mark_writes
from gui.widgets.review_merge import MergeReview


def _missing(store: MemoryStore) -> list[WorkspaceInfo]:
    return [i for i in store.list_workspaces(counts=False) if i.cwd and not i.cwd_exists]


def _candidates(store: MemoryStore, info: WorkspaceInfo, roots: list[Path]) -> list[FolderCandidate]:
    root = store.root
    url = remembered_remote(root, info.key) if root is not None else None
    known = [Path(i.cwd).parent for i in store.list_workspaces(counts=False) if i.cwd and i.cwd_exists]
    seen: list[Path] = []
    for r in [*roots, *known]:
        if r not in seen:
            seen.append(r)
    return find_candidates(info.cwd, seen, remote_url=url)


class MoveDialog(QDialog):
    """Where did the folder go? Then, if the folder has a workspace already, which texts to keep."""

    moved = Signal(object)  # MoveResult

    def __init__(self, ctx: AppContext, info: WorkspaceInfo, roots: list[Path], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("moveDialog")
        self.ctx, self.info = ctx, info
        self.jobs = Jobs(self, ctx.runner)
        self.plan: MovePlan | None = None
        self.candidates: list[FolderCandidate] = []
        self.setWindowTitle(self.tr("Moved? Pick the new folder"))
        self.resize(900, 600)
        self.pages = QStackedWidget()
        # Page 1: the folder.
        pick = QWidget()
        pl = QVBoxLayout(pick)
        head = QLabel(
            self.tr("The folder of “{name}” no longer exists:\n{cwd}\n\nWhere is the project now?").format(
                name=info.display_name, cwd=info.cwd
            )
        )
        head.setTextFormat(Qt.TextFormat.PlainText)
        head.setWordWrap(True)
        self.candidate_list = QListWidget()
        self.candidate_list.setObjectName("moveCandidates")
        self.looking = QLabel(self.tr("Looking for it by its git remote and its folder name…"))
        self.other_button = QPushButton(self.tr("Other folder…"))
        self.continue_button = QPushButton(self.tr("Continue"))
        self.continue_button.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(self.looking, 1)
        row.addWidget(self.other_button)
        row.addWidget(self.continue_button)
        pl.addWidget(head)
        pl.addWidget(self.candidate_list, 1)
        pl.addLayout(row)
        # Page 2: the review (only when the folder has a workspace with records in common).
        review = QWidget()
        rl = QVBoxLayout(review)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.merge = MergeReview(
            {
                "mine": self.tr("Already in that folder's workspace"),
                "theirs": self.tr("Moved"),
                "keep": self.tr("Keep the one already there"),
                "take": self.tr("Take the moved one"),
            }
        )
        self.move_button = QPushButton(self.tr("Move"))
        self.move_button.setObjectName("moveButton")
        mark_writes(self.move_button)
        self.back_button = QPushButton(self.tr("Back"))
        self.error = QLabel()
        self.error.setStyleSheet("color:#a12a1c;")
        self.error.setWordWrap(True)
        brow = QHBoxLayout()
        brow.addWidget(self.error, 1)
        brow.addWidget(self.back_button)
        brow.addWidget(self.move_button)
        rl.addWidget(self.summary)
        rl.addWidget(self.merge, 1)
        rl.addLayout(brow)
        self.pages.addWidget(pick)
        self.pages.addWidget(review)
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages)
        self.candidate_list.currentRowChanged.connect(lambda r: self.continue_button.setEnabled(r >= 0))
        self.candidate_list.itemDoubleClicked.connect(lambda _i: self.continue_with_selected())
        self.continue_button.clicked.connect(self.continue_with_selected)
        self.other_button.clicked.connect(self.pick_other)
        self.back_button.clicked.connect(lambda: self.pages.setCurrentIndex(0))
        self.move_button.clicked.connect(self.do_move)
        self.merge.chosen.connect(self._chosen)
        self.jobs.start("look", _candidates, ctx.store, info, roots, done=self._show_candidates, failed=self._failed)

    def _reason(self, c: FolderCandidate) -> str:
        return {
            "git-remote": self.tr("same git remote"),
            "same-name": self.tr("same folder name"),
            "similar-name": self.tr("similar folder name"),
        }.get(c.reason, c.reason)

    def _show_candidates(self, found: list[FolderCandidate]) -> None:
        self.candidates = found
        self.candidate_list.clear()
        for c in found:
            self.candidate_list.addItem(f"{c.path}    ({self._reason(c)})")
        self.looking.setText(
            self.tr("%n possible folder(s) found.", "", len(found))
            if found
            else self.tr("Nothing found nearby; pick the folder yourself.")
        )
        if found:
            self.candidate_list.setCurrentRow(0)

    def pick_other(self) -> None:
        start = str(Path(self.info.cwd).parent)
        chosen = self.ctx.dialogs.choose_directory(self, self.tr("The project's new folder"), start)
        if chosen:
            self.plan_for(chosen)

    def continue_with_selected(self) -> None:
        row = self.candidate_list.currentRow()
        if 0 <= row < len(self.candidates):
            self.plan_for(self.candidates[row].path)

    def plan_for(self, folder: str) -> None:
        self.error.setText("")
        self.jobs.start(
            "plan", plan_move, self.ctx.store, self.info.key, folder, done=self._show_plan, failed=self._failed
        )

    def _show_plan(self, plan: MovePlan) -> None:
        self.plan = plan
        text = self.tr("Move “{name}” to {folder}.").format(name=self.info.display_name, folder=plan.target_cwd)
        text += "\n" + self.tr("Records moving over as they are: %n.", "", len(plan.incoming))
        if plan.is_merge:
            text += " " + self.tr("That folder already has a workspace; identical in both: %n.", "",
                                  len(plan.identical))
        if plan.conflicts:
            text += "\n" + self.tr(
                "In both with different texts: %n. Choose for each (nothing is overwritten unseen; "
                "a replaced version stays in history).", "", len(plan.conflicts)
            )
        if plan.left_behind:
            text += "\n" + self.tr("Invalid files staying in the Recycle Bin copy: %n.", "", len(plan.left_behind))
        text += "\n" + self.tr("The old copy goes to the Recycle Bin; a receipt records the move.")
        self.summary.setText(text)
        self.merge.set_items(plan.conflicts)
        self.merge.setVisible(bool(plan.conflicts))
        self._update_move_button()
        self.pages.setCurrentIndex(1)

    def _chosen(self, item_id: str, res: Resolution) -> None:
        self.merge.set_resolution(item_id, res)
        self._update_move_button()

    def _update_move_button(self) -> None:
        self.move_button.setEnabled(self.plan is not None and self.merge.open_count() == 0)

    def do_move(self) -> None:
        plan = self.plan
        if plan is None:
            return
        self.move_button.setEnabled(False)

        def done(result: MoveResult) -> None:
            self.moved.emit(result)
            self.accept()

        def failed(exc: BaseException) -> None:
            self._failed(exc)
            self._update_move_button()

        res = dict(self.merge.resolutions)
        self.jobs.start("move", apply_move, self.ctx.store, plan, res, done=done, failed=failed)

    def _failed(self, exc: BaseException) -> None:
        self.error.setText(core_text(describe_error(exc)))
        self.looking.setText(core_text(describe_error(exc)))


class MissingFoldersPanel(QGroupBox):
    """Active workspaces whose folder is gone: "Moved? Pick the new folder…" or Archive."""

    moved = Signal(object)  # MoveResult
    archived = Signal(str)  # key

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("missingFolders")
        self.setTitle(self.tr("Folder missing"))
        self.ctx = ctx
        self.jobs = Jobs(self, ctx.runner)
        self.search_roots: list[Path] = [Path.home()]
        self.infos: list[WorkspaceInfo] = []
        self.dialog: MoveDialog | None = None
        self.list = QListWidget()
        self.list.setObjectName("missingList")
        self.moved_button = QPushButton(self.tr("Moved? Pick the new folder…"))
        self.moved_button.setObjectName("movedButton")
        self.archive_button = QPushButton(self.tr("Archive"))
        for b in (self.moved_button, self.archive_button):
            mark_writes(b)
            b.setEnabled(False)
        self.note = QLabel()
        self.note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.note, 1)
        row.addWidget(self.moved_button)
        row.addWidget(self.archive_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addLayout(row)
        self.list.currentRowChanged.connect(self._on_row)
        self.moved_button.clicked.connect(self.open_move)
        self.archive_button.clicked.connect(self.archive_selected)
        self.setVisible(False)

    def _on_row(self, row: int) -> None:
        for b in (self.moved_button, self.archive_button):
            b.setEnabled(row >= 0)

    def refresh(self) -> None:
        self.jobs.start("load", _missing, self.ctx.store, done=self._show, failed=lambda e: self.note.setText(
            core_text(describe_error(e))))

    def _show(self, infos: list[WorkspaceInfo]) -> None:
        self.infos = infos
        self.list.clear()
        for i in infos:
            self.list.addItem(f"{i.display_name}    {i.cwd}")
        self.note.setText(
            self.tr("Agents no longer load these workspaces: their folder is gone (moved, renamed, or on another "
                    "machine). Point each at its new folder, or archive it.")
        )
        self.setVisible(bool(infos))
        if infos:
            self.list.setCurrentRow(0)

    def selected(self) -> WorkspaceInfo | None:
        row = self.list.currentRow()
        return self.infos[row] if 0 <= row < len(self.infos) else None

    def open_move(self) -> None:
        info = self.selected()
        if info is None:
            return
        self.dialog = MoveDialog(self.ctx, info, self.search_roots, self)
        self.dialog.moved.connect(self._moved)
        self.dialog.open()

    def _moved(self, result: MoveResult) -> None:
        self.moved.emit(result)
        self.refresh()

    def archive_selected(self) -> None:
        info = self.selected()
        if info is None:
            return
        text = self.tr("Move the workspace {name} ({folder}) to the Recycle Bin? You can restore it later.").format(
            name=info.display_name, folder=info.cwd
        )
        if not self.ctx.dialogs.confirm(self, self.tr("Archive workspace?"), text, self.tr("Archive")):
            return
        def done(_info: WorkspaceInfo) -> None:
            self.archived.emit(info.key)
            self.refresh()

        def failed(exc: BaseException) -> None:
            self.note.setText(core_text(describe_error(exc)))

        self.jobs.start("archive", self.ctx.store.recycle.archive, info.key, done=done, failed=failed)
