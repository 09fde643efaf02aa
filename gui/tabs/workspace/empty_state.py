"""What the Workspace tab shows in a root with no workspace yet: how they appear, and two ways on."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from core.models import WorkspaceSnapshot
from gui.tabs.base import Tab
from gui.widgets.banner import Banner
from gui.widgets.read_only import mark_writes


def create_workspace_for_folder(
    tab: Tab, banner: Banner, show: Callable[[str], None], failed: Callable[[BaseException], None]
) -> None:
    """Create (idempotently) the workspace of a folder the user picks, through the store, and show it.

    ``show(key)``: select that workspace once the list is reloaded; ``failed``: report an error."""
    folder = tab.ctx.dialogs.choose_directory(
        tab, QCoreApplication.translate("EmptyRootPanel", "Create a workspace for a folder"), os.path.expanduser("~")
    )
    if not folder:
        return

    def done(snap: WorkspaceSnapshot) -> None:
        banner.show_message(
            "ok",
            QCoreApplication.translate(
                "EmptyRootPanel", "Created the workspace {name} for {folder}. Add records with New record."
            ).format(name=snap.info.display_name, folder=snap.info.cwd),
        )
        show(snap.key)
        tab.refresh()

    tab.jobs.start("create", tab.ctx.store.create_workspace, folder, done=done, failed=failed)


class EmptyRootPanel(QWidget):
    """Explains that agents create workspaces; offers creating one for a folder, or the demo root."""

    create_requested = Signal()  # pick a folder and create its workspace
    demo_requested = Signal()  # open the demo root instead (the main window switches roots)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("empty_root")
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 12, 0, 0)
        self.label = QLabel(
            self.tr(
                "A workspace is the memory of one project folder. DSH agents "
                "create one the first time they run in a folder and remember something there; it then "
                "appears here.<br><br>You can also create one yourself for a folder you choose, and add "
                "records to it by hand. Or open the demo root to look around with sample memory first."
            )
        )
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        v.addWidget(self.label)
        row = QHBoxLayout()
        self.create_button = QPushButton(self.tr("Create a workspace for a folder…"))
        self.create_button.setObjectName("create_workspace")
        self.create_button.clicked.connect(self.create_requested.emit)
        mark_writes(self.create_button)
        row.addWidget(self.create_button)
        self.demo_button = QPushButton(self.tr("Open the demo root"))
        self.demo_button.setObjectName("open_demo_root")
        self.demo_button.clicked.connect(self.demo_requested.emit)
        row.addWidget(self.demo_button)
        row.addStretch(1)
        v.addLayout(row)
        v.addStretch(1)
