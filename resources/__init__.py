"""Package data shipped with the app: the icon (SVG + PNG sizes) and the Linux ``.desktop`` file.

Files are found next to this module, in a source checkout, an installed wheel and a frozen build alike.
"""

from __future__ import annotations

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)


def icon_svg_path() -> Path:
    return RESOURCES_DIR / "icons" / "dsh-memory.svg"


def icon_png_paths() -> list[Path]:
    """The rendered PNG sizes, smallest first (those present on disk)."""
    paths = [RESOURCES_DIR / "icons" / f"dsh-memory-{size}.png" for size in ICON_SIZES]
    return [p for p in paths if p.is_file()]


def desktop_file_path() -> Path:
    return RESOURCES_DIR / "dsh-memory.desktop"
