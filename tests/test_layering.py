"""The core stays headless: nothing in ``core/`` may import Qt or the GUI package."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "core"
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "gui")


def test_no_core_module_imports_qt_or_gui() -> None:
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(CORE.parent)}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def _imports(path: Path) -> list[str]:
    """Every absolute module a file imports (``from x import y`` also as ``x.y``: it may be a module)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    return names


# Lower layers never import the ones built on them: consolidation reviews what the MCP server
# proposes (core.consolidation.agent_proposals), so the server depends on it and not the reverse.
UPWARD = {"consolidation": ("core.mcp", "core.cli")}


def test_consolidation_never_imports_the_mcp_server_or_the_cli() -> None:
    offenders = []
    for package, above in UPWARD.items():
        for path in sorted((CORE / package).rglob("*.py")):
            for name in _imports(path):
                if any(name == a or name.startswith(a + ".") for a in above):
                    offenders.append(f"{path.relative_to(CORE.parent)}: {name}")
    assert offenders == []
    # The dependency runs the other way: the server imports the proposals it creates from below.
    assert "core.consolidation.agent_proposals" in _imports(CORE / "mcp" / "agent.py")


def test_the_upward_check_sees_every_import_form(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("from core import mcp\nimport core.mcp.agent\nfrom core.mcp.agent import Agent\n")
    assert {"core.mcp", "core.mcp.agent", "core.mcp.agent.Agent"} <= set(_imports(src))


def test_cli_runs_without_loading_qt(tmp_path: Path) -> None:
    code = (
        "import sys; from gui.launcher import main; rc = main(['--root', sys.argv[1], '--json', 'status']);"
        "assert 'PySide6' not in sys.modules, 'Qt was imported'; raise SystemExit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "root")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


GUI = CORE.parent / "gui"
# Reading files is the store's job (it owns the layout, validates names and never follows a
# symlink out of the root): the GUI asks it (read_workspace, read_record_file, has_memory...).
FILE_READS = {"read_bytes", "read_text", "iterdir", "glob", "rglob", "listdir", "scandir", "walk"}


def test_no_gui_module_reads_files_itself() -> None:
    offenders = []
    for path in sorted(GUI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = ""
            if isinstance(func, ast.Name) and func.id == "open":
                name = "open"
            elif isinstance(func, ast.Attribute) and func.attr in FILE_READS:
                name = func.attr
            elif (
                isinstance(func, ast.Attribute)
                and func.attr == "open"
                and isinstance(func.value, ast.Name)
                and func.value.id in ("os", "io")
            ):
                name = f"{func.value.id}.open"
            if name:
                offenders.append(f"{path.relative_to(GUI.parent)}:{node.lineno}: {name}()")
    assert offenders == []


def test_the_window_opens_without_the_model_client(tmp_path: Path) -> None:
    """The chat consolidator's HTTP client (httpx, asyncio: ~15 MB of modules) and the offline
    extractor's fuzzy matching load when a model is asked or a session consolidated, not with the
    window: at 100k records they were what put the window over its memory budget (issue 24)."""
    code = (
        "import sys; from pathlib import Path; from PySide6.QtWidgets import QApplication;"
        "app = QApplication(['t']); from gui.app import build_context; from gui.dialogs import Dialogs;"
        "from gui.main_window import MainWindow; w = MainWindow(build_context(Path(sys.argv[1]), dialogs=Dialogs()));"
        "w.show(); app.processEvents();"
        "print(sorted(m for m in ('httpx', 'asyncio', 'rapidfuzz') if m in sys.modules))"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "root")], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
