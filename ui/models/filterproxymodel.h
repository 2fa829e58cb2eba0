// SPDX-License-Identifier: MIT
#pragma once
// Sorting and filtering of the filter matrix: search text, level, category, "flagged only".
// Sorting uses FilterMatrixModel::SortRole so ids sort naturally and metrics numerically.

#include <QSortFilterProxyModel>

class FilterMatrixModel;

class FilterProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit FilterProxyModel(QObject* parent = nullptr);

    void setSearchText(const QString& text);
    QString searchText() const { return m_search; }
    void setLevel(int level); // 0 = all levels (extras have level 0 and show with "all" only)
    int level() const { return m_level; }
    void setCategory(const QString& category); // empty = all
    QString category() const { return m_category; }
    void setFlaggedOnly(bool on);
    bool flaggedOnly() const { return m_flaggedOnly; }
    bool isFiltering() const;
    // Source rows that pass the filter, in source order (for exports that must keep file order).
    QList<int> acceptedSourceRows() const;

    void setSourceModel(QAbstractItemModel* model) override;

  protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

  private:
    void onFlagsChanged();

    QString m_search;
    int m_level = 0;
    QString m_category;
    bool m_flaggedOnly = false;
    bool m_unsortedRows = false; // rows inserted since the last sort
};
