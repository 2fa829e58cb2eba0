// SPDX-License-Identifier: MIT
#include "columnfitter.h"

#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>

#include <algorithm>
#include <vector>

ColumnFitter::ColumnFitter(QTableView* table, int stretchColumn, int minWidth, int maxWidth,
                           QList<int> growColumns)
    : QObject(table), m_table(table), m_column(stretchColumn), m_min(minWidth), m_max(maxWidth),
      m_grow(std::move(growColumns)) {
    table->horizontalHeader()->setSectionResizeMode(stretchColumn, QHeaderView::Interactive);
    table->viewport()->installEventFilter(this);
}

// The width to fill: the viewport's with room for a vertical scroll bar always kept, so that a
// filter or re-threshold that makes the scroll bar come or go (a few rows more or less) never
// re-fits every column: that relayout was most of a re-threshold with ranges set.
int ColumnFitter::availableWidth() const {
    const QScrollBar* bar = m_table->verticalScrollBar();
    const int extent = m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, bar);
    return m_table->viewport()->width() + (bar->isVisible() ? 0 : -extent);
}

bool ColumnFitter::eventFilter(QObject* watched, QEvent* event) {
    // Only a change of width: setting column widths changes the scroll range, never the
    // viewport's width, so this cannot loop.
    if (watched == m_table->viewport() && event->type() == QEvent::Resize &&
        availableWidth() != m_lastWidth)
        fit();
    return QObject::eventFilter(watched, event);
}

void ColumnFitter::fit() {
    const QAbstractItemModel* model = m_table->model();
    if (!model) return;
    m_lastWidth = availableWidth();
    if (m_beforeFit) m_beforeFit(m_lastWidth);
    int others = 0, growBase = 0;
    QList<int> grow;
    for (int c = 0; c < model->columnCount(); ++c) {
        if (c == m_column || m_table->isColumnHidden(c)) continue;
        if (m_grow.contains(c)) {
            const int base = m_base.value(c, m_table->columnWidth(c));
            growBase += base;
            grow << c;
        } else {
            others += m_table->columnWidth(c);
        }
    }
    int leftover = m_lastWidth - others - growBase;
    // Short of room for the name's minimum: the grow columns give up to an eighth of their width
    // first (their headers elide a little, the numbers still fit), so that a 1280 px window
    // shows every column without scrolling sideways.
    std::vector<int> widths;
    for (int c : grow)
        widths.push_back(m_base.value(c, m_table->columnWidth(c)));
    if (leftover < m_min && !grow.isEmpty()) {
        int deficit = m_min - leftover;
        for (size_t i = 0; i < widths.size() && deficit > 0; ++i) {
            const int give = std::min(deficit, widths[i] / 8);
            widths[i] -= give;
            leftover += give;
        }
        // Spread evenly rather than first come: a second pass takes back what the first took
        // from the early columns beyond their share.
        int total = 0, base = 0;
        for (size_t i = 0; i < widths.size(); ++i) {
            total += widths[i];
            base += m_base.value(grow[int(i)], m_table->columnWidth(grow[int(i)]));
        }
        const double keep = base > 0 ? double(total) / base : 1.0;
        int assigned = 0;
        for (size_t i = 0; i < widths.size(); ++i) {
            const int b = m_base.value(grow[int(i)], m_table->columnWidth(grow[int(i)]));
            widths[i] = i + 1 < widths.size() ? int(b * keep) : total - assigned;
            assigned += widths[i];
        }
    }
    const int width = std::clamp(leftover, m_min, std::max(m_min, m_max));
    m_table->setColumnWidth(m_column, width);
    const int extra = std::max(0, leftover - width);
    for (int i = 0; i < grow.size(); ++i) {
        // The last one takes the remainder, so the columns end exactly at the edge.
        const int n = int(grow.size());
        const int share = i + 1 < n ? extra / n : extra - (extra / n) * (n - 1);
        m_table->setColumnWidth(grow[i], widths[size_t(i)] + share);
    }
}
