// SPDX-License-Identifier: MIT
#pragma once
// Flag counts per criterion and level, kept in step with a FilterMatrixModel: recounted in
// O(tasks) from the matrix's cached flags whenever they change.

#include <ks/core/criteria.h>

#include <QAbstractTableModel>

#include <array>

class FilterMatrixModel;

class SummaryModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns {
        LabelColumn,
        TotalColumn,
        Level1Column,
        Level2Column,
        Level3Column,
        OtherLevelColumn,
        ColumnCount
    };
    // Rows 0..CriterionCount-1 are the criteria in ks::criteria() order.
    enum Rows { AnyFlagRow = ks::CriterionCount, ErrorRow, NotRunRow, TaskRow, RowCount };

    explicit SummaryModel(QObject* parent = nullptr);

    void setSourceModel(FilterMatrixModel* model);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    int count(int row, int column) const;
    static int columnOfLevel(int level);

  public slots:
    void recount();

  private:
    FilterMatrixModel* m_source = nullptr;
    std::array<std::array<int, ColumnCount>, RowCount> m_counts{};
};
