"""The Maintenance tab: three pages (review queue, load meter, export / import) over one banner.

Signals the window connects (``gui.tabs.maintenance.handoff.connect``):
``open_record_requested(key, name)`` — show a record in the Workspace tab (Edit in the queue);
``import_ready(ZipReviews)`` — show an imported zip's reviews in the Session Consolidation tab.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from core.models import WorkspaceInfo
from gui.context import AppContext
from gui.tabs.base import Tab
from gui.tabs.maintenance.export_panel import ExportPanel
from gui.tabs.maintenance.load_panel import LoadPanel
from gui.tabs.maintenance.stale_panel import StalePanel
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error


def _list(store: object) -> list[WorkspaceInfo]:
    return store.list_workspaces()  # type: ignore[attr-defined, no-any-return]


class MaintenanceTab(Tab):
    open_record_requested = Signal(str, str)  # workspace key, record name
    import_ready = Signal(object)  # core.import_zip.ZipReviews

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        layout = QVBoxLayout(self)
        self.banner = Banner()
        self.banner.setObjectName("maintenanceBanner")
        layout.addWidget(self.banner)
        self.pages = QTabWidget()
        self.pages.setObjectName("maintenancePages")
        self.stale = StalePanel(self, self.banner)
        self.loads = LoadPanel(self)
        self.export = ExportPanel(self, self.banner)
        self.pages.addTab(self.stale, self.tr("Review queue"))
        self.pages.addTab(self.loads, self.tr("Load meter"))
        self.pages.addTab(self.export, self.tr("Export / import"))
        layout.addWidget(self.pages, 1)
        self.stale.open_record_requested.connect(self.open_record_requested)
        self.export.import_ready.connect(self.import_ready)
        self.loads.review_workspace_requested.connect(self.review_workspace)
        self._loaded_once = False

    def tab_title(self) -> str:
        return self.tr("Maintenance")

    def refresh(self) -> None:
        self.jobs.start("workspaces", _list, self.ctx.store, done=self._show_workspaces, failed=self._failed)
        self.loads.reload()
        if self._loaded_once:
            self.stale.memory_changed()
        self._loaded_once = True

    def _show_workspaces(self, infos: list[WorkspaceInfo]) -> None:
        cwds = {i.key: i.cwd for i in infos}
        self.stale.set_workspaces(cwds)
        self.export.set_workspaces(cwds)

    def _failed(self, exc: BaseException) -> None:
        self.banner.show_message("error", describe_error(exc))

    def review_workspace(self, key: str) -> None:
        """Scan one workspace in the review queue (from the load meter)."""
        self.pages.setCurrentWidget(self.stale)
        self.stale.choose_workspace(key)
        self.stale.start_scan()

    def set_read_only(self, read_only: bool) -> None:
        super().set_read_only(read_only)
        self.stale._update_buttons()

    def error_text(self) -> str | None:
        return self.banner.text if self.banner.level == "error" else None
