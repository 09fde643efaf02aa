"""The review queue for stale memory: scan, then keep / edit / delete / mark reviewed each item.

A scan is a cancellable job with progress (it reads every record of the chosen workspaces). Keep
hides an item until the next scan; Mark reviewed stores a private mark through the store (not in
the record) so the record stays out of the queue until it changes; Edit asks the window to open
the record in the Workspace tab; Delete asks first, then commits one delete with CAS against the
revision the scan read (a record changed since is not deleted: scan again) — it lands in history
like every delete and can be restored from there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.errors import CancelledError, ConflictError
from core.models import DeleteOp
from core.staleness import DEFAULT_DAYS, REASONS, StaleItem, StaleScan, mark_reviewed, scan
from gui.tabs.base import Tab
from gui.tabs.maintenance.models import SORT_ROLE, StaleQueueModel
from gui.tabs.maintenance.usage_views import USAGE_SORT, update_usage
from gui.tabs.maintenance.wording import reason_advice, reason_detail, reason_label
from gui.tasks import JobControl
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error
from gui.widgets.read_only import mark_writes
from gui.widgets.tables import setup_table

if TYPE_CHECKING:
    from pathlib import Path

    from core.store.api import MemoryStore


def _scan(
    store: MemoryStore, keys: list[str] | None, days: int, sessions_root: Path | None = None, *, control: JobControl
) -> StaleScan:
    def progress(done: int, total: int, key: str) -> None:
        control.report(done, total, key)

    if sessions_root is not None:  # the usage rules read the ledger: bring it up to date first (issue 30)
        update_usage(store, sessions_root, lambda: control.token.cancelled)
    return scan(store, keys, older_than_days=days, cancelled=lambda: control.token.cancelled, progress=progress)


class StalePanel(QWidget):
    open_record_requested = Signal(str, str)  # workspace key, record name

    def __init__(self, tab: Tab, banner: Banner) -> None:
        super().__init__()
        self.tab = tab
        self.banner = banner
        self.result: StaleScan | None = None
        self._kept: set[tuple[str, str, str]] = set()  # (key, name, reason) hidden until the next scan
        layout = QVBoxLayout(self)

        controls = QHBoxLayout()
        self.workspace_box = QComboBox()
        self.workspace_box.setObjectName("staleWorkspace")
        self.workspace_box.setMinimumContentsLength(18)
        self.workspace_box.setToolTip(self.tr("Which workspaces to scan"))
        self.days = QSpinBox()
        self.days.setObjectName("staleDays")
        self.days.setRange(1, 3650)
        self.days.setValue(DEFAULT_DAYS)
        self.days.setSuffix(self.tr(" days"))
        self.days.setToolTip(self.tr("Records not changed for this many days are listed as old"))
        self.reason_box = QComboBox()
        self.reason_box.setObjectName("staleReason")
        self.reason_box.addItem(self.tr("All reasons"), "")
        for reason in REASONS:
            self.reason_box.addItem(reason_label(reason), reason)
        self.reason_box.currentIndexChanged.connect(self._show_items)
        self.scan_button = QPushButton(self.tr("Scan"))
        self.scan_button.setObjectName("staleScan")
        self.scan_button.clicked.connect(self.start_scan)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("staleCancel")
        self.cancel_button.clicked.connect(self.cancel_scan)
        self.cancel_button.hide()
        controls.addWidget(QLabel(self.tr("Workspaces:")))
        controls.addWidget(self.workspace_box, 1)
        controls.addWidget(QLabel(self.tr("Old after:")))
        controls.addWidget(self.days)
        controls.addWidget(QLabel(self.tr("Show:")))
        controls.addWidget(self.reason_box)
        controls.addWidget(self.scan_button)
        controls.addWidget(self.cancel_button)
        layout.addLayout(controls)

        self.progress = QProgressBar()
        self.progress.setObjectName("staleProgress")
        self.progress.setTextVisible(True)
        self.progress.hide()
        layout.addWidget(self.progress)

        self.model = StaleQueueModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QTableView()
        self.table.setObjectName("staleTable")
        setup_table(self.table)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)  # Agent use (issue 30)
        header.setStretchLastSection(True)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        self.table.doubleClicked.connect(lambda _i: self.edit_selected())
        layout.addWidget(self.table, 1)

        self.empty = QLabel()
        self.empty.setObjectName("staleEmpty")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: #555;")
        layout.addWidget(self.empty)
        self.advice = QLabel()
        self.advice.setObjectName("staleAdvice")
        self.advice.setWordWrap(True)
        layout.addWidget(self.advice)

        buttons = QHBoxLayout()
        self.keep_button = QPushButton(self.tr("Keep"))
        self.keep_button.setObjectName("staleKeep")
        self.keep_button.setToolTip(self.tr("Leave the record as it is; hidden until the next scan"))
        self.keep_button.clicked.connect(self.keep_selected)
        self.reviewed_button = QPushButton(self.tr("Mark reviewed"))
        self.reviewed_button.setObjectName("staleReviewed")
        self.reviewed_button.setToolTip(
            self.tr("Keep the record and leave it out of the queue until it changes (stored outside the record)")
        )
        self.reviewed_button.clicked.connect(self.mark_selected)
        self.edit_button = QPushButton(self.tr("Edit in Workspace"))
        self.edit_button.setObjectName("staleEdit")
        self.edit_button.clicked.connect(self.edit_selected)
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.delete_button.setObjectName("staleDelete")
        self.delete_button.setToolTip(self.tr("Delete the record (kept in history; restore it from there)"))
        self.delete_button.clicked.connect(self.delete_selected)
        mark_writes(self.reviewed_button, self.delete_button)
        for b in (self.keep_button, self.reviewed_button, self.edit_button, self.delete_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self._show_items()

    # --- workspaces to scan ---------------------------------------------------------------------
    def set_workspaces(self, cwds: dict[str, str]) -> None:
        """key -> folder of the active workspaces (keeps the choice when it still exists)."""
        chosen = self.workspace_box.currentData()
        self.workspace_box.blockSignals(True)
        self.workspace_box.clear()
        self.workspace_box.addItem(self.tr("All workspaces (%n)", "", len(cwds)), None)
        for key, cwd in sorted(cwds.items(), key=lambda kv: kv[1].casefold()):
            self.workspace_box.addItem(cwd, key)
        index = self.workspace_box.findData(chosen) if chosen is not None else 0
        self.workspace_box.setCurrentIndex(max(index, 0))
        self.workspace_box.blockSignals(False)

    def choose_workspace(self, key: str | None) -> None:
        self.workspace_box.setCurrentIndex(max(self.workspace_box.findData(key), 0))

    # --- scan -----------------------------------------------------------------------------------
    def start_scan(self) -> None:
        key = self.workspace_box.currentData()
        keys = [key] if isinstance(key, str) else None
        self.scan_button.setEnabled(False)
        self.cancel_button.show()
        self.progress.setRange(0, 0)
        self.progress.setFormat(self.tr("Scanning…"))
        self.progress.show()
        self.tab.jobs.start(
            "stale-scan",
            _scan,
            self.tab.ctx.store,
            keys,
            self.days.value(),
            self.tab.ctx.sessions_root,
            done=self._scanned,
            failed=self._scan_failed,
            progress=self._progress,
            cancellable=True,
        )

    def _progress(self, done: int, total: int, _key: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(self.tr("Scanning workspace {done} of {total}…").format(done=done + 1, total=total))

    def cancel_scan(self) -> None:
        self.tab.jobs.cancel("stale-scan")
        self._scan_ended()
        self.banner.show_message("info", self.tr("The scan was cancelled; nothing was changed."), topic="stale")

    def _scan_ended(self) -> None:
        self.scan_button.setEnabled(True)
        self.cancel_button.hide()
        self.progress.hide()

    def _scanned(self, result: StaleScan) -> None:
        self._scan_ended()
        self.result = result
        self._kept.clear()
        self.banner.clear(topic="stale")
        if result.failed:
            lines = [self.tr("{key}: {why}").format(key=k, why=why) for k, why in result.failed.items()]
            self.banner.show_message(
                "warning", self.tr("Some workspaces could not be scanned:") + "\n" + "\n".join(lines), topic="stale"
            )
        if result.no_duplicate_check:
            folders = ", ".join(result.snapshots[k].info.cwd for k in result.no_duplicate_check[:3])
            self.banner.show_message(
                "info",
                self.tr(
                    "Near-duplicates were not looked for in %n very large workspace(s) (comparing every pair would "
                    "take minutes): {folders}",
                    "",
                    len(result.no_duplicate_check),
                ).format(folders=folders),
                topic="stale",
            )
        self._show_items()

    def _scan_failed(self, exc: BaseException) -> None:
        self._scan_ended()
        if isinstance(exc, CancelledError):
            return
        self.banner.show_message(
            "error", self.tr("The scan failed: {why}").format(why=describe_error(exc)), topic="stale"
        )

    def memory_changed(self) -> None:
        """The root changed on disk after a scan: the queue may be out of date."""
        if self.result is not None:
            self.empty.setText(self.tr("Memory changed since the scan. Scan again to see the current state."))
            self.empty.show()

    # --- the queue ------------------------------------------------------------------------------
    def visible_items(self) -> list[StaleItem]:
        if self.result is None:
            return []
        wanted = self.reason_box.currentData()
        return [
            i
            for i in self.result.items
            if (i.key, i.name, i.reason) not in self._kept and (not wanted or i.reason == wanted)
        ]

    def _show_items(self) -> None:
        items = self.visible_items()
        cwds = {k: s.info.cwd for k, s in self.result.snapshots.items()} if self.result else {}
        self.model.set_items(items, cwds, self.result.usage_available if self.result else False)
        wanted = self.reason_box.currentData()
        if wanted in USAGE_SORT:  # the usage views open sorted by what they are about (oldest / most used first)
            self.table.sortByColumn(USAGE_SORT[wanted], Qt.SortOrder.DescendingOrder)
        if self.result is None:
            self.empty.setText(
                self.tr(
                    "Scan to find records that may be out of date: not changed for a long time, with broken "
                    "[[links]], near-duplicates, or mentioning files that no longer exist."
                )
            )
        elif not items:
            self.empty.setText(
                self.tr(
                    "Nothing to review in %n record(s). Records you marked reviewed stay hidden until they change.",
                    "",
                    self.result.records,
                )
            )
        else:
            self.empty.setText(self.tr("%n item(s) to review.", "", len(items)))
        self._update_buttons()

    def selected_items(self) -> list[StaleItem]:
        rows = sorted({self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.item(r) for r in rows if 0 <= r < self.model.rowCount()]

    def select_item(self, name: str, reason: str | None = None) -> bool:
        for row in range(self.proxy.rowCount()):
            item = self.model.item(self.proxy.mapToSource(self.proxy.index(row, 0)).row())
            if item.name == name and (reason is None or item.reason == reason):
                self.table.selectRow(row)
                return True
        return False

    def _update_buttons(self) -> None:
        chosen = self.selected_items()
        for b in (self.keep_button, self.reviewed_button, self.delete_button):
            b.setEnabled(bool(chosen) and not (b is not self.keep_button and self.tab.read_only))
        self.edit_button.setEnabled(len({(i.key, i.name) for i in chosen}) == 1)
        if len(chosen) == 1:
            item = chosen[0]
            self.advice.setText(f"{reason_detail(item)} — {reason_advice(item.reason)}")
        else:
            self.advice.setText("")

    # --- actions ----------------------------------------------------------------------------------
    def keep_selected(self) -> None:
        self._kept |= {(i.key, i.name, i.reason) for i in self.selected_items()}
        self._show_items()

    def edit_selected(self) -> None:
        chosen = self.selected_items()
        if chosen:
            self.open_record_requested.emit(chosen[0].key, chosen[0].name)

    def _drop(self, key: str, names: set[str]) -> None:
        if self.result is not None:
            self.result.items = [i for i in self.result.items if not (i.key == key and i.name in names)]
        self._show_items()

    def mark_selected(self) -> None:
        chosen = self.selected_items()
        if not chosen or self.result is None:
            return
        by_key: dict[str, set[str]] = {}
        for item in chosen:
            by_key.setdefault(item.key, set()).add(item.name)
        for key, names in by_key.items():
            snapshot = self.result.snapshots[key]

            def done(_marks: object, key: str = key, names: set[str] = names) -> None:
                self._drop(key, names)
                self.banner.show_message(
                    "success", self.tr("Marked %n record(s) reviewed.", "", len(names)), topic="stale"
                )

            self.tab.jobs.start(
                f"stale-mark-{key}",
                mark_reviewed,
                self.tab.ctx.store,
                snapshot,
                sorted(names),
                done=done,
                failed=self._action_failed,
            )

    def delete_selected(self) -> None:
        chosen = self.selected_items()
        if len({(i.key, i.name) for i in chosen}) != 1 or self.result is None:
            if chosen:
                self.tab.ctx.dialogs.info(
                    self, self.tr("Delete"), self.tr("Select the items of one record to delete it.")
                )
            return
        item = chosen[0]
        snapshot = self.result.snapshots[item.key]
        if not self.tab.ctx.dialogs.confirm(
            self,
            self.tr("Delete record?"),
            self.tr(
                "Delete {name} from {folder}? It is kept in history: you can restore it from the record's history "
                "or the Recycle Bin."
            ).format(name=item.name, folder=snapshot.info.cwd),
            self.tr("Delete"),
        ):
            return

        def done(fresh: object, key: str = item.key, name: str = item.name) -> None:
            from core.models import WorkspaceSnapshot

            if self.result is not None and isinstance(fresh, WorkspaceSnapshot):
                self.result.snapshots[key] = fresh
            self._drop(key, {name})
            self.banner.show_message(
                "success", self.tr("Deleted {name}. It is kept in history.").format(name=name), topic="stale"
            )

        self.tab.jobs.start(
            "stale-delete",
            lambda store, key, ops, expect: store.commit(key, ops, expect),
            self.tab.ctx.store,
            item.key,
            [DeleteOp(name=item.name)],
            snapshot.revision,
            done=done,
            failed=self._action_failed,
        )

    def _action_failed(self, exc: BaseException) -> None:
        if isinstance(exc, ConflictError):
            text = self.tr(
                "This workspace changed since the scan (an agent, the CLI or an editor). Nothing was deleted. "
                "Scan again and review the current version."
            )
        else:
            text = self.tr("Nothing was changed: {why}").format(why=describe_error(exc))
        self.banner.show_message("error", text, topic="stale")
