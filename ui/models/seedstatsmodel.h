// SPDX-License-Identifier: MIT
#pragma once
// Per-seed output statistics of one task (mean, std, min, max of the output for that seed).

#include "metatypes.h"

#include <QAbstractTableModel>

#include <vector>

class SeedStatsModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns { SeedColumn, MeanColumn, StdColumn, MinColumn, MaxColumn, ColumnCount };

    explicit SeedStatsModel(QObject* parent = nullptr);

    void setTask(const ks::TaskResult* task);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    std::vector<ks::SeedStat> m_stats;
};
