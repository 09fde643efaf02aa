"""Screenshots of every tab (and interesting states) on a fresh demo root, into docs/screenshots/.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshots.py [--lang zh_CN] [--out DIR] [--only NAME ...]``

Each screenshot is a named *step*: a function ``step(shot)`` that drives the window into a state;
the PNG ``<name>.png`` is grabbed after it returns. To add a state, append to ``STEPS`` below (the
test drivers live here, never in ``gui/``). Steps run in order on one window, so a step should set
up everything it needs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QEventLoop, QPoint, QTimer
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from gui.context import AppContext
from gui.dialogs import Choice, Dialogs, question_box
from gui.main_window import MainWindow
from gui.tasks import SyncTaskRunner
from scripts import shots_hygiene as hygiene_steps
from scripts import shots_maintenance as maintenance_steps
from scripts import shots_review as review_steps
from scripts import shots_supersede as supersede_steps
from scripts import shots_sync as sync_steps
from scripts import shots_usage as usage_steps
from scripts import shots_workspace as workspace_steps

REPO = Path(__file__).resolve().parents[1]
WINDOW_SIZE = (1360, 820)


class QuietDialogs(Dialogs):
    """Never blocks: answers from a queue when a step pushed one, else declines."""

    def __init__(self) -> None:
        self.answers: list[Any] = []
        self.capture_questions = False  # ``ask`` builds the real message box into ``captured``
        self.captured: list[QWidget] = []

    def _next(self, default: Any) -> Any:
        return self.answers.pop(0) if self.answers else default

    def confirm(self, parent: QWidget | None, title: str, text: str, ok_label: str = "OK") -> bool:
        return bool(self._next(False))

    def ask_text(self, parent: QWidget | None, title: str, label: str) -> str | None:
        answer = self._next(None)
        return None if answer is None else str(answer)

    def choose(
        self, parent: QWidget | None, title: str, text: str, options: list[str], *, default: str | None = None
    ) -> str | None:
        answer = self._next(None)
        return answer if answer in options else None

    def ask(
        self,
        parent: QWidget | None,
        title: str,
        text: str,
        choices: Sequence[Choice],
        *,
        default: str,
        escape: str | None = None,
    ) -> str | None:
        if self.capture_questions:
            box, _buttons = question_box(parent, title, text, choices, default=default, escape=escape)
            self.captured.append(box)
        answer = self._next(escape)
        return answer if answer in [k for k, _ in choices] else escape

    def info(self, parent: QWidget | None, title: str, text: str) -> None:
        pass

    def error(self, parent: QWidget | None, title: str, text: str) -> None:
        print(f"  (error dialog) {title}: {text}", file=sys.stderr)

    def save_file(self, parent: QWidget, title: str, start: str, filters: str) -> str | None:
        answer = self._next(None)
        return None if answer is None else str(answer)

    def open_file(self, parent: QWidget, title: str, start: str, filters: str) -> str | None:
        answer = self._next(None)
        return None if answer is None else str(answer)


@dataclass
class Shot:
    """What a step gets: the window, its context, the dialogs (push answers) and helpers."""

    window: MainWindow
    ctx: AppContext
    dialogs: QuietDialogs
    grab_target: QWidget | None = None  # a step that opens a dialog grabs it instead of the window

    def tab(self, key: str) -> Any:
        self.window.show_tab(key)
        settle()
        return self.window.tabs[key]

    def workspace_key(self, display_name: str) -> str:
        for info in self.ctx.store.list_workspaces():
            if info.display_name == display_name:
                return info.key
        raise KeyError(display_name)


Step = Callable[[Shot], None]
# A step that renders something other than the window (a dialog over it, an open menu) puts the
# picture here; the main loop saves it instead of grabbing the window.
PICTURES: list[QPixmap] = []


def settle(ms: int = 60) -> None:
    """Let queued signals, timers (preview debounce) and layouts run."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    QCoreApplication.processEvents()


# --- built-in steps ---------------------------------------------------------------------------


def global_tab(shot: Shot) -> None:
    shot.tab("global")
    settle(300)


GLOBAL_EXTRA = """
## Tools

| Task | Tool | 备注 |
|---|---|---|
| Python lint | ruff | 不用 black + flake8 |
| JS packages | pnpm | never npm/yarn |

## Open items

- [x] Move secrets to the team vault
- [ ] 把旧的部署脚本迁移到 CI
"""


def global_editing(shot: Shot) -> None:
    """Unsaved edits with a table and a task list: the preview renders both."""
    tab = shot.tab("global")
    tab.editor.setPlainText(tab.editor.toPlainText().rstrip("\n") + "\n" + GLOBAL_EXTRA)
    cursor = tab.editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    tab.editor.setTextCursor(cursor)
    tab.editor.ensureCursorVisible()
    settle(300)  # the preview follows typing after a short pause
    tab.preview.verticalScrollBar().setValue(tab.preview.verticalScrollBar().maximum())
    settle()


def global_conflict(shot: Shot) -> None:
    tab = shot.tab("global")
    tab.editor.setPlainText(tab.editor.toPlainText().replace("Short answers", "Very short answers", 1))
    store = shot.ctx.store
    snap = store.read_global()
    store.replace_global(snap.text + "\n## Added by an agent\n\n- Prefers pnpm over npm.\n", snap.revision)
    shot.dialogs.answers.append(None)  # dismiss the question: the diff panel stays open
    tab.save()
    settle(300)


def global_reset(shot: Shot) -> None:
    tab = shot.window.tabs["global"]
    if tab.has_unsaved_changes() or tab.conflict_panel.isVisible():
        tab.resolve_conflict("reload")
        tab.reload_from_disk()


def _open_record(shot: Shot, workspace: str, record: str) -> Any:
    tab = shot.tab("workspace")
    tab.select_workspace(shot.workspace_key(workspace))
    tab.select_record(record)
    tab.detail.setCurrentIndex(0)
    settle()
    return tab


def workspace_record(shot: Shot) -> None:
    _open_record(shot, "atlas-web", "release-process")


def workspace_chinese(shot: Shot) -> None:
    _open_record(shot, "lumen-desktop", "packaging-electron-builder")  # Chinese body and description


def workspace_invalid_file(shot: Shot) -> None:
    tab = shot.tab("workspace")
    tab.select_workspace(shot.workspace_key("atlas-web"))
    invalid = [r.name for r in tab.rec_model.rows() if r.invalid_reasons]
    if invalid:
        tab.select_record(invalid[0])
    settle()


def workspace_staged_diff(shot: Shot) -> None:
    tab = _open_record(shot, "order-service", "code-review-style")
    tab.desc_edit.setText(tab.desc_edit.text() + " (also for hotfixes)")
    tab.body_edit.setPlainText(tab.body_edit.toPlainText() + "\nHotfixes get the same review, within the hour.\n")
    tab.stage_current()
    tab.new_record()
    tab.name_edit.setText("release-train")
    tab.desc_edit.setText("Releases leave every Tuesday at 10:00 UTC+8")
    tab.type_combo.setCurrentIndex(tab.type_combo.findData("project"))
    tab.body_edit.setPlainText(
        "\n每周二上午十点（UTC+8）发布。\n\n**Why:** 运维值班安排。\n\n"
        "**How to apply:** 周一前合并。 See [[db-migration-rules]].\n"
    )
    tab.stage_current()
    tab.detail.setCurrentIndex(1)
    settle()


def workspace_reset(shot: Shot) -> None:
    tab = shot.window.tabs["workspace"]
    tab.discard_staged()
    tab.revert_editor()


def workspace_missing_folder(shot: Shot) -> None:
    tab = shot.tab("workspace")
    tab.select_workspace(shot.workspace_key("ml-experiments"))
    tab.detail.setCurrentIndex(0)
    settle()


def workspace_agent_view(shot: Shot) -> None:
    tab = shot.tab("workspace")
    tab.select_workspace(shot.workspace_key("atlas-web"))
    tab.detail.setCurrentIndex(2)
    settle()


def workspace_search(shot: Shot) -> None:
    tab = shot.tab("workspace")
    if shot.ctx.search is None:
        return
    tab.search_box.setText("打包为什么慢")
    tab.run_search_now()
    if tab.search_model.rowCount():
        tab.search_view.setCurrentIndex(tab.search_model.index(0, 0))
        tab.open_hit(tab.search_model.hit(0))  # activating a result opens the record
    tab.detail.setCurrentIndex(0)
    settle()


def workspace_other_stores(shot: Shot) -> None:
    """Other stores' entries beside atlas-web's records, the superseded one selected (issue 12)."""
    tab = shot.tab("workspace")
    tab.refresh()
    tab.select_workspace(shot.workspace_key("atlas-web"))
    tab.detail.setCurrentWidget(tab.foreign)
    model = tab.foreign.model
    row = next((i for i in range(model.rowCount()) if model.entry(i).status == "superseded"), 0)
    tab.foreign.view.selectRow(row)
    settle()


def workspace_other_stores_chinese(shot: Shot) -> None:
    tab = shot.tab("workspace")
    tab.select_workspace(shot.workspace_key("lumen-desktop"))
    tab.detail.setCurrentWidget(tab.foreign)
    tab.foreign.view.selectRow(0)
    settle()


def workspace_search_other_stores(shot: Shot) -> None:
    tab = shot.tab("workspace")
    tab.search.include_others.setChecked(True)
    tab.search_box.setText("打包")
    tab.run_search_now()
    settle()


def search_other_reset(shot: Shot) -> None:
    tab = shot.window.tabs["workspace"]
    tab.search.include_others.setChecked(False)
    tab.search_box.clear()
    tab.detail.setCurrentIndex(0)


def search_reset(shot: Shot) -> None:
    shot.window.tabs["workspace"].search_box.clear()


# --- consolidation ---------------------------------------------------------------------------------


def consolidation_review(shot: Shot) -> None:
    ctx = shot.ctx
    info = next((w for w in ctx.store.list_workspaces() if w.display_name == "atlas-web"), None)
    cwd = info.cwd if info is not None else str(Path(ctx.root).parent / "atlas-web")
    # The demo root ships these sessions already; written again here in case the sessions root differs.
    from core.demo import write_demo_session

    root = Path(ctx.sessions_root)
    if not (root / ("--" + cwd.strip("/").replace("/", "-") + "--") / "demo-session-release").exists():
        write_demo_session(root, cwd, "demo-session-release", "Release branch and commit style")
        write_demo_session(root, cwd, "demo-session-ci", "Fix the flaky CI job")
    tab = shot.tab("consolidation")
    tab.refresh()
    tab.choose_workspace(info.key if info is not None else None)
    tab.select_session("demo-session-release")
    tab.set_consolidator("offline")
    tab.run_selected()
    tab._set_all(True)
    if tab.changes_model.rowCount() > 1:
        tab.changes_model.set_accepted(1, False)
    tab.changes_view.selectRow(0)
    tab.detail_tabs.setCurrentIndex(0)


def consolidation_masked_secret(shot: Shot) -> None:
    """The refused change holding a token: its diff shows dots, with "Show hidden values" (issue 14)."""
    tab = shot.tab("consolidation")
    secret = next((i for i, r in enumerate(tab.changes_model.change_rows()) if r.current.problems), 0)
    tab.diff_panel.unified_button.setChecked(True)
    tab.changes_view.selectRow(secret)


def consolidation_side_by_side(shot: Shot) -> None:
    tab = shot.tab("consolidation")
    secret = next((i for i, r in enumerate(tab.changes_model.change_rows()) if r.current.problems), 0)
    tab.changes_view.selectRow(max(0, secret - 1))
    tab.diff_panel.side_button.setChecked(True)


def consolidation_receipt(shot: Shot) -> None:
    tab = shot.tab("consolidation")
    tab.diff_panel.unified_button.setChecked(True)
    tab.commit_selected()


# --- recycle bin -------------------------------------------------------------------------------------


def recycle_archived(shot: Shot) -> None:
    tab = shot.tab("recycle")
    tab.banner.clear()
    tab.refresh()
    archived = shot.ctx.store.list_workspaces(archived=True)
    if archived:
        tab.select_workspace(archived[0].key)


def recycle_deleted_record(shot: Shot) -> None:
    tab = shot.tab("recycle")
    tab.refresh()
    deleted = [e for e in shot.ctx.store.history.entries() if e.reason == "delete"]
    if deleted:
        tab.select_entry(deleted[0].id)


def recycle_purge_wrong_name(shot: Shot) -> None:
    tab = shot.tab("recycle")
    recycle_archived(shot)
    ws = tab.selected_workspace()
    if ws is not None:
        shot.dialogs.answers.append(ws.display_name.upper() + "?")
        tab.purge_selected()


_OPEN_DIALOGS: list[QWidget] = []


def recycle_purge_dialog(shot: Shot) -> None:
    """The purge dialog itself, a typo typed: "Delete forever" stays off (issue 14)."""
    from gui.tabs.recycle_purge import PurgeDialog

    tab = shot.tab("recycle")
    recycle_archived(shot)
    ws = tab.selected_workspace()
    if ws is None:
        return
    dialog = PurgeDialog(tab.purge_question(ws), tab)
    dialog.name_edit.setText(ws.display_name[:-1])
    dialog.show()
    settle(120)
    _OPEN_DIALOGS.append(dialog)
    shot.grab_target = dialog


def recycle_workspace_memory(shot: Shot) -> None:
    """Another store's archived scope beside ours (issue 12)."""
    tab = shot.tab("recycle")
    tab.banner.clear()
    tab.refresh()
    panel = tab.wm_panel
    row = next((i for i in range(panel.model.rowCount()) if panel.model.scope(i).archived), -1)
    if row >= 0:
        panel.view.selectRow(row)
    settle()


def recycle_reset(shot: Shot) -> None:
    shot.window.tabs["recycle"].banner.clear()
    while _OPEN_DIALOGS:
        _OPEN_DIALOGS.pop().close()


# --- settings ----------------------------------------------------------------------------------------

DSH_SETTINGS = """\
agent-default-model: deepseek/deepseek-v4-flash
llm-deepseek:
  apiKeyEnv: DEEPSEEK_API_KEY
llm-pi-ai:
  providers:
    openrouter:
      baseUrl: https://openrouter.ai/api/v1
      apiKeyEnv: OPENROUTER_API_KEY
      api: openai-completions
      models:
        - id: qwen/qwen3-coder
          name: Qwen3 Coder
          input: [text]
"""


def settings_model(shot: Shot) -> None:
    home = shot.ctx.dsh_home
    path = home / "settings.yaml"
    if not path.exists():
        path.write_text(DSH_SETTINGS, encoding="utf-8")
    tab = shot.tab("settings")
    tab.revert()
    tab.consolidator_combo.setCurrentIndex(tab.consolidator_combo.findData("model"))
    tab.select_model("deepseek/deepseek-v4-flash")
    tab.save()


def settings_custom_endpoint(shot: Shot) -> None:
    """A custom endpoint tested against a throwaway loopback server."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Models(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"data": [{"id": "qwen3-coder"}]}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Models)
    thread = threading.Thread(target=lambda: server.serve_forever(0.05), daemon=True)
    thread.start()
    try:
        tab = shot.tab("settings")
        tab.select_model("custom")
        tab.base_url_edit.setText(f"http://127.0.0.1:{server.server_address[1]}/v1")
        tab.custom_model_edit.setText("qwen3-coder")
        tab.key_env_edit.setText("")
        tab.test_connection()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def settings_key_refused(shot: Shot) -> None:
    tab = shot.tab("settings")
    tab.key_env_edit.setText("sk-" + "0123456789abcdef" * 2)


def settings_reset(shot: Shot) -> None:
    tab = shot.window.tabs["settings"]
    tab.revert()
    tab.test_result.hide()


def settings_other_stores(shot: Shot) -> None:
    """Settings → the stores found on this machine, with workspace memory's problems (issue 12)."""
    tab = shot.tab("settings")
    tab.sources.refresh()
    model = tab.sources.model
    row = next((i for i in range(model.rowCount()) if model.source(i).kind == "workspace-memory"), 0)
    tab.sources.view.selectRow(row)
    settle()
    tab.fields.ensureWidgetVisible(tab.sources)
    settle()


def settings_limits(shot: Shot) -> None:
    tab = shot.tab("settings")
    tab.fields.ensureWidgetVisible(tab.fields.tool_rounds_spin)
    settle()


# --- shell: Global tab outside change, conflict dialog, quit dialog, File menu (issue 14) ----------


def _over_window(window: QWidget, dialog: QWidget) -> QPixmap:
    """The window, dimmed, with ``dialog`` drawn centred over it (as a modal dialog looks)."""
    dialog.adjustSize()
    dialog.show()
    settle(120)
    picture = window.grab()
    shot = dialog.grab()
    dialog.hide()
    painter = QPainter(picture)
    painter.fillRect(picture.rect(), QColor(0, 0, 0, 70))
    x = max(0, (picture.width() - shot.width()) // 2)
    y = max(0, (picture.height() - shot.height()) // 3)
    painter.drawPixmap(x, y, shot)
    painter.end()
    return picture


def global_reloaded(shot: Shot) -> None:
    """Another program changed GLOBAL.md while the editor was clean: the tab says it reloaded."""
    tab = shot.tab("global")
    store = shot.ctx.store
    snap = store.read_global()
    store.replace_global(snap.text.rstrip("\n") + "\n- Prefers pnpm over npm (added by an agent).\n", snap.revision)
    tab.refresh()
    settle(300)


def global_conflict_dialog(shot: Shot) -> None:
    """The question a save conflict asks, its safe default (keep my edits) highlighted."""
    tab = shot.tab("global")
    tab.editor.setPlainText(tab.editor.toPlainText().replace("Short answers", "Very short answers", 1))
    store = shot.ctx.store
    snap = store.read_global()
    store.replace_global(snap.text + "\n## Added by an agent\n\n- Prefers pnpm over npm.\n", snap.revision)
    shot.dialogs.capture_questions = True
    try:
        tab.save()
    finally:
        shot.dialogs.capture_questions = False
    settle(200)
    if shot.dialogs.captured:
        PICTURES.append(_over_window(shot.window, shot.dialogs.captured.pop()))


def quit_dialog(shot: Shot) -> None:
    """Quitting with unsaved edits: Save and quit is the default."""
    tab = shot.tab("global")
    tab.editor.setPlainText(tab.editor.toPlainText().rstrip("\n") + "\n- Draft: not saved yet.\n")
    settle(250)
    shot.dialogs.capture_questions = True
    try:
        shot.window.close()  # asks; the scripted answer is Cancel, so the window stays open
    finally:
        shot.dialogs.capture_questions = False
    if shot.dialogs.captured:
        PICTURES.append(_over_window(shot.window, shot.dialogs.captured.pop()))


def _with_menus(window: QWidget, menus: list[QMenu]) -> QPixmap:
    picture = window.grab()
    painter = QPainter(picture)
    for menu in menus:
        painter.drawPixmap(window.mapFromGlobal(menu.pos()), menu.grab())
    painter.end()
    for menu in reversed(menus):
        menu.hide()
    return picture


def file_menu_recent(shot: Shot) -> None:
    """File ▸ Recent Roots open (the list is the per-user preference, here a throwaway one)."""
    from core.user_prefs import UserPrefs, save_prefs

    config = Path(shot.ctx.root).parent / "config"
    os.environ["XDG_CONFIG_HOME"] = str(config)  # never the real user's preferences
    home = Path.home()
    save_prefs(
        UserPrefs(
            recent_roots=(
                str(home / ".dsh" / "memory"),
                str(home / "work" / "team-memory"),
                str(home / "backup" / "memory-2026-11"),
            )
        )
    )
    window = shot.window
    shot.tab("workspace")
    bar = window.menuBar()
    file_menu = window.file_menu
    file_menu.popup(bar.mapToGlobal(bar.actionGeometry(file_menu.menuAction()).bottomLeft()))
    settle(120)
    recent = window.recent_menu
    geometry = file_menu.actionGeometry(recent.menuAction())
    recent.aboutToShow.emit()
    recent.popup(file_menu.mapToGlobal(QPoint(geometry.right(), geometry.top())))
    settle(120)
    PICTURES.append(_with_menus(window, [file_menu, recent]))


def plain_tab(key: str) -> Step:
    def step(shot: Shot) -> None:
        shot.tab(key)
        settle(200)

    return step


# (name, step); a name starting with "_" runs the step without saving a screenshot.
STEPS: list[tuple[str, Step]] = [
    ("global", global_tab),
    ("global-editing", global_editing),
    ("_global-reset", global_reset),
    ("global-conflict", global_conflict),
    ("_global-reset", global_reset),
    ("global-reloaded", global_reloaded),
    ("global-conflict-dialog", global_conflict_dialog),
    ("_global-reset", global_reset),
    ("quit-dialog", quit_dialog),
    ("_global-reset", global_reset),
    ("file-menu-recent", file_menu_recent),
    ("workspace", workspace_record),
    ("workspace-chinese", workspace_chinese),
    ("workspace-invalid-file", workspace_invalid_file),
    ("workspace-staged-diff", workspace_staged_diff),
    ("_workspace-reset", workspace_reset),
    ("workspace-missing-folder", workspace_missing_folder),
    ("workspace-agent-view", workspace_agent_view),
    ("workspace-search", workspace_search),
    ("_search-reset", search_reset),
    ("workspace-other-stores", workspace_other_stores),
    ("workspace-other-stores-chinese", workspace_other_stores_chinese),
    ("workspace-search-other-stores", workspace_search_other_stores),
    ("_search-other-reset", search_other_reset),
    *workspace_steps.STEPS,  # highlighted hits, bulk selection, undo, provenance, empty root (issue 14)
    *hygiene_steps.STEPS,  # new record, lifted toast, pending search, problems dialog, language (issue 27)
    ("consolidation", plain_tab("consolidation")),
    ("consolidation-review", consolidation_review),
    ("consolidation-masked-secret", consolidation_masked_secret),
    ("consolidation-side-by-side", consolidation_side_by_side),
    ("consolidation-receipt", consolidation_receipt),
    *review_steps.STEPS,  # agent proposals, merge, what the model saw, batch, restored, import
    *supersede_steps.STEPS,  # supersedes with Replace/Keep both/Merge, rename, evidence (issue 26)
    ("recycle-bin", recycle_archived),
    ("recycle-bin-deleted-record", recycle_deleted_record),
    ("recycle-bin-purge-wrong-name", recycle_purge_wrong_name),
    ("_recycle-bin-reset", recycle_reset),
    ("recycle-bin-purge-dialog", recycle_purge_dialog),
    ("_recycle-bin-reset", recycle_reset),
    ("recycle-bin-workspace-memory", recycle_workspace_memory),
    ("_recycle-bin-reset", recycle_reset),
    ("settings", settings_model),
    ("settings-custom-endpoint", settings_custom_endpoint),
    ("settings-key-refused", settings_key_refused),
    ("_settings-reset", settings_reset),
    ("settings-limits", settings_limits),
    ("settings-other-stores", settings_other_stores),
    *maintenance_steps.STEPS,  # review queue, load meter, export, zip import under review
    *usage_steps.STEPS,  # issue 30: Last used, the usage line, the usage views, "Led to a read"
    *sync_steps.STEPS,  # Settings ▸ Sync, a sync review, "Moved? Pick the new folder…" (issue 28)
]


def build_context(root: Path, dialogs: QuietDialogs) -> AppContext:
    from core.search import SearchIndex
    from gui.app import open_store, sessions_root_from_settings

    store = open_store(root)
    home = root.parent / "dsh-home"
    home.mkdir(exist_ok=True)
    search = SearchIndex(store)
    search.refresh()
    return AppContext(
        store=store,
        runner=SyncTaskRunner(),  # deterministic: every load has finished when a step returns
        dialogs=dialogs,
        root=root,
        sessions_root=sessions_root_from_settings(store),  # the demo root's own sessions
        dsh_home=home,
        search=search,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    parser.add_argument("--only", nargs="*", help="step names to save (all by default)")
    parser.add_argument("--lang", choices=["en", "zh_CN"], default="en",
                        help="interface language; zh_CN shots go to <out>/zh_CN/ by default")
    args = parser.parse_args(argv)
    if args.lang != "en" and args.out == REPO / "docs" / "screenshots":
        args.out = args.out / args.lang

    app = QApplication.instance() or QApplication(["screenshots"])
    assert isinstance(app, QApplication)
    from gui.i18n import install_translators
    from gui.widgets.fonts import apply_app_fonts

    translators = install_translators(app, args.lang)  # noqa: F841 (kept alive while the window lives)
    apply_app_fonts(app)
    from core.demo import build_demo_root

    with tempfile.TemporaryDirectory(prefix="dsh-shots-") as tmp:
        root = Path(tmp) / "memory"
        build_demo_root(root)
        # Other stores for issue 12, under a temp HOME: the real home is never read.
        from demo_sources import build_demo_sources

        os.environ["HOME"] = str(Path(tmp) / "home")
        build_demo_sources(Path(tmp) / "home", Path(tmp) / "dsh-home", root, root / "demo-projects")
        dialogs = QuietDialogs()
        ctx = build_context(root, dialogs)
        window = MainWindow(ctx, watch=False)
        window.resize(*WINDOW_SIZE)
        window.show()
        settle(200)
        args.out.mkdir(parents=True, exist_ok=True)
        saved = []
        try:
            for name, step in STEPS:
                shot = Shot(window, ctx, dialogs)
                step(shot)
                if name.startswith("_") or (args.only and name not in args.only):
                    PICTURES.clear()
                    continue
                settle()
                path = args.out / f"{name}.png"
                picture = PICTURES.pop() if PICTURES else (shot.grab_target or window).grab()
                picture.save(str(path))
                PICTURES.clear()
                saved.append(path)
                print(f"saved {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
        finally:
            window.shutdown()
            window.close()
    print(f"{len(saved)} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
