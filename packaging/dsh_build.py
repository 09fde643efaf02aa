"""The project's build backend: setuptools, plus the interface's translations compiled into the wheel.

``pyproject.toml`` names this module (``build-backend = "dsh_build"``, ``backend-path = ["packaging"]``)
and its ``BuildPy`` as setuptools' ``build_py``. Every hook is setuptools' own; the one addition is
that building the wheel runs Qt's ``lrelease`` over ``resources/translations/zh_CN/*.ts`` and writes
``dsh_zh_CN.qm`` and ``dsh_en.qm`` into the build folder, so a wheel built from a clean clone (what
``pipx install .`` and ``uv tool install .`` do) opens in Chinese under a zh_CN locale.

Why a build step rather than committed ``.qm`` files: several people edit the ``.ts`` sources in
parallel, and a committed binary beside each of them would conflict at every merge and could lag its
source; compiled at build time it can't. A root ``setup.py`` is not allowed by the repository layout,
hence this in-tree backend. The wheel hook asks for PySide6-Essentials (lrelease ships inside it; it is
a runtime dependency anyway, so an installer has it at hand); editable installs and sdists don't.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every other PEP 517 hook is setuptools')
from setuptools.command.build_py import build_py

REPO = Path(__file__).resolve().parent.parent


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*_setuptools.get_requires_for_build_wheel(config_settings), "PySide6-Essentials>=6.7"]


def compile_translations(out_dir: Path) -> None:
    """The ``.qm`` files into ``out_dir``, by ``scripts/i18n.py`` (the same step setup.sh runs)."""
    spec = importlib.util.spec_from_file_location("dsh_i18n", REPO / "scripts" / "i18n.py")
    assert spec is not None and spec.loader is not None
    i18n = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(i18n)
    i18n.compile_qm(out_dir)


class BuildPy(build_py):
    """setuptools' ``build_py``, then the compiled translations beside the copied ``.ts`` sources."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the source tree, where setup.sh compiles them
        compile_translations(Path(self.build_lib) / "resources" / "translations")
