"""Frictions a new user hit outside Session Consolidation (issue 27), each as the user would notice it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from core.models import WorkspaceSnapshot
from gui.context import AppContext
from gui.tabs.consolidation import ConsolidationTab
from gui.tabs.workspace import WorkspaceTab
from tests.gui.test_consolidation_tab import PROMPTS, write_session

Sample = dict[str, WorkspaceSnapshot]

# --- the Session Consolidation tab remembers its workspace across a restart -----------------------


def test_consolidation_tab_reopens_on_the_workspace_you_were_on(
    qtbot: QtBot, ctx: AppContext, tmp_path: Path
) -> None:
    for name in ("alpha", "beta"):
        folder = tmp_path / "projects" / name
        folder.mkdir(parents=True)
        write_session(Path(ctx.sessions_root), f"sess-{name}", str(folder), PROMPTS, f"About {name}")

    def open_tab() -> ConsolidationTab:
        tab = ConsolidationTab(ctx)
        qtbot.addWidget(tab)
        tab.refresh()
        return tab

    first = open_tab()
    titles = [first.workspace_model.choice(i).title for i in range(first.workspace_model.rowCount())]
    assert first.workspace_box.currentText().startswith(titles[0])
    other = titles[1]
    first.choose_workspace(first.workspace_model.choice(1).key)
    assert first.workspace_box.currentText().startswith(other)
    first.close()

    again = open_tab()  # a restart: a new tab over the same root
    assert again.workspace_box.currentText().startswith(other)
    assert again.session_model.session_row(0).summary.title == f"About {other}"


# --- the README's `--lang zh_CN` works for the app --------------------------------------------------


def test_the_app_accepts_lang_as_the_readme_shows(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from gui.launcher import _wants_window

    assert _wants_window(["--lang", "zh_CN", "--demo"]) and _wants_window(["--lang=en"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(LANG="en_US.UTF-8", QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path / "data"))
    code = "import sys; from gui.launcher import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, "--lang", "zh_CN", "--self-test", "--demo"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok   工作区" in proc.stdout, proc.stdout  # the Workspaces tab, in Chinese on an English system


# --- the Workspace tab: toasts, columns, a new record ---------------------------------------------


def _workspace_tab(ctx: AppContext, qtbot: QtBot) -> WorkspaceTab:
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    tab.resize(1360, 780)
    tab.show()
    tab.refresh()
    return tab


def _in_tab(tab: QWidget, widget: QWidget) -> QRect:
    return QRect(widget.mapTo(tab, QPoint(0, 0)), widget.size())


def test_a_toast_never_covers_discard_all_or_the_record_counter(
    ctx: AppContext, sample: Sample, qtbot: QtBot
) -> None:
    tab = _workspace_tab(ctx, qtbot)
    assert tab.select_workspace(sample["alpha"].key)
    tab.select_record("build-steps")
    tab.body_edit.setPlainText("\nRun make, then make test.\n")
    tab.stage_current()
    tab.detail.setCurrentIndex(1)  # Staged changes, with Discard all at its bottom
    discard = tab.staged_panel.discard_button
    assert discard.isVisible() and tab.count_label.text()
    tab.banner.show_message("ok", "Staged build-steps: one change waits in Staged changes. " * 2)
    toast = tab.banner.strip()
    assert toast is not None and toast.isVisible()
    covered = _in_tab(tab, toast)
    assert not covered.intersects(_in_tab(tab, discard))
    assert not covered.intersects(_in_tab(tab, tab.count_label))


def test_description_gets_the_room_an_empty_status_column_had(
    ctx: AppContext, sample: Sample, qtbot: QtBot
) -> None:
    tab = _workspace_tab(ctx, qtbot)
    assert tab.select_workspace(sample["beta"].key)  # one valid record, nothing staged: no status
    header = tab.rec_view.horizontalHeader()
    assert header.sectionSize(4) <= header.sectionSizeFromContents(4).width()
    assert header.sectionSize(2) > header.sectionSize(4) * 2
    tab.select_record("packaging")
    tab.desc_edit.setText("打包用了 electron-builder，签名很慢")
    tab.stage_current()
    status = tab.rec_proxy.index(0, 4).data()
    assert status and header.sectionSize(4) >= tab.rec_view.fontMetrics().horizontalAdvance(status)


def test_workspace_names_are_shortened_at_word_boundaries(qapp: object) -> None:
    from PySide6.QtGui import QFont, QFontMetrics

    from gui.widgets.tables import elide_words

    fm = QFontMetrics(QFont())
    for name in ("lumen-desktop", "billing-service-041", "ml-experiments"):
        for width in (fm.horizontalAdvance(name) - 1, fm.horizontalAdvance(name) * 9 // 10):
            shown = elide_words(name, fm, width)
            assert fm.horizontalAdvance(shown) <= width
            head, _, tail = shown.partition("…")
            words = name.replace("-", "- ").split()
            assert head in {"".join(words[:k]) for k in range(len(words) + 1)}, shown
            assert tail in {"".join(words[k:]).replace(" ", "") for k in range(len(words) + 1)}, shown


def test_a_new_record_starts_without_errors_and_without_the_old_highlight(
    ctx: AppContext, sample: Sample, qtbot: QtBot
) -> None:
    tab = _workspace_tab(ctx, qtbot)
    assert tab.select_workspace(sample["alpha"].key)
    tab.select_record("build-steps")
    assert tab.rec_view.selectionModel().selectedRows()
    tab.new_record()
    assert tab.rec_view.selectionModel().selectedRows() == []  # build-steps is no longer highlighted
    text = tab.editor.validation_label.text()
    assert "✗" not in text and "b3261e" not in text  # no red errors before anything is typed
    assert not tab.stage_button.isEnabled()
    tab.name_edit.setText("Bad Name")  # the first keystrokes: now the reasons show
    assert "✗" in tab.editor.validation_label.text()


# --- the search label says the query being searched, never an older one's count -----------------


def test_the_search_label_never_lags_the_query(ctx: AppContext, sample: Sample, qtbot: QtBot) -> None:
    from core.search import SearchIndex
    from gui.tasks import Job

    class Deferred:
        """Runs jobs when the test says: a slow first search on a big root."""

        def __init__(self) -> None:
            self.pending: list[Job] = []

        def start(self, job: Job) -> None:
            self.pending.append(job)

        def wait_all(self, timeout_ms: int = 30000) -> bool:
            return True

        def drain(self) -> None:
            while self.pending:
                self.pending.pop(0).execute()

    runner = Deferred()
    ctx.runner = runner
    ctx.search = SearchIndex(ctx.store, cache_dir=False)
    tab = _workspace_tab(ctx, qtbot)
    runner.drain()
    panel = tab.search
    tab.search_box.setText("r")
    tab.run_search_now()  # the search for "r" is slow to come back…
    tab.search_box.setText("release")  # …and the user typed on meanwhile
    assert panel.status.text() == "Searching for “release”…"
    runner.drain()  # "r" comes back: its count would describe a query the box no longer holds
    assert panel.status.text() == "Searching for “release”…"
    tab.run_search_now()
    runner.drain()
    assert panel.status.text().endswith("for “release”") and panel.status.text()[0].isdigit()
    assert any(h.name == "release-notes" for h in tab.last_search_hits)


# --- the problems dialog: one entry per file, with Open and Reveal ----------------------------------


def test_the_problems_dialog_lists_a_file_once_and_opens_or_reveals_it(
    ctx: AppContext, sample: Sample, qtbot: QtBot
) -> None:
    from PySide6.QtCore import QUrl

    from gui.main_window import MainWindow

    alpha = sample["alpha"]
    bad = ctx.root / "workspaces" / alpha.key / "draft.md"
    bad.write_text("---\nname: Draft Notes\nmetadata:\n  type: idea\n---\n\nx\n", encoding="utf-8")  # 3+ mistakes
    window = MainWindow(ctx, watch=False)
    qtbot.addWidget(window)
    try:
        window.refresh_status()
        draft = [p for p in window.status_bar.problems if p.path.endswith("draft.md")]
        assert len(draft) >= 3  # check reports each mistake
        window.show_problems()
        dialog = window.problems_dialog
        opened: list[QUrl] = []
        dialog._open_url = lambda url: opened.append(url) or True
        tree = dialog.tree
        paths = [str(tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)) for i in range(tree.topLevelItemCount())]
        assert len(paths) == len(set(paths))  # each file once…
        row = paths.index(f"workspaces/{alpha.key}/draft.md")
        item = tree.topLevelItem(row)
        assert item.childCount() == len(draft)  # …with all its mistakes under it
        tree.setCurrentItem(item.child(1))
        dialog.reveal_button.click()
        assert opened == [QUrl.fromLocalFile(str(bad.parent))]
        dialog.open_button.click()  # a record file: shown in the Workspace tab, ready to fix
        assert window.tab_widget.currentWidget() is window.tabs["workspace"]
        assert window.tabs["workspace"].editor.editing_name == "draft"
        stray = ctx.root / "workspaces" / "stray.txt"
        stray.write_text("x\n")
        window.refresh_status()
        window.show_problems()
        dialog = window.problems_dialog
        dialog._open_url = lambda url: opened.append(url) or True
        tree = dialog.tree
        for i in range(tree.topLevelItemCount()):
            if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == "workspaces/stray.txt":
                tree.setCurrentItem(tree.topLevelItem(i))
        dialog.open_button.click()  # not a record: its own application opens it
        assert opened[-1] == QUrl.fromLocalFile(str(stray))
        dialog.close()
    finally:
        window.shutdown()
