// SPDX-License-Identifier: MIT
#pragma once
// The filter matrix's and the compare view's cell painter.

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QStyledItemDelegate>

// Paints cells directly (fill, one line of elided text) instead of through the style's generic
// item path, which lays text out with QTextLayout per cell: repainting the matrix after a
// threshold edit is most of the re-threshold cost, and this halves it. The texts are shaped once
// and kept (QStaticText): a re-threshold repaints the same few hundred texts, flag marks on or
// off, so shaping them again on every repaint was most of what was left.
class CellDelegate : public QStyledItemDelegate {
  public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;

  private:
    struct Shaped {
        QStaticText text;
        int width = 0, height = 0;
    };
    mutable QHash<QString, Shaped> m_cache; // key: a font-style character, then the text
    mutable QFont m_cacheFont;              // the view font the cache was filled with
};
