// SPDX-License-Identifier: MIT
#pragma once
// Fits a table's columns to its width (issue 14, point 6): one column (the task name) takes what
// the others leave, between a minimum and a maximum, so that it is neither cut to "23_Soft..." on a
// 1280 px screen nor 600 px of blank on a 1920 px one; past its maximum the rest goes to the
// "grow" columns (the data), spread evenly over those shown; short of room for the minimum, the
// grow columns give up to an eighth of their width first. Re-fits whenever the viewport's
// width changes. Columns the user resized keep their width, except the name and grow columns.

#include <QHash>
#include <QList>
#include <QObject>

#include <functional>

class QTableView;

class ColumnFitter : public QObject {
    Q_OBJECT
  public:
    ColumnFitter(QTableView* table, int stretchColumn, int minWidth, int maxWidth,
                 QList<int> growColumns = {});

    // The width a grow column has when there is nothing to spare (what the view sets up).
    void setBaseWidth(int column, int width) { m_base.insert(column, width); }
    void fit();
    // Called with the viewport's width before each fit: a view may change its base widths (or
    // its headers) for the width it has.
    void setBeforeFit(std::function<void(int width)> f) { m_beforeFit = std::move(f); }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    int availableWidth() const;

    QTableView* m_table;
    int m_column, m_min, m_max;
    QList<int> m_grow;
    QHash<int, int> m_base;
    int m_lastWidth = -1;
    std::function<void(int)> m_beforeFit;
};
