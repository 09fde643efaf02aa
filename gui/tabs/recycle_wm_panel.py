"""Recycle Bin → DSH workspace memory: that store's archived scopes beside ours (issue 12).

The only writes this app makes to another store, each on an explicit click (house rule 6):
Restore (one rename back into ``scopes/``; refused when an active scope of that folder exists),
Purge (the folder name typed exactly, through the dialogs seam) and Archive for an active scope
whose folder is gone. All of them, and every read, run on the runner (``WorkspaceMemoryBin``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableView, QVBoxLayout

from core.errors import ConflictError, DshMemoryError, NotFoundError
from core.sources.workspace_memory import ScopeFolder
from core.sources.workspace_memory_bin import BinScope, WorkspaceMemoryBin
from gui.context import AppContext
from gui.qtmodels.sources_models import WorkspaceMemoryBinModel
from gui.sources import BinContents, read_bin, source_paths
from gui.tasks import Jobs
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error
from gui.widgets.tables import setup_table

Preview = Callable[[str, str], None]
translate = QCoreApplication.translate


def describe_scope(scope: ScopeFolder) -> str:
    lines = [
        translate("WorkspaceMemoryBinPanel", "Folder: {folder}").format(folder=scope.cwd),
        translate("WorkspaceMemoryBinPanel", "Scope: {path}").format(path=scope.path),
        translate("WorkspaceMemoryBinPanel", "%n entries", "", len(scope.entries)),
        "",
    ]
    for e in scope.entries:
        status = "" if e.status == "active" else f"  [{e.status}{': ' + e.status_detail if e.status_detail else ''}]"
        lines.append(f"- ({e.kind}) {e.title}{status}\n  {' '.join(e.text.split())[:200]}")
    if scope.summary.strip():
        lines += ["", translate("WorkspaceMemoryBinPanel", "Summary:"), scope.summary.strip()]
    if scope.problems:
        lines += [
            "",
            translate("WorkspaceMemoryBinPanel", "Problems:"),
            *(f"- {p.path}: {p.reason}" for p in scope.problems),
        ]
    return "\n".join(lines)


class WorkspaceMemoryBinPanel(QGroupBox):
    """Archived (and stale) workspace-memory scopes with Restore, Archive and Purge."""

    selected = Signal()  # a row here was selected: the tab clears its own selection

    def __init__(self, ctx: AppContext, jobs: Jobs, banner: Banner, preview: Preview) -> None:
        super().__init__()
        self.setTitle(self.tr("DSH workspace memory (another store)"))
        self.ctx = ctx
        self.jobs = jobs
        self.banner = banner
        self.preview = preview
        self.bin = WorkspaceMemoryBin(source_paths(ctx).workspace_memory)
        self._busy = False
        self.model = WorkspaceMemoryBinModel(self)
        self.view = QTableView()
        self.view.setObjectName("workspaceMemoryBin")
        setup_table(self.view, row_height=None)
        self.view.setSortingEnabled(False)
        self.view.setModel(self.model)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # folders differ at their end
        header = self.view.horizontalHeader()
        for col in range(len(WorkspaceMemoryBinModel.HEADERS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(WorkspaceMemoryBinModel.FOLDER, QHeaderView.ResizeMode.Stretch)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color:#555;")
        self.restore_button = QPushButton(self.tr("Restore"))
        self.archive_button = QPushButton(self.tr("Archive"))
        self.archive_button.setToolTip(self.tr("Move an active scope whose folder no longer exists into its archive"))
        self.purge_button = QPushButton(self.tr("Delete forever…"))
        row = QHBoxLayout()
        row.addWidget(self.note, 1)
        for b in (self.restore_button, self.archive_button, self.purge_button):
            row.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
        layout.addLayout(row)
        self.restore_button.clicked.connect(self.restore_selected)
        self.archive_button.clicked.connect(self.archive_selected)
        self.purge_button.clicked.connect(self.purge_selected)
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._on_selected())
        self._update_buttons()

    # --- reading ------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.jobs.start("wm-bin", read_bin, self.bin, done=self._show, failed=self._failed)

    def _show(self, contents: BinContents) -> None:
        current = self.current()
        self.model.set_scopes(contents.rows)
        a, s = len(contents.archived), len(contents.stale)
        parts = [self.tr("1 archived scope") if a == 1 else self.tr("%n archived scopes", "", a)]
        if s:
            parts.append(
                self.tr("1 active scope whose folder is gone (Archive offered)")
                if s == 1
                else self.tr("%n active scopes whose folder is gone (Archive offered)", "", s)
            )
        text = self.tr("; ").join(parts) + self.tr(".")
        if contents.interrupted:
            text += " " + self.tr(
                "%n interrupted purge(s) left behind: the next Delete forever finishes them.", "", contents.interrupted
            )
        self.note.setText(text)
        if current is not None and (row := self.model.row_of(current.key, current.archived)) >= 0:
            self.view.selectRow(row)
        self._update_buttons()

    def _failed(self, exc: BaseException) -> None:
        self.note.setText(self.tr("Could not read workspace memory's archive: {why}").format(why=describe_error(exc)))

    def current(self) -> BinScope | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.scope(rows[0].row()) if rows else None

    def clear_selection(self) -> None:
        self.view.selectionModel().blockSignals(True)
        self.view.clearSelection()
        self.view.selectionModel().blockSignals(False)
        self.view.viewport().update()
        self._update_buttons()

    def _on_selected(self) -> None:
        self._update_buttons()
        scope = self.current()
        if scope is None:
            return
        self.selected.emit()
        title = (
            self.tr("Archived workspace memory of “{name}”")
            if scope.archived
            else self.tr("Active workspace memory of “{name}”")
        ).format(name=scope.name)
        if not scope.archived:
            self.preview(
                title,
                scope.cwd + "\n" + self.tr("This folder no longer exists. %n entries.", "", scope.entries),
            )
            return
        self.preview(title, self.tr("Loading…"))

        def done(folder: ScopeFolder) -> None:
            self.preview(title, describe_scope(folder))

        def failed(exc: BaseException) -> None:
            self.preview(title, self.tr("Could not read this scope: {why}").format(why=describe_error(exc)))

        self.jobs.start("wm-preview", self.bin.preview, scope.key, done=done, failed=failed)

    def _update_buttons(self) -> None:
        s = self.current()
        self.restore_button.setEnabled(not self._busy and s is not None and s.archived)
        self.purge_button.setEnabled(not self._busy and s is not None and s.archived)
        self.archive_button.setEnabled(not self._busy and s is not None and not s.archived)

    # --- explicit writes ---------------------------------------------------------------------------
    def _run(
        self, fn: Callable[..., object], args: tuple[object, ...], ok: str, fail: Callable[[BaseException], str]
    ) -> None:
        self._busy = True
        self._update_buttons()

        def done(_result: object) -> None:
            self._busy = False
            self.banner.show_message("ok", ok)
            self.refresh()

        def failed(exc: BaseException) -> None:
            self._busy = False
            self.banner.show_message("error", fail(exc))
            self.refresh()

        self.jobs.start("wm-action", fn, *args, done=done, failed=failed)

    def restore_selected(self) -> None:
        s = self.current()
        if s is None or not s.archived:
            return

        def why(exc: BaseException) -> str:
            if isinstance(exc, ConflictError):
                return self.tr(
                    "Could not restore the workspace memory of “{name}”: that store has an active scope "
                    "for {folder} again. Nothing was moved. Archive or delete one of them first."
                ).format(name=s.name, folder=s.cwd)
            if isinstance(exc, NotFoundError):
                return self.tr(
                    "“{name}” is no longer in workspace memory's archive. The list has been refreshed."
                ).format(name=s.name)
            return self.tr("Could not restore “{name}”: {why}").format(name=s.name, why=describe_error(exc))

        ok = self.tr(
            "Restored the workspace memory of “{name}” (%n entries) into DSH workspace memory. "
            "A running DSH sees it after a restart.",
            "",
            s.entries,
        ).format(name=s.name)
        self._run(self.bin.restore, (s.key,), ok, why)

    def archive_selected(self) -> None:
        s = self.current()
        if s is None or s.archived:
            return
        if not self.ctx.dialogs.confirm(
            self,
            self.tr("Archive workspace memory"),
            self.tr(
                "{folder} no longer exists.\n\nMove its DSH workspace memory (%n entries) into that "
                "store's archive? It can be restored from here.",
                "",
                s.entries,
            ).format(folder=s.cwd),
            self.tr("Archive"),
        ):
            return
        ok = self.tr("Archived the workspace memory of “{name}”; it is listed here and can be restored.").format(
            name=s.name
        )
        self._run(
            self.bin.archive, (s.key,), ok, lambda exc: self.tr("Could not archive: {why}").format(why=_message(exc))
        )

    def purge_selected(self) -> None:
        s = self.current()
        if s is None or not s.archived:
            return
        typed = self.ctx.dialogs.ask_text(
            self,
            self.tr("Delete archived workspace memory forever"),
            self.tr(
                "This permanently deletes DSH workspace memory's archived scope for {folder} and its "
                "%n entries. It cannot be undone.\n\nType the folder name “{name}” to confirm:",
                "",
                s.entries,
            ).format(folder=s.cwd, name=s.name),
        )
        if typed is None:
            self.banner.show_message(
                "info",
                self.tr("Nothing was deleted. “{name}” is still in workspace memory's archive.").format(name=s.name),
            )
            return
        if typed != s.name:
            self.banner.show_message(
                "error",
                self.tr(
                    "Nothing was deleted: “{typed}” is not the folder name. To delete it, type “{name}” exactly."
                ).format(typed=typed, name=s.name),
            )
            return
        ok = self.tr("Purged the archived workspace memory of “{name}” (%n entries).", "", s.entries).format(
            name=s.name
        )
        self._run(
            self.bin.purge, (s.key, typed), ok, lambda exc: self.tr("Purge failed: {why}").format(why=_message(exc))
        )


def _message(exc: BaseException) -> str:
    return exc.message if isinstance(exc, DshMemoryError) else describe_error(exc)
