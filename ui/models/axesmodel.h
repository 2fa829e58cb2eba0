// SPDX-License-Identifier: MIT
#pragma once
// Per-axis uniformity of one task: axis 0 is the seed axis, axis k the output's dim k-1.

#include "metatypes.h"

#include <QAbstractTableModel>

#include <vector>

class AxesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns { AxisColumn, SizeColumn, ValueColumn, StateColumn, ColumnCount };

    explicit AxesModel(QObject* parent = nullptr);

    void setTask(const ks::TaskResult* task, double threshold);
    void setThreshold(double threshold);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    static QString axisName(int axis);
    bool flagged(int axis) const;

  private:
    std::vector<double> m_values;
    std::vector<int64_t> m_sizes; // size of each axis of [S, *out]
    double m_threshold = 0.01;
};
