"""The Qt item models: qtmodeltester on each, plus filtering, sorting and in-place updates."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPersistentModelIndex, Qt

from core.models import WorkspaceInfo
from gui.qtmodels import (
    RecordFilterProxy,
    RecordRow,
    RecordTableModel,
    SearchHit,
    SearchResultsModel,
    WorkspaceFilterProxy,
    WorkspaceTableModel,
)
from gui.qtmodels.roles import KEY_ROLE


def _infos() -> list[WorkspaceInfo]:
    return [
        WorkspaceInfo(key="alpha-1", cwd="/p/alpha", record_count=12, invalid_count=1),
        WorkspaceInfo(key="beta-2", cwd="/p/项目-beta", record_count=3),
        WorkspaceInfo(key="gone-3", cwd="/p/gone", record_count=0, cwd_exists=False),
    ]


def _rows() -> list[RecordRow]:
    return [
        RecordRow("build-steps", "build-steps.md", "project", "How to build", 300, haystack="build-steps run make"),
        RecordRow("code-style", "code-style.md", "feedback", "Small functions", 40, haystack="code-style small"),
        RecordRow("broken", "broken.md", "", "", 12, ("name does not match",), haystack="broken"),
        RecordRow(
            "packaging",
            "packaging.md",
            "project",
            "打包用了 electron-builder",
            2000,
            staged="changed",
            haystack="packaging 打包用了 electron-builder",
        ),
    ]


def test_workspace_model_passes_modeltester(qtmodeltester: Any) -> None:
    model = WorkspaceTableModel()
    model.set_workspaces(_infos())
    qtmodeltester.check(model)
    proxy = WorkspaceFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(1, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(proxy)
    proxy.set_filter_text("项目")
    qtmodeltester.check(proxy)


def test_workspace_model_shows_counts_and_problems() -> None:
    model = WorkspaceTableModel()
    model.set_workspaces(_infos())
    assert model.index(0, 0).data() == "alpha"
    assert model.index(0, 1).data() == "12"
    assert model.index(0, 2).data() == "1 invalid file(s)"
    assert model.index(2, 2).data() == "folder missing"
    assert "/p/gone" in model.index(2, 0).data(Qt.ItemDataRole.ToolTipRole)


def test_workspace_proxy_filters_and_sorts_numerically() -> None:
    model = WorkspaceTableModel()
    model.set_workspaces([*_infos(), WorkspaceInfo(key="z-4", cwd="/p/zeta", record_count=100)])
    proxy = WorkspaceFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(1, Qt.SortOrder.DescendingOrder)
    assert [proxy.index(r, 1).data() for r in range(proxy.rowCount())] == ["100", "12", "3", "0"]
    proxy.set_filter_text("BETA")
    assert [proxy.index(r, 0).data() for r in range(proxy.rowCount())] == ["项目-beta"]
    proxy.set_filter_text("")
    assert proxy.rowCount() == 4


def test_workspace_update_in_place_keeps_persistent_indexes() -> None:
    model = WorkspaceTableModel()
    infos = _infos()
    model.set_workspaces(infos)
    kept = QPersistentModelIndex(model.index(1, 0))
    changed: list[int] = []
    model.dataChanged.connect(lambda a, _b, _r=None: changed.append(a.row()))
    model.set_workspaces([infos[0], infos[1].model_copy(update={"record_count": 4}), infos[2]])
    assert kept.isValid() and kept.row() == 1
    assert changed == [1]
    assert model.index(1, 1).data() == "4"


def test_record_model_passes_modeltester(qtmodeltester: Any) -> None:
    model = RecordTableModel()
    model.set_rows(_rows())
    qtmodeltester.check(model)
    proxy = RecordFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(3, Qt.SortOrder.AscendingOrder)
    qtmodeltester.check(proxy)
    proxy.set_filter_text("make")
    proxy.set_type_filter("project")
    qtmodeltester.check(proxy)


def test_record_model_flags_invalid_and_staged() -> None:
    model = RecordTableModel()
    model.set_rows(_rows())
    assert [model.index(r, 0).data(KEY_ROLE) for r in range(4)] == [
        "broken",
        "build-steps",
        "code-style",
        "packaging",
    ]  # sorted by name
    broken, packaging = model.row_of("broken"), model.row_of("packaging")
    assert model.index(broken, 4).data() == "invalid"
    assert model.index(broken, 2).data() == "name does not match"  # the reason, where a description goes
    assert model.index(broken, 2).data(Qt.ItemDataRole.ForegroundRole) is not None
    assert "name does not match" in model.index(broken, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert model.index(packaging, 4).data() == "staged: changed"
    assert model.index(packaging, 0).data(Qt.ItemDataRole.FontRole).italic()


def test_record_model_sorts_itself_and_keeps_persistent_indexes() -> None:
    model = RecordTableModel()
    model.set_rows(_rows())
    proxy = RecordFilterProxy()
    proxy.setSourceModel(model)
    kept = QPersistentModelIndex(model.index(model.row_of("code-style"), 2))
    proxy.sort(3, Qt.SortOrder.DescendingOrder)  # by size, like a header click
    assert [model.index(r, 0).data() for r in range(4)] == ["packaging", "build-steps", "code-style", "broken"]
    assert kept.isValid() and kept.row() == 2 and kept.column() == 2
    assert proxy.sort_state() == (3, Qt.SortOrder.DescendingOrder)
    model.set_rows(_rows())  # a refresh keeps the chosen order
    assert model.index(0, 0).data() == "packaging"


def test_record_proxy_filter_as_you_type_and_type_filter() -> None:
    model = RecordTableModel()
    model.set_rows(_rows())
    proxy = RecordFilterProxy()
    proxy.setSourceModel(model)

    def names() -> list[str]:
        return sorted(proxy.index(r, 0).data() for r in range(proxy.rowCount()))

    proxy.set_filter_text("打包")
    assert names() == ["packaging"]
    proxy.set_filter_text("small  code")  # every word must match, in any order
    assert names() == ["code-style"]
    proxy.set_filter_text("")
    proxy.set_type_filter("invalid")
    assert names() == ["broken"]
    proxy.set_type_filter("project")
    assert names() == ["build-steps", "packaging"]
    proxy.sort(3, Qt.SortOrder.DescendingOrder)
    assert [proxy.index(r, 0).data() for r in range(proxy.rowCount())] == ["packaging", "build-steps"]


def test_search_results_model_passes_modeltester(qtmodeltester: Any) -> None:
    model = SearchResultsModel()
    model.set_hits(
        [
            SearchHit("alpha-1", "build-steps", "alpha", "Run make " * 30, 2.0),
            SearchHit(None, "User Profile", "Global", "喜欢简洁的回答", 1.0),
        ]
    )
    qtmodeltester.check(model)
    assert model.index(0, 0).data().startswith("build-steps  ·  alpha\n")
    assert model.index(0, 0).data().endswith("…")
    assert model.index(1, 0).data(KEY_ROLE) == "GLOBAL/User Profile"


def test_record_filter_narrowing_matches_a_fresh_filter(qtmodeltester: Any) -> None:
    """Typing on re-tests only the rows that passed; the result must equal filtering from scratch,
    also across backspaces, type-filter changes and rows replaced in the middle of typing."""
    words = ["deploy", "notes", "staging", "打包", "build", "cache", "release"]
    rows = [
        RecordRow(
            f"rec-{i:03d}",
            f"rec-{i:03d}.md",
            ("project", "feedback", "reference")[i % 3],
            " ".join(words[(i * k) % len(words)] for k in (1, 2, 5)),
            100 + i,
            ("bad",) if i % 17 == 0 else (),
            haystack=f"rec-{i:03d} " + " ".join(words[(i * k) % len(words)] for k in (1, 2, 5)),
        )
        for i in range(120)
    ]
    model = RecordTableModel()
    model.set_rows(rows)
    live = RecordFilterProxy()
    live.setSourceModel(model)

    def expected(text: str, type_name: str) -> list[str]:
        fresh_model = RecordTableModel()
        fresh_model.set_rows(model.rows())
        fresh = RecordFilterProxy()
        fresh.setSourceModel(fresh_model)
        fresh.set_type_filter(type_name)
        fresh.set_filter_text(text)
        return [fresh.index(r, 0).data() for r in range(fresh.rowCount())]

    def shown() -> list[str]:
        return [live.index(r, 0).data() for r in range(live.rowCount())]

    typed = "deploy notes"
    for type_name in ("", "project", "invalid"):
        live.set_type_filter(type_name)
        for i in range(1, len(typed) + 1):  # type it
            live.set_filter_text(typed[:i])
            assert shown() == expected(typed[:i], type_name)
        for i in range(len(typed) - 1, -1, -1):  # and backspace it away
            live.set_filter_text(typed[:i])
            assert shown() == expected(typed[:i], type_name)
    live.set_type_filter("")
    live.set_filter_text("dep")
    model.set_rows([*rows[:50], RecordRow("zz-new", "zz-new.md", "project", "deploy now", 1, haystack="zz-new deploy")])
    live.set_filter_text("depl")  # a refinement, but of rows that changed under it
    assert shown() == expected("depl", "")
    assert "zz-new" in shown()
    qtmodeltester.check(live)
