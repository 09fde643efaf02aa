"""Render resources/icons/dsh-memory.svg to the PNG sizes desktops and PyInstaller want.

Run after editing the SVG: ``QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icons.py``.
The PNGs are committed, so building the app never needs this script.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256)


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ICONS / "dsh-memory.svg"))
    if not renderer.isValid():
        print("make_icons: the SVG did not parse", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        out = ICONS / f"dsh-memory-{size}.png"
        if not image.save(str(out), "PNG"):
            print(f"make_icons: could not write {out}", file=sys.stderr)
            return 1
        print(f"{out.relative_to(ICONS.parents[1])}: {out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
