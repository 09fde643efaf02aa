"""How a search hit is drawn: two compact lines (title · where, then the snippet around the first
match), the query's words highlighted. Compact so a dozen hits fit in the left column."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument, QTextOption
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from gui.qtmodels.roles import ITEM_ROLE
from gui.qtmodels.search_results import SearchHit, excerpt, highlight

_Index = QModelIndex | QPersistentModelIndex
_PAD = 4


class HitDelegate(QStyledItemDelegate):
    """Paints a :class:`SearchHit` with the terms of ``terms()`` highlighted."""

    def __init__(self, terms: list[str] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.terms: list[str] = terms or []

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        fm = option.fontMetrics
        return QSize(200, 2 * fm.height() + 2 * _PAD + 2)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        hit = index.data(ITEM_ROLE)
        if not isinstance(hit, SearchHit):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = opt.rect
        fm = opt.fontMetrics
        width = rect.width() - 2 * _PAD
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        where = fm.elidedText(hit.where, Qt.TextElideMode.ElideMiddle, max(width // 3, 40))
        title = fm.elidedText(
            hit.name, Qt.TextElideMode.ElideRight, max(width - fm.horizontalAdvance(f"  ·  {where}"), 40)
        )
        snippet = fm.elidedText(excerpt(hit.snippet, self.terms), Qt.TextElideMode.ElideRight, width)
        grey = "#ddd" if selected else "#666"
        html = (
            f"<b>{highlight(title, self.terms)}</b><span style='color:{grey}'>  ·  {highlight(where, [])}</span>"
            f"<br><span style='color:{grey if selected else '#333'}'>{highlight(snippet, self.terms)}</span>"
        )
        doc = QTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setDocumentMargin(0)
        doc.setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignLeft))
        doc.setHtml(html)
        doc.setTextWidth(width + 40)  # never wraps: each line was elided to fit already
        painter.save()
        painter.translate(rect.left() + _PAD, rect.top() + _PAD)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        ctx.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(role))
        ctx.clip = QRectF(0, 0, width, rect.height() - _PAD)
        painter.setClipRect(ctx.clip)
        doc.documentLayout().draw(painter, ctx)
        painter.restore()
