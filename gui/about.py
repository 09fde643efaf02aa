"""The application icon and the About dialog (version, memory root, licence)."""

from __future__ import annotations

import platform
from html import escape

from PySide6.QtCore import QCoreApplication, Qt, qVersion
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from core.version import __version__
from gui.context import AppContext
from resources import icon_png_paths, icon_svg_path

APP_NAME = "DSH Memory Manager"
LICENCE = "MIT"


def app_icon() -> QIcon:
    """The window/taskbar icon: every rendered PNG size, plus the SVG when no PNG is present."""
    icon = QIcon()
    for path in icon_png_paths():
        icon.addFile(str(path))
    if icon.isNull() and icon_svg_path().is_file():
        icon.addFile(str(icon_svg_path()))
    return icon


def about_html(ctx: AppContext) -> str:
    """The dialog's text, also handy for tests and the self-test report."""
    rows = [
        (QCoreApplication.translate("AboutDialog", "Version"), __version__),
        (QCoreApplication.translate("AboutDialog", "Memory root"), str(ctx.root)),
        (QCoreApplication.translate("AboutDialog", "Sessions root"), str(ctx.sessions_root)),
        (QCoreApplication.translate("AboutDialog", "Licence"), LICENCE),
        ("Python", platform.python_version()),
        ("Qt", qVersion()),
    ]
    table = "".join(
        f"<tr><td style='padding-right:12px'><b>{escape(k)}</b></td><td>{escape(v)}</td></tr>" for k, v in rows
    )
    intro = QCoreApplication.translate(
        "AboutDialog",
        "Browse, edit and consolidate the long-term memory DeepSeek Harness agents keep on this machine as Markdown.",
    )
    licence = QCoreApplication.translate("AboutDialog", "Released under the {licence} licence.").format(licence=LICENCE)
    return (
        f"<h3>{APP_NAME} {escape(__version__)}</h3><p>{escape(intro)}</p><table>{table}</table><p>{escape(licence)}</p>"
    )


class AboutDialog(QDialog):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle(self.tr("About {app}").format(app=APP_NAME))
        self.setWindowIcon(app_icon())
        logo = QLabel()
        pixmap = QPixmap(str(icon_png_paths()[-1])) if icon_png_paths() else QPixmap()
        if not pixmap.isNull():
            logo.setPixmap(
                pixmap.scaled(96, 96, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
            )
        logo.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.text = QLabel(about_html(ctx))
        self.text.setObjectName("aboutText")
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(logo)
        row.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(buttons)
        self.setMinimumWidth(460)


def show_about(parent: QWidget | None, ctx: AppContext) -> AboutDialog:
    """Open the About dialog window-modal without blocking (``open()``, never ``exec()``)."""
    dialog = AboutDialog(ctx, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
