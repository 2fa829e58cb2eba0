// SPDX-License-Identifier: MIT
#include "celldelegate.h"

#include <QPainter>

namespace {
// A cache that outgrows this has seen texts of many files; it refills with what is on screen.
constexpr qsizetype MaxCachedTexts = 20000;
} // namespace

void CellDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                         const QModelIndex& index) const {
    const bool selected = option.state & QStyle::State_Selected;
    const QVariant background = index.data(Qt::BackgroundRole);
    if (selected)
        painter->fillRect(option.rect, option.palette.brush(QPalette::Active, QPalette::Highlight));
    else if (background.canConvert<QColor>())
        painter->fillRect(option.rect, background.value<QColor>());
    const QString text = index.data(Qt::DisplayRole).toString();
    if (text.isEmpty()) return;
    const QVariant fontData = index.data(Qt::FontRole);
    const QFont font = fontData.isValid() ? fontData.value<QFont>() : option.font;
    if (!(m_cacheFont == option.font)) {
        m_cache.clear();
        m_cacheFont = option.font;
    }
    // The models' fonts differ from the view's only by italic (borderline) or bold (differs).
    const QChar style(u'0' + (fontData.isValid() ? 1 : 0) + (font.italic() ? 2 : 0) +
                      (font.bold() ? 4 : 0));
    const QString key = style + text;
    auto it = m_cache.constFind(key);
    if (it == m_cache.constEnd()) {
        if (m_cache.size() > MaxCachedTexts) m_cache.clear();
        Shaped s;
        s.text = QStaticText(text);
        s.text.setTextFormat(Qt::PlainText);
        s.text.setPerformanceHint(QStaticText::AggressiveCaching);
        s.text.prepare(QTransform(), font);
        const QFontMetrics fm(font);
        s.width = fm.horizontalAdvance(text);
        s.height = fm.height();
        it = m_cache.insert(key, s);
    }
    const QRect r = option.rect.adjusted(4, 0, -4, 0);
    const QVariant align = index.data(Qt::TextAlignmentRole);
    const int flags = align.isValid() ? align.toInt() : int(Qt::AlignLeft | Qt::AlignVCenter);
    const QVariant fg = index.data(Qt::ForegroundRole);
    painter->save();
    painter->setFont(font);
    painter->setPen(selected ? option.palette.color(QPalette::Active, QPalette::HighlightedText)
                    : fg.canConvert<QColor>() ? fg.value<QColor>()
                                              : option.palette.color(QPalette::Text));
    if (it->width > r.width()) {
        // Too long for the cell: elided, shaped each time (names, long reasons; the few cells
        // a narrowed column cuts).
        const QFontMetrics fm(font);
        painter->drawText(r, flags | Qt::TextSingleLine,
                          fm.elidedText(text, Qt::ElideRight, r.width()));
    } else {
        const int x = flags & Qt::AlignRight     ? r.right() + 1 - it->width
                      : flags & Qt::AlignHCenter ? r.left() + (r.width() - it->width) / 2
                                                 : r.left();
        const int y = r.top() + (r.height() - it->height) / 2;
        painter->drawStaticText(QPointF(x, y), it->text);
    }
    painter->restore();
}
