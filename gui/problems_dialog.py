"""The "⚠ N problems" dialog: one entry per file with everything wrong with it, and Open / Reveal.

``check`` reports one problem per finding, so a record with three mistakes is three problems; listing
them line by line repeated the file's path three times. Here a file is one entry, its findings below
it. **Open** shows a record file in the Workspace tab (where an invalid file opens with what could be
read of it, ready to fix) and anything else in the system's default application; **Reveal** opens
the folder holding it. Not modal: it never blocks the window, and it closes with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.models import Problem
from gui.problems import describe_problem

PATH_ROLE = Qt.ItemDataRole.UserRole


def group_by_file(problems: Sequence[Problem]) -> dict[str, list[Problem]]:
    """Problems by path, in the order ``check`` found them."""
    groups: dict[str, list[Problem]] = {}
    for problem in problems:
        groups.setdefault(problem.path, []).append(problem)
    return groups


class ProblemsDialog(QDialog):
    def __init__(
        self,
        root: Path,
        problems: Sequence[Problem],
        open_record: Callable[[str, str], None],
        parent: QWidget | None = None,
        open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("problemsDialog")
        self.setWindowTitle(QCoreApplication.translate("Problems", "Problems in this memory root"))
        self.resize(760, 420)
        self._root = Path(root)
        self._open_record = open_record
        self._open_url = open_url
        self.groups = group_by_file(problems)
        n = len(self.groups)
        head = QLabel(
            self.tr("check found problems in %n file(s). Nothing was changed; each says what to do.", "", n)
        )
        head.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("problemsTree")
        self.tree.setHeaderHidden(True)
        self.tree.setWordWrap(True)
        for path, found in self.groups.items():
            item = QTreeWidgetItem([path if len(found) == 1 else f"{path} ({len(found)})"])
            item.setData(0, PATH_ROLE, path)
            item.setToolTip(0, path)
            for problem in found:
                child = QTreeWidgetItem([describe_problem(problem)])
                child.setData(0, PATH_ROLE, path)
                item.addChild(child)
            self.tree.addTopLevelItem(item)
        self.tree.expandAll()
        self.tree.itemDoubleClicked.connect(lambda _item, _col: self.open_selected())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        self.open_button = QPushButton(self.tr("Open"))
        self.open_button.setToolTip(self.tr("A record opens in the Workspace tab; any other file in its application"))
        self.reveal_button = QPushButton(self.tr("Reveal in folder"))
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.reveal_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.open_button.clicked.connect(self.open_selected)
        self.reveal_button.clicked.connect(self.reveal_selected)
        self.tree.currentItemChanged.connect(lambda *_a: self._update_buttons())
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        first = self.tree.topLevelItem(0)
        if first is not None:
            self.tree.setCurrentItem(first)
        self._update_buttons()

    def selected_path(self) -> str | None:
        item = self.tree.currentItem()
        return None if item is None else str(item.data(0, PATH_ROLE))

    def _update_buttons(self) -> None:
        chosen = self.selected_path() is not None
        self.open_button.setEnabled(chosen)
        self.reveal_button.setEnabled(chosen)

    def open_selected(self) -> None:
        path = self.selected_path()
        if path is None:
            return
        first = self.groups[path][0]
        rel = Path(path)
        if first.scope_key and rel.suffix == ".md" and rel.name != "MEMORY.md" and len(rel.parts) == 3:
            self._open_record(first.scope_key, rel.stem)  # workspaces/<key>/<name>.md
        else:
            self._open_url(QUrl.fromLocalFile(str(self._root / rel)))

    def reveal_selected(self) -> None:
        path = self.selected_path()
        if path is not None:
            self._open_url(QUrl.fromLocalFile(str((self._root / path).parent)))
