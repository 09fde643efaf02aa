"""Typing in the Workspace tab's filters, as a user does it: key by key into the real line edits.

The filters are the hot path at 1,000 workspaces (benchmarks/gui_bench.py measures them); these
tests pin what a keystroke must do, whatever the implementation does to make it cheap.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from core.models import WorkspaceSnapshot
from gui.context import AppContext
from gui.qtmodels.roles import KEY_ROLE
from gui.tabs.workspace import WorkspaceTab

Sample = dict[str, WorkspaceSnapshot]


def _tab(ctx: AppContext, qtbot: Any) -> WorkspaceTab:
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    tab.resize(1200, 700)
    tab.show()
    return tab


def _ws_names(tab: WorkspaceTab) -> list[str]:
    return [tab.ws_proxy.index(r, 0).data() for r in range(tab.ws_proxy.rowCount())]


def _current_ws(tab: WorkspaceTab) -> str | None:
    index = tab.ws_view.currentIndex()
    return str(index.data(KEY_ROLE)) if index.isValid() else None


def _type(qtbot: Any, widget: Any, text: str) -> None:
    widget.setFocus()
    for ch in text:
        qtbot.keyClick(widget, ch)


def _erase(qtbot: Any, widget: Any, count: int) -> None:
    for _ in range(count):
        qtbot.keyClick(widget, Qt.Key.Key_Backspace)


def test_typing_in_the_workspace_filter_narrows_and_widens_the_list(
    ctx: AppContext, sample: Sample, qtbot: Any
) -> None:
    tab = _tab(ctx, qtbot)
    assert _ws_names(tab) == ["alpha", "gone", "项目-beta"]
    _type(qtbot, tab.ws_filter, "BETA")  # case-insensitive, on the name, the folder and the key
    assert _ws_names(tab) == ["项目-beta"]
    _erase(qtbot, tab.ws_filter, 1)
    assert _ws_names(tab) == ["项目-beta"]
    _erase(qtbot, tab.ws_filter, 3)
    assert _ws_names(tab) == ["alpha", "gone", "项目-beta"]
    _type(qtbot, tab.ws_filter, "projects/go")  # the folder's path counts too
    assert _ws_names(tab) == ["gone"]


def test_sorting_the_filtered_workspace_list_by_records(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    tab.ws_view.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # a click on "Records"
    assert _ws_names(tab) == ["alpha", "gone", "项目-beta"]  # 3, 1, 1 (ties by name)
    _type(qtbot, tab.ws_filter, "e")  # alpha has no "e" in its name, but its folder path does
    assert [tab.ws_proxy.index(r, 1).data() for r in range(tab.ws_proxy.rowCount())] == ["3", "1", "1"]
    tab.ws_view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert _ws_names(tab) == ["项目-beta", "gone", "alpha"]


def test_filtering_out_the_shown_workspace_does_not_switch_to_another(
    ctx: AppContext, sample: Sample, qtbot: Any
) -> None:
    tab = _tab(ctx, qtbot)
    alpha, beta = sample["alpha"], sample["beta"]
    assert tab.select_workspace(alpha.key)
    tab.desc_edit.setText("How to build alpha, fast")  # an edit in progress
    assert tab.stage_current()  # and one staged: switching now would ask to discard them
    _type(qtbot, tab.ws_filter, "beta")  # hides alpha's row: no question, no switch mid-word
    assert _ws_names(tab) == ["项目-beta"]
    assert tab.current_key == alpha.key and tab.staged
    assert _current_ws(tab) is None  # the one row left is not the shown workspace
    assert ctx.dialogs.asked == []  # type: ignore[attr-defined]
    _erase(qtbot, tab.ws_filter, 4)
    assert _current_ws(tab) == alpha.key  # its row is current again
    # Moving to a row is still choosing a workspace (and asks about the staged change).
    ctx.dialogs.push(False)  # type: ignore[attr-defined]
    rect = tab.ws_view.visualRect(tab.ws_proxy.index(_ws_names(tab).index("项目-beta"), 0))
    qtbot.mouseClick(tab.ws_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert tab.current_key == alpha.key and _current_ws(tab) == alpha.key
    ctx.dialogs.push(True)  # type: ignore[attr-defined]
    qtbot.mouseClick(tab.ws_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert tab.current_key == beta.key


def test_typing_in_the_records_filter_matches_every_word(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    assert tab.select_workspace(sample["alpha"].key)

    def shown() -> list[str]:
        return [tab.rec_proxy.index(r, 0).data(KEY_ROLE) for r in range(tab.rec_proxy.rowCount())]

    everything = shown()
    assert set(everything) == {"broken", "build-steps", "code-style", "release-notes"}
    _type(qtbot, tab.rec_filter, "RELEASE")  # the name, the description and the body count
    assert shown() == ["build-steps", "release-notes"]  # build-steps links [[release-notes]]
    _type(qtbot, tab.rec_filter, " checklist")
    assert shown() == ["release-notes"]
    _erase(qtbot, tab.rec_filter, len("RELEASE checklist"))
    assert shown() == everything


def test_the_problems_column_fits_its_longest_text(ctx: AppContext, sample: Sample, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    view = tab.ws_view
    assert view.horizontalHeader().sectionSize(2) >= view.sizeHintForColumn(2)  # "1 invalid file(s)" not elided
    _type(qtbot, tab.ws_filter, "alpha")  # the width is the list's, not re-measured per keystroke
    assert view.horizontalHeader().sectionSize(2) >= view.sizeHintForColumn(2)
