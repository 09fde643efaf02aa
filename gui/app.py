"""Builds the application: QApplication, the memory root (or a demo root), the AppContext and the window."""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import shiboken6
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from core.errors import DshMemoryError
from core.keys import default_sessions_root, dsh_home, resolve_root
from core.search import SearchIndex
from core.store.api import MemoryStore
from core.store.files import SETTINGS
from core.user_prefs import load_prefs
from gui.about import app_icon
from gui.context import AppContext
from gui.dialogs import Dialogs
from gui.i18n import effective_language, install_translators, remove_translators
from gui.root_caches import RootCaches
from gui.tasks import TaskRunner, ThreadPoolTaskRunner
from gui.widgets.fonts import apply_app_fonts

APP_NAME = "DSH Memory Manager"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="dsh-memory", add_help=False)
    parser.add_argument("--root")
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--self-test", action="store_true")
    # This run's language, whatever Settings saved (screenshots, trying the other one); not saved.
    parser.add_argument("--lang", choices=["en", "zh_CN", "system"])
    args, _unknown = parser.parse_known_args(list(argv))  # Qt's own flags (-platform ...) pass through
    return args


def root_has_memory(root: Path) -> bool:
    """True when the root holds any DSH memory (Global, an active or an archived workspace)."""
    return open_store(root).inspect.has_memory()


def demo_root_dir() -> Path:
    """Where the demo root lives: the per-user data dir, or a temp dir when that is not writable."""
    try:
        import platformdirs

        base = Path(platformdirs.user_data_dir("dsh-memory", appauthor=False))
        base.mkdir(parents=True, exist_ok=True)
        return base / "demo-root"
    except OSError:
        return Path(tempfile.mkdtemp(prefix="dsh-memory-demo-")) / "demo-root"


def ensure_demo_root(target: Path | None = None) -> Path:
    """Build the demo root once (kept across runs so edits made while exploring survive)."""
    target = target or demo_root_dir()
    if not root_has_memory(target):
        from core.demo import build_demo_root

        build_demo_root(target)
    return target


def open_store(root: Path, caches: RootCaches | None = None) -> MemoryStore:
    """A file store on ``root``, warm when ``caches`` kept what an earlier store of this root parsed."""
    from core.store.fs import FileStore

    store: MemoryStore = FileStore(root, caches=caches.for_root(root) if caches is not None else None)
    return store


def sessions_root_from_settings(store: MemoryStore) -> Path:
    """The sessions root chosen in ``settings.yml`` (Settings tab), else ``$DSH_HOME/sessions``.

    A malformed settings file gives the defaults here; the Settings tab shows what is wrong with it.
    No file at all (the usual case) means the defaults without building a validated AppSettings:
    its credential check imports detect-secrets, 0.6 s of the window's start-up.
    """
    try:
        text, _revision = store.files(SETTINGS).read_revised()
    except (DshMemoryError, OSError):
        return default_sessions_root()
    if text is None:
        return default_sessions_root()
    from core.settings import load_settings  # pydantic models and the credential check: only now

    try:
        loaded = load_settings(store)
    except DshMemoryError:  # unreadable settings must not keep the window from opening
        return default_sessions_root()
    return loaded.settings.resolved_sessions_root()


def build_context(root: Path, *, dialogs: Dialogs | None = None, runner: TaskRunner | None = None) -> AppContext:
    root_caches = RootCaches()
    store = open_store(root, root_caches)
    return AppContext(
        store=store,
        runner=runner or ThreadPoolTaskRunner(),
        dialogs=dialogs or Dialogs(),
        root=root,
        sessions_root=sessions_root_from_settings(store),
        dsh_home=dsh_home(),
        search=SearchIndex(store),
        root_caches=root_caches,
    )


def choose_root(args: argparse.Namespace, dialogs: Dialogs, *, can_ask: bool = True) -> Path:
    """The root to open: the resolved one, or the demo root when there is no memory yet.

    ``can_ask`` is False on a screenless (offscreen) platform, where nobody could answer the offer:
    the demo root opens straight away and a line on stderr says so.
    """
    if args.demo:
        return ensure_demo_root()
    root = resolve_root(args.root)
    if root_has_memory(root) or args.self_test:
        return root
    if not can_ask:
        demo = ensure_demo_root()
        print(f"dsh-memory: no memory at {root} yet; opened the demo root {demo}", file=sys.stderr)
        return demo
    if dialogs.confirm(
        None,
        QCoreApplication.translate("App", "No memory yet"),
        QCoreApplication.translate(
            "App",
            "There is no DSH memory at\n{root}\nyet.\n\n"
            "Open a demo memory root (sample workspaces in English and Chinese) to look around? "
            "Your real root is not touched.",
        ).format(root=root),
        QCoreApplication.translate("App", "Open demo"),
    ):
        return ensure_demo_root()
    return root


def run(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "dsh-memory"])
    assert isinstance(app, QApplication)
    app.setApplicationName("dsh-memory")
    app.setApplicationDisplayName(APP_NAME)
    # Before any widget exists: texts are translated when a widget is built.
    translators = install_translators(app, effective_language(args.lang or load_prefs().language))
    apply_app_fonts(app)
    app.setWindowIcon(app_icon())

    # Ctrl+C in the terminal quits (Python's handler would wait for an event that never comes).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    dialogs = Dialogs()
    root = choose_root(args, dialogs, can_ask=QApplication.platformName() != "offscreen")
    ctx = build_context(root, dialogs=dialogs)
    if not args.self_test:
        from gui.root_switch import remember_root

        remember_root(root)  # File ▸ Recent Roots

    from gui.main_window import OPEN_WINDOWS, MainWindow

    window = MainWindow(ctx)
    window.setWindowIcon(app_icon())
    window.show()
    try:
        if args.self_test:
            from gui.selftest import run_self_test

            return run_self_test(window, ctx)
        return int(app.exec())
    finally:
        for opened in [window, *OPEN_WINDOWS]:  # File ▸ Open may have replaced the first window
            if shiboken6.isValid(opened):
                opened.shutdown()
        ctx.runner.wait_all(10000)
        window.deleteLater()
        remove_translators(app, translators)  # run() may be called again in one process (tests)
