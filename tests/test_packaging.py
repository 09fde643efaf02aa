"""Packaging pieces that must stay true without building: version, .desktop file, icon, spec."""

from __future__ import annotations

import ast
import configparser
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.version import __version__
from resources import desktop_file_path, icon_png_paths, icon_svg_path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "packaging" / "dsh-memory.spec"

# Showing a dialog on the offscreen platform logs this harmless warning.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def test_version_via_the_launcher_prints_the_one_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from gui.launcher import main; raise SystemExit(main(['--version']))"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"dsh-memory {__version__}"


def test_version_is_defined_in_exactly_one_place() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'version = { attr = "core.version.__version__" }' in pyproject
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)?", __version__)


def test_desktop_file_is_valid() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(desktop_file_path(), encoding="utf-8")
    entry = parser["Desktop Entry"]
    for key in ("Name", "Exec", "Icon", "Type", "Categories"):
        assert entry.get(key, "").strip(), f"missing {key}"
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == "dsh-memory"
    assert entry["Icon"] == icon_svg_path().stem
    assert entry["Categories"].endswith(";")
    assert entry.get("Terminal") == "false"


def test_icon_svg_and_every_png_size_exist() -> None:
    assert icon_svg_path().is_file()
    assert "<svg" in icon_svg_path().read_text(encoding="utf-8")
    sizes = sorted(int(p.stem.rsplit("-", 1)[1]) for p in icon_png_paths())
    assert sizes == [16, 24, 32, 48, 64, 128, 256]
    for path in icon_png_paths():
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _spec_tree() -> ast.Module:
    return ast.parse(SPEC.read_text(encoding="utf-8"))


def test_spec_names_existing_files() -> None:
    text = SPEC.read_text(encoding="utf-8")
    _spec_tree()  # it is valid Python
    assert 'ENTRY = REPO / "gui" / "launcher.py"' in text
    assert (REPO / "gui" / "launcher.py").is_file()
    assert 'RESOURCES = REPO / "resources"' in text
    assert (REPO / "resources" / "__init__.py").is_file()
    icon = re.search(r'ICON = RESOURCES / "icons" / "([^"]+)"', text)
    assert icon and (REPO / "resources" / "icons" / icon.group(1)).is_file()
    assert 'name="dsh-memory"' in text


def test_spec_collects_the_dynamically_imported_cli_commands() -> None:
    from core.cli.main import COMMAND_MODULES

    text = SPEC.read_text(encoding="utf-8")
    assert 'collect_submodules("core")' in text  # covers every core.cli.* command module
    assert all(m.startswith("core.cli.") for m in COMMAND_MODULES)


def test_spec_excludes_only_qt_modules_the_app_does_not_import() -> None:
    text = SPEC.read_text(encoding="utf-8")
    block = re.search(r"for m in \((.*?)\)\n\s*\]", text, re.S)
    assert block
    excluded = set(re.findall(r'"(Qt\w+)"', block.group(1)))
    used: set[str] = set()
    for path in [*(REPO / "gui").rglob("*.py"), REPO / "resources" / "__init__.py"]:
        used |= set(re.findall(r"PySide6\.(Qt\w+)", path.read_text(encoding="utf-8")))
    assert excluded and not (excluded & used), f"excluded but used: {excluded & used}"


def test_build_and_smoke_scripts_are_executable() -> None:
    for name in ("build.sh", "smoke_test.sh"):
        path = REPO / "packaging" / name
        assert path.is_file() and path.stat().st_mode & 0o111
        text = path.read_text(encoding="utf-8")
        assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail" in text


def test_about_dialog_shows_version_root_and_licence(qtbot: Any, tmp_path: Path) -> None:
    from gui.about import app_icon, show_about
    from gui.context import AppContext
    from gui.dialogs import ScriptedDialogs
    from gui.tasks import SyncTaskRunner

    ctx = AppContext(
        store=None,  # type: ignore[arg-type]  # the dialog never reads the store
        runner=SyncTaskRunner(),
        dialogs=ScriptedDialogs(),
        root=tmp_path / "memory",
        sessions_root=tmp_path / "sessions",
        dsh_home=tmp_path,
    )
    dialog = show_about(None, ctx)
    qtbot.addWidget(dialog)
    assert dialog.isVisible()
    text = dialog.text.text()
    assert __version__ in text and str(tmp_path / "memory") in text and "MIT" in text
    assert dialog.windowTitle() == "About DSH Memory Manager"
    icon = app_icon()
    assert not icon.isNull()
    assert {s.width() for s in icon.availableSizes()} >= {16, 32, 256}
    dialog.close()


def _offline_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a child that must not see the user's home, locale or Python path."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHON", "XDG_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"))
    env.update(extra)
    return env


@pytest.mark.slow
def test_a_wheel_from_a_clean_clone_carries_the_translations_and_starts_in_chinese(tmp_path: Path) -> None:
    """What ``pipx install .`` does: build the wheel from the sources alone, install it, start it.

    The clone has no compiled ``.qm`` (they are never committed); the build backend must make them.
    Built offline (``--no-index --no-build-isolation``: this venv's setuptools and PySide6) and
    installed with ``--no-deps`` into a target folder that comes first on the child's path.
    """
    import zipfile

    clone, wheels, target, home = (tmp_path / n for n in ("clone", "wheels", "target", "home"))
    home.mkdir()
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    assert not list(clone.rglob("*.qm"))
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    env = _offline_env(home, PIP_NO_INDEX="1")
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(clone)],
                   check=True, env=env, timeout=600)
    (wheel,) = wheels.glob("dsh_memory_manager-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "resources/translations/dsh_zh_CN.qm" in names
    assert "resources/translations/dsh_en.qm" in names

    install = [*pip, "install", "--no-deps", "--target", str(target), str(wheel)]
    subprocess.run(install, check=True, env=env, timeout=300)
    code = "import sys, gui; print(gui.__file__); from gui.launcher import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, "--self-test", "--demo"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=_offline_env(home, LANG="zh_CN.UTF-8", PYTHONPATH=str(target), QT_QPA_PLATFORM="offscreen"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0] == str(target / "gui" / "__init__.py")  # the installed copy ran
    assert "ok   工作区" in proc.stdout and "ok   设置" in proc.stdout, proc.stdout
