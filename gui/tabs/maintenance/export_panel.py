"""Export / import: a zip of plain Markdown + a JSON manifest, and importing one through review.

Export writes outside the memory root only (core refuses otherwise; the file dialog is the
``gui/dialogs.py`` seam). Records with credential-shaped text are left out unless the user ticks
the box, which shows what that means first. Import validates the zip and opens its reviews as a
job; the window then shows them in the Session Consolidation tab (``import_ready``). Nothing is
written to memory until a review there is committed.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.export import ExportSummary, export_zip
from core.import_zip import ImportZipError, ZipReviews, open_zip_reviews, read_export_zip
from core.store.api import MemoryStore
from gui.tabs.base import Tab
from gui.tabs.maintenance.wording import refused_line, zip_error
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error
from gui.widgets.read_only import mark_writes


def prepare_zip_import(store: MemoryStore, path: str) -> ZipReviews:
    """On the worker: validate the zip, then open its reviews (proposed receipts; memory untouched)."""
    from core.settings import load_settings

    return open_zip_reviews(store, read_export_zip(Path(path)), load_settings(store).settings)


class ExportPanel(QWidget):
    import_ready = Signal(object)  # ZipReviews: the window shows them in the Session Consolidation tab

    def __init__(self, tab: Tab, banner: Banner) -> None:
        super().__init__()
        self.tab = tab
        self.banner = banner
        layout = QVBoxLayout(self)

        export_box = QGroupBox(self.tr("Export"))
        export_layout = QVBoxLayout(export_box)
        intro = QLabel(
            self.tr(
                "A zip of plain Markdown (GLOBAL.md, each workspace's records and MEMORY.md) with a JSON manifest "
                "of checksums. The app's internals (.manager/, settings, receipts) are never included."
            )
        )
        intro.setWordWrap(True)
        export_layout.addWidget(intro)
        self.workspace_list = QListWidget()
        self.workspace_list.setObjectName("exportWorkspaces")
        self.workspace_list.itemChanged.connect(lambda _i: self._update_buttons())
        export_layout.addWidget(self.workspace_list, 1)
        picks = QHBoxLayout()
        self.all_button = QPushButton(self.tr("Select all"))
        self.all_button.clicked.connect(lambda: self._check_all(True))
        self.none_button = QPushButton(self.tr("Select none"))
        self.none_button.clicked.connect(lambda: self._check_all(False))
        picks.addWidget(self.all_button)
        picks.addWidget(self.none_button)
        picks.addStretch(1)
        export_layout.addLayout(picks)
        self.global_box = QCheckBox(self.tr("Include GLOBAL.md"))
        self.global_box.setObjectName("exportGlobal")
        self.global_box.setChecked(True)
        self.global_box.toggled.connect(lambda _c: self._update_buttons())
        export_layout.addWidget(self.global_box)
        self.secrets_box = QCheckBox(self.tr("Include records that look like they contain credentials"))
        self.secrets_box.setObjectName("exportSecrets")
        self.secrets_box.toggled.connect(self._secrets_toggled)
        export_layout.addWidget(self.secrets_box)
        self.secrets_warning = QLabel(
            self.tr(
                "⚠ The zip will hold API keys, tokens or passwords in plain text. Anyone who gets the file can "
                "use them: keep it private, and don't share or upload it."
            )
        )
        self.secrets_warning.setObjectName("exportSecretsWarning")
        self.secrets_warning.setWordWrap(True)
        self.secrets_warning.setStyleSheet("color: #8a1c1c;")
        self.secrets_warning.hide()
        export_layout.addWidget(self.secrets_warning)
        row = QHBoxLayout()
        self.export_button = QPushButton(self.tr("Export…"))
        self.export_button.setObjectName("exportButton")
        self.export_button.clicked.connect(self.export)
        row.addWidget(self.export_button)
        row.addStretch(1)
        export_layout.addLayout(row)
        layout.addWidget(export_box, 1)

        import_box = QGroupBox(self.tr("Import"))
        import_layout = QVBoxLayout(import_box)
        text = QLabel(
            self.tr(
                "Import a zip exported by this app. It is checked first (manifest, checksums, paths, sizes); every "
                "change is then reviewed in the Session Consolidation tab, like a consolidation. Nothing is written "
                "until you commit there."
            )
        )
        text.setWordWrap(True)
        import_layout.addWidget(text)
        row = QHBoxLayout()
        self.import_button = QPushButton(self.tr("Import zip…"))
        self.import_button.setObjectName("importZipButton")
        self.import_button.clicked.connect(self.import_zip)
        mark_writes(self.import_button)
        row.addWidget(self.import_button)
        row.addStretch(1)
        import_layout.addLayout(row)
        layout.addWidget(import_box)
        self.last_dir = str(Path.home())

    # --- workspaces -------------------------------------------------------------------------------
    def set_workspaces(self, cwds: dict[str, str]) -> None:
        checked = {k for k, v in self.checked_keys().items() if v} if self.workspace_list.count() else set(cwds)
        self.workspace_list.blockSignals(True)
        self.workspace_list.clear()
        for key, cwd in sorted(cwds.items(), key=lambda kv: kv[1].casefold()):
            item = QListWidgetItem(cwd)
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if key in checked else Qt.CheckState.Unchecked)
            self.workspace_list.addItem(item)
        self.workspace_list.blockSignals(False)
        self._update_buttons()

    def checked_keys(self) -> dict[str, bool]:
        out: dict[str, bool] = {}
        for i in range(self.workspace_list.count()):
            item = self.workspace_list.item(i)
            out[str(item.data(Qt.ItemDataRole.UserRole))] = item.checkState() == Qt.CheckState.Checked
        return out

    def check(self, keys: set[str]) -> None:
        for i in range(self.workspace_list.count()):
            item = self.workspace_list.item(i)
            key = item.data(Qt.ItemDataRole.UserRole)
            item.setCheckState(Qt.CheckState.Checked if key in keys else Qt.CheckState.Unchecked)

    def _check_all(self, on: bool) -> None:
        self.check(set(self.checked_keys()) if on else set())

    def _secrets_toggled(self, on: bool) -> None:
        self.secrets_warning.setVisible(on)

    def _update_buttons(self) -> None:
        any_ws = any(self.checked_keys().values())
        self.export_button.setEnabled(any_ws or self.global_box.isChecked())

    # --- export -----------------------------------------------------------------------------------
    def export(self) -> None:
        keys = [k for k, on in self.checked_keys().items() if on]
        suggested = os.path.join(self.last_dir, f"dsh-memory-{date.today().isoformat()}.zip")
        path = self.tab.ctx.dialogs.save_file(self, self.tr("Export memory"), suggested, self.tr("Zip files (*.zip)"))
        if not path:
            return
        if not path.endswith(".zip"):
            path += ".zip"
        self.last_dir = os.path.dirname(path)
        self.export_button.setEnabled(False)
        self.tab.jobs.start(
            "export",
            lambda store, dest, keys, g, s: export_zip(store, dest, keys=keys, include_global=g, include_secrets=s),
            self.tab.ctx.store,
            Path(path),
            keys,
            self.global_box.isChecked(),
            self.secrets_box.isChecked(),
            done=self._exported,
            failed=self._export_failed,
        )

    def _exported(self, summary: ExportSummary) -> None:
        self._update_buttons()
        text = self.tr("Exported {records} record(s) from %n workspace(s) to {path}.", "", summary.workspaces).format(
            records=f"{summary.records:,}", path=summary.path
        )
        if summary.skipped:
            shown = "; ".join(s["path"] for s in summary.skipped[:3])
            text += (
                "\n"
                + self.tr(
                    "%n file(s) left out (invalid records, or credential-shaped text): ", "", len(summary.skipped)
                )
                + shown
            )
        self.banner.show_message("success", text, topic="export")

    def _export_failed(self, exc: BaseException) -> None:
        self._update_buttons()
        self.banner.show_message(
            "error", self.tr("Nothing was exported: {why}").format(why=describe_error(exc)), topic="export"
        )

    # --- import -----------------------------------------------------------------------------------
    def import_zip(self) -> None:
        path = self.tab.ctx.dialogs.open_file(
            self, self.tr("Import a memory zip"), self.last_dir, self.tr("Zip files (*.zip)")
        )
        if not path:
            return
        self.import_button.setEnabled(False)
        self.banner.show_message("info", self.tr("Checking {name}…").format(name=Path(path).name), topic="import")
        self.tab.jobs.start(
            "import-zip", prepare_zip_import, self.tab.ctx.store, path, done=self._imported, failed=self._import_failed
        )

    def _imported(self, result: ZipReviews) -> None:
        self.import_button.setEnabled(not self.tab.read_only)
        contents = result.contents
        lines: list[str] = []
        if result.reviews:
            lines.append(
                self.tr(
                    "%n review(s) from {name} are waiting in Session Consolidation → Imports.", "", len(result.reviews)
                ).format(name=contents.name)
            )
        else:
            lines.append(
                self.tr("{name} holds nothing new to review (already imported or already in memory).").format(
                    name=contents.name
                )
            )
        if contents.refused:
            lines.append(self.tr("%n file(s) left out:", "", len(contents.refused)))
            lines += [refused_line(r) for r in contents.refused[:5]]
        if contents.secrets:
            lines.append(
                self.tr(
                    "%n file(s) look like they contain credentials; the review refuses them.", "", len(contents.secrets)
                )
            )
        lines += [zip_error(e) for e in result.refused]
        level = "warning" if contents.refused or result.refused or contents.secrets else "success"
        self.banner.show_message(level, "\n".join(lines), topic="import")
        if result.reviews:
            self.import_ready.emit(result)

    def _import_failed(self, exc: BaseException) -> None:
        self.import_button.setEnabled(not self.tab.read_only)
        why = (
            zip_error(exc)
            if isinstance(exc, ImportZipError)
            else self.tr("Nothing was imported: {why}").format(why=describe_error(exc))
        )
        self.banner.show_message("error", why, topic="import")
