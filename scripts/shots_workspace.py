"""Screenshot steps of the Workspace tab's power tools (issue 14; ``scripts/screenshots.py`` runs them).

Search with highlighted hits, several records selected with the bulk bar and a staged type change,
"Undo last commit" just used, a record written by a consolidation (its provenance link), and the
explanation an empty root shows. ``_``-steps only reset.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel

from core.store.files import RECEIPTS

if TYPE_CHECKING:
    from scripts.screenshots import Shot

_saved_ctx: list[Any] = []


def _settle(ms: int = 60) -> None:
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    QCoreApplication.processEvents()


def _tab(shot: Shot, workspace: str) -> Any:
    tab = shot.tab("workspace")
    tab.select_workspace(shot.workspace_key(workspace))
    _settle()
    return tab


def search_highlighted(shot: Shot) -> None:
    tab = shot.tab("workspace")
    tab.search_box.setText("pnpm")
    tab.run_search_now()
    if tab.search_model.rowCount():
        tab.search_view.setCurrentIndex(tab.search_model.index(0, 0))
        tab.open_hit(tab.search_model.hit(0))
    _settle()


def search_reset(shot: Shot) -> None:
    shot.window.tabs["workspace"].search_box.clear()


def bulk_selection(shot: Shot) -> None:
    tab = _tab(shot, "atlas-web")
    names = [r.name for r in tab.rec_model.rows() if not r.invalid_reasons][:3]
    tab.select_record(names[0])
    sel = tab.rec_view.selectionModel()
    for name in names:
        row = next(r for r in range(tab.rec_proxy.rowCount()) if tab.rec_proxy.index(r, 0).data() == name)
        sel.select(
            tab.rec_proxy.index(row, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )
    bar = tab.records.bulk_bar
    bar.type_combo.activated.emit(bar.type_combo.findData("project"))
    _settle()


def bulk_reset(shot: Shot) -> None:
    tab = shot.window.tabs["workspace"]
    tab.discard_staged()
    tab.rec_view.selectionModel().clearSelection()
    tab.banner.clear()
    tab.detail.setCurrentIndex(0)


def undo_commit(shot: Shot) -> None:
    tab = _tab(shot, "order-service")
    tab.select_record("code-review-style")
    tab.detail.setCurrentIndex(0)
    tab.desc_edit.setText(tab.desc_edit.text() + " (hotfixes too)")
    tab.save()
    _settle()
    tab.undo_button.click()
    _settle()


def provenance(shot: Shot) -> None:
    from core.consolidation.proposals import ChangeSummary, Receipt
    from core.consolidation.receipts import render_receipt

    tab = _tab(shot, "atlas-web")
    tab.banner.clear()
    snap = shot.ctx.store.read_workspace(tab.current_key)
    name = next(e.name for e in snap.entries if e.is_valid)
    receipt = Receipt(
        review_id="20261201T100500-5f2c9a",
        status="committed",
        session_id="a7c3e9f1-2b4d-4e8a-9c1f-3d5b7e9a1c2e",
        session_revision="r1",
        workspace_key=snap.key,
        cwd=snap.info.cwd,
        seq_range=(12, 48),
        consolidator="offline",
        created="2026-12-01T10:00:00+00:00",
        updated="2026-12-01T10:05:00+00:00",
        global_revision_before="0" * 16,
        workspace_revision_before=snap.revision,
        changes=(ChangeSummary(id="c1", kind="put", target=f"{name}.md", decision="accepted"),),
    )
    shot.ctx.store.files(RECEIPTS).write(receipt.review_id, render_receipt(receipt))
    tab.show_loaded()  # re-reads who wrote what
    tab.select_record(name)
    tab.load_editor(name)
    tab.detail.setCurrentIndex(0)
    _settle()


def empty_root(shot: Shot) -> None:
    """The Workspace tab over an empty root (only that tab is pointed at it for the shot)."""
    from core.store.fs import FileStore

    tab = shot.tab("workspace")
    empty = Path(tempfile.mkdtemp(prefix="dsh-empty-")) / "memory"
    empty.mkdir()
    _saved_ctx.append(tab.ctx)
    tab._show_workspace(None)
    tab.ctx = dataclasses.replace(tab.ctx, store=FileStore(empty), root=empty)
    tab.refresh()
    tab.banner.clear()
    _settle()


def empty_reset(shot: Shot) -> None:
    tab = shot.window.tabs["workspace"]
    if _saved_ctx:
        tab.ctx = _saved_ctx.pop()
    tab.refresh()
    _settle()


STEPS = [
    ("workspace-search-highlighted", search_highlighted),
    ("_ws-search-reset", search_reset),
    ("workspace-bulk-selection", bulk_selection),
    ("_ws-bulk-reset", bulk_reset),
    ("workspace-undo", undo_commit),
    ("workspace-provenance", provenance),
    ("workspace-empty-root", empty_root),
    ("_ws-empty-reset", empty_reset),
]
